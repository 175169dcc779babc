// SPDX-License-Identifier: MIT
/*
 * V4L2 memory-to-memory codecs driven with the caller's DMA-BUFs: finding
 * them by what their queues take, formats on single- and multi-planar
 * queues, buffers, and the stateful encoder and decoder protocols.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>

#include "base/error.h"

/* /dev/video0 to /dev/video255, as the kernel numbers V4L2 nodes. */
#define MAX_NODES 256
/* Slots mapped per queue; drivers grant at most VIDEO_MAX_FRAME on 6.1. */
#define MAX_SLOTS VIDEO_MAX_FRAME

struct codec_queue {
	uint32_t type;
	uint32_t memory;
	uint32_t count;
	bool streaming;
	struct llmem_codec_format format;
	void *maps[MAX_SLOTS][LLMEM_FRAME_MAX_PLANES];
	size_t map_len[MAX_SLOTS][LLMEM_FRAME_MAX_PLANES];
};

struct llmem_codec {
	int fd;
	char path[64];
	char driver[16];
	uint32_t kind;
	uint32_t state;
	bool mplane;
	struct codec_queue out, cap;
};

static const char *fourcc_str(uint32_t fourcc, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);

		buf[i] = c >= 32 && c < 127 ? c : '?';
	}
	buf[4] = '\0';
	return buf;
}

static int xioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : 0;
}

/* Runs one ioctl; on failure records which one, on which node, and why. */
static int codec_call(struct llmem_codec *c, unsigned long request, const char *name, void *arg)
{
	int ret = xioctl(c->fd, request, arg);

	if (ret)
		return llmem_error(ret, "%s on %s: %s", name, c->path, strerror(-ret));
	return 0;
}

#define CODEC_CALL(c, request, arg) codec_call(c, request, #request, arg)

static uint32_t queue_type(bool mplane, bool output)
{
	if (mplane)
		return output ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE
			      : V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	return output ? V4L2_BUF_TYPE_VIDEO_OUTPUT : V4L2_BUF_TYPE_VIDEO_CAPTURE;
}

/* Whether the node's queue @type lists @fourcc (true for 0), and in
 * @compressed whether it lists any compressed format.  An ENUM_FMT that
 * fails other than with EINVAL, the end of the list, leaves its error in
 * @err (when none is there yet). */
static bool queue_formats(int fd, uint32_t type, uint32_t fourcc, bool *compressed, int *err)
{
	struct v4l2_fmtdesc d = { .type = type };
	bool found = !fourcc;
	int ret;

	*compressed = false;
	for (d.index = 0; (ret = xioctl(fd, VIDIOC_ENUM_FMT, &d)) == 0; d.index++) {
		if (d.flags & V4L2_FMT_FLAG_COMPRESSED)
			*compressed = true;
		if (d.pixelformat == fourcc)
			found = true;
	}
	if (ret != -EINVAL && !*err)
		*err = ret;
	return found;
}

/* Whether the node's queue @type takes DMA-BUFs, and whether it demands
 * media requests (a stateless decoder). */
static bool queue_caps(int fd, uint32_t type, bool *requests)
{
	struct v4l2_requestbuffers req = { .type = type, .memory = V4L2_MEMORY_MMAP };

	*requests = false;
	/* A request of no buffers allocates nothing and reports the queue's caps. */
	if (xioctl(fd, VIDIOC_REQBUFS, &req))
		return false;
	*requests = req.capabilities & V4L2_BUF_CAP_SUPPORTS_REQUESTS;
	return req.capabilities & V4L2_BUF_CAP_SUPPORTS_DMABUF;
}

/*
 * The node's kind (0: none), whether multi-planar, and whether it matches
 * @info; in @err the errno of a QUERYCAP or ENUM_FMT that gave no answer,
 * when the node could not be told apart (0 otherwise).
 */
static uint32_t classify(int fd, const struct llmem_codec_find_info *info, bool *mplane,
			 bool *matches, char driver[16], int *err)
{
	struct v4l2_capability cap = { 0 };
	bool out_comp, cap_comp, out_fmt, cap_fmt, raw_out, raw_cap, requests, dummy, dmabuf;
	uint32_t caps, kind;

	*matches = false;
	*err = xioctl(fd, VIDIOC_QUERYCAP, &cap);
	/* ENOTTY: not a V4L2 node at all, which is an answer. */
	if (*err == -ENOTTY)
		*err = 0;
	if (*err)
		return 0;
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	if (!(caps & V4L2_CAP_STREAMING) ||
	    !(caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)))
		return 0;
	memcpy(driver, cap.driver, 15);
	driver[15] = '\0';
	*mplane = caps & V4L2_CAP_VIDEO_M2M_MPLANE;
	out_fmt = queue_formats(fd, queue_type(*mplane, true), info ? info->coded_fourcc : 0,
				&out_comp, err);
	cap_fmt = queue_formats(fd, queue_type(*mplane, false), info ? info->coded_fourcc : 0,
				&cap_comp, err);
	if (out_comp && cap_comp)
		return 0;
	if (cap_comp)
		kind = LLMEM_CODEC_ENCODER;
	else if (out_comp)
		kind = LLMEM_CODEC_DECODER;
	else
		kind = LLMEM_CODEC_CONVERTER;
	dmabuf = queue_caps(fd, queue_type(*mplane, true), &requests);
	/* A decoder that demands media requests is stateless: not ours. */
	if (kind == LLMEM_CODEC_DECODER && requests)
		return 0;
	dmabuf = dmabuf && queue_caps(fd, queue_type(*mplane, false), &dummy);
	if (!dmabuf || !info) {
		*matches = dmabuf;
		return kind;
	}
	raw_out = queue_formats(fd, queue_type(*mplane, true), info->raw_fourcc, &dummy, err);
	raw_cap = queue_formats(fd, queue_type(*mplane, false), info->raw_fourcc, &dummy, err);
	*matches = (!info->kind || info->kind == kind) &&
		   (!info->driver || !strcmp(info->driver, driver)) &&
		   (!info->coded_fourcc || (kind == LLMEM_CODEC_ENCODER ? cap_fmt : out_fmt)) &&
		   (raw_out || raw_cap) && !(kind == LLMEM_CODEC_CONVERTER && info->coded_fourcc);
	return kind;
}

LLMEM_PUBLIC int llmem_codec_find(const struct llmem_codec_find_info *info, char *path, size_t size)
{
	static const char *const kinds[] = { "codec", "encoder", "decoder", "converter" };
	char node[32], driver[16], want[5];

	if (!path || size < sizeof(node))
		return llmem_error(-EINVAL, "llmem_codec_find: %s",
				   path ? "path too short" : "NULL path");
	if (info && info->kind > LLMEM_CODEC_CONVERTER)
		return llmem_error(-EINVAL, "llmem_codec_find: unknown kind %u", info->kind);
	for (int i = 0; i < MAX_NODES; i++) {
		bool mplane, matches;
		int fd, err;

		snprintf(node, sizeof(node), "/dev/video%d", i);
		fd = open(node, O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		classify(fd, info, &mplane, &matches, driver, &err);
		close(fd);
		if (matches) {
			snprintf(path, size, "%s", node);
			return 0;
		}
	}
	return llmem_error(-ENODEV,
			   "no memory-to-memory %s%s%s%s%s that imports DMA-BUFs (/dev/video*)",
			   kinds[info ? info->kind : 0], info && info->coded_fourcc ? " of " : "",
			   info && info->coded_fourcc ? fourcc_str(info->coded_fourcc, want) : "",
			   info && info->driver ? " by driver " : "",
			   info && info->driver ? info->driver : "");
}

LLMEM_PUBLIC int llmem_codec_open(const char *path, struct llmem_codec **out)
{
	struct llmem_codec *c;
	bool matches;
	int ret, err;

	if (!path || !out)
		return llmem_error(-EINVAL, "llmem_codec_open: NULL %s", path ? "out" : "path");
	c = calloc(1, sizeof(*c));
	if (!c)
		return llmem_error(-ENOMEM, "llmem_codec_open: out of memory");
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0) {
		ret = llmem_error(-errno, "open %s: %s", path, strerror(errno));
		goto out_free;
	}
	c->kind = classify(c->fd, NULL, &c->mplane, &matches, c->driver, &err);
	if (err) {
		ret = llmem_error(err, "%s: VIDIOC_QUERYCAP or VIDIOC_ENUM_FMT: %s", path,
				  strerror(-err));
		goto out_close;
	}
	if (!c->kind) {
		ret = llmem_error(-ENODEV,
				  "%s is no streaming memory-to-memory encoder, stateful decoder "
				  "or converter",
				  path);
		goto out_close;
	}
	c->out.type = queue_type(c->mplane, true);
	c->cap.type = queue_type(c->mplane, false);
	c->state = LLMEM_CODEC_INITIAL;
	if (c->kind == LLMEM_CODEC_DECODER) {
		struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };

		ret = CODEC_CALL(c, VIDIOC_SUBSCRIBE_EVENT, &sub);
		if (ret)
			goto out_close;
		sub.type = V4L2_EVENT_EOS;
		ret = CODEC_CALL(c, VIDIOC_SUBSCRIBE_EVENT, &sub);
		if (ret)
			goto out_close;
	}
	*out = c;
	return 0;

out_close:
	close(c->fd);
out_free:
	free(c);
	return ret;
}

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

static const char *queue_name(const struct llmem_codec *c, const struct codec_queue *q)
{
	return q == &c->out ? "OUTPUT" : "CAPTURE";
}

static void unmap_all(struct codec_queue *q)
{
	for (uint32_t i = 0; i < MAX_SLOTS; i++)
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

LLMEM_PUBLIC uint32_t llmem_codec_kind(const struct llmem_codec *c)
{
	return c ? c->kind : 0;
}

LLMEM_PUBLIC uint32_t llmem_codec_state(const struct llmem_codec *c)
{
	return c ? c->state : 0;
}

LLMEM_PUBLIC int llmem_codec_multiplanar(const struct llmem_codec *c)
{
	return c ? c->mplane : 0;
}

LLMEM_PUBLIC const char *llmem_codec_driver(const struct llmem_codec *c)
{
	return c ? c->driver : "";
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
				   c->path, queue_name(c, q));
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
				   queue_name(c, q), fourcc_str(agreed.fourcc, a),
				   fourcc_str(want->fourcc, b));
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
				   queue_name(c, q));
	req.type = q->type;
	req.memory = (uint32_t)to_v4l2_memory(memory);
	unmap_all(q);
	ret = CODEC_CALL(c, VIDIOC_REQBUFS, &req);
	if (ret)
		return ret;
	q->memory = memory;
	q->count = req.count < MAX_SLOTS ? req.count : MAX_SLOTS;
	return (int)q->count;
}

static int check_slot(struct llmem_codec *c, struct codec_queue *q, uint32_t index,
		      const char *what)
{
	if (!q->count)
		return llmem_error(-EINVAL, "%s: %s %s has no buffers requested", what, c->path,
				   queue_name(c, q));
	if (index >= q->count)
		return llmem_error(-EINVAL, "%s: index %u, but only %u %s buffers were granted",
				   what, index, q->count, queue_name(c, q));
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
					   queue_name(c, q), p, plane->fd, strerror(errno));
		if (!*length || *length > size)
			*length = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
		if (*length < need)
			return llmem_error(-EINVAL,
					   "%s %s plane %u: DMA-BUF %d offers %u bytes, the driver "
					   "needs %u; refused before VIDIOC_QBUF",
					   c->path, queue_name(c, q), p, plane->fd, *length, need);
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
				   planes ? num_planes : 0, c->path, queue_name(c, q),
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

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for @events on the node until @deadline (negative: forever); 0,
 * -ETIMEDOUT, or 1 when poll saw an error condition. */
static int wait_for(struct llmem_codec *c, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = c->fd, .events = events };
	int left = -1, ret;

	if (deadline >= 0) {
		int64_t rest = deadline - now_ms();

		left = rest > 0 ? (int)rest : 0;
	}
	do {
		ret = poll(&pfd, 1, left);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "poll %s: %s", c->path, strerror(errno));
	if (ret == 0)
		return -ETIMEDOUT;
	return (pfd.revents & events) ? 0 : 1;
}

static void on_last(struct llmem_codec *c)
{
	if (c->state == LLMEM_CODEC_DRAINING)
		c->state = LLMEM_CODEC_STOPPED;
	else if (c->kind == LLMEM_CODEC_DECODER)
		c->state = LLMEM_CODEC_SOURCE_CHANGE;
	else
		c->state = LLMEM_CODEC_STOPPED;
}

LLMEM_PUBLIC int llmem_codec_dequeue(struct llmem_codec *c, uint32_t queue, int timeout_ms,
				     struct llmem_codec_buffer *out)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_dequeue");
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
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
				   queue_name(c, q));
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
		ret = xioctl(c->fd, VIDIOC_DQBUF, &buf);
		if (ret == -EPIPE)
			return llmem_error(-EPIPE,
					   "%s: the LAST CAPTURE buffer was dequeued; "
					   "resume or restart CAPTURE first",
					   c->path);
		if (ret != -EAGAIN)
			break;
		ret = wait_for(c, events, deadline);
		if (ret == -ETIMEDOUT)
			return llmem_error(-ETIMEDOUT, "%s: no %s buffer within %d ms", c->path,
					   queue_name(c, q), timeout_ms);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			/* vb2 reports an idle queue as a poll error; one last look. */
			ret = xioctl(c->fd, VIDIOC_DQBUF, &buf);
			if (ret == -EAGAIN)
				return llmem_error(-EAGAIN, "%s: no %s buffer can come back",
						   c->path, queue_name(c, q));
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
		on_last(c);
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
				   c->path, queue_name(c, q));
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
					   queue_name(c, q), index, strerror(errno));
		q->maps[index][plane] = map;
		q->map_len[index][plane] = len;
	}
	*ptr = q->maps[index][plane];
	if (length)
		*length = q->map_len[index][plane];
	return 0;
}

static void update_streaming_state(struct llmem_codec *c)
{
	if (!c->out.streaming && !c->cap.streaming)
		c->state = LLMEM_CODEC_INITIAL;
	else if (c->out.streaming && c->cap.streaming &&
		 (c->state == LLMEM_CODEC_INITIAL || c->state == LLMEM_CODEC_SOURCE_CHANGE ||
		  c->state == LLMEM_CODEC_STOPPED))
		c->state = LLMEM_CODEC_STREAMING;
}

LLMEM_PUBLIC int llmem_codec_stream_on(struct llmem_codec *c, uint32_t queue)
{
	struct codec_queue *q = get_queue(c, queue, "llmem_codec_stream_on");
	int type, ret;

	if (!q)
		return -EINVAL;
	type = (int)q->type;
	ret = CODEC_CALL(c, VIDIOC_STREAMON, &type);
	if (ret)
		return ret;
	q->streaming = true;
	update_streaming_state(c);
	return 0;
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
	update_streaming_state(c);
	return 0;
}

static int send_command(struct llmem_codec *c, uint32_t cmd)
{
	if (c->kind == LLMEM_CODEC_ENCODER) {
		struct v4l2_encoder_cmd ec = { .cmd = cmd };

		return CODEC_CALL(c, VIDIOC_ENCODER_CMD, &ec);
	} else {
		struct v4l2_decoder_cmd dc = { .cmd = cmd };

		return CODEC_CALL(c, VIDIOC_DECODER_CMD, &dc);
	}
}

LLMEM_PUBLIC int llmem_codec_drain(struct llmem_codec *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "llmem_codec_drain: NULL codec");
	if (c->kind == LLMEM_CODEC_CONVERTER)
		return llmem_error(-ENOTSUP, "%s: a converter has no drain", c->path);
	if (c->state != LLMEM_CODEC_STREAMING)
		return llmem_error(-EINVAL, "%s: drain needs both queues streaming", c->path);
	/* V4L2_ENC_CMD_STOP and V4L2_DEC_CMD_STOP are both 1. */
	ret = send_command(c, V4L2_ENC_CMD_STOP);
	if (!ret)
		c->state = LLMEM_CODEC_DRAINING;
	return ret;
}

LLMEM_PUBLIC int llmem_codec_resume(struct llmem_codec *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "llmem_codec_resume: NULL codec");
	if (c->state != LLMEM_CODEC_STOPPED)
		return llmem_error(-EINVAL, "%s: resume follows a finished drain", c->path);
	ret = send_command(c, V4L2_ENC_CMD_START);
	if (!ret)
		c->state = LLMEM_CODEC_STREAMING;
	return ret;
}

LLMEM_PUBLIC int llmem_codec_wait_event(struct llmem_codec *c, int timeout_ms, uint32_t *type)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	struct v4l2_event ev;
	int ret;

	if (!c || !type)
		return llmem_error(-EINVAL, "llmem_codec_wait_event: NULL %s",
				   c ? "type" : "codec");
	if (c->kind != LLMEM_CODEC_DECODER)
		return llmem_error(-EINVAL, "%s: only a decoder sends events", c->path);
	for (;;) {
		memset(&ev, 0, sizeof(ev));
		ret = xioctl(c->fd, VIDIOC_DQEVENT, &ev);
		if (!ret)
			break;
		if (ret != -ENOENT)
			return llmem_error(ret, "VIDIOC_DQEVENT on %s: %s", c->path,
					   strerror(-ret));
		ret = wait_for(c, POLLPRI, deadline);
		if (ret == -ETIMEDOUT)
			return llmem_error(-ETIMEDOUT, "%s: no event within %d ms", c->path,
					   timeout_ms);
		if (ret < 0)
			return ret;
	}
	if (ev.type == V4L2_EVENT_SOURCE_CHANGE) {
		*type = LLMEM_CODEC_EVENT_SOURCE_CHANGE;
		if (!c->cap.streaming)
			c->state = LLMEM_CODEC_SOURCE_CHANGE;
	} else {
		*type = LLMEM_CODEC_EVENT_EOS;
	}
	return 0;
}
