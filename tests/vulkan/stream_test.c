// SPDX-License-Identifier: MIT
/*
 * Staged uploads of many chunks: the host writes a chunk into the ring, then
 * submits its copy, while the device copies the chunks before it.  Every
 * byte is checked against a host-side model; the queue's records are
 * inspected (the test links the static library) to show that the records
 * are reused rather than made per chunk, and the ring written with
 * streaming stores where the device is a CPU.
 */
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "pattern.h"
#include "transfer/queue.h"
#include "readback.h"
#include "base/stream_copy.h"
#include "vk_test.h"

#define BUF_SIZE ((21u << 20) + 333)

FIXTURE(stream)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_queue *q;
	struct llmem_buffer *b;
	uint8_t *model, *host, *back;
};

FIXTURE_VARIANT(stream)
{
	uint64_t staging_size, chunk_size;
};

/* The defaults: 32 MiB in 8 MiB chunks. */
FIXTURE_VARIANT_ADD(stream, defaults){};

/* Two chunks to the ring; a 21 MiB upload wraps it ten times. */
FIXTURE_VARIANT_ADD(stream, small_ring){
	.staging_size = 2 << 20,
	.chunk_size = 1 << 20,
};

/* A ring that is no multiple of the chunk: chunks end where the ring must
 * wrap. */
FIXTURE_VARIANT_ADD(stream, uneven){
	.staging_size = (5 << 20) + (12 << 10),
	.chunk_size = (5 << 18) + (4 << 10),
};

FIXTURE_SETUP(stream)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_DEVICE_LOCAL };
	struct llmem_queue_create_info qci = {
		.flags = LLMEM_QUEUE_NO_MAPPING,
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
	self->back = malloc(BUF_SIZE);
	ASSERT_NE(self->model, NULL);
	ASSERT_NE(self->host, NULL);
	ASSERT_NE(self->back, NULL);
	test_pattern(self->model, BUF_SIZE, 3);
	ASSERT_EQ(
		llmem_enqueue_write_buffer(self->q, self->b, 0, self->model, BUF_SIZE, NULL, NULL),
		0);
}

FIXTURE_TEARDOWN(stream)
{
	llmem_buffer_destroy(self->b);
	llmem_queue_destroy(self->q);
	llmem_memory_destroy(self->m);
	free(self->model);
	free(self->host);
	free(self->back);
	VK_TEST_SESSION_END(self->s);
}

/* Reads the whole buffer back (chunk by chunk) against the model. */
static int check_model(struct __test_metadata *_metadata, FIXTURE_DATA(stream) * self)
{
	return readback_buffer(_metadata, self->q, self->b, self->back, self->model, BUF_SIZE);
}

TEST_F(stream, linear_odd)
{
	static const uint64_t cases[][2] = {
		{ 0, BUF_SIZE },	 { 1, BUF_SIZE - 2 },
		{ 777, (9u << 20) + 5 }, { (3u << 20) - 1, (512u << 10) + 1 },
		{ BUF_SIZE - 1, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t off = cases[i][0], size = cases[i][1];

		test_pattern(self->host, size, 100 + (unsigned int)i);
		ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, off, self->host, size, NULL,
						     NULL),
			  0);
		memcpy(self->model + off, self->host, size);
		ASSERT_EQ(check_model(_metadata, self), 0);
	}
}

/* A CPU device's ring is written with streaming stores (lavapipe copies out
 * of it on another core), a GPU's with ordinary ones. */
TEST_F(stream, streams_into_ring_of_cpu_device)
{
	bool cpu = self->s->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
	uint64_t size = 3u << 20;
	size_t before = llmem_stream_copy_streamed();

	test_pattern(self->host, size, 9);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, 64, self->host, size, NULL, NULL),
		  0);
	memcpy(self->model + 64, self->host, size);
	if (cpu && llmem_stream_copy_widest()) {
		ASSERT_GE(llmem_stream_copy_streamed() - before, size - 128);
	} else {
		ASSERT_EQ(llmem_stream_copy_streamed(), before);
	}
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/* Rows cut into chunks, with pitches on both sides. */
TEST_F(stream, rect)
{
	struct llmem_rect r = {
		.src_origin = { 5, 3, 1 },
		.dst_origin = { 11, 7, 2 },
		.region = { 3001, 700, 3 },
		.src_pitch = { 3100, 3100 * 720 },
		.dst_pitch = { 3333, 3333 * 710 },
	};
	uint64_t src_size = 3100ull * 720 * 4;

	ASSERT_LE(11 + 3333ull * 7 + 3333ull * 710 * 4, BUF_SIZE);
	test_pattern(self->host, src_size, 21);
	ASSERT_EQ(llmem_enqueue_write_buffer_rect(self->q, self->b, self->host, &r, NULL, NULL), 0);
	for (uint64_t z = 0; z < r.region[2]; z++)
		for (uint64_t y = 0; y < r.region[1]; y++)
			memcpy(self->model + r.dst_origin[0] + (r.dst_origin[1] + y) * 3333 +
				       (r.dst_origin[2] + z) * 3333 * 710,
			       self->host + r.src_origin[0] + (r.src_origin[1] + y) * 3100 +
				       (r.src_origin[2] + z) * 3100 * 720,
			       r.region[0]);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/*
 * Non-blocking uploads, each followed by operations that depend on it in
 * the queue and on another queue, which wait behind the uploads' chunks.
 */
TEST_F(stream, events_and_other_queue)
{
	struct llmem_event *w1, *w2, *c, *f;
	struct llmem_queue *other;
	static const uint32_t pat = 0x5a5aa5a5;
	uint64_t half = BUF_SIZE / 2;

	ASSERT_EQ(llmem_queue_create(self->s, NULL, &other), 0);
	test_pattern(self->host, BUF_SIZE, 5);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, 0, self->host, half, NULL, &w1), 0);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, half, self->host + half,
					     BUF_SIZE - half, NULL, &w2),
		  0);
	ASSERT_EQ(llmem_enqueue_copy_buffer(self->q, self->b, 0, self->b, half, 1 << 20,
					    &(struct llmem_wait_list){ 1, &w2 }, &c),
		  0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(other, self->b, 4096, 1 << 16, &pat, 4,
					    &(struct llmem_wait_list){ 1, &c }, &f),
		  0);
	ASSERT_EQ(llmem_event_wait(f, UINT64_MAX), 0);
	EXPECT_EQ(llmem_event_wait(w1, 0), 0);
	memcpy(self->model, self->host, BUF_SIZE);
	memcpy(self->model + half, self->host, 1 << 20);
	for (int i = 0; i < 1 << 16; i += 4)
		memcpy(self->model + 4096 + i, &pat, 4);
	llmem_event_release(w1);
	llmem_event_release(w2);
	llmem_event_release(c);
	llmem_event_release(f);
	llmem_queue_destroy(other);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

struct uploader {
	struct llmem_queue *q;
	struct llmem_buffer *b;
	const uint8_t *src;
	uint64_t size;
	int ret;
};

static void *upload_repeatedly(void *arg)
{
	struct uploader *u = arg;

	for (int i = 0; i < 4 && !u->ret; i++)
		u->ret = llmem_enqueue_write_buffer(u->q, u->b, 0, u->src, u->size, NULL, NULL);
	return NULL;
}

/* Two threads upload into two buffers through two queues of one session,
 * whose submissions share the device queue. */
TEST_F(stream, two_threads)
{
	struct llmem_buffer_create_info bci = { .size = BUF_SIZE, .name = "second" };
	struct uploader u[2] = {
		{ .b = self->b, .src = self->host, .size = BUF_SIZE },
		{ .src = self->model, .size = BUF_SIZE },
	};
	pthread_t t[2];

	ASSERT_EQ(llmem_queue_create(self->s,
				     &(struct llmem_queue_create_info){
					     .flags = LLMEM_QUEUE_NO_MAPPING,
				     },
				     &u[1].q),
		  0);
	u[0].q = self->q;
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &u[1].b), 0);
	test_pattern(self->host, BUF_SIZE, 77);
	test_pattern(self->model, BUF_SIZE, 78);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, upload_repeatedly, &u[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	EXPECT_EQ(u[0].ret, 0);
	EXPECT_EQ(u[1].ret, 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(u[1].q, u[1].b, 0, self->back, BUF_SIZE, NULL, NULL),
		  0);
	EXPECT_EQ(memcmp(self->back, self->model, BUF_SIZE), 0);
	memcpy(self->model, self->host, BUF_SIZE);
	llmem_buffer_destroy(u[1].b);
	llmem_queue_destroy(u[1].q);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/*
 * The records (command buffer, fence) made by the first uploads serve every
 * later one: a bounded set, however many uploads follow.
 */
TEST_F(stream, records_reused)
{
	/* In flight: the chunks the ring holds; one open. */
	uint64_t most = self->q->ring_size / self->q->chunk_size + 2;
	uint32_t records = 0;

	for (int i = 0; i < 5; i++) {
		test_pattern(self->host, BUF_SIZE, 200 + i);
		ASSERT_EQ(llmem_enqueue_write_buffer(self->q, self->b, 0, self->host, BUF_SIZE,
						     NULL, NULL),
			  0);
	}
	ASSERT_EQ(llmem_queue_finish(self->q), 0);
	for (struct llmem_record *rec = self->q->free; rec; rec = rec->next)
		records++;
	TH_LOG("%llu MiB ring, %llu KiB chunks: %u records",
	       (unsigned long long)(self->q->ring_size >> 20),
	       (unsigned long long)(self->q->chunk_size >> 10), records);
	EXPECT_LE(records, most);
	memcpy(self->model, self->host, BUF_SIZE);
	ASSERT_EQ(check_model(_metadata, self), 0);
}

/*
 * A batch never waits for ring space: what the ring cannot hold goes to
 * temporary staging, freed with the batch.  As many chunks as the ring has
 * room for must therefore all land in the ring.
 */
TEST_F(stream, ring_holds_its_chunks)
{
	uint64_t chunk = self->q->chunk_size;
	uint64_t bytes = self->q->ring_size / chunk * chunk;
	struct llmem_buffer_create_info bci = { .size = bytes, .name = "ring-sized" };
	struct llmem_buffer *b;
	uint8_t *src = malloc(bytes), *back = malloc(bytes);

	ASSERT_NE(src, NULL);
	ASSERT_NE(back, NULL);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &b), 0);
	ASSERT_EQ(llmem_queue_finish(self->q), 0);
	test_pattern(src, bytes, 77);
	ASSERT_EQ(llmem_queue_begin_batch(self->q), 0);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, b, 0, src, bytes, NULL, NULL), 0);
	ASSERT_NE(self->q->open, NULL);
	/* Temporary staging is handed to the batch to destroy. */
	EXPECT_EQ(self->q->open->done_count, 0);
	EXPECT_EQ(self->q->head - self->q->tail, bytes);
	ASSERT_EQ(llmem_queue_submit_batch(self->q, NULL), 0);
	ASSERT_EQ(readback_buffer(_metadata, self->q, b, back, src, bytes), 0);
	llmem_buffer_destroy(b);
	free(src);
	free(back);
}

/* The sizes asked for, or the defaults transfer.h gives, and nothing else. */
TEST_F(stream, queue_info)
{
	struct llmem_queue_create_info qi;
	uint64_t ring = variant->staging_size ? variant->staging_size : 32 << 20;

	ASSERT_EQ(llmem_queue_get_info(self->q, &qi), 0);
	EXPECT_EQ(qi.flags, LLMEM_QUEUE_NO_MAPPING);
	EXPECT_EQ(qi.staging_size, ring);
	EXPECT_EQ(qi.chunk_size, variant->chunk_size ? variant->chunk_size : ring / 4);
	EXPECT_EQ(llmem_queue_get_info(NULL, &qi), -EINVAL);
	EXPECT_EQ(llmem_queue_get_info(self->q, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL out"), NULL);
}

TEST_HARNESS_MAIN
