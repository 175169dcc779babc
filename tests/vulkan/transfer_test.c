// SPDX-License-Identifier: MIT
/*
 * Transfers on a queue, every byte checked against a host-side model: host
 * to buffer and back (linear and rectangular), buffer to buffer, fills,
 * images, events, batches, migration and bad input.  Each test runs through
 * the mapping and through a small staging ring that forces chunking and
 * wrap-around.
 */
#include <stdlib.h>

#include <llmem/transfer.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "pattern.h"
#include "readback.h"
#include "vk_test.h"

#define BUF_SIZE 200000

FIXTURE(xfer)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_queue *q;
	struct llmem_buffer *b;
	uint8_t *model, *host;
};

FIXTURE_VARIANT(xfer)
{
	uint32_t flags;
	uint64_t staging_size, chunk_size;
};

FIXTURE_VARIANT_ADD(xfer, mapped){
	.flags = 0,
};

/* 64 KiB in 16 KiB chunks: large transfers are cut and the ring wraps. */
FIXTURE_VARIANT_ADD(xfer, staged){
	.flags = LLMEM_QUEUE_NO_MAPPING,
	.staging_size = 64 << 10,
	.chunk_size = 16 << 10,
};

FIXTURE_SETUP(xfer)
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
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, &qci, &self->q), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	self->model = malloc(BUF_SIZE);
	self->host = malloc(BUF_SIZE);
	ASSERT_NE(self->model, NULL);
	ASSERT_NE(self->host, NULL);
	/* Known contents, written through the queue itself. */
	test_pattern(self->model, BUF_SIZE, 1);
	ASSERT_EQ(
		llmem_enqueue_write_buffer(self->q, self->b, 0, self->model, BUF_SIZE, NULL, NULL),
		0);
}

FIXTURE_TEARDOWN(xfer)
{
	free(self->model);
	free(self->host);
	llmem_buffer_destroy(self->b);
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* The whole buffer read back equals the model. */
static int check_model(struct __test_metadata *_metadata, FIXTURE_DATA(xfer) * self)
{
	return readback_buffer(_metadata, self->q, self->b, self->host, self->model, BUF_SIZE);
}

/* Writes and reads at odd offsets and sizes, larger than a chunk too. */
TEST_F(xfer, linear_odd)
{
	static const uint64_t cases[][2] = {
		{ 0, 1 }, { 1, 3 }, { 7, 13 }, { 4093, 5000 }, { 3, 70001 }, { 1, BUF_SIZE - 2 },
	};
	uint8_t *src = malloc(BUF_SIZE), *dst = malloc(BUF_SIZE);

	ASSERT_NE(src, NULL);
	ASSERT_NE(dst, NULL);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t off = cases[c][0], n = cases[c][1];

		test_pattern(src, n, (unsigned)c + 10);
		ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, off, src, n, NULL, NULL), 0);
		memcpy(self->model + off, src, n);
		memset(dst, 0, n);
		ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, off, dst, n, NULL, NULL), 0);
		ASSERT_EQ(memcmp(dst, src, n), 0);
	}
	ASSERT_EQ(check_model(_metadata, self), 0);
	free(src);
	free(dst);
}

static void model_rect(uint8_t *dst, const uint8_t *src, const struct llmem_rect *r)
{
	uint64_t h = r->region[1] ? r->region[1] : 1, d = r->region[2] ? r->region[2] : 1;
	uint64_t srp = r->src_pitch[0] ? r->src_pitch[0] : r->region[0];
	uint64_t ssp = r->src_pitch[1] ? r->src_pitch[1] : srp * h;
	uint64_t drp = r->dst_pitch[0] ? r->dst_pitch[0] : r->region[0];
	uint64_t dsp = r->dst_pitch[1] ? r->dst_pitch[1] : drp * h;

	for (uint64_t z = 0; z < d; z++)
		for (uint64_t y = 0; y < h; y++)
			for (uint64_t x = 0; x < r->region[0]; x++)
				dst[(r->dst_origin[2] + z) * dsp + (r->dst_origin[1] + y) * drp +
				    r->dst_origin[0] + x] =
					src[(r->src_origin[2] + z) * ssp +
					    (r->src_origin[1] + y) * srp + r->src_origin[0] + x];
}

/* Rectangles with pitches on both sides, PyOpenCL's enqueue_copy semantics. */
TEST_F(xfer, rect)
{
	static const struct llmem_rect rects[] = {
		{ .src_origin = { 3, 2, 1 },
		  .dst_origin = { 5, 1, 2 },
		  .region = { 17, 5, 3 },
		  .src_pitch = { 41, 301 },
		  .dst_pitch = { 33, 250 } },
		{ .src_origin = { 0, 0, 0 }, .dst_origin = { 1, 0, 0 }, .region = { 9 } },
		/* Rows longer than the staging chunk. */
		{ .src_origin = { 1, 1, 0 },
		  .dst_origin = { 7, 1, 0 },
		  .region = { 20000, 3, 2 },
		  .src_pitch = { 20011, 70000 },
		  .dst_pitch = { 20100, 61000 } },
		/* Many short rows, packed on the host side. */
		{ .dst_origin = { 2, 3, 0 }, .region = { 5, 900, 1 }, .dst_pitch = { 11, 0 } },
	};
	uint8_t *src = malloc(BUF_SIZE), *out = malloc(BUF_SIZE), *want = malloc(BUF_SIZE);

	ASSERT_NE(src, NULL);
	ASSERT_NE(out, NULL);
	ASSERT_NE(want, NULL);
	for (size_t c = 0; c < sizeof(rects) / sizeof(rects[0]); c++) {
		struct llmem_rect back = rects[c];

		test_pattern(src, BUF_SIZE, (unsigned)c + 20);
		ASSERT_EQ(llmem_enqueue_write_buffer_rect(self->q, self->b, src, &rects[c], NULL,
							  NULL),
			  0);
		model_rect(self->model, src, &rects[c]);
		ASSERT_EQ(check_model(_metadata, self), 0);

		/* And back into a host box of its own shape. */
		memcpy(back.src_origin, rects[c].dst_origin, sizeof(back.src_origin));
		memcpy(back.src_pitch, rects[c].dst_pitch, sizeof(back.src_pitch));
		memcpy(back.dst_origin, rects[c].src_origin, sizeof(back.dst_origin));
		memcpy(back.dst_pitch, rects[c].src_pitch, sizeof(back.dst_pitch));
		memset(out, 0x5a, BUF_SIZE);
		memset(want, 0x5a, BUF_SIZE);
		model_rect(want, self->model, &back);
		ASSERT_EQ(llmem_enqueue_read_buffer_rect(self->q, self->b, out, &back, NULL, NULL),
			  0);
		ASSERT_EQ(memcmp(out, want, BUF_SIZE), 0);
	}
	free(src);
	free(out);
	free(want);
}

/* Buffer to buffer, between buffers and inside one where ranges do not meet. */
TEST_F(xfer, copy_buffer)
{
	struct llmem_buffer_create_info bci = { .size = 5000 };
	struct llmem_rect inside = {
		.src_origin = { 0, 0, 0 },
		.dst_origin = { 10, 0, 0 },
		.region = { 10, 20, 1 },
		.src_pitch = { 40 },
		.dst_pitch = { 40 },
	};
	struct llmem_rect clash = inside;
	struct llmem_buffer *c, *sub;
	uint8_t out[5000];

	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &c), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 12345, c, 3, 4001, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, c, 3, out, 4001, NULL, NULL), 0);
	ASSERT_EQ(memcmp(out, self->model + 12345, 4001), 0);

	/* Interleaved columns of one buffer: rows never meet. */
	ASSERT_EQ(llmem_enqueue_copy_buffer_rect(self->q, self->b, self->b, &inside, NULL, NULL),
		  0);
	model_rect(self->model, self->model, &inside);
	ASSERT_EQ(check_model(_metadata, self), 0);

	clash.dst_origin[0] = 9;
	EXPECT_EQ(llmem_enqueue_copy_buffer_rect(self->q, self->b, self->b, &clash, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 100, self->b, 199, 100, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 100, self->b, 200, 100, NULL, NULL),
		  0);
	memmove(self->model + 200, self->model + 100, 100);
	/* Sub-regions share memory: overlap is caught across them. */
	ASSERT_EQ(llmem_buffer_create_sub(self->b, 256, 1024, "sub", &sub), 0);
	EXPECT_EQ(llmem_enqueue_copy_buffer(self->q, sub, 0, self->b, 260, 10, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_copy_buffer(self->q, sub, 0, self->b, 1280, 10, NULL, NULL), 0);
	memmove(self->model + 1280, self->model + 256, 10);
	ASSERT_EQ(check_model(_metadata, self), 0);
	llmem_buffer_destroy(sub);
	llmem_buffer_destroy(c);
}

/* Every pattern size at offsets and sizes that are and are not word aligned. */
TEST_F(xfer, fill)
{
	static const uint8_t pat[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
					 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01 };
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16 };

	for (size_t i = 0; i < 5; i++) {
		uint32_t ps = sizes[i];
		uint64_t cases[][2] = { { ps, ps },
					{ 3 * ps, 7 * ps },
					{ 0, 16 * ps },
					{ 1001 * ps, 160003 },
					{ 16 * ps, 3 * ps } };

		for (size_t c = 0; c < 5; c++) {
			uint64_t off = cases[c][0] + 1000 * i, n = cases[c][1];

			off -= off % ps;
			n -= n % ps;
			ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, off, n, pat, ps, NULL,
							    NULL),
				  0);
			for (uint64_t k = 0; k < n; k++)
				self->model[off + k] = pat[k % ps];
		}
		ASSERT_EQ(check_model(_metadata, self), 0);
	}
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 2, 8, pat, 4, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 8, 6, pat, 4, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 12, pat, 3, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 32, pat, 32, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 0, pat, 1, NULL, NULL), -EINVAL);
	EXPECT_EQ(
		llmem_enqueue_fill_buffer(self->q, self->b, BUF_SIZE - 16, 32, pat, 16, NULL, NULL),
		-EINVAL);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 4, NULL, 4, NULL, NULL), -EINVAL);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/* Out-of-range boxes and NULLs fail before anything is recorded. */
TEST_F(xfer, bad_input)
{
	struct llmem_rect r = { .region = { 10, 10, 1 }, .dst_pitch = { 9 } };
	struct llmem_buffer_create_info bci = { .size = 64, .usage = LLMEM_BUFFER_STORAGE };
	struct llmem_buffer *plain;
	uint8_t tmp[64];

	EXPECT_EQ(llmem_enqueue_write_buffer(self->q, self->b, BUF_SIZE - 3, tmp, 4, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_write_buffer(self->q, self->b, UINT64_MAX, tmp, 2, NULL, NULL),
		  -EINVAL);
	EXPECT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, tmp, 0, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, NULL, 4, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_read_buffer(NULL, self->b, 0, tmp, 4, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_enqueue_write_buffer_rect(self->q, self->b, tmp, &r, NULL, NULL), -EINVAL);
	r.dst_pitch[0] = 10;
	r.dst_pitch[1] = 50;
	EXPECT_EQ(llmem_enqueue_write_buffer_rect(self->q, self->b, tmp, &r, NULL, NULL), -EINVAL);
	r.dst_pitch[1] = 0;
	r.dst_origin[2] = UINT64_MAX / 2;
	EXPECT_EQ(llmem_enqueue_write_buffer_rect(self->q, self->b, tmp, &r, NULL, NULL), -EINVAL);
	EXPECT_NE(strlen(llmem_last_error()), 0);
	/* Staging needs transfer usage; the mapping does not. */
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &plain), 0);
	EXPECT_EQ(llmem_enqueue_write_buffer(self->q, plain, 0, tmp, 4, NULL, NULL),
		  variant->flags & LLMEM_QUEUE_NO_MAPPING ? -EPERM : 0);
	EXPECT_EQ(llmem_enqueue_copy_buffer(self->q, plain, 0, self->b, 0, 4, NULL, NULL), -EPERM);
	llmem_buffer_destroy(plain);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/* Non-blocking operations chained through events; reads land on wait. */
TEST_F(xfer, events)
{
	struct llmem_event *w, *c, *r, *f;
	struct llmem_queue *other;
	uint8_t src[3000], out[3000];
	static const uint8_t pat = 0x42;

	test_pattern(src, sizeof(src), 99);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &other), 0);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, 10, src, sizeof(src), NULL, &w), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 10, self->b, 50000, sizeof(src),
					    &(struct llmem_wait_list){ 1, &w }, &c),
		  0);
	/* Another queue orders after the first through the wait list. */
	ASSERT_EQ(llmem_enqueue_fill_buffer(other, self->b, 50000, 8, &pat, 1,
					    &(struct llmem_wait_list){ 1, &c }, &f),
		  0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 50000, out, sizeof(out),
					    &(struct llmem_wait_list){ 1, &f }, &r),
		  0);
	ASSERT_EQ(llmem_event_wait(r, UINT64_MAX), 0);
	memcpy(self->model + 10, src, sizeof(src));
	memcpy(self->model + 50000, src, sizeof(src));
	memset(self->model + 50000, pat, 8);
	EXPECT_EQ(memcmp(out, self->model + 50000, sizeof(out)), 0);
	/* Done events stay done; polling says so at once. */
	EXPECT_EQ(llmem_event_wait(w, 0), 0);
	EXPECT_EQ(llmem_event_wait(f, 0), 0);
	EXPECT_EQ(llmem_event_wait(NULL, 0), -EINVAL);
	llmem_event_release(w);
	llmem_event_release(c);
	llmem_event_release(r);
	llmem_event_release(f);
	llmem_event_release(NULL);
	llmem_queue_destroy(other);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/* Many operations, one submission; its event covers each of them. */
TEST_F(xfer, batch)
{
	struct llmem_event *ev, *inner, *foreign;
	struct llmem_queue *other;
	uint8_t big[100000], out[100000];
	static const uint16_t pat = 0xbeef;

	test_pattern(big, sizeof(big), 7);
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	EXPECT_EQ(llmem_queue_begin_batch(self->q), -EBUSY);
	/* Larger than the small ring: staged outside it for this batch. */
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, 1, big, sizeof(big), NULL, &inner),
		  0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 2, 6, &pat, 2, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 1, self->b, 150000, 1000, NULL, NULL),
		  0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, self->b, 0, out, sizeof(out), NULL, NULL), 0);
	/* Not submitted yet: waiting cannot succeed, other queues cannot depend on it. */
	EXPECT_EQ(llmem_event_wait(inner, 0), -EBUSY);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &other), 0);
	EXPECT_EQ(llmem_enqueue_fill_buffer(other, self->b, 0, 2, &pat, 2,
					    &(struct llmem_wait_list){ 1, &inner }, &foreign),
		  -EINVAL);
	EXPECT_EQ(llmem_queue_finish(self->q), -EBUSY);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, &ev), 0);
	ASSERT_EQ(llmem_event_wait(inner, UINT64_MAX), 0);
	memcpy(self->model + 1, big, sizeof(big));
	for (int i = 0; i < 6; i += 2)
		memcpy(self->model + 2 + i, &pat, 2);
	memcpy(self->model + 150000, self->model + 1, 1000);
	EXPECT_EQ(memcmp(out, self->model, sizeof(out)), 0);
	EXPECT_EQ(llmem_event_wait(ev, 0), 0);
	llmem_event_release(ev);
	llmem_event_release(inner);
	EXPECT_EQ(llmem_queue_submit_batch(self->q, NULL), -EINVAL);

	/* A discarded batch leaves the buffer alone. */
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 64, &pat, 2, NULL, NULL), 0);
	llmem_queue_discard_batch(self->q);
	/* An operation rejected up front leaves the batch as it was. */
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, 64, &pat, 2, NULL, NULL), 0);
	EXPECT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 1, 64, &pat, 2, NULL, NULL), -EINVAL);
	llmem_queue_destroy(other);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, NULL), 0);
	for (int i = 0; i < 64; i += 2)
		memcpy(self->model + i, &pat, 2);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/* Contents survive a move between memories; the handle is replaced. */
TEST_F(xfer, migrate)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_DEVICE_LOCAL };
	struct llmem_memory *dev;
	struct llmem_buffer *b = self->b, *sub;
	struct llmem_event *ev;

	ASSERT_EQ(llmem_memory_create(self->s, &mci, &dev), 0);
	ASSERT_EQ(llmem_buffer_create_sub(b, 0, 256, NULL, &sub), 0);
	EXPECT_EQ(llmem_enqueue_migrate_buffer(self->q, &b, dev, NULL, NULL), -EBUSY);
	llmem_buffer_destroy(sub);
	ASSERT_EQ(llmem_enqueue_migrate_buffer(self->q, &b, dev, NULL, &ev), 0);
	ASSERT_NE(b, self->b);
	self->b = b;
	EXPECT_EQ(llmem_buffer_memory(b), dev);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	llmem_event_release(ev);
	ASSERT_EQ(check_model(_metadata, self), 0);
	ASSERT_EQ(llmem_enqueue_migrate_buffer(self->q, &self->b, self->m, NULL, NULL), 0);
	EXPECT_EQ(llmem_buffer_memory(self->b), self->m);
	ASSERT_EQ(check_model(_metadata, self), 0);
	EXPECT_EQ(llmem_memory_destroy(dev), 0);
}

TEST_HARNESS_MAIN
