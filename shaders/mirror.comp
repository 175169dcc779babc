// SPDX-License-Identifier: MIT
//
// Mirrors a YUYV or NV12 frame left to right in place, in the buffer the
// camera wrote it to: `llmem encode`'s step on the device between the
// camera and the encoder.  Each invocation swaps a word of a row with its
// mirror image, so no two touch the same word: a word of YUYV is a pixel
// pair (Y0 Cb Y1 Cr: Y0 and Y1 trade places), a word of an NV12 Y row four
// pixels (bytes reversed), a word of its CbCr rows two pairs (halves
// swapped).  Rows must be whole words (NV12: a width that is a multiple of
// 4), offsets and pitches multiples of 4.  Plane z of the dispatch is plane
// z of the frame.
#version 450

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) buffer Frame { uint words[]; };

layout(push_constant) uniform Params {
	uint offset[2];		// bytes
	uint pitch[2];		// bytes
	uint row_words[2];	// words of a row
	uint rows[2];
	uint kind[2];		// 0: YUYV pairs, 1: bytes, 2: byte pairs
} p;

uint mirror_word(uint w, uint kind)
{
	if (kind == 0u)
		return (w & 0xff00ff00u) | ((w & 0xffu) << 16) | ((w >> 16) & 0xffu);
	if (kind == 1u)
		return (w << 24) | ((w & 0xff00u) << 8) | ((w >> 8) & 0xff00u) | (w >> 24);
	return (w << 16) | (w >> 16);
}

void main()
{
	uint plane = gl_GlobalInvocationID.z;
	uint x = gl_GlobalInvocationID.x;
	uint row = gl_GlobalInvocationID.y;
	uint n = p.row_words[plane];

	if (plane > 1u || row >= p.rows[plane] || 2u * x >= n)
		return;

	uint base = (p.offset[plane] + row * p.pitch[plane]) / 4u;
	uint a = words[base + x];
	uint b = words[base + n - 1u - x];

	words[base + x] = mirror_word(b, p.kind[plane]);
	if (x != n - 1u - x)
		words[base + n - 1u - x] = mirror_word(a, p.kind[plane]);
}
