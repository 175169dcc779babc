// SPDX-License-Identifier: MIT
/*
 * Memories: choosing a type, lazy pages, dedicated pages, spare pages,
 * statistics, and refusing to die under live objects.
 */
#include <stdlib.h>

#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define MiB (1ull << 20)

FIXTURE(memory)
{
	struct llmem_session *s;
	struct llmem_session_info info;
};

FIXTURE_SETUP(memory)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_session_get_info(self->s, &self->info), 0);
}

FIXTURE_TEARDOWN(memory)
{
	VK_TEST_SESSION_END(self->s);
}

static struct llmem_buffer *new_buffer(struct llmem_memory *m, uint64_t size, const char *name)
{
	struct llmem_buffer_create_info ci = { .size = size, .name = name };
	struct llmem_buffer *b = NULL;

	if (llmem_buffer_create(m, &ci, &b))
		return NULL;
	return b;
}

/* The zero create-info: device local, 32 MiB pages, and no page yet. */
TEST_F(memory, defaults_and_lazy_pages)
{
	struct llmem_memory_info mi;
	struct llmem_memory *m;

	ASSERT_EQ(llmem_memory_create(self->s, NULL, &m), 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_TRUE(mi.flags & LLMEM_MEMORY_DEVICE_LOCAL);
	EXPECT_EQ(mi.page_size, 32 * MiB);
	EXPECT_EQ(mi.page_count, 0);
	EXPECT_EQ(mi.bytes_reserved, 0);
	EXPECT_EQ(mi.bytes_in_use, 0);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(llmem_memory_page_limit(m), 0);
	EXPECT_EQ(llmem_memory_page_mappable(m, 0), -ENOENT);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* Every flag set the device reports can be had with exact match, and gets it. */
TEST_F(memory, exact_match_for_every_flag_set)
{
	for (uint32_t i = 0; i < self->info.flag_set_count; i++) {
		struct llmem_memory_create_info ci = {
			.flags = self->info.flag_sets[i],
			.options = LLMEM_MEMORY_EXACT_MATCH,
		};
		struct llmem_memory_info mi;
		struct llmem_memory *m;

		if (!ci.flags)
			continue;
		ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
		ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
		EXPECT_EQ(mi.flags & 0xfu, self->info.flag_sets[i]);
		EXPECT_EQ(mi.mappable, !!(mi.flags & LLMEM_MEMORY_HOST_VISIBLE));
		EXPECT_EQ(llmem_memory_destroy(m), 0);
	}
}

/*
 * Flags no memory type has (exactly) are -ENOTSUP; without exact match the
 * type with the fewest extra flags is chosen.
 */
TEST_F(memory, exact_match_refused_then_superset)
{
	struct llmem_memory_create_info ci = { .options = LLMEM_MEMORY_EXACT_MATCH };
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	uint32_t want = 0;

	for (uint32_t f = 1; f < 16 && !want; f++) {
		bool exists = false, superset = false;

		for (uint32_t i = 0; i < self->info.flag_set_count; i++) {
			exists |= self->info.flag_sets[i] == f;
			superset |= (self->info.flag_sets[i] & f) == f;
		}
		if (!exists && superset)
			want = f;
	}
	if (!want)
		SKIP(return, "every flag set with a superset exists exactly on this device");
	ci.flags = want;
	EXPECT_EQ(llmem_memory_create(self->s, &ci, &m), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "exactly"), NULL);
	ci.options = 0;
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.flags & want, want);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* Bad create-info fields: -EINVAL with a message, and nothing made. */
TEST_F(memory, bad_arguments)
{
	struct llmem_memory_create_info ci = { .flags = 0x10 };
	struct llmem_memory *m = (void *)1;
	struct llmem_memory_info mi;

	EXPECT_EQ(llmem_memory_create(self->s, &ci, &m), -EINVAL);
	EXPECT_EQ(m, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "flags"), NULL);
	ci.flags = 0;
	ci.options = 0x2;
	EXPECT_EQ(llmem_memory_create(self->s, &ci, &m), -EINVAL);
	ci.options = 0;
	ci.page_size = 1000;
	EXPECT_EQ(llmem_memory_create(self->s, &ci, &m), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "4096"), NULL);
	EXPECT_EQ(llmem_memory_create(NULL, NULL, &m), -EINVAL);
	EXPECT_EQ(llmem_memory_create(self->s, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_memory_get_info(NULL, &mi), -EINVAL);
	EXPECT_EQ(llmem_memory_page_mappable(NULL, 0), -EINVAL);
	EXPECT_EQ(llmem_memory_list_objects(NULL, NULL, 0), -EINVAL);
	EXPECT_EQ(llmem_memory_page_limit(NULL), 0);
	EXPECT_EQ(llmem_memory_destroy(NULL), 0);
}

/* Objects share a page; one larger than a page gets its own; stats follow. */
TEST_F(memory, pages_and_statistics)
{
	struct llmem_memory_create_info ci = { .page_size = 4 * MiB };
	struct llmem_buffer *a, *b, *big;
	struct llmem_allocation aa, ab, abig;
	struct llmem_memory_info mi;
	struct llmem_memory *m;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_NE(a = new_buffer(m, 1 * MiB, "a"), NULL);
	ASSERT_NE(b = new_buffer(m, 1 * MiB, "b"), NULL);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 1);
	EXPECT_EQ(mi.bytes_reserved, 4 * MiB);
	EXPECT_GE(mi.bytes_in_use, 2 * MiB);
	EXPECT_EQ(mi.object_count, 2);
	ASSERT_EQ(llmem_buffer_get_allocation(a, &aa), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &ab), 0);
	EXPECT_EQ(aa.page, ab.page);
	EXPECT_EQ(aa.size, 1 * MiB);
	EXPECT_TRUE(aa.offset + aa.size <= ab.offset || ab.offset + ab.size <= aa.offset);
	EXPECT_LE(ab.offset + ab.size, 4 * MiB);

	ASSERT_NE(big = new_buffer(m, 6 * MiB, "big"), NULL);
	ASSERT_EQ(llmem_buffer_get_allocation(big, &abig), 0);
	EXPECT_NE(abig.page, aa.page);
	EXPECT_EQ(abig.offset, 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 2);
	EXPECT_GE(mi.bytes_reserved, 10 * MiB);
	EXPECT_EQ(llmem_memory_page_limit(m), 2);
	EXPECT_EQ(llmem_memory_page_mappable(m, abig.page), (int)mi.mappable);
	EXPECT_EQ(llmem_memory_page_mappable(m, 7), -ENOENT);

	/* The dedicated page goes with its object. */
	llmem_buffer_destroy(big);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 1);
	llmem_buffer_destroy(a);
	llmem_buffer_destroy(b);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(mi.bytes_in_use, 0);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* One empty page is kept by default; SPARE_NONE keeps none; 2 keeps two. */
TEST_F(memory, spare_pages)
{
	const uint32_t spares[] = { 0, LLMEM_MEMORY_SPARE_NONE, 2 };
	const uint32_t kept[] = { 1, 0, 2 };

	for (int k = 0; k < 3; k++) {
		struct llmem_memory_create_info ci = { .page_size = 1 * MiB,
						       .spare_pages = spares[k] };
		struct llmem_buffer *b[3];
		struct llmem_memory_info mi;
		struct llmem_memory *m;

		ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
		/* Three buffers of most of a page: three pages. */
		for (int i = 0; i < 3; i++)
			ASSERT_NE(b[i] = new_buffer(m, 768 * 1024, NULL), NULL);
		ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
		EXPECT_EQ(mi.page_count, 3);
		for (int i = 0; i < 3; i++)
			llmem_buffer_destroy(b[i]);
		ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
		EXPECT_EQ(mi.page_count, kept[k]);
		EXPECT_EQ(llmem_memory_destroy(m), 0);
	}
}

/* Destroying a memory under live objects is -EBUSY and names them. */
TEST_F(memory, destroy_with_live_objects)
{
	struct llmem_object_info objs[4];
	struct llmem_buffer *a, *b;
	struct llmem_memory *m;

	ASSERT_EQ(llmem_memory_create(self->s, NULL, &m), 0);
	ASSERT_NE(a = new_buffer(m, 4096, "alpha"), NULL);
	ASSERT_NE(b = new_buffer(m, 4096, "beta"), NULL);
	EXPECT_EQ(llmem_memory_destroy(m), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "alpha"), NULL);
	EXPECT_NE(strstr(llmem_last_error(), "beta"), NULL);

	ASSERT_EQ(llmem_memory_list_objects(m, objs, 4), 2);
	EXPECT_STREQ(objs[0].name, "alpha");
	EXPECT_EQ(objs[0].kind, LLMEM_OBJECT_BUFFER);
	EXPECT_EQ(objs[0].allocation.size, 4096);
	EXPECT_STREQ(objs[1].name, "beta");
	EXPECT_EQ(objs[1].id, objs[0].id + 1);
	EXPECT_EQ(llmem_memory_list_objects(m, NULL, 0), 2);

	llmem_buffer_destroy(a);
	EXPECT_EQ(llmem_memory_destroy(m), -EBUSY);
	EXPECT_EQ(strstr(llmem_last_error(), "alpha"), NULL);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

TEST_HARNESS_MAIN
