// SPDX-License-Identifier: MIT
// y = a · x + b over the words of two buffers (sub-regions in the tests).
#version 450

layout(local_size_x = 64) in;

layout(binding = 0, std430) readonly buffer In {
	uint x[];
};
layout(binding = 1, std430) buffer Out {
	uint y[];
};

layout(push_constant) uniform Params {
	uint a, b, count;
} p;

void main()
{
	uint i = gl_GlobalInvocationID.x;

	if (i < p.count)
		y[i] = p.a * x[i] + p.b;
}
