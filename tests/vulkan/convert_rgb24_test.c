// SPDX-License-Identifier: MIT
/*
 * 24-bit RGB frames (BGR888: bytes R, G, B, V4L2's RGB24; RGB888: bytes B,
 * G, R, V4L2's BGR24), what libcamera's cameras give: their layouts at any
 * width and pitch, a negotiation that keeps a camera's unaligned pitch, and
 * the conversion to ABGR8888, XRGB8888 and ARGB8888 checked byte for byte
 * against the CPU, with every byte of the destination outside the picture
 * kept, and the refusals.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/negotiate.h>
#include <llmem/session.h>

#include "kselftest_harness.h"
#include "vk_test.h"

/* What the destination's bytes hold before a conversion. */
#define UNTOUCHED 0xa5

static const uint32_t sources[] = { DRM_FORMAT_BGR888, DRM_FORMAT_RGB888 };
static const uint32_t destinations[] = { DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888,
					 DRM_FORMAT_ARGB8888 };

/* A camera's rows: 3 bytes a pixel at any width, pitched width * 3. */
TEST(layout_any_width)
{
	struct llmem_frame_layout l;

	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(llmem_frame_layout_init(sources[f], 642, 480, NULL, &l), 0);
		EXPECT_EQ(l.num_planes, 1);
		EXPECT_EQ(l.pitch[0], 1926);
		EXPECT_EQ(l.offset[0], 0);
		EXPECT_EQ(l.size, 1926 * 480);
		EXPECT_EQ(l.coded_width, 642);
		EXPECT_EQ(l.modifier, DRM_FORMAT_MOD_LINEAR);
		ASSERT_EQ(llmem_frame_layout_init(sources[f], 1, 1, NULL, &l), 0);
		EXPECT_EQ(l.pitch[0], 3);
		EXPECT_EQ(l.size, 3);
		ASSERT_EQ(llmem_frame_layout_init(sources[f], 3, 2, NULL, &l), 0);
		EXPECT_EQ(l.pitch[0], 9);
		EXPECT_EQ(l.size, 18);
	}
}

/* An importer's exact pitch need not be a multiple of 4; alignments,
 * a coded size and the padding they leave work as for the other formats. */
TEST(layout_importer_demands)
{
	struct llmem_frame_constraints c = { .pitch = 1926 };
	struct llmem_frame_padding pad;
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_BGR888, 642, 7, &c, &l), 0);
	EXPECT_EQ(l.pitch[0], 1926);
	EXPECT_EQ(l.size, 13482);
	ASSERT_EQ(llmem_frame_layout_padding(&l, 0, &pad), 0);
	EXPECT_EQ(pad.right, 0);
	EXPECT_EQ(pad.bottom, 0);
	c.pitch = 1927;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_RGB888, 642, 7, &c, &l), 0);
	EXPECT_EQ(l.pitch[0], 1927);
	c.pitch = 1925;
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_RGB888, 642, 7, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "below"), NULL);

	c = (struct llmem_frame_constraints){ .pitch_alignment = 64 };
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_BGR888, 642, 7, &c, &l), 0);
	EXPECT_EQ(l.pitch[0], 1984);
	c = (struct llmem_frame_constraints){ .coded_width = 648, .coded_height = 10 };
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_RGB888, 642, 7, &c, &l), 0);
	EXPECT_EQ(l.pitch[0], 1944);
	EXPECT_EQ(l.size, 19440);
	ASSERT_EQ(llmem_frame_layout_padding(&l, 0, &pad), 0);
	EXPECT_EQ(pad.right, 1944 - 1926);
	EXPECT_EQ(pad.bottom, 3);
	EXPECT_FAILS(llmem_frame_layout_init(DRM_FORMAT_BGR888, 0, 7, NULL, &l), -EINVAL);
}

/* A camera stating BGR888 at its own pitch, 1926, and the CPU: negotiated
 * as stated, with no alignment of the library's own added. */
TEST(negotiate_keeps_camera_pitch)
{
	static const uint32_t order[] = { DRM_FORMAT_BGR888 };
	struct llmem_participant ps[2] = { 0 };
	struct llmem_negotiated out;

	snprintf(ps[0].name, sizeof(ps[0].name), "camera");
	ps[0].kind = LLMEM_PARTICIPANT_OTHER;
	ps[0].num_formats = 1;
	ps[0].formats[0] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_BGR888,
						       .source = LLMEM_FACT_REPORTED,
						       .pitch = 1926 };
	llmem_participant_cpu(&ps[1]);
	ASSERT_EQ(llmem_negotiate(
			  ps, 2,
			  &(struct llmem_negotiate_request){
				  .width = 642, .height = 480, .fourccs = order, .num_fourccs = 1 },
			  &out),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(out.layout.fourcc, DRM_FORMAT_BGR888);
	EXPECT_EQ(out.layout.pitch[0], 1926);
	EXPECT_EQ(out.layout.size, 1926 * 480);
	EXPECT_EQ(out.padding[0].right, 0);
}

FIXTURE(rgb24)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(rgb24)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 8ull << 20,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

FIXTURE_TEARDOWN(rgb24)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* One conversion's source and destination, mapped. */
struct frame_pair {
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_buffer *src, *dst;
	uint8_t *src_map, *dst_map;
	uint64_t src_size, dst_size;
};

/*
 * @src_l in a buffer of @src_size bytes of pseudo-random bytes, and a
 * destination of @dst_fourcc laid out with @dst_c in a buffer of its size
 * and 5 more, every byte UNTOUCHED.  Return: 0, or -1 after logging.
 */
static int pair_make(struct __test_metadata *_metadata, struct llmem_memory *m,
		     const struct llmem_frame_layout *src_l, uint64_t src_size, uint32_t dst_fourcc,
		     const struct llmem_frame_constraints *dst_c, struct frame_pair *p)
{
	*p = (struct frame_pair){ .src_l = *src_l, .src_size = src_size };
	if (llmem_frame_layout_init(dst_fourcc, src_l->width, src_l->height, dst_c, &p->dst_l)) {
		TH_LOG("destination layout: %s", llmem_last_error());
		return -1;
	}
	p->dst_size = p->dst_l.size + 5;
	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = src_size },
				&p->src) ||
	    llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = p->dst_size },
				&p->dst) ||
	    llmem_buffer_map(p->src, (void **)&p->src_map) ||
	    llmem_buffer_map(p->dst, (void **)&p->dst_map)) {
		TH_LOG("buffers: %s", llmem_last_error());
		return -1;
	}
	for (uint64_t i = 0; i < src_size; i++)
		p->src_map[i] = (uint8_t)rand();
	memset(p->dst_map, UNTOUCHED, p->dst_size);
	return 0;
}

static void pair_destroy(struct frame_pair *p)
{
	llmem_buffer_destroy(p->src);
	llmem_buffer_destroy(p->dst);
}

/*
 * Every byte of @p's destination: the source pixel's channels where the
 * destination's fourcc puts them and alpha 255 inside the picture,
 * UNTOUCHED everywhere else.  Return: the bytes that differ, the first
 * logged.
 */
static uint64_t pair_differences(struct __test_metadata *_metadata, const struct frame_pair *p)
{
	const struct llmem_frame_layout *s = &p->src_l, *d = &p->dst_l;
	bool src_rgb = s->fourcc == DRM_FORMAT_BGR888;
	bool dst_rgb = d->fourcc == DRM_FORMAT_ABGR8888;
	uint64_t wrong = 0;

	for (uint64_t i = 0; i < p->dst_size; i++) {
		uint64_t at = i - d->offset[0];
		uint64_t row = at / d->pitch[0], col = at % d->pitch[0];
		uint8_t want = UNTOUCHED;

		if (i >= d->offset[0] && row < d->height && col < (uint64_t)d->width * 4) {
			const uint8_t *px =
				p->src_map + s->offset[0] + row * s->pitch[0] + col / 4 * 3;
			/* Channel c of the destination pixel, in memory order. */
			uint32_t c = col % 4;

			if (c == 3)
				want = 255;
			else
				want = px[src_rgb == dst_rgb ? c : 2 - c];
		}
		if (p->dst_map[i] != want && !wrong++)
			TH_LOG("%ux%u 0x%08x to 0x%08x: byte %llu (row %llu, byte %llu) is %u, "
			       "not %u",
			       d->width, d->height, s->fourcc, d->fourcc, (unsigned long long)i,
			       (unsigned long long)row, (unsigned long long)col, p->dst_map[i],
			       want);
	}
	return wrong;
}

/*
 * Converts @src_l (in a buffer of @src_size bytes) to each destination, by
 * llmem_convert() and llmem_convert_to_rgba() in turn, and compares every
 * byte.  Return: the bytes that differ, or -1 when a call failed.
 */
static long long convert_all(struct __test_metadata *_metadata, struct llmem_memory *m,
			     const struct llmem_frame_layout *src_l, uint64_t src_size,
			     const struct llmem_frame_constraints *dst_c)
{
	long long wrong = 0;

	for (int d = 0; d < 3; d++) {
		struct frame_pair p;
		struct llmem_convert_info ci;
		int ret;

		if (pair_make(_metadata, m, src_l, src_size, destinations[d], dst_c, &p))
			return -1;
		ci = (struct llmem_convert_info){
			.src = p.src,
			.src_layout = &p.src_l,
			.dst = p.dst,
			.dst_layout = &p.dst_l,
		};
		ret = d % 2 ? llmem_convert_to_rgba(&ci) : llmem_convert(&ci);
		if (ret) {
			TH_LOG("convert %ux%u 0x%08x to 0x%08x: %s", src_l->width, src_l->height,
			       src_l->fourcc, destinations[d], llmem_last_error());
			pair_destroy(&p);
			return -1;
		}
		wrong += (long long)pair_differences(_metadata, &p);
		pair_destroy(&p);
	}
	return wrong;
}

/* @fourcc at @width x @height, laid out with @c, in a buffer of its size
 * and @extra bytes more; both orders' conversions exact. */
static long long convert_size(struct __test_metadata *_metadata, struct llmem_memory *m,
			      uint32_t fourcc, uint32_t width, uint32_t height,
			      const struct llmem_frame_constraints *c, uint64_t extra,
			      const struct llmem_frame_constraints *dst_c)
{
	struct llmem_frame_layout l;

	if (llmem_frame_layout_init(fourcc, width, height, c, &l)) {
		TH_LOG("source layout: %s", llmem_last_error());
		return -1;
	}
	return convert_all(_metadata, m, &l, l.size + extra, dst_c);
}

/*
 * Compact frames in buffers of exactly their size: 1x1 (3 bytes) and 3x2
 * (18) whose last pixel lies in a partial word, vimc's 642-pixel rows at
 * pitch 1926 (13482 bytes, 7 rows) and 641 at 1923: every pixel straddles
 * words somewhere, and the last bytes lie past the last whole word.
 */
TEST_F(rgb24, compact_sizes_exact)
{
	static const uint32_t sizes[][2] = { { 1, 1 },	 { 3, 2 }, { 642, 7 },
					     { 641, 5 }, { 5, 3 }, { 16, 16 } };

	srand(1);
	for (int f = 0; f < 2; f++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			EXPECT_EQ(convert_size(_metadata, self->m, sources[f], sizes[i][0],
					       sizes[i][1], NULL, 0, NULL),
				  0)
			TH_LOG("0x%08x %ux%u", sources[f], sizes[i][0], sizes[i][1]);
		}
	}
}

/* vimc's exact pitch stated by the importer, and a pitch of its own past
 * the row: a padded pitch's bytes are never read into the picture. */
TEST_F(rgb24, importer_pitches)
{
	struct llmem_frame_constraints exact = { .pitch = 1926 };
	struct llmem_frame_constraints odd = { .pitch = 1931 };
	struct llmem_frame_constraints aligned = { .pitch_alignment = 64 };

	srand(2);
	for (int f = 0; f < 2; f++) {
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, &exact, 0, NULL), 0);
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, &odd, 0, NULL), 0);
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, &aligned, 0, NULL),
			  0);
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 3, 2, &odd, 0, NULL), 0);
	}
}

/*
 * A picture in a larger coded frame, on both sides: only the picture is
 * read, only it is written; the destination's coded columns, rows and
 * pitch padding keep their bytes.
 */
TEST_F(rgb24, coded_frames)
{
	struct llmem_frame_constraints src_c = { .coded_width = 648, .coded_height = 10 };
	struct llmem_frame_constraints dst_c = { .pitch_alignment = 256,
						 .coded_width = 650,
						 .coded_height = 9 };

	srand(3);
	for (int f = 0; f < 2; f++) {
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, &src_c, 0, &dst_c),
			  0);
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, NULL, 0, &dst_c), 0);
		EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 1, 1, NULL, 0, &dst_c), 0);
	}
}

/*
 * Buffers larger than the frame, by a number of bytes that leaves their
 * size off a multiple of 4 or not, and a frame starting at an odd offset
 * of its buffer.
 */
TEST_F(rgb24, buffers_and_offsets)
{
	struct llmem_frame_layout l;

	srand(4);
	for (int f = 0; f < 2; f++) {
		for (uint64_t extra = 1; extra <= 4; extra++) {
			EXPECT_EQ(convert_size(_metadata, self->m, sources[f], 642, 7, NULL, extra,
					       NULL),
				  0)
			TH_LOG("%llu bytes more", (unsigned long long)extra);
		}
		for (uint64_t offset = 1; offset <= 7; offset += 2) {
			ASSERT_EQ(llmem_frame_layout_init(sources[f], 641, 3, NULL, &l), 0);
			l.offset[0] = offset;
			l.size += offset;
			EXPECT_EQ(convert_all(_metadata, self->m, &l, l.size, NULL), 0)
			TH_LOG("offset %llu", (unsigned long long)offset);
		}
	}
}

/*
 * A converter of two sources in buffers of odd sizes, recorded at
 * creation, then a third frame submitted by its buffers: each converted
 * exactly, twice, and the encoding and range given ignored.
 */
TEST_F(rgb24, converter_sources)
{
	struct llmem_frame_constraints exact = { .pitch = 1926 };
	struct llmem_frame_layout l;
	struct frame_pair p[3];
	struct llmem_buffer *srcs[2];
	struct llmem_converter *conv;
	uint64_t ticket;

	srand(5);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_RGB888, 642, 7, &exact, &l), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(pair_make(_metadata, self->m, &l, l.size + (i == 2 ? 1 : 0),
				    DRM_FORMAT_XRGB8888, NULL, &p[i]),
			  0);
	srcs[0] = p[0].src;
	srcs[1] = p[1].src;
	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){
				  .srcs = srcs,
				  .src_count = 2,
				  .src_layout = &l,
				  .dst = p[0].dst,
				  .dst_layout = &p[0].dst_l,
				  .encoding = LLMEM_YCBCR_BT709,
				  .range = LLMEM_YCBCR_FULL_RANGE,
			  },
			  &conv),
		  0)
	TH_LOG("%s", llmem_last_error());
	for (int round = 0; round < 2; round++) {
		for (int i = 1; i >= 0; i--) {
			/* Each source's picture lands in the first pair's destination. */
			p[i].dst_map = p[0].dst_map;
			ASSERT_EQ(llmem_converter_run(conv, i), 0);
			EXPECT_EQ(pair_differences(_metadata, &p[i]), 0) TH_LOG("source %d", i);
		}
		ASSERT_EQ(llmem_converter_submit(
				  conv,
				  &(struct llmem_convert_frame){ .src = p[2].src, .dst = p[2].dst },
				  &ticket),
			  0);
		ASSERT_EQ(llmem_converter_wait(conv, ticket, UINT64_MAX), 0);
		EXPECT_EQ(pair_differences(_metadata, &p[2]), 0);
		memset(p[2].dst_map, UNTOUCHED, p[2].dst_size);
	}
	llmem_converter_destroy(conv);
	for (int i = 0; i < 3; i++)
		pair_destroy(&p[i]);
}

/* 24-bit RGB is converted from, to RGBA only; every other request refused
 * with its reason before the device sees it. */
TEST_F(rgb24, refusals)
{
	struct llmem_frame_layout bgr, rgb, abgr, yuyv, nv12, small;
	struct llmem_buffer *a, *b, *tiny;
	struct llmem_converter *conv = (struct llmem_converter *)1;
	struct llmem_convert_info ci;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_BGR888, 642, 8, NULL, &bgr), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_RGB888, 642, 8, NULL, &rgb), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 642, 8, NULL, &abgr), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 642, 8, NULL, &yuyv), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 642, 8, NULL, &nv12), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 640, 8, NULL, &small), 0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){ .size = abgr.size }, &a),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){ .size = abgr.size }, &b),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){ .size = bgr.size - 1 },
				      &tiny),
		  0);
	ci = (struct llmem_convert_info){
		.src = a, .src_layout = &bgr, .dst = b, .dst_layout = &abgr
	};
	ASSERT_EQ(llmem_convert(&ci), 0) TH_LOG("%s", llmem_last_error());
	ci.encoding = LLMEM_YCBCR_BT709;
	ci.range = LLMEM_YCBCR_FULL_RANGE;
	ASSERT_EQ(llmem_convert(&ci), 0);

	/* A value outside the enums is refused for every source. */
	ci.encoding = 2;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "unknown encoding"), NULL);
	ci.encoding = 0;
	ci.range = 0;

	/* 24-bit RGB destinations, from anything. */
	ci.dst_layout = &rgb;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "never written"), NULL);
	ci.src_layout = &abgr;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "never written"), NULL);
	ci.src_layout = &yuyv;
	EXPECT_FAILS(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "never written"), NULL);

	/* 24-bit RGB to YUV, and RGBA through llmem_convert_to_rgba(). */
	ci.src_layout = &bgr;
	ci.dst_layout = &yuyv;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "BGR888 or RGB888 to ABGR8888"), NULL);
	ci.dst_layout = &nv12;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.src_layout = &abgr;
	ci.dst_layout = &abgr;
	EXPECT_FAILS(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "BGR888 or RGB888 only"), NULL);

	/* Sizes, pitches, buffers and a CbCr buffer that do not fit. */
	ci.src_layout = &bgr;
	ci.dst_layout = &small;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "source 642x8, destination 640x8"), NULL);
	ci.dst_layout = &abgr;
	ci.src = tiny;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "needs 15408 bytes"), NULL);
	ci.src = a;
	bgr.pitch[0] = 1925;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "below a row"), NULL);
	bgr.pitch[0] = 1926;
	ci.src_chroma = tiny;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "only NV12"), NULL);
	ci.src_chroma = NULL;

	EXPECT_FAILS(llmem_converter_create(
			     &(struct llmem_converter_create_info){
				     .src_layout = &abgr,
				     .dst_layout = &rgb,
			     },
			     &conv),
		     -EINVAL);
	EXPECT_EQ(conv, NULL);
	llmem_buffer_destroy(a);
	llmem_buffer_destroy(b);
	llmem_buffer_destroy(tiny);
}

TEST_HARNESS_MAIN
