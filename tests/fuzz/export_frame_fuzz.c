// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the validation of a frame handed to
 * llmem_buffer_export_frame() (lib/share/export.c, lib/memory/frame.c), the
 * descriptor that reaches V4L2, drmModeAddFB2 and codecs.  The buffer is a
 * stand-in of any size and place in its page, whose page DMA-BUF is a memfd
 * (llmem_memory_page_fd() below): no device is needed.  The layout is made
 * by llmem_frame_layout_init() and then one field overwritten, or is all
 * input bytes.  Any input gets 0 or a documented error; a failure hands out
 * no fd; a frame that is exported has every plane inside the buffer's own
 * bytes of the fd, and only the flags' offset rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <llmem/share.h>

#include "fuzz_input.h"
#include "memory/buffer.h"

static int page_fd = -1;

/* The memory tier's answers for the stand-in's page. */
int llmem_memory_page_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	if (page_fd < 0)
		page_fd = memfd_create("export-frame-fuzz", MFD_CLOEXEC);
	if (page_fd < 0)
		abort();
	*fd = page_fd;
	return 0;
}

int llmem_memory_page_opaque_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	return -ENOTSUP;
}

const char *llmem_backend_name(uint32_t backend)
{
	return "stand-in";
}

static const uint32_t fourccs[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12, DRM_FORMAT_ABGR8888,
				    DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };

/* The lowest free fd number: a failure that leaked one moves it. */
static int next_fd(void)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		abort();
	close(fd);
	return fd;
}

/* Bytes of a row and rows of plane @p, as the formats define them. */
static void plane_geometry(const struct llmem_frame_layout *l, uint32_t p, uint64_t *row,
			   uint64_t *rows)
{
	*rows = l->height;
	if (l->fourcc == DRM_FORMAT_NV12) {
		*row = l->width;
		if (p)
			*rows = (l->height + 1ULL) / 2;
	} else {
		*row = (uint64_t)l->width * (l->fourcc == DRM_FORMAT_YUYV ? 2 : 4);
	}
}

static void check(const struct llmem_buffer *b, const struct llmem_frame_layout *l, uint32_t flags,
		  const struct llmem_dmabuf_frame *out)
{
	/* Where the buffer's bytes start in the fd: the page's, or its own. */
	uint64_t start = flags & LLMEM_EXPORT_RANGE ? 0 : b->obj.alloc.offset;

	if (out->fd < 0 || out->num_planes != l->num_planes || out->num_planes < 1 ||
	    out->num_planes > LLMEM_FRAME_MAX_PLANES || out->fourcc != l->fourcc ||
	    out->modifier != DRM_FORMAT_MOD_LINEAR)
		abort();
	if ((flags & LLMEM_EXPORT_NO_OFFSET) && out->offset[0])
		abort();
	for (uint32_t p = 0; p < out->num_planes; p++) {
		uint64_t row, rows;

		plane_geometry(l, p, &row, &rows);
		if (out->pitch[p] < row || out->offset[p] < start ||
		    out->offset[p] - start > b->size ||
		    (uint64_t)out->pitch[p] * rows > b->size - (out->offset[p] - start))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct llmem_memory memory = { .sharing = LLMEM_SHARING_DMABUF };
	struct llmem_buffer b = { .obj.memory = &memory };
	struct llmem_frame_layout l = { 0 };
	struct llmem_dmabuf_frame out;
	uint8_t mode = fuzz_u8(&in);
	uint32_t flags = fuzz_u32(&in);
	int fds, ret, fd;

	/* The page's fd is opened once, before fds are counted. */
	llmem_memory_page_fd(&memory, 0, &fd);
	b.size = fuzz_u32(&in);
	b.obj.alloc.offset = fuzz_u32(&in) & (mode & 0x80 ? ~0u : ~4095u);
	memory.backend = mode & 0x40 ? LLMEM_BACKEND_LLMEM_DMABUF : LLMEM_BACKEND_VULKAN_DMABUF;
	if (!(mode & 0x20))
		flags &= LLMEM_EXPORT_RANGE | LLMEM_EXPORT_NO_OFFSET;
	if (mode & 1) {
		fuzz_bytes(&in, &l, sizeof(l));
	} else {
		uint32_t w = fuzz_u32(&in) & 0x1fff, h = fuzz_u32(&in) & 0x1fff;
		uint8_t field = fuzz_u8(&in);
		uint64_t v = fuzz_u64(&in);

		if (llmem_frame_layout_init(fourccs[(mode >> 1) % 5], w, h, NULL, &l))
			return 0;
		switch (field % 8) {
		case 0:
			l.num_planes = (uint32_t)v;
			break;
		case 1:
			l.offset[v % 4] = v >> 8;
			break;
		case 2:
			l.pitch[v % 4] = (uint32_t)(v >> 8);
			break;
		case 3:
			l.size = v;
			break;
		case 4:
			l.width = (uint32_t)v;
			break;
		case 5:
			l.height = (uint32_t)v;
			break;
		case 6:
			l.modifier = v;
			break;
		default:
			break;
		}
	}

	fds = next_fd();
	ret = llmem_buffer_export_frame(&b, &l, flags, &out);
	if (ret) {
		/* -ENODEV, -ENOTSUP: ranges need llmem.ko, which no host here has. */
		if (ret != -EINVAL && ret != -ENOTSUP && ret != -ENODEV)
			abort();
		if (out.fd != -1 || next_fd() != fds)
			abort();
		return 0;
	}
	check(&b, &l, flags, &out);
	close(out.fd);
	if (next_fd() != fds)
		abort();
	return 0;
}
