/* SPDX-License-Identifier: MIT */
/*
 * FWHT frames made by hand, as files of them are laid out (struct
 * fwht_cframe_hdr of the kernel's codec-fwht.h): an 8-byte magic, then
 * eleven big-endian words, the payload's size last, then the payload.
 */
#ifndef LLMEM_TEST_FWHT_FRAME_H
#define LLMEM_TEST_FWHT_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pattern.h"

#define FWHT_FRAME_HEADER 44

static inline void fwht_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * A frame of @width x @height with header @flags and @payload bytes of a
 * pattern seeded by @seed, at @dst; its size, header included.
 */
static inline size_t fwht_frame(uint8_t *dst, uint32_t width, uint32_t height, uint32_t flags,
				uint32_t payload, unsigned int seed)
{
	static const uint8_t magic[8] = { 0x4f, 0x4f, 0x4f, 0x4f, 0xff, 0xff, 0xff, 0xff };
	/* version, width, height, flags, colorspace, xfer_func, ycbcr_enc,
	 * quantization, size */
	const uint32_t words[9] = { 3, width, height, flags, 8, 1, 1, 1, payload };

	memcpy(dst, magic, sizeof(magic));
	for (int i = 0; i < 9; i++)
		fwht_put_be32(dst + 8 + 4 * i, words[i]);
	test_pattern(dst + FWHT_FRAME_HEADER, payload, seed);
	return FWHT_FRAME_HEADER + payload;
}

#endif
