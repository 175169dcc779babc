/* SPDX-License-Identifier: MIT */
/*
 * GPU conversion of camera frames to RGBA, in place on shared memory: the
 * compute shaders read the frame where the camera wrote it, and write the
 * RGBA frame in the byte order a display takes where asked (XRGB8888).
 *
 * Thread-safety: a conversion takes the session's queue for its duration;
 * conversions from several threads are serialised.
 */
#ifndef LLMEM_CONVERT_H
#define LLMEM_CONVERT_H

#include <stdint.h>

#include <llmem/frame.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;

/* The Y'CbCr to R'G'B' matrix; 0 is BT.601, what V4L2 defaults to. */
enum llmem_ycbcr_encoding {
	LLMEM_YCBCR_BT601 = 0,
	LLMEM_YCBCR_BT709 = 1,
};

/* 0 is limited range (Y 16-235, Cb/Cr 16-240), what cameras send. */
enum llmem_ycbcr_range {
	LLMEM_YCBCR_LIMITED_RANGE = 0,
	LLMEM_YCBCR_FULL_RANGE = 1,
};

/**
 * struct llmem_convert_info - one frame to convert.
 * @src: the buffer holding the YUYV or NV12 frame (NV12's Y plane only, with
 *	@src_chroma).
 * @src_layout: where the frame lies in @src; with @src_chroma, offset[1]
 *	and pitch[1] are those of the CbCr plane in @src_chroma.
 * @dst: the buffer to receive the RGBA frame; another buffer than @src.
 * @dst_layout: a layout of the same width and height, ABGR8888 (bytes R, G,
 *	B, A in memory) or XRGB8888 or ARGB8888 (bytes B, G, R, A: what
 *	displays scan out); alpha is 255.
 * @encoding: enum llmem_ycbcr_encoding; leave 0 for BT.601.
 * @range: enum llmem_ycbcr_range; leave 0 for limited range.
 * @src_chroma: for NV12 whose CbCr plane is a buffer of its own (a camera's
 *	NV12M, a DMA-BUF per plane): that buffer; leave NULL when both planes
 *	are in @src.
 */
struct llmem_convert_info {
	struct llmem_buffer *src;
	const struct llmem_frame_layout *src_layout;
	struct llmem_buffer *dst;
	const struct llmem_frame_layout *dst_layout;
	uint32_t encoding;
	uint32_t range;
	struct llmem_buffer *src_chroma;
};

/**
 * llmem_convert_to_rgba() - convert a YUYV or NV12 frame to RGBA on the device.
 * @info: what to convert.
 *
 * Blocking: when it returns the RGBA frame is in @dst, and host-visible
 * memory can be read (after llmem_buffer_invalidate() where not coherent).
 * Both buffers need LLMEM_BUFFER_STORAGE usage (the default).
 *
 * Return: 0; -EINVAL for NULL arguments, a source format other than YUYV or
 * NV12, a destination other than ABGR8888, XRGB8888 or ARGB8888, sizes that
 * differ, a layout that does not fit its buffer (with @src_chroma, a plane
 * that does not fit its buffer), the destination also a source, a
 * @src_chroma for YUYV, buffers of two sessions, an unknown encoding or
 * range, or a buffer without storage usage; -EIO or -ENOMEM when Vulkan
 * fails.
 */
int llmem_convert_to_rgba(const struct llmem_convert_info *info);

struct llmem_converter;

/**
 * struct llmem_converter_create_info - a conversion repeated over a ring of
 * frame buffers, as a camera fills them.
 * @srcs: the frame buffers, all laid out as @src_layout.
 * @src_count: how many.
 * @src_layout: where the frame lies in each of them.
 * @dst: the buffer to receive the RGBA frames.
 * @dst_layout: a layout of the same size, as for llmem_convert_to_rgba().
 * @encoding: enum llmem_ycbcr_encoding; leave 0 for BT.601.
 * @range: enum llmem_ycbcr_range; leave 0 for limited range.
 * @chroma_srcs: for NV12 whose CbCr plane is a buffer of its own: that
 *	buffer of each frame, @src_count of them, as llmem_convert_info's
 *	@src_chroma; leave NULL when both planes are in @srcs.
 */
struct llmem_converter_create_info {
	struct llmem_buffer *const *srcs;
	uint32_t src_count;
	const struct llmem_frame_layout *src_layout;
	struct llmem_buffer *dst;
	const struct llmem_frame_layout *dst_layout;
	uint32_t encoding;
	uint32_t range;
	struct llmem_buffer *const *chroma_srcs;
};

/**
 * llmem_converter_create() - record the conversion of each frame buffer once.
 * @info: the buffers and layouts; the converter does not keep the buffers
 *        alive: destroy it before them.
 * @out: the new converter.
 *
 * llmem_converter_run() then only submits what was recorded: the per-frame
 * CPU cost of a conversion is a queue submission and a wait.
 *
 * Return: 0; the errors of llmem_convert_to_rgba() for any source; -EINVAL for
 * a @src_count of 0; -ENOMEM or -EIO when Vulkan fails.
 */
int llmem_converter_create(const struct llmem_converter_create_info *info,
			   struct llmem_converter **out);

/**
 * llmem_converter_run() - convert the frame in source @index and wait for it.
 *
 * Thread-safety: runs on one converter are serialised by the caller.
 *
 * Return: 0; -EINVAL for NULL or an @index past the sources; -EIO.
 */
int llmem_converter_run(struct llmem_converter *converter, uint32_t index);

/* Destroys a converter; NULL is ignored. */
void llmem_converter_destroy(struct llmem_converter *converter);

#ifdef __cplusplus
}
#endif

#endif
