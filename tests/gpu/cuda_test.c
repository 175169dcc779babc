// SPDX-License-Identifier: MIT
/*
 * vkgdr parity on a real GPU with CUDA: pages of opaque-fd memory imported
 * into CUDA, data crossing both ways.  Suite 'gpu': run by hand on the
 * NVIDIA machine (`tests/runner --suite gpu`), never in CI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/cuda.h>
#include <llmem/llmem.h>
#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define PAGE (32u << 20)
#define CHECK (1u << 20)

FIXTURE(cuda)
{
	struct llmem_session *s;
	struct llmem_cuda *cu;
	struct llmem_queue *q;
	uint8_t *pattern, *back;
};

FIXTURE_SETUP(cuda)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_cuda_create(self->s, &self->cu), 0)
	TH_LOG("CUDA: %s", llmem_last_error());
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
	self->pattern = malloc(PAGE);
	self->back = malloc(PAGE);
	ASSERT_NE(self->pattern, NULL);
	ASSERT_NE(self->back, NULL);
	for (uint32_t i = 0; i < PAGE; i++)
		self->pattern[i] = (uint8_t)((i >> 8) ^ (i * 29));
}

FIXTURE_TEARDOWN(cuda)
{
	free(self->pattern);
	free(self->back);
	llmem_queue_destroy(self->q);
	llmem_cuda_destroy(self->cu);
	VK_TEST_SESSION_END(self->s);
}

static int opaque_memory(struct llmem_session *s, uint32_t flags, struct llmem_memory **m)
{
	struct llmem_memory_create_info ci = {
		.flags = flags,
		.options = LLMEM_MEMORY_EXACT_MATCH,
		.sharing = LLMEM_SHARING_OPAQUE_FD,
		.name = "cuda",
	};

	return llmem_memory_create(s, &ci, m);
}

/*
 * vkgdr: raw DEVICE_LOCAL|HOST_VISIBLE pages (the BAR); the CPU writes through
 * the mapping, CUDA reads; CUDA writes, the CPU reads through the mapping.
 */
TEST_F(cuda, bar_page_cpu_to_cuda_and_back)
{
	struct llmem_cuda_memory *cm;
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	uint64_t dptr;
	uint32_t page;
	uint8_t *map;

	ASSERT_EQ(opaque_memory(self->s,
				LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE |
					LLMEM_MEMORY_HOST_COHERENT,
				&m),
		  0)
	TH_LOG("no exportable DEVICE_LOCAL|HOST_VISIBLE memory: %s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	TH_LOG("memory type %u, flags 0x%x, coherent %u, atom %llu", mi.memory_type_index, mi.flags,
	       mi.coherent, (unsigned long long)mi.non_coherent_atom_size);
	ASSERT_EQ(llmem_memory_add_page(m, PAGE, &page), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_map_page(m, page, (void **)&map), 0);
	memcpy(map, self->pattern, PAGE);
	ASSERT_EQ(llmem_memory_flush_page(m, page, 0, LLMEM_WHOLE_SIZE), 0);

	ASSERT_EQ(llmem_cuda_import_page(self->cu, m, page, &cm), 0)
	TH_LOG("%s", llmem_last_error());
	dptr = llmem_cuda_memory_pointer(cm);
	ASSERT_NE(dptr, 0);
	ASSERT_EQ(llmem_cuda_copy_to_host(self->cu, self->back, dptr, PAGE), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(self->back, self->pattern, PAGE), 0);

	/* CUDA writes; the CPU reads a slice back through the (slow) BAR. */
	ASSERT_EQ(llmem_cuda_memset(self->cu, dptr + 4096, 0x5a, CHECK), 0);
	ASSERT_EQ(llmem_cuda_copy_from_host(self->cu, dptr + PAGE - CHECK, self->pattern, CHECK),
		  0);
	ASSERT_EQ(llmem_memory_invalidate_page(m, page, 0, LLMEM_WHOLE_SIZE), 0);
	memcpy(self->back, map, 4096 + CHECK);
	EXPECT_EQ(memcmp(self->back, self->pattern, 4096), 0);
	for (uint32_t i = 4096; i < 4096 + CHECK; i++) {
		ASSERT_EQ(self->back[i], 0x5a) TH_LOG("byte %u", i);
	}
	memcpy(self->back, map + PAGE - CHECK, CHECK);
	EXPECT_EQ(memcmp(self->back, self->pattern, CHECK), 0);

	llmem_cuda_memory_destroy(cm);
	EXPECT_EQ(llmem_memory_unmap_page(m, page), 0);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/*
 * DEVICE_LOCAL opaque-fd memory with a buffer on it: a Vulkan upload is seen
 * by CUDA, and a CUDA write by a Vulkan copy back to the host.
 */
TEST_F(cuda, device_local_buffer_both_ways)
{
	struct llmem_buffer_create_info bci = { .size = PAGE / 2 };
	struct llmem_cuda_memory *cm;
	struct llmem_allocation a;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	uint64_t dptr;

	ASSERT_EQ(opaque_memory(self->s, LLMEM_MEMORY_DEVICE_LOCAL, &m), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, b, 0, self->pattern, bci.size, NULL, NULL),
		  0);
	ASSERT_EQ(llmem_cuda_import_page(self->cu, m, a.page, &cm), 0)
	TH_LOG("%s", llmem_last_error());
	dptr = llmem_cuda_memory_pointer(cm) + a.offset;
	ASSERT_EQ(llmem_cuda_copy_to_host(self->cu, self->back, dptr, bci.size), 0);
	EXPECT_EQ(memcmp(self->back, self->pattern, bci.size), 0);

	ASSERT_EQ(llmem_cuda_memset(self->cu, dptr, 0xc3, bci.size), 0);
	ASSERT_EQ(llmem_cuda_copy_from_host(self->cu, dptr + 12345, self->pattern, CHECK), 0);
	memset(self->back, 0, bci.size);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, b, 0, self->back, bci.size, NULL, NULL), 0);
	for (uint32_t i = 0; i < 12345; i++) {
		ASSERT_EQ(self->back[i], 0xc3) TH_LOG("byte %u", i);
	}
	EXPECT_EQ(memcmp(self->back + 12345, self->pattern, CHECK), 0);
	EXPECT_EQ(self->back[12345 + CHECK], 0xc3);

	llmem_cuda_memory_destroy(cm);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* A memory that is not opaque-fd shared cannot go to CUDA. */
TEST_F(cuda, import_needs_opaque_fd_memory)
{
	struct llmem_memory_create_info ci = { .flags = LLMEM_MEMORY_DEVICE_LOCAL };
	struct llmem_cuda_memory *cm = (struct llmem_cuda_memory *)1;
	struct llmem_memory *m;
	uint32_t page;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(llmem_memory_add_page(m, 1u << 20, &page), 0);
	EXPECT_EQ(llmem_cuda_import_page(self->cu, m, page, &cm), -ENOTSUP);
	EXPECT_EQ(cm, NULL);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/*
 * What CUDA states to a negotiation, from the driver: texture and pitch
 * alignments that are powers of two, linear 2D bounds past any frame the
 * library lays out; merged with the Vulkan device for the shaders, every
 * pitch and plane offset of the result meets both, and an exact pitch off
 * CUDA's alignment is refused naming CUDA.
 */
TEST_F(cuda, participant_states_the_drivers_facts)
{
	struct llmem_negotiate_request r = { .width = 1000, .height = 500 };
	struct llmem_participant ps[3] = { 0 };
	const struct llmem_constraints *c = &ps[0].constraints;
	struct llmem_negotiated n;

	ASSERT_EQ(llmem_participant_cuda(self->cu, &ps[0]), 0) TH_LOG("%s", llmem_last_error());
	TH_LOG("%s: plane alignment %u, pitch alignment %u, at most %ux%u, pitch %u", ps[0].name,
	       c->plane_alignment, c->pitch_alignment, c->max_width, c->max_height, c->max_pitch);
	EXPECT_EQ(ps[0].kind, LLMEM_PARTICIPANT_CUDA);
	EXPECT_EQ(ps[0].num_formats, 0);
	EXPECT_EQ(c->probed | c->assumed, 0);
	ASSERT_GT(c->plane_alignment, 0);
	ASSERT_GT(c->pitch_alignment, 0);
	EXPECT_EQ(c->plane_alignment & (c->plane_alignment - 1), 0);
	EXPECT_EQ(c->pitch_alignment & (c->pitch_alignment - 1), 0);
	EXPECT_GE(c->max_width, 8192);
	EXPECT_GE(c->max_height, 8192);
	EXPECT_GE(c->max_pitch, 8192 * 4);

	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_STORAGE, &ps[1]), 0);
	ASSERT_EQ(llmem_negotiate(ps, 2, &r, &n), 0) TH_LOG("%s", llmem_last_error());
	for (uint32_t p = 0; p < n.layout.num_planes; p++) {
		EXPECT_EQ(n.layout.pitch[p] % c->pitch_alignment, 0);
		EXPECT_EQ(n.layout.offset[p] % c->plane_alignment, 0);
		EXPECT_EQ(n.layout.offset[p] % ps[1].constraints.plane_alignment, 0);
	}

	/* A queue whose only pitch is half an alignment off CUDA's (YUYV's
	 * rows here are 2000 bytes). */
	snprintf(ps[2].name, sizeof(ps[2].name), "a queue of exact pitch");
	ps[2].kind = LLMEM_PARTICIPANT_OTHER;
	ps[2].constraints.pitch =
		(2000 + c->pitch_alignment - 1) / c->pitch_alignment * c->pitch_alignment +
		c->pitch_alignment / 2;
	ps[2].constraints.pitch_alignment = 0;
	EXPECT_EQ(llmem_negotiate(ps, 3, &r, &n), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), ps[0].name), NULL) TH_LOG("%s", llmem_last_error());

	EXPECT_EQ(llmem_participant_cuda(NULL, &ps[0]), -EINVAL);
	EXPECT_EQ(llmem_participant_cuda(self->cu, NULL), -EINVAL);
}

TEST_HARNESS_MAIN
