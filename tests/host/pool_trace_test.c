// SPDX-License-Identifier: MIT
/*
 * The standard trace of design.md through the pool packs into the pages
 * docs/allocator.md quotes: a count of pages, not a timing, so a change of
 * policy that packs worse fails here.
 */
#include <errno.h>
#include <stdlib.h>

#include "alloc_trace.h"
#include "kselftest_harness.h"
#include <llmem/pool.h>

struct count {
	uint32_t pages, peak;
};

static int page_create(void *user, uint32_t index, uint64_t size)
{
	struct count *c = user;

	if (++c->pages > c->peak)
		c->peak = c->pages;
	return 0;
}

static void page_destroy(void *user, uint32_t index)
{
	struct count *c = user;

	c->pages--;
}

/* The most pages alive at once over @ops operations, or 0 on a failure. */
static uint32_t peak_pages(size_t ops, uint64_t granularity)
{
	struct count c = { 0 };
	struct llmem_pool_create_info ci = {
		.granularity = granularity,
		.page_create = page_create,
		.page_destroy = page_destroy,
		.user = &c,
	};
	struct llmem_pool_alloc_info info;
	struct llmem_pool *pool;
	struct alloc_trace t;
	uint64_t *handles;
	int ret = 0;

	if (alloc_trace_generate(ALLOC_TRACE_SEED, ops, &t))
		return 0;
	handles = calloc(t.objects, sizeof(*handles));
	if (!handles || llmem_pool_create(&ci, &pool)) {
		free(handles);
		alloc_trace_release(&t);
		return 0;
	}
	for (size_t i = 0; i < t.count && !ret; i++) {
		const struct alloc_trace_op *op = &t.ops[i];

		if (op->free)
			ret = llmem_pool_free(pool, handles[op->id]);
		else
			ret = llmem_pool_alloc(pool, op->size, op->align,
					       op->image ? LLMEM_BLOCK_OPTIMAL : LLMEM_BLOCK_LINEAR,
					       &info, &handles[op->id]);
	}
	llmem_pool_destroy(pool);
	free(handles);
	alloc_trace_release(&t);
	return ret || c.pages ? 0 : c.peak;
}

/* Issue 23's bound at 100,000 operations: 38 pages (946 MiB live at most). */
TEST(peak_100k)
{
	uint32_t g1 = peak_pages(100000, 1), g1024 = peak_pages(100000, 1024);

	TH_LOG("granularity 1: %u pages, 1024: %u pages", g1, g1024);
	ASSERT_GT(g1, 29);
	ASSERT_LE(g1, 38);
	ASSERT_GT(g1024, 29);
	ASSERT_LE(g1024, 38);
}

/* And at 1,000,000 operations: 77 pages (1939 MiB live at most). */
TEST(peak_1m)
{
	uint32_t g1 = peak_pages(1000000, 1), g1024 = peak_pages(1000000, 1024);

	TH_LOG("granularity 1: %u pages, 1024: %u pages", g1, g1024);
	ASSERT_GT(g1, 60);
	ASSERT_LE(g1, 77);
	ASSERT_GT(g1024, 60);
	ASSERT_LE(g1024, 77);
}

TEST_HARNESS_MAIN
