// SPDX-License-Identifier: MIT
/*
 * The camera pipeline (llmem/camera.h): the object, its RGBA frames and the
 * stream.  Both paths share everything but where a frame comes from
 * (camera_frames.c): the zero-copy path converts the frame where the camera
 * wrote it, the copy path the device's copy of it.  A camera of libcamera's
 * (camera_libcamera.c) takes either path with libcamera's requests in place
 * of the V4L2 node's buffers: llmem's frames, or libcamera's own buffers
 * copied.  The conversion writes
 * into one RGBA buffer or several in turn, in memory of its own or in
 * shared pages that a display imports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/convert.h>
#include <llmem/memory.h>

#include "base/error.h"
#include "memory/frame.h"
#include "video/camera.h"
#include "video/libcamera.h"
#include "video/negotiation.h"
#include "video/v4l2.h"

#define FLAGS_MASK                                                               \
	(LLMEM_CAMERA_CONTIGUOUS | LLMEM_CAMERA_COPY | LLMEM_CAMERA_INPUT |      \
	 LLMEM_CAMERA_ENCODING | LLMEM_CAMERA_RANGE | LLMEM_CAMERA_SHARED_RGBA | \
	 LLMEM_CAMERA_CONVERT_LATER | LLMEM_CAMERA_LIBCAMERA)
#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 480
#define DEFAULT_BUFFERS 4

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
	/* NV12M's CbCr planes, each in a buffer of its own. */
	struct llmem_buffer *const *chroma = c->info.format.mem_planes < 2 ? NULL
					     : c->copy			   ? &c->device_frame[1]
									   : c->frames[1];
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
					.srcs = c->copy ? &c->device_frame[0] : c->frames[0],
					.src_count = c->copy ? 1 : c->info.buffers,
					.src_layout = &c->info.layout,
					.dst = c->rgba[i],
					.dst_layout = &c->info.rgba_layout,
					.encoding = c->info.encoding,
					.range = c->info.range,
					.chroma_srcs = chroma,
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
	if ((ci->flags & LLMEM_CAMERA_LIBCAMERA) && (ci->flags & LLMEM_CAMERA_INPUT))
		return llmem_error(-EINVAL, "camera: libcamera's cameras have no video inputs");
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
	if (ci->max_held > LLMEM_CAMERA_MAX_BUFFERS)
		return llmem_error(-EINVAL, "camera: %u frames held at once, at most %u",
				   ci->max_held, LLMEM_CAMERA_MAX_BUFFERS);
	if (ci->max_held > 1 && (ci->flags & LLMEM_CAMERA_COPY))
		return llmem_error(-EINVAL,
				   "camera: the copy path holds one frame at a time "
				   "(one device buffer takes each copy), not %u",
				   ci->max_held);
	if ((ci->num_participants && !ci->participants) ||
	    (ci->num_rgba_participants && !ci->rgba_participants) ||
	    ci->num_participants > LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2 ||
	    ci->num_rgba_participants > LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 1)
		return llmem_error(-EINVAL,
				   "camera: %u and %u participants; at most %u and %u, "
				   "not NULL",
				   ci->num_participants, ci->num_rgba_participants,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 1);
	return 0;
}

/*
 * The camera's format for a negotiated frame: the picture's size with the
 * frame's pitch, so that it writes the picture into the frame's rows and
 * leaves the padding alone; where the frame's planes share a buffer and
 * the CbCr plane follows the coded rows (NV12 coded taller than the
 * picture), the coded height with the picture as its compose rectangle.
 */
static int set_coded_format(struct llmem_camera *c, uint32_t fourcc,
			    const struct llmem_negotiated *n)
{
	const struct llmem_frame_layout *nl = &n->layout;
	struct llmem_frame_layout *l = &c->info.layout;
	bool rows = nl->coded_height != nl->height;
	bool compose = rows && fourcc == V4L2_PIX_FMT_NV12;
	int ret;

	if (rows && fourcc == V4L2_PIX_FMT_NV12M)
		return llmem_error(-ENOTSUP, "camera: NV12M frames coded %u rows for %u",
				   nl->coded_height, nl->height);
	ret = llmem_v4l2_set_format_pitch(c->dev, fourcc, nl->width,
					  compose ? nl->coded_height : nl->height, nl->pitch[0],
					  &c->info.format);
	if (!ret && compose)
		ret = llmem_v4l2_compose(c->dev, nl->width, nl->height);
	if (!ret)
		ret = llmem_v4l2_format_layout(&c->info.format, l);
	if (ret)
		return ret;
	l->height = nl->height;
	l->coded_width = nl->coded_width;
	l->coded_height = nl->coded_height;
	/* One buffer for the whole frame: as large as the largest demand. */
	if (c->info.format.mem_planes == 1 && nl->size > l->size)
		l->size = nl->size;
	return llmem_frame_layout_check(l, "camera frame");
}

/* The captured frames' format: the driver's, or the layout negotiated
 * with the participants, the camera asked for its pitch. */
static int set_format(struct llmem_camera *c, const struct llmem_camera_create_info *ci,
		      uint32_t fourcc, uint32_t width, uint32_t height)
{
	uint32_t drm = llmem_v4l2_drm_fourcc(fourcc);
	struct llmem_participant queue;
	struct llmem_negotiated n;
	int ret;

	if (!ci->num_participants) {
		ret = llmem_v4l2_set_format(c->dev, fourcc, width, height, &c->info.format);
		return ret ? ret : llmem_v4l2_format_layout(&c->info.format, &c->info.layout);
	}
	ret = llmem_participant_v4l2(c->info.device, 0, width, height, &queue);
	if (!ret)
		ret = llmem_video_negotiate(c->session, &queue, NULL, 0, ci->participants,
					    ci->num_participants, drm, width, height, &n);
	return ret ? ret : set_coded_format(c, fourcc, &n);
}

static int open_v4l2(struct llmem_camera *c, const struct llmem_camera_create_info *ci,
		     uint32_t width, uint32_t height)
{
	uint32_t fourcc = ci->fourcc ? ci->fourcc : V4L2_PIX_FMT_YUYV;
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
	return set_format(c, ci, fourcc, width, height);
}

static int setup(struct llmem_camera *c, const struct llmem_camera_create_info *ci)
{
	uint32_t width = ci->width ? ci->width : DEFAULT_WIDTH;
	uint32_t height = ci->height ? ci->height : DEFAULT_HEIGHT;
	uint32_t buffers = ci->buffers ? ci->buffers : DEFAULT_BUFFERS;
	uint32_t rgba_fourcc = ci->rgba_fourcc ? ci->rgba_fourcc : DRM_FORMAT_ABGR8888;
	struct llmem_frame_constraints rgba = { .pitch_alignment = ci->rgba_pitch_alignment };
	struct llmem_negotiated rgba_negotiated;
	int ret;

	if (ci->flags & LLMEM_CAMERA_LIBCAMERA)
		ret = llmem_camera_libcamera_open(c, ci, width, height, buffers);
	else
		ret = open_v4l2(c, ci, width, height);
	if (!ret && ci->num_rgba_participants) {
		ret = llmem_video_negotiate(c->session, NULL, "the camera's RGBA pitch alignment",
					    ci->rgba_pitch_alignment, ci->rgba_participants,
					    ci->num_rgba_participants, rgba_fourcc, width, height,
					    &rgba_negotiated);
		c->info.rgba_layout = rgba_negotiated.layout;
	} else if (!ret) {
		ret = llmem_frame_layout_init(rgba_fourcc, width, height, &rgba,
					      &c->info.rgba_layout);
	}
	if (ret)
		return ret;
	c->info.encoding =
		ci->flags & LLMEM_CAMERA_ENCODING ? ci->encoding : c->info.format.encoding;
	c->info.range = ci->flags & LLMEM_CAMERA_RANGE ? ci->range : c->info.format.range;
	ret = llmem_camera_frames_setup(c, buffers, ci->backend);
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
	c->max_held = ci->max_held ? ci->max_held : 1;
	c->info.max_held = c->max_held;
	c->info.flags = ci->flags;
	c->info.rgba_buffers = ci->rgba_buffers ? ci->rgba_buffers : 1;
	for (int p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++)
		for (int i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
			c->fds[p][i] = -1;
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
	/* Closing the node (releasing libcamera's camera) stops the stream
	 * and frees the driver's buffers, so that it lets go of the frames
	 * before they are destroyed. */
	llmem_v4l2_close(c->dev);
	llmem_libcamera_close(c->lc);
	llmem_camera_frames_destroy(c);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_RGBA_BUFFERS; i++) {
		if (c->rgba_map[i])
			llmem_buffer_unmap(c->rgba[i]);
		llmem_buffer_destroy(c->rgba[i]);
	}
	llmem_memory_destroy(c->rgba_memory);
	free(c);
}

LLMEM_PUBLIC int llmem_camera_list_libcamera(char (*ids)[LLMEM_CAMERA_ID_SIZE], uint32_t max,
					     uint32_t *count)
{
	if (!count || (max && !ids))
		return llmem_error(-EINVAL, "camera list: NULL %s", count ? "ids" : "count");
	return llmem_libcamera_list(max ? ids[0] : NULL, LLMEM_CAMERA_ID_SIZE, max, count);
}

LLMEM_PUBLIC int llmem_camera_get_info(const struct llmem_camera *c, struct llmem_camera_info *info)
{
	if (!c || !info)
		return llmem_error(-EINVAL, "camera info: NULL %s", c ? "info" : "camera");
	*info = c->info;
	return 0;
}

/* Whether V4L2 buffer @index has a memory plane @plane; the message names @what. */
static int check_plane(const struct llmem_camera *c, uint32_t index, uint32_t plane,
		       const char *what)
{
	if (index >= c->info.buffers)
		return llmem_error(-EINVAL, "%s: index %u, the camera has %u", what, index,
				   c->info.buffers);
	if (plane >= c->info.format.mem_planes)
		return llmem_error(-EINVAL, "%s: plane %u, a frame of %.4s has %u", what, plane,
				   (const char *)&c->info.format.fourcc, c->info.format.mem_planes);
	return 0;
}

LLMEM_PUBLIC int llmem_camera_plane_buffer(const struct llmem_camera *c, uint32_t index,
					   uint32_t plane, struct llmem_buffer **out)
{
	int ret;

	if (!c || !out)
		return llmem_error(-EINVAL, "camera buffer: NULL %s", c ? "out" : "camera");
	ret = check_plane(c, index, plane, "camera buffer");
	if (ret)
		return ret;
	if (c->copy)
		return llmem_error(-ENOENT, "camera buffer: the copy path's buffers are %s's own",
				   c->info.driver);
	*out = c->frames[plane][index];
	return 0;
}

LLMEM_PUBLIC int llmem_camera_buffer(const struct llmem_camera *c, uint32_t index,
				     struct llmem_buffer **out)
{
	return llmem_camera_plane_buffer(c, index, 0, out);
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

LLMEM_PUBLIC int llmem_camera_export_plane(const struct llmem_camera *c, uint32_t index,
					   uint32_t plane, int *fd)
{
	int ret;

	if (!c || !fd)
		return llmem_error(-EINVAL, "camera export: NULL %s", c ? "fd" : "camera");
	ret = check_plane(c, index, plane, "camera export");
	if (ret)
		return ret;
	*fd = fcntl(c->fds[plane][index], F_DUPFD_CLOEXEC, 0);
	return *fd < 0 ? llmem_error(-errno, "camera export: dup: %s", strerror(errno)) : 0;
}

LLMEM_PUBLIC int llmem_camera_export(const struct llmem_camera *c, uint32_t index, int *fd)
{
	return llmem_camera_export_plane(c, index, 0, fd);
}

/* libcamera queues every request as it starts. */
static int start_libcamera(struct llmem_camera *c)
{
	int ret = llmem_libcamera_start(c->lc);

	if (ret)
		return ret;
	memset(c->queued, 1, sizeof(c->queued));
	c->streaming = true;
	c->have_sequence = false;
	return 0;
}

LLMEM_PUBLIC int llmem_camera_fd(const struct llmem_camera *c)
{
	if (!c)
		return llmem_error(-EINVAL, "camera fd: NULL camera");
	return c->lc ? llmem_libcamera_fd(c->lc) : c->dev->fd;
}

LLMEM_PUBLIC int llmem_camera_start(struct llmem_camera *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "camera start: NULL camera");
	if (c->streaming)
		return 0;
	if (c->lc)
		return start_libcamera(c);
	for (uint32_t i = 0; i < c->info.buffers; i++) {
		if (c->queued[i])
			continue;
		ret = llmem_camera_frames_queue(c, i);
		if (ret)
			return ret;
	}
	ret = llmem_v4l2_stream_on(c->dev);
	if (!ret) {
		c->streaming = true;
		c->have_sequence = false;
	}
	return ret;
}

LLMEM_PUBLIC int llmem_camera_stop(struct llmem_camera *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "camera stop: NULL camera");
	if (!c->streaming)
		return 0;
	ret = c->lc ? llmem_libcamera_stop(c->lc) : llmem_v4l2_stream_off(c->dev);
	if (ret)
		return ret;
	/* STREAMOFF (Camera::stop()) hands every buffer back, queued or not. */
	c->streaming = false;
	c->held = 0;
	memset(c->queued, 0, sizeof(c->queued));
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Frames the driver skipped before @sequence: gaps in its counter, which
 * counts every frame time whether a buffer was there to fill or not.
 */
static uint32_t skipped(struct llmem_camera *c, uint32_t sequence)
{
	uint32_t gap = c->have_sequence && sequence > c->last_sequence
			       ? sequence - c->last_sequence - 1
			       : 0;

	c->have_sequence = true;
	c->last_sequence = sequence;
	return gap;
}

/* The conversion of @frame, held, into the next RGBA buffer. */
static int convert_held(struct llmem_camera *c, struct llmem_camera_frame *frame)
{
	uint32_t k = c->next_rgba;
	uint64_t start = now_ns();
	int ret;

	ret = llmem_converter_run(c->converters[k], c->copy ? 0 : frame->index);
	if (ret)
		return ret;
	frame->rgba = c->rgba[k];
	frame->rgba_data = c->rgba_map[k];
	frame->rgba_index = k;
	frame->convert_ns = now_ns() - start;
	c->next_rgba = (k + 1) % c->info.rgba_buffers;
	return 0;
}

static int dequeue(struct llmem_camera *c, int timeout_ms, struct llmem_v4l2_frame *out)
{
	struct llmem_libcamera_frame lf;
	int ret;

	if (!c->lc)
		return llmem_v4l2_dequeue(c->dev, timeout_ms, out);
	ret = llmem_libcamera_dequeue(c->lc, timeout_ms, &lf);
	if (!ret)
		*out = (struct llmem_v4l2_frame){
			.index = lf.index,
			.bytesused = lf.bytesused,
			.sequence = lf.sequence,
			.corrupted = lf.corrupted,
			.timestamp_ns = lf.timestamp_ns,
		};
	return ret;
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
	if ((uint32_t)__builtin_popcount(c->held) >= c->max_held)
		return llmem_error(-EBUSY,
				   "camera next: %u frame%s held (create_info.max_held): "
				   "release one first",
				   c->max_held, c->max_held == 1 ? "" : "s");
	ret = dequeue(c, timeout_ms, &vf);
	if (ret)
		return ret;
	c->queued[vf.index] = false;
	c->held |= 1u << vf.index;
	c->held_sequence[vf.index] = vf.sequence;
	f = (struct llmem_camera_frame){
		.source = c->copy ? c->device_frame[0] : c->frames[0][vf.index],
		.source_chroma = c->copy ? c->device_frame[1] : c->frames[1][vf.index],
		.index = vf.index,
		.sequence = vf.sequence,
		.corrupted = vf.corrupted,
		.timestamp_ns = vf.timestamp_ns,
		.bytes_copied = c->copy ? c->info.format.sizeimage : 0,
		.dropped = skipped(c, vf.sequence),
		.fd = { c->fds[0][vf.index], c->fds[1][vf.index] },
	};
	if (c->copy)
		ret = llmem_camera_frames_copy_up(c, vf.index);
	if (!ret && !(c->info.flags & LLMEM_CAMERA_CONVERT_LATER))
		ret = convert_held(c, &f);
	if (ret) {
		/* The frame goes back to the camera: the caller never had it. */
		c->held &= ~(1u << vf.index);
		llmem_camera_frames_queue(c, vf.index);
		return ret;
	}
	*frame = f;
	return 0;
}

static bool is_held(const struct llmem_camera *c, const struct llmem_camera_frame *frame)
{
	return frame->index < LLMEM_CAMERA_MAX_BUFFERS && (c->held & (1u << frame->index)) &&
	       c->held_sequence[frame->index] == frame->sequence;
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
	if (!is_held(c, frame))
		return llmem_error(-EINVAL, "camera convert: frame %u is not held", frame->index);
	return convert_held(c, frame);
}

LLMEM_PUBLIC int llmem_camera_release(struct llmem_camera *c,
				      const struct llmem_camera_frame *frame)
{
	int ret;

	if (!c || !frame)
		return llmem_error(-EINVAL, "camera release: NULL %s", c ? "frame" : "camera");
	if (!is_held(c, frame))
		return llmem_error(-EINVAL, "camera release: frame %u is not held", frame->index);
	ret = llmem_camera_frames_queue(c, frame->index);
	if (!ret)
		c->held &= ~(1u << frame->index);
	return ret;
}
