// SPDX-License-Identifier: MIT
/*
 * Many pages: lazy creation, the page an object goes to, dedicated and kept
 * pages, the spare-page policy, index reuse, errors from the page callbacks,
 * statistics and bad arguments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <llmem/pool.h>

struct backing {
	int live[64];
	uint64_t size[64];
	int creates, destroys;
	int fail; /* page_create returns this when non-zero */
};

static int page_create(void *user, uint32_t index, uint64_t size)
{
	struct backing *bk = user;

	if (bk->fail)
		return bk->fail;
	if (index >= 64 || bk->live[index])
		return -EBADSLT;
	bk->live[index] = 1;
	bk->size[index] = size;
	bk->creates++;
	return 0;
}

static void page_destroy(void *user, uint32_t index)
{
	struct backing *bk = user;

	if (index < 64)
		bk->live[index] = 0;
	bk->destroys++;
}

FIXTURE(pool)
{
	struct backing bk;
	struct llmem_pool *pool;
};

FIXTURE_SETUP(pool)
{
	struct llmem_pool_create_info ci = {
		.page_size = 4096,
		.granularity = 256,
		.page_create = page_create,
		.page_destroy = page_destroy,
		.user = &self->bk,
	};

	memset(&self->bk, 0, sizeof(self->bk));
	ASSERT_EQ(llmem_pool_create(&ci, &self->pool), 0);
}

FIXTURE_TEARDOWN(pool)
{
	llmem_pool_destroy(self->pool);
	ASSERT_EQ(self->bk.creates, self->bk.destroys);
}

/* NULLs and a granularity that is not a power of two are refused. */
TEST(create_bad_arguments)
{
	struct llmem_pool_create_info ci = { .granularity = 768 };
	struct llmem_pool *pool = NULL;

	ASSERT_EQ(llmem_pool_create(&ci, &pool), -EINVAL);
	ASSERT_EQ(llmem_pool_create(NULL, &pool), -EINVAL);
	ci.granularity = 0;
	ASSERT_EQ(llmem_pool_create(&ci, NULL), -EINVAL);
	ASSERT_EQ(pool, NULL);
	llmem_pool_destroy(NULL);
}

/* The zero create-info gives 32 MiB pages made lazily, the first at index 0. */
TEST(defaults)
{
	struct llmem_pool_create_info ci = { 0 };
	struct llmem_pool_alloc_info info;
	struct backing bk = { 0 };
	struct llmem_pool *pool;
	uint64_t h;

	ci.page_create = page_create;
	ci.page_destroy = page_destroy;
	ci.user = &bk;
	ASSERT_EQ(llmem_pool_create(&ci, &pool), 0);
	ASSERT_EQ(bk.creates, 0);
	ASSERT_EQ(llmem_pool_alloc(pool, 1000, 256, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(bk.creates, 1);
	ASSERT_EQ(bk.size[0], 32 << 20);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 0);
	ASSERT_EQ(info.size, 1000);
	/* The one spare page stays. */
	ASSERT_EQ(llmem_pool_free(pool, h), 0);
	ASSERT_EQ(bk.destroys, 0);
	llmem_pool_destroy(pool);
	ASSERT_EQ(bk.destroys, 1);
}

/* Zero size, bad alignment or kind, NULLs and stale handles are refused. */
TEST_F(pool, bad_arguments)
{
	struct llmem_pool_alloc_info info;
	uint64_t h;

	ASSERT_EQ(llmem_pool_alloc(self->pool, 0, 1, LLMEM_BLOCK_LINEAR, &info, &h), -EINVAL);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 8, 6, LLMEM_BLOCK_LINEAR, &info, &h), -EINVAL);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 8, 1, 7, &info, &h), -EINVAL);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 8, 1, LLMEM_BLOCK_LINEAR, NULL, &h), -EINVAL);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 8, 1, LLMEM_BLOCK_LINEAR, &info, NULL), -EINVAL);
	ASSERT_EQ(llmem_pool_free(self->pool, 0), -EINVAL);
	ASSERT_EQ(llmem_pool_free(self->pool, 1ull << 32 | 2), -EINVAL);
	ASSERT_EQ(llmem_pool_free(NULL, 1ull << 32 | 2), -EINVAL);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 8, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(llmem_pool_free(self->pool, h), 0);
	ASSERT_EQ(llmem_pool_free(self->pool, h), -EINVAL);
	ASSERT_EQ(llmem_pool_get(self->pool, h, &info), -EINVAL);
	ASSERT_EQ(llmem_pool_free(self->pool, h + (5ull << 32)), -EINVAL);
	ASSERT_EQ(self->bk.creates, 1);
}

/* A page is made only when no page has room; objects stay inside it. */
TEST_F(pool, pages_on_demand)
{
	struct llmem_pool_alloc_info info, got;
	uint64_t h[3];

	ASSERT_EQ(llmem_pool_alloc(self->pool, 3000, 1, LLMEM_BLOCK_LINEAR, &info, &h[0]), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 1000, 8, LLMEM_BLOCK_LINEAR, &info, &h[1]), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 3000);
	ASSERT_EQ(self->bk.creates, 1);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 1000, 8, LLMEM_BLOCK_LINEAR, &info, &h[2]), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(info.offset, 0);
	ASSERT_EQ(self->bk.creates, 2);
	ASSERT_EQ(llmem_pool_get(self->pool, h[1], &got), 0);
	ASSERT_EQ(got.page, 0);
	ASSERT_EQ(got.offset, 3000);
	ASSERT_EQ(got.size, 1000);
}

/* An object larger than a page gets a page of its exact size, gone with it. */
TEST_F(pool, dedicated_page)
{
	struct llmem_pool_alloc_info info;
	struct llmem_pool_stats s;
	uint64_t h;

	ASSERT_EQ(llmem_pool_alloc(self->pool, 10000, 4096, LLMEM_BLOCK_OPTIMAL, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 0);
	ASSERT_EQ(self->bk.size[0], 10000);
	llmem_pool_stats(self->pool, &s);
	ASSERT_EQ(s.pages, 1);
	ASSERT_EQ(s.dedicated_pages, 1);
	ASSERT_EQ(s.bytes, 10000);
	ASSERT_EQ(s.free_bytes, 0);
	ASSERT_EQ(llmem_pool_free(self->pool, h), 0);
	ASSERT_EQ(self->bk.destroys, 1);
	ASSERT_EQ(llmem_pool_page_limit(self->pool), 0);
}

/* Empty pages are released except one spare. */
TEST_F(pool, one_spare_page)
{
	struct llmem_pool_alloc_info info;
	uint64_t h[3];

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(llmem_pool_alloc(self->pool, 4096, 1, LLMEM_BLOCK_LINEAR, &info, &h[i]),
			  0);
	ASSERT_EQ(self->bk.creates, 3);
	ASSERT_EQ(llmem_pool_free(self->pool, h[0]), 0);
	ASSERT_EQ(self->bk.destroys, 0);
	ASSERT_EQ(llmem_pool_free(self->pool, h[1]), 0);
	ASSERT_EQ(self->bk.destroys, 1);
	ASSERT_EQ(self->bk.live[1], 0);
	/* The spare page is used again before any new one is made. */
	ASSERT_EQ(llmem_pool_alloc(self->pool, 4096, 1, LLMEM_BLOCK_LINEAR, &info, &h[0]), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(self->bk.creates, 3);
	/* The lowest free index is reused. */
	ASSERT_EQ(llmem_pool_alloc(self->pool, 4096, 1, LLMEM_BLOCK_LINEAR, &info, &h[1]), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(self->bk.creates, 4);
}

/* LLMEM_POOL_SPARE_NONE releases every page the moment it empties. */
TEST(no_spare_page)
{
	struct backing bk = { 0 };
	struct llmem_pool_create_info ci = {
		.page_size = 4096,
		.spare_pages = LLMEM_POOL_SPARE_NONE,
		.page_create = page_create,
		.page_destroy = page_destroy,
		.user = &bk,
	};
	struct llmem_pool_alloc_info info;
	struct llmem_pool *pool;
	uint64_t h;

	ASSERT_EQ(llmem_pool_create(&ci, &pool), 0);
	ASSERT_EQ(llmem_pool_alloc(pool, 100, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(llmem_pool_free(pool, h), 0);
	ASSERT_EQ(bk.destroys, 1);
	llmem_pool_destroy(pool);
	ASSERT_EQ(bk.destroys, 1);
}

/* page_create's error reaches the caller and leaves no page behind. */
TEST_F(pool, page_create_error)
{
	struct llmem_pool_alloc_info info;
	struct llmem_pool_stats s;
	uint64_t h;

	self->bk.fail = -ENOSPC;
	ASSERT_EQ(llmem_pool_alloc(self->pool, 100, 1, LLMEM_BLOCK_LINEAR, &info, &h), -ENOSPC);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 9000, 1, LLMEM_BLOCK_LINEAR, &info, &h), -ENOSPC);
	llmem_pool_stats(self->pool, &s);
	ASSERT_EQ(s.pages, 0);
	self->bk.fail = 0;
	ASSERT_EQ(llmem_pool_alloc(self->pool, 100, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
}

/* Totals add the pages; a dead index has no stats; the dump lists each page. */
TEST_F(pool, stats_and_json)
{
	struct llmem_pool_alloc_info info;
	struct llmem_block_stats bs;
	struct llmem_pool_stats s;
	char *buf = NULL;
	size_t len = 0;
	uint64_t h;
	FILE *f;

	ASSERT_EQ(llmem_pool_alloc(self->pool, 3000, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 2000, 1, LLMEM_BLOCK_OPTIMAL, &info, &h), 0);
	ASSERT_EQ(info.page, 1);
	llmem_pool_stats(self->pool, &s);
	ASSERT_EQ(s.pages, 2);
	ASSERT_EQ(s.bytes, 8192);
	ASSERT_EQ(s.used_bytes, 5000);
	ASSERT_EQ(s.free_bytes, 3192);
	ASSERT_EQ(s.free_ranges, 2);
	ASSERT_EQ(s.largest_free, 2096);
	ASSERT_EQ(s.allocations, 2);
	ASSERT_EQ(llmem_pool_page_stats(self->pool, 1, &bs), 0);
	ASSERT_EQ(bs.used_bytes, 2000);
	ASSERT_EQ(llmem_pool_page_stats(self->pool, 2, &bs), -ENOENT);

	f = open_memstream(&buf, &len);
	ASSERT_NE(f, NULL);
	ASSERT_EQ(llmem_pool_dump_json(self->pool, f), 0);
	fclose(f);
	ASSERT_NE(strstr(buf, "\"pages\": 2,"), NULL);
	ASSERT_NE(strstr(buf, "{\"index\": 1, \"dedicated\": false, \"layout\": {\"size\": 4096"),
		  NULL);
	ASSERT_NE(strstr(buf, "\"kind\": \"optimal\""), NULL);
	free(buf);
}

/*
 * An object goes to the page whose free range fits it most tightly, not to
 * the page of the previous allocation, and to the lowest index among pages
 * that fit it equally.
 */
TEST(best_fitting_page)
{
	struct backing bk = { 0 };
	struct llmem_pool_create_info ci = {
		.page_size = 1 << 20,
		.granularity = 1,
		.page_create = page_create,
		.page_destroy = page_destroy,
		.user = &bk,
	};
	struct llmem_pool_alloc_info info;
	struct llmem_pool *pool;
	uint64_t a, b, c, d, h;

	ASSERT_EQ(llmem_pool_create(&ci, &pool), 0);
	/* Page 0: a 40 KiB hole at 0; page 1, the last one used: a 100 KiB hole at 0. */
	ASSERT_EQ(llmem_pool_alloc(pool, 40 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &a), 0);
	ASSERT_EQ(llmem_pool_alloc(pool, (1 << 20) - (40 << 10), 1, LLMEM_BLOCK_LINEAR, &info, &b),
		  0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(llmem_pool_alloc(pool, 100 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &c), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(llmem_pool_alloc(pool, (1 << 20) - (100 << 10), 1, LLMEM_BLOCK_LINEAR, &info, &d),
		  0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(llmem_pool_free(pool, a), 0);
	ASSERT_EQ(llmem_pool_free(pool, c), 0);

	ASSERT_EQ(llmem_pool_alloc(pool, 30 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 0);
	/* 10 KiB left in page 0: too little for 20 KiB, which page 1 takes. */
	ASSERT_EQ(llmem_pool_alloc(pool, 20 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 1);
	/* Page 1 has 80 KiB left: 8 KiB goes to the tighter 10 KiB of page 0. */
	ASSERT_EQ(llmem_pool_alloc(pool, 8 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 30 << 10);
	ASSERT_EQ(bk.creates, 2);

	/* 2 KiB left in each page: the lower index serves first. */
	ASSERT_EQ(llmem_pool_alloc(pool, 78 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(llmem_pool_alloc(pool, 2 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(info.offset, 38 << 10);
	ASSERT_EQ(llmem_pool_alloc(pool, 2 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(info.offset, 98 << 10);
	ASSERT_EQ(bk.creates, 2);
	llmem_pool_destroy(pool);
	ASSERT_EQ(bk.creates, bk.destroys);
}

/* A kept page larger than the others takes an object too large for them. */
TEST_F(pool, kept_page_of_any_size)
{
	struct llmem_pool_alloc_info info;
	uint32_t index;
	uint64_t h;

	ASSERT_EQ(llmem_pool_add_page(self->pool, 64 << 10, &index), 0);
	ASSERT_EQ(index, 0);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 10000, 4096, LLMEM_BLOCK_OPTIMAL, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(llmem_pool_page_dedicated(self->pool, 0), 0);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 100, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 0);
	ASSERT_EQ(llmem_pool_alloc(self->pool, 60 << 10, 1, LLMEM_BLOCK_LINEAR, &info, &h), 0);
	ASSERT_EQ(info.page, 1);
	ASSERT_EQ(llmem_pool_page_dedicated(self->pool, 1), 1);
	ASSERT_EQ(self->bk.creates, 2);
}

TEST_HARNESS_MAIN
