/* SPDX-License-Identifier: MIT */
/*
 * File reads and writes whose memory is a mapping of shared memory: a
 * DMA-BUF's mmap, an llmem page, a codec's or a camera's buffer.  Some of
 * these mappings are VM_PFNMAP (udmabuf's since Linux 6.12, the system DMA
 * heap's): they have no struct page behind them, so a file system that pins
 * the caller's pages for zero-copy I/O (9p, O_DIRECT, FUSE) refuses them with
 * EFAULT, where a copy from them works.  These do the I/O straight from the
 * mapping and do again what was refused through a small buffer of their own,
 * so that a caller need not know where its mapping came from.  A pointer
 * that is truly bad faults in that copy instead: pass only mappings.
 */
#ifndef LLMEM_TOOLS_MAPPED_IO_H
#define LLMEM_TOOLS_MAPPED_IO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Appends @size bytes at @map to @f (flushed first, then written through its
 * fd): 0, or a negative errno with nothing said; what was written before an
 * error stays written.
 */
int mapped_fwrite(FILE *f, const void *map, size_t size);

/*
 * Reads @size bytes of @fd from @offset into @map: 0, -ENODATA when the file
 * ends first, or a negative errno, with nothing said.
 */
int mapped_pread(int fd, void *map, size_t size, off_t offset);

#endif
