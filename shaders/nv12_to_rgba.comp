// SPDX-License-Identifier: MIT
//
// NV12 (a Y plane and a half-resolution interleaved CbCr plane) to RGBA8,
// one invocation per pixel.  The CbCr plane is read from its own binding:
// the same buffer as the Y plane for NV12 in one buffer, a buffer of its
// own for a camera that takes a DMA-BUF per plane (V4L2's NV12M).  Planes
// may start and be pitched at any byte, so bytes are picked out of words.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Chroma { uint chroma[]; };

#include "convert_params.glsl"
#include "yuv.glsl"

float luma_at(uint offset)
{
	return float((src[offset / 4u] >> ((offset % 4u) * 8u)) & 0xffu);
}

float chroma_at(uint offset)
{
	return float((chroma[offset / 4u] >> ((offset % 4u) * 8u)) & 0xffu);
}

void main()
{
	uint x = gl_GlobalInvocationID.x;
	uint row = gl_GlobalInvocationID.y;

	if (x >= p.width || row >= p.height)
		return;

	float y = luma_at(p.yuv_offset[0] + row * p.yuv_pitch[0] + x);
	uint c = p.yuv_offset[1] + (row / 2u) * p.yuv_pitch[1] + (x / 2u) * 2u;
	float u = chroma_at(c);
	float v = chroma_at(c + 1u);

	dst[(p.rgb_offset + row * p.rgb_pitch) / 4u + x] =
		pack_pixel(yuv_to_rgb(y, u, v, p.matrix, p.full_range), p.rgb_bgra);
}
