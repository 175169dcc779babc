// SPDX-License-Identifier: MIT
/*
 * RGB to YUYV and NV12 on the device (llmem_convert()) against the CPU
 * reference of tests/lib/yuv_ref.c, sample by sample: every code must be
 * the reference's rounding, except within 1e-3 of a half, where the
 * device's single precision may tip it (ref_code_matches()).  Random
 * pixels and the corners of the RGB cube (which clamp: full range's pure
 * blue has Cb 255.5), both matrices and ranges, the three RGB byte orders,
 * compact and padded pitches, NV12 of odd sizes with the bytes past the
 * frame left as they were, the 1280x720 NV12 of vicodec; the round trip
 * YUV to RGB to YUV; and every layout the shaders cannot write refused.
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

/* What the destination held before, to see the bytes a conversion kept. */
#define SENTINEL 0xa5

static const uint32_t rgb_formats[] = { DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888,
					DRM_FORMAT_ARGB8888 };

FIXTURE(to_yuv)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(to_yuv)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 8ull << 20,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

FIXTURE_TEARDOWN(to_yuv)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* NV12 of any size, both planes at @pitch, the CbCr plane after the Y plane. */
static void nv12_layout(uint32_t w, uint32_t h, uint32_t pitch, struct llmem_frame_layout *l)
{
	*l = (struct llmem_frame_layout){
		.fourcc = DRM_FORMAT_NV12,
		.width = w,
		.height = h,
		.num_planes = 2,
		.offset = { 0, (uint64_t)pitch * h },
		.pitch = { pitch, pitch },
		.size = (uint64_t)pitch * h + (uint64_t)pitch * ((h + 1) / 2),
	};
}

/* A buffer of @size bytes, mapped. */
static struct llmem_buffer *mapped(struct __test_metadata *_metadata, struct llmem_memory *m,
				   uint64_t size, uint8_t **map)
{
	struct llmem_buffer *b;

	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = size }, &b) ||
	    llmem_buffer_map(b, (void **)map)) {
		TH_LOG("buffer of %llu bytes: %s", (unsigned long long)size, llmem_last_error());
		return NULL;
	}
	return b;
}

/* Random pixels, the first row opening with the eight corners of the RGB cube. */
static void fill_rgb(uint8_t *map, const struct llmem_frame_layout *l, unsigned int seed)
{
	srand(seed);
	for (uint64_t i = 0; i < l->size; i++)
		map[i] = (uint8_t)rand();
	for (uint32_t corner = 0; corner < 8 && corner < l->width; corner++)
		for (int ch = 0; ch < 3; ch++)
			map[l->offset[0] + 4 * corner + ch] = corner & (1 << ch) ? 255 : 0;
}

/* Samples that are not the reference's, and bytes past the frame that changed. */
struct verdict {
	long wrong, ties, clobbered;
};

static void judge(struct verdict *v, uint8_t got, double code)
{
	if (!ref_code_matches(got, code))
		v->wrong++;
	else if (got != ref_code_byte(code))
		v->ties++;
}

/* The YUV frame @yuv (laid out as @l) against the reference of @rgb (as @rl). */
static struct verdict compare(const uint8_t *yuv, const struct llmem_frame_layout *l,
			      const uint8_t *rgb, const struct llmem_frame_layout *rl,
			      uint32_t encoding, uint32_t range)
{
	uint32_t w = l->width, h = l->height, cw = (w + 1) / 2;
	int nv12 = l->fourcc == DRM_FORMAT_NV12;
	uint32_t ch = nv12 ? (h + 1) / 2 : h;
	double *y = malloc(sizeof(double) * w * h);
	double *cb = malloc(sizeof(double) * cw * ch), *cr = malloc(sizeof(double) * cw * ch);
	struct verdict v = { 0 };

	ref_rgba_to_yuv(rgb + rl->offset[0], rl->pitch[0], rl->fourcc != DRM_FORMAT_ABGR8888, w, h,
			encoding, range, 2, nv12 ? 2 : 1, y, cb, cr);
	for (uint32_t row = 0; row < h; row++) {
		const uint8_t *p = yuv + l->offset[0] + (uint64_t)row * l->pitch[0];

		for (uint32_t x = 0; x < w; x++)
			judge(&v, p[nv12 ? x : 2 * x], y[(size_t)row * w + x]);
		for (uint32_t b = nv12 ? w : 2 * w; b < l->pitch[0]; b++)
			v.clobbered += p[b] != SENTINEL;
	}
	for (uint32_t row = 0; row < ch; row++) {
		const uint8_t *p = yuv + l->offset[nv12] + (uint64_t)row * l->pitch[nv12];

		for (uint32_t c = 0; c < cw; c++) {
			uint32_t at = nv12 ? 2 * c : 4 * c + 1;

			judge(&v, p[at], cb[(size_t)row * cw + c]);
			judge(&v, p[at + (nv12 ? 1 : 2)], cr[(size_t)row * cw + c]);
		}
		for (uint32_t b = 2 * cw; nv12 && b < l->pitch[1]; b++)
			v.clobbered += p[b] != SENTINEL;
	}
	free(y);
	free(cb);
	free(cr);
	return v;
}

/*
 * Converts random RGB of @rgb_fourcc laid out as @rl into @l on the device
 * and compares with the reference; wrong is -1 when a call failed.
 */
static struct verdict convert_to(struct __test_metadata *_metadata, struct llmem_memory *m,
				 const struct llmem_frame_layout *rl,
				 const struct llmem_frame_layout *l, uint32_t encoding,
				 uint32_t range)
{
	struct verdict v = { .wrong = -1 };
	struct llmem_buffer *src, *dst;
	uint8_t *src_map, *dst_map;
	int ret;

	src = mapped(_metadata, m, rl->size, &src_map);
	dst = mapped(_metadata, m, l->size, &dst_map);
	if (!src || !dst)
		goto out;
	fill_rgb(src_map, rl, l->width * 31 + l->height + encoding * 2 + range);
	memset(dst_map, SENTINEL, l->size);
	ret = llmem_convert(&(struct llmem_convert_info){
		.src = src,
		.src_layout = rl,
		.dst = dst,
		.dst_layout = l,
		.encoding = encoding,
		.range = range,
	});
	if (ret)
		TH_LOG("convert %ux%u: %s", l->width, l->height, llmem_last_error());
	else
		v = compare(dst_map, l, src_map, rl, encoding, range);
	if (v.ties)
		TH_LOG("%ux%u, encoding %u, range %u: %ld samples within 1e-3 of a half "
		       "rounded the other way",
		       l->width, l->height, encoding, range, v.ties);
out:
	llmem_buffer_destroy(src);
	llmem_buffer_destroy(dst);
	return v;
}

/* RGB of @rgb_fourcc at @width x @height to @l, every matrix and range: all exact. */
static void check_all(struct __test_metadata *_metadata, struct llmem_memory *m,
		      uint32_t rgb_fourcc, const struct llmem_frame_layout *l)
{
	struct llmem_frame_constraints padded = { .pitch_alignment = 64 };
	struct llmem_frame_layout rl;

	ASSERT_EQ(llmem_frame_layout_init(rgb_fourcc, l->width, l->height, &padded, &rl), 0);
	for (uint32_t enc = 0; enc <= 1; enc++)
		for (uint32_t range = 0; range <= 1; range++) {
			struct verdict v = convert_to(_metadata, m, &rl, l, enc, range);

			EXPECT_EQ(v.wrong, 0)
			TH_LOG("%ux%u to 0x%08x, encoding %u, range %u", l->width, l->height,
			       l->fourcc, enc, range);
			EXPECT_EQ(v.clobbered, 0);
		}
}

/* YUYV, compact 640x480 and padded 998x562, from each RGB byte order. */
TEST_F(to_yuv, yuyv_matches_reference)
{
	struct llmem_frame_constraints padded = { .pitch_alignment = 256 };
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, NULL, &l), 0);
	for (int f = 0; f < 3; f++)
		check_all(_metadata, self->m, rgb_formats[f], &l);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 998, 562, &padded, &l), 0);
	check_all(_metadata, self->m, DRM_FORMAT_XRGB8888, &l);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 2, 1, NULL, &l), 0);
	check_all(_metadata, self->m, DRM_FORMAT_ABGR8888, &l);
}

/* NV12 compact, with the CbCr plane apart, and vicodec's 1280x720 at pitch 1280. */
TEST_F(to_yuv, nv12_matches_reference)
{
	struct llmem_frame_constraints apart = { .pitch_alignment = 64, .plane_alignment = 4096 };
	struct llmem_frame_constraints vicodec = { .pitch = 1280 };
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 640, 480, NULL, &l), 0);
	for (int f = 0; f < 3; f++)
		check_all(_metadata, self->m, rgb_formats[f], &l);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 998, 562, &apart, &l), 0);
	check_all(_metadata, self->m, DRM_FORMAT_ARGB8888, &l);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 1280, 720, &vicodec, &l), 0);
	ASSERT_EQ(l.pitch[0], 1280);
	check_all(_metadata, self->m, DRM_FORMAT_XRGB8888, &l);
}

/*
 * NV12 of odd widths and heights and widths short of a word: the last
 * column and row cover their chroma samples alone, the bytes past the
 * frame in the pitch are kept.
 */
TEST_F(to_yuv, nv12_odd_sizes)
{
	static const uint32_t sizes[][3] = {
		{ 1, 1, 4 }, { 3, 5, 4 }, { 5, 3, 8 }, { 6, 2, 8 }, { 37, 23, 40 }, { 2, 7, 4 },
	};
	struct llmem_frame_layout l;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		nv12_layout(sizes[i][0], sizes[i][1], sizes[i][2], &l);
		check_all(_metadata, self->m, DRM_FORMAT_ABGR8888, &l);
	}
}

/*
 * Random Y, Cb and Cr well inside the gamut (Y 64-192, Cb and Cr 112-144,
 * so that no RGB channel clamps) to RGBA and back: every sample within 1.
 * The RGB bytes round each channel by up to half a level, which moves a Y,
 * Cb or Cr code by up to 219/255, 224/255 or 255/255 of a half; rounding
 * the code again lands on the first or, at most, the next one.
 */
TEST_F(to_yuv, round_trip)
{
	static const uint32_t formats[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12 };
	struct llmem_frame_layout yl, rl;
	struct llmem_buffer *yuv, *rgb, *back;
	uint8_t *yuv_map, *rgb_map, *back_map;

	for (int f = 0; f < 2; f++)
		for (uint32_t enc = 0; enc <= 1; enc++)
			for (uint32_t range = 0; range <= 1; range++) {
				struct llmem_convert_info there, again;
				long differ = 0;
				int worst = 0;

				ASSERT_EQ(llmem_frame_layout_init(formats[f], 320, 240, NULL, &yl),
					  0);
				ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_XRGB8888, 320, 240,
								  NULL, &rl),
					  0);
				yuv = mapped(_metadata, self->m, yl.size, &yuv_map);
				rgb = mapped(_metadata, self->m, rl.size, &rgb_map);
				back = mapped(_metadata, self->m, yl.size, &back_map);
				ASSERT_TRUE(yuv && rgb && back);
				srand(7 + f * 4 + enc * 2 + range);
				for (uint64_t i = 0; i < yl.size; i++) {
					int chroma = formats[f] == DRM_FORMAT_YUYV
							     ? i % 2
							     : i >= yl.offset[1];

					yuv_map[i] = chroma ? 112 + rand() % 33 : 64 + rand() % 129;
				}
				there = (struct llmem_convert_info){ .src = yuv,
								     .src_layout = &yl,
								     .dst = rgb,
								     .dst_layout = &rl,
								     .encoding = enc,
								     .range = range };
				again = (struct llmem_convert_info){ .src = rgb,
								     .src_layout = &rl,
								     .dst = back,
								     .dst_layout = &yl,
								     .encoding = enc,
								     .range = range };
				ASSERT_EQ(llmem_convert(&there), 0)
				TH_LOG("%s", llmem_last_error());
				ASSERT_EQ(llmem_convert(&again), 0)
				TH_LOG("%s", llmem_last_error());
				for (uint64_t i = 0; i < yl.size; i++) {
					int d = abs((int)back_map[i] - (int)yuv_map[i]);

					differ += d != 0;
					worst = d > worst ? d : worst;
				}
				EXPECT_LE(worst, 1)
				TH_LOG("0x%08x, encoding %u, range %u", formats[f], enc, range);
				TH_LOG("0x%08x, encoding %u, range %u: %ld of %llu bytes off by 1",
				       formats[f], enc, range, differ, (unsigned long long)yl.size);
				llmem_buffer_destroy(yuv);
				llmem_buffer_destroy(rgb);
				llmem_buffer_destroy(back);
			}
}

/* Every request the shaders cannot serve is refused, each with its reason. */
TEST_F(to_yuv, refusals)
{
	struct llmem_frame_layout rgba, yuyv, nv12, l;
	struct llmem_buffer *a, *b, *small, *no_storage;
	struct llmem_convert_info ci;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 64, 32, NULL, &rgba), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 64, 32, NULL, &yuyv), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 64, 32, NULL, &nv12), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 8192 },
				      &a),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 8192 },
				      &b),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 1024 },
				      &small),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){
					      .size = 8192, .usage = LLMEM_BUFFER_TRANSFER_DST },
				      &no_storage),
		  0);
	ci = (struct llmem_convert_info){
		.src = a, .src_layout = &rgba, .dst = b, .dst_layout = &nv12
	};
	ASSERT_EQ(llmem_convert(&ci), 0) TH_LOG("%s", llmem_last_error());
	ci.dst_layout = &yuyv;
	ASSERT_EQ(llmem_convert(&ci), 0) TH_LOG("%s", llmem_last_error());

	EXPECT_FAILS(llmem_convert(NULL), -EINVAL);
	/* RGB to RGB, YUV to YUV. */
	ci.dst_layout = &rgba;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.src_layout = &yuyv;
	ci.dst_layout = &nv12;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	/* llmem_convert_to_rgba() takes YUV only. */
	ci.src_layout = &rgba;
	ci.dst_layout = &yuyv;
	EXPECT_FAILS(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_convert()"), NULL);
	/* NULLs. */
	ci.dst_layout = NULL;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.dst_layout = &yuyv;
	ci.dst = NULL;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.dst = b;
	ci.src = NULL;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.src = a;
	/* A destination that is the source; a CbCr buffer for an RGB source. */
	ci.dst = a;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.dst = b;
	ci.src_chroma = small;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "only NV12"), NULL);
	ci.src_chroma = NULL;
	/* Sizes, encoding, range. */
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 64, 16, NULL, &l), 0);
	ci.dst_layout = &l;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.dst_layout = &yuyv;
	ci.encoding = 2;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.encoding = 0;
	ci.range = 2;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	ci.range = 0;
	/* Buffers too small or without storage usage. */
	ci.dst = small;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "needs 4096 bytes"), NULL);
	ci.dst = no_storage;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "STORAGE"), NULL);
	ci.dst = b;
	/* YUYV of an odd width: a word is a pixel pair. */
	l = yuyv;
	l.width = 63;
	ci.dst_layout = &l;
	ci.src_layout = &(struct llmem_frame_layout){ .fourcc = DRM_FORMAT_ABGR8888,
						      .width = 63,
						      .height = 32,
						      .num_planes = 1,
						      .pitch = { 256 },
						      .size = 8192 };
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "even width"), NULL);
	ci.src_layout = &rgba;
	/* NV12 written with a plane's offset or pitch off a word. */
	l = nv12;
	l.pitch[0] = l.pitch[1] = 66;
	l.offset[1] = 66 * 32;
	l.size = 66 * 48;
	ci.dst_layout = &l;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "multiples of 4"), NULL);
	l = nv12;
	l.offset[1] += 2;
	l.size += 2;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "CbCr plane: offset"), NULL);
	/* NV12 whose planes overlap; a pitch below a row. */
	l = nv12;
	l.offset[1] = 64 * 31;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "overlap"), NULL);
	l = nv12;
	l.pitch[0] = 60;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "below"), NULL);
	/* A tiled modifier. */
	l = nv12;
	l.modifier = 1;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	/* An RGB source pitched off a word; the same for a YUYV one, either way. */
	ci.dst_layout = &nv12;
	l = rgba;
	l.pitch[0] = 258;
	l.size = 258 * 32;
	ci.src_layout = &l;
	EXPECT_FAILS(llmem_convert(&ci), -EINVAL);
	l = yuyv;
	l.offset[0] = 2;
	l.size += 2;
	ci.src_layout = &l;
	ci.dst_layout = &rgba;
	EXPECT_FAILS(llmem_convert_to_rgba(&ci), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "read 32-bit words"), NULL);
	/* An NV12 source may lie at any byte. */
	l = nv12;
	l.offset[0] = 1;
	l.offset[1] = 64 * 32 + 3;
	l.size += 3;
	ci.src_layout = &l;
	EXPECT_EQ(llmem_convert_to_rgba(&ci), 0) TH_LOG("%s", llmem_last_error());
	llmem_buffer_destroy(a);
	llmem_buffer_destroy(b);
	llmem_buffer_destroy(small);
	llmem_buffer_destroy(no_storage);
}

TEST_HARNESS_MAIN
