// SPDX-License-Identifier: MIT
/*
 * Fills and frame clears that the device writes with the fill and clear
 * shaders, every byte checked against a host model: 8- and 16-byte
 * patterns, ranges in and out of descriptor alignment, ranges cut into many
 * pieces, buffers without STORAGE usage (the staged copies stand in) and
 * without TRANSFER_DST (only the shader can write them), frames with odd
 * pitches, and bad input.  The test links the static library to read its
 * dispatch counter and to shrink a dispatch's piece: which path ran is
 * checked, not guessed.
 */
#include <stdlib.h>

#include <drm_fourcc.h>

#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "pattern.h"
#include "readback.h"
#include "device/session.h"
#include "transfer/dispatch.h"
#include "vk_test.h"

#define BUF_SIZE 150000

static const uint8_t pat[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01 };

FIXTURE(fill)
{
	struct llmem_session *s;
	/* The session's dispatch count, and the limits on a dispatch. */
	struct llmem_dispatch_state *dispatch;
	struct llmem_memory *m;
	struct llmem_queue *q;
	struct llmem_buffer *b;
	uint8_t *model, *host;
};

FIXTURE_VARIANT(fill)
{
	uint32_t flags;
	uint64_t staging_size, chunk_size;
};

FIXTURE_VARIANT_ADD(fill, mapped){
	.flags = 0,
};

/* 64 KiB in 16 KiB chunks: staged tiles stay small, reads are cut. */
FIXTURE_VARIANT_ADD(fill, staged){
	.flags = LLMEM_QUEUE_NO_MAPPING,
	.staging_size = 64 << 10,
	.chunk_size = 16 << 10,
};

FIXTURE_SETUP(fill)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = 1 << 20,
	};
	struct llmem_queue_create_info qci = {
		.flags = variant->flags,
		.staging_size = variant->staging_size,
		.chunk_size = variant->chunk_size,
	};
	struct llmem_buffer_create_info bci = { .size = BUF_SIZE, .name = "b" };

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_dispatch_state_get(self->s, &self->dispatch), 0);
	/* Lavapipe has it; without it every case below would test the fallback. */
	ASSERT_NE(self->s->push_descriptor_set, NULL);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, &qci, &self->q), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	self->model = malloc(BUF_SIZE);
	self->host = malloc(BUF_SIZE);
	ASSERT_NE(self->model, NULL);
	ASSERT_NE(self->host, NULL);
	test_pattern(self->model, BUF_SIZE, 1);
	ASSERT_EQ(
		llmem_enqueue_write_buffer(self->q, self->b, 0, self->model, BUF_SIZE, NULL, NULL),
		0);
}

FIXTURE_TEARDOWN(fill)
{
	free(self->model);
	free(self->host);
	llmem_buffer_destroy(self->b);
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	llmem_dispatch_state_put(self->dispatch);
	VK_TEST_SESSION_END(self->s);
}

static uint64_t dispatches(FIXTURE_DATA(fill) * self)
{
	return atomic_load(&self->dispatch->count);
}

/* @b read back equals @model over @size bytes. */
static int check_bytes(struct __test_metadata *_metadata, FIXTURE_DATA(fill) * self,
		       struct llmem_buffer *b, const uint8_t *model, size_t size)
{
	return readback_buffer(_metadata, self->q, b, self->host, model, size);
}

static void model_fill(uint8_t *model, uint64_t off, uint64_t n, uint32_t ps)
{
	for (uint64_t k = 0; k < n; k++)
		model[off + k] = pat[k % ps];
}

/* A buffer of @usage holding @model, written through the mapping. */
static int buffer_with(FIXTURE_DATA(fill) * self, uint32_t usage, const uint8_t *model,
		       struct llmem_buffer **out)
{
	struct llmem_buffer_create_info bci = { .usage = usage, .name = "other" };

	return llmem_buffer_create_from_host(self->m, &bci, model, BUF_SIZE, out);
}

/* 8- and 16-byte patterns: one dispatch each, in and out of descriptor alignment. */
TEST_F(fill, wide_patterns)
{
	for (uint32_t ps = 8; ps <= 16; ps *= 2) {
		uint64_t cases[][2] = {
			{ 0, ps },
			{ ps, ps },
			{ 3 * ps, 7 * ps },
			{ 8, 13 * ps },
			{ 24 + 1000 * ps, 16 * ps + 8 },
			{ 4096 - ps, 3 * ps },
			{ 40, 70001 },
			{ BUF_SIZE - 5 * ps, 5 * ps },
			{ 0, BUF_SIZE },
		};

		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			uint64_t off = cases[c][0] - cases[c][0] % ps, n = cases[c][1];
			uint64_t before = dispatches(self);

			n -= n % ps;
			ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, off, n, pat, ps, NULL,
							    NULL),
				  0);
			EXPECT_EQ(dispatches(self), before + 1);
			model_fill(self->model, off, n, ps);
			ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0)
			TH_LOG("%u-byte pattern at %llu, %llu bytes", ps, (unsigned long long)off,
			       (unsigned long long)n);
		}
		/* Shorter patterns keep vkCmdFillBuffer and the staged ends. */
		for (uint32_t short_ps = 1; short_ps <= 4; short_ps *= 2) {
			uint64_t before = dispatches(self);

			ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 2 * short_ps + 1000,
							    short_ps * 999, pat, short_ps, NULL,
							    NULL),
				  0);
			EXPECT_EQ(dispatches(self), before);
			model_fill(self->model, 2 * short_ps + 1000, short_ps * 999, short_ps);
		}
		ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
	}
}

/* The piece the library uses: the hook rounded down to the descriptor
 * alignment and to 16 bytes. */
static uint64_t piece_of(FIXTURE_DATA(fill) * self, uint64_t hook)
{
	uint64_t step = self->s->props.limits.minStorageBufferOffsetAlignment;

	step = step > 16 ? step : 16;
	return hook - hook % step;
}

/* Ranges cut into many dispatches of one looping group: the phase holds across pieces. */
TEST_F(fill, pieces)
{
	uint64_t piece = piece_of(self, 2048), p = piece;
	const uint64_t cases[][2] = {
		{ 8, p - 8 },  { p - 8, 16 }, { p - 16, 48 },  { 3 * p, p },
		{ 40, 70000 }, { 16, p },     { 0, BUF_SIZE }, { 4 * p + 8, 9 * p + 8 },
	};

	self->dispatch->piece_max = 2048;
	self->dispatch->groups_max = 1;
	for (uint32_t ps = 8; ps <= 16; ps *= 2) {
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			uint64_t off = cases[c][0] - cases[c][0] % ps,
				 n = cases[c][1] - cases[c][1] % ps;
			uint64_t before = dispatches(self);

			ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, off, n, pat, ps, NULL,
							    NULL),
				  0);
			EXPECT_EQ(dispatches(self) - before,
				  (off + n - 1) / piece - off / piece + 1)
			TH_LOG("%u-byte pattern at %llu, %llu bytes", ps, (unsigned long long)off,
			       (unsigned long long)n);
			model_fill(self->model, off, n, ps);
			ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
		}
	}
	/* In a batch too, between other operations. */
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 8, 5000, pat, 8, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 0, self->b, 100000, 6000, NULL, NULL),
		  0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 96, 2000, pat, 16, NULL, NULL), 0);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, NULL), 0);
	model_fill(self->model, 8, 5000, 8);
	memcpy(self->model + 100000, self->model, 6000);
	model_fill(self->model, 96, 2000, 16);
	ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
}

/* Without STORAGE usage the staged copies write the same bytes. */
TEST_F(fill, no_storage)
{
	struct llmem_buffer *plain, *src_only;
	uint64_t before = dispatches(self);

	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
			      self->model, &plain),
		  0);
	for (uint32_t ps = 8; ps <= 16; ps *= 2) {
		ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, plain, ps, 77777 - 77777 % ps, pat, ps,
						    NULL, NULL),
			  0);
		model_fill(self->model, ps, 77777 - 77777 % ps, ps);
		ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, plain, 90000, 3 * ps, pat, ps, NULL,
						    NULL),
			  0);
		model_fill(self->model, 90000, 3 * ps, ps);
	}
	EXPECT_EQ(dispatches(self), before);
	ASSERT_EQ(check_bytes(_metadata, self, plain, self->model, BUF_SIZE), 0);
	llmem_buffer_destroy(plain);

	/* Neither path can write a buffer with neither usage. */
	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_TRANSFER_SRC, self->model, &src_only), 0);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, src_only, 0, 64, pat, 16, NULL, NULL), -EPERM);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, src_only, 0, 64, pat, 4, NULL, NULL), -EPERM);
	ASSERT_EQ(check_bytes(_metadata, self, src_only, self->model, BUF_SIZE), 0);
	llmem_buffer_destroy(src_only);
}

/* Without TRANSFER_DST only the shader can write: every pattern size, aligned ranges. */
TEST_F(fill, storage_only)
{
	struct llmem_buffer *sb;

	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_STORAGE | LLMEM_BUFFER_TRANSFER_SRC, self->model,
			      &sb),
		  0);
	for (uint32_t ps = 1; ps <= 16; ps *= 2) {
		uint64_t off = 8004 * ps, n = 4000 + 16 * ps;
		uint64_t before = dispatches(self);

		ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, sb, off, n, pat, ps, NULL, NULL), 0);
		EXPECT_EQ(dispatches(self), before + 1);
		model_fill(self->model, off, n, ps);
	}
	/* Bytes outside whole words need a copy, which needs TRANSFER_DST. */
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, sb, 1, 8, pat, 1, NULL, NULL), -EPERM);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, sb, 0, 6, pat, 2, NULL, NULL), -EPERM);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, sb, 2, 4, pat, 2, NULL, NULL), -EPERM);
	ASSERT_EQ(check_bytes(_metadata, self, sb, self->model, BUF_SIZE), 0);
	llmem_buffer_destroy(sb);
}

static struct llmem_frame_layout frame(uint32_t w, uint32_t h, uint32_t pitch, uint64_t offset)
{
	return (struct llmem_frame_layout){
		.fourcc = DRM_FORMAT_ABGR8888,
		.width = w,
		.height = h,
		.num_planes = 1,
		.offset = { offset },
		.pitch = { pitch },
		.size = offset + (uint64_t)(h - 1) * pitch + 4ull * w,
	};
}

static void model_clear(uint8_t *model, const struct llmem_frame_layout *l,
			const struct llmem_image_region *r, const union llmem_color *c)
{
	uint32_t x0 = r ? r->origin[0] : 0, y0 = r ? r->origin[1] : 0;
	uint32_t w = r && r->extent[0] ? r->extent[0] : l->width - x0;
	uint32_t h = r && r->extent[1] ? r->extent[1] : l->height - y0;

	for (uint64_t y = y0; y < y0 + h; y++)
		for (uint64_t x = x0; x < x0 + w; x++)
			for (int i = 0; i < 4; i++)
				model[l->offset[0] + y * l->pitch[0] + x * 4 + i] =
					(uint8_t)c->u32[i];
}

struct clear_case {
	struct llmem_frame_layout layout;
	struct llmem_image_region region;
	bool whole;
};

static const struct clear_case clear_cases[] = {
	/* Packed rows, the whole frame. */
	{ .layout = { DRM_FORMAT_ABGR8888, 37, 21, 1, 0, { 0 }, { 37 * 4 } }, .whole = true },
	/* Padded rows, a rectangle inside. */
	{ .layout = { DRM_FORMAT_ABGR8888, 50, 30, 1, 0, { 1024 }, { 50 * 4 + 12 } },
	  .region = { { 3, 4, 0 }, { 20, 10, 1 } } },
	/* A pitch that is no multiple of 16: rows start anywhere in a descriptor's alignment. */
	{ .layout = { DRM_FORMAT_ABGR8888, 64, 40, 1, 0, { 20 }, { 300 } },
	  .region = { { 5, 6, 0 }, { 40, 30, 0 } } },
	/* Odd pitch and odd offset: rows go by copy. */
	{ .layout = { DRM_FORMAT_ABGR8888, 33, 17, 1, 0, { 4001 }, { 33 * 4 + 3 } },
	  .region = { { 1, 2, 0 }, { 0, 0, 0 } } },
	{ .layout = { DRM_FORMAT_ABGR8888, 200, 60, 1, 0, { 60001 }, { 1001 } } },
	/* Zero region: the whole frame; one row, one column. */
	{ .layout = { DRM_FORMAT_ABGR8888, 9, 9, 1, 0, { 120000 }, { 40 } } },
	{ .layout = { DRM_FORMAT_ABGR8888, 300, 3, 1, 0, { 130000 }, { 1204 } },
	  .region = { { 0, 1, 0 }, { 300, 1, 1 } } },
	{ .layout = { DRM_FORMAT_ABGR8888, 7, 300, 1, 0, { 140000 }, { 29 } },
	  .region = { { 6, 0, 0 }, { 1, 0, 0 } } },
};

#define N_CLEAR_CASES (sizeof(clear_cases) / sizeof(clear_cases[0]))

static bool shader_clears(const struct llmem_frame_layout *l)
{
	return l->offset[0] % 4 == 0 && l->pitch[0] % 4 == 0;
}

/*
 * Clears every case in @b; each must take the shader when @shader allows
 * it and the layout is word-aligned.  Returns the dispatches recorded.
 */
static uint64_t clear_all(struct __test_metadata *_metadata, FIXTURE_DATA(fill) * self,
			  struct llmem_buffer *b, bool shader)
{
	uint64_t total = 0;

	for (size_t c = 0; c < N_CLEAR_CASES; c++) {
		const struct clear_case *cc = &clear_cases[c];
		union llmem_color color = { .u32 = { 10 + c, 20 + c, 255, c } };
		uint64_t before = dispatches(self), ran;

		EXPECT_EQ(llmem_enqueue_clear_frame(self->q, b, &cc->layout,
						    cc->whole ? NULL : &cc->region, &color, NULL,
						    NULL),
			  0);
		ran = dispatches(self) - before;
		EXPECT_EQ(ran != 0, shader && shader_clears(&cc->layout))
		TH_LOG("case %zu: %llu dispatches", c, (unsigned long long)ran);
		model_clear(self->model, &cc->layout, cc->whole ? NULL : &cc->region, &color);
		total += ran;
	}
	return total;
}

/* Rectangles of frames with any pitch, through the shader or by copy. */
TEST_F(fill, clear_frame)
{
	struct llmem_buffer *plain, *sb;
	struct llmem_frame_layout odd = clear_cases[3].layout;
	union llmem_color black = { .u32 = { 0, 0, 0, 255 } };
	size_t aligned = 0;

	for (size_t c = 0; c < N_CLEAR_CASES; c++)
		aligned += shader_clears(&clear_cases[c].layout);
	/* One dispatch per word-aligned frame. */
	EXPECT_EQ(clear_all(_metadata, self, self->b, true), aligned);
	ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);

	/* Without STORAGE, copies write the same bytes. */
	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
			      self->model, &plain),
		  0);
	EXPECT_EQ(clear_all(_metadata, self, plain, false), 0);
	ASSERT_EQ(check_bytes(_metadata, self, plain, self->model, BUF_SIZE), 0);
	llmem_buffer_destroy(plain);

	/* Without TRANSFER_DST, only the shader can: word-aligned frames only. */
	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_STORAGE | LLMEM_BUFFER_TRANSFER_SRC, self->model,
			      &sb),
		  0);
	for (size_t c = 0; c < N_CLEAR_CASES; c++) {
		const struct clear_case *cc = &clear_cases[c];
		uint64_t before = dispatches(self);

		if (!shader_clears(&cc->layout))
			continue;
		ASSERT_EQ(llmem_enqueue_clear_frame(self->q, sb, &cc->layout,
						    cc->whole ? NULL : &cc->region, &black, NULL,
						    NULL),
			  0);
		EXPECT_EQ(dispatches(self), before + 1);
		model_clear(self->model, &cc->layout, cc->whole ? NULL : &cc->region, &black);
	}
	EXPECT_EQ(llmem_enqueue_clear_frame(self->q, sb, &odd, NULL, &black, NULL, NULL), -EPERM);
	ASSERT_EQ(check_bytes(_metadata, self, sb, self->model, BUF_SIZE), 0);
	llmem_buffer_destroy(sb);
}

/* Frames cut into bands of rows and runs of columns, one looping group each. */
TEST_F(fill, clear_pieces)
{
	self->dispatch->piece_max = 256;
	self->dispatch->groups_max = 1;
	EXPECT_GT(clear_all(_metadata, self, self->b, true), 2 * N_CLEAR_CASES);
	ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
}

/* Every bad argument of a frame clear fails with its errno and a message. */
TEST_F(fill, clear_bad_input)
{
	struct llmem_frame_layout good = frame(20, 10, 100, 400), l;
	struct llmem_image_region r = { 0 };
	union llmem_color color = { .u32 = { 1, 2, 3, 4 } };
	struct llmem_session *other;
	struct llmem_memory *om;
	struct llmem_buffer *ob, *src_only, *sb;
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_buffer_create_info bci = { .size = 4096 };

#define CLEAR(q, b, l, r, c) llmem_enqueue_clear_frame(q, b, l, r, c, NULL, NULL)
	EXPECT_FAILS(CLEAR(NULL, self->b, &good, NULL, &color), -EINVAL);
	EXPECT_FAILS(CLEAR(self->q, NULL, &good, NULL, &color), -EINVAL);
	EXPECT_FAILS(CLEAR(self->q, self->b, NULL, NULL, &color), -EINVAL);
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, NULL, NULL), -EINVAL);

	l = good;
	l.fourcc = DRM_FORMAT_YUYV;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = good;
	l.num_planes = 2;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l.num_planes = 0;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = good;
	l.modifier = 1;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = good;
	l.width = 0;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = good;
	l.height = 0;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = good;
	l.pitch[0] = 79;
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);

	/* Rows outside the buffer, without overflow. */
	l = frame(20, 10, 100, BUF_SIZE + 1);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = frame(20, 10, 100, BUF_SIZE - 900 - 79);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = frame(20, 10, 100, BUF_SIZE - 900 - 80);
	EXPECT_EQ(CLEAR(self->q, self->b, &l, NULL, &color), 0);
	model_clear(self->model, &l, NULL, &color);
	l = frame(20, 1, 100, BUF_SIZE - 79);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = frame(1, UINT32_MAX, UINT32_MAX, 0);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = frame(1u << 29, 2, 1u << 31, 0);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);
	l = frame(20, 10, 100, UINT64_MAX);
	EXPECT_FAILS(CLEAR(self->q, self->b, &l, NULL, &color), -EINVAL);

	/* Rectangles outside the frame, and a third dimension. */
	r = (struct llmem_image_region){ { 20, 0, 0 }, { 0, 0, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { 0, 10, 0 }, { 0, 0, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { 5, 0, 0 }, { 16, 0, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { 0, 3, 0 }, { 0, 8, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { UINT32_MAX, 0, 0 }, { 2, 0, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { 0, 0, 1 }, { 0, 0, 0 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);
	r = (struct llmem_image_region){ { 0, 0, 0 }, { 0, 0, 2 } };
	EXPECT_FAILS(CLEAR(self->q, self->b, &good, &r, &color), -EINVAL);

	/* Channels an 8-bit channel cannot hold. */
	for (int i = 0; i < 4; i++) {
		union llmem_color big = color;

		big.u32[i] = 256;
		EXPECT_FAILS(CLEAR(self->q, self->b, &good, NULL, &big), -EINVAL);
	}

	/* A buffer of another session. */
	VK_TEST_SESSION(other);
	ASSERT_EQ(llmem_memory_create(other, &mci, &om), 0);
	ASSERT_EQ(llmem_buffer_create(om, &bci, &ob), 0);
	EXPECT_FAILS(CLEAR(self->q, ob, &good, NULL, &color), -EINVAL);
	llmem_buffer_destroy(ob);
	EXPECT_EQ(llmem_memory_destroy(om), 0);
	EXPECT_EQ(llmem_session_validation_messages(other), 0);
	llmem_session_destroy(other);

	/* Neither path open: no usage for either, or rows the shader cannot write. */
	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_TRANSFER_SRC, self->model, &src_only), 0);
	EXPECT_FAILS(CLEAR(self->q, src_only, &good, NULL, &color), -EPERM);
	llmem_buffer_destroy(src_only);
	ASSERT_EQ(buffer_with(self, LLMEM_BUFFER_STORAGE | LLMEM_BUFFER_TRANSFER_SRC, self->model,
			      &sb),
		  0);
	l = frame(20, 10, 101, 400);
	EXPECT_FAILS(CLEAR(self->q, sb, &l, NULL, &color), -EPERM);
	l = frame(20, 10, 100, 402);
	EXPECT_FAILS(CLEAR(self->q, sb, &l, NULL, &color), -EPERM);
	llmem_buffer_destroy(sb);
#undef CLEAR

	/* Nothing but the one good clear was written. */
	ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
}

/*
 * A session kept by llmem_session_destroy()'s -EBUSY has lost its slots:
 * the dispatch state made again counts from 0, while the state held from
 * before stays readable and counts nothing more.
 */
TEST_F(fill, dispatch_state_after_a_failed_destroy)
{
	struct llmem_dispatch_state *now;
	uint64_t before = dispatches(self);

	ASSERT_EQ(llmem_session_destroy(self->s), -EBUSY);
	ASSERT_EQ(llmem_dispatch_state_get(self->s, &now), 0);
	EXPECT_NE(now, self->dispatch);
	EXPECT_EQ(atomic_load(&now->count), 0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 4096, pat, 16, NULL, NULL), 0);
	EXPECT_EQ(atomic_load(&now->count), 1);
	EXPECT_EQ(dispatches(self), before);
	llmem_dispatch_state_put(now);
	model_fill(self->model, 0, 4096, 16);
	ASSERT_EQ(check_bytes(_metadata, self, self->b, self->model, BUF_SIZE), 0);
}

TEST_HARNESS_MAIN
