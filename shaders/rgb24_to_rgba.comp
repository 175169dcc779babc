// SPDX-License-Identifier: MIT
//
// 24-bit RGB (three bytes a pixel: R, G, B for DRM's BGR888, B, G, R for
// RGB888) to RGBA8, one invocation per pixel, so that a subgroup writes
// whole lines of RGBA.  Cameras pitch rows at width * 3 bytes, so a pixel
// starts at any byte and may straddle two words: its bytes are taken from
// the one or two words that hold them, and no word without a byte of the
// picture is read.  The source binding holds every such word, the last of
// a buffer whose size is not a multiple of 4 too (lib/video/conversion.c
// binds a view of whole words there).
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };

#include "convert_params.glsl"

void main()
{
	uint x = gl_GlobalInvocationID.x;
	uint row = gl_GlobalInvocationID.y;

	if (x >= p.width || row >= p.height)
		return;

	uint at = p.yuv_offset[0] + row * p.yuv_pitch[0] + x * 3u;
	uint shift = (at % 4u) * 8u;
	uint bytes = src[at / 4u] >> shift;
	// The word holds 4 - at % 4 of the pixel's bytes; the next the rest.
	if (at % 4u >= 2u)
		bytes |= src[at / 4u + 1u] << (32u - shift);

	// Channels in the source's byte order, written in the destination's.
	uvec3 c = uvec3(bytes & 0xffu, (bytes >> 8) & 0xffu, (bytes >> 16) & 0xffu);
	if (p.src_bgr != p.rgb_bgra)
		c = c.bgr;
	dst[(p.rgb_offset + row * p.rgb_pitch) / 4u + x] =
		c.r | (c.g << 8) | (c.b << 16) | (255u << 24);
}
