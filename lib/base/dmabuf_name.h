/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_BASE_DMABUF_NAME_H
#define LLMEM_BASE_DMABUF_NAME_H

/*
 * Names the DMA-BUF @fd "llmem:@what" (DMA_BUF_SET_NAME, cut to the
 * kernel's 32 bytes), for debugfs, /proc/PID/fdinfo and whoever lists a
 * process's buffers to say what it is for.  A name is a help, not a need:
 * a kernel or buffer that refuses one is left unnamed.
 */
void llmem_dmabuf_name(int fd, const char *what);

#endif
