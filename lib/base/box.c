// SPDX-License-Identifier: MIT
/*
 * Boxes in linear spaces: bounds checks that cannot overflow, cutting into
 * staging-sized pieces, the overlap test and the host's copy.
 */
#include <errno.h>

#include "base/box.h"
#include "base/copy_pool.h"
#include "base/error.h"
#include "base/stream_copy.h"

void llmem_box_cut_init(struct llmem_box_cut *c, uint64_t elem, uint64_t w, uint64_t h, uint64_t d,
			uint64_t chunk)
{
	*c = (struct llmem_box_cut){ .elem = elem, .w = w, .h = h, .d = d, .chunk = chunk };
}

bool llmem_box_cut_next(struct llmem_box_cut *c, struct llmem_box *b)
{
	uint64_t row = c->w * c->elem, slice = row * c->h, n;

	if (c->z >= c->d)
		return false;
	if (row > c->chunk) {
		n = c->chunk / c->elem;
		if (n > c->w - c->x)
			n = c->w - c->x;
		*b = (struct llmem_box){ c->x, c->y, c->z, n, 1, 1 };
		c->x += n;
		if (c->x == c->w) {
			c->x = 0;
			c->y++;
		}
	} else if (c->y == 0 && slice <= c->chunk) {
		n = c->chunk / slice;
		if (n > c->d - c->z)
			n = c->d - c->z;
		*b = (struct llmem_box){ 0, 0, c->z, c->w, c->h, n };
		c->z += n;
		return true;
	} else {
		n = c->chunk / row;
		if (n > c->h - c->y)
			n = c->h - c->y;
		*b = (struct llmem_box){ 0, c->y, c->z, c->w, n, 1 };
		c->y += n;
	}
	if (c->y == c->h) {
		c->y = 0;
		c->z++;
	}
	return true;
}

int llmem_lin_check(const char *what, const uint64_t origin[3], const uint64_t pitch[2], uint64_t w,
		    uint64_t h, uint64_t d, uint64_t limit, struct llmem_lin *out)
{
	uint64_t rp = pitch[0] ? pitch[0] : w, sp, base, t, end;
	bool bad = false;

	if (rp < w)
		return llmem_error(-EINVAL, "%s: row pitch %llu is below the %llu bytes of a row",
				   what, (unsigned long long)rp, (unsigned long long)w);
	bad |= __builtin_mul_overflow(rp, h, &t);
	sp = pitch[1] ? pitch[1] : t;
	if (!bad && sp < t)
		return llmem_error(-EINVAL, "%s: slice pitch %llu is below %llu rows of %llu", what,
				   (unsigned long long)sp, (unsigned long long)h,
				   (unsigned long long)rp);
	bad |= __builtin_mul_overflow(origin[2], sp, &base);
	bad |= __builtin_mul_overflow(origin[1], rp, &t);
	bad |= __builtin_add_overflow(base, t, &base);
	bad |= __builtin_add_overflow(base, origin[0], &base);
	bad |= __builtin_mul_overflow(d - 1, sp, &end);
	bad |= __builtin_add_overflow(end, base, &end);
	bad |= __builtin_mul_overflow(h - 1, rp, &t);
	bad |= __builtin_add_overflow(end, t, &end);
	bad |= __builtin_add_overflow(end, w, &end);
	if (bad || end > limit)
		return llmem_error(-EINVAL, "%s: the box ends past the %llu bytes there", what,
				   (unsigned long long)limit);
	*out = (struct llmem_lin){ base, rp, sp };
	return 0;
}

bool llmem_lin_packed(const struct llmem_lin *l, uint64_t bytes, uint64_t rows, uint64_t slices)
{
	return (l->rp == bytes || rows == 1) && (slices == 1 || l->sp == bytes * rows);
}

/*
 * Rows of a box are disjoint and sorted (pitches are at least a row and a
 * slice), so the only destination row a source row can meet is the last
 * one starting before the source row ends.
 */
bool llmem_lin_rows_overlap(const struct llmem_lin *s, const struct llmem_lin *d, uint64_t bytes,
			    uint64_t rows, uint64_t slices)
{
	for (uint64_t z = 0; z < slices; z++) {
		for (uint64_t y = 0; y < rows; y++) {
			uint64_t start = llmem_lin_at(s, 1, 0, y, z), last = start + bytes - 1;
			uint64_t rel, dz, dy;

			if (last < d->base)
				continue;
			rel = last - d->base;
			dz = rel / d->sp < slices - 1 ? rel / d->sp : slices - 1;
			rel -= dz * d->sp;
			dy = rel / d->rp < rows - 1 ? rel / d->rp : rows - 1;
			if (llmem_lin_at(d, 1, 0, dy, dz) + bytes > start)
				return true;
		}
	}
	return false;
}

void llmem_box_copy(uint8_t *dst, uint64_t drp, uint64_t dsp, const uint8_t *src, uint64_t srp,
		    uint64_t ssp, uint64_t bytes, uint64_t rows, uint64_t slices, bool stream)
{
	struct llmem_lin d = { 0, drp, dsp }, s = { 0, srp, ssp };

	if (llmem_lin_packed(&d, bytes, rows, slices) &&
	    llmem_lin_packed(&s, bytes, rows, slices)) {
		if (stream)
			llmem_copy_pool_stream(dst, src, bytes * rows * slices);
		else
			llmem_copy_pool_memcpy(dst, src, bytes * rows * slices);
		return;
	}
	for (uint64_t z = 0; z < slices; z++)
		for (uint64_t y = 0; y < rows; y++)
			llmem_stream_copy_if(stream, dst + z * dsp + y * drp,
					     src + z * ssp + y * srp, bytes);
}
