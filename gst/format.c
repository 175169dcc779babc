// SPDX-License-Identifier: MIT
/*
 * GstVideoFormat to DRM fourcc.  The RGB names differ in order only:
 * GStreamer names bytes in memory order, DRM names a little-endian word
 * from its high bits, so RGBA is DRM's ABGR8888 and BGRx its XRGB8888.
 * RGBx gets ABGR8888 too: the converters write alpha 255, which a reader of
 * RGBx ignores.
 */
#include "format.h"

#include <errno.h>

#include <drm_fourcc.h>

guint32 gst_llmem_format_fourcc(GstVideoFormat format)
{
	switch (format) {
	case GST_VIDEO_FORMAT_YUY2:
		return DRM_FORMAT_YUYV;
	case GST_VIDEO_FORMAT_NV12:
		return DRM_FORMAT_NV12;
	case GST_VIDEO_FORMAT_RGBA:
	case GST_VIDEO_FORMAT_RGBx:
		return DRM_FORMAT_ABGR8888;
	case GST_VIDEO_FORMAT_BGRx:
		return DRM_FORMAT_XRGB8888;
	case GST_VIDEO_FORMAT_BGRA:
		return DRM_FORMAT_ARGB8888;
	default:
		return 0;
	}
}

int gst_llmem_format_layout(const GstVideoInfo *info, struct llmem_frame_layout *layout)
{
	/* llmem's converters write NV12 a 32-bit word at a time (convert.h),
	 * and GStreamer's own strides are multiples of 4 too; llmem lays the
	 * other formats out so already. */
	static const struct llmem_frame_constraints words = { .pitch_alignment = 4,
							      .plane_alignment = 4 };
	guint32 fourcc = gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(info));

	if (!fourcc)
		return -EINVAL;
	return llmem_frame_layout_init(fourcc, GST_VIDEO_INFO_WIDTH(info),
				       GST_VIDEO_INFO_HEIGHT(info), &words, layout);
}

GstVideoMeta *gst_llmem_format_add_meta(GstBuffer *buffer, GstVideoFormat format,
					const struct llmem_frame_layout *layout)
{
	gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
	gint stride[GST_VIDEO_MAX_PLANES] = { 0 };

	for (guint i = 0; i < layout->num_planes; i++) {
		offset[i] = layout->offset[i];
		stride[i] = (gint)layout->pitch[i];
	}
	return gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, format,
					      layout->width, layout->height, layout->num_planes,
					      offset, stride);
}
