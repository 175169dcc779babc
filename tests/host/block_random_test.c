// SPDX-License-Identifier: MIT
/*
 * A million random allocations and frees on a pool of small pages, each
 * step checked against a reference model: every page keeps its live objects
 * sorted by offset, so a new object is checked against its neighbours only
 * (no overlap, inside the page, aligned, granularity between kinds), the
 * totals are compared at every step, and a full sweep every SWEEP steps
 * recomputes each page's free ranges from the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <llmem/pool.h>

#define OPS 1000000
#define SWEEP 8192
#define PAGE_SIZE (1 << 20)
#define GRANULARITY 1024
#define MAX_PAGES 4096

struct obj {
	uint64_t handle;
	uint64_t offset, pad, size;
	uint32_t page;
	uint8_t kind;
};

struct model_page {
	int live;
	uint64_t size;
	struct obj *objs; /* sorted by offset */
	uint32_t count, cap;
};

struct model {
	struct model_page pages[MAX_PAGES];
	struct obj *live; /* in no order, for picking one to free */
	uint32_t nlive;
	uint64_t used, bytes;
	uint32_t npages;
	int errors;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int page_create(void *user, uint32_t index, uint64_t size)
{
	struct model *m = user;

	if (index >= MAX_PAGES || m->pages[index].live) {
		m->errors++;
		return -EBADSLT;
	}
	m->pages[index].live = 1;
	m->pages[index].size = size;
	m->bytes += size;
	m->npages++;
	return 0;
}

static void page_destroy(void *user, uint32_t index)
{
	struct model *m = user;

	if (index >= MAX_PAGES || !m->pages[index].live || m->pages[index].count)
		m->errors++;
	m->pages[index].live = 0;
	m->bytes -= m->pages[index].size;
	m->npages--;
}

/* Index of the first object of @p at or after @offset. */
static uint32_t lower_bound(const struct model_page *p, uint64_t offset)
{
	uint32_t lo = 0, hi = p->count;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (p->objs[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int slot_shared(const struct obj *a, const struct obj *b)
{
	return a->kind != b->kind &&
	       (a->offset + a->size - 1) / GRANULARITY == b->offset / GRANULARITY;
}

/* A new object: where it lies, against its neighbours in the page. */
static int check_new(struct model *m, const struct obj *o, uint64_t alignment)
{
	struct model_page *p = &m->pages[o->page];
	uint32_t at;

	if (o->page >= MAX_PAGES || !p->live)
		return 0;
	if (o->offset % alignment || o->pad > o->offset || o->offset + o->size > p->size)
		return 0;
	at = lower_bound(p, o->offset);
	if (at > 0) {
		const struct obj *prev = &p->objs[at - 1];

		if (prev->offset + prev->size > o->offset - o->pad || slot_shared(prev, o))
			return 0;
	}
	if (at < p->count) {
		const struct obj *nx = &p->objs[at];

		if (o->offset + o->size > nx->offset - nx->pad || slot_shared(o, nx))
			return 0;
	}
	if (p->count == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->objs = realloc(p->objs, p->cap * sizeof(*p->objs));
	}
	memmove(&p->objs[at + 1], &p->objs[at], (p->count - at) * sizeof(*p->objs));
	p->objs[at] = *o;
	p->count++;
	return 1;
}

static void model_remove(struct model *m, const struct obj *o)
{
	struct model_page *p = &m->pages[o->page];
	uint32_t at = lower_bound(p, o->offset);

	memmove(&p->objs[at], &p->objs[at + 1], (p->count - at - 1) * sizeof(*p->objs));
	p->count--;
}

/* Free ranges of every page recomputed from the model, and the spare rule. */
static int sweep(struct llmem_pool *pool, struct model *m)
{
	uint32_t empty = 0;

	for (uint32_t i = 0; i < MAX_PAGES; i++) {
		const struct model_page *p = &m->pages[i];
		struct llmem_block_stats s;
		uint64_t end = 0, ranges = 0, largest = 0, used = 0, gap;

		if (!p->live) {
			if (llmem_pool_page_stats(pool, i, &s) != -ENOENT)
				return 0;
			continue;
		}
		for (uint32_t j = 0; j <= p->count; j++) {
			uint64_t start =
				j < p->count ? p->objs[j].offset - p->objs[j].pad : p->size;

			if (start < end)
				return 0;
			gap = start - end;
			ranges += gap > 0;
			largest = gap > largest ? gap : largest;
			if (j < p->count) {
				end = p->objs[j].offset + p->objs[j].size;
				used += p->objs[j].pad + p->objs[j].size;
			}
		}
		if (llmem_pool_page_stats(pool, i, &s) || s.size != p->size ||
		    s.used_bytes != used || s.free_bytes != p->size - used ||
		    s.free_ranges != ranges || s.largest_free != largest ||
		    s.allocations != p->count)
			return 0;
		empty += p->count == 0;
	}
	return empty <= 1;
}

static uint64_t random_size(void)
{
	uint64_t r = next() % 1000;

	if (r == 0)
		return PAGE_SIZE + 1 + next() % PAGE_SIZE; /* dedicated */
	if (r < 5)
		return PAGE_SIZE - next() % 4096; /* nearly a page */
	return 1 + (next() % (1ull << (next() % 18)));
}

/* Every step agrees with the model: placement, totals, and each sweep. */
TEST(random_against_model)
{
	struct model *m = calloc(1, sizeof(*m));
	struct llmem_pool_create_info ci = {
		.page_size = PAGE_SIZE,
		.granularity = GRANULARITY,
		.page_create = page_create,
		.page_destroy = page_destroy,
	};
	struct llmem_pool *pool;
	uint32_t target = 200;
	long allocs = 0, frees = 0, enomem = 0;

	ASSERT_NE(m, NULL);
	m->live = calloc(OPS, sizeof(*m->live));
	ASSERT_NE(m->live, NULL);
	ci.user = m;
	ASSERT_EQ(llmem_pool_create(&ci, &pool), 0);

	for (long step = 0; step < OPS; step++) {
		struct llmem_pool_stats s;

		if (step % 100000 == 0)
			target = 1 + next() % 3000;
		if (m->nlive == 0 || (next() % 100) < (m->nlive < target ? 60u : 40u)) {
			uint64_t alignment = 1ull << (next() % 17);
			struct llmem_pool_alloc_info info;
			struct obj o;
			int ret;

			o.size = random_size();
			o.kind = 1 + next() % 2;
			ret = llmem_pool_alloc(pool, o.size, alignment, o.kind, &info, &o.handle);
			if (ret == -ENOMEM) {
				/* Only an alignment no page offset but 0 can meet. */
				enomem++;
				ASSERT_GT(alignment, PAGE_SIZE / 2);
				continue;
			}
			ASSERT_EQ(ret, 0);
			ASSERT_EQ(info.size, o.size);
			o.page = info.page;
			o.offset = info.offset;
			o.pad = info.left_padding;
			ASSERT_TRUE(check_new(m, &o, alignment))
			{
				TH_LOG("step %ld: page %u offset %llu size %llu", step, o.page,
				       (unsigned long long)o.offset, (unsigned long long)o.size);
			}
			m->live[m->nlive++] = o;
			m->used += o.pad + o.size;
			allocs++;
		} else {
			uint32_t idx = next() % m->nlive;
			struct obj o = m->live[idx];

			model_remove(m, &o);
			ASSERT_EQ(llmem_pool_free(pool, o.handle), 0);
			m->live[idx] = m->live[--m->nlive];
			m->used -= o.pad + o.size;
			frees++;
		}

		llmem_pool_stats(pool, &s);
		ASSERT_EQ(m->errors, 0);
		ASSERT_EQ(s.allocations, m->nlive);
		ASSERT_EQ(s.used_bytes, m->used);
		ASSERT_EQ(s.bytes, m->bytes);
		ASSERT_EQ(s.pages, m->npages);
		ASSERT_EQ(s.free_bytes, m->bytes - m->used);
		if (step % SWEEP == 0 || step == OPS - 1)
			ASSERT_TRUE(sweep(pool, m))
			{
				TH_LOG("sweep failed at step %ld", step);
			}
	}
	TH_LOG("%ld allocations, %ld frees, %ld refused", allocs, frees, enomem);

	llmem_pool_destroy(pool);
	ASSERT_EQ(m->npages, 0);
	for (uint32_t i = 0; i < MAX_PAGES; i++)
		free(m->pages[i].objs);
	free(m->live);
	free(m);
}

TEST_HARNESS_MAIN
