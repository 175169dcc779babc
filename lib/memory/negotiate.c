// SPDX-License-Identifier: MIT
/*
 * The merge of participants' statements (negotiate.h): capabilities
 * intersected, constraints unioned, and the frame laid out once for all.
 * Each merged constraint remembers which participant made it what it is,
 * so that a conflict names both sides.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/negotiate.h>

#include "base/error.h"
#include "base/export.h"
#include "memory/frame.h"

/* The library's own order where the caller gives none: what cameras and
 * codecs make, then what displays scan out. */
static const uint32_t default_order[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12, DRM_FORMAT_XRGB8888,
					  DRM_FORMAT_ARGB8888, DRM_FORMAT_ABGR8888 };
static const uint64_t linear_only[] = { DRM_FORMAT_MOD_LINEAR };

/* The merged constraints, and per field the participant that set it;
 * flags_by, the side alignments' and coded_by are -1 while none did. */
struct merged {
	struct llmem_constraints c;
	int pitch_by, pitch_align_by, plane_align_by, size_align_by, min_size_by, max_size_by;
	int max_pitch_by, flags_by[3];
	int column_align_by, row_align_by, max_width_by, max_height_by;
	/* The largest coded size a participant states for the fourcc. */
	uint32_t coded_width, coded_height;
	int coded_by;
};

static const char *fourcc_name(uint32_t fourcc, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		char ch = (char)((fourcc >> (8 * i)) & 0xff);

		buf[i] = ch >= 32 && ch < 127 ? ch : '?';
	}
	buf[4] = '\0';
	return buf;
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

/* The least common multiple of two alignments (0: none) in *@acc, or
 * -EOVERFLOW past 32 bits. */
static int lcm_into(uint32_t *acc, uint32_t a)
{
	uint64_t l;

	if (!a || a == *acc)
		return 0;
	if (!*acc) {
		*acc = a;
		return 0;
	}
	l = (uint64_t)*acc / gcd(*acc, a) * a;
	if (l > UINT32_MAX)
		return -EOVERFLOW;
	*acc = (uint32_t)l;
	return 0;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* A statement that contradicts itself, or that a peer sent malformed. */
static int check_statement(const struct llmem_participant *p, uint32_t index)
{
	const struct llmem_constraints *c = &p->constraints;

	/* Every message prints the name. */
	if (!memchr(p->name, '\0', sizeof(p->name)))
		return llmem_error(-EINVAL, "participant %u: a name of %zu bytes without its end",
				   index, sizeof(p->name));
	if (p->num_formats > LLMEM_NEGOTIATE_MAX_FORMATS)
		return llmem_error(-EINVAL, "%s: %u formats; at most %u", p->name, p->num_formats,
				   LLMEM_NEGOTIATE_MAX_FORMATS);
	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->num_modifiers > LLMEM_NEGOTIATE_MAX_MODIFIERS)
			return llmem_error(-EINVAL, "%s: %u modifiers; at most %u", p->name,
					   f->num_modifiers, LLMEM_NEGOTIATE_MAX_MODIFIERS);
		if (!f->coded_width != !f->coded_height)
			return llmem_error(-EINVAL,
					   "%s: a coded size of %ux%u for format %u: give both "
					   "sides or neither",
					   p->name, f->coded_width, f->coded_height, i);
	}
	if ((c->max_width && c->min_width > c->max_width) ||
	    (c->max_height && c->min_height > c->max_height) ||
	    (c->max_size && c->min_size > c->max_size) || (c->max_pitch && c->pitch > c->max_pitch))
		return llmem_error(-EINVAL, "%s states a minimum past its maximum", p->name);
	if (c->pitch && c->pitch_alignment && c->pitch % c->pitch_alignment)
		return llmem_error(-EINVAL, "%s needs pitch %u and a multiple of %u", p->name,
				   c->pitch, c->pitch_alignment);
	return 0;
}

static int merge_alignment(uint32_t *acc, int *by, const struct llmem_participant *ps, int i,
			   uint32_t a, const char *what)
{
	uint32_t before = *acc;

	/* The common multiple so far may be no single participant's. */
	if (lcm_into(acc, a))
		return llmem_error(-EOVERFLOW,
				   "the %s alignment of %s (%u) and the common multiple of those "
				   "before it (%u, last raised by %s) pass 32 bits",
				   what, ps[i].name, a, before, ps[*by].name);
	if (*acc != before)
		*by = i;
	return 0;
}

static int merge(const struct llmem_participant *ps, uint32_t n,
		 const struct llmem_negotiate_request *r, struct merged *m)
{
	static const uint32_t exclusive[3] = { LLMEM_CONSTRAINT_CONTIGUOUS,
					       LLMEM_CONSTRAINT_PLANE_PER_FD,
					       LLMEM_CONSTRAINT_PLANES_IN_ONE_FD };
	int ret;

	memset(m, 0, sizeof(*m));
	for (int k = 0; k < 3; k++)
		m->flags_by[k] = -1;
	m->column_align_by = m->row_align_by = m->coded_by = -1;
	for (uint32_t u = 0; u < n; u++) {
		const struct llmem_constraints *c = &ps[u].constraints;
		int i = (int)u;

		ret = check_statement(&ps[u], u);
		if (!ret)
			ret = merge_alignment(&m->c.pitch_alignment, &m->pitch_align_by, ps, i,
					      c->pitch_alignment, "pitch");
		if (!ret)
			ret = merge_alignment(&m->c.plane_alignment, &m->plane_align_by, ps, i,
					      c->plane_alignment, "plane");
		if (!ret)
			ret = merge_alignment(&m->c.size_alignment, &m->size_align_by, ps, i,
					      c->size_alignment, "size");
		if (!ret)
			ret = merge_alignment(&m->c.column_alignment, &m->column_align_by, ps, i,
					      c->column_alignment, "column");
		if (!ret)
			ret = merge_alignment(&m->c.row_alignment, &m->row_align_by, ps, i,
					      c->row_alignment, "row");
		if (ret)
			return ret;
		if (c->pitch && m->c.pitch && c->pitch != m->c.pitch)
			return llmem_error(-ENOTSUP, "%s needs pitch %u; %s pitch %u",
					   ps[m->pitch_by].name, m->c.pitch, ps[i].name, c->pitch);
		if (c->pitch && !m->c.pitch) {
			m->c.pitch = c->pitch;
			m->pitch_by = i;
		}
		if (c->min_size > m->c.min_size) {
			m->c.min_size = c->min_size;
			m->min_size_by = i;
		}
		if (c->max_size && (!m->c.max_size || c->max_size < m->c.max_size)) {
			m->c.max_size = c->max_size;
			m->max_size_by = i;
		}
		if (c->max_pitch && (!m->c.max_pitch || c->max_pitch < m->c.max_pitch)) {
			m->c.max_pitch = c->max_pitch;
			m->max_pitch_by = i;
		}
		/* The maximums bound the coded frame, known once the format is. */
		if (c->min_width > r->width || c->min_height > r->height)
			return llmem_error(-ENOTSUP, "%s takes %u..%u x %u..%u pixels, not %ux%u",
					   ps[i].name, c->min_width, c->max_width, c->min_height,
					   c->max_height, r->width, r->height);
		if (c->max_width && (!m->c.max_width || c->max_width < m->c.max_width)) {
			m->c.max_width = c->max_width;
			m->max_width_by = i;
		}
		if (c->max_height && (!m->c.max_height || c->max_height < m->c.max_height)) {
			m->c.max_height = c->max_height;
			m->max_height_by = i;
		}
		for (int k = 0; k < 3; k++)
			if ((c->flags & exclusive[k]) && m->flags_by[k] < 0)
				m->flags_by[k] = i;
		m->c.flags |= c->flags;
		if (c->min_buffers > m->c.min_buffers)
			m->c.min_buffers = c->min_buffers;
	}
	return 0;
}

static const struct llmem_format_caps *find_format(const struct llmem_participant *p,
						   uint32_t fourcc)
{
	for (uint32_t i = 0; i < p->num_formats; i++)
		if (p->formats[i].fourcc == fourcc)
			return &p->formats[i];
	return NULL;
}

/* Whether @p takes @fourcc with @modifier: by any of its entries of
 * @fourcc (KMS's IN_FORMATS gives one per modifier), or as one that takes
 * any fourcc, linear. */
static bool takes(const struct llmem_participant *p, uint32_t fourcc, uint64_t modifier)
{
	if (!p->num_formats)
		return modifier == DRM_FORMAT_MOD_LINEAR;
	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->fourcc != fourcc)
			continue;
		if (!f->num_modifiers && modifier == DRM_FORMAT_MOD_LINEAR)
			return true;
		for (uint32_t k = 0; k < f->num_modifiers; k++)
			if (f->modifiers[k] == modifier)
				return true;
	}
	return false;
}

/*
 * The first fourcc of the order every participant takes with a modifier
 * llmem lays out (linear), wherever the caller ranks it among the
 * modifiers: 0, or -ENOTSUP naming who lacks the most preferred fourcc.
 */
static int choose_format(const struct llmem_participant *ps, uint32_t n,
			 const struct llmem_negotiate_request *r, uint32_t *fourcc)
{
	const uint32_t *order = r->fourccs ? r->fourccs : default_order;
	uint32_t count = r->fourccs ? r->num_fourccs : sizeof(default_order) / sizeof(*order);
	const uint64_t *mods = r->modifiers ? r->modifiers : linear_only;
	uint32_t nmods = r->modifiers ? r->num_modifiers : 1;
	/* The first other modifier all take, for the refusal. */
	uint64_t tiled = DRM_FORMAT_MOD_LINEAR;
	char name[5];

	for (uint32_t f = 0; f < count; f++) {
		for (uint32_t k = 0; k < nmods; k++) {
			bool all = true;

			for (uint32_t i = 0; all && i < n; i++)
				all = takes(&ps[i], order[f], mods[k]);
			if (!all)
				continue;
			if (mods[k] != DRM_FORMAT_MOD_LINEAR) {
				if (tiled == DRM_FORMAT_MOD_LINEAR)
					tiled = mods[k];
				continue;
			}
			*fourcc = order[f];
			return 0;
		}
	}
	if (!count)
		return llmem_error(-EINVAL, "negotiate: an empty list of fourccs");
	if (tiled != DRM_FORMAT_MOD_LINEAR)
		return llmem_error(-ENOTSUP,
				   "the participants share modifier 0x%llx; llmem lays "
				   "out linear frames only",
				   (unsigned long long)tiled);
	for (uint32_t i = 0; i < n; i++)
		if (ps[i].num_formats && !find_format(&ps[i], order[0]))
			return llmem_error(-ENOTSUP, "%s has no %s", ps[i].name,
					   fourcc_name(order[0], name));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < nmods && !takes(&ps[i], order[0], mods[k]))
			k++;
		if (k == nmods)
			return llmem_error(-ENOTSUP,
					   "%s takes %s with none of the modifiers asked "
					   "for (0x%llx first)",
					   ps[i].name, fourcc_name(order[0], name),
					   (unsigned long long)mods[0]);
	}
	return llmem_error(-ENOTSUP,
			   "the participants take %s with no modifier in common of those "
			   "asked for",
			   fourcc_name(order[0], name));
}

/* The facts of the chosen fourcc (an exact pitch, a size) merged with the
 * participants' own. */
static int merge_format_facts(const struct llmem_participant *ps, uint32_t n,
			      const struct llmem_negotiate_request *r, uint32_t fourcc,
			      struct merged *m)
{
	for (uint32_t u = 0; u < n; u++) {
		const struct llmem_format_caps *f = find_format(&ps[u], fourcc);
		int i = (int)u, ret;

		if (!f)
			continue;
		if (f->pitch && m->c.pitch && f->pitch != m->c.pitch)
			return llmem_error(-ENOTSUP, "%s needs pitch %u; %s pitch %u",
					   ps[m->pitch_by].name, m->c.pitch, ps[i].name, f->pitch);
		if (f->pitch && !m->c.pitch) {
			m->c.pitch = f->pitch;
			m->pitch_by = i;
		}
		if (f->min_size > m->c.min_size) {
			m->c.min_size = f->min_size;
			m->min_size_by = i;
		}
		ret = merge_alignment(&m->c.column_alignment, &m->column_align_by, ps, i,
				      f->column_alignment, "column");
		if (!ret)
			ret = merge_alignment(&m->c.row_alignment, &m->row_align_by, ps, i,
					      f->row_alignment, "row");
		if (ret)
			return ret;
		if (f->coded_width && (f->coded_width < r->width || f->coded_height < r->height))
			return llmem_error(-EINVAL,
					   "%s codes a %ux%u picture as %ux%u: smaller than the "
					   "picture",
					   ps[i].name, r->width, r->height, f->coded_width,
					   f->coded_height);
		if (f->coded_width > m->coded_width || f->coded_height > m->coded_height) {
			m->coded_width =
				f->coded_width > m->coded_width ? f->coded_width : m->coded_width;
			m->coded_height = f->coded_height > m->coded_height ? f->coded_height
									    : m->coded_height;
			m->coded_by = i;
		}
	}
	return 0;
}

/* Whether @p takes no padding on the side of @flag with @fourcc. */
static bool no_crop(const struct llmem_participant *p, uint32_t fourcc, uint32_t flag)
{
	const struct llmem_format_caps *f = find_format(p, fourcc);

	return (p->constraints.flags & flag) || (f && (f->flags & flag));
}

/* Who made the coded side @side larger than the picture's: the
 * participant that stated the largest coded size, or the one whose
 * alignment raised the common multiple last. */
static const char *padded_by(const struct llmem_participant *ps, const struct merged *m,
			     bool columns, uint64_t side)
{
	int by = columns ? m->column_align_by : m->row_align_by;

	if (m->coded_by >= 0 && (columns ? m->coded_width : m->coded_height) == side)
		by = m->coded_by;
	return by >= 0 ? ps[by].name : "the format";
}

/*
 * The coded size: the picture's or the largest a participant states,
 * rounded up to every alignment; then whether each participant takes it:
 * one that stated a coded size gets that one, one that takes no smaller
 * picture gets no padding on that side, and the maximums hold.
 */
static int choose_coded(const struct llmem_participant *ps, uint32_t n,
			const struct llmem_negotiate_request *r, uint32_t fourcc, struct merged *m,
			uint32_t *width, uint32_t *height)
{
	static const uint32_t sides[2] = { LLMEM_CONSTRAINT_NO_CROP_WIDTH,
					   LLMEM_CONSTRAINT_NO_CROP_HEIGHT };
	uint32_t aw = m->c.column_alignment, ah = m->c.row_alignment, gw, gh;
	uint64_t w, h;

	llmem_frame_side_granules(fourcc, &gw, &gh);
	if (lcm_into(&aw, gw) || lcm_into(&ah, gh))
		return llmem_error(-EOVERFLOW, "negotiate: a side's alignment passes 32 bits");
	w = round_up(r->width > m->coded_width ? r->width : m->coded_width, aw);
	h = round_up(r->height > m->coded_height ? r->height : m->coded_height, ah);
	if (w > UINT32_MAX || h > UINT32_MAX)
		return llmem_error(-EOVERFLOW,
				   "a %ux%u picture coded in columns of %u and rows of %u passes "
				   "32 bits",
				   r->width, r->height, aw, ah);
	for (uint32_t i = 0; i < n; i++) {
		const struct llmem_format_caps *f = find_format(&ps[i], fourcc);

		if (f && f->coded_width && (f->coded_width != w || f->coded_height != h))
			return llmem_error(
				-ENOTSUP, "%s codes a %ux%u picture as %ux%u; %s needs %llux%llu",
				ps[i].name, r->width, r->height, f->coded_width, f->coded_height,
				padded_by(ps, m, f->coded_width != w, f->coded_width != w ? w : h),
				(unsigned long long)w, (unsigned long long)h);
	}
	for (int k = 0; k < 2; k++) {
		uint64_t side = k ? h : w;
		uint32_t picture = k ? r->height : r->width;

		if (side == picture)
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (no_crop(&ps[i], fourcc, sides[k]))
				return llmem_error(
					-ENOTSUP,
					"%s takes no picture %s than its frame: %s codes "
					"the %ux%u picture as %llux%llu",
					ps[i].name, k ? "shorter" : "narrower",
					padded_by(ps, m, !k, side), r->width, r->height,
					(unsigned long long)w, (unsigned long long)h);
	}
	if ((m->c.max_width && w > m->c.max_width) || (m->c.max_height && h > m->c.max_height)) {
		const struct llmem_participant *p =
			&ps[m->c.max_width && w > m->c.max_width ? m->max_width_by
								 : m->max_height_by];
		const struct llmem_constraints *c = &p->constraints;

		return llmem_error(-ENOTSUP, "%s takes %u..%u x %u..%u pixels, not %llux%llu",
				   p->name, c->min_width, c->max_width, c->min_height,
				   c->max_height, (unsigned long long)w, (unsigned long long)h);
	}
	*width = (uint32_t)w;
	*height = (uint32_t)h;
	return 0;
}

/* The pitch every participant takes: the exact one, checked against the
 * merged alignment and bound, or the row rounded up to the alignment. */
static int choose_pitch(const struct llmem_participant *ps, uint32_t n, const struct merged *m,
			uint32_t row, uint32_t granule, const char *padder, uint32_t *pitch)
{
	uint32_t a = m->c.pitch_alignment;
	uint64_t p = m->c.pitch ? m->c.pitch : round_up(row, a);

	/* Below a row of the picture it contradicts itself; below a row that
	 * another participant's padding made, it refuses that padding. */
	if (m->c.pitch && m->c.pitch < row && padder)
		return llmem_error(-ENOTSUP,
				   "%s needs pitch %u, below the %u bytes of a row coded as %s "
				   "needs",
				   ps[m->pitch_by].name, m->c.pitch, row, padder);
	if (m->c.pitch && m->c.pitch < row)
		return llmem_error(-EINVAL, "%s needs pitch %u, below the %u bytes of a row",
				   ps[m->pitch_by].name, m->c.pitch, row);
	/* A pitch that every participant's alignment divides, their common
	 * multiple divides too: one off the merged alignment is off some
	 * participant's own, or else off the shaders' words, and that one is
	 * named with what it stated. */
	if (m->c.pitch && a && m->c.pitch % a) {
		for (uint32_t i = 0; i < n; i++) {
			uint32_t own = ps[i].constraints.pitch_alignment;

			if (own && m->c.pitch % own)
				return llmem_error(
					-ENOTSUP, "%s needs pitch %u; %s a multiple of %u",
					ps[m->pitch_by].name, m->c.pitch, ps[i].name, own);
		}
		return llmem_error(-ENOTSUP,
				   "%s needs pitch %u; llmem's shaders (32-bit words) a multiple "
				   "of %u",
				   ps[m->pitch_by].name, m->c.pitch, granule);
	}
	if (p > UINT32_MAX)
		return llmem_error(-EOVERFLOW, "a row of %u bytes aligned to %u passes 32 bits",
				   row, a);
	if (m->c.max_pitch && p > m->c.max_pitch)
		return llmem_error(-ENOTSUP, "%s takes a pitch of %u at most; the frame needs %llu",
				   ps[m->max_pitch_by].name, m->c.max_pitch, (unsigned long long)p);
	*pitch = (uint32_t)p;
	return 0;
}

/* The planes laid again at offsets of the merged plane alignment, which
 * need not be a power of two, each keeping its bytes. */
static int align_planes(struct llmem_frame_layout *l, uint32_t a)
{
	uint64_t bytes[LLMEM_FRAME_MAX_PLANES], offset = 0;

	if (a <= 1)
		return 0;
	for (uint32_t p = 0; p < l->num_planes; p++)
		bytes[p] = (p + 1 < l->num_planes ? l->offset[p + 1] : l->size) - l->offset[p];
	for (uint32_t p = 0; p < l->num_planes; p++) {
		offset = round_up(offset, a);
		l->offset[p] = offset;
		offset += bytes[p];
	}
	if (offset > UINT32_MAX)
		return llmem_error(-EOVERFLOW, "planes aligned to %u pass 4 GiB", a);
	l->size = offset;
	return 0;
}

LLMEM_PUBLIC int llmem_negotiate(const struct llmem_participant *ps, uint32_t n,
				 const struct llmem_negotiate_request *r,
				 struct llmem_negotiated *out)
{
	struct llmem_frame_constraints fc = { 0 };
	struct llmem_frame_layout min, l;
	uint64_t size;
	uint32_t fourcc, pitch, granule, coded_width, coded_height;
	struct merged m;
	int ret;

	if (!ps || !r || !out)
		return llmem_error(-EINVAL, "negotiate: NULL %s",
				   !ps	? "participants"
				   : !r ? "request"
					: "out");
	if (!n || n > LLMEM_NEGOTIATE_MAX_PARTICIPANTS)
		return llmem_error(-EINVAL, "negotiate: %u participants; 1 to %u", n,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	if (!r->width || !r->height)
		return llmem_error(-EINVAL, "negotiate: a frame of %ux%u", r->width, r->height);
	if ((r->fourccs && !r->num_fourccs) || (r->modifiers && !r->num_modifiers))
		return llmem_error(-EINVAL, "negotiate: an empty list of %s",
				   r->fourccs && !r->num_fourccs ? "fourccs" : "modifiers");
	ret = merge(ps, n, r, &m);
	if (!ret)
		ret = choose_format(ps, n, r, &fourcc);
	if (!ret)
		ret = merge_format_facts(ps, n, r, fourcc, &m);
	if (ret)
		return ret;
	ret = choose_coded(ps, n, r, fourcc, &m, &coded_width, &coded_height);
	if (ret)
		return ret;
	/* The coded row as the library lays it out alone, and its own demand
	 * on pitches (the shaders' words) merged in. */
	fc.coded_width = coded_width;
	fc.coded_height = coded_height;
	ret = llmem_frame_layout_init(fourcc, r->width, r->height, &fc, &min);
	if (ret)
		return ret;
	granule = llmem_frame_granule(fourcc);
	if (lcm_into(&m.c.pitch_alignment, granule) || lcm_into(&m.c.plane_alignment, granule))
		return llmem_error(-EOVERFLOW, "negotiate: alignments past 32 bits");
	ret = choose_pitch(ps, n, &m, min.pitch[0], granule,
			   coded_width != r->width ? padded_by(ps, &m, true, coded_width) : NULL,
			   &pitch);
	if (ret)
		return ret;
	fc.pitch = pitch;
	ret = llmem_frame_layout_init(fourcc, r->width, r->height, &fc, &l);
	if (!ret)
		ret = align_planes(&l, m.c.plane_alignment);
	if (ret)
		return ret;
	size = l.size > m.c.min_size ? l.size : m.c.min_size;
	if (round_up(size, m.c.size_alignment) < size ||
	    round_up(size, m.c.size_alignment) > UINT32_MAX)
		return llmem_error(-EOVERFLOW, "a frame of %llu bytes aligned to %u passes 4 GiB",
				   (unsigned long long)size, m.c.size_alignment);
	size = round_up(size, m.c.size_alignment);
	if (m.c.max_size && size > m.c.max_size)
		return llmem_error(-ENOTSUP, "%s holds %llu bytes at most; the frame needs %llu",
				   ps[m.max_size_by].name, (unsigned long long)m.c.max_size,
				   (unsigned long long)size);
	if ((m.c.flags & LLMEM_CONSTRAINT_PLANE_PER_FD) &&
	    (m.c.flags & LLMEM_CONSTRAINT_PLANES_IN_ONE_FD) && l.num_planes > 1)
		return llmem_error(-ENOTSUP, "%s needs a buffer per plane; %s all planes in one",
				   ps[m.flags_by[1]].name, ps[m.flags_by[2]].name);
	l.size = size;
	memset(out, 0, sizeof(*out));
	out->layout = l;
	out->constraints = m.c;
	out->flags = m.c.flags & (LLMEM_CONSTRAINT_CONTIGUOUS | LLMEM_CONSTRAINT_PLANE_PER_FD |
				  LLMEM_CONSTRAINT_PLANES_IN_ONE_FD);
	out->min_buffers = m.c.min_buffers;
	for (uint32_t p = 0; p < l.num_planes; p++)
		llmem_frame_layout_padding(&l, p, &out->padding[p]);
	return 0;
}
