// SPDX-License-Identifier: MIT
//
// RGBA8 (ABGR8888, or B, G, R, A) to NV12, both planes in one buffer, one
// invocation per 4x2 pixels: it owns a word of each of the two Y rows and
// the word of the CbCr row holding the block's two CbCr pairs, each the
// mean of the 2x2 pixels it covers.  Storage buffers are written a word at
// a time, so a word is never shared between invocations: plane offsets and
// pitches are multiples of 4.  A frame whose width is not falls short of
// its last words, whose other bytes are kept; an odd last column or row
// covers a chroma sample by itself.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Dst { uint dst[]; };

#include "convert_params.glsl"
#include "yuv.glsl"
#include "rgb_to_yuv.glsl"

// Stores the bytes of @word that @mask selects and keeps the others.
void store(uint index, uint word, uint mask)
{
	dst[index] = mask == 0xffffffffu ? word : (dst[index] & ~mask) | (word & mask);
}

void main()
{
	uint block = gl_GlobalInvocationID.x;
	uint pair_row = gl_GlobalInvocationID.y;
	uint x0 = block * 4u;
	uint y0 = pair_row * 2u;

	if (x0 >= p.width || y0 >= p.height)
		return;

	uint cols = min(p.width - x0, 4u);
	uint rows = min(p.height - y0, 2u);
	uint byte_mask = cols == 4u ? 0xffffffffu : (1u << (cols * 8u)) - 1u;
	vec3 px[2][4];

	for (uint r = 0u; r < rows; r++) {
		uint in_index = (p.rgb_offset + (y0 + r) * p.rgb_pitch) / 4u + x0;
		uint word = 0u;

		for (uint i = 0u; i < cols; i++) {
			px[r][i] = unpack_pixel(src[in_index + i], p.rgb_bgra);
			word |= code_byte(luma_code(px[r][i], p.matrix, p.full_range)) << (i * 8u);
		}
		store((p.yuv_offset[0] + (y0 + r) * p.yuv_pitch[0]) / 4u + block, word, byte_mask);
	}

	uint chroma = 0u;
	uint chroma_mask = 0u;

	for (uint j = 0u; j < 2u && j * 2u < cols; j++) {
		uint x_end = min(j * 2u + 2u, cols);
		vec3 sum = vec3(0.0);

		for (uint r = 0u; r < rows; r++)
			for (uint i = j * 2u; i < x_end; i++)
				sum += px[r][i];
		vec2 c = chroma_code(sum / float(rows * (x_end - j * 2u)), p.matrix, p.full_range);

		chroma |= (code_byte(c.x) | (code_byte(c.y) << 8)) << (j * 16u);
		chroma_mask |= 0xffffu << (j * 16u);
	}
	store((p.yuv_offset[1] + pair_row * p.yuv_pitch[1]) / 4u + block, chroma, chroma_mask);
}
