// SPDX-License-Identifier: MIT
/*
 * The camera pipeline (llmem/camera.h).  Both paths share everything but
 * where a frame comes from: the zero-copy path hands the camera DMA-BUFs of
 * llmem pages, each starting at its frame's first byte (V4L2 takes no offset
 * into a capture DMA-BUF), and converts in place; the copy path lets the
 * camera fill its own buffers and copies each frame with the CPU into a
 * staging buffer and up to the device before the same conversion.  The
 * conversion writes into one RGBA buffer or several in turn, in memory of
 * its own or in shared pages that a display imports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/convert.h>
#include <llmem/memory.h>
#include <llmem/share.h>
#include <llmem/transfer.h>

#include "base/error.h"

#define FLAGS_MASK                                                               \
	(LLMEM_CAMERA_CONTIGUOUS | LLMEM_CAMERA_COPY | LLMEM_CAMERA_INPUT |      \
	 LLMEM_CAMERA_ENCODING | LLMEM_CAMERA_RANGE | LLMEM_CAMERA_SHARED_RGBA | \
	 LLMEM_CAMERA_CONVERT_LATER)
#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 480
#define DEFAULT_BUFFERS 4
/* Fewer and the camera would wait for the caller on every frame. */
#define MIN_BUFFERS 2
#define NO_FRAME UINT32_MAX

struct llmem_camera {
	struct llmem_session *session;
	struct llmem_v4l2 *dev;
	struct llmem_camera_info info;
	bool copy;
	bool streaming;
	/* The frame handed out and not yet released, or NO_FRAME. */
	uint32_t held;
	bool queued[LLMEM_CAMERA_MAX_BUFFERS];

	/* Zero-copy: one exported page per V4L2 buffer. */
	struct llmem_memory *shared;
	struct llmem_buffer *frames[LLMEM_CAMERA_MAX_BUFFERS];
	int fds[LLMEM_CAMERA_MAX_BUFFERS];

	/* Copy path: the driver's buffers, mapped, and the upload chain. */
	void *maps[LLMEM_CAMERA_MAX_BUFFERS];
	struct llmem_memory *staging_memory, *device_memory;
	struct llmem_buffer *staging, *device_frame;
	void *staging_map;

	struct llmem_memory *rgba_memory;
	struct llmem_buffer *rgba[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	void *rgba_map[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	/* The conversion of each frame buffer into each RGBA buffer, recorded
	 * once; the RGBA buffer the next frame goes to. */
	struct llmem_converter *converters[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	uint32_t next_rgba;
};

static int queue_frame(struct llmem_camera *c, uint32_t i)
{
	int ret;

	if (c->copy)
		ret = llmem_v4l2_queue(c->dev, i);
	else
		ret = llmem_v4l2_queue_dmabuf(c->dev, i, c->fds[i],
					      (uint32_t)llmem_buffer_size(c->frames[i]));
	if (!ret)
		c->queued[i] = true;
	return ret;
}

/* Drops the zero-copy frames, to start again with other memory. */
static void release_frames(struct llmem_camera *c)
{
	llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, 0);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
		llmem_buffer_destroy(c->frames[i]);
		c->frames[i] = NULL;
		if (c->fds[i] >= 0)
			close(c->fds[i]);
		c->fds[i] = -1;
		c->queued[i] = false;
	}
	llmem_memory_destroy(c->shared);
	c->shared = NULL;
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

static bool ranges_work(uint32_t backend)
{
	return backend == LLMEM_BACKEND_LLMEM_DMABUF || backend == LLMEM_BACKEND_LLMEM_HOST_POINTER;
}

/*
 * The frames' memory.  On llmem.ko's pages several frames share a page,
 * each reaching the camera as a DMA-BUF over its own bytes (a range): all
 * of them, or as many as a contiguous page holds.  Vulkan's exported pages
 * cannot be cut, so there each frame has a page of its own.
 */
static int frames_memory(struct llmem_camera *c, uint32_t buffers, uint32_t backend, uint64_t frame)
{
	bool contiguous = c->info.flags & LLMEM_CAMERA_CONTIGUOUS;
	uint64_t per_page = contiguous ? LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE / frame : buffers;
	struct llmem_memory_create_info mci = {
		.options = contiguous ? LLMEM_MEMORY_CONTIGUOUS : 0,
		.page_size = (per_page > 1 ? per_page : 1) * frame,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = backend,
		.name = "camera frames",
	};
	struct llmem_memory_info mi;
	int ret;

	ret = llmem_memory_create(c->session, &mci, &c->shared);
	if (ret)
		return ret;
	llmem_memory_get_info(c->shared, &mi);
	if (mci.page_size > frame && !ranges_work(mi.backend)) {
		llmem_memory_destroy(c->shared);
		mci.page_size = frame;
		mci.backend = mi.backend;
		ret = llmem_memory_create(c->session, &mci, &c->shared);
		if (ret)
			return ret;
	}
	c->info.backend = mi.backend;
	c->info.frames_per_page = (uint32_t)(mci.page_size / frame);
	return 0;
}

/* Frame @i as the DMA-BUF the camera takes: the frame's first byte its
 * first, as V4L2 wants it. */
static int export_frame(struct llmem_camera *c, uint32_t i)
{
	struct llmem_dmabuf_region region;
	int ret;

	if (c->info.frames_per_page > 1)
		ret = llmem_buffer_export_range(c->frames[i], &region);
	else
		ret = llmem_buffer_export(c->frames[i], &region);
	if (ret)
		return ret;
	c->fds[i] = region.fd;
	/* A frame of a page of its own is the page's only object. */
	if (region.offset)
		return llmem_error(-EIO, "camera: frame %u lies at offset %llu of its page", i,
				   (unsigned long long)region.offset);
	return 0;
}

/*
 * A device that DMAs without an IOMMU refuses scattered pages at QBUF with
 * EFAULT: the frames are then made again in physically contiguous memory.
 */
static int setup_zero_copy(struct llmem_camera *c, uint32_t buffers, uint32_t backend)
{
	uint64_t frame = (c->info.layout.size + 4095) / 4096 * 4096;
	int ret;

	ret = frames_memory(c, buffers, backend, frame);
	if (ret)
		return ret;
	ret = granted(c, llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, buffers));
	if (ret)
		return ret;
	for (uint32_t i = 0; i < c->info.buffers; i++) {
		struct llmem_buffer_create_info bci = {
			.size = frame,
			.name = "camera frame",
			.alignment = 4096,
		};

		ret = llmem_buffer_create(c->shared, &bci, &c->frames[i]);
		if (!ret)
			ret = export_frame(c, i);
		if (!ret)
			ret = queue_frame(c, i);
		if (ret == -EFAULT && !(c->info.flags & LLMEM_CAMERA_CONTIGUOUS)) {
			release_frames(c);
			c->info.flags |= LLMEM_CAMERA_CONTIGUOUS;
			return setup_zero_copy(c, buffers, backend);
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int setup_copy(struct llmem_camera *c, uint32_t buffers)
{
	struct llmem_memory_create_info host = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.name = "camera staging",
	};
	struct llmem_memory_create_info device = { .name = "camera device frames" };
	struct llmem_buffer_create_info bci = { .size = c->info.layout.size };
	uint32_t sizeimage = c->info.format.sizeimage;
	int ret;

	c->info.backend = LLMEM_BACKEND_VULKAN;
	c->info.frames_per_page = 1;
	ret = granted(c, llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_MMAP, buffers));
	if (ret)
		return ret;
	for (uint32_t i = 0; i < c->info.buffers; i++) {
		ret = llmem_v4l2_export(c->dev, i, &c->fds[i]);
		if (ret)
			return ret;
		c->maps[i] = mmap(NULL, sizeimage, PROT_READ, MAP_SHARED, c->fds[i], 0);
		if (c->maps[i] == MAP_FAILED) {
			c->maps[i] = NULL;
			return llmem_error(-errno, "camera: mmap of %s's buffer %u: %s",
					   c->info.device, i, strerror(errno));
		}
		ret = queue_frame(c, i);
		if (ret)
			return ret;
	}
	ret = llmem_memory_create(c->session, &host, &c->staging_memory);
	if (!ret)
		ret = llmem_memory_create(c->session, &device, &c->device_memory);
	if (!ret)
		ret = llmem_buffer_create(c->staging_memory, &bci, &c->staging);
	if (!ret)
		ret = llmem_buffer_create(c->device_memory, &bci, &c->device_frame);
	if (!ret)
		ret = llmem_buffer_map(c->staging, &c->staging_map);
	return ret;
}

/*
 * The RGBA buffers, in one page of the camera's own memory, or shared for a
 * display, each in a page of its own: it starts at its DMA-BUF's first
 * byte, which importers that mishandle offsets (vkms reads a plane's
 * framebuffer offset twice) need.
 */
static int setup_rgba(struct llmem_camera *c)
{
	bool shared = c->info.flags & LLMEM_CAMERA_SHARED_RGBA;
	uint64_t size = (c->info.rgba_layout.size + 4095) / 4096 * 4096;
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = shared ? size : 0,
		.spare_pages = shared ? LLMEM_MEMORY_SPARE_NONE : 0,
		.sharing = shared ? LLMEM_SHARING_DMABUF : LLMEM_SHARING_NONE,
		.name = "camera rgba",
	};
	struct llmem_buffer_create_info bci = {
		.size = c->info.rgba_layout.size,
		.name = "camera rgba",
		.alignment = shared ? 4096 : 0,
	};
	struct llmem_memory_info mi;
	int ret;

	ret = llmem_memory_create(c->session, &mci, &c->rgba_memory);
	if (ret)
		return ret;
	llmem_memory_get_info(c->rgba_memory, &mi);
	c->info.rgba_backend = shared ? mi.backend : LLMEM_BACKEND_VULKAN;
	for (uint32_t i = 0; i < c->info.rgba_buffers; i++) {
		ret = llmem_buffer_create(c->rgba_memory, &bci, &c->rgba[i]);
		if (!ret)
			ret = llmem_buffer_map(c->rgba[i], &c->rgba_map[i]);
		if (!ret)
			ret = llmem_converter_create(
				&(struct llmem_converter_create_info){
					.srcs = c->copy ? &c->device_frame : c->frames,
					.src_count = c->copy ? 1 : c->info.buffers,
					.src_layout = &c->info.layout,
					.dst = c->rgba[i],
					.dst_layout = &c->info.rgba_layout,
					.encoding = c->info.encoding,
					.range = c->info.range,
				},
				&c->converters[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int check_info(const struct llmem_camera_create_info *ci)
{
	if (ci->flags & ~(uint32_t)FLAGS_MASK)
		return llmem_error(-EINVAL, "camera: unknown flags 0x%x",
				   ci->flags & ~(uint32_t)FLAGS_MASK);
	if (ci->buffers > LLMEM_CAMERA_MAX_BUFFERS)
		return llmem_error(-EINVAL, "camera: %u buffers, at most %u", ci->buffers,
				   LLMEM_CAMERA_MAX_BUFFERS);
	if (!ci->width != !ci->height)
		return llmem_error(-EINVAL, "camera: size %ux%u: give both sides or neither",
				   ci->width, ci->height);
	if ((ci->flags & LLMEM_CAMERA_ENCODING) && ci->encoding > LLMEM_YCBCR_BT709)
		return llmem_error(-EINVAL, "camera: unknown encoding %u", ci->encoding);
	if ((ci->flags & LLMEM_CAMERA_RANGE) && ci->range > LLMEM_YCBCR_FULL_RANGE)
		return llmem_error(-EINVAL, "camera: unknown range %u", ci->range);
	if (ci->rgba_fourcc && ci->rgba_fourcc != DRM_FORMAT_ABGR8888 &&
	    ci->rgba_fourcc != DRM_FORMAT_XRGB8888 && ci->rgba_fourcc != DRM_FORMAT_ARGB8888)
		return llmem_error(
			-EINVAL, "camera: RGBA fourcc 0x%08x: ABGR8888, XRGB8888 or ARGB8888 only",
			ci->rgba_fourcc);
	if (ci->rgba_buffers > LLMEM_CAMERA_MAX_RGBA_BUFFERS)
		return llmem_error(-EINVAL, "camera: %u RGBA buffers, at most %u", ci->rgba_buffers,
				   LLMEM_CAMERA_MAX_RGBA_BUFFERS);
	if (ci->rgba_pitch_alignment & (ci->rgba_pitch_alignment - 1))
		return llmem_error(-EINVAL, "camera: RGBA pitch alignment %u: not a power of two",
				   ci->rgba_pitch_alignment);
	return 0;
}

static int setup(struct llmem_camera *c, const struct llmem_camera_create_info *ci)
{
	uint32_t fourcc = ci->fourcc ? ci->fourcc : V4L2_PIX_FMT_YUYV;
	uint32_t width = ci->width ? ci->width : DEFAULT_WIDTH;
	uint32_t height = ci->height ? ci->height : DEFAULT_HEIGHT;
	uint32_t buffers = ci->buffers ? ci->buffers : DEFAULT_BUFFERS;
	struct llmem_frame_constraints rgba = { .pitch_alignment = ci->rgba_pitch_alignment };
	int ret;

	if (ci->device)
		snprintf(c->info.device, sizeof(c->info.device), "%s", ci->device);
	else if ((ret = llmem_v4l2_find_capture(c->info.device, sizeof(c->info.device))))
		return ret;
	ret = llmem_v4l2_open(c->info.device, &c->dev);
	if (ret)
		return ret;
	snprintf(c->info.driver, sizeof(c->info.driver), "%s", llmem_v4l2_driver(c->dev));
	if (ci->flags & LLMEM_CAMERA_INPUT) {
		ret = llmem_v4l2_set_input(c->dev, ci->input);
		if (ret)
			return ret;
	}
	ret = llmem_v4l2_set_format(c->dev, fourcc, width, height, &c->info.format);
	if (!ret)
		ret = llmem_v4l2_format_layout(&c->info.format, &c->info.layout);
	if (!ret)
		ret = llmem_frame_layout_init(ci->rgba_fourcc ? ci->rgba_fourcc
							      : DRM_FORMAT_ABGR8888,
					      width, height, &rgba, &c->info.rgba_layout);
	if (ret)
		return ret;
	c->info.encoding =
		ci->flags & LLMEM_CAMERA_ENCODING ? ci->encoding : c->info.format.encoding;
	c->info.range = ci->flags & LLMEM_CAMERA_RANGE ? ci->range : c->info.format.range;
	ret = c->copy ? setup_copy(c, buffers) : setup_zero_copy(c, buffers, ci->backend);
	return ret ? ret : setup_rgba(c);
}

LLMEM_PUBLIC int llmem_camera_open(struct llmem_session *session,
				   const struct llmem_camera_create_info *info,
				   struct llmem_camera **out)
{
	static const struct llmem_camera_create_info defaults;
	const struct llmem_camera_create_info *ci = info ? info : &defaults;
	struct llmem_camera *c;
	int ret;

	if (!session || !out)
		return llmem_error(-EINVAL, "camera: NULL %s", session ? "out" : "session");
	*out = NULL;
	ret = check_info(ci);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return llmem_error(-ENOMEM, "camera: out of memory");
	c->session = session;
	c->copy = ci->flags & LLMEM_CAMERA_COPY;
	c->held = NO_FRAME;
	c->info.flags = ci->flags;
	c->info.rgba_buffers = ci->rgba_buffers ? ci->rgba_buffers : 1;
	for (int i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		c->fds[i] = -1;
	ret = setup(c, ci);
	if (ret) {
		llmem_camera_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

LLMEM_PUBLIC void llmem_camera_close(struct llmem_camera *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_RGBA_BUFFERS; i++)
		llmem_converter_destroy(c->converters[i]);
	/* Closing the node stops the stream and frees the driver's buffers,
	 * so that it lets go of the frames before they are destroyed. */
	llmem_v4l2_close(c->dev);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
		llmem_buffer_destroy(c->frames[i]);
		if (c->maps[i])
			munmap(c->maps[i], c->info.format.sizeimage);
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	}
	if (c->staging_map)
		llmem_buffer_unmap(c->staging);
	llmem_buffer_destroy(c->staging);
	llmem_buffer_destroy(c->device_frame);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_RGBA_BUFFERS; i++) {
		if (c->rgba_map[i])
			llmem_buffer_unmap(c->rgba[i]);
		llmem_buffer_destroy(c->rgba[i]);
	}
	llmem_memory_destroy(c->shared);
	llmem_memory_destroy(c->staging_memory);
	llmem_memory_destroy(c->device_memory);
	llmem_memory_destroy(c->rgba_memory);
	free(c);
}

LLMEM_PUBLIC int llmem_camera_get_info(const struct llmem_camera *c, struct llmem_camera_info *info)
{
	if (!c || !info)
		return llmem_error(-EINVAL, "camera info: NULL %s", c ? "info" : "camera");
	*info = c->info;
	return 0;
}

LLMEM_PUBLIC int llmem_camera_buffer(const struct llmem_camera *c, uint32_t index,
				     struct llmem_buffer **out)
{
	if (!c || !out)
		return llmem_error(-EINVAL, "camera buffer: NULL %s", c ? "out" : "camera");
	if (index >= c->info.buffers)
		return llmem_error(-EINVAL, "camera buffer: index %u, the camera has %u", index,
				   c->info.buffers);
	if (c->copy)
		return llmem_error(-ENOENT, "camera buffer: the copy path's buffers are %s's own",
				   c->info.driver);
	*out = c->frames[index];
	return 0;
}

LLMEM_PUBLIC int llmem_camera_rgba_buffer(const struct llmem_camera *c, uint32_t index,
					  struct llmem_buffer **out)
{
	if (!c || !out)
		return llmem_error(-EINVAL, "camera RGBA buffer: NULL %s", c ? "out" : "camera");
	if (index >= c->info.rgba_buffers)
		return llmem_error(-EINVAL, "camera RGBA buffer: index %u, the camera has %u",
				   index, c->info.rgba_buffers);
	*out = c->rgba[index];
	return 0;
}

LLMEM_PUBLIC int llmem_camera_export(const struct llmem_camera *c, uint32_t index, int *fd)
{
	if (!c || !fd)
		return llmem_error(-EINVAL, "camera export: NULL %s", c ? "fd" : "camera");
	if (index >= c->info.buffers)
		return llmem_error(-EINVAL, "camera export: index %u, the camera has %u", index,
				   c->info.buffers);
	*fd = fcntl(c->fds[index], F_DUPFD_CLOEXEC, 0);
	return *fd < 0 ? llmem_error(-errno, "camera export: dup: %s", strerror(errno)) : 0;
}

LLMEM_PUBLIC int llmem_camera_start(struct llmem_camera *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "camera start: NULL camera");
	if (c->streaming)
		return 0;
	for (uint32_t i = 0; i < c->info.buffers; i++) {
		if (c->queued[i])
			continue;
		ret = queue_frame(c, i);
		if (ret)
			return ret;
	}
	ret = llmem_v4l2_stream_on(c->dev);
	if (!ret)
		c->streaming = true;
	return ret;
}

LLMEM_PUBLIC int llmem_camera_stop(struct llmem_camera *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "camera stop: NULL camera");
	if (!c->streaming)
		return 0;
	ret = llmem_v4l2_stream_off(c->dev);
	if (ret)
		return ret;
	/* STREAMOFF hands every buffer back, queued or not. */
	c->streaming = false;
	c->held = NO_FRAME;
	memset(c->queued, 0, sizeof(c->queued));
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The copy path's CPU copy and upload of the frame in V4L2 buffer @index. */
static int copy_up(struct llmem_camera *c, uint32_t index)
{
	memcpy(c->staging_map, c->maps[index], c->info.format.sizeimage);
	return llmem_buffer_copy(c->staging, 0, c->device_frame, 0, c->info.layout.size);
}

/* The conversion of the frame held into the next RGBA buffer. */
static int convert_held(struct llmem_camera *c, struct llmem_camera_frame *frame)
{
	uint32_t k = c->next_rgba;
	uint64_t start = now_ns();
	int ret;

	ret = llmem_converter_run(c->converters[k], c->copy ? 0 : c->held);
	if (ret)
		return ret;
	frame->rgba = c->rgba[k];
	frame->rgba_data = c->rgba_map[k];
	frame->rgba_index = k;
	frame->convert_ns = now_ns() - start;
	c->next_rgba = (k + 1) % c->info.rgba_buffers;
	return 0;
}

LLMEM_PUBLIC int llmem_camera_next(struct llmem_camera *c, int timeout_ms,
				   struct llmem_camera_frame *frame)
{
	struct llmem_camera_frame f;
	struct llmem_v4l2_frame vf;
	int ret;

	if (!c || !frame)
		return llmem_error(-EINVAL, "camera next: NULL %s", c ? "frame" : "camera");
	if (!c->streaming)
		return llmem_error(-EBUSY, "camera next: %s is not streaming (llmem_camera_start)",
				   c->info.device);
	if (c->held != NO_FRAME)
		return llmem_error(-EBUSY, "camera next: frame %u is still held: release it first",
				   c->held);
	ret = llmem_v4l2_dequeue(c->dev, timeout_ms, &vf);
	if (ret)
		return ret;
	c->queued[vf.index] = false;
	c->held = vf.index;
	f = (struct llmem_camera_frame){
		.source = c->copy ? c->device_frame : c->frames[vf.index],
		.index = vf.index,
		.sequence = vf.sequence,
		.corrupted = vf.corrupted,
		.timestamp_ns = vf.timestamp_ns,
		.bytes_copied = c->copy ? c->info.format.sizeimage : 0,
	};
	if (c->copy)
		ret = copy_up(c, vf.index);
	if (!ret && !(c->info.flags & LLMEM_CAMERA_CONVERT_LATER))
		ret = convert_held(c, &f);
	if (ret) {
		/* The frame goes back to the camera: the caller never had it. */
		c->held = NO_FRAME;
		queue_frame(c, vf.index);
		return ret;
	}
	*frame = f;
	return 0;
}

LLMEM_PUBLIC int llmem_camera_convert(struct llmem_camera *c, struct llmem_camera_frame *frame)
{
	if (!c || !frame)
		return llmem_error(-EINVAL, "camera convert: NULL %s", c ? "frame" : "camera");
	if (!(c->info.flags & LLMEM_CAMERA_CONVERT_LATER))
		return llmem_error(-EINVAL,
				   "camera convert: %s converts every frame itself "
				   "(no LLMEM_CAMERA_CONVERT_LATER)",
				   c->info.device);
	if (c->held == NO_FRAME || frame->index != c->held)
		return llmem_error(-EINVAL, "camera convert: frame %u is not the one held",
				   frame->index);
	return convert_held(c, frame);
}

LLMEM_PUBLIC int llmem_camera_release(struct llmem_camera *c,
				      const struct llmem_camera_frame *frame)
{
	int ret;

	if (!c || !frame)
		return llmem_error(-EINVAL, "camera release: NULL %s", c ? "frame" : "camera");
	if (frame->index != c->held)
		return llmem_error(-EINVAL, "camera release: frame %u is not the one held",
				   frame->index);
	ret = queue_frame(c, frame->index);
	if (!ret)
		c->held = NO_FRAME;
	return ret;
}
