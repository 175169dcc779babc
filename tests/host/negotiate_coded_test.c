// SPDX-License-Identifier: MIT
/*
 * Coded sizes in llmem_negotiate() (negotiate.h): a picture padded to the
 * coded size the participants' alignments and stated coded sizes need, one
 * table row per rule or refusal.  Every layout is checked against each
 * participant's statement (its alignments, its coded size, whether it takes
 * a smaller picture), the padding per plane against the layout, and the
 * merge again in reverse order.  Frame layouts of a coded size
 * (llmem_frame_layout_init(), llmem_frame_layout_padding()) with them.
 */
#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/error.h>
#include <llmem/negotiate.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define MAX_SPECS 3

/* A participant as a row states it: every fourcc entry gets the same
 * per-format facts. */
struct spec {
	const char *name;
	uint32_t fourcc;
	/* Per format: a coded size, alignments, flags, an exact pitch. */
	uint32_t coded[2];
	uint32_t align[2];
	uint32_t flags;
	uint32_t pitch;
	/* The participant's own. */
	struct llmem_constraints c;
};

struct row {
	struct spec p[MAX_SPECS];
	uint32_t fourcc;
	uint32_t width, height;
	int err;
	const char *msg;
	/* For a layout. */
	uint32_t coded[2];
	uint32_t pitch;
	uint64_t offset1;
	uint64_t size;
	struct llmem_frame_padding padding[2];
};

static void build(const struct spec *s, struct llmem_participant *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", s->name);
	p->kind = LLMEM_PARTICIPANT_OTHER;
	p->constraints = s->c;
	if (!s->fourcc)
		return;
	p->num_formats = 1;
	p->formats[0] = (struct llmem_format_caps){
		.fourcc = s->fourcc,
		.source = LLMEM_FACT_REPORTED,
		.pitch = s->pitch,
		.coded_width = s->coded[0],
		.coded_height = s->coded[1],
		.column_alignment = s->align[0],
		.row_alignment = s->align[1],
		.flags = s->flags,
	};
}

static uint32_t num_specs(const struct row *r)
{
	uint32_t n = 0;

	while (n < MAX_SPECS && r->p[n].name)
		n++;
	return n;
}

/* Whether the layout meets what @p states of the coded frame. */
static void expect_accepted(struct __test_metadata *_metadata, const struct llmem_participant *p,
			    const struct llmem_negotiated *out)
{
	const struct llmem_frame_layout *l = &out->layout;
	uint32_t flags = p->constraints.flags, ca = p->constraints.column_alignment;
	uint32_t ra = p->constraints.row_alignment;

	for (uint32_t i = 0; i < p->num_formats; i++) {
		const struct llmem_format_caps *f = &p->formats[i];

		if (f->fourcc != l->fourcc)
			continue;
		flags |= f->flags;
		if (f->coded_width) {
			EXPECT_EQ(l->coded_width, f->coded_width);
			EXPECT_EQ(l->coded_height, f->coded_height);
		}
		if (f->column_alignment)
			EXPECT_EQ(l->coded_width % f->column_alignment, 0);
		if (f->row_alignment)
			EXPECT_EQ(l->coded_height % f->row_alignment, 0);
		if (f->pitch)
			EXPECT_EQ(l->pitch[0], f->pitch);
	}
	if (ca)
		EXPECT_EQ(l->coded_width % ca, 0);
	if (ra)
		EXPECT_EQ(l->coded_height % ra, 0);
	if (flags & LLMEM_CONSTRAINT_NO_CROP_WIDTH)
		EXPECT_EQ(l->coded_width, l->width);
	if (flags & LLMEM_CONSTRAINT_NO_CROP_HEIGHT)
		EXPECT_EQ(l->coded_height, l->height);
	if (p->constraints.max_width)
		EXPECT_LE(l->coded_width, p->constraints.max_width);
}

FIXTURE(coded)
{
	struct llmem_participant ps[MAX_SPECS];
};

FIXTURE_VARIANT(coded)
{
	struct row r;
};

FIXTURE_SETUP(coded)
{
}

FIXTURE_TEARDOWN(coded)
{
}

/* vicodec's OUTPUT as it states 1000x562 YUYV: 1008x568, pitch 2016, its
 * sizeimage; the picture stays 1000x562 and the padding is 16 bytes a row
 * and 6 rows. */
FIXTURE_VARIANT_ADD(coded, encoder_coded_size){
	.r = { .p = { { .name = "vicodec",
			.fourcc = DRM_FORMAT_YUYV,
			.coded = { 1008, 568 },
			.align = { 16, 8 },
			.pitch = 2016,
			.c.min_size = 2016 * 568 },
		      { .name = "vivid", .fourcc = DRM_FORMAT_YUYV, .c.pitch_alignment = 1 } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1008, 568 },
	       .pitch = 2016,
	       .size = 2016 * 568,
	       .padding = { { 16, 6 } } },
};

/* Alignments alone (an H.264 encoder's 16, a scanout engine's 64
 * columns): the least size all of them allow. */
FIXTURE_VARIANT_ADD(coded, alignments_alone){
	.r = { .p = { { .name = "h264", .c = { .column_alignment = 16, .row_alignment = 16 } },
		      { .name = "scanout", .c.column_alignment = 64 } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1920,
	       .height = 1080,
	       .coded = { 1920, 1088 },
	       .pitch = 3840,
	       .size = 3840 * 1088,
	       .padding = { { 0, 8 } } },
};

/* 48 and 64 columns: 192; 6 and 4 rows: 12.  1000x562 becomes 1152x564. */
FIXTURE_VARIANT_ADD(coded, alignments_lcm){
	.r = { .p = { { .name = "A", .c = { .column_alignment = 48, .row_alignment = 6 } },
		      { .name = "B", .c = { .column_alignment = 64, .row_alignment = 4 } } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1152, 564 },
	       .pitch = 2304,
	       .size = 2304 * 564,
	       .padding = { { 304, 2 } } },
};

/* NV12's CbCr plane follows the coded rows: 1008x576 for vicodec's 16. */
FIXTURE_VARIANT_ADD(coded, nv12_chroma_after_coded_rows){
	.r = { .p = { { .name = "vicodec",
			.fourcc = DRM_FORMAT_NV12,
			.coded = { 1008, 576 },
			.align = { 16, 16 },
			.pitch = 1008 } },
	       .fourcc = DRM_FORMAT_NV12,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1008, 576 },
	       .pitch = 1008,
	       .offset1 = 1008 * 576,
	       .size = 1008 * 576 * 3 / 2,
	       .padding = { { 8, 14 }, { 8, 7 } } },
};

/* An odd alignment with NV12's even sides: 3 columns and the format's 2
 * make 6. */
FIXTURE_VARIANT_ADD(coded, odd_alignment_even_format){
	.r = { .p = { { .name = "A", .c = { .column_alignment = 3, .row_alignment = 3 } } },
	       .fourcc = DRM_FORMAT_NV12,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1002, 564 },
	       .pitch = 1002,
	       .offset1 = 1002 * 564,
	       .size = 1002 * 564 * 3 / 2,
	       .padding = { { 2, 2 }, { 2, 1 } } },
};

/* A picture already aligned: no padding, and a participant that takes no
 * smaller picture is content. */
FIXTURE_VARIANT_ADD(coded, aligned_picture_no_padding){
	.r = { .p = { { .name = "A", .c = { .column_alignment = 64, .row_alignment = 16 } },
		      { .name = "m2m",
			.c.flags = LLMEM_CONSTRAINT_NO_CROP_WIDTH |
				   LLMEM_CONSTRAINT_NO_CROP_HEIGHT } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1024,
	       .height = 576,
	       .coded = { 1024, 576 },
	       .pitch = 2048,
	       .size = 2048 * 576 },
};

/* Padding on one side only asks only that side. */
FIXTURE_VARIANT_ADD(coded, columns_padded_rows_not){
	.r = { .p = { { .name = "A", .c.column_alignment = 16 },
		      { .name = "capture",
			.fourcc = DRM_FORMAT_NV12,
			.flags = LLMEM_CONSTRAINT_NO_CROP_HEIGHT } },
	       .fourcc = DRM_FORMAT_NV12,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1008, 562 },
	       .pitch = 1008,
	       .offset1 = 1008 * 562,
	       .size = 1008 * 562 * 3 / 2,
	       .padding = { { 8, 0 }, { 8, 0 } } },
};

/* Two participants stating the same coded size. */
FIXTURE_VARIANT_ADD(coded, same_coded_sizes){
	.r = { .p = { { .name = "enc", .fourcc = DRM_FORMAT_YUYV, .coded = { 1008, 568 } },
		      { .name = "dec", .fourcc = DRM_FORMAT_YUYV, .coded = { 1008, 568 } } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .coded = { 1008, 568 },
	       .pitch = 2016,
	       .size = 2016 * 568,
	       .padding = { { 16, 6 } } },
};

/* A queue without a crop rectangle cannot be told the picture. */
FIXTURE_VARIANT_ADD(coded, no_crop_width_refused){
	.r = { .p = { { .name = "encoder", .c.column_alignment = 16 },
		      { .name = "vim2m", .c.flags = LLMEM_CONSTRAINT_NO_CROP_WIDTH } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "vim2m takes no picture narrower than its frame: encoder codes the "
		      "1000x562 picture as 1008x562" },
};

/* NV12 in one buffer from a capture queue without compose: its CbCr plane
 * would follow the picture's rows, not the coded ones. */
FIXTURE_VARIANT_ADD(coded, no_crop_height_refused){
	.r = { .p = { { .name = "vicodec",
			.fourcc = DRM_FORMAT_NV12,
			.coded = { 1008, 576 },
			.align = { 16, 16 } },
		      { .name = "webcam",
			.fourcc = DRM_FORMAT_NV12,
			.flags = LLMEM_CONSTRAINT_NO_CROP_HEIGHT } },
	       .fourcc = DRM_FORMAT_NV12,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "webcam takes no picture shorter than its frame: vicodec codes the "
		      "1000x562 picture as 1008x576" },
};

/* A coded size stated is the one its pitch and size are for: another
 * participant's alignment that needs more is refused by name. */
FIXTURE_VARIANT_ADD(coded, coded_size_against_alignment){
	.r = { .p = { { .name = "vicodec",
			.fourcc = DRM_FORMAT_YUYV,
			.coded = { 1008, 568 },
			.pitch = 2016 },
		      { .name = "scanout", .c.column_alignment = 64 } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "vicodec codes a 1000x562 picture as 1008x568; scanout needs 1024x568" },
};

FIXTURE_VARIANT_ADD(coded, coded_sizes_disagree){
	.r = { .p = { { .name = "A", .fourcc = DRM_FORMAT_YUYV, .coded = { 1008, 568 } },
		      { .name = "B", .fourcc = DRM_FORMAT_YUYV, .coded = { 1000, 576 } } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "codes a 1000x562 picture as" },
};

/* An exact pitch of the picture's row against columns another pads. */
FIXTURE_VARIANT_ADD(coded, exact_pitch_against_padded_row){
	.r = { .p = { { .name = "camera", .c.pitch = 2000 },
		      { .name = "encoder", .c.column_alignment = 16 } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "camera needs pitch 2000, below the 2016 bytes of a row coded as encoder "
		      "needs" },
};

/* A maximum bounds the coded frame, not only the picture. */
FIXTURE_VARIANT_ADD(coded, coded_past_max_width){
	.r = { .p = { { .name = "encoder", .c.column_alignment = 64 },
		      { .name = "plane", .c.max_width = 1000 } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -ENOTSUP,
	       .msg = "plane takes 0..1000 x 0..0 pixels, not 1024x562" },
};

FIXTURE_VARIANT_ADD(coded, coded_below_picture){
	.r = { .p = { { .name = "A", .fourcc = DRM_FORMAT_YUYV, .coded = { 990, 568 } } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -EINVAL,
	       .msg = "A codes a 1000x562 picture as 990x568: smaller than the picture" },
};

FIXTURE_VARIANT_ADD(coded, coded_one_side){
	.r = { .p = { { .name = "A", .fourcc = DRM_FORMAT_YUYV, .coded = { 1008, 0 } } },
	       .fourcc = DRM_FORMAT_YUYV,
	       .width = 1000,
	       .height = 562,
	       .err = -EINVAL,
	       .msg = "A: a coded size of 1008x0 for format 0: give both sides or neither" },
};

FIXTURE_VARIANT_ADD(coded, column_alignment_lcm_overflow){
	.r = { .p = { { .name = "A", .c.column_alignment = 0x80000000u },
		      { .name = "B", .c.column_alignment = 3 } },
	       .fourcc = DRM_FORMAT_XRGB8888,
	       .width = 640,
	       .height = 480,
	       .err = -EOVERFLOW,
	       .msg = "the column alignment of B (3) and the common multiple of those before it "
		      "(2147483648, last raised by A) pass 32 bits" },
};

FIXTURE_VARIANT_ADD(coded, coded_side_overflow){
	.r = { .p = { { .name = "A", .c.row_alignment = 0x80000000u } },
	       .fourcc = DRM_FORMAT_XRGB8888,
	       .width = 16,
	       .height = 0x80000001u,
	       .err = -EOVERFLOW,
	       .msg = "coded in columns of 1 and rows of 2147483648 passes 32 bits" },
};

/* The row's statements merged, as the row says. */
TEST_F(coded, merge)
{
	const struct row *r = &variant->r;
	struct llmem_participant rev[MAX_SPECS];
	struct llmem_negotiate_request q = {
		.width = r->width, .height = r->height, .fourccs = &r->fourcc, .num_fourccs = 1
	};
	struct llmem_negotiated out, again;
	uint32_t n = num_specs(r);
	int ret;

	for (uint32_t i = 0; i < n; i++)
		build(&r->p[i], &self->ps[i]);
	mark_last_error();
	ret = llmem_negotiate(self->ps, n, &q, &out);
	ASSERT_EQ(ret, r->err)
	TH_LOG("negotiate: %s", ret ? llmem_last_error() : "0");
	if (ret) {
		EXPECT_NE(strstr(llmem_last_error(), r->msg), NULL)
		TH_LOG("wanted \"%s\" in \"%s\"", r->msg, llmem_last_error());
	} else {
		const struct llmem_frame_layout *l = &out.layout;

		EXPECT_EQ(l->width, r->width);
		EXPECT_EQ(l->height, r->height);
		EXPECT_EQ(l->coded_width, r->coded[0]);
		EXPECT_EQ(l->coded_height, r->coded[1]);
		EXPECT_EQ(l->pitch[0], r->pitch);
		EXPECT_EQ(l->size, r->size);
		if (l->num_planes > 1)
			EXPECT_EQ(l->offset[1], r->offset1);
		for (uint32_t p = 0; p < l->num_planes; p++) {
			struct llmem_frame_padding pad;

			EXPECT_EQ(out.padding[p].right, r->padding[p].right);
			EXPECT_EQ(out.padding[p].bottom, r->padding[p].bottom);
			ASSERT_EQ(llmem_frame_layout_padding(l, p, &pad), 0);
			EXPECT_EQ(memcmp(&pad, &out.padding[p], sizeof(pad)), 0);
		}
		for (uint32_t i = 0; i < n; i++)
			expect_accepted(_metadata, &self->ps[i], &out);
	}
	for (uint32_t i = 0; i < n; i++)
		rev[i] = self->ps[n - 1 - i];
	ASSERT_EQ(llmem_negotiate(rev, n, &q, &again), ret);
	if (!ret)
		EXPECT_EQ(memcmp(&out.layout, &again.layout, sizeof(out.layout)), 0);
}

/* A layout of a coded size: the planes for the coded frame, the picture's
 * size kept; a frame without padding has its own size as coded size. */
TEST(layout_of_coded_size)
{
	struct llmem_frame_constraints c = { .coded_width = 1008, .coded_height = 576 };
	struct llmem_frame_padding pad;
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 1000, 562, &c, &l), 0);
	EXPECT_EQ(l.width, 1000);
	EXPECT_EQ(l.height, 562);
	EXPECT_EQ(l.coded_width, 1008);
	EXPECT_EQ(l.coded_height, 576);
	EXPECT_EQ(l.pitch[0], 1008);
	EXPECT_EQ(l.offset[1], 1008 * 576);
	EXPECT_EQ(l.size, 1008 * 576 * 3 / 2);
	ASSERT_EQ(llmem_frame_layout_padding(&l, 1, &pad), 0);
	EXPECT_EQ(pad.right, 8);
	EXPECT_EQ(pad.bottom, 7);

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, NULL, &l), 0);
	EXPECT_EQ(l.coded_width, 640);
	EXPECT_EQ(l.coded_height, 480);
	ASSERT_EQ(llmem_frame_layout_padding(&l, 0, &pad), 0);
	EXPECT_EQ(pad.right, 0);
	EXPECT_EQ(pad.bottom, 0);

	/* A pitch padded past the coded row counts as padding too. */
	c = (struct llmem_frame_constraints){ .pitch = 2048,
					      .coded_width = 1008,
					      .coded_height = 568 };
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 1000, 562, &c, &l), 0);
	ASSERT_EQ(llmem_frame_layout_padding(&l, 0, &pad), 0);
	EXPECT_EQ(pad.right, 48);
	EXPECT_EQ(pad.bottom, 6);

	/* A layout made by hand before coded sizes (0) reads as unpadded. */
	l.coded_width = l.coded_height = 0;
	ASSERT_EQ(llmem_frame_layout_padding(&l, 0, &pad), 0);
	EXPECT_EQ(pad.bottom, 0);
}

TEST(layout_refusals)
{
	struct llmem_frame_constraints c = { .coded_width = 990, .coded_height = 568 };
	struct llmem_frame_padding pad;
	struct llmem_frame_layout l;

	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_YUYV, 1000, 562, &c, &l), -EINVAL);
	EXPECT_STREQ(llmem_last_error(),
		     "a 1000x562 YUYV picture cannot lie in a 990x568 coded frame");
	c = (struct llmem_frame_constraints){ .coded_width = 1008, .coded_height = 567 };
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_NV12, 1000, 562, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NV12 frames cannot be 1008x567"), NULL);
	c = (struct llmem_frame_constraints){ .coded_width = 1009, .coded_height = 568 };
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_YUYV, 1000, 562, &c, &l), -EINVAL);
	c = (struct llmem_frame_constraints){ .pitch = 2000, .coded_width = 1008 };
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_YUYV, 1000, 562, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "below the 2016 bytes of a 1008-pixel YUYV row"),
		  NULL);
	c = (struct llmem_frame_constraints){ .coded_width = 0x40000000u, .coded_height = 16 };
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_XRGB8888, 16, 16, &c, &l), -EOVERFLOW);

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 1000, 562, NULL, &l), 0);
	EXPECT_FAILS(llmem_frame_layout_padding(NULL, 0, &pad), -EINVAL);
	EXPECT_FAILS(llmem_frame_layout_padding(&l, 0, NULL), -EINVAL);
	EXPECT_FAILS(llmem_frame_layout_padding(&l, 1, &pad), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frame padding: plane 1 of a frame of 1");
	/* A coded size below the picture, and coded rows past the frame. */
	l.coded_width = 998;
	EXPECT_FAILS(llmem_frame_layout_padding(&l, 0, &pad), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "a 1000x562 picture in a 998x562 coded frame"), NULL);
	l.coded_width = 1000;
	l.coded_height = 600;
	EXPECT_FAILS(llmem_frame_layout_padding(&l, 0, &pad), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "does not lie in the frame's"), NULL);
}

TEST_HARNESS_MAIN
