// SPDX-License-Identifier: MIT
/*
 * llmem_stream_copy(): every store width the CPU has lands the bytes memcpy would,
 * for destinations at each offset within a cache line and sizes around the
 * line and the 16-byte store, and touches nothing around them; the copy
 * pool's streaming copy does the same with its workers taking slices.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy_pool.h"
#include "deadline.h"
#include "kselftest_harness.h"
#include "pattern.h"
#include "base/stream_copy.h"

#define ROOM (2u << 20)
#define GUARD 0x5a

static const size_t sizes[] = { 0,   1,	   15,	 16,   17,
				63,  64,   65,	 127,  128,
				129, 4095, 4096, 4097, (1u << 20) + 13 };

FIXTURE(stream)
{
	uint8_t *src, *dst;
};

FIXTURE_SETUP(stream)
{
	self->src = aligned_alloc(64, ROOM + 128);
	self->dst = aligned_alloc(64, ROOM + 128);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	test_pattern(self->src, ROOM + 128, 11);
}

FIXTURE_TEARDOWN(stream)
{
	free(self->src);
	free(self->dst);
}

static int copied_alone(const uint8_t *dst, const uint8_t *src, size_t off, size_t n)
{
	if (memcmp(dst + off, src, n))
		return 0;
	for (size_t k = 0; k < off; k++)
		if (dst[k] != GUARD)
			return 0;
	for (size_t k = off + n; k < off + n + 64; k++)
		if (dst[k] != GUARD)
			return 0;
	return 1;
}

TEST_F(stream, every_width_offset_and_size)
{
	static const unsigned int widths[] = { 16, 64 };
	unsigned int widest = llmem_stream_copy_widest();

	if (widest == 0)
		SKIP(return, "no streaming stores on this CPU: llmem_stream_copy() is memcpy");
	for (size_t w = 0; w < 2 && widths[w] <= widest; w++) {
		for (size_t off = 0; off < 64; off++) {
			for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
				/* The source misaligned by another amount than the
				 * destination. */
				const uint8_t *src = self->src + (off * 7 + 3) % 64;

				memset(self->dst, GUARD, ROOM + 128);
				llmem_stream_copy_width(self->dst + off, src, sizes[i], widths[w]);
				ASSERT_TRUE(copied_alone(self->dst, src, off, sizes[i]))
				{
					TH_LOG("width %u, offset %zu, %zu bytes", widths[w], off,
					       sizes[i]);
				}
			}
		}
	}
}

TEST_F(stream, default_width_large_copy)
{
	size_t before = llmem_stream_copy_streamed();

	memset(self->dst, GUARD, ROOM + 128);
	llmem_stream_copy(self->dst + 5, self->src + 9, ROOM);
	ASSERT_TRUE(copied_alone(self->dst, self->src + 9, 5, ROOM));
	/* All but the unaligned ends went through streaming stores. */
	if (llmem_stream_copy_widest())
		ASSERT_GE(llmem_stream_copy_streamed() - before, ROOM - 128);
}

TEST_F(stream, pool_workers_stream_slices)
{
	uint64_t end = test_deadline(30);
	size_t before;

	/* The machine may have too few cores for a pool of its own. */
	setenv("LLMEM_COPY_THREADS", "4", 1);
	ASSERT_EQ(3, llmem_copy_pool_workers());
	before = llmem_copy_pool_helped();
	while (llmem_copy_pool_helped() == before && test_before(end)) {
		memset(self->dst, GUARD, ROOM + 128);
		llmem_copy_pool_stream(self->dst + 1, self->src + 2, ROOM - 7);
		ASSERT_TRUE(copied_alone(self->dst, self->src + 2, 1, ROOM - 7));
	}
	ASSERT_GT(llmem_copy_pool_helped(), before);
}

TEST_HARNESS_MAIN
