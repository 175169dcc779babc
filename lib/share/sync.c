// SPDX-License-Identifier: MIT
/*
 * Synchronisation with the other users of a shared buffer: the
 * DMA_BUF_IOCTL_SYNC brackets around CPU access.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/dma-buf.h>

#include <llmem/share.h>

#include "base/error.h"
#include "memory/buffer.h"

static int cpu_access(struct llmem_buffer *b, uint32_t access, uint64_t edge, const char *what)
{
	struct dma_buf_sync sync = { .flags = edge };
	int fd, ret;

	if (!b || !access || (access & ~(uint32_t)(LLMEM_CPU_READ | LLMEM_CPU_WRITE)))
		return llmem_error(-EINVAL, "%s: NULL buffer or access 0x%x", what, access);
	/* Pages with no DMA-BUF behind them (plain, wrapped host memory,
	 * opaque fds) have no exporter to bracket; plain memory is told apart
	 * first so that the common case leaves llmem_last_error() alone. */
	if (!llmem_memory_handle_types(b->obj.memory))
		return 0;
	ret = llmem_memory_page_fd(b->obj.memory, b->obj.alloc.page, &fd);
	if (ret == -ENOTSUP)
		return 0;
	if (ret)
		return ret;
	if (access & LLMEM_CPU_READ)
		sync.flags |= DMA_BUF_SYNC_READ;
	if (access & LLMEM_CPU_WRITE)
		sync.flags |= DMA_BUF_SYNC_WRITE;
	do {
		ret = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? llmem_error(-errno, "%s: DMA_BUF_IOCTL_SYNC: %s", what, strerror(errno)) : 0;
}

LLMEM_PUBLIC int llmem_buffer_begin_cpu_access(struct llmem_buffer *b, uint32_t access)
{
	return cpu_access(b, access, DMA_BUF_SYNC_START, "llmem_buffer_begin_cpu_access");
}

LLMEM_PUBLIC int llmem_buffer_end_cpu_access(struct llmem_buffer *b, uint32_t access)
{
	return cpu_access(b, access, DMA_BUF_SYNC_END, "llmem_buffer_end_cpu_access");
}
