// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/frame.h>

#include "base/error.h"
#include "memory/frame.h"

struct format_desc {
	uint32_t fourcc;
	const char *name;
	uint32_t num_planes;
	/* Bytes per pixel pair in each plane's row; NV12's chroma row holds
	 * one CbCr pair per two pixels. */
	uint32_t pair_bytes[2];
	/* Rows of each plane per two rows of pixels. */
	uint32_t pair_rows[2];
	/* What the shaders need of pitches and offsets: words they read or
	 * write whole.  24-bit RGB is read a byte at a time, at any pitch: a
	 * camera's rows of width * 3 bytes (vimc's 642-pixel 1926) need none. */
	uint32_t word_aligned;
	uint32_t even_width, even_height;
};

static const struct format_desc formats[] = {
	{ DRM_FORMAT_YUYV, "YUYV", 1, { 4, 0 }, { 2, 0 }, 1, 1, 0 },
	{ DRM_FORMAT_NV12, "NV12", 2, { 2, 2 }, { 2, 1 }, 0, 1, 1 },
	{ DRM_FORMAT_ABGR8888, "ABGR8888", 1, { 8, 0 }, { 2, 0 }, 1, 0, 0 },
	{ DRM_FORMAT_XRGB8888, "XRGB8888", 1, { 8, 0 }, { 2, 0 }, 1, 0, 0 },
	{ DRM_FORMAT_ARGB8888, "ARGB8888", 1, { 8, 0 }, { 2, 0 }, 1, 0, 0 },
	{ DRM_FORMAT_BGR888, "BGR888", 1, { 6, 0 }, { 2, 0 }, 0, 0, 0 },
	{ DRM_FORMAT_RGB888, "RGB888", 1, { 6, 0 }, { 2, 0 }, 0, 0, 0 },
};

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static const struct format_desc *find_desc(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fourcc == fourcc)
			return &formats[i];
	return NULL;
}

uint32_t llmem_frame_granule(uint32_t fourcc)
{
	const struct format_desc *f = find_desc(fourcc);

	return f ? (f->word_aligned ? 4 : 1) : 0;
}

void llmem_frame_side_granules(uint32_t fourcc, uint32_t *columns, uint32_t *rows)
{
	const struct format_desc *f = find_desc(fourcc);

	*columns = f && f->even_width ? 2 : 1;
	*rows = f && f->even_height ? 2 : 1;
}

/* Whether the format can have a side of @width x @height pixels. */
static bool fits(const struct format_desc *f, uint32_t width, uint32_t height)
{
	return width && height && !(f->even_width && width % 2) && !(f->even_height && height % 2);
}

LLMEM_PUBLIC int llmem_frame_layout_init(uint32_t fourcc, uint32_t width, uint32_t height,
					 const struct llmem_frame_constraints *constraints,
					 struct llmem_frame_layout *layout)
{
	static const struct llmem_frame_constraints none;
	const struct llmem_frame_constraints *c = constraints ? constraints : &none;
	const struct format_desc *f;
	struct llmem_frame_layout l = { 0 };
	uint32_t pitch_align, plane_align, coded_width, coded_height;
	uint64_t row_bytes, offset = 0;

	if (!layout)
		return llmem_error(-EINVAL, "llmem_frame_layout_init: NULL layout");
	f = find_desc(fourcc);
	if (!f)
		return llmem_error(-EINVAL,
				   "fourcc 0x%08x: only YUYV, NV12, ABGR8888, XRGB8888, "
				   "ARGB8888, BGR888 and RGB888 are supported",
				   fourcc);
	coded_width = c->coded_width ? c->coded_width : width;
	coded_height = c->coded_height ? c->coded_height : height;
	if (!fits(f, width, height) || !fits(f, coded_width, coded_height))
		return llmem_error(-EINVAL, "%s frames cannot be %ux%u%s", f->name,
				   fits(f, width, height) ? coded_width : width,
				   fits(f, width, height) ? coded_height : height,
				   f->even_height  ? " (width and height must be even)"
				   : f->even_width ? " (width must be even)"
						   : "");
	if (coded_width < width || coded_height < height)
		return llmem_error(-EINVAL, "a %ux%u %s picture cannot lie in a %ux%u coded frame",
				   width, height, f->name, coded_width, coded_height);
	if ((c->pitch_alignment && !is_pow2(c->pitch_alignment)) ||
	    (c->plane_alignment && !is_pow2(c->plane_alignment)))
		return llmem_error(-EINVAL, "alignments must be powers of two (pitch %u, plane %u)",
				   c->pitch_alignment, c->plane_alignment);

	pitch_align = c->pitch_alignment ? c->pitch_alignment : 1;
	plane_align = c->plane_alignment ? c->plane_alignment : 1;
	if (f->word_aligned) {
		pitch_align = pitch_align > 4 ? pitch_align : 4;
		plane_align = plane_align > 4 ? plane_align : 4;
	}

	row_bytes = (uint64_t)coded_width * f->pair_bytes[0] / 2;
	if (c->pitch) {
		if (c->pitch < row_bytes)
			return llmem_error(
				-EINVAL,
				"importer's pitch %u is below the %llu bytes of a %u-pixel %s row",
				c->pitch, (unsigned long long)row_bytes, coded_width, f->name);
		if (c->pitch % pitch_align)
			return llmem_error(-EINVAL, "importer's pitch %u is not a multiple of %u%s",
					   c->pitch, pitch_align,
					   f->word_aligned && pitch_align == 4
						   ? " (the shaders read 32-bit words)"
						   : "");
	}

	l.fourcc = fourcc;
	l.width = width;
	l.height = height;
	l.coded_width = coded_width;
	l.coded_height = coded_height;
	l.num_planes = f->num_planes;
	l.modifier = DRM_FORMAT_MOD_LINEAR;
	for (uint32_t p = 0; p < f->num_planes; p++) {
		uint64_t plane_row = (uint64_t)coded_width * f->pair_bytes[p] / 2;
		uint64_t rows = (uint64_t)coded_height * f->pair_rows[p] / 2;
		/* A V4L2 driver's bytesperline applies to every plane of a
		 * single-buffer format. */
		uint64_t pitch = c->pitch ? c->pitch : align_up(plane_row, pitch_align);

		offset = align_up(offset, plane_align);
		/* Checked before the product: a row of 2^32 pixels of 4 bytes
		 * times 2^32 rows wraps 64 bits, and a pitch must fit its field.
		 * Below these bounds pitch × rows < 2^65 / 2 cannot wrap. */
		if (pitch > UINT32_MAX || offset > UINT32_MAX || pitch * rows > UINT32_MAX - offset)
			return llmem_error(-EOVERFLOW,
					   "a %ux%u %s frame needs more than 4 GiB (plane %u: %llu "
					   "rows of %llu bytes)",
					   coded_width, coded_height, f->name, p,
					   (unsigned long long)rows, (unsigned long long)pitch);
		l.offset[p] = offset;
		l.pitch[p] = (uint32_t)pitch;
		offset += pitch * rows;
	}
	if (offset < c->min_size)
		offset = c->min_size;
	if (offset > UINT32_MAX)
		return llmem_error(-EOVERFLOW, "a %ux%u %s frame needs %llu bytes, over 4 GiB",
				   coded_width, coded_height, f->name, (unsigned long long)offset);
	l.size = offset;
	*layout = l;
	return 0;
}

int llmem_frame_layout_check(const struct llmem_frame_layout *l, const char *what)
{
	const struct format_desc *f = find_desc(l->fourcc);
	uint32_t coded_width = llmem_frame_coded_width(l);
	uint32_t coded_height = llmem_frame_coded_height(l);

	if (!f)
		return llmem_error(-EINVAL, "%s: fourcc 0x%08x is none of llmem's frame formats",
				   what, l->fourcc);
	if (l->num_planes != f->num_planes || l->modifier != DRM_FORMAT_MOD_LINEAR || !l->width ||
	    !l->height)
		return llmem_error(-EINVAL,
				   "%s: a %ux%u %s frame of %u planes, modifier 0x%llx (%s has "
				   "%u, linear)",
				   what, l->width, l->height, f->name, l->num_planes,
				   (unsigned long long)l->modifier, f->name, f->num_planes);
	if (coded_width < l->width || coded_height < l->height)
		return llmem_error(-EINVAL, "%s: a %ux%u picture in a %ux%u coded frame", what,
				   l->width, l->height, coded_width, coded_height);
	for (uint32_t p = 0; p < f->num_planes; p++) {
		uint64_t row = (uint64_t)coded_width * f->pair_bytes[p] / 2;
		uint64_t rows = ((uint64_t)coded_height * f->pair_rows[p] + 1) / 2;

		/* pitch × rows < 2^64: both are below 2^32. */
		if (l->pitch[p] < row || l->offset[p] > l->size ||
		    (uint64_t)l->pitch[p] * rows > l->size - l->offset[p])
			return llmem_error(-EINVAL,
					   "%s: plane %u (offset %llu, pitch %u, %llu rows of %llu "
					   "bytes) does not lie in the frame's %llu bytes",
					   what, p, (unsigned long long)l->offset[p], l->pitch[p],
					   (unsigned long long)rows, (unsigned long long)row,
					   (unsigned long long)l->size);
	}
	return 0;
}

LLMEM_PUBLIC int llmem_frame_layout_padding(const struct llmem_frame_layout *l, uint32_t plane,
					    struct llmem_frame_padding *out)
{
	const struct format_desc *f;
	int ret;

	if (!l || !out)
		return llmem_error(-EINVAL, "llmem_frame_layout_padding: NULL %s",
				   l ? "out" : "layout");
	ret = llmem_frame_layout_check(l, "frame padding");
	if (ret)
		return ret;
	if (plane >= l->num_planes)
		return llmem_error(-EINVAL, "frame padding: plane %u of a frame of %u", plane,
				   l->num_planes);
	f = find_desc(l->fourcc);
	/* The check above holds the rows and the pitch within 32 bits. */
	out->right = l->pitch[plane] - (uint32_t)((uint64_t)l->width * f->pair_bytes[plane] / 2);
	out->bottom =
		(uint32_t)(((uint64_t)llmem_frame_coded_height(l) * f->pair_rows[plane] + 1) / 2 -
			   ((uint64_t)l->height * f->pair_rows[plane] + 1) / 2);
	return 0;
}
