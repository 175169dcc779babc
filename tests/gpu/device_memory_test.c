// SPDX-License-Identifier: MIT
/*
 * What only a real GPU can show: memory the host cannot map.  Suite 'gpu':
 * run on a machine with a discrete GPU (`tests/runner --suite gpu`), never
 * on lavapipe, whose one memory type is host visible.
 */
#include <stdlib.h>

#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/session.h>
#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(gpu)
{
	struct llmem_session *s;
};

FIXTURE_SETUP(gpu)
{
	VK_TEST_SESSION(self->s);
}

FIXTURE_TEARDOWN(gpu)
{
	VK_TEST_SESSION_END(self->s);
}

/* Mapping a memory that is not host visible is -EPERM. */
TEST_F(gpu, map_not_mappable)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_DEVICE_LOCAL,
		.options = LLMEM_MEMORY_EXACT_MATCH,
	};
	struct llmem_buffer_create_info ci = { .size = 64 };
	struct llmem_memory_info mi;
	struct llmem_memory *dl;
	struct llmem_buffer *b, *from_host = NULL;
	uint8_t data[64] = { 0 };
	void *p;

	ASSERT_EQ(llmem_memory_create(self->s, &mci, &dl), 0)
	TH_LOG("no device-local memory that is not host visible: %s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(dl, &mi), 0);
	EXPECT_EQ(mi.mappable, 0);
	ASSERT_EQ(llmem_buffer_create(dl, &ci, &b), 0);
	EXPECT_EQ(llmem_buffer_map(b, &p), -EPERM);
	EXPECT_EQ(llmem_memory_page_mappable(dl, 0), 0);
	EXPECT_EQ(llmem_buffer_create_from_host(dl, NULL, data, sizeof(data), &from_host), -EPERM);
	EXPECT_EQ(from_host, NULL);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(dl), 0);
}

/*
 * DEVICE_LOCAL|HOST_VISIBLE memory (resizable BAR): reported coherent or with
 * its atom; a raw page written through the mapping, then a buffer on it read
 * back through a device copy (CPU reads of the BAR run at about 0.05 GB/s).
 */
TEST_F(gpu, bar_raw_page_gpu_copy_readback)
{
	const uint64_t size = 32ull << 20;
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE,
		.name = "bar",
	};
	struct llmem_buffer_create_info bci = { .size = size / 2 };
	struct llmem_session_info si;
	struct llmem_memory_info mi;
	struct llmem_allocation a;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	struct llmem_queue *q;
	uint8_t *map, *pattern, *back;
	uint32_t page;

	ASSERT_EQ(llmem_session_get_info(self->s, &si), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &m), 0)
	TH_LOG("no DEVICE_LOCAL|HOST_VISIBLE memory (no resizable BAR?): %s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	TH_LOG("type %u flags 0x%x coherent %u non_coherent_atom_size %llu", mi.memory_type_index,
	       mi.flags, mi.coherent, (unsigned long long)mi.non_coherent_atom_size);
	EXPECT_EQ(mi.coherent, !!(mi.flags & LLMEM_MEMORY_HOST_COHERENT));
	EXPECT_EQ(mi.non_coherent_atom_size, mi.coherent ? 0 : si.non_coherent_atom_size);
	pattern = malloc(size);
	back = malloc(size);
	ASSERT_NE(pattern, NULL);
	ASSERT_NE(back, NULL);
	for (uint64_t i = 0; i < size; i++)
		pattern[i] = (uint8_t)(i * 151 + (i >> 12));

	ASSERT_EQ(llmem_memory_add_page(m, size, &page), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_map_page(m, page, (void **)&map), 0);
	memcpy(map, pattern, size);
	ASSERT_EQ(llmem_memory_flush_page(m, page, 0, LLMEM_WHOLE_SIZE), 0);
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
	EXPECT_EQ(a.page, page);
	/* The queue reads uncached device memory through its ring: a GPU copy. */
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(q, b, 0, back, bci.size, NULL, NULL), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(back, pattern + a.offset, bci.size), 0);

	llmem_queue_destroy(q);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_unmap_page(m, page), 0);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	free(pattern);
	free(back);
}

TEST_HARNESS_MAIN
