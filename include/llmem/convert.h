/* SPDX-License-Identifier: MIT */
/*
 * GPU conversion of camera frames to RGBA, in place on shared memory: the
 * compute shaders read the frame where the camera wrote it.
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
 * @src: the buffer holding the YUYV or NV12 frame.
 * @src_layout: where the frame lies in @src.
 * @dst: the buffer to receive the RGBA frame; another buffer than @src.
 * @dst_layout: an ABGR8888 layout of the same width and height.
 * @encoding: enum llmem_ycbcr_encoding; leave 0 for BT.601.
 * @range: enum llmem_ycbcr_range; leave 0 for limited range.
 */
struct llmem_convert_info {
	struct llmem_buffer *src;
	const struct llmem_frame_layout *src_layout;
	struct llmem_buffer *dst;
	const struct llmem_frame_layout *dst_layout;
	uint32_t encoding;
	uint32_t range;
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
 * NV12, a destination other than ABGR8888, sizes that differ, a layout that
 * does not fit its buffer, the same buffer twice, buffers of two sessions,
 * an unknown encoding or range, or a buffer without storage usage; -EIO or
 * -ENOMEM when Vulkan fails.
 */
int llmem_convert_to_rgba(const struct llmem_convert_info *info);

#ifdef __cplusplus
}
#endif

#endif
