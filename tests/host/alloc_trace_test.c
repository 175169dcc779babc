// SPDX-License-Identifier: MIT
/* The trace generator reproduces the standard workload of design.md. */
#include <errno.h>

#include "alloc_trace.h"
#include "kselftest_harness.h"

/* 100,000 operations give the checksum design.md prints. */
TEST(checksum_100k)
{
	struct alloc_trace t;

	ASSERT_EQ(alloc_trace_generate(ALLOC_TRACE_SEED, 100000, &t), 0);
	ASSERT_EQ(t.checksum, 0x188c3693395e79a6ull);
	ASSERT_EQ(t.count, 100000);
	alloc_trace_release(&t);
}

/* 1,000,000 operations give the second checksum of design.md. */
TEST(checksum_1m)
{
	struct alloc_trace t;

	ASSERT_EQ(alloc_trace_generate(ALLOC_TRACE_SEED, 1000000, &t), 0);
	ASSERT_EQ(t.checksum, 0x67f6d7a7476cd505ull);
	alloc_trace_release(&t);
}

/* The first 2000 operations allocate; sizes, kinds and alignments follow the rules. */
TEST(shape)
{
	struct alloc_trace t;
	size_t images = 0, allocs = 0;

	ASSERT_EQ(alloc_trace_generate(ALLOC_TRACE_SEED, 100000, &t), 0);
	for (size_t i = 0; i < t.count; i++) {
		const struct alloc_trace_op *op = &t.ops[i];

		if (i < ALLOC_TRACE_LIVE_MIN)
			ASSERT_EQ(op->free, 0);
		if (op->free)
			continue;
		allocs++;
		ASSERT_GE(op->size, 256);
		ASSERT_LE(op->size, 4194304);
		if (op->image) {
			images++;
			ASSERT_EQ(op->align, 4096);
			ASSERT_EQ(op->size % 4096, 0);
		} else {
			ASSERT_EQ(op->align, 256);
		}
	}
	ASSERT_EQ(allocs, t.objects);
	/* 30% images, within a wide margin. */
	ASSERT_GT(images * 100, allocs * 27);
	ASSERT_LT(images * 100, allocs * 33);
	alloc_trace_release(&t);
}

TEST_HARNESS_MAIN
