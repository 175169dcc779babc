// SPDX-License-Identifier: MIT
/*
 * Pages and buffers of shared memories as importers see them: the page's
 * DMA-BUF (or, for CUDA, its opaque fd) and where the buffer, or a frame in
 * it, lies inside; and the DMA_BUF_IOCTL_SYNC brackets around CPU access.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include <llmem/buffer.h>
#include <llmem/share.h>

#include "base/error.h"
#include "memory/buffer.h"

/* A new close-on-exec duplicate of page @page's DMA-BUF, the caller's. */
static int dup_page_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	int own, ret;

	ret = llmem_memory_page_fd(m, page, &own);
	if (ret)
		return ret;
	*fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
	return *fd < 0 ? llmem_error(-errno, "export: dup: %s", strerror(errno)) : 0;
}

LLMEM_PUBLIC int llmem_memory_export_page(struct llmem_memory *m, uint32_t page, int *fd)
{
	if (!m || !fd)
		return llmem_error(-EINVAL, "export page: NULL argument");
	return dup_page_fd(m, page, fd);
}

LLMEM_PUBLIC int llmem_memory_export_page_opaque_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	if (!m || !fd)
		return llmem_error(-EINVAL, "export opaque fd: NULL argument");
	if (m->sharing != LLMEM_SHARING_OPAQUE_FD)
		return llmem_error(-ENOTSUP,
				   "export opaque fd: memory '%s' was not created with "
				   "LLMEM_SHARING_OPAQUE_FD",
				   m->name);
	return llmem_memory_page_opaque_fd(m, page, fd);
}

LLMEM_PUBLIC int llmem_buffer_export(struct llmem_buffer *b, struct llmem_dmabuf_region *out)
{
	int ret;

	if (!b || !out)
		return llmem_error(-EINVAL, "llmem_buffer_export: NULL argument");
	*out = (struct llmem_dmabuf_region){ .fd = -1 };
	ret = dup_page_fd(b->obj.memory, b->obj.alloc.page, &out->fd);
	if (ret)
		return ret;
	out->offset = b->obj.alloc.offset;
	out->size = b->size;
	return 0;
}

LLMEM_PUBLIC int llmem_buffer_export_frame(struct llmem_buffer *b,
					   const struct llmem_frame_layout *layout,
					   struct llmem_dmabuf_frame *out)
{
	int ret;

	if (!b || !layout || !out)
		return llmem_error(-EINVAL, "llmem_buffer_export_frame: NULL argument");
	if (layout->num_planes < 1 || layout->num_planes > LLMEM_FRAME_MAX_PLANES)
		return llmem_error(-EINVAL, "export frame: %u planes", layout->num_planes);
	if (layout->size > b->size)
		return llmem_error(-EINVAL,
				   "export frame: the frame needs %llu bytes, the buffer has %llu",
				   (unsigned long long)layout->size, (unsigned long long)b->size);
	*out = (struct llmem_dmabuf_frame){ .fd = -1 };
	ret = dup_page_fd(b->obj.memory, b->obj.alloc.page, &out->fd);
	if (ret)
		return ret;
	out->fourcc = layout->fourcc;
	out->width = layout->width;
	out->height = layout->height;
	out->num_planes = layout->num_planes;
	out->modifier = layout->modifier;
	for (uint32_t p = 0; p < layout->num_planes; p++) {
		out->offset[p] = b->obj.alloc.offset + layout->offset[p];
		out->pitch[p] = layout->pitch[p];
	}
	return 0;
}

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
