// SPDX-License-Identifier: MIT
//
// RGBA8 (ABGR8888, or B, G, R, A) to YUYV (4:2:2 packed, Y0 Cb Y1 Cr), one
// invocation per pixel pair: it writes the pair's one word, Cb and Cr of
// the pair's mean.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };

#include "convert_params.glsl"
#include "yuv.glsl"
#include "rgb_to_yuv.glsl"

void main()
{
	uint pair = gl_GlobalInvocationID.x;
	uint row = gl_GlobalInvocationID.y;

	if (pair * 2u >= p.width || row >= p.height)
		return;

	uint in_index = (p.rgb_offset + row * p.rgb_pitch) / 4u + pair * 2u;
	vec3 a = unpack_pixel(src[in_index], p.rgb_bgra);
	vec3 b = unpack_pixel(src[in_index + 1u], p.rgb_bgra);
	vec2 c = chroma_code((a + b) * 0.5, p.matrix, p.full_range);

	dst[(p.yuv_offset[0] + row * p.yuv_pitch[0]) / 4u + pair] =
		code_byte(luma_code(a, p.matrix, p.full_range)) | (code_byte(c.x) << 8) |
		(code_byte(luma_code(b, p.matrix, p.full_range)) << 16) | (code_byte(c.y) << 24);
}
