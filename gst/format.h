/* SPDX-License-Identifier: MIT */
/*
 * GStreamer's raw video formats as llmem's DRM fourccs, and llmem's frame
 * layouts as GstVideoMeta.  GStreamer 1.22 caps carry no DRM modifier:
 * every layout here is linear, the only one llmem's frames have.
 */
#ifndef GST_LLMEM_FORMAT_H
#define GST_LLMEM_FORMAT_H

#include <gst/video/video.h>

#include <llmem/frame.h>

/* The formats llmem converts between (YUV and RGB, either way), in caps
 * syntax; llmemfilter takes them all. */
#define GST_LLMEM_YUV_FORMATS "{ YUY2, NV12 }"
#define GST_LLMEM_RGB_FORMATS "{ BGRx, RGBx, RGBA, BGRA }"
#define GST_LLMEM_FORMATS "{ YUY2, NV12, BGRx, RGBx, RGBA, BGRA }"

/* The DRM fourcc of @format, or 0 where llmem has none. */
guint32 gst_llmem_format_fourcc(GstVideoFormat format);

/*
 * Lays out a frame of @info as llmem does (llmem_frame_layout_init()), its
 * planes starting and pitched at multiples of 4 bytes.
 * Return: 0; -EINVAL for a size the format cannot have (the reason in
 * llmem_last_error()), or for a format without a fourcc, which leaves
 * llmem_last_error() alone: callers name the format themselves.
 */
int gst_llmem_format_layout(const GstVideoInfo *info, struct llmem_frame_layout *layout);

/* Adds the GstVideoMeta that describes @layout, in @buffer's one memory. */
GstVideoMeta *gst_llmem_format_add_meta(GstBuffer *buffer, GstVideoFormat format,
					const struct llmem_frame_layout *layout);

#endif
