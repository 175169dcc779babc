// SPDX-License-Identifier: MIT
//
// Push constants of the conversion shaders, either way; the C side is
// struct llmem_convert_params in lib/video/conversion.h.  Offsets and
// pitches are in bytes, multiples of 4 for every plane a shader reads or
// writes as whole words (all but an NV12 or 24-bit RGB source's, which are
// read a byte at a time).
layout(push_constant) uniform Params {
	uint width;
	uint height;
	uint yuv_offset[2];	// plane 0 (Y, YUYV or a 24-bit RGB source), plane 1 (NV12's CbCr)
	uint yuv_pitch[2];
	uint rgb_offset;	// the RGBA frame's
	uint rgb_pitch;
	uint matrix;
	uint full_range;
	uint rgb_bgra;		// 1: bytes B, G, R, A (XRGB8888, ARGB8888), 0: R, G, B, A
	uint src_bgr;		// a 24-bit RGB source's, 1: bytes B, G, R (RGB888), 0: R, G, B
} p;
