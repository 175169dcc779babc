// SPDX-License-Identifier: MIT
//
// Clears a rectangle of an RGBA8 frame held in a buffer with any pitch, in
// place, so a shared frame need not be an optimal-tiling image to be cleared.
// Each invocation loops, so one dispatch of any size covers the rectangle.
#version 450

layout(local_size_x = 16, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uint dst[]; };

layout(push_constant) uniform Params {
	uint offset;	// bytes to the rectangle's first pixel, a multiple of 4
	uint pitch;	// bytes per row, a multiple of 4
	uint width;
	uint height;
	uint rgba;	// R in the low byte
} p;

void main()
{
	uvec2 stride = gl_NumWorkGroups.xy * gl_WorkGroupSize.xy;

	for (uint row = gl_GlobalInvocationID.y; row < p.height; row += stride.y)
		for (uint x = gl_GlobalInvocationID.x; x < p.width; x += stride.x)
			dst[(p.offset + row * p.pitch) / 4u + x] = p.rgba;
}
