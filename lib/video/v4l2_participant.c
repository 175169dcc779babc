// SPDX-License-Identifier: MIT
/*
 * A V4L2 queue as a participant of a negotiation (negotiate.h): what the
 * node's listing (v4l2_nodes.c) says it offers, and what VIDIOC_TRY_FMT
 * answers at the size, which changes nothing on the node and allocates
 * nothing, so a queue another process streams from can be asked too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/negotiate.h>
#include <llmem/v4l2.h>

#include "base/error.h"
#include "video/v4l2.h"
#include "base/export.h"

/* The padding a driver that takes other pitches is asked to keep. */
#define PAD 64

/* What the driver makes of @pixelformat at the size with plane 0's pitch
 * @bytesperline (0: its own choice). */
struct tried {
	uint32_t width;
	uint32_t height;
	uint32_t bytesperline;
	uint64_t sizeimage;
};

static int try_format(int fd, const struct llmem_v4l2_queue_info *q, uint32_t pixelformat,
		      uint32_t width, uint32_t height, uint32_t bytesperline, struct tried *t)
{
	struct v4l2_format f = { .type = q->type };
	int ret;

	if (q->multiplanar) {
		f.fmt.pix_mp = (struct v4l2_pix_format_mplane){
			.width = width,
			.height = height,
			.pixelformat = pixelformat,
			.field = V4L2_FIELD_NONE,
		};
		f.fmt.pix_mp.plane_fmt[0].bytesperline = bytesperline;
	} else {
		f.fmt.pix = (struct v4l2_pix_format){
			.width = width,
			.height = height,
			.pixelformat = pixelformat,
			.field = V4L2_FIELD_NONE,
			.bytesperline = bytesperline,
		};
	}
	ret = llmem_v4l2_xioctl(fd, VIDIOC_TRY_FMT, &f);
	if (ret)
		return ret;
	if (q->multiplanar) {
		/* A buffer per plane: each holds its own plane, and plane 0's
		 * sizeimage is no bound on a frame laid out in one. */
		t->width = f.fmt.pix_mp.width;
		t->height = f.fmt.pix_mp.height;
		t->bytesperline = f.fmt.pix_mp.plane_fmt[0].bytesperline;
		t->sizeimage =
			f.fmt.pix_mp.num_planes == 1 ? f.fmt.pix_mp.plane_fmt[0].sizeimage : 0;
	} else {
		t->width = f.fmt.pix.width;
		t->height = f.fmt.pix.height;
		t->bytesperline = f.fmt.pix.bytesperline;
		t->sizeimage = f.fmt.pix.sizeimage;
	}
	return 0;
}

/*
 * The granularity of the pitches the driver keeps past its own: the
 * smallest padding of 1, 2, 4 ... PAD bytes it keeps as asked (it kept
 * PAD).
 */
static int pitch_granularity(int fd, const struct llmem_v4l2_queue_info *q, uint32_t pixelformat,
			     const struct tried *own, uint32_t *granule)
{
	for (uint32_t pad = 1; pad < PAD; pad *= 2) {
		struct tried t;
		int ret = try_format(fd, q, pixelformat, own->width, own->height,
				     own->bytesperline + pad, &t);

		if (ret)
			return ret;
		if (t.bytesperline == own->bytesperline + pad) {
			*granule = pad;
			return 0;
		}
	}
	*granule = PAD;
	return 0;
}

/*
 * The alignment of a side the driver rounds up to: the smallest step of
 * 1, 2, 4 ... PAD pixels past its own size that it keeps; 0 where it
 * keeps none (a bound, or rounding of another kind).
 */
static int side_alignment(int fd, const struct llmem_v4l2_queue_info *q, uint32_t pixelformat,
			  const struct tried *own, bool columns, uint32_t *alignment)
{
	*alignment = 0;
	for (uint32_t step = 1; step <= PAD; step *= 2) {
		struct tried t;
		int ret = try_format(fd, q, pixelformat, own->width + (columns ? step : 0),
				     own->height + (columns ? 0 : step), 0, &t);

		if (ret)
			return ret;
		if ((columns ? t.width : t.height) == (columns ? own->width : own->height) + step) {
			*alignment = step;
			return 0;
		}
	}
	return 0;
}

/*
 * A driver that rounds the picture up to its blocks (vicodec's OUTPUT:
 * 1000x562 YUYV to 1008x568) states that coded size for the format
 * (reported), which its pitch and size are for, and the alignment of each
 * side (probed).
 */
static int state_coded(int fd, const struct llmem_v4l2_queue_info *q, uint32_t pixelformat,
		       const struct tried *own, struct llmem_participant *p,
		       struct llmem_format_caps *f)
{
	int ret;

	f->coded_width = own->width;
	f->coded_height = own->height;
	ret = side_alignment(fd, q, pixelformat, own, true, &f->column_alignment);
	if (!ret)
		ret = side_alignment(fd, q, pixelformat, own, false, &f->row_alignment);
	if (ret)
		return llmem_error(ret, "VIDIOC_TRY_FMT on %s: %s", p->name, strerror(-ret));
	p->constraints.probed |= LLMEM_C_COLUMN_ALIGNMENT | LLMEM_C_ROW_ALIGNMENT;
	return 0;
}

/*
 * Whether the queue takes a picture smaller than its frame: an OUTPUT
 * queue by its crop rectangle (an encoder's, dev-encoder.rst), a capture
 * queue by its pitch and, for the planes of one buffer that follow its own
 * rows (NV12), its compose rectangle; reported by G_SELECTION answering.
 */
static void state_crop(int fd, uint32_t output, const uint32_t *pixelformats,
		       struct llmem_participant *p)
{
	struct v4l2_rect r;
	bool selects = !llmem_v4l2_get_picture(
		fd, output ? V4L2_BUF_TYPE_VIDEO_OUTPUT : V4L2_BUF_TYPE_VIDEO_CAPTURE, &r);

	if (output && !selects) {
		p->constraints.flags |=
			LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT;
		return;
	}
	for (uint32_t i = 0; !output && !selects && i < p->num_formats; i++)
		if (pixelformats[i] == V4L2_PIX_FMT_NV12)
			p->formats[i].flags |= LLMEM_CONSTRAINT_NO_CROP_HEIGHT;
}

/* The queue's minimum of buffers, where the driver has the control. */
static uint32_t min_buffers(int fd, bool output)
{
	struct v4l2_control ctrl = {
		.id = output ? V4L2_CID_MIN_BUFFERS_FOR_OUTPUT : V4L2_CID_MIN_BUFFERS_FOR_CAPTURE,
	};

	return llmem_v4l2_xioctl(fd, VIDIOC_G_CTRL, &ctrl) || ctrl.value < 0 ? 0
									     : (uint32_t)ctrl.value;
}

/* The queue's formats llmem lays out, NV12 in one buffer preferred over
 * NV12M where the queue has both; -ENODEV for none. */
static int state_formats(const struct llmem_v4l2_queue_info *q, struct llmem_participant *p,
			 uint32_t *pixelformats)
{
	bool nv12 = false, nv12m = false;

	for (uint32_t i = 0; i < q->num_formats; i++) {
		nv12 |= q->formats[i].fourcc == V4L2_PIX_FMT_NV12;
		nv12m |= q->formats[i].fourcc == V4L2_PIX_FMT_NV12M;
	}
	for (uint32_t i = 0; i < q->num_formats && p->num_formats < LLMEM_NEGOTIATE_MAX_FORMATS;
	     i++) {
		uint32_t v = q->formats[i].fourcc;

		if (!llmem_v4l2_drm_fourcc(v) || (v == V4L2_PIX_FMT_NV12M && nv12))
			continue;
		pixelformats[p->num_formats] = v;
		p->formats[p->num_formats++] = (struct llmem_format_caps){
			.fourcc = llmem_v4l2_drm_fourcc(v),
			.source = LLMEM_FACT_REPORTED,
		};
	}
	if (nv12m && !nv12)
		p->constraints.flags |= LLMEM_CONSTRAINT_PLANE_PER_FD;
	return p->num_formats ? 0 : -ENODEV;
}

/*
 * Each format tried at the size: its own pitch and size (reported), and
 * whether it keeps a padded pitch (probed), asked of the first format and
 * taken for all: a driver pads or not whatever the format.
 */
static int state_layouts(int fd, const struct llmem_v4l2_queue_info *q, uint32_t width,
			 uint32_t height, const uint32_t *pixelformats, struct llmem_participant *p)
{
	struct llmem_constraints *c = &p->constraints;
	bool exact = false;
	int ret;

	for (uint32_t i = 0; i < p->num_formats; i++) {
		struct llmem_format_caps *f = &p->formats[i];
		struct tried own, padded;

		ret = try_format(fd, q, pixelformats[i], width, height, 0, &own);
		if (ret)
			return llmem_error(ret, "VIDIOC_TRY_FMT on %s: %s", p->name,
					   strerror(-ret));
		if (own.width >= width && own.height >= height &&
		    (own.width != width || own.height != height)) {
			ret = state_coded(fd, q, pixelformats[i], &own, p, f);
			if (ret)
				return ret;
		} else if (own.width != width || own.height != height) {
			/* It takes another size: the one it gives is its bound. */
			c->min_width = c->max_width = own.width;
			c->min_height = c->max_height = own.height;
		}
		f->min_size = own.sizeimage;
		if (i == 0) {
			ret = try_format(fd, q, pixelformats[i], own.width, own.height,
					 own.bytesperline + PAD, &padded);
			if (!ret && padded.bytesperline == own.bytesperline + PAD)
				ret = pitch_granularity(fd, q, pixelformats[i], &own,
							&c->pitch_alignment);
			else
				exact = !ret;
			if (ret)
				return llmem_error(ret, "VIDIOC_TRY_FMT on %s: %s", p->name,
						   strerror(-ret));
		}
		if (exact)
			f->pitch = own.bytesperline;
	}
	c->probed |= exact ? LLMEM_C_PITCH : LLMEM_C_PITCH_ALIGNMENT;
	return 0;
}

static const struct llmem_v4l2_queue_info *find_queue(const struct llmem_v4l2_node *node,
						      uint32_t output)
{
	for (uint32_t i = 0; i < node->num_queues; i++)
		if (node->queues[i].output == !!output)
			return &node->queues[i];
	return NULL;
}

static int state_queue(const struct llmem_v4l2_node *node, uint32_t output, uint32_t width,
		       uint32_t height, struct llmem_participant *p)
{
	uint32_t pixelformats[LLMEM_NEGOTIATE_MAX_FORMATS];
	const struct llmem_v4l2_queue_info *q;
	int fd, ret;

	if (node->error)
		return llmem_error(node->error, "%s %s: %s", node->path,
				   node->error == -ENOTTY ? "VIDIOC_QUERYCAP" : "open",
				   strerror(-node->error));
	q = find_queue(node, output);
	if (!q)
		return llmem_error(-ENODEV, "%s (%s) has no %s queue", node->path, node->driver,
				   output ? "OUTPUT" : "CAPTURE");
	if (q->formats_error)
		return llmem_error(q->formats_error, "VIDIOC_ENUM_FMT on %s: %s", p->name,
				   strerror(-q->formats_error));
	if (state_formats(q, p, pixelformats))
		return llmem_error(-ENODEV, "%s offers no format llmem lays out", p->name);
	fd = open(node->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return llmem_error(-errno, "open %s: %s", node->path, strerror(errno));
	ret = state_layouts(fd, q, width, height, pixelformats, p);
	if (!ret) {
		state_crop(fd, output, pixelformats, p);
		p->constraints.min_buffers = min_buffers(fd, output);
	}
	close(fd);
	return ret;
}

LLMEM_PUBLIC int llmem_participant_v4l2(const char *path, uint32_t output, uint32_t width,
					uint32_t height, struct llmem_participant *out)
{
	struct llmem_v4l2_node_list *list;
	int ret;

	if (!path || !out)
		return llmem_error(-EINVAL, "V4L2 participant: NULL %s", path ? "out" : "path");
	if (!width || !height)
		return llmem_error(-EINVAL, "V4L2 participant: a frame of %ux%u", width, height);
	ret = llmem_v4l2_list_nodes(path, &list);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->kind = LLMEM_PARTICIPANT_V4L2;
	snprintf(out->name, sizeof(out->name), "%s %s %s", list->nodes[0].driver, path,
		 output ? "output" : "capture");
	snprintf(out->device, sizeof(out->device), "%s", path);
	out->object = !!output;
	ret = state_queue(&list->nodes[0], output, width, height, out);
	llmem_v4l2_node_list_free(list);
	return ret;
}
