// SPDX-License-Identifier: MIT
/*
 * A camera opened through libcamera (LLMEM_CAMERA_LIBCAMERA): libcamera's
 * validate() states the stream's format, stride and frame size; that
 * statement is negotiated with the conversion and the caller's
 * participants like a V4L2 queue's, and the frames are made for the
 * result in the same pages as a V4L2 camera's.  The camera info then
 * reads as for a V4L2 camera: the V4L2 pixel format of the same bytes,
 * libcamera's stride and frame size.
 */
#include <errno.h>
#include <stdio.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/convert.h>

#include "base/error.h"
#include "video/camera.h"
#include "video/libcamera.h"
#include "video/negotiation.h"

/* The formats llmem converts, as V4L2 and DRM (libcamera's) name them; in
 * the order a camera's own choice is taken in. */
static const struct {
	uint32_t v4l2;
	uint32_t drm;
} formats[] = {
	{ V4L2_PIX_FMT_RGB24, DRM_FORMAT_BGR888 },
	{ V4L2_PIX_FMT_BGR24, DRM_FORMAT_RGB888 },
	{ V4L2_PIX_FMT_YUYV, DRM_FORMAT_YUYV },
	{ V4L2_PIX_FMT_NV12, DRM_FORMAT_NV12 },
};

#define NUM_FORMATS (sizeof(formats) / sizeof(formats[0]))

static uint32_t to_drm(uint32_t v4l2)
{
	for (uint32_t i = 0; i < NUM_FORMATS; i++)
		if (formats[i].v4l2 == v4l2)
			return formats[i].drm;
	return 0;
}

static uint32_t to_v4l2(uint32_t drm)
{
	for (uint32_t i = 0; i < NUM_FORMATS; i++)
		if (formats[i].drm == drm)
			return formats[i].v4l2;
	return 0;
}

/* libcamera's stream as a participant: its stride and frame size exact,
 * as a V4L2 driver's bytesperline and sizeimage are. */
static void stream_participant(const struct llmem_camera *c,
			       const struct llmem_libcamera_stream *st, struct llmem_participant *p)
{
	*p = (struct llmem_participant){
		.kind = LLMEM_PARTICIPANT_OTHER,
		.num_formats = 1,
		.formats[0] = {
			.fourcc = st->fourcc,
			.source = LLMEM_FACT_REPORTED,
			.pitch = st->stride,
			.min_size = st->frame_size,
			/* libcamera places NV12's CbCr plane after the
			 * picture's own rows. */
			.flags = st->fourcc == DRM_FORMAT_NV12 ? LLMEM_CONSTRAINT_NO_CROP_HEIGHT : 0,
		},
		.constraints.min_buffers = st->buffers,
	};
	snprintf(p->name, sizeof(p->name), "libcamera %s", c->info.device);
}

/* The V4L2 format of the negotiated frame, as the camera info gives it. */
static void fill_format(struct llmem_camera *c, const struct llmem_libcamera_stream *st)
{
	const struct llmem_frame_layout *l = &c->info.layout;
	struct llmem_v4l2_format *f = &c->info.format;

	*f = (struct llmem_v4l2_format){
		.fourcc = to_v4l2(st->fourcc),
		.width = st->width,
		.height = st->height,
		.bytesperline = st->stride,
		.sizeimage = st->frame_size,
		.num_planes = l->num_planes,
		.encoding = LLMEM_YCBCR_BT601,
		.range = LLMEM_YCBCR_LIMITED_RANGE,
		.mem_planes = 1,
		/* The copy path copies the frame libcamera wrote: its size. */
		.mem_plane_size[0] = c->copy ? st->frame_size : (uint32_t)l->size,
	};
	for (uint32_t p = 0; p < l->num_planes && p < 2; p++) {
		f->plane_offset[p] = (uint32_t)l->offset[p];
		f->plane_pitch[p] = l->pitch[p];
	}
}

int llmem_camera_libcamera_open(struct llmem_camera *c, const struct llmem_camera_create_info *ci,
				uint32_t width, uint32_t height, uint32_t buffers)
{
	uint32_t drm = 0, choices[NUM_FORMATS];
	struct llmem_libcamera_stream st;
	struct llmem_participant stream;
	struct llmem_negotiated n;
	int ret;

	if (ci->fourcc && !(drm = to_drm(ci->fourcc)))
		return llmem_error(-EINVAL,
				   "camera: %.4s from libcamera: RGB24, BGR24, YUYV or NV12 only",
				   (const char *)&ci->fourcc);
	for (uint32_t i = 0; i < NUM_FORMATS; i++)
		choices[i] = formats[i].drm;
	ret = llmem_libcamera_open(ci->device, c->info.device, sizeof(c->info.device), &c->lc);
	if (!ret)
		ret = llmem_libcamera_configure(c->lc, drm, choices, NUM_FORMATS, width, height,
						buffers, &st);
	if (ret)
		return ret;
	snprintf(c->info.driver, sizeof(c->info.driver), "libcamera");
	stream_participant(c, &st, &stream);
	ret = llmem_video_negotiate(c->session, &stream, NULL, 0, ci->participants,
				    ci->num_participants, st.fourcc, width, height, &n);
	if (ret)
		return ret;
	c->info.layout = n.layout;
	fill_format(c, &st);
	c->lc_buffers = st.buffers;
	return 0;
}
