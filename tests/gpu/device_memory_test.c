// SPDX-License-Identifier: MIT
/*
 * What only a real GPU can show: memory the host cannot map.  Suite 'gpu':
 * run on a machine with a discrete GPU (`tests/runner --suite gpu`), never
 * on lavapipe, whose one memory type is host visible.
 */
#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/session.h>

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

TEST_HARNESS_MAIN
