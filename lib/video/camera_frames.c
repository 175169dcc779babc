// SPDX-License-Identifier: MIT
/*
 * Where a camera's captured frames live and how they reach the driver.  The
 * zero-copy path hands the driver DMA-BUFs of llmem pages, each starting at
 * its plane's first byte (V4L2 takes no offset into a capture DMA-BUF): a
 * frame of one buffer is one llmem buffer, NV12M's two planes are two, each
 * in pages of its plane's own memory.  The copy path lets the driver fill
 * its own buffers and copies each frame with the CPU into a staging buffer
 * and up to the device.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/memory.h>
#include <llmem/share.h>
#include <llmem/transfer.h>
#include <llmem/v4l2.h>

#include "base/error.h"
#include "share/frame_pages.h"
#include "video/camera.h"
#include "video/libcamera.h"

/* Fewer and the camera would wait for the caller on every frame. */
#define MIN_BUFFERS 2

/*
 * Bytes of memory plane @p of a frame as the library holds it: for a frame
 * of one buffer its whole layout, else what the driver asks of the plane.
 */
static uint64_t plane_bytes(const struct llmem_camera *c, uint32_t p)
{
	return c->info.format.mem_planes > 1 ? c->info.format.mem_plane_size[p]
					     : c->info.layout.size;
}

/* The same, in whole pages, as a plane's buffer is allocated. */
static uint64_t plane_alloc(const struct llmem_camera *c, uint32_t p)
{
	return (plane_bytes(c, p) + LLMEM_FRAME_PAGES_ALIGN - 1) / LLMEM_FRAME_PAGES_ALIGN *
	       LLMEM_FRAME_PAGES_ALIGN;
}

int llmem_camera_frames_queue(struct llmem_camera *c, uint32_t i)
{
	struct llmem_v4l2_plane planes[LLMEM_V4L2_MAX_MEM_PLANES];
	uint32_t n = c->info.format.mem_planes;
	int ret;

	if (c->lc) {
		ret = llmem_libcamera_queue(c->lc, i);
	} else if (c->copy) {
		ret = llmem_v4l2_queue(c->dev, i);
	} else {
		for (uint32_t p = 0; p < n; p++)
			planes[p] = (struct llmem_v4l2_plane){
				.fd = c->fds[p][i],
				.length = (uint32_t)llmem_buffer_size(c->frames[p][i]),
			};
		ret = llmem_v4l2_queue_dmabuf_planes(c->dev, i, planes, n);
	}
	if (!ret)
		c->queued[i] = true;
	return ret;
}

/* Drops the zero-copy frames, to start again with other memory. */
static void drop_zero_copy(struct llmem_camera *c)
{
	llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, 0);
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++) {
		for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
			llmem_buffer_destroy(c->frames[p][i]);
			c->frames[p][i] = NULL;
			if (c->fds[p][i] >= 0)
				close(c->fds[p][i]);
			c->fds[p][i] = -1;
		}
		llmem_memory_destroy(c->shared[p]);
		c->shared[p] = NULL;
	}
	memset(c->queued, 0, sizeof(c->queued));
}

static int granted(struct llmem_camera *c, int ret)
{
	if (ret < 0)
		return ret;
	if (ret < MIN_BUFFERS)
		return llmem_error(-ENOMEM, "camera: %s granted %d buffers, at least %d are needed",
				   c->info.device, ret, MIN_BUFFERS);
	c->info.buffers =
		(uint32_t)ret > LLMEM_CAMERA_MAX_BUFFERS ? LLMEM_CAMERA_MAX_BUFFERS : (uint32_t)ret;
	return 0;
}

/*
 * The frames' memories, one per memory plane (share/frame_pages.h): on
 * llmem.ko's pages the frames' planes share a page, each reaching the
 * camera as a range; elsewhere each plane of each frame has a page of its
 * own.  Plane 0 is the largest: NV12's Y plane.
 */
static int frames_memory(struct llmem_camera *c, uint32_t buffers, uint32_t backend)
{
	static const char *const names[] = { "camera frames", "camera frames, CbCr planes" };
	uint64_t bytes[LLMEM_V4L2_MAX_MEM_PLANES];
	struct llmem_frame_pages_info info = {
		.buffers = c->info.format.mem_planes,
		.bytes = bytes,
		.frames = buffers,
		.contiguous = c->info.flags & LLMEM_CAMERA_CONTIGUOUS,
		.backend = backend,
		.names = names,
	};

	for (uint32_t p = 0; p < info.buffers; p++)
		bytes[p] = plane_alloc(c, p);
	return llmem_frame_pages_create(c->session, &info, c->shared, &c->info.frames_per_page,
					&c->info.backend);
}

static int export_frame(struct llmem_camera *c, uint32_t i)
{
	for (uint32_t p = 0; p < c->info.format.mem_planes; p++) {
		/* The frame's number in its name: what llmem.ko's debugfs and
		 * fdinfo show of each DMA-BUF. */
		char name[32];
		int ret;

		snprintf(name, sizeof(name), p ? "camera frame %u CbCr" : "camera frame %u", i);
		ret = llmem_frame_pages_export(c->shared[p], c->info.frames_per_page,
					       plane_alloc(c, p), name, &c->frames[p][i],
					       &c->fds[p][i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int make_frame(struct llmem_camera *c, uint32_t i)
{
	int ret = export_frame(c, i);

	return ret ? ret : llmem_camera_frames_queue(c, i);
}

/*
 * A device that DMAs without an IOMMU refuses scattered pages at QBUF with
 * EFAULT: the frames are then made again in physically contiguous memory.
 */
static int setup_zero_copy(struct llmem_camera *c, uint32_t buffers, uint32_t backend)
{
	int ret;

	ret = frames_memory(c, buffers, backend);
	if (ret)
		return ret;
	ret = granted(c, llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, buffers));
	if (ret)
		return ret;
	for (uint32_t i = 0; i < c->info.buffers; i++) {
		ret = make_frame(c, i);
		if (ret == -EFAULT && !(c->info.flags & LLMEM_CAMERA_CONTIGUOUS)) {
			drop_zero_copy(c);
			c->info.flags |= LLMEM_CAMERA_CONTIGUOUS;
			return setup_zero_copy(c, buffers, backend);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* The driver's buffer @i, each plane exported and mapped, then queued. */
static int map_driver_buffer(struct llmem_camera *c, uint32_t i)
{
	for (uint32_t p = 0; p < c->info.format.mem_planes; p++) {
		uint32_t size = c->info.format.mem_plane_size[p];
		int ret = llmem_v4l2_export_plane(c->dev, i, p, &c->fds[p][i]);

		if (ret)
			return ret;
		c->maps[p][i] = mmap(NULL, size, PROT_READ, MAP_SHARED, c->fds[p][i], 0);
		if (c->maps[p][i] == MAP_FAILED) {
			c->maps[p][i] = NULL;
			return llmem_error(-errno, "camera: mmap of %s's buffer %u plane %u: %s",
					   c->info.device, i, p, strerror(errno));
		}
	}
	return llmem_camera_frames_queue(c, i);
}

/*
 * libcamera's own buffer @i (its first plane's fd holds the frame, at an
 * offset from its first byte), mapped.
 */
static int map_libcamera_buffer(struct llmem_camera *c, uint32_t i)
{
	uint32_t offset, length, size = c->info.format.mem_plane_size[0];
	int ret = llmem_libcamera_export(c->lc, i, &c->fds[0][i], &offset, &length);

	if (ret)
		return ret;
	if (offset % 4096 || length < size)
		return llmem_error(
			-ENOTSUP,
			"camera: libcamera's buffer %u holds %u bytes at %u, not %u at a "
			"page",
			i, length, offset, size);
	c->maps[0][i] = mmap(NULL, size, PROT_READ, MAP_SHARED, c->fds[0][i], offset);
	if (c->maps[0][i] == MAP_FAILED) {
		c->maps[0][i] = NULL;
		return llmem_error(-errno, "camera: mmap of libcamera's buffer %u: %s", i,
				   strerror(errno));
	}
	return 0;
}

/* The driver's (libcamera's) buffers, each mapped and queued (libcamera's
 * are queued as the camera starts). */
static int map_own_buffers(struct llmem_camera *c, uint32_t buffers)
{
	uint32_t count;
	int ret;

	if (!c->lc) {
		ret = granted(c,
			      llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_MMAP, buffers));
		for (uint32_t i = 0; !ret && i < c->info.buffers; i++)
			ret = map_driver_buffer(c, i);
		return ret;
	}
	ret = llmem_libcamera_allocate(c->lc, &count);
	if (!ret)
		ret = granted(c, (int)(count > LLMEM_CAMERA_MAX_BUFFERS ? LLMEM_CAMERA_MAX_BUFFERS
									: count));
	for (uint32_t i = 0; !ret && i < c->info.buffers; i++)
		ret = map_libcamera_buffer(c, i);
	return ret;
}

static int setup_copy(struct llmem_camera *c, uint32_t buffers)
{
	struct llmem_memory_create_info host = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.name = "camera staging",
	};
	struct llmem_memory_create_info device = { .name = "camera device frames" };
	uint64_t staging = 0;
	int ret;

	c->info.backend = LLMEM_BACKEND_VULKAN;
	c->info.frames_per_page = 1;
	ret = map_own_buffers(c, buffers);
	if (!ret)
		ret = llmem_memory_create(c->session, &host, &c->staging_memory);
	if (!ret)
		ret = llmem_memory_create(c->session, &device, &c->device_memory);
	for (uint32_t p = 0; !ret && p < c->info.format.mem_planes; p++) {
		ret = llmem_buffer_create(c->device_memory,
					  &(struct llmem_buffer_create_info){
						  .size = plane_bytes(c, p),
					  },
					  &c->device_frame[p]);
		staging += plane_alloc(c, p);
	}
	if (!ret)
		ret = llmem_buffer_create(c->staging_memory,
					  &(struct llmem_buffer_create_info){ .size = staging },
					  &c->staging);
	if (!ret)
		ret = llmem_buffer_map(c->staging, &c->staging_map);
	return ret;
}

/*
 * libcamera's frames: as many as its validate() asked for, each handed to
 * a request of its own with the planes where the layout puts them; the
 * requests are queued when the camera starts.
 */
static int setup_libcamera(struct llmem_camera *c, uint32_t backend)
{
	const struct llmem_frame_layout *l = &c->info.layout;
	uint32_t offsets[LLMEM_FRAME_MAX_PLANES];
	int ret;

	ret = granted(c, (int)(c->lc_buffers > LLMEM_CAMERA_MAX_BUFFERS ? LLMEM_CAMERA_MAX_BUFFERS
									: c->lc_buffers));
	if (!ret)
		ret = frames_memory(c, c->info.buffers, backend);
	for (uint32_t p = 0; p < l->num_planes; p++)
		offsets[p] = (uint32_t)l->offset[p];
	for (uint32_t i = 0; !ret && i < c->info.buffers; i++) {
		ret = export_frame(c, i);
		if (!ret)
			ret = llmem_libcamera_add_buffer(c->lc, i, c->fds[0][i], offsets,
							 l->num_planes, (uint32_t)l->size);
	}
	return ret;
}

int llmem_camera_frames_setup(struct llmem_camera *c, uint32_t buffers, uint32_t backend)
{
	if (c->lc && !c->copy)
		return setup_libcamera(c, backend);
	return c->copy ? setup_copy(c, buffers) : setup_zero_copy(c, buffers, backend);
}

int llmem_camera_frames_copy_up(struct llmem_camera *c, uint32_t i)
{
	uint64_t offset = 0;

	for (uint32_t p = 0; p < c->info.format.mem_planes; p++) {
		uint32_t size = c->info.format.mem_plane_size[p];
		int ret;

		memcpy((uint8_t *)c->staging_map + offset, c->maps[p][i], size);
		ret = llmem_buffer_copy(c->staging, offset, c->device_frame[p], 0, size);
		if (ret)
			return ret;
		offset += plane_alloc(c, p);
	}
	return 0;
}

void llmem_camera_frames_destroy(struct llmem_camera *c)
{
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++) {
		for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
			llmem_buffer_destroy(c->frames[p][i]);
			if (c->maps[p][i])
				munmap(c->maps[p][i], c->info.format.mem_plane_size[p]);
			if (c->fds[p][i] >= 0)
				close(c->fds[p][i]);
		}
		llmem_buffer_destroy(c->device_frame[p]);
		llmem_memory_destroy(c->shared[p]);
	}
	if (c->staging_map)
		llmem_buffer_unmap(c->staging);
	llmem_buffer_destroy(c->staging);
	llmem_memory_destroy(c->staging_memory);
	llmem_memory_destroy(c->device_memory);
}
