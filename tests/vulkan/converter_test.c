// SPDX-License-Identifier: MIT
/*
 * Converters with frames in flight (convert.h): tickets counting up from
 * 1, waits and polls, back-pressure at frames_in_flight, a combination of
 * buffers recorded once however often it is submitted (the session's
 * dispatch counter shows recordings), more combinations than are kept,
 * buffers destroyed and made again where the old ones were, destruction
 * with work in flight, and every refusal.  The results are checked against
 * the CPU reference of tests/lib/yuv_ref.c.
 *
 * To hold work in flight for as long as a test needs, the queue is blocked
 * by a submission that waits for a VkEvent the host sets later: every
 * later submission's fence covers it, so no ticket completes before.  The
 * test links the static library for that and for the dispatch counter.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "kselftest_harness.h"
#include "device/session.h"
#include "device/submit.h"
#include "memory/buffer.h"
#include "transfer/dispatch.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define W 32
#define H 16
#define SOURCES 4
#define DESTS 3

FIXTURE(converter)
{
	struct llmem_session *s;
	struct llmem_dispatch_state *dispatch;
	struct llmem_memory *m;
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_buffer *srcs[SOURCES], *dsts[DESTS];
	uint8_t *src_map[SOURCES], *dst_map[DESTS];
};

/* A mapped buffer of @size bytes, or NULL. */
static struct llmem_buffer *mapped(struct llmem_memory *m, uint64_t size, uint8_t **map)
{
	struct llmem_buffer *b;

	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = size }, &b))
		return NULL;
	if (llmem_buffer_map(b, (void **)map)) {
		llmem_buffer_destroy(b);
		return NULL;
	}
	return b;
}

static void random_bytes(uint8_t *map, uint64_t size, unsigned int seed)
{
	srand(seed);
	for (uint64_t i = 0; i < size; i++)
		map[i] = (uint8_t)rand();
}

FIXTURE_SETUP(converter)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 4 << 20,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_dispatch_state_get(self->s, &self->dispatch), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, W, H, NULL, &self->src_l), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, W, H, NULL, &self->dst_l), 0);
	for (int i = 0; i < SOURCES; i++) {
		self->srcs[i] = mapped(self->m, self->src_l.size, &self->src_map[i]);
		ASSERT_NE(self->srcs[i], NULL);
		random_bytes(self->src_map[i], self->src_l.size, 100 + i);
	}
	for (int i = 0; i < DESTS; i++) {
		self->dsts[i] = mapped(self->m, self->dst_l.size, &self->dst_map[i]);
		ASSERT_NE(self->dsts[i], NULL);
	}
}

FIXTURE_TEARDOWN(converter)
{
	for (int i = 0; i < SOURCES; i++)
		llmem_buffer_destroy(self->srcs[i]);
	for (int i = 0; i < DESTS; i++)
		llmem_buffer_destroy(self->dsts[i]);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	llmem_dispatch_state_put(self->dispatch);
	VK_TEST_SESSION_END(self->s);
}

/* Whether the RGBA frame @rgba is the YUYV frame @yuyv's, within 2 a channel. */
static int converted(const uint8_t *yuyv, const uint8_t *rgba, const struct llmem_frame_layout *sl,
		     const struct llmem_frame_layout *dl)
{
	uint8_t *ref = malloc(dl->size);
	int worst;

	ref_yuyv_to_rgba(yuyv, sl->pitch[0], sl->width, sl->height, 0, 0, ref, dl->pitch[0]);
	worst = ref_worst_channel(rgba, ref, dl);
	free(ref);
	return worst <= 2;
}

static uint64_t dispatches(struct llmem_dispatch_state *d)
{
	return atomic_load(&d->count);
}

/*
 * A submit-only converter of the fixture's layouts, its kernel made now:
 * lavapipe's pipeline creation waits for the queue, which tests hold.
 */
static int make(struct __test_metadata *_metadata, FIXTURE_DATA(converter) * self,
		uint32_t frames_in_flight, struct llmem_converter **c)
{
	int ret = llmem_converter_create(
		&(struct llmem_converter_create_info){
			.src_layout = &self->src_l,
			.dst_layout = &self->dst_l,
			.frames_in_flight = frames_in_flight,
			.session = self->s,
		},
		c);

	if (ret)
		TH_LOG("converter: %s", llmem_last_error());
	return ret;
}

static int submit(struct llmem_converter *c, struct llmem_buffer *src, struct llmem_buffer *dst,
		  uint64_t *ticket)
{
	return llmem_converter_submit(c, &(struct llmem_convert_frame){ .src = src, .dst = dst },
				      ticket);
}

/* The queue held by a submission waiting for an event the host sets. */
struct blocker {
	struct llmem_session *s;
	VkEvent event;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
};

static int block_queue(struct llmem_session *s, struct blocker *b)
{
	VkDevice dev = s->device;

	*b = (struct blocker){ .s = s };
	if (vkCreateEvent(dev, &(VkEventCreateInfo){ .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO },
			  NULL, &b->event) ||
	    vkCreateFence(dev, &(VkFenceCreateInfo){ .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO },
			  NULL, &b->fence) ||
	    vkCreateCommandPool(dev,
				&(VkCommandPoolCreateInfo){
					.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = s->queue_family,
				},
				NULL, &b->pool) ||
	    vkAllocateCommandBuffers(
		    dev,
		    &(VkCommandBufferAllocateInfo){
			    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			    .commandPool = b->pool,
			    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			    .commandBufferCount = 1,
		    },
		    &b->cmd) ||
	    vkBeginCommandBuffer(b->cmd,
				 &(VkCommandBufferBeginInfo){
					 .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
				 }))
		return -1;
	vkCmdWaitEvents(b->cmd, 1, &b->event, VK_PIPELINE_STAGE_HOST_BIT,
			VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, NULL, 0, NULL, 0, NULL);
	if (vkEndCommandBuffer(b->cmd))
		return -1;
	return llmem_submit(s, &b->cmd, 1, NULL, b->fence);
}

static void release_queue(struct blocker *b)
{
	VkDevice dev = b->s->device;

	vkSetEvent(dev, b->event);
	vkWaitForFences(dev, 1, &b->fence, VK_TRUE, UINT64_MAX);
	vkDestroyCommandPool(dev, b->pool, NULL);
	vkDestroyFence(dev, b->fence, NULL);
	vkDestroyEvent(dev, b->event, NULL);
}

static void *release_later(void *arg)
{
	usleep(100 * 1000);
	release_queue(arg);
	return NULL;
}

/*
 * Tickets count up from 1; after each submission at most frames_in_flight
 * are unfinished; waiting for the last finds every one done, each
 * destination holding its last frame.
 */
TEST_F(converter, tickets_count_up)
{
	struct llmem_converter *c;
	int last_into[DESTS];
	uint64_t ticket;

	ASSERT_EQ(make(_metadata, self, 3, &c), 0);
	EXPECT_EQ(llmem_converter_completed(c), 0);
	for (uint64_t i = 0; i < 12; i++) {
		ASSERT_EQ(submit(c, self->srcs[i % SOURCES], self->dsts[i % DESTS], &ticket), 0);
		EXPECT_EQ(ticket, i + 1);
		EXPECT_GE(llmem_converter_completed(c) + 3, ticket);
		EXPECT_LE(llmem_converter_completed(c), ticket);
		last_into[i % DESTS] = (int)(i % SOURCES);
	}
	ASSERT_EQ(llmem_converter_wait(c, 12, UINT64_MAX), 0);
	EXPECT_EQ(llmem_converter_completed(c), 12);
	/* Done tickets need no wait, however short. */
	for (uint64_t t = 1; t <= 12; t++)
		EXPECT_EQ(llmem_converter_wait(c, t, 0), 0);
	for (int d = 0; d < DESTS; d++) {
		EXPECT_TRUE(converted(self->src_map[last_into[d]], self->dst_map[d], &self->src_l,
				      &self->dst_l))
		TH_LOG("destination %d", d);
	}
	llmem_converter_destroy(c);
}

/*
 * While the queue is held: tickets are not done, a wait of 0 says so
 * (-ETIMEDOUT), and so does a short one; released, both are done in order.
 */
TEST_F(converter, wait_and_completed)
{
	struct llmem_converter *c;
	struct blocker b;
	uint64_t t1, t2;

	ASSERT_EQ(make(_metadata, self, 2, &c), 0);
	ASSERT_EQ(block_queue(self->s, &b), 0);
	ASSERT_EQ(submit(c, self->srcs[0], self->dsts[0], &t1), 0);
	ASSERT_EQ(submit(c, self->srcs[1], self->dsts[1], &t2), 0);
	EXPECT_EQ(llmem_converter_completed(c), 0);
	EXPECT_FAILS(llmem_converter_wait(c, t1, 0), -ETIMEDOUT);
	EXPECT_FAILS(llmem_converter_wait(c, t2, 1000000), -ETIMEDOUT);
	EXPECT_EQ(llmem_converter_completed(c), 0);
	release_queue(&b);
	ASSERT_EQ(llmem_converter_wait(c, t2, UINT64_MAX), 0);
	EXPECT_EQ(llmem_converter_completed(c), t2);
	EXPECT_EQ(llmem_converter_wait(c, t1, 0), 0);
	EXPECT_TRUE(converted(self->src_map[1], self->dst_map[1], &self->src_l, &self->dst_l));
	llmem_converter_destroy(c);
}

struct submitter {
	struct llmem_converter *c;
	struct llmem_buffer *src, *dst;
	uint64_t ticket;
	int ret;
	atomic_bool returned;
};

static void *submit_in_thread(void *arg)
{
	struct submitter *s = arg;

	s->ret = submit(s->c, s->src, s->dst, &s->ticket);
	atomic_store(&s->returned, true);
	return NULL;
}

/*
 * With frames_in_flight unfinished, a submission waits for the oldest: it
 * returns only once the held queue is released, and then the oldest is
 * done.
 */
TEST_F(converter, back_pressure_waits_for_the_oldest)
{
	struct submitter third = { 0 };
	struct llmem_converter *c;
	struct blocker b;
	pthread_t thread;
	uint64_t t;

	ASSERT_EQ(make(_metadata, self, 2, &c), 0);
	ASSERT_EQ(block_queue(self->s, &b), 0);
	ASSERT_EQ(submit(c, self->srcs[0], self->dsts[0], &t), 0);
	ASSERT_EQ(submit(c, self->srcs[1], self->dsts[1], &t), 0);
	third = (struct submitter){ .c = c, .src = self->srcs[2], .dst = self->dsts[2] };
	ASSERT_EQ(pthread_create(&thread, NULL, submit_in_thread, &third), 0);
	usleep(100 * 1000);
	EXPECT_FALSE(atomic_load(&third.returned));
	release_queue(&b);
	ASSERT_EQ(pthread_join(thread, NULL), 0);
	ASSERT_EQ(third.ret, 0);
	EXPECT_EQ(third.ticket, 3);
	EXPECT_GE(llmem_converter_completed(c), 1);
	ASSERT_EQ(llmem_converter_wait(c, 3, UINT64_MAX), 0);
	EXPECT_TRUE(converted(self->src_map[2], self->dst_map[2], &self->src_l, &self->dst_l));
	llmem_converter_destroy(c);
}

/* Destroying a converter with work held in flight waits for it. */
TEST_F(converter, destroy_waits_for_work_in_flight)
{
	struct llmem_converter *c;
	struct blocker b;
	pthread_t thread;
	uint64_t t;

	memset(self->dst_map[0], 0, self->dst_l.size);
	ASSERT_EQ(make(_metadata, self, 4, &c), 0);
	ASSERT_EQ(block_queue(self->s, &b), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(submit(c, self->srcs[i], self->dsts[i], &t), 0);
	ASSERT_EQ(pthread_create(&thread, NULL, release_later, &b), 0);
	llmem_converter_destroy(c);
	/* The conversion ran before the destruction returned. */
	EXPECT_TRUE(converted(self->src_map[0], self->dst_map[0], &self->src_l, &self->dst_l));
	ASSERT_EQ(pthread_join(thread, NULL), 0);
}

/* Each combination is recorded once, however often and in whatever order it comes. */
TEST_F(converter, records_each_combination_once)
{
	struct llmem_converter *c;
	uint64_t before, t;

	ASSERT_EQ(make(_metadata, self, 0, &c), 0);
	before = dispatches(self->dispatch);
	for (int round = 0; round < 3; round++)
		for (int s = 0; s < SOURCES; s++)
			for (int d = 0; d < DESTS; d++)
				ASSERT_EQ(submit(c, self->srcs[s], self->dsts[d], &t), 0);
	EXPECT_EQ(dispatches(self->dispatch) - before, SOURCES * DESTS);
	EXPECT_EQ(t, 3 * SOURCES * DESTS);
	ASSERT_EQ(llmem_converter_wait(c, t, UINT64_MAX), 0);
	for (int d = 0; d < DESTS; d++)
		EXPECT_TRUE(converted(self->src_map[SOURCES - 1], self->dst_map[d], &self->src_l,
				      &self->dst_l));
	llmem_converter_destroy(c);
}

/*
 * One combination twice in a row, the first still in flight (the queue
 * held): the second submission waits for the first (its recording cannot
 * be resubmitted while pending), and the frame is right after both.
 */
TEST_F(converter, same_combination_twice_in_a_row)
{
	struct submitter again = { 0 };
	struct llmem_converter *c;
	struct blocker b;
	pthread_t thread;
	uint64_t before, t1;

	ASSERT_EQ(make(_metadata, self, 4, &c), 0);
	before = dispatches(self->dispatch);
	ASSERT_EQ(block_queue(self->s, &b), 0);
	ASSERT_EQ(submit(c, self->srcs[0], self->dsts[0], &t1), 0);
	again = (struct submitter){ .c = c, .src = self->srcs[0], .dst = self->dsts[0] };
	ASSERT_EQ(pthread_create(&thread, NULL, submit_in_thread, &again), 0);
	usleep(100 * 1000);
	EXPECT_FALSE(atomic_load(&again.returned));
	release_queue(&b);
	ASSERT_EQ(pthread_join(thread, NULL), 0);
	ASSERT_EQ(again.ret, 0);
	EXPECT_EQ(again.ticket, t1 + 1);
	EXPECT_GE(llmem_converter_completed(c), t1);
	ASSERT_EQ(llmem_converter_wait(c, again.ticket, UINT64_MAX), 0);
	EXPECT_EQ(dispatches(self->dispatch) - before, 1);
	EXPECT_TRUE(converted(self->src_map[0], self->dst_map[0], &self->src_l, &self->dst_l));
	llmem_converter_destroy(c);
}

#define MANY_SOURCES 10
#define MANY_DESTS 7

/*
 * 70 combinations, 6 more than are kept: every conversion is right; the
 * least recently submitted was dropped and is recorded again, the most
 * recent one was kept.
 */
TEST_F(converter, more_combinations_than_kept)
{
	struct llmem_buffer *srcs[MANY_SOURCES], *dsts[MANY_DESTS];
	uint8_t *src_map[MANY_SOURCES], *dst_map[MANY_DESTS];
	struct llmem_converter *c;
	uint64_t before, t;

	for (int i = 0; i < MANY_SOURCES; i++) {
		srcs[i] = mapped(self->m, self->src_l.size, &src_map[i]);
		ASSERT_NE(srcs[i], NULL);
		random_bytes(src_map[i], self->src_l.size, 200 + i);
	}
	for (int i = 0; i < MANY_DESTS; i++) {
		dsts[i] = mapped(self->m, self->dst_l.size, &dst_map[i]);
		ASSERT_NE(dsts[i], NULL);
	}
	ASSERT_EQ(make(_metadata, self, 0, &c), 0);
	before = dispatches(self->dispatch);
	for (int s = 0; s < MANY_SOURCES; s++)
		for (int d = 0; d < MANY_DESTS; d++) {
			ASSERT_EQ(submit(c, srcs[s], dsts[d], &t), 0);
			ASSERT_EQ(llmem_converter_wait(c, t, UINT64_MAX), 0);
			EXPECT_TRUE(converted(src_map[s], dst_map[d], &self->src_l, &self->dst_l))
			TH_LOG("source %d, destination %d", s, d);
		}
	EXPECT_EQ(dispatches(self->dispatch) - before, MANY_SOURCES * MANY_DESTS);

	before = dispatches(self->dispatch);
	ASSERT_EQ(submit(c, srcs[MANY_SOURCES - 1], dsts[MANY_DESTS - 1], &t), 0);
	EXPECT_EQ(dispatches(self->dispatch) - before, 0);
	ASSERT_EQ(submit(c, srcs[0], dsts[0], &t), 0);
	EXPECT_EQ(dispatches(self->dispatch) - before, 1);
	ASSERT_EQ(llmem_converter_wait(c, t, UINT64_MAX), 0);
	EXPECT_TRUE(converted(src_map[0], dst_map[0], &self->src_l, &self->dst_l));
	llmem_converter_destroy(c);
	for (int i = 0; i < MANY_SOURCES; i++)
		llmem_buffer_destroy(srcs[i]);
	for (int i = 0; i < MANY_DESTS; i++)
		llmem_buffer_destroy(dsts[i]);
}

/*
 * glibc's calloc() takes no block from the thread's cache, where free()
 * puts the first seven of a size: filling that cache first sends a freed
 * buffer's block where the next calloc() of its size finds it.
 */
#define CACHED_BLOCKS 7

static void fill_free_cache(void)
{
	void *blocks[CACHED_BLOCKS];

	for (int i = 0; i < CACHED_BLOCKS; i++)
		blocks[i] = malloc(sizeof(struct llmem_buffer));
	for (int i = 0; i < CACHED_BLOCKS; i++)
		free(blocks[i]);
}

/*
 * A source or a destination destroyed once its conversion is done and a
 * new one made at the same address (glibc's allocator, led there), the
 * other buffer kept: each new pair is recorded anew, its serial being new,
 * and converted from its own bytes, never through the recording of the
 * destroyed buffer.
 */
TEST_F(converter, buffers_made_again_at_the_same_address)
{
	uintptr_t old[2] = { 0, 0 };
	struct llmem_converter *c;
	int same_address = 0;
	uint64_t before, t;

	ASSERT_EQ(make(_metadata, self, 2, &c), 0);
	for (int round = 0; round < 16; round++) {
		/* The first half makes sources again, the second destinations. */
		int remade = round >= 8;
		struct llmem_buffer *src = self->srcs[0], *dst = self->dsts[0], *b;
		uint8_t *src_map = self->src_map[0], *dst_map = self->dst_map[0];

		if (remade)
			dst = b = mapped(self->m, self->dst_l.size, &dst_map);
		else
			src = b = mapped(self->m, self->src_l.size, &src_map);
		ASSERT_NE(b, NULL);
		random_bytes(src_map, self->src_l.size, 300 + round);
		before = dispatches(self->dispatch);
		ASSERT_EQ(submit(c, src, dst, &t), 0);
		EXPECT_EQ(dispatches(self->dispatch) - before, 1);
		ASSERT_EQ(llmem_converter_wait(c, t, UINT64_MAX), 0);
		EXPECT_TRUE(converted(src_map, dst_map, &self->src_l, &self->dst_l))
		TH_LOG("round %d", round);
		same_address += (uintptr_t)b == old[remade];
		old[remade] = (uintptr_t)b;
		fill_free_cache();
		llmem_buffer_destroy(b);
	}
	TH_LOG("%d of 14 buffers came back at the address of the one destroyed before",
	       same_address);
	/* ASan's allocator holds freed blocks back. */
#if !defined(__SANITIZE_ADDRESS__)
	EXPECT_GT(same_address, 0);
#endif
	llmem_converter_destroy(c);
}

/* llmem_converter_completed() from another thread while frames are submitted. */
struct poller {
	struct llmem_converter *c;
	atomic_bool stop;
	int backwards;
};

static void *poll_completed(void *arg)
{
	struct poller *p = arg;
	uint64_t last = 0;

	while (!atomic_load(&p->stop)) {
		uint64_t now = llmem_converter_completed(p->c);

		p->backwards += now < last;
		last = now;
	}
	return NULL;
}

/* What another thread reads of the completed tickets never goes backwards. */
TEST_F(converter, completed_from_another_thread)
{
	struct poller p = { 0 };
	pthread_t thread;
	uint64_t t;

	ASSERT_EQ(make(_metadata, self, 2, &p.c), 0);
	ASSERT_EQ(pthread_create(&thread, NULL, poll_completed, &p), 0);
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(submit(p.c, self->srcs[i % SOURCES], self->dsts[i % DESTS], &t), 0);
	ASSERT_EQ(llmem_converter_wait(p.c, t, UINT64_MAX), 0);
	atomic_store(&p.stop, true);
	ASSERT_EQ(pthread_join(thread, NULL), 0);
	EXPECT_EQ(p.backwards, 0);
	EXPECT_EQ(llmem_converter_completed(p.c), 200);
	llmem_converter_destroy(p.c);
}

/* RGB to NV12 and back to RGB by submissions: each exact as llmem_convert()'s. */
TEST_F(converter, rgb_to_nv12_by_submission)
{
	struct llmem_frame_layout rgb_l, nv12_l;
	struct llmem_buffer *rgb, *nv12, *one_off;
	uint8_t *rgb_map, *nv12_map, *one_off_map;
	struct llmem_converter *c;
	uint64_t t;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_XRGB8888, 48, 30, NULL, &rgb_l), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 48, 30, NULL, &nv12_l), 0);
	rgb = mapped(self->m, rgb_l.size, &rgb_map);
	nv12 = mapped(self->m, nv12_l.size, &nv12_map);
	one_off = mapped(self->m, nv12_l.size, &one_off_map);
	ASSERT_TRUE(rgb && nv12 && one_off);
	random_bytes(rgb_map, rgb_l.size, 5);
	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){
				  .src_layout = &rgb_l,
				  .dst_layout = &nv12_l,
				  .encoding = LLMEM_YCBCR_BT709,
				  .range = LLMEM_YCBCR_FULL_RANGE,
				  .session = self->s,
			  },
			  &c),
		  0);
	ASSERT_EQ(submit(c, rgb, nv12, &t), 0);
	ASSERT_EQ(llmem_converter_wait(c, t, UINT64_MAX), 0);
	ASSERT_EQ(llmem_convert(&(struct llmem_convert_info){
			  .src = rgb,
			  .src_layout = &rgb_l,
			  .dst = one_off,
			  .dst_layout = &nv12_l,
			  .encoding = LLMEM_YCBCR_BT709,
			  .range = LLMEM_YCBCR_FULL_RANGE,
		  }),
		  0);
	EXPECT_EQ(memcmp(nv12_map, one_off_map, nv12_l.size), 0);
	llmem_converter_destroy(c);
	llmem_buffer_destroy(rgb);
	llmem_buffer_destroy(nv12);
	llmem_buffer_destroy(one_off);
}

/* Every bad creation is refused with its reason, and no converter made. */
TEST_F(converter, create_refusals)
{
	struct llmem_converter_create_info ci = {
		.src_layout = &self->src_l,
		.dst_layout = &self->dst_l,
	};
	struct llmem_frame_layout small;
	struct llmem_session_info info;
	struct llmem_converter *c = (struct llmem_converter *)1;

	EXPECT_FAILS(llmem_converter_create(NULL, &c), -EINVAL);
	EXPECT_FAILS(llmem_converter_create(&ci, NULL), -EINVAL);
	ci.frames_in_flight = 17;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	EXPECT_EQ(c, NULL);
	ci.frames_in_flight = 16;
	ASSERT_EQ(llmem_converter_create(&ci, &c), 0);
	llmem_converter_destroy(c);
	ci.frames_in_flight = 0;
	ci.flags = 1u << 1;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.flags = 0;
	ci.srcs = self->srcs;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.srcs = NULL;
	ci.src_count = 2;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.src_count = 0;
	ci.chroma_srcs = self->srcs;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.chroma_srcs = NULL;
	ci.src_layout = NULL;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.src_layout = &self->src_l;
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, W, H / 2, NULL, &small), 0);
	ci.dst_layout = &small;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.dst_layout = &self->dst_l;
	ci.encoding = 2;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.encoding = 0;
	/* A source that does not fit, given with the destination. */
	ci.srcs = self->dsts;
	ci.src_count = 1;
	ci.src_layout = &self->dst_l;
	ci.dst_layout = &self->src_l;
	ci.dst = self->dsts[1];
	ASSERT_EQ(llmem_converter_create(&ci, &c), 0) TH_LOG("%s", llmem_last_error());
	llmem_converter_destroy(c);
	ci.dst = self->srcs[0];
	ci.srcs = &self->srcs[1];
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci = (struct llmem_converter_create_info){ .src_layout = &self->src_l,
						   .dst_layout = &self->dst_l };
	/* sync_files need the session known, and a device that exports them. */
	ci.flags = LLMEM_CONVERTER_SYNC_FILES;
	EXPECT_FAILS(llmem_converter_create(&ci, &c), -EINVAL);
	ci.session = self->s;
	ASSERT_EQ(llmem_session_get_info(self->s, &info), 0);
	if (info.caps & LLMEM_CAP_SYNC_FD_EXPORT) {
		ASSERT_EQ(llmem_converter_create(&ci, &c), 0);
		llmem_converter_destroy(c);
	} else {
		EXPECT_FAILS(llmem_converter_create(&ci, &c), -ENOTSUP);
		EXPECT_EQ(c, NULL);
	}
}

/* Every bad call on a converter is refused with its reason. */
TEST_F(converter, call_refusals)
{
	struct llmem_buffer *small, *no_storage;
	struct llmem_session *other;
	struct llmem_memory *other_m;
	struct llmem_buffer *elsewhere;
	struct llmem_converter *c;
	uint64_t t = 0;
	int fd = 7;

	ASSERT_EQ(make(_metadata, self, 0, &c), 0);
	EXPECT_FAILS(llmem_converter_wait(NULL, 1, 0), -EINVAL);
	EXPECT_FAILS(llmem_converter_wait(c, 0, 0), -EINVAL);
	EXPECT_FAILS(llmem_converter_wait(c, 1, 0), -EINVAL);
	EXPECT_EQ(llmem_converter_completed(NULL), 0);
	EXPECT_EQ(llmem_converter_completed(c), 0);
	EXPECT_FAILS(llmem_converter_run(c, 0), -EINVAL);
	EXPECT_FAILS(llmem_converter_run(NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_converter_submit(NULL, &(struct llmem_convert_frame){ 0 }, &t), -EINVAL);
	EXPECT_FAILS(llmem_converter_submit(c, NULL, &t), -EINVAL);
	EXPECT_FAILS(submit(c, self->srcs[0], self->dsts[0], NULL), -EINVAL);
	EXPECT_FAILS(submit(c, NULL, self->dsts[0], &t), -EINVAL);
	EXPECT_FAILS(submit(c, self->srcs[0], NULL, &t), -EINVAL);
	/* Buffers that do not fit the layouts, lack storage usage, or alias. */
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 256 },
				      &small),
		  0);
	ASSERT_EQ(llmem_buffer_create(
			  self->m,
			  &(struct llmem_buffer_create_info){ .size = self->dst_l.size,
							      .usage = LLMEM_BUFFER_TRANSFER_DST },
			  &no_storage),
		  0);
	EXPECT_FAILS(submit(c, small, self->dsts[0], &t), -EINVAL);
	EXPECT_FAILS(submit(c, self->srcs[0], small, &t), -EINVAL);
	EXPECT_FAILS(submit(c, self->srcs[0], no_storage, &t), -EINVAL);
	EXPECT_FAILS(submit(c, self->dsts[0], self->dsts[0], &t), -EINVAL);
	EXPECT_FAILS(
		llmem_converter_submit(c,
				       &(struct llmem_convert_frame){ .src = self->srcs[0],
								      .src_chroma = self->srcs[1],
								      .dst = self->dsts[0] },
				       &t),
		-EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "only NV12"), NULL);
	/* No refusal handed out a ticket. */
	ASSERT_EQ(submit(c, self->srcs[0], self->dsts[0], &t), 0);
	EXPECT_EQ(t, 1);
	EXPECT_FAILS(llmem_converter_wait(c, 2, UINT64_MAX), -EINVAL);
	EXPECT_FAILS(llmem_converter_export_sync_file(c, 1, &fd), -EINVAL);
	EXPECT_EQ(fd, -1);
	EXPECT_FAILS(llmem_converter_export_sync_file(c, 1, NULL), -EINVAL);
	EXPECT_FAILS(llmem_converter_export_sync_file(NULL, 1, &fd), -EINVAL);
	/* A frame of another session than the first frame's. */
	ASSERT_EQ(vk_test_session(&other), 0);
	ASSERT_EQ(llmem_memory_create(
			  other,
			  &(struct llmem_memory_create_info){ .flags = LLMEM_MEMORY_HOST_VISIBLE },
			  &other_m),
		  0);
	ASSERT_EQ(llmem_buffer_create(
			  other_m, &(struct llmem_buffer_create_info){ .size = self->dst_l.size },
			  &elsewhere),
		  0);
	EXPECT_FAILS(submit(c, self->srcs[0], elsewhere, &t), -EINVAL);
	EXPECT_FAILS(llmem_converter_create(
			     &(struct llmem_converter_create_info){
				     .src_layout = &self->src_l,
				     .dst_layout = &self->dst_l,
				     .srcs = self->srcs,
				     .src_count = 1,
				     .dst = elsewhere,
				     .session = self->s,
			     },
			     &(struct llmem_converter *){ NULL }),
		     -EINVAL);
	ASSERT_EQ(llmem_converter_wait(c, 1, UINT64_MAX), 0);
	llmem_converter_destroy(c);
	llmem_buffer_destroy(elsewhere);
	EXPECT_EQ(llmem_memory_destroy(other_m), 0);
	EXPECT_EQ(llmem_session_validation_messages(other), 0);
	llmem_session_destroy(other);
	llmem_buffer_destroy(small);
	llmem_buffer_destroy(no_storage);
}

TEST_HARNESS_MAIN
