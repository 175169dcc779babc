/* SPDX-License-Identifier: MIT */
/*
 * One page of memory laid out by a TLSF sub-allocator: the pages of
 * llmem/pool.h, whose types it shares.
 *
 * The block never touches memory: it only hands out offsets inside an
 * abstract range of @size bytes, so it runs and is tested without Vulkan.
 * Allocation and free are O(1) (two-level segregated fit lists indexed by
 * bitmaps) and free ranges coalesce with their free neighbours at once.
 *
 * bufferImageGranularity rule: the page is cut into granularity-sized,
 * granularity-aligned slots; a slot never holds bytes of both a linear and
 * an optimal-tiling object.  An object whose first slot would hold the end
 * of a neighbour of the other kind starts at the next slot boundary; one
 * whose last slot would hold the start of the following neighbour of the
 * other kind does not fit there.
 *
 * Thread safety: none; the owner serialises every call on one block.
 */
#ifndef LLMEM_BASE_BLOCK_H
#define LLMEM_BASE_BLOCK_H

#include <stdint.h>
#include <stdio.h>

#include <llmem/pool.h>

struct llmem_block;

/**
 * struct llmem_block_range - where an object lies in its page.
 * @offset: first byte of the object, a multiple of its alignment.
 * @left_padding: bytes in front of @offset that the object holds: the free
 *	range it was cut from started at @offset - @left_padding.  They return
 *	to the free lists with the object.
 * @size: the object's size as requested.
 */
struct llmem_block_range {
	uint64_t offset;
	uint64_t left_padding;
	uint64_t size;
};

/**
 * llmem_block_create() - lay out a new, empty page.
 * @size: bytes in the page, > 0.
 * @granularity: bufferImageGranularity, a power of two; 0 means 1.
 * @out: the block.
 *
 * Return: 0, -EINVAL on a bad argument, -ENOMEM.
 */
int llmem_block_create(uint64_t size, uint64_t granularity, struct llmem_block **out);

/* Accepts NULL.  Live objects are forgotten with the block. */
void llmem_block_destroy(struct llmem_block *block);

/**
 * llmem_block_alloc() - place an object.
 * @block: the page.
 * @size: bytes, > 0.
 * @alignment: a power of two (VkMemoryRequirements.alignment); 0 means 1.
 * @kind: LLMEM_BLOCK_LINEAR or LLMEM_BLOCK_OPTIMAL.
 * @range: (out) where it lies.
 * @handle: (out) names the object for llmem_block_free(); never 0.
 *
 * Return: 0, -EINVAL on a bad argument, -ENOMEM when it does not fit (or the
 * node table cannot grow).  -ENOMEM does not set llmem_last_error(): running
 * out of room in one page is the common case, not a failure.
 */
int llmem_block_alloc(struct llmem_block *block, uint64_t size, uint64_t alignment,
		      enum llmem_block_kind kind, struct llmem_block_range *range,
		      uint64_t *handle);

/* Return: 0, or -EINVAL when @handle names no live object of @block. */
int llmem_block_free(struct llmem_block *block, uint64_t handle);

/* Return: 0, or -EINVAL when @handle names no live object of @block. */
int llmem_block_get(const struct llmem_block *block, uint64_t handle,
		    struct llmem_block_range *range);

uint64_t llmem_block_size(const struct llmem_block *block);

/* True when no object lives in the block. */
int llmem_block_is_empty(const struct llmem_block *block);

/*
 * An upper bound on the largest object of alignment 1 the block may still
 * hold, in O(1); 0 when full.  For quick rejection, not for statistics.
 */
uint64_t llmem_block_free_hint(const struct llmem_block *block);

/* Fills @stats; used, free and count are O(1), the largest free range is not. */
void llmem_block_stats(const struct llmem_block *block, struct llmem_block_stats *stats);

/*
 * Writes the layout as one JSON object: size, granularity, stats and
 * "ranges", every range in address order as {"offset", "size", "free"} plus
 * "left_padding" and "kind" for objects.  Return: 0 or -EIO.
 */
int llmem_block_dump_json(const struct llmem_block *block, FILE *out);

#endif /* LLMEM_BASE_BLOCK_H */
