// SPDX-License-Identifier: MIT
// A box blur of (2 radius + 1)² texels: reads any float or normalised image
// through its sampler (edges clamped), writes an rgba8 storage image.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;

layout(push_constant) uniform Params {
	int radius;
} p;

void main()
{
	ivec2 size = imageSize(dst);
	ivec2 at = ivec2(gl_GlobalInvocationID.xy);
	vec4 sum = vec4(0.0);

	if (at.x >= size.x || at.y >= size.y)
		return;
	for (int dy = -p.radius; dy <= p.radius; dy++)
		for (int dx = -p.radius; dx <= p.radius; dx++)
			sum += texture(src, (vec2(at + ivec2(dx, dy)) + 0.5) / vec2(size));
	imageStore(dst, at, sum / float((2 * p.radius + 1) * (2 * p.radius + 1)));
}
