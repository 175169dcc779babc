// SPDX-License-Identifier: MIT
/*
 * llmem_negotiate() (negotiate.h), one table row per case: the participants'
 * statements, the request, and either the layout all of them accept or the
 * errno and the words of the message that names who refuses what.  Every
 * layout given is also checked against each participant's own statement,
 * given again for the same input, and for the participants in reverse order.
 * The Vulkan participant is stated by the session's device (lavapipe on the
 * build machine) and merged with others.
 */
#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/memory.h>
#include <llmem/negotiate.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define MAX_SPECS 4
#define NONE_MOD I915_FORMAT_MOD_X_TILED

enum spec_kind {
	SPEC_STATED = 0, /* by the caller: .name, .fourccs, .mods, .c */
	SPEC_CPU,
	SPEC_CONTIGUOUS,
};

/* A participant as a row states it; build() makes it. */
struct spec {
	enum spec_kind kind;
	const char *name;
	/* The fourccs it takes, up to the first 0; none: any. */
	uint32_t fourccs[4];
	/* The modifiers it takes with each, up to the first 0 after the
	 * first; none: linear only. */
	uint64_t mods[3];
	uint32_t num_mods;
	/* One more entry, of this fourcc, linear only. */
	uint32_t linear_entry;
	struct llmem_constraints c;
	/* Counts past the arrays' ends, and a name without its end, as a
	 * peer could send them. */
	uint32_t bad_num_formats, bad_num_modifiers;
	int bad_name;
};

struct row {
	struct spec p[MAX_SPECS];
	uint32_t width, height;
	/* The caller's order; none: the library's. */
	uint32_t fourccs[4];
	uint32_t num_fourccs;
	uint64_t mods[3];
	uint32_t num_mods;
	/* A list given with no entries. */
	int empty_fourccs, empty_mods;
	int err;
	/* For a refusal: words of the message. */
	const char *msg;
	/* For a layout. */
	uint32_t fourcc;
	uint32_t pitch[2];
	uint64_t offset[2];
	uint64_t size;
	uint32_t flags;
	uint32_t min_buffers;
};

#define CPU                      \
	{                        \
		.kind = SPEC_CPU \
	}
#define CONTIGUOUS                      \
	{                               \
		.kind = SPEC_CONTIGUOUS \
	}

static void build(const struct spec *s, struct llmem_participant *p)
{
	if (s->kind == SPEC_CPU) {
		llmem_participant_cpu(p);
		return;
	}
	if (s->kind == SPEC_CONTIGUOUS) {
		llmem_participant_llmem_contiguous(p);
		return;
	}
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", s->name);
	p->kind = LLMEM_PARTICIPANT_OTHER;
	for (uint32_t i = 0; i < 4 && s->fourccs[i]; i++) {
		struct llmem_format_caps *f = &p->formats[p->num_formats++];

		f->fourcc = s->fourccs[i];
		f->source = LLMEM_FACT_REPORTED;
		f->num_modifiers = s->num_mods;
		memcpy(f->modifiers, s->mods, sizeof(s->mods));
		if (s->bad_num_modifiers)
			f->num_modifiers = s->bad_num_modifiers;
	}
	if (s->linear_entry)
		p->formats[p->num_formats++].fourcc = s->linear_entry;
	if (s->bad_num_formats)
		p->num_formats = s->bad_num_formats;
	if (s->bad_name)
		memset(p->name, 'x', sizeof(p->name));
	p->constraints = s->c;
}

static uint32_t num_specs(const struct row *r)
{
	uint32_t n = 0;

	while (n < MAX_SPECS && (r->p[n].kind || r->p[n].name))
		n++;
	return n;
}

static void request_of(const struct row *r, struct llmem_negotiate_request *q)
{
	*q = (struct llmem_negotiate_request){ .width = r->width, .height = r->height };
	if (r->num_fourccs || r->empty_fourccs) {
		q->fourccs = r->fourccs;
		q->num_fourccs = r->num_fourccs;
	}
	if (r->num_mods || r->empty_mods) {
		q->modifiers = r->mods;
		q->num_modifiers = r->num_mods;
	}
}

/* Whether @l meets what @p states of a frame, field by field. */
static void expect_accepted(struct __test_metadata *_metadata, const struct llmem_participant *p,
			    const struct llmem_negotiated *out)
{
	const struct llmem_constraints *c = &p->constraints;
	const struct llmem_frame_layout *l = &out->layout;

	for (uint32_t i = 0; i < l->num_planes; i++) {
		if (c->pitch_alignment)
			EXPECT_EQ(l->pitch[i] % c->pitch_alignment, 0)
		TH_LOG("%s: pitch %u, alignment %u", p->name, l->pitch[i], c->pitch_alignment);
		if (c->pitch)
			EXPECT_EQ(l->pitch[i], c->pitch);
		if (c->max_pitch)
			EXPECT_LE(l->pitch[i], c->max_pitch);
		if (c->plane_alignment)
			EXPECT_EQ(l->offset[i] % c->plane_alignment, 0)
		TH_LOG("%s: offset %llu, alignment %u", p->name, (unsigned long long)l->offset[i],
		       c->plane_alignment);
	}
	if (c->size_alignment)
		EXPECT_EQ(l->size % c->size_alignment, 0);
	EXPECT_GE(l->size, c->min_size);
	if (c->max_size)
		EXPECT_LE(l->size, c->max_size);
	EXPECT_EQ(out->flags & c->flags, c->flags);
	EXPECT_GE(out->min_buffers, c->min_buffers);
}

/* @ps[0..@n) negotiated as @r says; a layout again and in reverse order. */
static void expect_row(struct __test_metadata *_metadata, const struct llmem_participant *ps,
		       uint32_t n, const struct row *r)
{
	struct llmem_participant rev[LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1];
	struct llmem_negotiated out, again;
	struct llmem_negotiate_request q;
	int ret;

	request_of(r, &q);
	memset(&out, 0xa5, sizeof(out));
	mark_last_error();
	ret = llmem_negotiate(ps, n, &q, &out);
	ASSERT_EQ(ret, r->err)
	TH_LOG("negotiate: %s (%s)", llmem_strerror(ret), ret ? llmem_last_error() : "");
	if (ret) {
		struct llmem_negotiated untouched;

		EXPECT_NE(strstr(llmem_last_error(), r->msg), NULL)
		TH_LOG("wanted \"%s\" in \"%s\"", r->msg, llmem_last_error());
		memset(&untouched, 0xa5, sizeof(untouched));
		EXPECT_EQ(memcmp(&out, &untouched, sizeof(out)), 0);
	} else {
		const struct llmem_frame_layout *l = &out.layout;

		EXPECT_EQ(l->fourcc, r->fourcc);
		EXPECT_EQ(l->width, r->width);
		EXPECT_EQ(l->height, r->height);
		EXPECT_EQ(l->modifier, DRM_FORMAT_MOD_LINEAR);
		EXPECT_EQ(l->num_planes, r->fourcc == DRM_FORMAT_NV12 ? 2 : 1);
		for (uint32_t i = 0; i < l->num_planes && i < 2; i++) {
			EXPECT_EQ(l->pitch[i], r->pitch[i]);
			EXPECT_EQ(l->offset[i], r->offset[i]);
		}
		EXPECT_EQ(l->size, r->size);
		EXPECT_EQ(out.flags, r->flags);
		EXPECT_EQ(out.min_buffers, r->min_buffers);
		for (uint32_t i = 0; i < n; i++)
			expect_accepted(_metadata, &ps[i], &out);
	}

	/* Deterministic, whatever the order of the participants. */
	ASSERT_EQ(llmem_negotiate(ps, n, &q, &again), ret);
	if (!ret)
		EXPECT_EQ(memcmp(&out, &again, sizeof(out)), 0);
	for (uint32_t i = 0; i < n; i++)
		rev[i] = ps[n - 1 - i];
	ASSERT_EQ(llmem_negotiate(rev, n, &q, &again), ret);
	if (!ret) {
		EXPECT_EQ(memcmp(&out.layout, &again.layout, sizeof(out.layout)), 0);
		EXPECT_EQ(out.flags, again.flags);
		EXPECT_EQ(out.min_buffers, again.min_buffers);
	}
}

FIXTURE(negotiate)
{
	struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1];
};

FIXTURE_VARIANT(negotiate)
{
	struct row r;
};

FIXTURE_SETUP(negotiate)
{
	memset(self->ps, 0, sizeof(self->ps));
}

FIXTURE_TEARDOWN(negotiate)
{
}

/* YUYV 640x480 alone: 1280-byte rows. */
FIXTURE_VARIANT_ADD(negotiate, cpu_alone){
	.r = { .p = { CPU },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

/* 64 and 256: 256; a 1300-byte row becomes 1536. */
FIXTURE_VARIANT_ADD(negotiate, pitch_alignments_pow2){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 64 },
		      { .name = "B", .c.pitch_alignment = 256 } },
	       .width = 650,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1536 },
	       .size = 1536 * 480 },
};

/* 48 and 64: 192 (and the shaders' 4 within it); 1280 becomes 7 × 192. */
FIXTURE_VARIANT_ADD(negotiate, pitch_alignments_48_64){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 48 },
		      { .name = "B", .c.pitch_alignment = 64 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1344 },
	       .size = 1344 * 480 },
};

/* 3 and 4: 12, for both NV12 planes; 640 becomes 54 × 12. */
FIXTURE_VARIANT_ADD(negotiate, pitch_alignments_3_4_nv12){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 3 },
		      { .name = "B", .c.pitch_alignment = 4 } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 648, 648 },
	       .offset = { 0, 648 * 480 },
	       .size = 648 * 720 },
};

/* YUYV's 32-bit words and an alignment of 6: 12, so 1280 becomes 1284. */
FIXTURE_VARIANT_ADD(negotiate, yuyv_words_and_6){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 6 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1284 },
	       .size = 1284 * 480 },
};

/* NV12 has no words to keep: 6 stays 6, 640 becomes 642. */
FIXTURE_VARIANT_ADD(negotiate, nv12_alignment_6){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 6 } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 642, 642 },
	       .offset = { 0, 642 * 480 },
	       .size = 642 * 720 },
};

/* XRGB8888's 641 × 4 bytes, to 3 and 4's 12: 2568. */
FIXTURE_VARIANT_ADD(negotiate, xrgb_alignment_3){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 3 } },
	       .width = 641,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_XRGB8888 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_XRGB8888,
	       .pitch = { 2568 },
	       .size = 2568 * 480 },
};

/* The same exact pitch from two, and an alignment it meets. */
FIXTURE_VARIANT_ADD(negotiate, exact_pitch_agreeing){
	.r = { .p = { { .name = "vicodec", .c.pitch = 1536 },
		      { .name = "vivid", .c.pitch = 1536 },
		      { .name = "CUDA", .c.pitch_alignment = 512 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1536 },
	       .size = 1536 * 480 },
};

/* An exact NV12 pitch is every plane's (V4L2's bytesperline). */
FIXTURE_VARIANT_ADD(negotiate, exact_pitch_nv12){
	.r = { .p = { { .name = "vicodec", .c.pitch = 768 } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 768, 768 },
	       .offset = { 0, 768 * 480 },
	       .size = 768 * 720 },
};

FIXTURE_VARIANT_ADD(negotiate, exact_pitches_disagreeing){
	.r = { .p = { { .name = "vicodec", .c.pitch = 1280 },
		      { .name = "vivid capture", .c.pitch = 1536 } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "vicodec needs pitch 1280; vivid capture pitch 1536" },
};

FIXTURE_VARIANT_ADD(negotiate, exact_pitch_against_alignment){
	.r = { .p = { { .name = "vicodec", .c.pitch = 1280 },
		      { .name = "CUDA", .c.pitch_alignment = 512 } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "vicodec needs pitch 1280; CUDA a multiple of 512" },
};

/* 3 and 512 make 1536; the refusal names the one 1024 fails, with what it
 * stated. */
FIXTURE_VARIANT_ADD(negotiate, exact_pitch_against_one_of_an_lcm){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 3 },
		      { .name = "B", .c.pitch_alignment = 512 },
		      { .name = "vicodec", .c.pitch = 1024 } },
	       .width = 512,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "vicodec needs pitch 1024; A a multiple of 3" },
};

/* 1290 is a multiple of its own 6, not of the YUYV shaders' 4. */
FIXTURE_VARIANT_ADD(negotiate, exact_pitch_against_words){
	.r = { .p = { { .name = "A", .c.pitch = 1290, .c.pitch_alignment = 6 } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "A needs pitch 1290; llmem's shaders (32-bit words) a multiple of 4" },
};

/* Documented as a statement that contradicts itself. */
FIXTURE_VARIANT_ADD(negotiate, exact_pitch_below_row){
	.r = { .p = { CPU, { .name = "vivid", .c.pitch = 1000 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "vivid needs pitch 1000, below the 1280 bytes of a row" },
};

FIXTURE_VARIANT_ADD(negotiate, exact_pitch_above_max_pitch){
	.r = { .p = { { .name = "vivid", .c.pitch = 4096 },
		      { .name = "vkms plane 31", .c.max_pitch = 2048 } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "vkms plane 31 takes a pitch of 2048 at most; the frame needs 4096" },
};

FIXTURE_VARIANT_ADD(negotiate, own_pitch_above_own_max){
	.r = { .p = { { .name = "A", .c.pitch = 4096, .c.max_pitch = 2048 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "A states a minimum past its maximum" },
};

FIXTURE_VARIANT_ADD(negotiate, own_pitch_off_own_alignment){
	.r = { .p = { { .name = "A", .c.pitch = 1300, .c.pitch_alignment = 64 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "A needs pitch 1300 and a multiple of 64" },
};

/* An alignment that pushes the row past another's widest pitch. */
FIXTURE_VARIANT_ADD(negotiate, aligned_row_above_max_pitch){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 4096 },
		      { .name = "vkms plane 31", .c.max_pitch = 2048 } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "vkms plane 31 takes a pitch of 2048 at most; the frame needs 4096" },
};

/* The tightest of two maxima, met exactly. */
FIXTURE_VARIANT_ADD(negotiate, max_pitch_met){
	.r = { .p = { { .name = "A", .c.max_pitch = 4096 }, { .name = "B", .c.max_pitch = 1280 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

/* 640 × 482: the 308480-byte Y plane, then CbCr at the next 4096. */
FIXTURE_VARIANT_ADD(negotiate, nv12_plane_alignment_4096){
	.r = { .p = { { .name = "A", .c.plane_alignment = 4096 } },
	       .width = 640,
	       .height = 482,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 640, 640 },
	       .offset = { 0, 76 * 4096 },
	       .size = 76 * 4096 + 640 * 241 },
};

/* Not a power of two: 307200 bytes of Y, CbCr at 308000. */
FIXTURE_VARIANT_ADD(negotiate, nv12_plane_alignment_1000){
	.r = { .p = { { .name = "A", .c.plane_alignment = 1000 } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 640, 640 },
	       .offset = { 0, 308000 },
	       .size = 308000 + 640 * 240 },
};

/* 48 and 64: 192; 308480 bytes of Y, CbCr at 1607 × 192. */
FIXTURE_VARIANT_ADD(negotiate, nv12_plane_alignments_48_64){
	.r = { .p = { { .name = "A", .c.plane_alignment = 48 },
		      { .name = "B", .c.plane_alignment = 64 } },
	       .width = 640,
	       .height = 482,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 640, 640 },
	       .offset = { 0, 1607 * 192 },
	       .size = 1607 * 192 + 640 * 241 },
};

/* 616960 bytes to the next 4096. */
FIXTURE_VARIANT_ADD(negotiate, size_alignment_4096){
	.r = { .p = { { .name = "A", .c.size_alignment = 4096 } },
	       .width = 640,
	       .height = 482,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 151 * 4096 },
};

/* 1000 and 4096: 512000; 614400 bytes become two of them. */
FIXTURE_VARIANT_ADD(negotiate, size_alignments_1000_4096){
	.r = { .p = { { .name = "A", .c.size_alignment = 1000 },
		      { .name = "B", .c.size_alignment = 4096 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1024000 },
};

/* A sizeimage above the frame's bytes, rounded to another's pages. */
FIXTURE_VARIANT_ADD(negotiate, min_size_and_size_alignment){
	.r = { .p = { { .name = "vivid", .c.min_size = 1000000 },
		      { .name = "B", .c.size_alignment = 4096 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 245 * 4096 },
};

/* 1920x1080 YUYV: 4147200 bytes, 1013 pages, under 4 MiB. */
FIXTURE_VARIANT_ADD(negotiate, contiguous_1080p_fits){
	.r = { .p = { CPU, CONTIGUOUS },
	       .width = 1920,
	       .height = 1080,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 3840 },
	       .size = 1013 * 4096,
	       .flags = LLMEM_CONSTRAINT_CONTIGUOUS },
};

/* 2048x1080 YUYV: 4423680 bytes, over 4 MiB. */
FIXTURE_VARIANT_ADD(negotiate, contiguous_2048_wide_refused){
	.r = { .p = { CPU, CONTIGUOUS },
	       .width = 2048,
	       .height = 1080,
	       .err = -ENOTSUP,
	       .msg = "llmem.ko contiguous pages holds 4194304 bytes at most; the frame needs "
		      "4423680" },
};

FIXTURE_VARIANT_ADD(negotiate, min_size_past_another_max){
	.r = { .p = { { .name = "vivid", .c.min_size = 5 << 20 }, CONTIGUOUS },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "llmem.ko contiguous pages holds 4194304 bytes at most; the frame needs "
		      "5242880" },
};

FIXTURE_VARIANT_ADD(negotiate, own_min_size_past_own_max){
	.r = { .p = { { .name = "A", .c.min_size = 2 << 20, .c.max_size = 1 << 20 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "A states a minimum past its maximum" },
};

FIXTURE_VARIANT_ADD(negotiate, width_past_bounds){
	.r = { .p = { CPU,
		      { .name = "scaler",
			.c = { .min_width = 16,
			       .max_width = 1280,
			       .min_height = 16,
			       .max_height = 720 } } },
	       .width = 1920,
	       .height = 1080,
	       .err = -ENOTSUP,
	       .msg = "scaler takes 16..1280 x 16..720 pixels, not 1920x1080" },
};

FIXTURE_VARIANT_ADD(negotiate, height_below_bounds){
	.r = { .p = { { .name = "scaler",
			.c = { .min_width = 16,
			       .max_width = 4096,
			       .min_height = 64,
			       .max_height = 2160 } } },
	       .width = 640,
	       .height = 32,
	       .err = -ENOTSUP,
	       .msg = "scaler takes 16..4096 x 64..2160 pixels, not 640x32" },
};

FIXTURE_VARIANT_ADD(negotiate, size_within_bounds){
	.r = { .p = { { .name = "scaler",
			.c = { .min_width = 640,
			       .max_width = 640,
			       .min_height = 480,
			       .max_height = 480 } } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, own_min_width_past_own_max){
	.r = { .p = { { .name = "A", .c = { .min_width = 800, .max_width = 640 } } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "A states a minimum past its maximum" },
};

FIXTURE_VARIANT_ADD(negotiate, no_nv12){
	.r = { .p = { { .name = "vicodec", .fourccs = { DRM_FORMAT_NV12 } },
		      { .name = "vkms plane 31", .fourccs = { DRM_FORMAT_XRGB8888 } } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .err = -ENOTSUP,
	       .msg = "vkms plane 31 has no NV12" },
};

/* The library's order, not the participant's. */
FIXTURE_VARIANT_ADD(negotiate, default_order_yuyv){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_XRGB8888, DRM_FORMAT_NV12, DRM_FORMAT_YUYV } },
		      CPU },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, default_order_nv12){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_XRGB8888, DRM_FORMAT_NV12 } },
		      { .name = "B", .fourccs = { DRM_FORMAT_NV12, DRM_FORMAT_XRGB8888 } } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 640, 640 },
	       .offset = { 0, 640 * 480 },
	       .size = 640 * 720 },
};

FIXTURE_VARIANT_ADD(negotiate, default_order_xrgb){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888 } },
		      { .name = "B", .fourccs = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ABGR8888 } } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_XRGB8888,
	       .pitch = { 2560 },
	       .size = 2560 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, default_order_last){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_ABGR8888, DRM_FORMAT_NV12 } },
		      { .name = "B", .fourccs = { DRM_FORMAT_ABGR8888, DRM_FORMAT_YUYV } } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_ABGR8888,
	       .pitch = { 2560 },
	       .size = 2560 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, default_order_shares_nothing){
	.r = { .p = { { .name = "camera", .fourccs = { DRM_FORMAT_YUYV } },
		      { .name = "codec", .fourccs = { DRM_FORMAT_NV12 } } },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "codec has no YUYV" },
};

FIXTURE_VARIANT_ADD(negotiate, callers_order_first){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_YUYV, DRM_FORMAT_XRGB8888 } },
		      { .name = "B", .fourccs = { DRM_FORMAT_YUYV, DRM_FORMAT_XRGB8888 } } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_XRGB8888, DRM_FORMAT_YUYV },
	       .num_fourccs = 2,
	       .fourcc = DRM_FORMAT_XRGB8888,
	       .pitch = { 2560 },
	       .size = 2560 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, callers_order_skips){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12 } },
		      { .name = "B", .fourccs = { DRM_FORMAT_YUYV } } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12, DRM_FORMAT_YUYV },
	       .num_fourccs = 2,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

/* Participants without formats take any, even one out of the default order. */
FIXTURE_VARIANT_ADD(negotiate, no_formats_take_any){
	.r = { .p = { CPU, { .name = "A" } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_ARGB8888 },
	       .num_fourccs = 1,
	       .fourcc = DRM_FORMAT_ARGB8888,
	       .pitch = { 2560 },
	       .size = 2560 * 480 },
};

/* A fourcc all take that llmem does not lay out. */
FIXTURE_VARIANT_ADD(negotiate, fourcc_llmem_lacks){
	.r = { .p = { CPU },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_RGB565 },
	       .num_fourccs = 1,
	       .err = -EINVAL,
	       .msg = "only YUYV, NV12, ABGR8888, XRGB8888, ARGB8888, BGR888 and RGB888" },
};

FIXTURE_VARIANT_ADD(negotiate, linear_stated_and_implied){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { DRM_FORMAT_MOD_LINEAR },
			.num_mods = 1 },
		      { .name = "B", .fourccs = { DRM_FORMAT_YUYV } } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

FIXTURE_VARIANT_ADD(negotiate, tiled_only_refused){
	.r = { .p = { { .name = "i915 plane",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1 },
		      CPU },
	       .width = 640,
	       .height = 480,
	       .err = -ENOTSUP,
	       .msg = "i915 plane takes YUYV with none of the modifiers asked for (0x0 first)" },
};

/* All share the tiled modifier asked for, and nothing llmem lays out. */
FIXTURE_VARIANT_ADD(negotiate, tiled_shared_refused){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1 },
		      { .name = "B",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1 } },
	       .width = 640,
	       .height = 480,
	       .mods = { NONE_MOD },
	       .num_mods = 1,
	       .err = -ENOTSUP,
	       .msg = "share modifier 0x100000000000001; llmem lays out linear frames only" },
};

/* Tiled preferred, but llmem lays out linear, which all take as well. */
FIXTURE_VARIANT_ADD(negotiate, tiled_preferred_linear_shared){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD, DRM_FORMAT_MOD_LINEAR },
			.num_mods = 2 },
		      { .name = "B",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { DRM_FORMAT_MOD_LINEAR, NONE_MOD },
			.num_mods = 2 } },
	       .width = 640,
	       .height = 480,
	       .mods = { NONE_MOD, DRM_FORMAT_MOD_LINEAR },
	       .num_mods = 2,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

/* The CPU takes linear only: the caller's tiled first is passed over. */
FIXTURE_VARIANT_ADD(negotiate, tiled_preferred_cpu_linear){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_NV12 },
			.mods = { NONE_MOD, DRM_FORMAT_MOD_LINEAR },
			.num_mods = 2 },
		      CPU },
	       .width = 640,
	       .height = 480,
	       .mods = { NONE_MOD, DRM_FORMAT_MOD_LINEAR },
	       .num_mods = 2,
	       .fourcc = DRM_FORMAT_NV12,
	       .pitch = { 640, 640 },
	       .offset = { 0, 640 * 480 },
	       .size = 640 * 720 },
};

/* The caller asks only for a modifier one participant lacks. */
FIXTURE_VARIANT_ADD(negotiate, callers_modifier_lacking){
	.r = { .p = { { .name = "A",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1 },
		      { .name = "vivid", .fourccs = { DRM_FORMAT_YUYV } } },
	       .width = 640,
	       .height = 480,
	       .mods = { NONE_MOD },
	       .num_mods = 1,
	       .err = -ENOTSUP,
	       .msg = "vivid takes YUYV with none of the modifiers asked for "
		      "(0x100000000000001 first)" },
};

/* YUYV listed twice, tiled and then linear, as KMS's IN_FORMATS gives
 * one entry per modifier: the second entry counts. */
FIXTURE_VARIANT_ADD(negotiate, fourcc_listed_per_modifier){
	.r = { .p = { { .name = "vkms plane 31",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1,
			.linear_entry = DRM_FORMAT_YUYV },
		      CPU },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480 },
};

/* Each takes one of the modifiers asked for, not the same one. */
FIXTURE_VARIANT_ADD(negotiate, no_modifier_in_common){
	.r = { .p = { { .name = "A", .fourccs = { DRM_FORMAT_YUYV } },
		      { .name = "B",
			.fourccs = { DRM_FORMAT_YUYV },
			.mods = { NONE_MOD },
			.num_mods = 1 } },
	       .width = 640,
	       .height = 480,
	       .mods = { NONE_MOD, DRM_FORMAT_MOD_LINEAR },
	       .num_mods = 2,
	       .err = -ENOTSUP,
	       .msg = "the participants take YUYV with no modifier in common of those asked for" },
};

FIXTURE_VARIANT_ADD(negotiate, contiguous_flag_propagates){
	.r = { .p = { { .name = "vivid dma-contig", .c.flags = LLMEM_CONSTRAINT_CONTIGUOUS }, CPU },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480,
	       .flags = LLMEM_CONSTRAINT_CONTIGUOUS },
};

FIXTURE_VARIANT_ADD(negotiate, planes_per_fd_against_one_fd_nv12){
	.r = { .p = { { .name = "vivid NV12M", .c.flags = LLMEM_CONSTRAINT_PLANE_PER_FD },
		      { .name = "vicodec", .c.flags = LLMEM_CONSTRAINT_PLANES_IN_ONE_FD } },
	       .width = 640,
	       .height = 480,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .err = -ENOTSUP,
	       .msg = "vivid NV12M needs a buffer per plane; vicodec all planes in one" },
};

/* One plane is in one buffer either way. */
FIXTURE_VARIANT_ADD(negotiate, planes_per_fd_and_one_fd_yuyv){
	.r = { .p = { { .name = "vivid", .c.flags = LLMEM_CONSTRAINT_PLANE_PER_FD },
		      { .name = "vicodec", .c.flags = LLMEM_CONSTRAINT_PLANES_IN_ONE_FD } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480,
	       .flags = LLMEM_CONSTRAINT_PLANE_PER_FD | LLMEM_CONSTRAINT_PLANES_IN_ONE_FD },
};

FIXTURE_VARIANT_ADD(negotiate, min_buffers_most){
	.r = { .p = { { .name = "A", .c.min_buffers = 2 },
		      { .name = "B", .c.min_buffers = 5 },
		      { .name = "C", .c.min_buffers = 3 } },
	       .width = 640,
	       .height = 480,
	       .fourcc = DRM_FORMAT_YUYV,
	       .pitch = { 1280 },
	       .size = 1280 * 480,
	       .min_buffers = 5 },
};

/* The primes 65537 and 65539: their product passes 32 bits. */
FIXTURE_VARIANT_ADD(negotiate, pitch_alignment_lcm_overflow){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 65537 },
		      { .name = "B", .c.pitch_alignment = 65539 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "the pitch alignment of B (65539) and the common multiple of those before "
		      "it (65537, last raised by A) pass 32 bits" },
};

/* B raised the common multiple to 131074, from its own 2. */
FIXTURE_VARIANT_ADD(negotiate, pitch_alignment_lcm_overflow_of_three){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 65537 },
		      { .name = "B", .c.pitch_alignment = 2 },
		      { .name = "C", .c.pitch_alignment = 65539 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "the pitch alignment of C (65539) and the common multiple of those before "
		      "it (131074, last raised by B) pass 32 bits" },
};

FIXTURE_VARIANT_ADD(negotiate, plane_alignment_lcm_overflow){
	.r = { .p = { { .name = "A", .c.plane_alignment = 65537 },
		      { .name = "B", .c.plane_alignment = 65539 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "the plane alignment of B (65539) and the common multiple of those before "
		      "it (65537, last raised by A) pass 32 bits" },
};

FIXTURE_VARIANT_ADD(negotiate, size_alignment_lcm_overflow){
	.r = { .p = { { .name = "A", .c.size_alignment = 65537 },
		      { .name = "B", .c.size_alignment = 65539 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "the size alignment of B (65539) and the common multiple of those before "
		      "it (65537, last raised by A) pass 32 bits" },
};

/* An odd alignment of nearly 32 bits, times the YUYV shaders' 4. */
FIXTURE_VARIANT_ADD(negotiate, alignment_and_words_overflow){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 0xffffffffu } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "alignments past 32 bits" },
};

FIXTURE_VARIANT_ADD(negotiate, huge_frame){
	.r = { .p = { CPU },
	       .width = 65536,
	       .height = 65536,
	       .fourccs = { DRM_FORMAT_XRGB8888 },
	       .num_fourccs = 1,
	       .err = -EOVERFLOW,
	       .msg = "needs more than 4 GiB" },
};

/* A row of 0x80000004 bytes to the next 2 GiB: 4 GiB. */
FIXTURE_VARIANT_ADD(negotiate, aligned_row_overflow){
	.r = { .p = { { .name = "A", .c.pitch_alignment = 0x80000000u } },
	       .width = 0x20000001,
	       .height = 1,
	       .fourccs = { DRM_FORMAT_XRGB8888 },
	       .num_fourccs = 1,
	       .err = -EOVERFLOW,
	       .msg = "a row of 2147483652 bytes aligned to 2147483648 passes 32 bits" },
};

/* 1 GiB of Y, and CbCr at 3.5 GiB. */
FIXTURE_VARIANT_ADD(negotiate, planes_aligned_overflow){
	.r = { .p = { { .name = "A", .c.plane_alignment = 0xe0000000u } },
	       .width = 65536,
	       .height = 16384,
	       .fourccs = { DRM_FORMAT_NV12 },
	       .num_fourccs = 1,
	       .err = -EOVERFLOW,
	       .msg = "planes aligned to 3758096384 pass 4 GiB" },
};

FIXTURE_VARIANT_ADD(negotiate, size_aligned_overflow){
	.r = { .p = { { .name = "A", .c.min_size = 0xffffffffu, .c.size_alignment = 4096 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "a frame of 4294967295 bytes aligned to 4096 passes 4 GiB" },
};

/* A minimum size that a 64-bit rounding would wrap. */
FIXTURE_VARIANT_ADD(negotiate, size_wraps_64_bits){
	.r = { .p = { { .name = "A", .c.min_size = UINT64_MAX - 1, .c.size_alignment = 4096 } },
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "aligned to 4096 passes 4 GiB" },
};

FIXTURE_VARIANT_ADD(negotiate, zero_width){
	.r = { .p = { CPU },
	       .width = 0,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "negotiate: a frame of 0x480" },
};

FIXTURE_VARIANT_ADD(negotiate, zero_height){
	.r = { .p = { CPU },
	       .width = 640,
	       .height = 0,
	       .err = -EINVAL,
	       .msg = "negotiate: a frame of 640x0" },
};

FIXTURE_VARIANT_ADD(negotiate, odd_width_yuyv){
	.r = { .p = { CPU },
	       .width = 641,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "YUYV frames cannot be 641x480" },
};

FIXTURE_VARIANT_ADD(negotiate, empty_fourcc_list){
	.r = { .p = { CPU },
	       .width = 640,
	       .height = 480,
	       .empty_fourccs = 1,
	       .err = -EINVAL,
	       .msg = "negotiate: an empty list of fourccs" },
};

FIXTURE_VARIANT_ADD(negotiate, empty_modifier_list){
	.r = { .p = { CPU },
	       .width = 640,
	       .height = 480,
	       .empty_mods = 1,
	       .err = -EINVAL,
	       .msg = "negotiate: an empty list of modifiers" },
};

FIXTURE_VARIANT_ADD(negotiate, too_many_formats){
	.r = { .p = { CPU, { .name = "peer", .bad_num_formats = LLMEM_NEGOTIATE_MAX_FORMATS + 1 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "peer: 33 formats; at most 32" },
};

FIXTURE_VARIANT_ADD(negotiate, too_many_modifiers){
	.r = { .p = { { .name = "peer",
			.fourccs = { DRM_FORMAT_YUYV },
			.bad_num_modifiers = LLMEM_NEGOTIATE_MAX_MODIFIERS + 1 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "peer: 9 modifiers; at most 8" },
};

FIXTURE_VARIANT_ADD(negotiate, name_without_end){
	.r = { .p = { CPU, { .name = "peer", .bad_name = 1 } },
	       .width = 640,
	       .height = 480,
	       .err = -EINVAL,
	       .msg = "participant 1: a name of 64 bytes without its end" },
};

/* The row's participants, from its statements. */
TEST_F(negotiate, merge)
{
	const struct row *r = &variant->r;
	uint32_t n = num_specs(r);

	ASSERT_GT(n, 0);
	for (uint32_t i = 0; i < n; i++)
		build(&r->p[i], &self->ps[i]);
	expect_row(_metadata, self->ps, n, r);
}

/* The most participants there may be, and one more. */
TEST(participant_count)
{
	struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1];
	struct llmem_negotiate_request q = { .width = 640, .height = 480 };
	struct llmem_negotiated out;

	for (uint32_t i = 0; i <= LLMEM_NEGOTIATE_MAX_PARTICIPANTS; i++)
		llmem_participant_cpu(&ps[i]);
	ps[0].constraints.pitch_alignment = 256;
	ASSERT_EQ(llmem_negotiate(ps, LLMEM_NEGOTIATE_MAX_PARTICIPANTS, &q, &out), 0);
	EXPECT_EQ(out.layout.pitch[0], 1280);
	EXPECT_FAILS(llmem_negotiate(ps, LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1, &q, &out), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "17 participants; 1 to 16"), NULL);
	EXPECT_FAILS(llmem_negotiate(ps, 0, &q, &out), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "0 participants; 1 to 16"), NULL);
}

TEST(null_arguments)
{
	struct llmem_negotiate_request q = { .width = 640, .height = 480 };
	struct llmem_participant p;
	struct llmem_negotiated out;

	llmem_participant_cpu(&p);
	EXPECT_FAILS(llmem_negotiate(NULL, 1, &q, &out), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "negotiate: NULL participants");
	EXPECT_FAILS(llmem_negotiate(&p, 1, NULL, &out), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "negotiate: NULL request");
	EXPECT_FAILS(llmem_negotiate(&p, 1, &q, NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "negotiate: NULL out");
	EXPECT_FAILS(llmem_participant_llmem_contiguous(NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "llmem.ko participant: NULL out");
	/* Nothing to state into: nothing happens. */
	llmem_participant_cpu(NULL);
}

/* What the memory tier's own participants state. */
TEST(own_participants)
{
	struct llmem_participant p;

	memset(&p, 0xa5, sizeof(p));
	llmem_participant_cpu(&p);
	EXPECT_STREQ(p.name, "the CPU");
	EXPECT_EQ(p.kind, LLMEM_PARTICIPANT_CPU);
	EXPECT_EQ(p.num_formats, 0);
	EXPECT_EQ(p.constraints.pitch_alignment, 0);
	EXPECT_EQ(p.constraints.flags, 0);

	memset(&p, 0xa5, sizeof(p));
	ASSERT_EQ(llmem_participant_llmem_contiguous(&p), 0);
	EXPECT_EQ(p.kind, LLMEM_PARTICIPANT_LLMEM_CONTIGUOUS);
	EXPECT_EQ(p.num_formats, 0);
	EXPECT_EQ(p.constraints.size_alignment, 4096);
	EXPECT_EQ(p.constraints.max_size, LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE);
	EXPECT_EQ(p.constraints.flags, LLMEM_CONSTRAINT_CONTIGUOUS);
	EXPECT_EQ(p.constraints.assumed, LLMEM_C_SIZE_ALIGNMENT | LLMEM_C_MAX_SIZE | LLMEM_C_FLAGS);
	EXPECT_EQ(p.constraints.probed, 0);
}

FIXTURE(vulkan)
{
	struct llmem_session *s;
	struct llmem_participant storage, transfer;
};

FIXTURE_SETUP(vulkan)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_STORAGE, &self->storage), 0);
	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_TRANSFER, &self->transfer),
		  0);
}

FIXTURE_TEARDOWN(vulkan)
{
	VK_TEST_SESSION_END(self->s);
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The device's reported limits, which Vulkan makes powers of two, and the
 * shaders' formats and words. */
TEST_F(vulkan, statements)
{
	const struct llmem_constraints *c = &self->storage.constraints;

	EXPECT_EQ(self->storage.kind, LLMEM_PARTICIPANT_VULKAN);
	EXPECT_EQ(strncmp(self->storage.name, "Vulkan storage (", 16), 0);
	/* YUYV, NV12, the three RGBA orders and the two 24-bit RGB ones. */
	EXPECT_EQ(self->storage.num_formats, 7);
	for (uint32_t i = 0; i < self->storage.num_formats; i++) {
		EXPECT_EQ(self->storage.formats[i].num_modifiers, 0);
		EXPECT_EQ(self->storage.formats[i].source, LLMEM_FACT_ASSUMED);
	}
	EXPECT_EQ(c->pitch_alignment, 4);
	EXPECT_EQ(c->assumed, LLMEM_C_PITCH_ALIGNMENT);
	EXPECT_TRUE(is_pow2(c->plane_alignment));
	EXPECT_LE(c->plane_alignment, 256);
	/* The spec's least maxStorageBufferRange. */
	EXPECT_GE(c->max_size, 1u << 27);

	c = &self->transfer.constraints;
	EXPECT_EQ(strncmp(self->transfer.name, "Vulkan transfer (", 17), 0);
	EXPECT_EQ(self->transfer.num_formats, 0);
	EXPECT_TRUE(is_pow2(c->plane_alignment));
	EXPECT_TRUE(is_pow2(c->pitch_alignment));
	EXPECT_EQ(c->max_size, 0);

	EXPECT_FAILS(llmem_participant_vulkan(NULL, LLMEM_VULKAN_USAGE_STORAGE, &self->storage),
		     -EINVAL);
	EXPECT_FAILS(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_STORAGE, NULL), -EINVAL);
	EXPECT_FAILS(llmem_participant_vulkan(self->s, 7, &self->storage), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "Vulkan participant: usage 7");
	EXPECT_FAILS(llmem_participant_vulkan(self->s, 0, &self->storage), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "Vulkan participant: usage 0");
}

/* 1080p YUYV for the shaders, the CPU and llmem.ko's contiguous pages. */
TEST_F(vulkan, storage_contiguous_cpu)
{
	struct llmem_participant ps[3] = { self->storage };
	const struct row r = { .width = 1920,
			       .height = 1080,
			       .fourcc = DRM_FORMAT_YUYV,
			       .pitch = { 3840 },
			       .size = 1013 * 4096,
			       .flags = LLMEM_CONSTRAINT_CONTIGUOUS };

	llmem_participant_cpu(&ps[1]);
	ASSERT_EQ(llmem_participant_llmem_contiguous(&ps[2]), 0);
	expect_row(_metadata, ps, 3, &r);
}

/* NV12 for copies and a participant whose 4096s hold the device's
 * alignments (powers of two of at most 4096 on any device). */
TEST_F(vulkan, transfer_nv12_pages)
{
	struct llmem_participant ps[2] = { self->transfer };
	const struct row r = { .width = 1920,
			       .height = 1080,
			       .fourccs = { DRM_FORMAT_NV12 },
			       .num_fourccs = 1,
			       .fourcc = DRM_FORMAT_NV12,
			       .pitch = { 4096, 4096 },
			       .offset = { 0, 4096 * 1080 },
			       .size = 4096 * 1620 };

	ASSERT_LE(self->transfer.constraints.pitch_alignment, 4096);
	ASSERT_LE(self->transfer.constraints.plane_alignment, 4096);
	ps[1] = (struct llmem_participant){ .name = "encoder",
					    .constraints = { .pitch_alignment = 4096,
							     .plane_alignment = 4096 } };
	expect_row(_metadata, ps, 2, &r);
}

/* A display plane of XRGB8888 only: the first of the default order the
 * shaders also write. */
TEST_F(vulkan, storage_and_display_plane)
{
	struct llmem_participant ps[3] = { self->storage, self->transfer };
	const struct row r = { .width = 1280,
			       .height = 720,
			       .fourcc = DRM_FORMAT_XRGB8888,
			       .pitch = { 5120 },
			       .size = 5120 * 720 };

	ps[2] = (struct llmem_participant){ .name = "vkms plane 31",
					    .num_formats = 1,
					    .formats = { { .fourcc = DRM_FORMAT_XRGB8888 } },
					    .constraints = { .pitch_alignment = 64 } };
	ASSERT_EQ(5120 % self->transfer.constraints.pitch_alignment, 0);
	expect_row(_metadata, ps, 3, &r);
}

/*
 * Sampling: the fourccs whose images the device samples, each with its
 * modifiers (reported).  Without VK_EXT_image_drm_format_modifier (lavapipe)
 * linear alone, where the format's linear tiling samples: XRGB8888's
 * B8G8R8A8 always does.  With a plane that scans out X-tiled or linear
 * XRGB8888, the linear layout both take.
 */
TEST_F(vulkan, sampled)
{
	struct llmem_participant ps[2];
	struct llmem_session_info info;
	const struct llmem_format_caps *xrgb = NULL;
	const struct row r = { .width = 1280,
			       .height = 720,
			       .fourcc = DRM_FORMAT_XRGB8888,
			       .pitch = { 5120 },
			       .size = 5120 * 720 };

	ASSERT_EQ(llmem_session_get_info(self->s, &info), 0);
	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_SAMPLED, &ps[0]), 0);
	EXPECT_EQ(strncmp(ps[0].name, "Vulkan sampled (", 16), 0);
	EXPECT_EQ(ps[0].object, LLMEM_VULKAN_USAGE_SAMPLED);
	EXPECT_EQ(ps[0].constraints.pitch_alignment, 0);
	EXPECT_EQ(ps[0].constraints.plane_alignment, 0);
	for (uint32_t i = 0; i < ps[0].num_formats; i++) {
		const struct llmem_format_caps *f = &ps[0].formats[i];

		EXPECT_EQ(f->source, LLMEM_FACT_REPORTED);
		ASSERT_GE(f->num_modifiers, 1);
		EXPECT_LE(f->num_modifiers, LLMEM_NEGOTIATE_MAX_MODIFIERS);
		if (!(info.caps & LLMEM_CAP_DRM_FORMAT_MODIFIERS)) {
			EXPECT_EQ(f->num_modifiers, 1);
			EXPECT_EQ(f->modifiers[0], DRM_FORMAT_MOD_LINEAR);
		}
		if (f->fourcc == DRM_FORMAT_XRGB8888)
			xrgb = f;
	}
	ASSERT_NE(xrgb, NULL);
	ps[1] = (struct llmem_participant){
		.name = "a tiling plane",
		.num_formats = 1,
		.formats = { { .fourcc = DRM_FORMAT_XRGB8888,
			       .num_modifiers = 2,
			       .modifiers = { I915_FORMAT_MOD_X_TILED, DRM_FORMAT_MOD_LINEAR } } },
	};
	/* Linear comes first where it samples at all. */
	ASSERT_EQ(xrgb->modifiers[0], DRM_FORMAT_MOD_LINEAR);
	expect_row(_metadata, ps, 2, &r);
}

/* A codec of a format the shaders do not touch: refused by name. */
TEST_F(vulkan, storage_and_foreign_codec)
{
	struct llmem_participant ps[2] = { self->storage };
	struct row r = { .width = 640,
			 .height = 480,
			 .fourccs = { DRM_FORMAT_YVU420 },
			 .num_fourccs = 1,
			 .err = -ENOTSUP };
	char want[96];

	ps[1] = (struct llmem_participant){ .name = "codec",
					    .num_formats = 1,
					    .formats = { { .fourcc = DRM_FORMAT_YVU420 } } };
	snprintf(want, sizeof(want), "%s has no YV12", self->storage.name);
	r.msg = want;
	expect_row(_metadata, ps, 2, &r);
}

TEST_HARNESS_MAIN
