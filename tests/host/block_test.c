// SPDX-License-Identifier: MIT
/*
 * One page: placement, alignment, bufferImageGranularity, coalescing,
 * statistics and every bad argument; a map over several pages: best fit
 * across them, the lowest index among equals, attach and detach.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/block.h"
#include "kselftest_harness.h"

FIXTURE(block)
{
	struct llmem_block *b;
};

FIXTURE_SETUP(block)
{
	ASSERT_EQ(llmem_block_create(1 << 20, 1024, &self->b), 0);
}

FIXTURE_TEARDOWN(block)
{
	llmem_block_destroy(self->b);
}

/* Bad sizes and granularities are refused at creation. */
TEST(create_bad_arguments)
{
	struct llmem_block *b = NULL;

	ASSERT_EQ(llmem_block_create(0, 1, &b), -EINVAL);
	ASSERT_EQ(llmem_block_create(4096, 3, &b), -EINVAL);
	ASSERT_EQ(llmem_block_create(4096, 1, NULL), -EINVAL);
	ASSERT_EQ(b, NULL);
	llmem_block_destroy(NULL);
}

/* Zero size, non-power-of-two alignment, unknown kinds and NULLs are refused. */
TEST_F(block, alloc_bad_arguments)
{
	struct llmem_block_range r;
	uint64_t h;

	ASSERT_EQ(llmem_block_alloc(self->b, 0, 1, LLMEM_BLOCK_LINEAR, &r, &h), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 16, 3, LLMEM_BLOCK_LINEAR, &r, &h), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 16, 1, 0, &r, &h), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 16, 1, 3, &r, &h), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 16, 1, LLMEM_BLOCK_LINEAR, NULL, &h), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 16, 1, LLMEM_BLOCK_LINEAR, &r, NULL), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(NULL, 16, 1, LLMEM_BLOCK_LINEAR, &r, &h), -EINVAL);
	ASSERT_EQ(llmem_block_objects(self->b), 0);
}

/* Handles that name no live object are refused, double frees included. */
TEST_F(block, free_bad_handles)
{
	struct llmem_block_range r;
	uint64_t h;

	ASSERT_EQ(llmem_block_free(self->b, 0), -EINVAL);
	ASSERT_EQ(llmem_block_free(self->b, 1), -EINVAL); /* the free range */
	ASSERT_EQ(llmem_block_free(self->b, 123456), -EINVAL);
	ASSERT_EQ(llmem_block_alloc(self->b, 64, 1, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(llmem_block_free(self->b, h), 0);
	ASSERT_EQ(llmem_block_free(self->b, h), -EINVAL);
	ASSERT_EQ(llmem_block_get(self->b, h, &r), -EINVAL);
}

/* Objects start at their alignment; the gap in front is their left padding. */
TEST_F(block, alignment_and_padding)
{
	struct llmem_block_range r, g;
	uint64_t h;

	ASSERT_EQ(llmem_block_alloc(self->b, 100, 1, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(r.offset, 0);
	ASSERT_EQ(r.left_padding, 0);
	ASSERT_EQ(llmem_block_alloc(self->b, 10, 256, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(r.offset, 256);
	ASSERT_EQ(r.left_padding, 156);
	ASSERT_EQ(r.size, 10);
	ASSERT_EQ(llmem_block_get(self->b, h, &g), 0);
	ASSERT_EQ(memcmp(&r, &g, sizeof(r)), 0);
}

/* Padding of a large alignment returns to the free lists instead. */
TEST_F(block, large_padding_is_split)
{
	struct llmem_block_range r;
	struct llmem_block_stats s;
	uint64_t h;

	ASSERT_EQ(llmem_block_alloc(self->b, 100, 1, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(llmem_block_alloc(self->b, 100, 65536, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(r.offset, 65536);
	ASSERT_EQ(r.left_padding, 0);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 2);
	ASSERT_EQ(s.used_bytes, 200);
	ASSERT_EQ(s.largest_free, (1 << 20) - 65636);
}

/* A linear and an optimal object never share a granularity slot. */
TEST_F(block, granularity_at_start)
{
	struct llmem_block_range r;
	uint64_t h;

	ASSERT_EQ(llmem_block_alloc(self->b, 100, 1, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(llmem_block_alloc(self->b, 100, 4, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(r.offset, 100);
	ASSERT_EQ(llmem_block_alloc(self->b, 100, 4, LLMEM_BLOCK_OPTIMAL, &r, &h), 0);
	ASSERT_EQ(r.offset, 1024);
	ASSERT_EQ(r.left_padding, 824);
	ASSERT_EQ(llmem_block_alloc(self->b, 100, 4, LLMEM_BLOCK_OPTIMAL, &r, &h), 0);
	ASSERT_EQ(r.offset, 1124);
	ASSERT_EQ(llmem_block_alloc(self->b, 8, 8, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(r.offset, 2048);
}

/* An object may not end in the slot where a neighbour of the other kind starts. */
TEST(granularity_at_end)
{
	struct llmem_block *b;
	struct llmem_block_range r;
	uint64_t x, y, z;

	ASSERT_EQ(llmem_block_create(4096, 1024, &b), 0);
	ASSERT_EQ(llmem_block_alloc(b, 2500, 1, LLMEM_BLOCK_OPTIMAL, &r, &x), 0);
	ASSERT_EQ(llmem_block_alloc(b, 1596, 1, LLMEM_BLOCK_OPTIMAL, &r, &y), 0);
	ASSERT_EQ(r.offset, 2500);
	ASSERT_EQ(llmem_block_free(b, x), 0);
	ASSERT_EQ(llmem_block_alloc(b, 2400, 1, LLMEM_BLOCK_LINEAR, &r, &z), -ENOMEM);
	ASSERT_EQ(llmem_block_alloc(b, 2400, 1, LLMEM_BLOCK_OPTIMAL, &r, &z), 0);
	ASSERT_EQ(llmem_block_free(b, z), 0);
	ASSERT_EQ(llmem_block_alloc(b, 2048, 1, LLMEM_BLOCK_LINEAR, &r, &z), 0);
	ASSERT_EQ(r.offset, 0);
	llmem_block_destroy(b);
}

/* An object of exactly the page size fits an empty page, and nothing after it. */
TEST(exact_fit)
{
	struct llmem_block *b;
	struct llmem_block_range r;
	uint64_t h, h2;

	ASSERT_EQ(llmem_block_create(32 << 20, 1024, &b), 0);
	ASSERT_EQ(llmem_block_alloc(b, (32 << 20) + 1, 1, LLMEM_BLOCK_LINEAR, &r, &h), -ENOMEM);
	ASSERT_EQ(llmem_block_alloc(b, 32 << 20, 4096, LLMEM_BLOCK_OPTIMAL, &r, &h), 0);
	ASSERT_EQ(r.offset, 0);
	ASSERT_EQ(llmem_block_free_hint(b), 0);
	ASSERT_EQ(llmem_block_alloc(b, 1, 1, LLMEM_BLOCK_LINEAR, &r, &h2), -ENOMEM);
	ASSERT_EQ(llmem_block_free(b, h), 0);
	ASSERT_EQ(llmem_block_free_hint(b), 32 << 20);
	llmem_block_destroy(b);
}

/* Freeing merges with free neighbours on both sides at once. */
TEST_F(block, coalescing)
{
	struct llmem_block_range r;
	struct llmem_block_stats s;
	uint64_t h[4];

	for (int i = 0; i < 4; i++)
		ASSERT_EQ(llmem_block_alloc(self->b, 1000, 8, LLMEM_BLOCK_LINEAR, &r, &h[i]), 0);
	ASSERT_EQ(llmem_block_free(self->b, h[1]), 0);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 2);
	ASSERT_EQ(s.allocations, 3);
	ASSERT_EQ(llmem_block_free(self->b, h[2]), 0);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 2);
	ASSERT_EQ(llmem_block_free(self->b, h[0]), 0);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 2);
	ASSERT_EQ(s.used_bytes, 1000);
	ASSERT_EQ(llmem_block_free(self->b, h[3]), 0);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 1);
	ASSERT_EQ(s.largest_free, 1 << 20);
	ASSERT_EQ(s.free_bytes, 1 << 20);
	ASSERT_EQ(s.allocations, 0);
	ASSERT_EQ(llmem_block_objects(self->b), 0);
}

/* Statistics add up and the JSON dump names every range in address order. */
TEST_F(block, stats_and_json)
{
	struct llmem_block_range r;
	struct llmem_block_stats s;
	char *buf = NULL;
	size_t len = 0;
	uint64_t h;
	FILE *f;

	ASSERT_EQ(llmem_block_alloc(self->b, 100, 1, LLMEM_BLOCK_LINEAR, &r, &h), 0);
	ASSERT_EQ(llmem_block_alloc(self->b, 300, 512, LLMEM_BLOCK_OPTIMAL, &r, &h), 0);
	ASSERT_EQ(r.offset, 1024);
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.size, 1 << 20);
	ASSERT_EQ(s.used_bytes, 1324);
	ASSERT_EQ(s.free_bytes, (1 << 20) - 1324);
	ASSERT_EQ(s.free_ranges, 1);
	ASSERT_EQ(s.largest_free, (1 << 20) - 1324);
	ASSERT_EQ(s.allocations, 2);

	f = open_memstream(&buf, &len);
	ASSERT_NE(f, NULL);
	ASSERT_EQ(llmem_block_dump_json(self->b, f), 0);
	fclose(f);
	ASSERT_NE(strstr(buf, "{\"offset\": 0, \"size\": 100, \"free\": false, "
			      "\"left_padding\": 0, \"kind\": \"linear\"}, {\"offset\": 1024, "
			      "\"size\": 300, \"free\": false, \"left_padding\": 924, "
			      "\"kind\": \"optimal\"}, {\"offset\": 1324, "),
		  NULL);
	free(buf);
}

/* Freed nodes are reused, so a long alloc/free cycle keeps the page whole. */
TEST_F(block, reuse)
{
	struct llmem_block_range r;
	struct llmem_block_stats s;
	uint64_t h;

	for (int i = 0; i < 100000; i++) {
		ASSERT_EQ(
			llmem_block_alloc(self->b, 1 + i % 5000, 1u << (i % 13), 1 + i % 2, &r, &h),
			0);
		ASSERT_EQ(llmem_block_free(self->b, h), 0);
	}
	llmem_block_stats(self->b, &s);
	ASSERT_EQ(s.free_ranges, 1);
	ASSERT_EQ(s.allocations, 0);
}

/* A 1 MiB block whose one free range is @hole bytes at offset 0. */
static struct llmem_block *holed(uint64_t hole)
{
	struct llmem_block_range r;
	struct llmem_block *b;
	uint64_t h, rest;

	if (llmem_block_create(1 << 20, 1, &b))
		return NULL;
	if (hole == 1 << 20)
		return b;
	if (llmem_block_alloc(b, hole, 1, LLMEM_BLOCK_LINEAR, &r, &h) ||
	    llmem_block_alloc(b, (1 << 20) - hole, 1, LLMEM_BLOCK_LINEAR, &r, &rest) ||
	    llmem_block_free(b, h)) {
		llmem_block_destroy(b);
		return NULL;
	}
	return b;
}

/* The map picks the block with the tightest class that fits, whatever its index. */
TEST(map_best_fit)
{
	struct llmem_block *b[3] = { holed(64 << 10), holed(16 << 10), holed(1 << 20) };
	struct llmem_block_range r;
	struct llmem_block_map *m;
	uint32_t index;
	uint64_t h;

	ASSERT_EQ(llmem_block_map_create(1, &m), 0);
	for (uint32_t i = 0; i < 3; i++) {
		ASSERT_NE(b[i], NULL);
		ASSERT_EQ(llmem_block_attach(b[i], m, i), 0);
	}
	ASSERT_EQ(llmem_block_map_alloc(m, 10 << 10, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), 0);
	ASSERT_EQ(index, 1);
	ASSERT_EQ(r.offset, 0);
	ASSERT_EQ(llmem_block_map_alloc(m, 20 << 10, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), 0);
	ASSERT_EQ(index, 0);
	ASSERT_EQ(llmem_block_map_alloc(m, 100 << 10, 4096, LLMEM_BLOCK_OPTIMAL, &index, &r, &h),
		  0);
	ASSERT_EQ(index, 2);
	/* Block 1 has 6 KiB left, block 0 44 KiB: the smaller range serves. */
	ASSERT_EQ(llmem_block_map_alloc(m, 5 << 10, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), 0);
	ASSERT_EQ(index, 1);
	ASSERT_EQ(r.offset, 10 << 10);
	ASSERT_EQ(llmem_block_map_alloc(m, 1 << 20, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h),
		  -ENOMEM);
	for (uint32_t i = 0; i < 3; i++)
		llmem_block_destroy(b[i]);
	/* Destroyed blocks left the map. */
	ASSERT_EQ(llmem_block_map_alloc(m, 1, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), -ENOMEM);
	llmem_block_map_destroy(m);
}

/* Among blocks of the same class the lowest index serves, past 64 indices too. */
TEST(map_lowest_index)
{
	static const uint32_t indices[] = { 130, 70, 3 };
	struct llmem_block *b[3];
	struct llmem_block_range r;
	struct llmem_block_map *m;
	uint32_t index;
	uint64_t h;

	ASSERT_EQ(llmem_block_map_create(1, &m), 0);
	for (int i = 0; i < 3; i++) {
		b[i] = holed(32 << 10);
		ASSERT_NE(b[i], NULL);
		ASSERT_EQ(llmem_block_attach(b[i], m, indices[i]), 0);
	}
	for (int i = 2; i >= 0; i--) {
		ASSERT_EQ(llmem_block_map_alloc(m, 32 << 10, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h),
			  0);
		ASSERT_EQ(index, indices[i]);
	}
	ASSERT_EQ(llmem_block_map_alloc(m, 1, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), -ENOMEM);
	/* A freed range marks its block again; a detached block is not chosen. */
	ASSERT_EQ(llmem_block_free(b[0], h), 0);
	llmem_block_detach(b[0]);
	ASSERT_EQ(llmem_block_map_alloc(m, 1, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), -ENOMEM);
	ASSERT_EQ(llmem_block_attach(b[0], m, 200), 0);
	ASSERT_EQ(llmem_block_map_alloc(m, 1, 1, LLMEM_BLOCK_LINEAR, &index, &r, &h), 0);
	ASSERT_EQ(index, 200);
	/* The map may go first: its blocks only leave it. */
	llmem_block_map_destroy(m);
	for (int i = 0; i < 3; i++)
		llmem_block_destroy(b[i]);
}

/* A block enters one map once, at a free index, with the map's granularity. */
TEST(map_attach_bad_arguments)
{
	struct llmem_block *b, *c, *d;
	struct llmem_block_map *m;

	ASSERT_EQ(llmem_block_map_create(3, &m), -EINVAL);
	ASSERT_EQ(llmem_block_map_create(1, NULL), -EINVAL);
	ASSERT_EQ(llmem_block_map_create(1024, &m), 0);
	ASSERT_EQ(llmem_block_create(4096, 1024, &b), 0);
	ASSERT_EQ(llmem_block_create(4096, 1024, &c), 0);
	ASSERT_EQ(llmem_block_create(4096, 256, &d), 0);
	ASSERT_EQ(llmem_block_attach(b, m, 5), 0);
	ASSERT_EQ(llmem_block_attach(b, m, 6), -EINVAL);
	ASSERT_EQ(llmem_block_attach(c, m, 5), -EINVAL);
	ASSERT_EQ(llmem_block_attach(d, m, 6), -EINVAL);
	ASSERT_EQ(llmem_block_attach(NULL, m, 6), -EINVAL);
	ASSERT_EQ(llmem_block_attach(c, NULL, 6), -EINVAL);
	ASSERT_EQ(llmem_block_attach(c, m, UINT32_MAX), -EINVAL);
	llmem_block_detach(NULL);
	llmem_block_detach(d);
	llmem_block_destroy(b);
	ASSERT_EQ(llmem_block_attach(c, m, 5), 0);
	llmem_block_destroy(c);
	llmem_block_destroy(d);
	llmem_block_map_destroy(m);
	llmem_block_map_destroy(NULL);
}

TEST_HARNESS_MAIN
