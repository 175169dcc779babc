// SPDX-License-Identifier: MIT
/*
 * bench alloc's virtual pool: the trace through llmem_pool_alloc() and
 * llmem_pool_free() alone, pages counted but never backed, so that the
 * figure is the sub-allocator's own bookkeeping.
 */
#include <stdio.h>
#include <string.h>

#include "bench_alloc_rounds.h"

static int count_page_create(void *user, uint32_t index, uint64_t size)
{
	struct alloc_bench *b = user;

	(void)index;
	(void)size;
	if (++b->pages > b->peak_pages)
		b->peak_pages = b->pages;
	return 0;
}

static void count_page_destroy(void *user, uint32_t index)
{
	struct alloc_bench *b = user;

	(void)index;
	b->pages--;
}

int bench_alloc_virtual(struct alloc_bench *b, size_t ops, int timed, struct figures *f)
{
	struct llmem_pool_create_info ci = {
		.granularity = b->granularity,
		.page_create = count_page_create,
		.page_destroy = count_page_destroy,
		.user = b,
	};
	struct llmem_pool_alloc_info info;
	struct llmem_pool *pool;
	struct tally t;
	int ret;

	b->pages = b->peak_pages = 0;
	ret = llmem_pool_create(&ci, &pool);
	if (ret)
		return ret;
	tally_start(&t);
	for (size_t i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &b->trace->ops[i];
		uint64_t t0 = timed ? timing_ns(CLOCK_MONOTONIC) : 0;

		if (op->free) {
			ret = llmem_pool_free(pool, b->handles[op->id]);
		} else {
			ret = llmem_pool_alloc(pool, op->size, op->align,
					       op->image ? LLMEM_BLOCK_OPTIMAL : LLMEM_BLOCK_LINEAR,
					       &info, &b->handles[op->id]);
		}
		if (!tally_step(&t, timed, ret, op->free, t0))
			break;
		if (timed && i == b->peak_op) {
			struct llmem_pool_stats s;

			llmem_pool_stats(pool, &s);
			b->fragmentation =
				s.free_bytes ? 1.0 - (double)s.largest_free / (double)s.free_bytes
					     : 0;
		}
	}
	tally_finish(&t, b, ops, f);
	llmem_pool_destroy(pool);
	if (ret)
		fprintf(stderr, "llmem bench alloc: virtual pool: %s\n", strerror(-ret));
	return ret;
}
