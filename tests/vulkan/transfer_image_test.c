// SPDX-License-Identifier: MIT
/*
 * Image transfers on a queue against a host model of the texels: boxes to
 * and from host memory with pitches, to and from buffers, clears, and bad
 * input.  The small-ring variant cuts images by rows and rows by texels.
 */
#include <stdlib.h>

#include <llmem/transfer.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "readback.h"
#include "vk_test.h"

FIXTURE(ximg)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_queue *q;
};

FIXTURE_VARIANT(ximg)
{
	uint64_t staging_size, chunk_size;
};

FIXTURE_VARIANT_ADD(ximg, default_ring){
	.staging_size = 0,
};

FIXTURE_VARIANT_ADD(ximg, small_ring){
	.staging_size = 64 << 10,
	.chunk_size = 16 << 10,
};

FIXTURE_SETUP(ximg)
{
	struct llmem_queue_create_info qci = {
		.staging_size = variant->staging_size,
		.chunk_size = variant->chunk_size,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, NULL, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, &qci, &self->q), 0);
}

FIXTURE_TEARDOWN(ximg)
{
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ (i >> 3));
}

struct shape {
	uint32_t w, h, d, texel;
};

/* Copies a box between two pitched spaces: what every image transfer is. */
static void model_box(uint8_t *dst, uint64_t drp, uint64_t dsp, const uint8_t *src, uint64_t srp,
		      uint64_t ssp, uint64_t bytes, uint32_t rows, uint32_t slices)
{
	for (uint32_t z = 0; z < slices; z++)
		for (uint32_t y = 0; y < rows; y++)
			memcpy(dst + z * dsp + y * drp, src + z * ssp + y * srp, bytes);
}

static uint8_t *texel_at(uint8_t *img, const struct shape *s, uint32_t x, uint32_t y, uint32_t z)
{
	return img + (((uint64_t)z * s->h + y) * s->w + x) * s->texel;
}

static int make_image(struct __test_metadata *_metadata, FIXTURE_DATA(ximg) * self,
		      const struct llmem_image_create_info *ci, struct llmem_image **img,
		      struct shape *s, uint8_t **model)
{
	uint64_t size;

	if (llmem_image_create(self->m, ci, img))
		return -1;
	s->w = llmem_image_width(*img);
	s->h = llmem_image_height(*img);
	s->d = llmem_image_depth(*img);
	size = llmem_image_size(*img);
	s->texel = (uint32_t)(size / ((uint64_t)s->w * s->h * s->d));
	*model = malloc(size);
	if (!*model)
		return -1;
	pattern(*model, size, 3);
	EXPECT_EQ(llmem_enqueue_write_image(self->q, *img, NULL, *model, NULL, NULL, NULL), 0);
	return 0;
}

static int check_image(struct __test_metadata *_metadata, FIXTURE_DATA(ximg) * self,
		       struct llmem_image *img, const uint8_t *model)
{
	return readback_image(_metadata, self->q, img, model);
}

/* Boxes of 2D, 3D and 1D images to and from pitched host memory. */
TEST_F(ximg, host_boxes)
{
	static const struct llmem_image_create_info infos[] = {
		{ .ndim = 3, .shape = { 200, 300, 4 }, .name = "rgba" },
		{ .ndim = 4, .shape = { 5, 19, 23, 1 }, .channel_type = LLMEM_CHANNEL_F32 },
		/* One row of 128 KiB: cut across the row in the small ring. */
		{ .ndim = 3, .shape = { 1, 8192, 4 }, .channel_type = LLMEM_CHANNEL_U32 },
	};
	static const struct llmem_image_region regions[] = {
		{ .origin = { 3, 5, 0 }, .extent = { 250, 170, 1 } },
		{ .origin = { 2, 1, 1 }, .extent = { 9, 13, 3 } },
		{ .origin = { 1001, 0, 0 }, .extent = { 5000, 1, 1 } },
	};

	for (int i = 0; i < 3; i++) {
		const struct llmem_image_region *r = &regions[i];
		struct llmem_image *img;
		struct shape s;
		uint8_t *model, *host, *out;
		uint64_t row = (uint64_t)r->extent[0], rp, sp, size;
		struct llmem_linear_layout lay;

		ASSERT_EQ(make_image(_metadata, self, &infos[i], &img, &s, &model), 0);
		ASSERT_EQ(check_image(_metadata, self, img, model), 0);
		row *= s.texel;
		rp = row + 13;
		sp = rp * r->extent[1] + 7;
		lay = (struct llmem_linear_layout){ 5, rp, sp };
		size = 5 + sp * r->extent[2];
		host = malloc(size);
		out = malloc(size);
		pattern(host, size, 40 + i);
		ASSERT_EQ(llmem_enqueue_write_image(self->q, img, r, host + 0, &lay, NULL, NULL),
			  0);
		model_box(texel_at(model, &s, r->origin[0], r->origin[1], r->origin[2]),
			  (uint64_t)s.w * s.texel, (uint64_t)s.w * s.h * s.texel, host + 5, rp, sp,
			  row, r->extent[1], r->extent[2]);
		ASSERT_EQ(check_image(_metadata, self, img, model), 0);

		/* Read the box back into the same pitched layout; gaps stay as they were. */
		memset(out, 0x77, size);
		memset(host, 0x77, size);
		model_box(host + 5, rp, sp,
			  texel_at(model, &s, r->origin[0], r->origin[1], r->origin[2]),
			  (uint64_t)s.w * s.texel, (uint64_t)s.w * s.h * s.texel, row, r->extent[1],
			  r->extent[2]);
		ASSERT_EQ(llmem_enqueue_read_image(self->q, img, r, out, &lay, NULL, NULL), 0);
		EXPECT_EQ(memcmp(out, host, size), 0);
		free(host);
		free(out);
		free(model);
		llmem_image_destroy(img);
	}
}

/* Buffer boxes with a row pitch to and from an image region, without the host. */
TEST_F(ximg, buffer_boxes)
{
	struct llmem_image_create_info ci = { .ndim = 3,
					      .shape = { 40, 50, 2 },
					      .channel_type = LLMEM_CHANNEL_U16 };
	struct llmem_image_region r = { .origin = { 7, 9, 0 }, .extent = { 21, 17, 0 } };
	struct llmem_linear_layout lay = { .offset = 12, .row_pitch = 4 * 30 };
	struct llmem_buffer_create_info bci = { .size = 12 + 120 * 17 };
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_buffer *buf, *foreign;
	struct llmem_session *other;
	struct llmem_memory *om;
	struct llmem_image *img;
	struct shape s;
	uint8_t *model, src[12 + 120 * 17], out[12 + 120 * 17];
	struct llmem_event *ev;

	ASSERT_EQ(make_image(_metadata, self, &ci, &img, &s, &model), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &buf), 0);
	pattern(src, sizeof(src), 11);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, buf, 0, src, sizeof(src), NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer_to_image(self->q, buf, &lay, img, &r, NULL, &ev), 0);
	model_box(texel_at(model, &s, 7, 9, 0), s.w * 4, 0, src + 12, 120, 0, 21 * 4, 17, 1);
	llmem_event_release(ev);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);

	/* Back into a zeroed buffer: only the box's rows are written. */
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, buf, 0, sizeof(out), "\0", 1, NULL, NULL), 0);
	r.origin[0] = 0;
	ASSERT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, buf, &lay, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, buf, 0, out, sizeof(out), NULL, NULL), 0);
	memset(src, 0, sizeof(src));
	model_box(src + 12, 120, 0, texel_at(model, &s, 0, 9, 0), s.w * 4, 0, 21 * 4, 17, 1);
	EXPECT_EQ(memcmp(out, src, sizeof(out)), 0);

	/* Offsets and pitches Vulkan cannot express, and boxes that do not fit. */
	lay.offset = 2;
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, buf, &lay, NULL, NULL),
		  -EINVAL);
	lay.offset = 12;
	lay.row_pitch = 122;
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, buf, &lay, NULL, NULL),
		  -EINVAL);
	lay.row_pitch = 120;
	lay.offset = 100;
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, buf, &lay, NULL, NULL),
		  -EINVAL);
	r.origin[0] = 50;
	EXPECT_EQ(llmem_enqueue_read_image(self->q, img, &r, out, NULL, NULL, NULL), -EINVAL);
	r.origin[0] = 30;
	r.extent[0] = 21;
	EXPECT_EQ(llmem_enqueue_read_image(self->q, img, &r, out, NULL, NULL, NULL), -EINVAL);

	/* No buffer, or one of another session. */
	r.origin[0] = 0;
	lay.offset = 12;
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, NULL, &lay, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_copy_buffer_to_image(self->q, NULL, &lay, img, &r, NULL, NULL),
		  -EINVAL);
	VK_TEST_SESSION(other);
	ASSERT_EQ(llmem_memory_create(other, &mci, &om), 0);
	ASSERT_EQ(llmem_buffer_create(om, &bci, &foreign), 0);
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, foreign, &lay, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_copy_buffer_to_image(self->q, foreign, &lay, img, &r, NULL, NULL),
		  -EINVAL);
	llmem_buffer_destroy(foreign);
	EXPECT_EQ(llmem_memory_destroy(om), 0);
	EXPECT_EQ(llmem_session_validation_messages(other), 0);
	llmem_session_destroy(other);
	/* The same box and buffer are good. */
	EXPECT_EQ(llmem_enqueue_copy_image_to_buffer(self->q, img, &r, buf, &lay, NULL, NULL), 0);
	llmem_buffer_destroy(buf);
	free(model);
	llmem_image_destroy(img);
}

static void model_clear(uint8_t *model, const struct shape *s, const struct llmem_image_region *r,
			const uint8_t *texel)
{
	for (uint32_t z = 0; z < r->extent[2]; z++)
		for (uint32_t y = 0; y < r->extent[1]; y++)
			for (uint32_t x = 0; x < r->extent[0]; x++)
				memcpy(texel_at(model, s, r->origin[0] + x, r->origin[1] + y,
						r->origin[2] + z),
				       texel, s->texel);
}

/* Whole-image and region clears in u8, i16 and f16, checked texel by texel. */
TEST_F(ximg, clear)
{
	struct llmem_image_create_info rgba = { .ndim = 3, .shape = { 33, 45, 4 } };
	struct llmem_image_create_info half = { .ndim = 3,
						.shape = { 40, 30, 2 },
						.channel_type = LLMEM_CHANNEL_F16 };
	struct llmem_image_create_info i16 = { .ndim = 2,
					       .shape = { 10, 12 },
					       .channel_type = LLMEM_CHANNEL_I16 };
	struct llmem_image_region whole = { .extent = { 0 } };
	struct llmem_image_region r = { .origin = { 5, 6, 0 }, .extent = { 7, 20, 1 } };
	union llmem_color c = { .u32 = { 1, 2, 3, 255 } };
	uint8_t t_rgba[4] = { 1, 2, 3, 255 }, t2[4] = { 9, 8, 7, 6 };
	uint16_t th[2] = { 0x3800, 0xc000 }; /* 0.5, -2.0 */
	int16_t ti = -300;
	struct llmem_image *img;
	struct shape s;
	uint8_t *model;

	ASSERT_EQ(make_image(_metadata, self, &rgba, &img, &s, &model), 0);
	ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, NULL, &c, NULL, NULL), 0);
	whole.extent[0] = s.w;
	whole.extent[1] = s.h;
	whole.extent[2] = 1;
	model_clear(model, &s, &whole, t_rgba);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);
	c = (union llmem_color){ .u32 = { 9, 8, 7, 6 } };
	ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, &r, &c, NULL, NULL), 0);
	model_clear(model, &s, &r, t2);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);
	c.u32[1] = 256;
	EXPECT_EQ(llmem_enqueue_clear_image(self->q, img, &r, &c, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_clear_image(self->q, img, &r, NULL, NULL, NULL), -EINVAL);
	free(model);
	llmem_image_destroy(img);

	ASSERT_EQ(make_image(_metadata, self, &half, &img, &s, &model), 0);
	c = (union llmem_color){ .f32 = { 0.5f, -2.0f } };
	ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, NULL, &c, NULL, NULL), 0);
	whole.extent[0] = s.w;
	whole.extent[1] = s.h;
	model_clear(model, &s, &whole, (uint8_t *)th);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);
	c = (union llmem_color){ .f32 = { -2.0f, 0.5f } };
	th[0] = 0xc000;
	th[1] = 0x3800;
	ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, &r, &c, NULL, NULL), 0);
	model_clear(model, &s, &r, (uint8_t *)th);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);
	free(model);
	llmem_image_destroy(img);

	ASSERT_EQ(make_image(_metadata, self, &i16, &img, &s, &model), 0);
	c = (union llmem_color){ .i32 = { -300 } };
	r = (struct llmem_image_region){ .origin = { 1, 2, 0 }, .extent = { 3, 4, 1 } };
	ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, &r, &c, NULL, NULL), 0);
	model_clear(model, &s, &r, (uint8_t *)&ti);
	ASSERT_EQ(check_image(_metadata, self, img, model), 0);
	c.i32[0] = 40000;
	EXPECT_EQ(llmem_enqueue_clear_image(self->q, img, &r, &c, NULL, NULL), -EINVAL);
	free(model);
	llmem_image_destroy(img);
}

/* Usage the path needs is checked up front. */
TEST_F(ximg, usage)
{
	struct llmem_image_create_info ci = { .ndim = 2,
					      .shape = { 4, 4 },
					      .usage = LLMEM_IMAGE_SAMPLED |
						       LLMEM_IMAGE_TRANSFER_DST };
	union llmem_color c = { 0 };
	struct llmem_image *img;
	uint8_t out[16];

	ASSERT_EQ(llmem_image_create(self->m, &ci, &img), 0);
	EXPECT_EQ(llmem_enqueue_read_image(self->q, img, NULL, out, NULL, NULL, NULL), -EPERM);
	EXPECT_EQ(llmem_enqueue_write_image(self->q, img, NULL, out, NULL, NULL, NULL), 0);
	EXPECT_EQ(llmem_enqueue_clear_image(self->q, img, NULL, &c, NULL, NULL), 0);
	EXPECT_EQ(llmem_enqueue_write_image(self->q, img, NULL, NULL, NULL, NULL, NULL), -EINVAL);
	llmem_image_destroy(img);
}

TEST_HARNESS_MAIN
