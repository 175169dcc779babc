// SPDX-License-Identifier: MIT
//
// Fills words of a buffer with a pattern of 1 to 4 words (4 to 16 bytes),
// which vkCmdFillBuffer cannot: it repeats a single word.  Whole 16-byte
// quads go a uvec4 at a time, the words before the first and after the last
// one at a time.  Invocations loop, so one dispatch of any size covers the
// range.
#version 450

layout(local_size_x = 64) in;

// One descriptor, two views of it.
layout(std430, set = 0, binding = 0) writeonly buffer Words { uint words[]; };
layout(std430, set = 0, binding = 0) writeonly buffer Quads { uvec4 quads[]; };

layout(push_constant) uniform Params {
	uvec4 pattern;		// 4 words, the range's first word first
	uint first_word;	// where the range starts, in words
	uint word_count;
} p;

void main()
{
	uint id = gl_GlobalInvocationID.x;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	uint head = min((4u - p.first_word % 4u) % 4u, p.word_count);
	uint count = (p.word_count - head) / 4u;
	uint tail = p.word_count - head - count * 4u;
	uint first = (p.first_word + head) / 4u;
	uvec4 quad = uvec4(p.pattern[head % 4u], p.pattern[(head + 1u) % 4u],
			   p.pattern[(head + 2u) % 4u], p.pattern[(head + 3u) % 4u]);

	if (id < head)
		words[p.first_word + id] = p.pattern[id];
	if (id < tail)
		words[p.first_word + head + count * 4u + id] = p.pattern[(head + id) % 4u];
	for (uint i = id; i < count; i += stride)
		quads[first + i] = quad;
}
