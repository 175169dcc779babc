/* SPDX-License-Identifier: MIT */
/*
 * The geometry transfers share: a box of rows and slices in a linear space,
 * its cutting into pieces that fit a staging chunk, and its copy by the
 * host.
 */
#ifndef LLMEM_BASE_BOX_H
#define LLMEM_BASE_BOX_H

#include <stdbool.h>
#include <stdint.h>

/* A linear space: element (x, y, z) lies at base + z × sp + y × rp + x × elem. */
struct llmem_lin {
	uint64_t base, rp, sp;
};

/* A piece of a region, relative to its origin: x and w in elements. */
struct llmem_box {
	uint64_t x, y, z, w, h, d;
};

struct llmem_box_cut {
	uint64_t elem, w, h, d;
	uint64_t chunk;
	uint64_t x, y, z;
};

void llmem_box_cut_init(struct llmem_box_cut *c, uint64_t elem, uint64_t w, uint64_t h, uint64_t d,
			uint64_t chunk);
/* The next piece of at most chunk bytes, whole rows or slices when they fit. */
bool llmem_box_cut_next(struct llmem_box_cut *c, struct llmem_box *box);

static inline uint64_t llmem_lin_at(const struct llmem_lin *l, uint64_t elem, uint64_t x,
				    uint64_t y, uint64_t z)
{
	return l->base + z * l->sp + y * l->rp + x * elem;
}

/*
 * Checks a box of w bytes × h rows × d slices at @origin {bytes, rows,
 * slices} of a space of @limit bytes with @pitch (0s for packed) and fills
 * @out.  -EINVAL, named after @what, when it does not fit or overflows.
 */
int llmem_lin_check(const char *what, const uint64_t origin[3], const uint64_t pitch[2], uint64_t w,
		    uint64_t h, uint64_t d, uint64_t limit, struct llmem_lin *out);

/* Whether any row of box @s overlaps a row of box @d (absolute offsets, same memory). */
bool llmem_lin_rows_overlap(const struct llmem_lin *s, const struct llmem_lin *d, uint64_t bytes,
			    uint64_t rows, uint64_t slices);

/* Whether a box is stored without gaps: rows back to back, slices too. */
bool llmem_lin_packed(const struct llmem_lin *l, uint64_t bytes, uint64_t rows, uint64_t slices);

/*
 * llmem_box_copy() - the host's copy of a box between two pitched spaces:
 * one copy over the copy pool when both are packed, row by row otherwise.
 * @stream: with streaming stores (stream_copy.h), for memory a device reads
 *	next.
 */
void llmem_box_copy(uint8_t *dst, uint64_t dst_row_pitch, uint64_t dst_slice_pitch,
		    const uint8_t *src, uint64_t src_row_pitch, uint64_t src_slice_pitch,
		    uint64_t bytes, uint64_t rows, uint64_t slices, bool stream);

#endif
