// SPDX-License-Identifier: MIT
/*
 * Fill and clear shaders past 16 GiB, where a 32-bit word index would wrap
 * and one descriptor cannot reach: a 17 GiB device-local buffer filled in
 * pieces with descriptors of their own.  Suite 'gpu': needs about 18 GiB of
 * device memory (`tests/runner --suite gpu` on a large GPU).  Links the
 * static library to read the shader dispatch counter.
 */
#include <stdlib.h>

#include <drm_fourcc.h>

#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "device/session.h"
#include "transfer/dispatch.h"
#include "vk_test.h"

#define GIB (1ull << 30)
#define SIZE (17 * GIB + 48)
#define B_OFF (16 * GIB - 32)
#define B_SIZE (4096 + 48)
#define F_OFF (16 * GIB + 8192 + 12)
#define F_W 1000
#define F_H 100
#define F_PITCH 4100

static const uint8_t pat_a[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t pat_b[8] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8 };

FIXTURE(gpu_fill)
{
	struct llmem_session *s;
	/* The session's dispatch count, and the limits on a dispatch. */
	struct llmem_dispatch_state *dispatch;
	struct llmem_memory *m;
	struct llmem_queue *q;
	struct llmem_buffer *b;
	uint64_t max_allocation;
};

FIXTURE_SETUP(gpu_fill)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_DEVICE_LOCAL };
	struct llmem_buffer_create_info bci = { .size = SIZE, .name = "17 GiB" };
	struct llmem_memory_info mi;

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_dispatch_state_get(self->s, &self->dispatch), 0);
	ASSERT_NE(self->s->push_descriptor_set, NULL);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
	/* NVIDIA's driver states 4 GiB (maxMemoryAllocationSize), which the
	 * library holds to: no buffer past 16 GiB exists there to fill, and
	 * the test skips (this harness runs a test whose setup skipped). */
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	self->max_allocation = mi.max_allocation_size;
	if (self->max_allocation < SIZE)
		return;
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0)
	TH_LOG("a buffer of %llu bytes: %s", SIZE, llmem_last_error());
}

FIXTURE_TEARDOWN(gpu_fill)
{
	llmem_buffer_destroy(self->b);
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	llmem_dispatch_state_put(self->dispatch);
	VK_TEST_SESSION_END(self->s);
}

static uint8_t model(uint64_t i)
{
	if (i >= F_OFF && i < F_OFF + (uint64_t)(F_H - 1) * F_PITCH + F_W * 4 &&
	    (i - F_OFF) % F_PITCH < F_W * 4)
		return (uint8_t)(0x10 + (i - F_OFF) % 4);
	if (i >= B_OFF && i < B_OFF + B_SIZE)
		return pat_b[(i - B_OFF) % 8];
	return pat_a[i % 16];
}

static int check_window(struct __test_metadata *_metadata, FIXTURE_DATA(gpu_fill) * self,
			uint64_t at, uint64_t n)
{
	uint8_t *buf = malloc(n);
	int ret = -1;

	EXPECT_NE(buf, NULL);
	if (!buf)
		return -1;
	EXPECT_EQ(llmem_enqueue_read_buffer(self->q, self->b, at, buf, n, NULL, NULL), 0);
	for (uint64_t i = 0; i < n; i++) {
		if (buf[i] != model(at + i)) {
			TH_LOG("byte %llu: 0x%02x, model 0x%02x", (unsigned long long)(at + i),
			       buf[i], model(at + i));
			goto out;
		}
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

/* A dispatch's reach: maxStorageBufferRange, a multiple of 16 bytes and
 * of minStorageBufferOffsetAlignment. */
static uint64_t piece_size(FIXTURE_DATA(gpu_fill) * self)
{
	const VkPhysicalDeviceLimits *l = &self->s->props.limits;
	uint64_t step =
		l->minStorageBufferOffsetAlignment > 16 ? l->minStorageBufferOffsetAlignment : 16;

	return l->maxStorageBufferRange - l->maxStorageBufferRange % step;
}

/* Pieces are cut at multiples of the piece size. */
static uint64_t pieces(FIXTURE_DATA(gpu_fill) * self, uint64_t off, uint64_t n)
{
	uint64_t piece = piece_size(self);

	return (off + n - 1) / piece - off / piece + 1;
}

/* Every piece boundary and 16 GiB hold the right bytes on both sides. */
TEST_F(gpu_fill, past_16_gib)
{
	struct llmem_frame_layout frame = {
		.fourcc = DRM_FORMAT_ABGR8888,
		.width = F_W,
		.height = F_H,
		.num_planes = 1,
		.offset = { F_OFF },
		.pitch = { F_PITCH },
	};
	union llmem_color color = { .u32 = { 0x10, 0x11, 0x12, 0x13 } };
	uint64_t piece = piece_size(self);
	uint64_t d = atomic_load(&self->dispatch->count);

	if (self->max_allocation < SIZE)
		SKIP(return, "one allocation holds %llu bytes at most here",
			   (unsigned long long)self->max_allocation);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, 0, SIZE, pat_a, 16, NULL, NULL), 0);
	EXPECT_EQ(atomic_load(&self->dispatch->count) - d, pieces(self, 0, SIZE));
	d = atomic_load(&self->dispatch->count);
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, self->b, B_OFF, B_SIZE, pat_b, 8, NULL, NULL),
		  0);
	EXPECT_EQ(atomic_load(&self->dispatch->count) - d, pieces(self, B_OFF, B_SIZE));
	d = atomic_load(&self->dispatch->count);
	ASSERT_EQ(llmem_enqueue_clear_frame(self->q, self->b, &frame, NULL, &color, NULL, NULL), 0);
	EXPECT_EQ(atomic_load(&self->dispatch->count) - d, 1);

	ASSERT_EQ(check_window(_metadata, self, 0, 65536), 0);
	for (uint64_t at = piece; at < SIZE; at += piece)
		ASSERT_EQ(check_window(_metadata, self, at - 4096, 8192), 0);
	ASSERT_EQ(check_window(_metadata, self, 16 * GIB - 65536, 2 * 65536 + F_H * F_PITCH), 0);
	ASSERT_EQ(check_window(_metadata, self, SIZE - 65536, 65536), 0);
}

TEST_HARNESS_MAIN
