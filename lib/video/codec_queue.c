// SPDX-License-Identifier: MIT
/*
 * A codec's two queues: formats on single- and multi-planar queue types,
 * buffer slots of DMA-BUFs or the driver's own memory, queueing with the
 * refusal of a DMA-BUF smaller than the plane, dequeueing, streaming, and
 * closing the node.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "video/codec.h"
#include "video/v4l2.h"

static struct codec_queue *get_queue(struct llmem_codec *c, uint32_t queue, const char *what)
{
	if (!c) {
		llmem_error(-EINVAL, "%s: NULL codec", what);
		return NULL;
	}
	if (queue == LLMEM_CODEC_OUTPUT)
		return &c->out;
	if (queue == LLMEM_CODEC_CAPTURE)
		return &c->cap;
	llmem_error(-EINVAL, "%s: unknown queue %u", what, queue);
	return NULL;
}

static void unmap_all(struct codec_queue *q)
{
	for (uint32_t i = 0; i < CODEC_MAX_SLOTS; i++)
		for (uint32_t p = 0; p < LLMEM_FRAME_MAX_PLANES; p++) {
			if (q->maps[i][p])
				munmap(q->maps[i][p], q->map_len[i][p]);
			q->maps[i][p] = NULL;
		}
}

LLMEM_PUBLIC void llmem_codec_close(struct llmem_codec *c)
{
	if (!c)
		return;
	llmem_codec_stream_off(c, LLMEM_CODEC_OUTPUT);
	llmem_codec_stream_off(c, LLMEM_CODEC_CAPTURE);
	if (c->out.count)
		llmem_codec_request_buffers(c, LLMEM_CODEC_OUTPUT, c->out.memory, 0);
	if (c->cap.count)
		llmem_codec_request_buffers(c, LLMEM_CODEC_CAPTURE, c->cap.memory, 0);
	close(c->fd);
	free(c);
}

static void read_format(const struct llmem_codec *c, const struct v4l2_format *f,
			struct llmem_codec_format *out)
{
	memset(out, 0, sizeof(*out));
	if (c->mplane) {
		const struct v4l2_pix_format_mplane *mp = &f->fmt.pix_mp;

		out->fourcc = mp->pixelformat;
		out->width = mp->width;
		out->height = mp->height;
		out->num_planes = mp->num_planes < LLMEM_FRAME_MAX_PLANES ? mp->num_planes
									  : LLMEM_FRAME_MAX_PLANES;
		for (uint32_t p = 0; p < out->num_planes; p++) {
			out->sizeimage[p] = mp->plane_fmt[p].sizeimage;
			out->bytesperline[p] = mp->plane_fmt[p].bytesperline;
		}
	} else {
		out->fourcc = f->fmt.pix.pixelformat;
		out->width = f->fmt.pix.width;
		out->height = f->fmt.pix.height;
		out->num_planes = 1;
		out->sizeimage[0] = f->fmt.pix.sizeimage;
		out->bytesperline[0] = f->fmt.pix.bytesperline;
	}
}

LLMEM_PUBLIC int llmem_codec_set_format(struct llmem_codec *c, uint32_t queue,
					const struct llmem_codec_format *want,
					struct llmem_codec_format *got)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_set_format");
	struct llmem_codec_format agreed;
	struct v4l2_format f = { 0 };
	char a[5], b[5];
	int ret;

	if (!q)
		return -EINVAL;
	if (!want)
		return llmem_error(-EINVAL, "llmem_codec_set_format: NULL format");
	if (!want->width || !want->height)
		return llmem_error(-EINVAL, "size %ux%u: width and height must be non-zero",
				   want->width, want->height);
	if (q->count)
		return llmem_error(-EBUSY, "%s: release the %s buffers before changing its format",
				   c->path, llmem_codec_queue_name(c, q));
	f.type = q->type;
	if (c->mplane) {
		f.fmt.pix_mp.pixelformat = want->fourcc;
		f.fmt.pix_mp.width = want->width;
		f.fmt.pix_mp.height = want->height;
		f.fmt.pix_mp.field = V4L2_FIELD_NONE;
		f.fmt.pix_mp.plane_fmt[0].sizeimage = want->sizeimage[0];
	} else {
		f.fmt.pix.pixelformat = want->fourcc;
		f.fmt.pix.width = want->width;
		f.fmt.pix.height = want->height;
		f.fmt.pix.field = V4L2_FIELD_NONE;
		f.fmt.pix.sizeimage = want->sizeimage[0];
	}
	ret = CODEC_CALL(c, VIDIOC_S_FMT, &f);
	if (ret)
		return ret;
	read_format(c, &f, &agreed);
	if (agreed.fourcc != want->fourcc)
		return llmem_error(-EINVAL, "%s %s offers %s instead of %s", c->path,
				   llmem_codec_queue_name(c, q),
				   llmem_codec_fourcc_str(agreed.fourcc, a),
				   llmem_codec_fourcc_str(want->fourcc, b));
	q->format = agreed;
	if (got)
		*got = agreed;
	return 0;
}

LLMEM_PUBLIC int llmem_codec_get_format(struct llmem_codec *c, uint32_t queue,
					struct llmem_codec_format *out)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_get_format");
	struct v4l2_format f = { 0 };
	int ret;

	if (!q)
		return -EINVAL;
	if (!out)
		return llmem_error(-EINVAL, "llmem_codec_get_format: NULL out");
	f.type = q->type;
	ret = CODEC_CALL(c, VIDIOC_G_FMT, &f);
	if (ret)
		return ret;
	read_format(c, &f, &q->format);
	*out = q->format;
	return 0;
}

/* A driver without the rectangle answers ENOTTY (no selection at all) or
 * EINVAL (not this target on this queue). */
static int picture_error(struct llmem_codec *c, const struct codec_queue *q, const char *call,
			 int err)
{
	if (err == -ENOTTY || err == -EINVAL)
		return llmem_error(-ENOTSUP, "%s %s has no %s rectangle (%s: %s)", c->path,
				   llmem_codec_queue_name(c, q),
				   V4L2_TYPE_IS_OUTPUT(q->type) ? "crop" : "compose", call,
				   strerror(-err));
	return llmem_error(err, "%s on %s: %s", call, c->path, strerror(-err));
}

LLMEM_PUBLIC int llmem_codec_set_picture(struct llmem_codec *c, uint32_t queue, uint32_t width,
					 uint32_t height)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_set_picture");
	struct v4l2_rect got;
	int ret;

	if (!q)
		return -EINVAL;
	if (!width || !height)
		return llmem_error(-EINVAL, "llmem_codec_set_picture: a picture of %ux%u", width,
				   height);
	ret = llmem_v4l2_set_picture(c->fd, q->type, width, height, &got);
	if (ret)
		return picture_error(c, q, "VIDIOC_S_SELECTION", ret);
	if (got.left || got.top || got.width != width || got.height != height)
		return llmem_error(-ENOTSUP, "%s %s sets a picture of %ux%u at (%d,%d), not %ux%u",
				   c->path, llmem_codec_queue_name(c, q), got.width, got.height,
				   got.left, got.top, width, height);
	return 0;
}

LLMEM_PUBLIC int llmem_codec_get_picture(struct llmem_codec *c, uint32_t queue,
					 struct llmem_codec_rect *out)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_get_picture");
	struct v4l2_rect r;
	int ret;

	if (!q)
		return -EINVAL;
	if (!out)
		return llmem_error(-EINVAL, "llmem_codec_get_picture: NULL out");
	ret = llmem_v4l2_get_picture(c->fd, q->type, &r);
	if (ret)
		return picture_error(c, q, "VIDIOC_G_SELECTION", ret);
	*out = (struct llmem_codec_rect){
		.left = r.left, .top = r.top, .width = r.width, .height = r.height
	};
	return 0;
}

static int to_v4l2_memory(uint32_t memory)
{
	if (memory == LLMEM_V4L2_MEMORY_DMABUF)
		return V4L2_MEMORY_DMABUF;
	if (memory == LLMEM_V4L2_MEMORY_MMAP)
		return V4L2_MEMORY_MMAP;
	return -1;
}

LLMEM_PUBLIC int llmem_codec_request_buffers(struct llmem_codec *c, uint32_t queue, uint32_t memory,
					     uint32_t count)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_request_buffers");
	struct v4l2_requestbuffers req = { .count = count };
	int ret;

	if (!q)
		return -EINVAL;
	if (to_v4l2_memory(memory) < 0)
		return llmem_error(-EINVAL, "llmem_codec_request_buffers: unknown memory %u",
				   memory);
	if (q->streaming)
		return llmem_error(-EBUSY, "%s: stop %s before changing its buffers", c->path,
				   llmem_codec_queue_name(c, q));
	req.type = q->type;
	req.memory = (uint32_t)to_v4l2_memory(memory);
	unmap_all(q);
	ret = CODEC_CALL(c, VIDIOC_REQBUFS, &req);
	if (ret)
		return ret;
	q->memory = memory;
	q->count = req.count < CODEC_MAX_SLOTS ? req.count : CODEC_MAX_SLOTS;
	return (int)q->count;
}

static int check_slot(struct llmem_codec *c, struct codec_queue *q, uint32_t index,
		      const char *what)
{
	if (!q->count)
		return llmem_error(-EINVAL, "%s: %s %s has no buffers requested", what, c->path,
				   llmem_codec_queue_name(c, q));
	if (index >= q->count)
		return llmem_error(-EINVAL, "%s: index %u, but only %u %s buffers were granted",
				   what, index, q->count, llmem_codec_queue_name(c, q));
	return 0;
}

/*
 * Refuses a DMA-BUF plane smaller than the driver's plane size before the
 * kernel sees it: videobuf2 on some kernels keeps a reference to a buffer
 * it rejects for its size.  The fd's own size counts, not the length the
 * caller states.
 */
static int check_plane(struct llmem_codec *c, struct codec_queue *q, uint32_t p,
		       const struct llmem_codec_plane *plane, uint32_t *length)
{
	uint32_t need = q->format.sizeimage[p];
	off_t size;

	*length = plane->length;
	if (q->memory == LLMEM_V4L2_MEMORY_DMABUF) {
		size = lseek(plane->fd, 0, SEEK_END);
		if (size < 0)
			return llmem_error(errno == ESPIPE ? -EBADF : -errno,
					   "%s %s plane %u: fd %d is not a DMA-BUF (%s)", c->path,
					   llmem_codec_queue_name(c, q), p, plane->fd,
					   strerror(errno));
		if (!*length || *length > size)
			*length = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		if (*length < need)
			return llmem_error(-EINVAL,
					   "%s %s plane %u: DMA-BUF %d offers %u bytes, the driver "
					   "needs %u; refused before VIDIOC_QBUF",
					   c->path, llmem_codec_queue_name(c, q), p, plane->fd,
					   *length, need);
	} else {
		*length = 0;
	}
	if (q == &c->out && *length && plane->bytesused > *length)
		return llmem_error(-EINVAL, "%s OUTPUT plane %u: %u bytes used of %u", c->path, p,
				   plane->bytesused, *length);
	return 0;
}

LLMEM_PUBLIC int llmem_codec_queue(struct llmem_codec *c, uint32_t queue, uint32_t index,
				   const struct llmem_codec_plane *planes, uint32_t num_planes,
				   uint64_t timestamp_us)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_queue");
	struct v4l2_plane vp[VIDEO_MAX_PLANES] = { { 0 } };
	struct v4l2_buffer buf = { 0 };
	uint32_t length[LLMEM_FRAME_MAX_PLANES];
	int ret;

	if (!q)
		return -EINVAL;
	ret = check_slot(c, q, index, "llmem_codec_queue");
	if (ret)
		return ret;
	if (!planes || num_planes != q->format.num_planes)
		return llmem_error(-EINVAL, "llmem_codec_queue: %u planes given, %s %s has %u",
				   planes ? num_planes : 0, c->path, llmem_codec_queue_name(c, q),
				   q->format.num_planes);
	if (q == &c->out && c->state == LLMEM_CODEC_DRAINING)
		return llmem_error(-EINVAL, "%s: draining; no OUTPUT buffer until it stops",
				   c->path);
	for (uint32_t p = 0; p < num_planes; p++) {
		ret = check_plane(c, q, p, &planes[p], &length[p]);
		if (ret)
			return ret;
	}
	buf.type = q->type;
	buf.memory = (uint32_t)to_v4l2_memory(q->memory);
	buf.index = index;
	buf.field = V4L2_FIELD_NONE;
	buf.timestamp.tv_sec = (time_t)(timestamp_us / 1000000);
	buf.timestamp.tv_usec = (long)(timestamp_us % 1000000);
	if (c->mplane) {
		buf.m.planes = vp;
		buf.length = num_planes;
		for (uint32_t p = 0; p < num_planes; p++) {
			vp[p].bytesused = q == &c->out ? planes[p].bytesused : 0;
			vp[p].length = length[p];
			if (q->memory == LLMEM_V4L2_MEMORY_DMABUF)
				vp[p].m.fd = planes[p].fd;
		}
	} else {
		buf.bytesused = q == &c->out ? planes[0].bytesused : 0;
		buf.length = length[0];
		if (q->memory == LLMEM_V4L2_MEMORY_DMABUF)
			buf.m.fd = planes[0].fd;
	}
	return CODEC_CALL(c, VIDIOC_QBUF, &buf);
}

LLMEM_PUBLIC int llmem_codec_dequeue(struct llmem_codec *c, uint32_t queue, int timeout_ms,
				     struct llmem_codec_buffer *out)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_dequeue");
	int64_t deadline = timeout_ms < 0 ? -1 : llmem_codec_now_ns() / 1000000 + timeout_ms;
	struct v4l2_plane vp[VIDEO_MAX_PLANES];
	short events;
	struct v4l2_buffer buf;
	int ret;

	if (!q)
		return -EINVAL;
	if (!out)
		return llmem_error(-EINVAL, "llmem_codec_dequeue: NULL out");
	if (!q->streaming)
		return llmem_error(-EINVAL, "llmem_codec_dequeue: %s %s is not streaming", c->path,
				   llmem_codec_queue_name(c, q));
	events = q == &c->out ? POLLOUT : POLLIN;
	for (;;) {
		memset(&buf, 0, sizeof(buf));
		memset(vp, 0, sizeof(vp));
		buf.type = q->type;
		buf.memory = (uint32_t)to_v4l2_memory(q->memory);
		if (c->mplane) {
			buf.m.planes = vp;
			buf.length = VIDEO_MAX_PLANES;
		}
		ret = llmem_v4l2_xioctl(c->fd, VIDIOC_DQBUF, &buf);
		if (ret == -EPIPE)
			return llmem_error(-EPIPE,
					   "%s: the LAST CAPTURE buffer was dequeued; "
					   "resume or restart CAPTURE first",
					   c->path);
		if (ret != -EAGAIN)
			break;
		ret = llmem_codec_wait_for(c, events, deadline);
		if (ret == -ETIMEDOUT)
			return llmem_error(-ETIMEDOUT, "%s: no %s buffer within %d ms", c->path,
					   llmem_codec_queue_name(c, q), timeout_ms);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			/* vb2 reports an idle queue as a poll error; one last look. */
			ret = llmem_v4l2_xioctl(c->fd, VIDIOC_DQBUF, &buf);
			if (ret == -EAGAIN)
				return llmem_error(-EAGAIN, "%s: no %s buffer can come back",
						   c->path, llmem_codec_queue_name(c, q));
			break;
		}
	}
	if (ret)
		return llmem_error(ret, "VIDIOC_DQBUF on %s: %s", c->path, strerror(-ret));
	memset(out, 0, sizeof(*out));
	out->index = buf.index;
	out->sequence = buf.sequence;
	out->timestamp_us = (uint64_t)buf.timestamp.tv_sec * 1000000u + buf.timestamp.tv_usec;
	if (buf.flags & V4L2_BUF_FLAG_LAST)
		out->flags |= LLMEM_CODEC_BUF_LAST;
	if (buf.flags & V4L2_BUF_FLAG_ERROR)
		out->flags |= LLMEM_CODEC_BUF_ERROR;
	if (buf.flags & V4L2_BUF_FLAG_KEYFRAME)
		out->flags |= LLMEM_CODEC_BUF_KEYFRAME;
	if (c->mplane) {
		out->num_planes =
			buf.length < LLMEM_FRAME_MAX_PLANES ? buf.length : LLMEM_FRAME_MAX_PLANES;
		for (uint32_t p = 0; p < out->num_planes; p++)
			out->bytesused[p] = vp[p].bytesused - vp[p].data_offset;
	} else {
		out->num_planes = 1;
		out->bytesused[0] = buf.bytesused;
	}
	if (q == &c->cap && (buf.flags & V4L2_BUF_FLAG_LAST))
		llmem_codec_on_last(c);
	return 0;
}

LLMEM_PUBLIC int llmem_codec_map(struct llmem_codec *c, uint32_t queue, uint32_t index,
				 uint32_t plane, void **ptr, size_t *length)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_map");
	struct v4l2_plane vp[VIDEO_MAX_PLANES] = { { 0 } };
	struct v4l2_buffer buf = { 0 };
	uint32_t offset, len;
	void *map;
	int ret;

	if (!q)
		return -EINVAL;
	if (!ptr)
		return llmem_error(-EINVAL, "llmem_codec_map: NULL ptr");
	ret = check_slot(c, q, index, "llmem_codec_map");
	if (ret)
		return ret;
	if (q->memory != LLMEM_V4L2_MEMORY_MMAP)
		return llmem_error(-EINVAL,
				   "llmem_codec_map: %s %s holds DMA-BUFs, not MMAP buffers",
				   c->path, llmem_codec_queue_name(c, q));
	if (plane >= q->format.num_planes)
		return llmem_error(-EINVAL, "llmem_codec_map: plane %u of %u", plane,
				   q->format.num_planes);
	if (!q->maps[index][plane]) {
		buf.type = q->type;
		buf.memory = V4L2_MEMORY_MMAP;
		buf.index = index;
		if (c->mplane) {
			buf.m.planes = vp;
			buf.length = VIDEO_MAX_PLANES;
		}
		ret = CODEC_CALL(c, VIDIOC_QUERYBUF, &buf);
		if (ret)
			return ret;
		offset = c->mplane ? vp[plane].m.mem_offset : buf.m.offset;
		len = c->mplane ? vp[plane].length : buf.length;
		map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, offset);
		if (map == MAP_FAILED)
			return llmem_error(-errno, "mmap of %s %s buffer %u: %s", c->path,
					   llmem_codec_queue_name(c, q), index, strerror(errno));
		q->maps[index][plane] = map;
		q->map_len[index][plane] = len;
	}
	*ptr = q->maps[index][plane];
	if (length)
		*length = q->map_len[index][plane];
	return 0;
}

LLMEM_PUBLIC int llmem_codec_stream_on(struct llmem_codec *c, uint32_t queue)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_stream_on");
	int type, ret;

	if (!q)
		return -EINVAL;
	type = (int)q->type;
	if (q == &c->cap)
		c->capture_since_ns = llmem_codec_now_ns();
	ret = CODEC_CALL(c, VIDIOC_STREAMON, &type);
	if (ret)
		return ret;
	q->streaming = true;
	/* CAPTURE is set up for whatever source change came before. */
	if (q == &c->cap)
		c->events &= ~(1u << LLMEM_CODEC_EVENT_SOURCE_CHANGE);
	return llmem_codec_on_streaming(c);
}

LLMEM_PUBLIC int llmem_codec_stream_off(struct llmem_codec *c, uint32_t queue)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_stream_off");
	int type, ret;

	if (!q)
		return -EINVAL;
	type = (int)q->type;
	ret = CODEC_CALL(c, VIDIOC_STREAMOFF, &type);
	if (ret)
		return ret;
	q->streaming = false;
	llmem_codec_on_streaming(c);
	return 0;
}

LLMEM_PUBLIC int llmem_codec_follow_source_change(struct llmem_codec *c,
						  struct llmem_codec_format *format)
{
	int ret;

	if (!c || !format)
		return llmem_error(-EINVAL, "llmem_codec_follow_source_change: NULL %s",
				   c ? "format" : "codec");
	if (c->state != LLMEM_CODEC_SOURCE_CHANGE)
		return llmem_error(-EINVAL, "%s: no source change to follow", c->path);
	ret = llmem_codec_stream_off(c, LLMEM_CODEC_CAPTURE);
	if (!ret && c->cap.count)
		ret = llmem_codec_request_buffers(c, LLMEM_CODEC_CAPTURE, c->cap.memory, 0);
	if (!ret)
		ret = llmem_codec_get_format(c, LLMEM_CODEC_CAPTURE, format);
	return ret < 0 ? ret : 0;
}
