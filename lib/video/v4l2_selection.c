// SPDX-License-Identifier: MIT
/*
 * The picture inside a V4L2 queue's frames, as the selection API places
 * it: an encoder's OUTPUT crop rectangle (the part of each coded frame it
 * codes, dev-encoder.rst), a decoder's CAPTURE compose rectangle (the part
 * of each frame it wrote that is picture, dev-decoder.rst), a camera's
 * compose rectangle (where in its frame it writes).  llmem's pictures lie
 * at the top left of their coded frame (frame.h).
 */
#include <linux/videodev2.h>

#include "video/v4l2.h"

/* The selection API takes the single-planar type for both kinds of
 * queue. */
static uint32_t single_planar(uint32_t type)
{
	return type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE    ? V4L2_BUF_TYPE_VIDEO_OUTPUT
	       : type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ? V4L2_BUF_TYPE_VIDEO_CAPTURE
							    : type;
}

static uint32_t picture_target(uint32_t type)
{
	return V4L2_TYPE_IS_OUTPUT(type) ? V4L2_SEL_TGT_CROP : V4L2_SEL_TGT_COMPOSE;
}

int llmem_v4l2_set_picture(int fd, uint32_t type, uint32_t width, uint32_t height,
			   struct v4l2_rect *got)
{
	struct v4l2_selection sel = {
		.type = single_planar(type),
		.target = picture_target(type),
		.r = { .width = width, .height = height },
	};
	int ret = llmem_v4l2_xioctl(fd, VIDIOC_S_SELECTION, &sel);

	if (!ret)
		*got = sel.r;
	return ret;
}

int llmem_v4l2_get_picture(int fd, uint32_t type, struct v4l2_rect *out)
{
	struct v4l2_selection sel = { .type = single_planar(type), .target = picture_target(type) };
	int ret = llmem_v4l2_xioctl(fd, VIDIOC_G_SELECTION, &sel);

	if (!ret)
		*out = sel.r;
	return ret;
}
