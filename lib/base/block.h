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

/* The objects living in the block. */
uint64_t llmem_block_objects(const struct llmem_block *block);

/*
 * An upper bound on the largest object of alignment 1 the block may still
 * hold, in O(1); 0 when full.  For quick rejection, not for statistics.
 */
uint64_t llmem_block_free_hint(const struct llmem_block *block);

/* Fills @stats; used, free and count are O(1), the largest free range is not. */
void llmem_block_stats(const struct llmem_block *block, struct llmem_block_stats *stats);

/*
 * A map of the free ranges of several blocks of one granularity (a pool's
 * pages): for each size class, which blocks hold a free range of it.  Blocks
 * attached to it keep it current as their lists fill and empty, at no cost
 * beyond a bit per change, so that the best class over all of them is found
 * as fast as in one block.
 */
struct llmem_block_map;

/* Return: 0, -EINVAL for a granularity that is not a power of two, -ENOMEM. */
int llmem_block_map_create(uint64_t granularity, struct llmem_block_map **out);

/* Accepts NULL.  Blocks still attached are detached. */
void llmem_block_map_destroy(struct llmem_block_map *map);

/*
 * Enters @block in @map as block @index, which no other attached block has
 * (small: the map holds a bit per index up to the highest).  @block must
 * not be in a map already and must have the map's granularity.
 * llmem_block_destroy() detaches it.  Return: 0, -EINVAL, -ENOMEM.
 */
int llmem_block_attach(struct llmem_block *block, struct llmem_block_map *map, uint32_t index);

/* Takes @block out of its map, if it is in one. */
void llmem_block_detach(struct llmem_block *block);

/**
 * llmem_block_map_alloc() - place an object in the best block of a map.
 * @map: the map.
 * @size, @alignment, @kind, @range, @handle: as for llmem_block_alloc(), but
 *	unchecked: @size > 0, @alignment a power of two (not 0), @kind valid.
 * @index: (out) the block's index in @map.
 *
 * Best fit over the attached blocks: the first class whose every range
 * holds the object (the class llmem_block_alloc() takes from first), and
 * of the blocks with a range of it the one of lowest index.  O(1) but for
 * the scan of that class's bits, a 64-bit word per 64 indices.  The classes
 * below, whose ranges may or may not fit, are not tried.
 *
 * Return: 0, or -ENOMEM when no block has such a class (or the node table
 * cannot grow).
 */
int llmem_block_map_alloc(struct llmem_block_map *map, uint64_t size, uint64_t alignment,
			  enum llmem_block_kind kind, uint32_t *index,
			  struct llmem_block_range *range, uint64_t *handle);

/*
 * Writes the layout as one JSON object: size, granularity, stats and
 * "ranges", every range in address order as {"offset", "size", "free"} plus
 * "left_padding" and "kind" for objects.  Return: 0 or -EIO.
 */
int llmem_block_dump_json(const struct llmem_block *block, FILE *out);

#endif /* LLMEM_BASE_BLOCK_H */
