// SPDX-License-Identifier: MIT
// llmemfilter's test kernel: each pixel of a 32-bit RGB frame XOR a word
// from push-constants, from the input frame into the output frame.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0, std430) readonly buffer Src {
	uint src[];
};
layout(binding = 1, std430) buffer Dst {
	uint dst[];
};

// llmemfilter's block (gst/filter.h), then the user's words.
layout(push_constant) uniform Frame {
	uint width, height;
	uint src_offset[2], src_pitch[2], dst_offset[2], dst_pitch[2];
	uint mask;
} p;

void main()
{
	uvec2 g = gl_GlobalInvocationID.xy;

	if (g.x >= p.width || g.y >= p.height)
		return;
	dst[(p.dst_offset[0] + g.y * p.dst_pitch[0]) / 4 + g.x] =
		src[(p.src_offset[0] + g.y * p.src_pitch[0]) / 4 + g.x] ^ p.mask;
}
