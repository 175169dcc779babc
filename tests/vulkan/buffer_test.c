// SPDX-License-Identifier: MIT
/*
 * Buffers: creation in every form, sub-regions, shared page mappings,
 * flush and invalidate ranges, and copies on the queue.
 */
#include <pthread.h>
#include <stdlib.h>

#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(buffer)
{
	struct llmem_session *s;
	struct llmem_session_info info;
	struct llmem_memory *m;
};

FIXTURE_SETUP(buffer)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = 1ull << 20,
		.name = "host",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_session_get_info(self->s, &self->info), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

FIXTURE_TEARDOWN(buffer)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

/* Defaults: storage and transfer usage; the size and range are the caller's. */
TEST_F(buffer, create_defaults)
{
	struct llmem_buffer_create_info ci = { .size = 1000, .name = "b" };
	struct llmem_allocation a;
	struct llmem_buffer *b;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &b), 0);
	EXPECT_EQ(llmem_buffer_size(b), 1000);
	EXPECT_EQ(llmem_buffer_usage(b), LLMEM_BUFFER_DEFAULT_USAGE);
	EXPECT_EQ(llmem_buffer_memory(b), self->m);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
	EXPECT_EQ(a.page, 0);
	EXPECT_EQ(a.size, 1000);
	EXPECT_LE(a.offset + a.size, 1ull << 20);
	llmem_buffer_destroy(b);
}

/* Bad arguments: -EINVAL, a message, and no object left behind. */
TEST_F(buffer, bad_arguments)
{
	struct llmem_buffer_create_info ci = { .size = 0 };
	struct llmem_buffer *b = (void *)1;
	struct llmem_allocation a;
	struct llmem_memory_info mi;
	void *p;

	EXPECT_EQ(llmem_buffer_create(self->m, &ci, &b), -EINVAL);
	EXPECT_EQ(b, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "size is 0"), NULL);
	ci.size = 16;
	ci.usage = 1u << 20;
	EXPECT_EQ(llmem_buffer_create(self->m, &ci, &b), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "usage"), NULL);
	EXPECT_EQ(llmem_buffer_create(NULL, &ci, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_create(self->m, NULL, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_create(self->m, &ci, NULL), -EINVAL);
	EXPECT_EQ(llmem_buffer_create_from_host(self->m, NULL, NULL, 16, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_create_like_buffer(self->m, NULL, NULL, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_create_like_image(self->m, NULL, NULL, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_create_sub(NULL, 0, 16, NULL, &b), -EINVAL);
	EXPECT_EQ(llmem_buffer_map(NULL, &p), -EINVAL);
	EXPECT_EQ(llmem_buffer_unmap(NULL), -EINVAL);
	EXPECT_EQ(llmem_buffer_flush(NULL, 0, 1), -EINVAL);
	EXPECT_EQ(llmem_buffer_invalidate(NULL, 0, 1), -EINVAL);
	EXPECT_EQ(llmem_buffer_get_allocation(NULL, &a), -EINVAL);
	EXPECT_EQ(llmem_buffer_copy(NULL, 0, NULL, 0, 1), -EINVAL);
	llmem_buffer_destroy(NULL);
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(mi.page_count, 0);
}

/* Bytes written through one mapping are read back through another. */
TEST_F(buffer, map_round_trip)
{
	struct llmem_buffer_create_info ci = { .size = 4096 };
	uint8_t ref[4096];
	struct llmem_buffer *b;
	void *p;

	fill(ref, sizeof(ref), 7);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &b), 0);
	ASSERT_EQ(llmem_buffer_map(b, &p), 0);
	memcpy(p, ref, sizeof(ref));
	EXPECT_EQ(llmem_buffer_flush(b, 0, LLMEM_WHOLE_SIZE), 0);
	EXPECT_EQ(llmem_buffer_unmap(b), 0);
	ASSERT_EQ(llmem_buffer_map(b, &p), 0);
	EXPECT_EQ(llmem_buffer_invalidate(b, 0, LLMEM_WHOLE_SIZE), 0);
	EXPECT_EQ(memcmp(p, ref, sizeof(ref)), 0);
	EXPECT_EQ(llmem_buffer_unmap(b), 0);
	EXPECT_EQ(llmem_buffer_unmap(b), -EINVAL);
	llmem_buffer_destroy(b);
}

/* Objects of one page share one mapping, counted, released by the last unmap. */
TEST_F(buffer, shared_page_mapping)
{
	struct llmem_buffer_create_info ci = { .size = 256 };
	struct llmem_allocation aa, ab;
	struct llmem_memory_info mi;
	struct llmem_buffer *a, *b;
	void *pa, *pa2, *pb;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &a), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &b), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(a, &aa), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &ab), 0);
	ASSERT_EQ(aa.page, ab.page);
	ASSERT_EQ(llmem_buffer_map(a, &pa), 0);
	ASSERT_EQ(llmem_buffer_map(b, &pb), 0);
	ASSERT_EQ(llmem_buffer_map(a, &pa2), 0);
	EXPECT_EQ(pa, pa2);
	/* Both pointers come from the same page mapping. */
	EXPECT_EQ((char *)pb - (char *)pa, (long)(ab.offset - aa.offset));
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.mapped_pages, 1);
	EXPECT_EQ(llmem_memory_page_mappable(self->m, aa.page), 1);
	memset(pa, 0xaa, 256);
	memset(pb, 0xbb, 256);
	EXPECT_EQ(((uint8_t *)pa)[255], 0xaa);
	EXPECT_EQ(llmem_buffer_unmap(a), 0);
	EXPECT_EQ(llmem_buffer_unmap(a), 0);
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.mapped_pages, 1);
	EXPECT_EQ(llmem_buffer_unmap(b), 0);
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.mapped_pages, 0);
	/* A buffer destroyed while mapped gives its mapping back. */
	ASSERT_EQ(llmem_buffer_map(a, &pa), 0);
	llmem_buffer_destroy(a);
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.mapped_pages, 0);
	llmem_buffer_destroy(b);
}

/* Flush and invalidate ranges are checked against the object, then rounded. */
TEST_F(buffer, flush_ranges)
{
	struct llmem_buffer_create_info ci = { .size = 1000 };
	struct llmem_buffer *pad, *b;
	void *p;

	/* Something in front, so b's range does not start at a page boundary. */
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &pad), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &b), 0);
	EXPECT_EQ(llmem_buffer_flush(b, 0, 16), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "not mapped"), NULL);
	ASSERT_EQ(llmem_buffer_map(b, &p), 0);
	/* Odd ranges: widened to nonCoherentAtomSize inside the page. */
	EXPECT_EQ(llmem_buffer_flush(b, 3, 5), 0);
	EXPECT_EQ(llmem_buffer_invalidate(b, 999, 1), 0);
	EXPECT_EQ(llmem_buffer_flush(b, 1, 998), 0);
	EXPECT_EQ(llmem_buffer_flush(b, 1000, 0), 0);
	EXPECT_EQ(llmem_buffer_flush(b, 1000, LLMEM_WHOLE_SIZE), 0);
	/* Outside the object. */
	EXPECT_EQ(llmem_buffer_flush(b, 0, 1001), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "outside"), NULL);
	EXPECT_EQ(llmem_buffer_invalidate(b, 1001, 0), -EINVAL);
	EXPECT_EQ(llmem_buffer_flush(b, 1001, LLMEM_WHOLE_SIZE), -EINVAL);
	EXPECT_EQ(llmem_buffer_flush(b, 8, UINT64_MAX - 4), -EINVAL);
	EXPECT_EQ(llmem_buffer_unmap(b), 0);
	llmem_buffer_destroy(b);
	llmem_buffer_destroy(pad);
}

/* From host data: the bytes are there; a size mismatch is -EINVAL. */
TEST_F(buffer, create_from_host)
{
	struct llmem_buffer_create_info ci = { .size = 99, .name = "host" };
	uint8_t ref[300];
	struct llmem_buffer *b;
	void *p;

	fill(ref, sizeof(ref), 3);
	EXPECT_EQ(llmem_buffer_create_from_host(self->m, &ci, ref, sizeof(ref), &b), -EINVAL);
	ci.size = 0;
	ASSERT_EQ(llmem_buffer_create_from_host(self->m, &ci, ref, sizeof(ref), &b), 0);
	EXPECT_EQ(llmem_buffer_size(b), sizeof(ref));
	ASSERT_EQ(llmem_buffer_map(b, &p), 0);
	EXPECT_EQ(memcmp(p, ref, sizeof(ref)), 0);
	EXPECT_EQ(llmem_buffer_unmap(b), 0);
	llmem_buffer_destroy(b);
}

/* Like another buffer: same size and usage unless overridden, any memory. */
TEST_F(buffer, create_like_buffer)
{
	struct llmem_buffer_create_info ci = {
		.size = 777,
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_UNIFORM,
	};
	struct llmem_buffer_create_info over = { .usage = LLMEM_BUFFER_STORAGE };
	struct llmem_memory *other;
	struct llmem_buffer *a, *b, *c;

	ASSERT_EQ(llmem_memory_create(self->s, NULL, &other), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &a), 0);
	ASSERT_EQ(llmem_buffer_create_like_buffer(other, a, NULL, &b), 0);
	EXPECT_EQ(llmem_buffer_size(b), 777);
	EXPECT_EQ(llmem_buffer_usage(b), ci.usage);
	EXPECT_EQ(llmem_buffer_memory(b), other);
	ASSERT_EQ(llmem_buffer_create_like_buffer(self->m, a, &over, &c), 0);
	EXPECT_EQ(llmem_buffer_size(c), 777);
	EXPECT_EQ(llmem_buffer_usage(c), LLMEM_BUFFER_STORAGE);
	llmem_buffer_destroy(c);
	llmem_buffer_destroy(b);
	llmem_buffer_destroy(a);
	EXPECT_EQ(llmem_memory_destroy(other), 0);
}

/* An alignment of the caller's is honoured on top of the device's, kept by
 * buffers made like it, and refused unless a power of two. */
TEST_F(buffer, alignment)
{
	struct llmem_buffer_create_info ci = { .size = 100, .alignment = 4096 };
	struct llmem_buffer *small, *aligned, *like, *bad;
	struct llmem_allocation a;

	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 100 },
				      &small),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &aligned), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(aligned, &a), 0);
	EXPECT_EQ(a.offset % 4096, 0);
	EXPECT_NE(a.offset, 0);
	ASSERT_EQ(llmem_buffer_create_like_buffer(self->m, small, &ci, &like), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(like, &a), 0);
	EXPECT_EQ(a.offset % 4096, 0);
	ci.alignment = 3000;
	EXPECT_FAILS(llmem_buffer_create(self->m, &ci, &bad), -EINVAL);
	EXPECT_EQ(bad, NULL);
	llmem_buffer_destroy(like);
	llmem_buffer_destroy(aligned);
	llmem_buffer_destroy(small);
}

/* A sub-region shares the parent's bytes and keeps the parent's range alive. */
TEST_F(buffer, sub_region)
{
	struct llmem_buffer_create_info ci = { .size = 4096, .name = "parent" };
	struct llmem_allocation ap, as;
	struct llmem_object_info objs[2];
	struct llmem_buffer *parent, *sub;
	uint8_t *pp, *ps;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &parent), 0);
	ASSERT_EQ(llmem_buffer_create_sub(parent, 1024, 512, "sub", &sub), 0);
	EXPECT_EQ(llmem_buffer_size(sub), 512);
	EXPECT_EQ(llmem_buffer_usage(sub), llmem_buffer_usage(parent));
	ASSERT_EQ(llmem_buffer_get_allocation(parent, &ap), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(sub, &as), 0);
	EXPECT_EQ(as.page, ap.page);
	EXPECT_EQ(as.offset, ap.offset + 1024);
	EXPECT_EQ(as.size, 512);
	EXPECT_EQ(as.left_padding, 0);

	ASSERT_EQ(llmem_buffer_map(parent, (void **)&pp), 0);
	ASSERT_EQ(llmem_buffer_map(sub, (void **)&ps), 0);
	EXPECT_EQ(ps, pp + 1024);
	pp[1024] = 0x5a;
	EXPECT_EQ(ps[0], 0x5a);
	EXPECT_EQ(llmem_buffer_unmap(parent), 0);

	/* The parent handle goes, its range stays until the sub-region goes. */
	llmem_buffer_destroy(parent);
	ASSERT_EQ(llmem_memory_list_objects(self->m, objs, 2), 2);
	EXPECT_STREQ(objs[0].name, "parent");
	EXPECT_STREQ(objs[1].name, "sub");
	ps[511] = 1;
	EXPECT_EQ(llmem_buffer_unmap(sub), 0);
	EXPECT_EQ(llmem_memory_destroy(self->m), -EBUSY);
	llmem_buffer_destroy(sub);
	EXPECT_EQ(llmem_memory_list_objects(self->m, NULL, 0), 0);
}

/* Sub-regions outside the parent, empty or misaligned are -EINVAL. */
TEST_F(buffer, sub_region_bad)
{
	struct llmem_buffer_create_info ci = { .size = 4096 };
	struct llmem_buffer *parent, *sub = (void *)1;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &parent), 0);
	EXPECT_EQ(llmem_buffer_create_sub(parent, 0, 0, NULL, &sub), -EINVAL);
	EXPECT_EQ(sub, NULL);
	EXPECT_EQ(llmem_buffer_create_sub(parent, 4096, 1, NULL, &sub), -EINVAL);
	EXPECT_EQ(llmem_buffer_create_sub(parent, 1024, 4096, NULL, &sub), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "outside"), NULL);
	EXPECT_EQ(llmem_buffer_create_sub(parent, UINT64_MAX, 2, NULL, &sub), -EINVAL);
	/* Storage buffers need minStorageBufferOffsetAlignment (at least 4 bytes on any device). */
	EXPECT_EQ(llmem_buffer_create_sub(parent, 1, 16, NULL, &sub), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "multiple"), NULL);
	EXPECT_EQ(llmem_memory_list_objects(self->m, NULL, 0), 1);
	llmem_buffer_destroy(parent);
}

/* A copy on the queue moves the bytes between buffers and sub-regions. */
TEST_F(buffer, copy)
{
	struct llmem_buffer_create_info ci = { .size = 8192 };
	struct llmem_buffer *src, *dst, *sub;
	uint8_t ref[8192], *p;

	fill(ref, sizeof(ref), 11);
	ASSERT_EQ(llmem_buffer_create_from_host(self->m, &ci, ref, sizeof(ref), &src), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &dst), 0);
	ASSERT_EQ(llmem_buffer_create_sub(dst, 4096, 4096, NULL, &sub), 0);
	ASSERT_EQ(llmem_buffer_copy(src, 0, dst, 0, 4096), 0);
	ASSERT_EQ(llmem_buffer_copy(src, 4096, sub, 0, 4096), 0);
	ASSERT_EQ(llmem_buffer_map(dst, (void **)&p), 0);
	EXPECT_EQ(llmem_buffer_invalidate(dst, 0, LLMEM_WHOLE_SIZE), 0);
	EXPECT_EQ(memcmp(p, ref, sizeof(ref)), 0);
	EXPECT_EQ(llmem_buffer_unmap(dst), 0);

	EXPECT_EQ(llmem_buffer_copy(src, 0, dst, 4097, 4096), -EINVAL);
	EXPECT_EQ(llmem_buffer_copy(src, 0, dst, 0, 0), -EINVAL);
	llmem_buffer_destroy(sub);
	llmem_buffer_destroy(dst);
	llmem_buffer_destroy(src);
}

/* Copies need transfer usage on both ends: -EPERM otherwise. */
TEST_F(buffer, copy_needs_usage)
{
	struct llmem_buffer_create_info ci = { .size = 64, .usage = LLMEM_BUFFER_STORAGE };
	struct llmem_buffer_create_info cd = { .size = 64 };
	struct llmem_buffer *a, *b;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &a), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &cd, &b), 0);
	EXPECT_EQ(llmem_buffer_copy(a, 0, b, 0, 64), -EPERM);
	EXPECT_EQ(llmem_buffer_copy(b, 0, a, 0, 64), -EPERM);
	llmem_buffer_destroy(b);
	llmem_buffer_destroy(a);
}

struct worker {
	struct llmem_memory *m;
	/* Images: device local, since some devices (NVIDIA) place optimal
	 * images in no host-visible type. */
	struct llmem_memory *images;
	unsigned seed;
	int failures;
};

/* Creates, maps, checks and destroys buffers and images in shared memories. */
static void *work(void *arg)
{
	struct worker *w = arg;

	for (int i = 0; i < 40; i++) {
		struct llmem_buffer_create_info ci = { .size = 64 +
							       (w->seed * 977 + i * 131) % 20000 };
		struct llmem_image_create_info ii = { .ndim = 3, .shape = { 8, 8, 4 } };
		uint8_t in[256], out[256];
		struct llmem_buffer *b;
		struct llmem_image *img;
		uint8_t *p;

		if (llmem_buffer_create(w->m, &ci, &b) || llmem_buffer_map(b, (void **)&p)) {
			w->failures++;
			continue;
		}
		memset(p, (int)(w->seed + i), ci.size);
		for (uint64_t k = 0; k < ci.size; k++)
			w->failures += p[k] != (uint8_t)(w->seed + i);
		w->failures += llmem_buffer_flush(b, 1, ci.size - 1) != 0;
		w->failures += llmem_buffer_unmap(b) != 0;
		llmem_buffer_destroy(b);
		if (i % 8)
			continue;
		fill(in, sizeof(in), w->seed + i);
		if (llmem_image_create_from_host(w->images, &ii, in, sizeof(in), &img)) {
			w->failures++;
			continue;
		}
		w->failures += llmem_image_download(img, out, sizeof(out)) != 0;
		w->failures += memcmp(in, out, sizeof(in)) != 0;
		llmem_image_destroy(img);
	}
	return NULL;
}

/* Threads sharing one memory and session: no failure, no validation message. */
TEST_F(buffer, threads)
{
	struct llmem_memory_create_info ici = { .page_size = 1ull << 20, .name = "images" };
	struct llmem_memory *images;
	struct worker w[4];
	pthread_t t[4];
	struct llmem_memory_info mi;

	ASSERT_EQ(llmem_memory_create(self->s, &ici, &images), 0);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ .m = self->m,
					.images = images,
					.seed = (unsigned)i * 7 + 1 };
		ASSERT_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
		EXPECT_EQ(w[i].failures, 0);
	}
	ASSERT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(mi.mapped_pages, 0);
	EXPECT_LE(mi.page_count, 1);
	EXPECT_EQ(llmem_memory_destroy(images), 0);
}

TEST_HARNESS_MAIN
