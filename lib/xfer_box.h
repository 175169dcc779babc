/* SPDX-License-Identifier: MIT */
/*
 * The geometry transfers share: a box of rows and slices in a linear space,
 * and its cutting into pieces that fit a staging chunk.
 */
#ifndef LLMEM_XFER_BOX_H
#define LLMEM_XFER_BOX_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

/* A linear space: element (x, y, z) lies at base + z × sp + y × rp + x × elem. */
struct xfer_lin {
	uint64_t base, rp, sp;
};

/* A piece of a region, relative to its origin: x and w in elements. */
struct xfer_box {
	uint64_t x, y, z, w, h, d;
};

struct xfer_cut {
	uint64_t elem, w, h, d;
	uint64_t chunk;
	uint64_t x, y, z;
};

void xfer_cut_init(struct xfer_cut *c, uint64_t elem, uint64_t w, uint64_t h, uint64_t d,
		   uint64_t chunk);
/* The next piece of at most chunk bytes, whole rows or slices when they fit. */
bool xfer_cut_next(struct xfer_cut *c, struct xfer_box *box);

static inline uint64_t xfer_lin_at(const struct xfer_lin *l, uint64_t elem, uint64_t x, uint64_t y,
				   uint64_t z)
{
	return l->base + z * l->sp + y * l->rp + x * elem;
}

/*
 * Checks a box of w bytes × h rows × d slices at @origin {bytes, rows,
 * slices} of a space of @limit bytes with @pitch (0s for packed) and fills
 * @out.  -EINVAL, named after @what, when it does not fit or overflows.
 */
int xfer_lin_check(const char *what, const uint64_t origin[3], const uint64_t pitch[2], uint64_t w,
		   uint64_t h, uint64_t d, uint64_t limit, struct xfer_lin *out);

/* Records buffer-to-buffer copies of a box, rows merged where both sides are packed. */
void xfer_copy_rows(VkCommandBuffer cmd, VkBuffer src, const struct xfer_lin *s, VkBuffer dst,
		    const struct xfer_lin *d, uint64_t bytes, uint64_t rows, uint64_t slices);

/* Whether any row of box @s overlaps a row of box @d (absolute offsets, same memory). */
bool xfer_rows_overlap(const struct xfer_lin *s, const struct xfer_lin *d, uint64_t bytes,
		       uint64_t rows, uint64_t slices);

#endif
