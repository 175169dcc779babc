// SPDX-License-Identifier: MIT
//
// YUYV (4:2:2 packed, Y0 Cb Y1 Cr) to RGBA8, one invocation per pixel: the two
// of a pair read the same word, and a subgroup writes whole lines of RGBA.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };

#include "convert_params.glsl"
#include "yuv.glsl"

void main()
{
	uint x = gl_GlobalInvocationID.x;
	uint row = gl_GlobalInvocationID.y;

	if (x >= p.width || row >= p.height)
		return;

	uint word = src[(p.yuv_offset[0] + row * p.yuv_pitch[0]) / 4u + x / 2u];
	float y = float((word >> ((x & 1u) * 16u)) & 0xffu);
	float u = float((word >> 8) & 0xffu);
	float v = float(word >> 24);

	dst[(p.rgb_offset + row * p.rgb_pitch) / 4u + x] =
		pack_pixel(yuv_to_rgb(y, u, v, p.matrix, p.full_range), p.rgb_bgra);
}
