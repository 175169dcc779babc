/* SPDX-License-Identifier: MIT */
/*
 * One conversion between a YUV and an RGB frame layout, either way, or from
 * a 24-bit RGB frame to RGBA: what checks the layouts and the buffers of a
 * frame, picks the built-in kernel and records its dispatch (conversion.c),
 * for the converters that submit the recordings (convert.c).
 */
#ifndef LLMEM_VIDEO_CONVERSION_H
#define LLMEM_VIDEO_CONVERSION_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/convert.h>

#include "transfer/kernel.h"

struct llmem_session;

/* Mirrors the push_constant block of shaders/convert_params.glsl: the
 * yuv_ plane is the frame that is not RGBA (a 24-bit RGB source's too). */
struct llmem_convert_params {
	uint32_t width;
	uint32_t height;
	uint32_t yuv_offset[2];
	uint32_t yuv_pitch[2];
	uint32_t rgb_offset;
	uint32_t rgb_pitch;
	uint32_t matrix;
	uint32_t full_range;
	uint32_t rgb_bgra;
	uint32_t src_bgr;
};

/* A planned conversion: its layouts, shader, push constants and groups. */
struct llmem_conversion {
	struct llmem_frame_layout src, dst;
	/* RGB to YUV, or YUV or 24-bit RGB to RGB. */
	bool to_yuv;
	enum llmem_builtin_kernel id;
	const struct llmem_shader *shader;
	/* Source, destination, and an NV12 source's CbCr plane. */
	uint32_t binding_count;
	struct llmem_convert_params params;
	uint32_t groups[3];
};

/*
 * Checks two layouts (formats either way, sizes, alignment, modifier) with
 * @encoding and @range, and plans their conversion in @out.
 * Return: 0 or -EINVAL with the reason.
 */
int llmem_conversion_plan(const struct llmem_frame_layout *src,
			  const struct llmem_frame_layout *dst, uint32_t encoding, uint32_t range,
			  struct llmem_conversion *out);

/*
 * Checks the buffers of one frame of @c: distinct, of one session, with
 * storage usage, each plane inside its buffer.  Return: 0 or -EINVAL.
 */
int llmem_conversion_check_frame(const struct llmem_conversion *c,
				 const struct llmem_convert_frame *f);

/* The session's built-in kernel of @c.  Return: 0, -ENOMEM or -EIO. */
int llmem_conversion_kernel(struct llmem_session *s, const struct llmem_conversion *c,
			    struct llmem_kernel **out);

/*
 * The VkBuffer @c reads the source @src through, where its own cannot
 * serve: a storage buffer's uint array ends at the last whole word of its
 * range, and a 24-bit RGB picture may end in the partial last word of a
 * buffer whose size is not a multiple of 4 (642x7 at pitch 1926 is 13482
 * bytes).  *@words receives a view of @src's whole words
 * (llmem_buffer_whole_words()), the caller's to destroy once no recording
 * that binds it is pending, or VK_NULL_HANDLE where @src's own serves.
 * Return: 0, or the errors of llmem_buffer_whole_words().
 */
int llmem_conversion_source_words(const struct llmem_conversion *c, struct llmem_buffer *src,
				  VkBuffer *words);

/*
 * Records @f's conversion into @cmd, begun by the caller, its descriptors
 * written to @set (whose earlier recording must not be pending), between
 * barriers that order it after all earlier work of the queue and make its
 * writes visible to the host and to later transfers and conversions.  The
 * source is read through @src_words where it is not VK_NULL_HANDLE
 * (llmem_conversion_source_words()).
 * Return: 0 or the errors of llmem_kernel_describe().
 */
int llmem_conversion_record(const struct llmem_conversion *c, const struct llmem_kernel *k,
			    VkCommandBuffer cmd, VkDescriptorSet set,
			    const struct llmem_convert_frame *f, VkBuffer src_words);

#endif
