// SPDX-License-Identifier: MIT
/*
 * Whether a V4L2 queue takes a negotiated frame, asked the way a user of
 * the queue will: S_FMT at the frame's size, fourcc and pitches (a driver
 * that sets another pitch or asks for more bytes refuses), the picture's
 * rectangle where the frame is coded larger (an OUTPUT queue at the coded
 * size with the picture as its crop, a capture queue at the picture's size,
 * or for NV12 in one buffer at the coded height with the picture as its
 * compose rectangle), then a buffer of DMA-BUF memory and a QBUF of the
 * frame's fds, where videobuf2 maps them and a dma-contig queue refuses
 * scattered pages.  The queue's buffers are freed again; its format stays
 * as set.  A capture queue another file streams from answers EBUSY: ask
 * before streaming.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/negotiate.h>

#include "base/error.h"
#include "memory/frame.h"
#include "video/v4l2.h"

struct queue {
	int fd;
	uint32_t type;
	bool mplane;
	const struct llmem_participant *p;
	/* What the driver set as each buffer's sizeimage: the bytes of a
	 * whole frame, which an OUTPUT buffer says it holds. */
	uint64_t need[LLMEM_FRAME_MAX_PLANES];
};

static int refused(const struct queue *q, const char *call, int err)
{
	return llmem_error(err, "%s refuses the frame: %s: %s", q->p->name, call, strerror(-err));
}

/* The queue's pixel format for the frame: its fourcc, with a buffer per
 * plane (NV12M) where the frame has one fd per plane. */
static int pixelformat(const struct queue *q, const struct llmem_negotiated_frame *f, uint32_t *out)
{
	struct v4l2_fmtdesc d = { .type = q->type };

	for (; !llmem_v4l2_xioctl(q->fd, VIDIOC_ENUM_FMT, &d); d.index++) {
		bool per_plane = d.pixelformat == V4L2_PIX_FMT_NV12M;

		if (llmem_v4l2_drm_fourcc(d.pixelformat) == f->layout.fourcc &&
		    per_plane == (f->num_fds > 1)) {
			*out = d.pixelformat;
			return 0;
		}
	}
	return llmem_error(-ENOTSUP, "%s has no format for %.4s in %u buffer%s", q->p->name,
			   (const char *)&f->layout.fourcc, f->num_fds, f->num_fds > 1 ? "s" : "");
}

/*
 * The size the queue is set to for the frame, and whether the picture is
 * then a rectangle of it: an OUTPUT queue codes the coded frame and crops
 * the picture; a capture queue writes the picture into the frame's rows,
 * at the coded height with the picture composed where the planes of one
 * buffer follow the coded rows.
 */
static bool queue_size(const struct queue *q, const struct llmem_negotiated_frame *f,
		       uint32_t *width, uint32_t *height)
{
	const struct llmem_frame_layout *l = &f->layout;
	uint32_t cw = llmem_frame_coded_width(l), ch = llmem_frame_coded_height(l);

	if (V4L2_TYPE_IS_OUTPUT(q->type)) {
		*width = cw;
		*height = ch;
	} else {
		*width = l->width;
		*height = l->num_planes > 1 && f->num_fds == 1 ? ch : l->height;
	}
	return *width != l->width || *height != l->height;
}

/* The picture's rectangle set, and kept by the driver. */
static int set_picture(const struct queue *q, const struct llmem_frame_layout *l)
{
	struct v4l2_rect r;
	int ret = llmem_v4l2_set_picture(q->fd, q->type, l->width, l->height, &r);

	if (ret)
		return refused(q, "VIDIOC_S_SELECTION", ret);
	if (r.left || r.top || r.width != l->width || r.height != l->height)
		return llmem_error(-ENOTSUP,
				   "%s refuses the frame: it sets a picture of %ux%u at (%d,%d), "
				   "not %ux%u",
				   q->p->name, r.width, r.height, r.left, r.top, l->width,
				   l->height);
	return 0;
}

/* S_FMT, and what the driver made of it checked against the frame. */
static int set_format(struct queue *q, const struct llmem_negotiated_frame *f)
{
	const struct llmem_frame_layout *l = &f->layout;
	struct v4l2_format fmt = { .type = q->type };
	uint32_t pitch[LLMEM_FRAME_MAX_PLANES] = { 0 }, width, height, pf, w, h;
	bool picture = queue_size(q, f, &w, &h);
	int ret = pixelformat(q, f, &pf);

	if (ret)
		return ret;
	if (q->mplane) {
		fmt.fmt.pix_mp.width = w;
		fmt.fmt.pix_mp.height = h;
		fmt.fmt.pix_mp.pixelformat = pf;
		fmt.fmt.pix_mp.field = V4L2_FIELD_NONE;
		fmt.fmt.pix_mp.num_planes = (uint8_t)f->num_fds;
		for (uint32_t i = 0; i < f->num_fds; i++)
			fmt.fmt.pix_mp.plane_fmt[i].bytesperline = l->pitch[i];
	} else {
		fmt.fmt.pix.width = w;
		fmt.fmt.pix.height = h;
		fmt.fmt.pix.pixelformat = pf;
		fmt.fmt.pix.field = V4L2_FIELD_NONE;
		fmt.fmt.pix.bytesperline = l->pitch[0];
	}
	ret = llmem_v4l2_xioctl(q->fd, VIDIOC_S_FMT, &fmt);
	if (ret)
		return refused(q, "VIDIOC_S_FMT", ret);
	width = q->mplane ? fmt.fmt.pix_mp.width : fmt.fmt.pix.width;
	height = q->mplane ? fmt.fmt.pix_mp.height : fmt.fmt.pix.height;
	for (uint32_t i = 0; i < f->num_fds; i++) {
		pitch[i] = q->mplane ? fmt.fmt.pix_mp.plane_fmt[i].bytesperline
				     : fmt.fmt.pix.bytesperline;
		q->need[i] =
			q->mplane ? fmt.fmt.pix_mp.plane_fmt[i].sizeimage : fmt.fmt.pix.sizeimage;
	}
	if (width != w || height != h)
		return llmem_error(-ENOTSUP, "%s refuses the frame: it sets %ux%u, not %ux%u",
				   q->p->name, width, height, w, h);
	for (uint32_t i = 0; i < f->num_fds; i++) {
		if (pitch[i] != l->pitch[i])
			return llmem_error(-ENOTSUP,
					   "%s refuses the frame: it sets pitch %u, not %u, "
					   "for buffer %u",
					   q->p->name, pitch[i], l->pitch[i], i);
		if (q->need[i] > f->size[i])
			return llmem_error(-ENOTSUP,
					   "%s refuses the frame: it needs %llu bytes in buffer "
					   "%u, which has %llu",
					   q->p->name, (unsigned long long)q->need[i], i,
					   (unsigned long long)f->size[i]);
	}
	return picture ? set_picture(q, l) : 0;
}

/* One DMA-BUF buffer requested and the frame queued into it. */
static int queue_frame(const struct queue *q, const struct llmem_negotiated_frame *f)
{
	struct v4l2_requestbuffers req = { .count = 1,
					   .type = q->type,
					   .memory = V4L2_MEMORY_DMABUF };
	struct v4l2_plane planes[LLMEM_FRAME_MAX_PLANES] = { 0 };
	struct v4l2_buffer buf = { .type = q->type, .memory = V4L2_MEMORY_DMABUF };
	bool output = V4L2_TYPE_IS_OUTPUT(q->type);
	int ret = llmem_v4l2_xioctl(q->fd, VIDIOC_REQBUFS, &req);

	if (ret)
		return refused(q, "VIDIOC_REQBUFS", ret);
	if (!req.count)
		return llmem_error(-ENOTSUP, "%s refuses the frame: VIDIOC_REQBUFS granted none",
				   q->p->name);
	if (q->mplane) {
		for (uint32_t i = 0; i < f->num_fds; i++)
			planes[i] = (struct v4l2_plane){
				.m.fd = f->fd[i],
				.length = (uint32_t)f->size[i],
				.bytesused = output ? (uint32_t)q->need[i] : 0,
			};
		buf.m.planes = planes;
		buf.length = f->num_fds;
	} else {
		buf.m.fd = f->fd[0];
		buf.length = (uint32_t)f->size[0];
		buf.bytesused = output ? (uint32_t)q->need[0] : 0;
	}
	ret = llmem_v4l2_xioctl(q->fd, VIDIOC_QBUF, &buf);
	if (ret)
		ret = refused(q, "VIDIOC_QBUF", ret);
	req.count = 0;
	llmem_v4l2_xioctl(q->fd, VIDIOC_REQBUFS, &req);
	return ret;
}

int llmem_v4l2_queue_takes(const struct llmem_participant *p,
			   const struct llmem_negotiated_frame *f)
{
	struct v4l2_capability cap = { 0 };
	struct queue q = { .p = p };
	int ret;

	q.fd = open(p->device, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (q.fd < 0)
		return llmem_error(-errno, "open %s: %s", p->device, strerror(errno));
	ret = llmem_v4l2_xioctl(q.fd, VIDIOC_QUERYCAP, &cap);
	if (ret) {
		ret = refused(&q, "VIDIOC_QUERYCAP", ret);
		goto close_node;
	}
	if (cap.capabilities & V4L2_CAP_DEVICE_CAPS)
		cap.capabilities = cap.device_caps;
	q.mplane = cap.capabilities & (V4L2_CAP_VIDEO_CAPTURE_MPLANE |
				       V4L2_CAP_VIDEO_OUTPUT_MPLANE | V4L2_CAP_VIDEO_M2M_MPLANE);
	if (p->object)
		q.type = q.mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT;
	else
		q.type =
			q.mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ret = set_format(&q, f);
	if (!ret)
		ret = queue_frame(&q, f);
close_node:
	close(q.fd);
	return ret;
}
