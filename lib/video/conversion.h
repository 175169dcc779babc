/* SPDX-License-Identifier: MIT */
/*
 * One conversion between a YUV and an RGB frame layout, either way: what
 * checks the layouts and the buffers of a frame, picks the built-in kernel
 * and records its dispatch (conversion.c), for the converters that submit
 * the recordings (convert.c).
 */
#ifndef LLMEM_VIDEO_CONVERSION_H
#define LLMEM_VIDEO_CONVERSION_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/convert.h>

#include "transfer/kernel.h"

struct llmem_session;

/* Mirrors the push_constant block of shaders/convert_params.glsl. */
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
};

/* A planned conversion: its layouts, shader, push constants and groups. */
struct llmem_conversion {
	struct llmem_frame_layout src, dst;
	/* RGB to YUV, or YUV to RGB. */
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
 * Records @f's conversion into @cmd, begun by the caller, its descriptors
 * written to @set (whose earlier recording must not be pending), between
 * barriers that order it after all earlier work of the queue and make its
 * writes visible to the host and to later transfers and conversions.
 * Return: 0 or the errors of llmem_kernel_describe().
 */
int llmem_conversion_record(const struct llmem_conversion *c, const struct llmem_kernel *k,
			    VkCommandBuffer cmd, VkDescriptorSet set,
			    const struct llmem_convert_frame *f);

#endif
