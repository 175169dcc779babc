/* SPDX-License-Identifier: MIT */
/*
 * An object read back through a queue and compared with the test's model,
 * the first difference logged.  Include after kselftest_harness.h.
 */
#ifndef LLMEM_READBACK_H
#define LLMEM_READBACK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/transfer.h>

/* 0 when @got equals @want, else -1 after logging the first difference. */
static inline int readback_compare(struct __test_metadata *_metadata, const char *what,
				   const uint8_t *got, const uint8_t *want, uint64_t size)
{
	if (!memcmp(got, want, size))
		return 0;
	for (uint64_t i = 0; i < size; i++) {
		if (got[i] != want[i]) {
			TH_LOG("%s byte %llu of %llu: 0x%02x, model 0x%02x", what,
			       (unsigned long long)i, (unsigned long long)size, got[i], want[i]);
			break;
		}
	}
	return -1;
}

/* Bytes [0, @size) of @b, read through @q into @scratch, equal @want; the
 * scratch is filled with 0xee first, so that bytes the read misses show. */
static inline int readback_buffer(struct __test_metadata *_metadata, struct llmem_queue *q,
				  struct llmem_buffer *b, uint8_t *scratch, const uint8_t *want,
				  uint64_t size)
{
	memset(scratch, 0xee, size);
	EXPECT_EQ(llmem_enqueue_read_buffer(q, b, 0, scratch, size, NULL, NULL), 0);
	return readback_compare(_metadata, "buffer", scratch, want, size);
}

/* The whole of @img, read through @q, equals @want. */
static inline int readback_image(struct __test_metadata *_metadata, struct llmem_queue *q,
				 struct llmem_image *img, const uint8_t *want)
{
	uint64_t size = llmem_image_size(img);
	uint8_t *out = malloc(size);
	int ret;

	if (!out) {
		TH_LOG("no memory to read back %llu bytes", (unsigned long long)size);
		return -1;
	}
	memset(out, 0xcd, size);
	EXPECT_EQ(llmem_enqueue_read_image(q, img, NULL, out, NULL, NULL, NULL), 0);
	ret = readback_compare(_metadata, "image", out, want, size);
	free(out);
	return ret;
}

#endif
