/* SPDX-License-Identifier: MIT */
/*
 * Bytes that differ from seed to seed and from place to place, so that a
 * copy to the wrong offset or from the wrong source shows.
 */
#ifndef LLMEM_TEST_PATTERN_H
#define LLMEM_TEST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* xorshift32, started from @seed. */
static inline void test_pattern(uint8_t *p, size_t n, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

#endif
