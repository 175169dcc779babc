/* SPDX-License-Identifier: MIT */
/*
 * A virtual pool of pages: the library's sub-allocator, open to callers for
 * memory of their own (a DMA-BUF, a heap, another API's allocation), in the
 * spirit of VulkanMemoryAllocator's VmaVirtualBlock.  It places objects in
 * pages of one size, creating a page when none has room and releasing pages
 * that become empty.  An object goes to the page whose free range fits it
 * most tightly, the lowest index among equals, so that objects gather in
 * few pages.  Each page is laid out by a TLSF allocator (a "block"):
 * allocation and free are O(1), and free neighbours merge at once.
 *
 * The pool never touches memory.  Its owner backs each page through the
 * callbacks (one VkDeviceMemory, an imported DMA-BUF, or nothing at all)
 * and finds it again by its index.  Indices are small integers, stable while
 * the page lives, reused after it is released.  No Vulkan is needed.
 *
 * bufferImageGranularity rule: a page is cut into granularity-sized,
 * granularity-aligned slots; a slot never holds bytes of both a linear and
 * an optimal-tiling object.
 *
 * Errors follow llmem.h's convention; running out of room in a page is not
 * a failure and leaves llmem_last_error() alone.
 *
 * Thread safety: none; the owner serialises every call on one pool.
 */
#ifndef LLMEM_POOL_H
#define LLMEM_POOL_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum llmem_block_kind {
	LLMEM_BLOCK_LINEAR = 1, /* buffers and linear-tiling images */
	LLMEM_BLOCK_OPTIMAL = 2, /* optimal-tiling (and DRM-modifier) images */
};

/**
 * struct llmem_block_stats - a snapshot of one page.
 * @size: bytes in the page.
 * @used_bytes: bytes held by objects, their left padding included.
 * @free_bytes: @size - @used_bytes.
 * @free_ranges: number of maximal free ranges.
 * @largest_free: size of the largest free range, 0 when full.
 * @allocations: live objects.
 */
struct llmem_block_stats {
	uint64_t size;
	uint64_t used_bytes;
	uint64_t free_bytes;
	uint64_t free_ranges;
	uint64_t largest_free;
	uint64_t allocations;
};

struct llmem_pool;

#define LLMEM_POOL_DEFAULT_PAGE_SIZE (32ull << 20)
/* For spare_pages: release every page as soon as it is empty. */
#define LLMEM_POOL_SPARE_NONE UINT32_MAX

/**
 * struct llmem_pool_create_info - how to make a pool; zero means defaults.
 * @page_size: bytes in a page; leave 0 for 32 MiB.
 * @granularity: bufferImageGranularity, a power of two; leave 0 for 1.
 * @spare_pages: empty pages kept rather than released; leave 0 for 1,
 *	LLMEM_POOL_SPARE_NONE for none.
 * @page_create: backs page @page_index with @size bytes; returns 0 or a
 *	negative errno, which llmem_pool_alloc() passes on.  May be NULL.
 * @page_destroy: releases what @page_create made.  May be NULL.
 * @user: passed to both callbacks.
 */
struct llmem_pool_create_info {
	uint64_t page_size;
	uint64_t granularity;
	uint32_t spare_pages;
	int (*page_create)(void *user, uint32_t page_index, uint64_t size);
	void (*page_destroy)(void *user, uint32_t page_index);
	void *user;
};

/**
 * struct llmem_pool_alloc_info - where an object lies.
 * @page: index of its page.
 * @offset: first byte of the object in the page, a multiple of its alignment.
 * @left_padding: bytes in front of @offset the object holds (see block.h).
 * @size: the object's size as requested.
 */
struct llmem_pool_alloc_info {
	uint32_t page;
	uint64_t offset;
	uint64_t left_padding;
	uint64_t size;
};

/**
 * struct llmem_pool_stats - totals over the live pages.
 * @pages: live pages, dedicated ones included.
 * @dedicated_pages: pages made for one object larger than the page size.
 * @bytes: bytes in live pages.
 * @used_bytes, @free_bytes, @free_ranges, @allocations: summed over pages.
 * @largest_free: the largest free range of any page.
 */
struct llmem_pool_stats {
	uint32_t pages;
	uint32_t dedicated_pages;
	uint64_t bytes;
	uint64_t used_bytes;
	uint64_t free_bytes;
	uint64_t free_ranges;
	uint64_t largest_free;
	uint64_t allocations;
};

/* Return: 0; -EINVAL for NULL arguments or a bad field; -ENOMEM. */
int llmem_pool_create(const struct llmem_pool_create_info *info, struct llmem_pool **out);

/* Accepts NULL.  Calls page_destroy for every live page. */
void llmem_pool_destroy(struct llmem_pool *pool);

/**
 * llmem_pool_alloc() - place an object, creating a page if none has room.
 * @pool: the pool.
 * @size: bytes, > 0.  Larger than the page size: a page of exactly @size
 *	bytes of its own, released as soon as the object is freed.
 * @alignment: a power of two; 0 means 1.
 * @kind: LLMEM_BLOCK_LINEAR or LLMEM_BLOCK_OPTIMAL.
 * @info: (out) where it lies.
 * @handle: (out) names the object for llmem_pool_free(); never 0.
 *
 * Return: 0, -EINVAL on a bad argument, -ENOMEM, or page_create's error.
 */
int llmem_pool_alloc(struct llmem_pool *pool, uint64_t size, uint64_t alignment,
		     enum llmem_block_kind kind, struct llmem_pool_alloc_info *info,
		     uint64_t *handle);

/*
 * Adds a page of @size bytes (any size) through page_create that stays until
 * the pool is destroyed, empty or not: what an imported DMA-BUF becomes.
 * Allocations use it like any other page.
 */
int llmem_pool_add_page(struct llmem_pool *pool, uint64_t size, uint32_t *index);

/*
 * Frees an object.  A page left empty is released unless fewer than
 * spare_pages empty pages remain; dedicated pages are always released.
 * Return: 0, or -EINVAL when @handle names no live object.
 */
int llmem_pool_free(struct llmem_pool *pool, uint64_t handle);

/* Return: 0, or -EINVAL when @handle names no live object. */
int llmem_pool_get(const struct llmem_pool *pool, uint64_t handle,
		   struct llmem_pool_alloc_info *info);

/* One past the highest page index in use: live pages lie below it. */
uint32_t llmem_pool_page_limit(const struct llmem_pool *pool);

/* Return: 0, or -ENOENT when no page @page_index lives. */
int llmem_pool_page_stats(const struct llmem_pool *pool, uint32_t page_index,
			  struct llmem_block_stats *stats);

/* Return: 1 for a page made for one object larger than the page size, 0
 * for another live page, -ENOENT when no page @page_index lives. */
int llmem_pool_page_dedicated(const struct llmem_pool *pool, uint32_t page_index);

void llmem_pool_stats(const struct llmem_pool *pool, struct llmem_pool_stats *stats);

/*
 * Writes one JSON object: page_size, granularity, the fields of struct
 * llmem_pool_stats, and "page_layouts": [{"index", "dedicated", "layout"}]
 * with each layout as llmem_block_dump_json() writes it.  Return: 0 or -EIO.
 */
int llmem_pool_dump_json(const struct llmem_pool *pool, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_POOL_H */
