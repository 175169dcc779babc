// SPDX-License-Identifier: MIT
//
// Fills a range of a buffer with a pattern of 1 to 4 words (4 to 16 bytes),
// which vkCmdFillBuffer cannot: it repeats a single word.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uint dst[]; };

layout(push_constant) uniform Params {
	uvec4 pattern;
	uint pattern_words;	// 1, 2 or 4
	uint first_word;	// where the range starts, in words
	uint word_count;
} p;

void main()
{
	uint i = gl_GlobalInvocationID.x;

	if (i >= p.word_count)
		return;
	dst[p.first_word + i] = p.pattern[i % p.pattern_words];
}
