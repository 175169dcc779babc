// SPDX-License-Identifier: MIT
// llmemfilter's identity on YUYV: each word (two pixels) of the input frame
// to the output frame; in place it leaves the frame as the camera wrote it.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0, std430) readonly buffer Src {
	uint src[];
};
layout(binding = 1, std430) buffer Dst {
	uint dst[];
};

// llmemfilter's block (gst/filter.h).
layout(push_constant) uniform Frame {
	uint width, height;
	uint src_offset[2], src_pitch[2], dst_offset[2], dst_pitch[2];
} p;

void main()
{
	uvec2 g = gl_GlobalInvocationID.xy;

	if (g.x >= p.width / 2u || g.y >= p.height)
		return;
	dst[(p.dst_offset[0] + g.y * p.dst_pitch[0]) / 4u + g.x] =
		src[(p.src_offset[0] + g.y * p.src_pitch[0]) / 4u + g.x];
}
