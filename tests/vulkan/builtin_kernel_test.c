// SPDX-License-Identifier: MIT
/*
 * The library's own shaders as kernels (lib/transfer/kernel.h): a converter
 * records each frame buffer's dispatch once, when it is created, with a
 * descriptor set of its own, and its runs only submit the recording;
 * without VK_KHR_push_descriptor, which the kernels of queues need, a
 * conversion still runs, a clear falls back to copies and a caller's kernel
 * is refused.  The test links the static library to read the dispatch
 * counter and to take the extension away.
 */
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/convert.h>
#include <llmem/kernel.h>
#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "device/session.h"
#include "transfer/dispatch.h"
#include "vk_test.h"

#define W 64
#define H 48
#define SOURCES 3

FIXTURE(builtin)
{
	struct llmem_session *s;
	/* The session's dispatch count, and the limits on a dispatch. */
	struct llmem_dispatch_state *dispatch;
	struct llmem_memory *m;
	struct llmem_frame_layout src_l, dst_l;
	struct llmem_buffer *srcs[SOURCES], *dst;
	uint8_t *src_map[SOURCES], *dst_map;
};

FIXTURE_SETUP(builtin)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 1 << 20,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_dispatch_state_get(self->s, &self->dispatch), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, W, H, NULL, &self->src_l), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, W, H, NULL, &self->dst_l), 0);
	for (int i = 0; i < SOURCES; i++) {
		ASSERT_EQ(llmem_buffer_create(
				  self->m,
				  &(struct llmem_buffer_create_info){ .size = self->src_l.size },
				  &self->srcs[i]),
			  0);
		ASSERT_EQ(llmem_buffer_map(self->srcs[i], (void **)&self->src_map[i]), 0);
	}
	ASSERT_EQ(llmem_buffer_create(
			  self->m, &(struct llmem_buffer_create_info){ .size = self->dst_l.size },
			  &self->dst),
		  0);
	ASSERT_EQ(llmem_buffer_map(self->dst, (void **)&self->dst_map), 0);
}

FIXTURE_TEARDOWN(builtin)
{
	for (int i = 0; i < SOURCES; i++)
		llmem_buffer_destroy(self->srcs[i]);
	llmem_buffer_destroy(self->dst);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	llmem_dispatch_state_put(self->dispatch);
	VK_TEST_SESSION_END(self->s);
}

/* A grey YUYV frame of luma @y (Cb and Cr neutral) in @map. */
static void grey_yuyv(uint8_t *map, const struct llmem_frame_layout *l, uint8_t y)
{
	for (uint32_t row = 0; row < l->height; row++)
		for (uint32_t x = 0; x < l->width * 2; x++)
			map[l->offset[0] + (uint64_t)row * l->pitch[0] + x] = x % 2 ? 128 : y;
}

/* Limited-range luma @y as the 8-bit grey level the shader writes. */
static int grey_of(uint8_t y)
{
	return (int)((y - 16) * 255.0 / 219.0 + 0.5);
}

/* Every pixel of the RGBA frame is grey @level (within 1) and opaque. */
static int all_grey(const uint8_t *map, const struct llmem_frame_layout *l, int level)
{
	for (uint32_t row = 0; row < l->height; row++)
		for (uint32_t x = 0; x < l->width * 4; x++) {
			int v = map[l->offset[0] + (uint64_t)row * l->pitch[0] + x];
			int want = x % 4 == 3 ? 255 : level;

			if (v < want - 1 || v > want + 1)
				return 0;
		}
	return 1;
}

/* Each source's dispatch is recorded at creation; runs replay it, each on
 * its own source, in any order and again. */
TEST_F(builtin, converter_records_once)
{
	static const uint8_t lumas[SOURCES] = { 40, 120, 200 };
	struct llmem_converter *c;
	uint64_t before;

	for (int i = 0; i < SOURCES; i++)
		grey_yuyv(self->src_map[i], &self->src_l, lumas[i]);
	before = atomic_load(&self->dispatch->count);
	ASSERT_EQ(llmem_converter_create(
			  &(struct llmem_converter_create_info){
				  .srcs = self->srcs,
				  .src_count = SOURCES,
				  .src_layout = &self->src_l,
				  .dst = self->dst,
				  .dst_layout = &self->dst_l,
			  },
			  &c),
		  0);
	EXPECT_EQ(atomic_load(&self->dispatch->count) - before, SOURCES);
	before = atomic_load(&self->dispatch->count);
	for (int round = 0; round < 2; round++)
		for (int i = SOURCES - 1; i >= 0; i--) {
			memset(self->dst_map, 0, self->dst_l.size);
			ASSERT_EQ(llmem_converter_run(c, (uint32_t)i), 0);
			EXPECT_TRUE(all_grey(self->dst_map, &self->dst_l, grey_of(lumas[i])))
			TH_LOG("source %d, round %d: not grey %d", i, round, grey_of(lumas[i]));
		}
	EXPECT_EQ(atomic_load(&self->dispatch->count), before);
	llmem_converter_destroy(c);
}

/* Without VK_KHR_push_descriptor: conversions, whose recordings bind sets,
 * still run; a clear copies; a kernel for a queue is refused, naming the
 * extension. */
TEST_F(builtin, without_push_descriptor)
{
	PFN_vkCmdPushDescriptorSetKHR push = self->s->push_descriptor_set;
	static const uint32_t words[] = { 0x07230203, 0x00010000, 0, 1, 0 };
	struct llmem_kernel *k = NULL;
	struct llmem_queue *q;
	uint64_t before;

	ASSERT_NE(push, NULL);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	grey_yuyv(self->src_map[0], &self->src_l, 120);
	self->s->push_descriptor_set = NULL;

	before = atomic_load(&self->dispatch->count);
	ASSERT_EQ(llmem_convert_to_rgba(&(struct llmem_convert_info){
			  .src = self->srcs[0],
			  .src_layout = &self->src_l,
			  .dst = self->dst,
			  .dst_layout = &self->dst_l,
		  }),
		  0);
	EXPECT_EQ(atomic_load(&self->dispatch->count) - before, 1);
	EXPECT_TRUE(all_grey(self->dst_map, &self->dst_l, grey_of(120)));

	before = atomic_load(&self->dispatch->count);
	ASSERT_EQ(llmem_enqueue_clear_frame(q, self->dst, &self->dst_l, NULL,
					    &(union llmem_color){ .u32 = { 7, 7, 7, 255 } }, NULL,
					    NULL),
		  0);
	EXPECT_TRUE(all_grey(self->dst_map, &self->dst_l, 7));
	EXPECT_EQ(atomic_load(&self->dispatch->count), before);

	EXPECT_FAILS(llmem_kernel_create(self->s,
					 &(struct llmem_kernel_create_info){
						 .spirv = words,
						 .spirv_size = sizeof(words),
						 .name = "mine",
					 },
					 &k),
		     -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "kernel mine: device "), NULL);
	EXPECT_NE(strstr(llmem_last_error(), "lacks VK_KHR_push_descriptor"), NULL);
	EXPECT_EQ(k, NULL);

	self->s->push_descriptor_set = push;
	llmem_queue_destroy(q);
}

TEST_HARNESS_MAIN
