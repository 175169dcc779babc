// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: llmem_negotiate() (lib/memory/negotiate.c) over
 * participants' statements as a peer could send them: names without their
 * end, counts past the arrays, any fourcc, modifier, alignment, bound and
 * flag, and any request.  Any input gets 0 or a documented error with a
 * message; a layout that is given is one llmem lays out (every plane inside
 * the frame, pitches that hold a row, at most 4 GiB), of the first fourcc
 * of the order that every participant takes linear, meets every
 * participant's statement and is no larger than they make it (the coded
 * size too: the least its alignments allow, the one a participant states,
 * no padding on a side a participant cannot crop), and comes again the
 * same for the same input and for the participants in reverse order
 * (which may refuse with another error, never succeed where one refuses).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>
#include <llmem/error.h>
#include <llmem/negotiate.h>

#include "fuzz_input.h"
#include "memory/frame.h"

static const uint32_t fourccs[] = { DRM_FORMAT_YUYV,	 DRM_FORMAT_NV12,     DRM_FORMAT_ABGR8888,
				    DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_RGB565 };
static const uint64_t modifiers[] = { DRM_FORMAT_MOD_LINEAR, I915_FORMAT_MOD_X_TILED,
				      DRM_FORMAT_MOD_INVALID };

/* A value as statements hold them: none, a power of two, a small number,
 * or any. */
static uint64_t fuzz_value(struct fuzz_input *in, uint64_t max)
{
	uint8_t tag = fuzz_u8(in);
	uint64_t v;

	switch (tag & 3) {
	case 0:
		return 0;
	case 1:
		v = 1ULL << (tag >> 2);
		break;
	case 2:
		v = tag >> 2;
		break;
	default:
		v = fuzz_u64(in);
		break;
	}
	return max ? v % (max + 1) : v;
}

static uint32_t fuzz_fourcc(struct fuzz_input *in)
{
	uint8_t pick = fuzz_u8(in);

	return pick < 240 ? fourccs[pick % 6] : fuzz_u32(in);
}

static void fuzz_participant(struct fuzz_input *in, struct llmem_participant *p)
{
	struct llmem_constraints *c = &p->constraints;
	uint8_t formats = fuzz_u8(in);

	/* Every byte as sent: no field checked, no string ended. */
	if (formats == 255) {
		fuzz_bytes(in, p, sizeof(*p));
		return;
	}
	memset(p, 0, sizeof(*p));
	/* Up to all 64 bytes, the last one too. */
	fuzz_bytes(in, p->name, fuzz_u8(in) % (sizeof(p->name) + 1));
	p->kind = fuzz_u32(in);
	p->num_formats = formats < 250 ? formats % 4 : fuzz_u32(in);
	for (uint32_t i = 0; i < p->num_formats && i < LLMEM_NEGOTIATE_MAX_FORMATS; i++) {
		struct llmem_format_caps *f = &p->formats[i];
		uint8_t mods = fuzz_u8(in);

		f->fourcc = fuzz_fourcc(in);
		f->num_modifiers = mods < 250 ? mods % 3 : fuzz_u32(in);
		if (mods & 0x80) {
			f->coded_width = (uint32_t)fuzz_value(in, UINT32_MAX);
			f->coded_height = (uint32_t)fuzz_value(in, UINT32_MAX);
			f->column_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
			f->row_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
			f->flags = fuzz_u8(in);
		}
		for (uint32_t k = 0; k < f->num_modifiers && k < LLMEM_NEGOTIATE_MAX_MODIFIERS; k++)
			f->modifiers[k] = modifiers[fuzz_u8(in) % 3];
	}
	c->pitch_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->pitch = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->plane_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->size_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->min_size = fuzz_value(in, 0);
	c->max_size = fuzz_value(in, 0);
	c->min_width = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->max_width = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->min_height = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->max_height = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->max_pitch = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->flags = fuzz_u8(in);
	c->min_buffers = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->column_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
	c->row_alignment = (uint32_t)fuzz_value(in, UINT32_MAX);
}

/* @v is the least multiple of @a (0: any) at or above @floor. */
static int least(uint64_t v, uint64_t a, uint64_t floor)
{
	return a ? v % a == 0 && v >= floor && v - floor < a : v == floor;
}

static const struct llmem_format_caps *find_format(const struct llmem_participant *p,
						   uint32_t fourcc)
{
	for (uint32_t i = 0; i < p->num_formats; i++)
		if (p->formats[i].fourcc == fourcc)
			return &p->formats[i];
	return NULL;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static uint64_t lcm(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a / gcd(a, b) * b;
}

/*
 * The coded size: a multiple of every alignment stated for the fourcc,
 * the least at or above the picture and every coded size stated, equal to
 * each coded size stated, no padding on a side a participant cannot crop;
 * the padding per plane the layout's.
 */
static void check_coded(const struct llmem_participant *ps, uint32_t n,
			const struct llmem_negotiated *out)
{
	const struct llmem_frame_layout *l = &out->layout;
	uint64_t aw = l->fourcc == DRM_FORMAT_NV12 || l->fourcc == DRM_FORMAT_YUYV ? 2 : 1;
	uint64_t ah = l->fourcc == DRM_FORMAT_NV12 ? 2 : 1;
	uint64_t floor_w = l->width, floor_h = l->height;
	uint32_t flags = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct llmem_format_caps *f = find_format(&ps[i], l->fourcc);

		aw = lcm(aw, ps[i].constraints.column_alignment);
		ah = lcm(ah, ps[i].constraints.row_alignment);
		flags |= ps[i].constraints.flags;
		if (!f)
			continue;
		aw = lcm(aw, f->column_alignment);
		ah = lcm(ah, f->row_alignment);
		flags |= f->flags;
		if (f->coded_width &&
		    (f->coded_width != l->coded_width || f->coded_height != l->coded_height))
			abort();
		floor_w = f->coded_width > floor_w ? f->coded_width : floor_w;
		floor_h = f->coded_height > floor_h ? f->coded_height : floor_h;
	}
	if (!least(l->coded_width, aw, floor_w) || !least(l->coded_height, ah, floor_h))
		abort();
	if (((flags & LLMEM_CONSTRAINT_NO_CROP_WIDTH) && l->coded_width != l->width) ||
	    ((flags & LLMEM_CONSTRAINT_NO_CROP_HEIGHT) && l->coded_height != l->height))
		abort();
	for (uint32_t p = 0; p < l->num_planes; p++) {
		struct llmem_frame_padding pad;

		if (llmem_frame_layout_padding(l, p, &pad) ||
		    memcmp(&pad, &out->padding[p], sizeof(pad)))
			abort();
	}
}

/* Whether @p takes @fourcc linear, by any of its entries. */
static int takes_linear(const struct llmem_participant *p, uint32_t fourcc)
{
	if (!p->num_formats)
		return 1;
	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->fourcc != fourcc)
			continue;
		if (!f->num_modifiers)
			return 1;
		for (uint32_t k = 0; k < f->num_modifiers; k++)
			if (f->modifiers[k] == DRM_FORMAT_MOD_LINEAR)
				return 1;
	}
	return 0;
}

/* The first fourcc of the order that all take linear. */
static uint32_t first_shared(const struct llmem_participant *ps, uint32_t n,
			     const struct llmem_negotiate_request *r)
{
	static const uint32_t library_order[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12,
						  DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888,
						  DRM_FORMAT_ABGR8888 };
	const uint32_t *order = r->fourccs ? r->fourccs : library_order;
	uint32_t count = r->fourccs ? r->num_fourccs : 5;

	for (uint32_t f = 0; f < count; f++) {
		uint32_t i = 0;

		while (i < n && takes_linear(&ps[i], order[f]))
			i++;
		if (i == n)
			return order[f];
	}
	abort();
}

static int asks_linear(const struct llmem_negotiate_request *r)
{
	for (uint32_t k = 0; k < r->num_modifiers; k++)
		if (r->modifiers[k] == DRM_FORMAT_MOD_LINEAR)
			return 1;
	return !r->modifiers;
}

/* Nothing is larger than the statements make it: the pitch, the chroma
 * plane's offset and the size are the least that the merged alignments
 * allow, the flags and buffer count exactly the statements'. */
static void check_least(const struct llmem_participant *ps, uint32_t n,
			const struct llmem_negotiated *out)
{
	const struct llmem_frame_layout *l = &out->layout;
	const struct llmem_constraints *m = &out->constraints;
	uint64_t row = (uint64_t)l->coded_width * (l->fourcc == DRM_FORMAT_NV12	  ? 1
						   : l->fourcc == DRM_FORMAT_YUYV ? 2
										  : 4);
	uint64_t end = l->offset[0] + (uint64_t)l->pitch[0] * l->coded_height, min_size = 0;
	uint32_t flags = 0, buffers = 0, exact = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct llmem_constraints *c = &ps[i].constraints;

		if ((c->pitch_alignment && m->pitch_alignment % c->pitch_alignment) ||
		    (c->plane_alignment && m->plane_alignment % c->plane_alignment) ||
		    (c->size_alignment && m->size_alignment % c->size_alignment))
			abort();
		exact |= c->pitch;
		min_size = c->min_size > min_size ? c->min_size : min_size;
		flags |= c->flags;
		buffers = c->min_buffers > buffers ? c->min_buffers : buffers;
	}
	if ((!exact && !least(l->pitch[0], m->pitch_alignment, row)) || l->offset[0] ||
	    out->flags != (flags & (LLMEM_CONSTRAINT_CONTIGUOUS | LLMEM_CONSTRAINT_PLANE_PER_FD |
				    LLMEM_CONSTRAINT_PLANES_IN_ONE_FD)) ||
	    out->min_buffers != buffers)
		abort();
	if (l->num_planes == 2) {
		if (!least(l->offset[1], m->plane_alignment, end))
			abort();
		end = l->offset[1] + (uint64_t)l->pitch[1] * (l->coded_height / 2);
	}
	if (!least(l->size, m->size_alignment, end > min_size ? end : min_size))
		abort();
}

static void check(const struct llmem_participant *ps, uint32_t n,
		  const struct llmem_negotiate_request *r, const struct llmem_negotiated *out)
{
	const struct llmem_frame_layout *l = &out->layout;

	if (llmem_frame_layout_check(l, "fuzz") || l->size > UINT32_MAX || l->width != r->width ||
	    l->height != r->height || !asks_linear(r) || l->fourcc != first_shared(ps, n, r))
		abort();
	check_least(ps, n, out);
	check_coded(ps, n, out);
	for (uint32_t i = 0; i < n; i++) {
		const struct llmem_constraints *c = &ps[i].constraints;

		for (uint32_t p = 0; p < l->num_planes; p++)
			if ((c->pitch_alignment && l->pitch[p] % c->pitch_alignment) ||
			    (c->pitch && l->pitch[p] != c->pitch) ||
			    (c->max_pitch && l->pitch[p] > c->max_pitch) ||
			    (c->plane_alignment && l->offset[p] % c->plane_alignment))
				abort();
		if ((c->size_alignment && l->size % c->size_alignment) || l->size < c->min_size ||
		    (c->max_size && l->size > c->max_size) ||
		    (out->flags & c->flags) != (c->flags & out->flags) ||
		    ((c->flags & LLMEM_CONSTRAINT_CONTIGUOUS) &&
		     !(out->flags & LLMEM_CONSTRAINT_CONTIGUOUS)) ||
		    out->min_buffers < c->min_buffers)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct llmem_participant *ps, *rev;
	struct llmem_negotiate_request r = { 0 };
	struct llmem_negotiated out, again;
	uint32_t order[4];
	uint64_t mods[3];
	uint8_t shape = fuzz_u8(&in);
	uint32_t n = (shape & 0x1f) % (LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 2);
	int ret;

	r.width = fuzz_u32(&in);
	r.height = fuzz_u32(&in);
	if (shape & 0x20) {
		r.width &= 0xfff;
		r.height &= 0xfff;
	}
	if (shape & 0x40) {
		r.num_fourccs = fuzz_u8(&in) % 5;
		for (uint32_t i = 0; i < r.num_fourccs; i++)
			order[i] = fuzz_fourcc(&in);
		r.fourccs = order;
	}
	if (shape & 0x80) {
		r.num_modifiers = fuzz_u8(&in) % 4;
		for (uint32_t i = 0; i < r.num_modifiers; i++)
			mods[i] = modifiers[fuzz_u8(&in) % 3];
		r.modifiers = mods;
	}
	/* Exactly @n on the heap: a read past the last one is caught. */
	ps = calloc(n ? n : 1, sizeof(*ps));
	rev = calloc(n ? n : 1, sizeof(*rev));
	if (!ps || !rev)
		abort();
	for (uint32_t i = 0; i < n; i++)
		fuzz_participant(&in, &ps[i]);

	ret = llmem_negotiate(ps, n, &r, &out);
	if (ret && ret != -EINVAL && ret != -ENOTSUP && ret != -EOVERFLOW)
		abort();
	if (ret && !llmem_last_error()[0])
		abort();
	if (!ret)
		check(ps, n, &r, &out);
	if (llmem_negotiate(ps, n, &r, &again) != ret ||
	    (!ret && memcmp(&out.layout, &again.layout, sizeof(out.layout))))
		abort();
	/* Reversed, a refusal may name another participant first. */
	for (uint32_t i = 0; i < n; i++)
		rev[i] = ps[n - 1 - i];
	if (!!llmem_negotiate(rev, n, &r, &again) != !!ret ||
	    (!ret && memcmp(&out.layout, &again.layout, sizeof(out.layout))))
		abort();
	free(rev);
	free(ps);
	return 0;
}
