// SPDX-License-Identifier: MIT
// Each texel's centre through the sampler, as floats, into a buffer.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(binding = 0) uniform sampler2D src;
layout(binding = 1, std430) writeonly buffer Out {
	vec4 texels[];
};

void main()
{
	ivec2 size = textureSize(src, 0);
	ivec2 at = ivec2(gl_GlobalInvocationID.xy);

	if (at.x >= size.x || at.y >= size.y)
		return;
	texels[at.y * size.x + at.x] = texture(src, (vec2(at) + 0.5) / vec2(size));
}
