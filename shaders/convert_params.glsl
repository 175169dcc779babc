// SPDX-License-Identifier: MIT
//
// Push constants of the conversion shaders; the C side is
// struct convert_params in lib/video/convert.c.  Offsets and pitches are in
// bytes; the source's are multiples of 4 for YUYV and of 1 for NV12.
layout(push_constant) uniform Params {
	uint width;
	uint height;
	uint src_offset[2];	// plane 0 (Y or YUYV), plane 1 (CbCr, in its own binding)
	uint src_pitch[2];
	uint dst_offset;
	uint dst_pitch;		// bytes per RGBA row, a multiple of 4
	uint matrix;
	uint full_range;
	uint dst_bgra;		// 1: bytes B, G, R, A (XRGB8888, ARGB8888), 0: R, G, B, A
} p;
