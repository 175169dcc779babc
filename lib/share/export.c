// SPDX-License-Identifier: MIT
/*
 * Pages and buffers of shared memories as importers see them: the page's
 * DMA-BUF (or, for CUDA, its opaque fd) and where the buffer, or a frame in
 * it, lies inside; or, for importers that take no offset, a DMA-BUF over
 * the buffer's own pages, which llmem.ko cuts out of the page's.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/llmem.h>

#include <llmem/buffer.h>
#include <llmem/share.h>

#include "base/dmabuf_name.h"
#include "base/error.h"
#include "memory/buffer.h"
#include "memory/frame.h"

/* llmem.ko cuts ranges in whole pages. */
#define RANGE_ALIGN 4096u

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

/* llmem.ko's range of a page's DMA-BUF, as a DMA-BUF of its own. */
static int export_range(int page_fd, uint64_t offset, uint64_t size, const char *name, int *fd)
{
	struct llmem_export_range req = {
		.fd = (uint32_t)page_fd,
		.flags = LLMEM_EXPORT_RANGE_CLOEXEC,
		.offset = offset,
		.size = size,
	};
	int dev, ret;

	dev = open("/dev/llmem", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return llmem_error(errno == ENOENT ? -ENODEV : -errno,
				   "export range: open /dev/llmem: %s", strerror(errno));
	do {
		ret = ioctl(dev, LLMEM_IOC_EXPORT_RANGE, &req);
	} while (ret == -1 && errno == EINTR);
	ret = ret == -1 ? -errno : 0;
	close(dev);
	if (ret == -EINVAL)
		return llmem_error(-ENOTSUP,
				   "export range: the page's DMA-BUF is not one of llmem.ko's");
	if (ret)
		return llmem_error(ret, "export range: LLMEM_IOC_EXPORT_RANGE: %s", strerror(-ret));
	*fd = (int)req.out_fd;
	llmem_dmabuf_name(*fd, name);
	return 0;
}

static bool pages_from_llmem(uint32_t backend)
{
	return backend == LLMEM_BACKEND_LLMEM_DMABUF ||
	       backend == LLMEM_BACKEND_LLMEM_HOST_POINTER ||
	       backend == LLMEM_BACKEND_IMPORT_DMABUF ||
	       backend == LLMEM_BACKEND_IMPORT_HOST_POINTER;
}

/* A DMA-BUF over the buffer's own pages: @out->fd, @out->size. */
static int buffer_range(struct llmem_buffer *b, struct llmem_dmabuf_region *out)
{
	struct llmem_memory *m = b->obj.memory;
	uint64_t offset = b->obj.alloc.offset;
	int page_fd, ret;

	if (m->sharing == LLMEM_SHARING_NONE || !pages_from_llmem(m->backend))
		return llmem_error(-ENOTSUP,
				   "export range: memory '%s' has pages from backend %s; a range "
				   "needs llmem.ko's (llmem-dmabuf, llmem-host-pointer)",
				   m->name, llmem_backend_name(m->backend));
	if (offset % RANGE_ALIGN)
		return llmem_error(-EINVAL,
				   "export range: the buffer starts at %llu in its page, not a "
				   "multiple of %u (create it with alignment %u)",
				   (unsigned long long)offset, RANGE_ALIGN, RANGE_ALIGN);
	ret = llmem_memory_page_fd(m, b->obj.alloc.page, &page_fd);
	if (ret)
		return ret;
	out->size = (b->size + RANGE_ALIGN - 1) / RANGE_ALIGN * RANGE_ALIGN;
	out->offset = 0;
	return export_range(page_fd, offset, out->size, b->obj.name, &out->fd);
}

LLMEM_PUBLIC int llmem_buffer_export_range(struct llmem_buffer *b, struct llmem_dmabuf_region *out)
{
	if (!b || !out)
		return llmem_error(-EINVAL, "llmem_buffer_export_range: NULL argument");
	*out = (struct llmem_dmabuf_region){ .fd = -1 };
	return buffer_range(b, out);
}

LLMEM_PUBLIC int llmem_buffer_export_frame(struct llmem_buffer *b,
					   const struct llmem_frame_layout *layout, uint32_t flags,
					   struct llmem_dmabuf_frame *out)
{
	struct llmem_dmabuf_region region = { .fd = -1 };
	uint64_t start;
	int ret;

	if (!b || !layout || !out)
		return llmem_error(-EINVAL, "llmem_buffer_export_frame: NULL argument");
	*out = (struct llmem_dmabuf_frame){ .fd = -1 };
	if (flags & ~(uint32_t)(LLMEM_EXPORT_RANGE | LLMEM_EXPORT_NO_OFFSET))
		return llmem_error(-EINVAL, "export frame: unknown flags 0x%x", flags);
	ret = llmem_frame_layout_check(layout, "export frame");
	if (ret)
		return ret;
	if (layout->size > b->size)
		return llmem_error(-EINVAL,
				   "export frame: the frame needs %llu bytes, the buffer has %llu",
				   (unsigned long long)layout->size, (unsigned long long)b->size);
	start = (flags & LLMEM_EXPORT_RANGE ? 0 : b->obj.alloc.offset) + layout->offset[0];
	if ((flags & LLMEM_EXPORT_NO_OFFSET) && start)
		return llmem_error(
			-EINVAL,
			"export frame: the frame starts at byte %llu of its DMA-BUF, and "
			"the importer takes no offset%s",
			(unsigned long long)start,
			flags & LLMEM_EXPORT_RANGE ? ""
						   : " (LLMEM_EXPORT_RANGE gives the buffer "
						     "a DMA-BUF of its own)");
	if (flags & LLMEM_EXPORT_RANGE) {
		ret = buffer_range(b, &region);
		out->fd = region.fd;
	} else {
		ret = dup_page_fd(b->obj.memory, b->obj.alloc.page, &out->fd);
	}
	if (ret)
		return ret;
	out->fourcc = layout->fourcc;
	out->width = layout->width;
	out->height = layout->height;
	out->num_planes = layout->num_planes;
	out->modifier = layout->modifier;
	for (uint32_t p = 0; p < layout->num_planes; p++) {
		out->offset[p] = start - layout->offset[0] + layout->offset[p];
		out->pitch[p] = layout->pitch[p];
	}
	return 0;
}
