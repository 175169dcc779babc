// SPDX-License-Identifier: MIT
/*
 * Many pages, each a TLSF block, entered in one map of their classes.  An
 * allocation goes to the page with the best fitting class of all, the lowest
 * index among equals (llmem_block_map_alloc()): small holes fill up before
 * large ranges are cut, and low pages before high ones, so that the high
 * pages empty out and are released.  When no page has a class whose every
 * range fits, the first page that still has room once a few of its ranges
 * are tried takes it; then a new page.  A handle is the page index plus one
 * in the high 32 bits and the block's handle in the low 32.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <llmem/pool.h>

#include "base/block.h"
#include "base/error.h"
#include "base/pool.h"

struct page {
	struct llmem_block *block; /* NULL: the index is free */
	bool dedicated;
	bool kept; /* added by llmem_pool_add_page(): lives until the pool does */
};

struct llmem_pool {
	struct llmem_pool_create_info info;
	struct llmem_block_map *map; /* the shared and kept pages, not the dedicated ones */
	struct page *pages;
	uint32_t page_limit, page_cap;
	uint32_t empty_pages; /* shared pages kept while empty */
	uint32_t kept_pages;
};

LLMEM_PUBLIC int llmem_pool_create(const struct llmem_pool_create_info *info,
				   struct llmem_pool **out)
{
	struct llmem_pool *pool;
	uint64_t g;

	if (!info || !out)
		return llmem_error(-EINVAL, "pool: NULL argument");
	g = info->granularity ? info->granularity : 1;
	if (g & (g - 1))
		return llmem_error(-EINVAL, "pool: granularity %llu is not a power of two",
				   (unsigned long long)g);

	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return llmem_error(-ENOMEM, "pool: out of host memory");
	if (llmem_block_map_create(g, &pool->map)) {
		free(pool);
		return llmem_error(-ENOMEM, "pool: out of host memory");
	}
	pool->info = *info;
	pool->info.granularity = g;
	if (!pool->info.page_size)
		pool->info.page_size = LLMEM_POOL_DEFAULT_PAGE_SIZE;
	if (!pool->info.spare_pages)
		pool->info.spare_pages = 1;
	else if (pool->info.spare_pages == LLMEM_POOL_SPARE_NONE)
		pool->info.spare_pages = 0;
	*out = pool;
	return 0;
}

static void release_page(struct llmem_pool *pool, uint32_t index)
{
	struct page *p = &pool->pages[index];

	if (pool->info.page_destroy)
		pool->info.page_destroy(pool->info.user, index);
	llmem_block_destroy(p->block);
	p->block = NULL;
	pool->kept_pages -= p->kept;
	p->kept = false;
	while (pool->page_limit > 0 && !pool->pages[pool->page_limit - 1].block)
		pool->page_limit--;
}

LLMEM_PUBLIC void llmem_pool_destroy(struct llmem_pool *pool)
{
	if (!pool)
		return;
	for (uint32_t i = pool->page_limit; i-- > 0;)
		if (pool->pages[i].block)
			release_page(pool, i);
	llmem_block_map_destroy(pool->map);
	free(pool->pages);
	free(pool);
}

/* The lowest free index, so that indices stay small. */
static int new_page(struct llmem_pool *pool, uint64_t size, bool dedicated, uint32_t *index)
{
	struct llmem_block *block;
	uint32_t i;
	int ret;

	for (i = 0; i < pool->page_limit; i++)
		if (!pool->pages[i].block)
			break;
	if (i == pool->page_cap) {
		uint32_t cap = pool->page_cap ? pool->page_cap * 2 : 16;
		struct page *pages;

		if (pool->page_cap >= UINT32_MAX / 4)
			return llmem_error(-ENOMEM, "pool: too many pages");
		pages = realloc(pool->pages, cap * sizeof(*pages));
		if (!pages)
			return llmem_error(-ENOMEM, "pool: out of host memory");
		pool->pages = pages;
		pool->page_cap = cap;
	}

	ret = llmem_block_create(size, pool->info.granularity, &block);
	if (ret)
		return ret;
	if (!dedicated) {
		ret = llmem_block_attach(block, pool->map, i);
		if (ret) {
			llmem_block_destroy(block);
			return ret;
		}
	}
	if (pool->info.page_create) {
		ret = pool->info.page_create(pool->info.user, i, size);
		if (ret) {
			llmem_block_destroy(block);
			return ret < 0 ? ret : -EIO;
		}
	}
	pool->pages[i].block = block;
	pool->pages[i].dedicated = dedicated;
	pool->pages[i].kept = false;
	if (i == pool->page_limit)
		pool->page_limit++;
	*index = i;
	return 0;
}

LLMEM_PUBLIC int llmem_pool_add_page(struct llmem_pool *pool, uint64_t size, uint32_t *index)
{
	int ret;

	if (!pool || !index || !size)
		return llmem_error(-EINVAL, "pool_add_page: NULL argument or size 0");
	ret = new_page(pool, size, false, index);
	if (ret)
		return ret;
	pool->pages[*index].kept = true;
	pool->kept_pages++;
	return 0;
}

/* Reports an object just placed in page @index. */
static void placed(struct llmem_pool *pool, uint32_t index, const struct llmem_block_range *range,
		   uint64_t h, struct llmem_pool_alloc_info *info, uint64_t *handle)
{
	const struct page *p = &pool->pages[index];

	if (!p->dedicated && !p->kept && llmem_block_objects(p->block) == 1)
		pool->empty_pages--;
	info->page = index;
	info->offset = range->offset;
	info->left_padding = range->left_padding;
	info->size = range->size;
	*handle = (uint64_t)(index + 1) << 32 | h;
}

static int alloc_in(struct llmem_pool *pool, uint32_t index, uint64_t size, uint64_t alignment,
		    enum llmem_block_kind kind, struct llmem_pool_alloc_info *info,
		    uint64_t *handle)
{
	struct llmem_block_range range;
	uint64_t h;
	int ret;

	ret = llmem_block_alloc(pool->pages[index].block, size, alignment, kind, &range, &h);
	if (ret)
		return ret;
	placed(pool, index, &range, h, info, handle);
	return 0;
}

LLMEM_PUBLIC int llmem_pool_alloc(struct llmem_pool *pool, uint64_t size, uint64_t alignment,
				  enum llmem_block_kind kind, struct llmem_pool_alloc_info *info,
				  uint64_t *handle)
{
	uint32_t index = 0;
	bool dedicated;
	int ret;

	if (!pool || !info || !handle)
		return llmem_error(-EINVAL, "pool_alloc: NULL argument");
	if (size == 0)
		return llmem_error(-EINVAL, "pool_alloc: size is 0");
	if (alignment & (alignment - 1))
		return llmem_error(-EINVAL, "pool_alloc: alignment %llu is not a power of two",
				   (unsigned long long)alignment);
	if (kind != LLMEM_BLOCK_LINEAR && kind != LLMEM_BLOCK_OPTIMAL)
		return llmem_error(-EINVAL, "pool_alloc: bad kind %d", (int)kind);
	if (alignment == 0)
		alignment = 1;

	dedicated = size > pool->info.page_size;
	/* Kept pages may be of any size, so they are searched even for an
	 * object that would otherwise get a dedicated page. */
	if (!dedicated || pool->kept_pages) {
		struct llmem_block_range range;
		uint64_t h;

		if (!llmem_block_map_alloc(pool->map, size, alignment, kind, &index, &range, &h)) {
			placed(pool, index, &range, h, info, handle);
			return 0;
		}
		/*
		 * No page has a class whose every range fits: rarely more than
		 * once per page made.  A range of a lower class may still fit,
		 * which each block tries a few of.
		 */
		for (uint32_t i = 0; i < pool->page_limit; i++) {
			struct page *p = &pool->pages[i];

			if (!p->block || p->dedicated || llmem_block_free_hint(p->block) < size)
				continue;
			if (!alloc_in(pool, i, size, alignment, kind, info, handle))
				return 0;
		}
	}

	ret = new_page(pool, dedicated ? size : pool->info.page_size, dedicated, &index);
	if (ret)
		return ret;
	if (!dedicated)
		pool->empty_pages++;
	ret = alloc_in(pool, index, size, alignment, kind, info, handle);
	if (ret) {
		/* Only an alignment beyond the page itself gets here. */
		if (!dedicated)
			pool->empty_pages--;
		release_page(pool, index);
		return llmem_error(ret, "pool_alloc: %llu bytes aligned to %llu fit no page",
				   (unsigned long long)size, (unsigned long long)alignment);
	}
	return 0;
}

static struct page *page_of(const struct llmem_pool *pool, uint64_t handle)
{
	uint64_t index = (handle >> 32) - 1;

	if (!pool || (handle >> 32) == 0 || index >= pool->page_limit || !pool->pages[index].block)
		return NULL;
	return &pool->pages[index];
}

int llmem_pool_remove_page(struct llmem_pool *pool, uint32_t index)
{
	struct page *p = index < pool->page_limit ? &pool->pages[index] : NULL;

	if (!p || !p->block || !p->kept)
		return llmem_error(-EINVAL, "pool_remove_page: no added page %u", index);
	if (llmem_block_objects(p->block))
		return llmem_error(-EBUSY, "pool_remove_page: page %u holds objects", index);
	release_page(pool, index);
	return 0;
}

LLMEM_PUBLIC int llmem_pool_free(struct llmem_pool *pool, uint64_t handle)
{
	struct page *p = page_of(pool, handle);
	uint32_t index;

	if (!p || llmem_block_free(p->block, handle & UINT32_MAX))
		return llmem_error(-EINVAL, "pool_free: no object %#llx",
				   (unsigned long long)handle);
	if (llmem_block_objects(p->block) || p->kept)
		return 0;
	index = (uint32_t)(p - pool->pages);
	if (!p->dedicated) {
		if (pool->empty_pages < pool->info.spare_pages) {
			pool->empty_pages++;
			return 0;
		}
	}
	release_page(pool, index);
	return 0;
}

LLMEM_PUBLIC int llmem_pool_get(const struct llmem_pool *pool, uint64_t handle,
				struct llmem_pool_alloc_info *info)
{
	const struct page *p = page_of(pool, handle);
	struct llmem_block_range range;

	if (!p || !info || llmem_block_get(p->block, handle & UINT32_MAX, &range))
		return llmem_error(-EINVAL, "pool_get: no object %#llx",
				   (unsigned long long)handle);
	info->page = (uint32_t)((handle >> 32) - 1);
	info->offset = range.offset;
	info->left_padding = range.left_padding;
	info->size = range.size;
	return 0;
}

LLMEM_PUBLIC uint32_t llmem_pool_page_limit(const struct llmem_pool *pool)
{
	return pool->page_limit;
}

LLMEM_PUBLIC int llmem_pool_page_stats(const struct llmem_pool *pool, uint32_t page_index,
				       struct llmem_block_stats *stats)
{
	if (page_index >= pool->page_limit || !pool->pages[page_index].block)
		return -ENOENT;
	llmem_block_stats(pool->pages[page_index].block, stats);
	return 0;
}

LLMEM_PUBLIC int llmem_pool_page_dedicated(const struct llmem_pool *pool, uint32_t page_index)
{
	if (page_index >= pool->page_limit || !pool->pages[page_index].block)
		return -ENOENT;
	return pool->pages[page_index].dedicated;
}

LLMEM_PUBLIC void llmem_pool_stats(const struct llmem_pool *pool, struct llmem_pool_stats *stats)
{
	*stats = (struct llmem_pool_stats){ 0 };
	for (uint32_t i = 0; i < pool->page_limit; i++) {
		const struct page *p = &pool->pages[i];
		struct llmem_block_stats s;

		if (!p->block)
			continue;
		llmem_block_stats(p->block, &s);
		stats->pages++;
		stats->dedicated_pages += p->dedicated;
		stats->bytes += s.size;
		stats->used_bytes += s.used_bytes;
		stats->free_bytes += s.free_bytes;
		stats->free_ranges += s.free_ranges;
		stats->allocations += s.allocations;
		if (s.largest_free > stats->largest_free)
			stats->largest_free = s.largest_free;
	}
}

LLMEM_PUBLIC int llmem_pool_dump_json(const struct llmem_pool *pool, FILE *out)
{
	struct llmem_pool_stats s;
	const char *sep = "";
	int ret;

	llmem_pool_stats(pool, &s);
	fprintf(out,
		"{\"page_size\": %llu, \"granularity\": %llu, \"pages\": %u, "
		"\"dedicated_pages\": %u, \"bytes\": %llu, \"used_bytes\": %llu, "
		"\"free_bytes\": %llu, \"free_ranges\": %llu, \"largest_free\": %llu, "
		"\"allocations\": %llu, \"page_layouts\": [",
		(unsigned long long)pool->info.page_size,
		(unsigned long long)pool->info.granularity, s.pages, s.dedicated_pages,
		(unsigned long long)s.bytes, (unsigned long long)s.used_bytes,
		(unsigned long long)s.free_bytes, (unsigned long long)s.free_ranges,
		(unsigned long long)s.largest_free, (unsigned long long)s.allocations);
	for (uint32_t i = 0; i < pool->page_limit; i++) {
		if (!pool->pages[i].block)
			continue;
		fprintf(out, "%s{\"index\": %u, \"dedicated\": %s, \"layout\": ", sep, i,
			pool->pages[i].dedicated ? "true" : "false");
		ret = llmem_block_dump_json(pool->pages[i].block, out);
		if (ret)
			return ret;
		fprintf(out, "}");
		sep = ", ";
	}
	fprintf(out, "]}\n");
	return ferror(out) ? -EIO : 0;
}
