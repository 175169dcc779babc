// SPDX-License-Identifier: MIT
/*
 * TLSF over one page (after Masmano et al., "TLSF: a new dynamic memory
 * allocator for real-time systems", ECRTS 2004).
 *
 * Free ranges sit in lists by size class: the first level is the power of
 * two below the size, the second splits it into SL_COUNT equal steps; sizes
 * below SL_COUNT get one class each.  A bitmap per level finds the first
 * non-empty class at or above a size with two find-first-set operations.
 *
 * Every range, free or used, is a node in one array, linked to its
 * neighbours in address order, so a free merges with free neighbours in
 * O(1).  Unused nodes wait on a list for reuse: in steady state an
 * allocation costs no malloc.
 *
 * A map gathers the class bitmaps of several blocks (a pool's pages), so
 * that the best class over all of them is found with the same two
 * find-first-set operations as in one block.
 *
 * The block and the map are one file, longer than the others, because they
 * share their hottest code: every insert into and removal from a class list
 * updates the map's bits, and the map's allocation is the block's class
 * search and placement.  Apart, those forced-inline helpers would become a
 * header of the block's internals for two files.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/block.h"
#include "base/error.h"

#define SL_LOG2 5
#define SL_COUNT (1u << SL_LOG2)
#define FL_COUNT (64 - SL_LOG2 + 1)
#define NIL 0u

/*
 * Padding this large goes back to the free lists rather than to the
 * object: smaller gaps in front of an aligned object are too small for
 * anything else and would only lengthen the lists.
 */
#define PAD_SPLIT_MIN 4096

/* How many free ranges a search may inspect beyond the guaranteed fit. */
#define MAX_PROBES 16

/*
 * The helpers of the allocation and free paths: GCC keeps them out of line
 * at -O2 since each has several callers, which costs about a fifth of an
 * allocation.
 */
#define HOT static inline __attribute__((always_inline))

enum node_state {
	NODE_FREE = 0,
	/* LLMEM_BLOCK_LINEAR and LLMEM_BLOCK_OPTIMAL: an object */
	NODE_UNUSED = 3,
};

struct node {
	uint64_t offset; /* first byte of the range, padding included */
	uint64_t size;
	uint64_t padding; /* objects: bytes in front of the object */
	uint32_t prev_phys, next_phys;
	uint32_t prev_free, next_free; /* NODE_UNUSED: next_free chains them */
	uint8_t fl, sl; /* NODE_FREE: the list it is on, kept to unlink it cheaply */
};

struct llmem_block {
	uint64_t size;
	uint64_t granularity;
	uint64_t used_bytes;
	uint64_t free_ranges;
	uint64_t allocations;

	struct node *nodes; /* nodes[0] is NIL */
	/*
	 * enum node_state of each node, apart from the nodes: allocations and
	 * frees look at the state of a range's neighbours, and this array
	 * stays in the data cache where the nodes do not.
	 */
	uint8_t *states;
	uint32_t node_count, node_cap;
	uint32_t unused; /* chain of NODE_UNUSED nodes */
	uint32_t unused_count;
	uint32_t first; /* the node at offset 0 */

	struct llmem_block_map *map; /* NULL when not attached */
	uint32_t map_index;
	uint64_t map_bit; /* this block's bit in map_word[class] */
	uint64_t *map_word; /* the map's row of classes for this block's 64 indices */

	/*
	 * Only the classes up to the block's own size: a 32 MiB page needs 22
	 * of the 60 rows, and the smaller table stays in the data cache.
	 */
	uint32_t fl_count;
	uint64_t fl_bitmap;
	uint32_t sl_bitmap[FL_COUNT];
	uint32_t heads[][SL_COUNT];
};

/*
 * The classes of a set of blocks: which classes are non-empty in any block,
 * as one block's bitmaps say it for itself, and for each class the blocks
 * that hold a range of it, a bit per block index.  Each attached block
 * points at its row of bits, so that marking a class costs it no more
 * than its own bitmaps.
 */
struct llmem_block_map {
	uint64_t granularity;
	uint32_t fl_count; /* the first levels of the largest block */
	uint32_t words; /* of 64 indices each */
	uint64_t fl_bitmap;
	uint32_t sl_bitmap[FL_COUNT];
	uint64_t *bits; /* [words][fl_count * SL_COUNT] */
	struct llmem_block **blocks; /* [words * 64], by index */
};

HOT unsigned int log2_floor(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

HOT void class_of(uint64_t size, unsigned int *fl, unsigned int *sl)
{
	unsigned int l;

	if (size < SL_COUNT) {
		*fl = 0;
		*sl = (unsigned int)size;
		return;
	}
	l = log2_floor(size);
	*fl = l - SL_LOG2 + 1;
	*sl = (unsigned int)(size >> (l - SL_LOG2)) - SL_COUNT;
}

/* The class whose every range holds at least @size bytes: round up a step. */
HOT void class_at_least(uint64_t size, unsigned int *fl, unsigned int *sl)
{
	if (size >= SL_COUNT) {
		uint64_t step = 1ull << (log2_floor(size) - SL_LOG2);

		if (size + step - 1 < size) {
			*fl = FL_COUNT;
			*sl = 0;
			return;
		}
		size += step - 1;
	}
	class_of(size, fl, sl);
}

static uint64_t class_max(unsigned int fl, unsigned int sl)
{
	if (fl == 0)
		return sl;
	return ((uint64_t)(SL_COUNT + sl + 1) << (fl - 1)) - 1;
}

/*
 * First non-empty class at or after (fl, sl) by the bitmaps of a block or a
 * map; false when there is none.
 */
HOT bool find_in(uint64_t fl_bitmap, const uint32_t *sl_bitmap, uint32_t fl_count, unsigned int *fl,
		 unsigned int *sl)
{
	uint32_t sl_map;
	uint64_t fl_map;

	if (*fl >= fl_count)
		return false;
	sl_map = *sl < SL_COUNT ? sl_bitmap[*fl] & (~0u << *sl) : 0;
	if (!sl_map) {
		fl_map = *fl + 1 < 64 ? fl_bitmap & (~0ull << (*fl + 1)) : 0;
		if (!fl_map)
			return false;
		*fl = __builtin_ctzll(fl_map);
		sl_map = sl_bitmap[*fl];
	}
	*sl = __builtin_ctz(sl_map);
	return true;
}

HOT bool find_class(const struct llmem_block *b, unsigned int *fl, unsigned int *sl)
{
	return find_in(b->fl_bitmap, b->sl_bitmap, b->fl_count, fl, sl);
}

/*
 * The size a free range needs so that an object fits whatever its offset:
 * the worst-case alignment and granularity padding on top of @size.  0 when
 * that overflows.
 */
HOT uint64_t worst_case(uint64_t size, uint64_t alignment, uint64_t g)
{
	uint64_t worst = size + (alignment > g ? alignment : g) - 1;

	if (g > 1)
		worst += g - 1;
	return worst >= size ? worst : 0;
}

/* Block @b's list (fl, sl) holds a range (again or still: setting is idempotent). */
HOT void map_set(struct llmem_block *b, unsigned int fl, unsigned int sl)
{
	struct llmem_block_map *m = b->map;
	unsigned int c = fl * SL_COUNT + sl;

	b->map_word[c] |= b->map_bit;
	m->sl_bitmap[fl] |= 1u << sl;
	m->fl_bitmap |= 1ull << fl;
}

/* Whether a block of any index holds class @c: O(words). */
static bool map_held(const struct llmem_block_map *m, size_t c)
{
	size_t classes = (size_t)m->fl_count * SL_COUNT;

	for (uint32_t w = 0; w < m->words; w++)
		if (m->bits[w * classes + c])
			return true;
	return false;
}

/* Block @b's list (fl, sl) has become empty if @empty. */
HOT void map_clear(struct llmem_block *b, unsigned int fl, unsigned int sl, bool empty)
{
	struct llmem_block_map *m = b->map;
	size_t c = fl * SL_COUNT + sl;
	bool gone;

	b->map_word[c] &= ~(b->map_bit & -(uint64_t)empty);
	/* Blocks of the same 64 indices first: often the only ones. */
	gone = !b->map_word[c];
	if (m->words > 1 && gone)
		gone = !map_held(m, c);
	m->sl_bitmap[fl] &= ~((uint32_t)gone << sl);
	m->fl_bitmap &= ~((uint64_t)!m->sl_bitmap[fl] << fl);
}

/*
 * Whether a list holds one range or none, and so whether an insert or a
 * remove empties it, is a coin toss in a page of many classes: both write
 * unconditionally instead of branching (nodes[NIL] takes the writes meant
 * for no node), which spares a mispredicted branch per operation.
 */
HOT void list_insert(struct llmem_block *b, uint32_t i)
{
	struct node *n = &b->nodes[i];
	unsigned int fl, sl;
	uint32_t head;

	class_of(n->size, &fl, &sl);
	head = b->heads[fl][sl];
	b->states[i] = NODE_FREE;
	n->fl = (uint8_t)fl;
	n->sl = (uint8_t)sl;
	n->prev_free = NIL;
	n->next_free = head;
	b->nodes[head].prev_free = i;
	b->heads[fl][sl] = i;
	b->sl_bitmap[fl] |= 1u << sl;
	b->fl_bitmap |= 1ull << fl;
	if (b->map)
		map_set(b, fl, sl);
	b->free_ranges++;
}

HOT void list_remove(struct llmem_block *b, uint32_t i)
{
	struct node *n = &b->nodes[i];
	unsigned int fl = n->fl, sl = n->sl;
	uint32_t prev = n->prev_free, next = n->next_free;
	bool empty = prev == NIL && next == NIL;

	*(prev != NIL ? &b->nodes[prev].next_free : &b->heads[fl][sl]) = next;
	b->nodes[next].prev_free = prev;
	b->sl_bitmap[fl] &= ~((uint32_t)empty << sl);
	b->fl_bitmap &= ~((uint64_t)!b->sl_bitmap[fl] << fl);
	if (b->map)
		map_clear(b, fl, sl, empty);
	b->free_ranges--;
}

/* Doubles the node table. */
static int grow_nodes(struct llmem_block *b)
{
	struct node *nodes;
	uint8_t *states;
	uint32_t cap;

	if (b->node_cap > UINT32_MAX / 2)
		return -ENOMEM;
	cap = b->node_cap * 2;
	nodes = realloc(b->nodes, (size_t)cap * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	b->nodes = nodes;
	states = realloc(b->states, cap);
	if (!states)
		return -ENOMEM; /* the larger nodes array stays: no harm */
	b->states = states;
	b->node_cap = cap;
	return 0;
}

/* Makes room for @count more nodes, so that no pointer moves mid-update. */
HOT int reserve_nodes(struct llmem_block *b, uint32_t count)
{
	if (b->unused_count + (b->node_cap - b->node_count) >= count)
		return 0;
	return grow_nodes(b);
}

HOT uint32_t take_node(struct llmem_block *b)
{
	uint32_t i = b->unused;

	if (i != NIL) {
		b->unused = b->nodes[i].next_free;
		b->unused_count--;
	} else {
		i = b->node_count++;
	}
	return i;
}

HOT void put_node(struct llmem_block *b, uint32_t i)
{
	b->states[i] = NODE_UNUSED;
	b->nodes[i].next_free = b->unused;
	b->unused = i;
	b->unused_count++;
}

int llmem_block_create(uint64_t size, uint64_t granularity, struct llmem_block **out)
{
	struct llmem_block *b;
	unsigned int fl, sl;

	if (!out)
		return llmem_error(-EINVAL, "block: out is NULL");
	if (size == 0)
		return llmem_error(-EINVAL, "block: size is 0");
	if (granularity == 0)
		granularity = 1;
	if (granularity & (granularity - 1))
		return llmem_error(-EINVAL, "block: granularity %llu is not a power of two",
				   (unsigned long long)granularity);

	class_of(size, &fl, &sl);
	b = calloc(1, sizeof(*b) + (fl + 1) * sizeof(b->heads[0]));
	if (!b)
		return llmem_error(-ENOMEM, "block: out of host memory");
	b->node_cap = 64;
	b->nodes = calloc(b->node_cap, sizeof(*b->nodes));
	b->states = calloc(b->node_cap, 1);
	if (!b->nodes || !b->states) {
		free(b->nodes);
		free(b->states);
		free(b);
		return llmem_error(-ENOMEM, "block: out of host memory");
	}
	b->fl_count = fl + 1;
	b->size = size;
	b->granularity = granularity;
	b->node_count = 2;
	b->first = 1;
	b->nodes[1].offset = 0;
	b->nodes[1].size = size;
	list_insert(b, 1);
	*out = b;
	return 0;
}

void llmem_block_destroy(struct llmem_block *block)
{
	if (!block)
		return;
	llmem_block_detach(block);
	free(block->nodes);
	free(block->states);
	free(block);
}

HOT uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * Where an object starts in free range @i: aligned, and in the next granule
 * when the object before it is of the other kind and would share one.  No
 * branch on the neighbour: its kind varies from one range to the next, and
 * states[NIL] is NODE_FREE, of no kind, so the first range needs no test.
 */
HOT uint64_t start_in(const struct llmem_block *b, uint32_t i, uint64_t alignment, uint8_t kind)
{
	const struct node *n = &b->nodes[i];
	uint64_t g = b->granularity, off = align_up(n->offset, alignment);
	bool shared;

	if (g == 1)
		return off;
	shared = (b->states[n->prev_phys] == (kind ^ 3)) & ((off & ~(g - 1)) < n->offset);
	return shared ? align_up(off, g) : off;
}

/*
 * Where an object would start in free range @i, by the granularity rule of
 * block.h, or UINT64_MAX when it does not fit there.  The used neighbours
 * of a free range are its physical neighbours: free ones have merged.
 */
HOT uint64_t place(const struct llmem_block *b, uint32_t i, uint64_t size, uint64_t alignment,
		   uint8_t kind)
{
	const struct node *n = &b->nodes[i];
	uint64_t g = b->granularity, end = n->offset + n->size;
	uint64_t off = start_in(b, i, alignment, kind);

	if (off > end || end - off < size)
		return UINT64_MAX;
	if (g > 1 && n->next_phys != NIL && b->states[n->next_phys] != kind) {
		/* g is a power of two: masks, not 64-bit divisions. */
		uint64_t last = (off + size - 1) & ~(g - 1);

		/* The neighbour's object starts at end plus its padding; its node
		 * is read only when the object ends in end's granule. */
		if (last >= (end & ~(g - 1)) &&
		    last == ((end + b->nodes[n->next_phys].padding) & ~(g - 1)))
			return UINT64_MAX;
	}
	return off;
}

/*
 * Good fit in O(1): the first range of the first class whose every member
 * fits the worst-case padding.  When there is none, a few ranges from the
 * classes below it may still fit (a page-sized object in an empty page).
 */
static uint32_t search(const struct llmem_block *b, uint64_t size, uint64_t alignment, uint8_t kind,
		       uint64_t *off)
{
	uint64_t worst = worst_case(size, alignment, b->granularity);
	unsigned int fl, sl, fl_end, sl_end;
	int probes = MAX_PROBES;

	if (worst) {
		class_at_least(worst, &fl_end, &sl_end);
		fl = fl_end;
		sl = sl_end;
		if (find_class(b, &fl, &sl)) {
			uint32_t i = b->heads[fl][sl];

			/* The worst case was reserved: the object fits, granules included. */
			*off = start_in(b, i, alignment, kind);
			assert(*off + size <= b->nodes[i].offset + b->nodes[i].size);
			return i;
		}
	} else {
		fl_end = FL_COUNT;
		sl_end = 0;
	}

	class_of(size, &fl, &sl);
	while (probes > 0 && find_class(b, &fl, &sl) &&
	       (fl < fl_end || (fl == fl_end && sl < sl_end))) {
		for (uint32_t i = b->heads[fl][sl]; i != NIL && probes > 0;
		     i = b->nodes[i].next_free, probes--) {
			*off = place(b, i, size, alignment, kind);
			if (*off != UINT64_MAX)
				return i;
		}
		if (++sl == SL_COUNT) {
			sl = 0;
			fl++;
		}
	}
	return NIL;
}

/* Cuts the object at @off out of free range @f. */
HOT int take(struct llmem_block *block, uint32_t f, uint64_t off, uint64_t size, uint8_t kind,
	     struct llmem_block_range *range, uint64_t *handle)
{
	uint64_t start, end, pad;
	struct node *n;
	uint32_t u, t;
	int ret;

	ret = reserve_nodes(block, 2);
	if (ret)
		return llmem_error(ret, "block_alloc: out of host memory for nodes");

	list_remove(block, f);
	n = &block->nodes[f];
	start = n->offset;
	end = n->offset + n->size;
	pad = off - start;
	if (pad >= PAD_SPLIT_MIN) {
		u = take_node(block);
		n = &block->nodes[f];
		n->size = pad;
		block->nodes[u].prev_phys = f;
		block->nodes[u].next_phys = n->next_phys;
		if (n->next_phys != NIL)
			block->nodes[n->next_phys].prev_phys = u;
		n->next_phys = u;
		list_insert(block, f);
		start = off;
		pad = 0;
	} else {
		u = f;
	}
	n = &block->nodes[u];
	n->offset = start;
	n->size = off + size - start;
	n->padding = pad;
	block->states[u] = kind;

	if (off + size < end) {
		t = take_node(block);
		n = &block->nodes[u];
		block->nodes[t].offset = off + size;
		block->nodes[t].size = end - (off + size);
		block->nodes[t].prev_phys = u;
		block->nodes[t].next_phys = n->next_phys;
		if (n->next_phys != NIL)
			block->nodes[n->next_phys].prev_phys = t;
		n->next_phys = t;
		list_insert(block, t);
	}

	block->used_bytes += off + size - start;
	block->allocations++;
	range->offset = off;
	range->left_padding = pad;
	range->size = size;
	*handle = u;
	return 0;
}

int llmem_block_alloc(struct llmem_block *block, uint64_t size, uint64_t alignment,
		      enum llmem_block_kind kind, struct llmem_block_range *range, uint64_t *handle)
{
	uint64_t off;
	uint32_t f;

	if (!block || !range || !handle)
		return llmem_error(-EINVAL, "block_alloc: NULL argument");
	if (size == 0)
		return llmem_error(-EINVAL, "block_alloc: size is 0");
	if (alignment == 0)
		alignment = 1;
	if (alignment & (alignment - 1))
		return llmem_error(-EINVAL, "block_alloc: alignment %llu is not a power of two",
				   (unsigned long long)alignment);
	if (kind != LLMEM_BLOCK_LINEAR && kind != LLMEM_BLOCK_OPTIMAL)
		return llmem_error(-EINVAL, "block_alloc: bad kind %d", (int)kind);
	if (size > block->size - block->used_bytes)
		return -ENOMEM;

	f = search(block, size, alignment, (uint8_t)kind, &off);
	if (f == NIL || off == UINT64_MAX)
		return -ENOMEM;
	return take(block, f, off, size, (uint8_t)kind, range, handle);
}

int llmem_block_map_create(uint64_t granularity, struct llmem_block_map **out)
{
	struct llmem_block_map *m;

	if (!out)
		return llmem_error(-EINVAL, "block_map: out is NULL");
	if (granularity == 0)
		granularity = 1;
	if (granularity & (granularity - 1))
		return llmem_error(-EINVAL, "block_map: granularity %llu is not a power of two",
				   (unsigned long long)granularity);
	m = calloc(1, sizeof(*m));
	if (!m)
		return llmem_error(-ENOMEM, "block_map: out of host memory");
	m->granularity = granularity;
	*out = m;
	return 0;
}

void llmem_block_map_destroy(struct llmem_block_map *map)
{
	if (!map)
		return;
	for (uint32_t i = 0; i < map->words * 64; i++)
		if (map->blocks[i])
			map->blocks[i]->map = NULL;
	free(map->bits);
	free(map->blocks);
	free(map);
}

/*
 * Room for @fl_count first levels and block indices below 64 * @words: new
 * arrays, the bits copied row by row, the blocks pointed at their rows.
 */
static int map_reserve(struct llmem_block_map *m, uint32_t fl_count, uint32_t words)
{
	size_t classes, old_classes = (size_t)m->fl_count * SL_COUNT;
	struct llmem_block **blocks;
	uint64_t *bits;

	if (fl_count <= m->fl_count && words <= m->words)
		return 0;
	if (fl_count < m->fl_count)
		fl_count = m->fl_count;
	if (words < m->words)
		words = m->words;
	classes = (size_t)fl_count * SL_COUNT;
	bits = calloc(classes * words, sizeof(*bits));
	blocks = calloc((size_t)words * 64, sizeof(*blocks));
	if (!bits || !blocks) {
		free(bits);
		free(blocks);
		return -ENOMEM;
	}
	for (size_t w = 0; w < m->words; w++)
		memcpy(&bits[w * classes], &m->bits[w * old_classes], old_classes * sizeof(*bits));
	if (m->words)
		memcpy(blocks, m->blocks, (size_t)m->words * 64 * sizeof(*blocks));
	free(m->bits);
	free(m->blocks);
	m->bits = bits;
	m->blocks = blocks;
	m->fl_count = fl_count;
	m->words = words;
	for (uint32_t i = 0; i < words * 64; i++)
		if (blocks[i])
			blocks[i]->map_word = &bits[(i / 64) * classes];
	return 0;
}

int llmem_block_attach(struct llmem_block *block, struct llmem_block_map *map, uint32_t index)
{
	if (!block || !map || block->map || block->granularity != map->granularity ||
	    index >= UINT32_MAX - 64 || (index < map->words * 64 && map->blocks[index]))
		return llmem_error(-EINVAL, "block_attach: bad block, map or index %u", index);
	if (map_reserve(map, block->fl_count, index / 64 + 1))
		return llmem_error(-ENOMEM, "block_attach: out of host memory");
	map->blocks[index] = block;
	block->map = map;
	block->map_index = index;
	block->map_bit = 1ull << (index % 64);
	block->map_word = &map->bits[(size_t)(index / 64) * map->fl_count * SL_COUNT];
	for (unsigned int fl = 0; fl < block->fl_count; fl++)
		for (unsigned int sl = 0; sl < SL_COUNT; sl++)
			if (block->heads[fl][sl] != NIL)
				map_set(block, fl, sl);
	return 0;
}

void llmem_block_detach(struct llmem_block *block)
{
	if (!block || !block->map)
		return;
	for (unsigned int fl = 0; fl < block->fl_count; fl++)
		for (unsigned int sl = 0; sl < SL_COUNT; sl++)
			if (block->heads[fl][sl] != NIL)
				map_clear(block, fl, sl, true);
	block->map->blocks[block->map_index] = NULL;
	block->map = NULL;
}

/*
 * Good fit over every attached block at once, as search() does in one: the
 * head of the first class whose every range fits, in the block of lowest
 * index that has one.  No fallback to lower classes: that is the owner's to
 * try, block by block, before it adds one.
 */
int llmem_block_map_alloc(struct llmem_block_map *map, uint64_t size, uint64_t alignment,
			  enum llmem_block_kind kind, uint32_t *index,
			  struct llmem_block_range *range, uint64_t *handle)
{
	uint64_t worst = worst_case(size, alignment, map->granularity), off;
	size_t classes = (size_t)map->fl_count * SL_COUNT;
	const uint64_t *w;
	struct llmem_block *b;
	unsigned int fl, sl;
	uint32_t i, f;

	if (!worst)
		return -ENOMEM;
	class_at_least(worst, &fl, &sl);
	if (!find_in(map->fl_bitmap, map->sl_bitmap, map->fl_count, &fl, &sl))
		return -ENOMEM;
	/* The class is marked: one of its words is not zero. */
	w = &map->bits[fl * SL_COUNT + sl];
	for (i = 0; !*w; i++)
		w += classes;
	i = i * 64 + (uint32_t)__builtin_ctzll(*w);
	b = map->blocks[i];
	f = b->heads[fl][sl];
	/* The worst case was reserved: the object fits, granules included. */
	off = start_in(b, f, alignment, (uint8_t)kind);
	assert(off + size <= b->nodes[f].offset + b->nodes[f].size);
	*index = i;
	return take(b, f, off, size, (uint8_t)kind, range, handle);
}

static bool is_object(const struct llmem_block *b, uint64_t handle)
{
	return handle != NIL && handle < b->node_count &&
	       (b->states[handle] == LLMEM_BLOCK_LINEAR ||
		b->states[handle] == LLMEM_BLOCK_OPTIMAL);
}

int llmem_block_free(struct llmem_block *block, uint64_t handle)
{
	uint32_t i = (uint32_t)handle, prev, next;
	struct node *n;

	if (!block || !is_object(block, handle))
		return llmem_error(-EINVAL, "block_free: no object %llu",
				   (unsigned long long)handle);

	n = &block->nodes[i];
	block->used_bytes -= n->size;
	block->allocations--;

	next = n->next_phys;
	if (next != NIL && block->states[next] == NODE_FREE) {
		list_remove(block, next);
		n->size += block->nodes[next].size;
		n->next_phys = block->nodes[next].next_phys;
		if (n->next_phys != NIL)
			block->nodes[n->next_phys].prev_phys = i;
		put_node(block, next);
	}
	prev = n->prev_phys;
	if (prev != NIL && block->states[prev] == NODE_FREE) {
		struct node *p = &block->nodes[prev];

		list_remove(block, prev);
		p->size += n->size;
		p->next_phys = n->next_phys;
		if (p->next_phys != NIL)
			block->nodes[p->next_phys].prev_phys = prev;
		put_node(block, i);
		i = prev;
	}
	block->nodes[i].padding = 0;
	list_insert(block, i);
	return 0;
}

int llmem_block_get(const struct llmem_block *block, uint64_t handle,
		    struct llmem_block_range *range)
{
	const struct node *n;

	if (!block || !range || !is_object(block, handle))
		return llmem_error(-EINVAL, "block_get: no object %llu",
				   (unsigned long long)handle);
	n = &block->nodes[handle];
	range->offset = n->offset + n->padding;
	range->left_padding = n->padding;
	range->size = n->size - n->padding;
	return 0;
}

uint64_t llmem_block_size(const struct llmem_block *block)
{
	return block->size;
}

uint64_t llmem_block_objects(const struct llmem_block *block)
{
	return block->allocations;
}

uint64_t llmem_block_free_hint(const struct llmem_block *block)
{
	unsigned int fl, sl;
	uint64_t max;

	if (!block->fl_bitmap)
		return 0;
	fl = log2_floor(block->fl_bitmap);
	sl = 31 - __builtin_clz(block->sl_bitmap[fl]);
	max = class_max(fl, sl);
	return max < block->size ? max : block->size;
}

void llmem_block_stats(const struct llmem_block *block, struct llmem_block_stats *stats)
{
	uint64_t largest = 0;

	if (block->fl_bitmap) {
		unsigned int fl = log2_floor(block->fl_bitmap);
		unsigned int sl = 31 - __builtin_clz(block->sl_bitmap[fl]);

		for (uint32_t i = block->heads[fl][sl]; i != NIL; i = block->nodes[i].next_free)
			if (block->nodes[i].size > largest)
				largest = block->nodes[i].size;
	}
	stats->size = block->size;
	stats->used_bytes = block->used_bytes;
	stats->free_bytes = block->size - block->used_bytes;
	stats->free_ranges = block->free_ranges;
	stats->largest_free = largest;
	stats->allocations = block->allocations;
}

int llmem_block_dump_json(const struct llmem_block *block, FILE *out)
{
	struct llmem_block_stats s;
	const char *sep = "";

	llmem_block_stats(block, &s);
	fprintf(out,
		"{\"size\": %llu, \"granularity\": %llu, \"used_bytes\": %llu, "
		"\"free_bytes\": %llu, \"free_ranges\": %llu, \"largest_free\": %llu, "
		"\"allocations\": %llu, \"ranges\": [",
		(unsigned long long)s.size, (unsigned long long)block->granularity,
		(unsigned long long)s.used_bytes, (unsigned long long)s.free_bytes,
		(unsigned long long)s.free_ranges, (unsigned long long)s.largest_free,
		(unsigned long long)s.allocations);
	for (uint32_t i = block->first; i != NIL; i = block->nodes[i].next_phys) {
		const struct node *n = &block->nodes[i];

		if (block->states[i] == NODE_FREE)
			fprintf(out, "%s{\"offset\": %llu, \"size\": %llu, \"free\": true}", sep,
				(unsigned long long)n->offset, (unsigned long long)n->size);
		else
			fprintf(out,
				"%s{\"offset\": %llu, \"size\": %llu, \"free\": false, "
				"\"left_padding\": %llu, \"kind\": \"%s\"}",
				sep, (unsigned long long)(n->offset + n->padding),
				(unsigned long long)(n->size - n->padding),
				(unsigned long long)n->padding,
				block->states[i] == LLMEM_BLOCK_LINEAR ? "linear" : "optimal");
		sep = ", ";
	}
	fprintf(out, "]}");
	return ferror(out) ? -EIO : 0;
}
