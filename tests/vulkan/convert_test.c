// SPDX-License-Identifier: MIT
/*
 * Frame layouts for importers, and the YUYV/NV12 to RGBA shaders checked
 * against the CPU reference at compact and padded pitches, odd widths, both
 * matrices and both ranges.
 */
#include <stdlib.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "kselftest_harness.h"
#include "vk_test.h"
#include "yuv_ref.h"

/* The packed frame a 640-pixel YUYV camera row gives. */
TEST(layout_yuyv_compact)
{
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, NULL, &l), 0);
	EXPECT_EQ(l.num_planes, 1);
	EXPECT_EQ(l.pitch[0], 1280);
	EXPECT_EQ(l.offset[0], 0);
	EXPECT_EQ(l.size, 1280 * 480);
	EXPECT_EQ(l.modifier, DRM_FORMAT_MOD_LINEAR);
}

/* NV12 follows an importer's exact pitch on both planes, chroma after luma. */
TEST(layout_nv12_importer_pitch)
{
	struct llmem_frame_constraints c = { .pitch = 1024, .min_size = 2000000 };
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 1000, 700, &c, &l), 0);
	EXPECT_EQ(l.num_planes, 2);
	EXPECT_EQ(l.pitch[0], 1024);
	EXPECT_EQ(l.pitch[1], 1024);
	EXPECT_EQ(l.offset[1], 1024 * 700);
	EXPECT_EQ(l.size, 2000000);
}

/* Alignment demands round pitches and plane offsets up. */
TEST(layout_alignments)
{
	struct llmem_frame_constraints c = { .pitch_alignment = 256, .plane_alignment = 4096 };
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 998, 562, &c, &l), 0);
	EXPECT_EQ(l.pitch[0], 1024);
	EXPECT_EQ(l.offset[1] % 4096, 0);
	EXPECT_GE(l.offset[1], 1024 * 562);
	EXPECT_EQ(l.size, l.offset[1] + 1024 * 281);
}

/* Each impossible demand is refused, and the message names it. */
TEST(layout_refusals)
{
	struct llmem_frame_constraints c = { 0 };
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, NULL, NULL), -EINVAL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_RGB565, 640, 480, NULL, &l), -EINVAL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 641, 480, NULL, &l), -EINVAL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 640, 481, NULL, &l), -EINVAL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 0, 480, NULL, &l), -EINVAL);
	c.pitch = 1200;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "below"), NULL);
	c.pitch = 1282;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "32-bit words"), NULL);
	c.pitch = 1280;
	c.pitch_alignment = 256;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &l), 0);
	c.pitch_alignment = 1024;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &l), -EINVAL);
	c = (struct llmem_frame_constraints){ .pitch_alignment = 48 };
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &l), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "powers of two"), NULL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 65536, 65536, NULL, &l), -EOVERFLOW);
	/* A row over 4 GiB, times rows enough to wrap 64 bits (found by the
	 * frame_layout fuzzer): refused, not laid out in 4 bytes a row. */
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 0xc0000001u, 0xffffffffu, NULL, &l),
		  -EOVERFLOW);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 0xfffffffeu, 0xfffffffeu, NULL, &l),
		  -EOVERFLOW);
}

/* The largest difference of any channel between @rgba and @ref, both laid out as @l. */
static int worst_of(const uint8_t *rgba, const uint8_t *ref, const struct llmem_frame_layout *l)
{
	int worst = 0;

	for (uint32_t row = 0; row < l->height; row++)
		for (uint32_t b = 0; b < l->width * 4; b++) {
			size_t i = (size_t)row * l->pitch[0] + b;
			int d = abs((int)rgba[i] - (int)ref[i]);

			worst = d > worst ? d : worst;
		}
	return worst;
}

FIXTURE(convert)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(convert)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 8ull << 20,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

FIXTURE_TEARDOWN(convert)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/*
 * Converts a frame of pseudo-random bytes on the device and on the CPU;
 * returns the largest channel difference, or -1 when a call failed.
 */
static int convert_to(struct __test_metadata *_metadata, struct llmem_memory *m, uint32_t fourcc,
		      uint32_t width, uint32_t height, const struct llmem_frame_constraints *c,
		      uint32_t encoding, uint32_t range, uint32_t dst_fourcc)
{
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_frame_constraints dst_c = { .pitch_alignment = 64 };
	struct llmem_buffer *src, *dst;
	uint8_t *src_map, *dst_map, *ref;
	int worst = 0;

	if (llmem_frame_layout_init(fourcc, width, height, c, &src_l) ||
	    llmem_frame_layout_init(dst_fourcc, width, height, &dst_c, &dst_l))
		return -1;
	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = src_l.size }, &src))
		return -1;
	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = dst_l.size }, &dst))
		return -1;
	if (llmem_buffer_map(src, (void **)&src_map) || llmem_buffer_map(dst, (void **)&dst_map))
		return -1;
	srand(width * 7 + height);
	for (uint64_t i = 0; i < src_l.size; i++)
		src_map[i] = (uint8_t)rand();

	if (llmem_convert_to_rgba(&(struct llmem_convert_info){
		    .src = src,
		    .src_layout = &src_l,
		    .dst = dst,
		    .dst_layout = &dst_l,
		    .encoding = encoding,
		    .range = range,
	    })) {
		TH_LOG("convert: %s", llmem_last_error());
		return -1;
	}

	ref = malloc(dst_l.size);
	if (fourcc == DRM_FORMAT_YUYV)
		ref_yuyv_to_rgba(src_map, src_l.pitch[0], width, height, encoding, range, ref,
				 dst_l.pitch[0]);
	else
		ref_nv12_to_rgba(src_map + src_l.offset[0], src_l.pitch[0],
				 src_map + src_l.offset[1], src_l.pitch[1], width, height, encoding,
				 range, ref, dst_l.pitch[0]);
	/* The reference is R, G, B, A; XRGB8888 and ARGB8888 hold B, G, R, A. */
	for (uint32_t row = 0; row < height; row++)
		for (uint32_t b = 0; b < width * 4; b++) {
			size_t i = (size_t)row * dst_l.pitch[0] + b;
			size_t r = dst_fourcc == DRM_FORMAT_ABGR8888 || b % 4 == 3
					   ? i
					   : i + 2 - b % 4 * 2;
			int d = abs((int)dst_map[i] - (int)ref[r]);

			if (d > worst)
				worst = d;
		}
	free(ref);
	llmem_buffer_unmap(src);
	llmem_buffer_unmap(dst);
	llmem_buffer_destroy(src);
	llmem_buffer_destroy(dst);
	return worst;
}

static int convert_and_compare(struct __test_metadata *_metadata, struct llmem_memory *m,
			       uint32_t fourcc, uint32_t width, uint32_t height,
			       const struct llmem_frame_constraints *c, uint32_t encoding,
			       uint32_t range)
{
	return convert_to(_metadata, m, fourcc, width, height, c, encoding, range,
			  DRM_FORMAT_ABGR8888);
}

/* YUYV, compact 640x480 and padded 998x562, every matrix and range: within 2. */
TEST_F(convert, yuyv_matches_reference)
{
	struct llmem_frame_constraints padded = { .pitch_alignment = 256 };

	for (uint32_t enc = 0; enc <= 1; enc++)
		for (uint32_t range = 0; range <= 1; range++) {
			EXPECT_LE(convert_and_compare(_metadata, self->m, DRM_FORMAT_YUYV, 640, 480,
						      NULL, enc, range),
				  2);
			int worst = convert_and_compare(_metadata, self->m, DRM_FORMAT_YUYV, 998,
							562, &padded, enc, range);
			EXPECT_GE(worst, 0);
			EXPECT_LE(worst, 2);
		}
}

/* NV12, including a chroma plane that does not follow the luma plane. */
TEST_F(convert, nv12_matches_reference)
{
	struct llmem_frame_constraints apart = { .pitch_alignment = 64, .plane_alignment = 4096 };

	for (uint32_t enc = 0; enc <= 1; enc++)
		for (uint32_t range = 0; range <= 1; range++) {
			int worst = convert_and_compare(_metadata, self->m, DRM_FORMAT_NV12, 998,
							562, &apart, enc, range);
			EXPECT_GE(worst, 0);
			EXPECT_LE(worst, 2);
		}
	EXPECT_LE(convert_and_compare(_metadata, self->m, DRM_FORMAT_NV12, 640, 480, NULL, 0, 0),
		  2);
}

/*
 * For a display, the same conversion writes B, G, R, A (XRGB8888 and
 * ARGB8888): each channel where the display reads it, within 2 of the
 * reference, alpha 255.
 */
TEST_F(convert, display_byte_order_matches_reference)
{
	struct llmem_frame_constraints apart = { .pitch_alignment = 64, .plane_alignment = 4096 };
	static const uint32_t display_formats[] = { DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888 };

	for (int f = 0; f < 2; f++) {
		int worst = convert_to(_metadata, self->m, DRM_FORMAT_YUYV, 640, 480, NULL, 0, 0,
				       display_formats[f]);

		EXPECT_GE(worst, 0);
		EXPECT_LE(worst, 2);
		worst = convert_to(_metadata, self->m, DRM_FORMAT_NV12, 998, 562, &apart, 1, 1,
				   display_formats[f]);
		EXPECT_GE(worst, 0);
		EXPECT_LE(worst, 2);
	}
}

/* Every malformed request is refused before the device sees it. */
TEST_F(convert, refusals)
{
	struct llmem_frame_layout yuyv, rgba, small_rgba;
	struct llmem_buffer *a, *b;
	struct llmem_convert_info ci;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 64, 32, NULL, &yuyv), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 64, 32, NULL, &rgba), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 32, 32, NULL, &small_rgba), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 4096 },
				      &a),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 8192 },
				      &b),
		  0);
	ci = (struct llmem_convert_info){
		.src = a, .src_layout = &yuyv, .dst = b, .dst_layout = &rgba
	};
	ASSERT_EQ(llmem_convert_to_rgba(&ci), 0);

	ASSERT_EQ(llmem_convert_to_rgba(NULL), -EINVAL);
	ci.dst = a;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.dst = b;
	ci.dst_layout = &yuyv;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.dst_layout = &small_rgba;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.dst_layout = &rgba;
	ci.src_layout = &rgba;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.src_layout = &yuyv;
	ci.encoding = 2;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.encoding = 0;
	ci.src = b;
	ci.dst = a;
	ASSERT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "needs 8192 bytes"), NULL);
	llmem_buffer_destroy(a);
	llmem_buffer_destroy(b);
}

/*
 * NV12 whose CbCr plane is a buffer of its own (a camera's NV12M): each
 * plane at offset 0 of its buffer, both pitched apart from the width, the
 * Y buffer holding nothing else; within 2 of the reference, through a
 * one-off conversion and a converter over two frames.
 */
TEST_F(convert, nv12_planes_apart_match_reference)
{
	struct llmem_frame_constraints c = { .pitch = 1024 };
	struct llmem_frame_layout l, dst_l;
	struct llmem_buffer *luma[2], *chroma[2], *dst;
	struct llmem_converter *conv;
	uint8_t *y_map[2], *c_map[2], *dst_map, *ref;
	const uint32_t w = 998, h = 562;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, w, h, &c, &l), 0);
	l.offset[1] = 0;
	l.pitch[1] = 1088;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, w, h, NULL, &dst_l), 0);
	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(llmem_buffer_create(self->m,
					      &(struct llmem_buffer_create_info){
						      .size = (uint64_t)l.pitch[0] * h },
					      &luma[f]),
			  0);
		ASSERT_EQ(llmem_buffer_create(self->m,
					      &(struct llmem_buffer_create_info){
						      .size = (uint64_t)l.pitch[1] * h / 2 },
					      &chroma[f]),
			  0);
		ASSERT_EQ(llmem_buffer_map(luma[f], (void **)&y_map[f]), 0);
		ASSERT_EQ(llmem_buffer_map(chroma[f], (void **)&c_map[f]), 0);
		srand(17 + f);
		for (uint64_t i = 0; i < llmem_buffer_size(luma[f]); i++)
			y_map[f][i] = (uint8_t)rand();
		for (uint64_t i = 0; i < llmem_buffer_size(chroma[f]); i++)
			c_map[f][i] = (uint8_t)rand();
	}
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = dst_l.size }, &dst),
		  0);
	ASSERT_EQ(llmem_buffer_map(dst, (void **)&dst_map), 0);
	ref = malloc(dst_l.size);
	ASSERT_NE(ref, NULL);

	ASSERT_EQ(llmem_convert_to_rgba(&(struct llmem_convert_info){
			  .src = luma[1],
			  .src_layout = &l,
			  .dst = dst,
			  .dst_layout = &dst_l,
			  .encoding = 1,
			  .src_chroma = chroma[1],
		  }),
		  0)
	TH_LOG("%s", llmem_last_error());
	ref_nv12_to_rgba(y_map[1], l.pitch[0], c_map[1], l.pitch[1], w, h, 1, 0, ref,
			 dst_l.pitch[0]);
	EXPECT_LE(worst_of(dst_map, ref, &dst_l), 2);

	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){
				  .srcs = luma,
				  .src_count = 2,
				  .src_layout = &l,
				  .dst = dst,
				  .dst_layout = &dst_l,
				  .chroma_srcs = chroma,
			  },
			  &conv),
		  0)
	TH_LOG("%s", llmem_last_error());
	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(llmem_converter_run(conv, f), 0);
		ref_nv12_to_rgba(y_map[f], l.pitch[0], c_map[f], l.pitch[1], w, h, 0, 0, ref,
				 dst_l.pitch[0]);
		EXPECT_LE(worst_of(dst_map, ref, &dst_l), 2) TH_LOG("frame %d", f);
	}
	llmem_converter_destroy(conv);
	free(ref);
	llmem_buffer_unmap(dst);
	llmem_buffer_destroy(dst);
	for (int f = 0; f < 2; f++) {
		llmem_buffer_unmap(luma[f]);
		llmem_buffer_unmap(chroma[f]);
		llmem_buffer_destroy(luma[f]);
		llmem_buffer_destroy(chroma[f]);
	}
}

/* A CbCr buffer of its own is refused where it cannot be used, with the reason. */
TEST_F(convert, nv12_planes_apart_refusals)
{
	struct llmem_frame_layout l, yuyv, rgba;
	struct llmem_buffer *luma, *chroma, *small, *dst;
	struct llmem_buffer *srcs[2], *chromas[2];
	struct llmem_converter *conv = (struct llmem_converter *)1;
	struct llmem_convert_info ci;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 64, 32, NULL, &l), 0);
	l.offset[1] = 0;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 64, 32, NULL, &yuyv), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 64, 32, NULL, &rgba), 0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){ .size = 64 * 32 }, &luma),
		  0);
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = 64 * 16 }, &chroma),
		  0);
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = 64 * 15 }, &small),
		  0);
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = rgba.size }, &dst),
		  0);
	ci = (struct llmem_convert_info){
		.src = luma, .src_layout = &l, .dst = dst, .dst_layout = &rgba, .src_chroma = chroma
	};
	ASSERT_EQ(llmem_convert_to_rgba(&ci), 0) TH_LOG("%s", llmem_last_error());
	/* Without the CbCr buffer, the layout's CbCr plane would overlap the Y plane's
	 * bytes, and the frame is larger than the Y buffer. */
	ci.src_chroma = NULL;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	ci.src_chroma = small;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "CbCr plane needs 1024 bytes"), NULL)
	TH_LOG("%s", llmem_last_error());
	ci.src_chroma = dst;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "two buffers"), NULL);
	ci.src_chroma = chroma;
	ci.src = small;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "Y plane needs 2048 bytes"), NULL);
	ci.src = luma;
	ci.src_layout = &yuyv;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "only NV12"), NULL);
	srcs[0] = srcs[1] = luma;
	chromas[0] = chroma;
	chromas[1] = NULL;
	EXPECT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){
				  .srcs = srcs,
				  .src_count = 2,
				  .src_layout = &l,
				  .dst = dst,
				  .dst_layout = &rgba,
				  .chroma_srcs = chromas,
			  },
			  &conv),
		  -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL chroma source 1"), NULL);
	EXPECT_EQ(conv, NULL);
	llmem_buffer_destroy(luma);
	llmem_buffer_destroy(chroma);
	llmem_buffer_destroy(small);
	llmem_buffer_destroy(dst);
}

/* A converter recorded over three frame buffers converts whichever it is told. */
TEST_F(convert, converter_runs_each_source)
{
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_buffer *srcs[3], *dst;
	struct llmem_converter *conv;
	uint8_t *src_map[3], *dst_map, *ref;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 320, 240, NULL, &src_l), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 320, 240, NULL, &dst_l), 0);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(llmem_buffer_create(
				  self->m, &(struct llmem_buffer_create_info){ .size = src_l.size },
				  &srcs[i]),
			  0);
		ASSERT_EQ(llmem_buffer_map(srcs[i], (void **)&src_map[i]), 0);
		for (uint64_t b = 0; b < src_l.size; b++)
			src_map[i][b] = (uint8_t)(b * (i + 3) + i);
	}
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = dst_l.size }, &dst),
		  0);
	ASSERT_EQ(llmem_buffer_map(dst, (void **)&dst_map), 0);
	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){ .srcs = srcs,
								 .src_count = 0,
								 .src_layout = &src_l,
								 .dst = dst,
								 .dst_layout = &dst_l },
			  &conv),
		  -EINVAL);
	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){ .srcs = srcs,
								 .src_count = 3,
								 .src_layout = &dst_l,
								 .dst = dst,
								 .dst_layout = &dst_l },
			  &conv),
		  -EINVAL);
	ASSERT_EQ(
		llmem_converter_create(&(struct llmem_converter_create_info){ .srcs = srcs,
									      .src_count = 3,
									      .src_layout = &src_l,
									      .dst = dst,
									      .dst_layout = &dst_l,
									      .encoding = 1 },
				       &conv),
		0);
	ASSERT_EQ(llmem_converter_run(conv, 3), -EINVAL);
	ASSERT_EQ(llmem_converter_run(NULL, 0), -EINVAL);
	ref = malloc(dst_l.size);
	for (int round = 0; round < 2; round++)
		for (int i = 2; i >= 0; i--) {
			int worst = 0;

			ASSERT_EQ(llmem_converter_run(conv, i), 0);
			ref_yuyv_to_rgba(src_map[i], src_l.pitch[0], 320, 240, 1, 0, ref,
					 dst_l.pitch[0]);
			for (uint64_t b = 0; b < dst_l.size; b++) {
				int d = abs((int)dst_map[b] - (int)ref[b]);

				worst = d > worst ? d : worst;
			}
			EXPECT_LE(worst, 2) TH_LOG("source %d", i);
		}
	free(ref);
	llmem_converter_destroy(conv);
	llmem_converter_destroy(NULL);
	for (int i = 0; i < 3; i++) {
		llmem_buffer_unmap(srcs[i]);
		llmem_buffer_destroy(srcs[i]);
	}
	llmem_buffer_unmap(dst);
	llmem_buffer_destroy(dst);
}

TEST_HARNESS_MAIN
