// SPDX-License-Identifier: MIT
/*
 * Every size up to 2^64 - 1 either works or is refused with its documented
 * errno, before the driver sees it: page sizes (memory creation and added
 * pages), buffer sizes and alignments, image extents, sub-regions, and the
 * ranges of flushes and invalidates.  Never a crash, never a validation
 * message (the session's count must be 0 at teardown).
 *
 * What must work and what must be refused is worked out from what Vulkan
 * itself states, asked here rather than of llmem: the heaps' sizes,
 * maxMemoryAllocationSize, maxBufferSize (Vulkan 1.3), an image format's
 * maxExtent and maxResourceSize.  Each size of a fixed list (0, 1, around a
 * page, around each limit, 2^32, 2^50, 2^62, 2^64 - 1) is tried, then
 * RANDOM_SIZES drawn log-uniformly by xorshift64* from LLMEM_SIZES_SEED
 * (default 12345; printed, so a failure replays).
 */
#include <stdint.h>
#include <stdlib.h>

#include <llmem/vulkan.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define RANDOM_SIZES 64
#define FLAGS (LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT)
#define MIB (1ull << 20)

struct rng {
	uint64_t x;
};

static uint64_t rng_next(struct rng *r)
{
	r->x ^= r->x >> 12;
	r->x ^= r->x << 25;
	r->x ^= r->x >> 27;
	return r->x * 0x2545F4914F6CDD1Dull;
}

/* Log-uniform over [0, 2^64): the bit length first, then the bits. */
static uint64_t rng_size(struct rng *r)
{
	unsigned int bits = (unsigned int)(rng_next(r) % 65);

	return bits ? rng_next(r) >> (64 - bits) : 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

FIXTURE(sizes)
{
	struct llmem_session *s;
	struct rng rng;
	/* The most one allocation of a HOST_VISIBLE|HOST_COHERENT type holds. */
	uint64_t alloc_max;
	/* Per memory type: the smaller of its heap and maxMemoryAllocationSize. */
	uint64_t type_max[VK_MAX_MEMORY_TYPES];
	uint64_t buffer_max;
	uint64_t heap_max;
	/* Sizes around those limits and the fixed list, then random ones. */
	uint64_t sizes[64 + RANDOM_SIZES];
	int n;
};

/* What Vulkan states, asked the way the library asks it. */
static void vulkan_limits(FIXTURE_DATA(sizes) * self)
{
	VkPhysicalDevice pd = llmem_session_vk_physical_device(self->s);
	VkPhysicalDeviceMaintenance4Properties m4 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES,
	};
	VkPhysicalDeviceMaintenance3Properties m3 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
	};
	VkPhysicalDeviceProperties2 p2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &m3,
	};
	VkPhysicalDeviceMemoryProperties mp;
	uint32_t instance = VK_API_VERSION_1_1;

	vkGetPhysicalDeviceProperties(pd, &p2.properties);
	vkEnumerateInstanceVersion(&instance);
	if (p2.properties.apiVersion >= VK_API_VERSION_1_3 && instance >= VK_API_VERSION_1_3)
		m3.pNext = &m4;
	vkGetPhysicalDeviceProperties2(pd, &p2);
	vkGetPhysicalDeviceMemoryProperties(pd, &mp);
	self->buffer_max = m4.maxBufferSize ? m4.maxBufferSize : UINT64_MAX;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
		uint64_t heap = mp.memoryHeaps[mp.memoryTypes[i].heapIndex].size;

		self->type_max[i] = min_u64(heap, m3.maxMemoryAllocationSize);
		if ((mp.memoryTypes[i].propertyFlags & FLAGS) != FLAGS)
			continue;
		if (heap > self->heap_max)
			self->heap_max = heap;
		if (self->type_max[i] > self->alloc_max)
			self->alloc_max = self->type_max[i];
	}
}

FIXTURE_SETUP(sizes)
{
	const char *seed = getenv("LLMEM_SIZES_SEED");

	VK_TEST_SESSION(self->s);
	vulkan_limits(self);
	const uint64_t limits[] = { self->alloc_max, self->buffer_max, self->heap_max };
	ASSERT_NE(self->alloc_max, 0);
	self->rng.x = seed && *seed ? strtoull(seed, NULL, 0) : 12345;
	TH_LOG("LLMEM_SIZES_SEED=%llu: largest allocation %llu, buffer %llu, heap %llu",
	       (unsigned long long)self->rng.x, (unsigned long long)self->alloc_max,
	       (unsigned long long)self->buffer_max, (unsigned long long)self->heap_max);
	ASSERT_NE(self->rng.x, 0);

	uint64_t fixed[] = { 0,
			     1,
			     4095,
			     4096,
			     4097,
			     32 * MIB - 1,
			     32 * MIB,
			     32 * MIB + 1,
			     32 * MIB + 4096,
			     1ull << 32,
			     1ull << 50,
			     1ull << 62,
			     1ull << 63,
			     UINT64_MAX - 4095,
			     UINT64_MAX - 1,
			     UINT64_MAX };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		self->sizes[self->n++] = fixed[i];
	/* Each limit, a byte and a page either side (the heap's at 4 KiB too). */
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		uint64_t l = limits[i];

		if (l == UINT64_MAX)
			continue;
		self->sizes[self->n++] = l - 4096;
		self->sizes[self->n++] = l - 1;
		self->sizes[self->n++] = l;
		self->sizes[self->n++] = l + 1;
		self->sizes[self->n++] = (l + 4096) & ~4095ull;
	}
	for (int i = 0; i < RANDOM_SIZES; i++)
		self->sizes[self->n++] = rng_size(&self->rng);
}

FIXTURE_TEARDOWN(sizes)
{
	VK_TEST_SESSION_END(self->s);
}

/* Writes the first and last byte through a mapping and reads them back. */
static int touch(struct llmem_buffer *b, uint64_t size)
{
	volatile uint8_t *p;
	int ret = llmem_buffer_map(b, (void **)&p);

	if (ret)
		return ret;
	p[size - 1] = 0xa5;
	p[0] = 0x5a;
	ret = p[0] == 0x5a && (size == 1 || p[size - 1] == 0xa5) ? 0 : -EIO;
	llmem_buffer_unmap(b);
	return ret;
}

/*
 * Page sizes: not a multiple of 4096 is -EINVAL, more than any type's one
 * allocation holds is -EINVAL; the rest make a memory whose first page holds
 * a mapped 16-byte buffer.
 */
TEST_F(sizes, page_size)
{
	for (int i = 0; i < 2 * self->n; i++) {
		/* Each size as it is, then rounded down to a multiple of 4096. */
		uint64_t ps = i < self->n ? self->sizes[i] : self->sizes[i - self->n] & ~4095ull;
		struct llmem_memory_create_info ci = { .flags = FLAGS, .page_size = ps };
		struct llmem_buffer_create_info bci = { .size = 16 };
		struct llmem_memory_info mi;
		struct llmem_memory *m;
		struct llmem_buffer *b;
		int want = ps % 4096 || ps > self->alloc_max ? -EINVAL : 0;

		mark_last_error();
		ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), want)
		TH_LOG("page size %llu: %s", (unsigned long long)ps, llmem_last_error());
		if (want) {
			EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE);
			continue;
		}
		ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
		EXPECT_EQ(mi.max_allocation_size, self->type_max[mi.memory_type_index]);
		EXPECT_GE(mi.max_allocation_size, ps ? ps : 32 * MIB);
		ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0)
		TH_LOG("page size %llu: %s", (unsigned long long)ps, llmem_last_error());
		EXPECT_EQ(touch(b, 16), 0);
		llmem_buffer_destroy(b);
		EXPECT_EQ(llmem_memory_destroy(m), 0);
	}
}

/* llmem_memory_add_page(): -EINVAL for 0 or a size not a multiple of 4096,
 * -ENOMEM above the memory's largest allocation; else a mappable page. */
TEST_F(sizes, add_page)
{
	struct llmem_memory_create_info ci = { .flags = FLAGS, .page_size = MIB };
	struct llmem_memory *m;
	struct llmem_memory_info mi;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	for (int i = 0; i < 2 * self->n; i++) {
		uint64_t size = i < self->n ? self->sizes[i] : self->sizes[i - self->n] & ~4095ull;
		int want = !size || size % 4096				 ? -EINVAL
			   : size > self->type_max[mi.memory_type_index] ? -ENOMEM
									 : 0;
		uint32_t page;
		uint8_t *p;

		if (!want && size > 64 * MIB)
			continue; /* a kept page: only the refusals and small ones */
		mark_last_error();
		EXPECT_EQ(llmem_memory_add_page(m, size, &page), want)
		TH_LOG("page of %llu: %s", (unsigned long long)size, llmem_last_error());
		if (want) {
			EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE);
			continue;
		}
		ASSERT_EQ(llmem_memory_map_page(m, page, (void **)&p), 0);
		p[size - 1] = 1;
		EXPECT_EQ(llmem_memory_flush_page(m, page, size - 1, 1), 0);
		EXPECT_EQ(llmem_memory_flush_page(m, page, size, 1), -EINVAL);
		EXPECT_EQ(llmem_memory_flush_page(m, page, 1, UINT64_MAX - 1), -EINVAL);
		EXPECT_EQ(llmem_memory_invalidate_page(m, page, UINT64_MAX, 2), -EINVAL);
		/* LLMEM_WHOLE_SIZE: to the end, from any offset inside. */
		EXPECT_EQ(llmem_memory_flush_page(m, page, size, LLMEM_WHOLE_SIZE), 0);
		EXPECT_EQ(llmem_memory_flush_page(m, page, size + 1, LLMEM_WHOLE_SIZE), -EINVAL);
		EXPECT_EQ(llmem_memory_unmap_page(m, page), 0);
	}
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/*
 * Buffer sizes in 32 MiB pages: 0 is -EINVAL; above maxBufferSize or the
 * largest allocation, -ENOMEM; up to them a buffer (a page of its own past
 * 32 MiB) whose last byte is written through its mapping.  Within a page of
 * the limit the driver's rounding may make it -ENOMEM too.
 */
TEST_F(sizes, buffer_size)
{
	struct llmem_memory_create_info ci = {
		.flags = FLAGS,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
	};
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	uint64_t max;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	max = min_u64(self->type_max[mi.memory_type_index], self->buffer_max);
	for (int i = 0; i < self->n; i++) {
		uint64_t size = self->sizes[i];
		struct llmem_buffer_create_info bci = { .size = size };
		struct llmem_buffer *b = NULL;
		int ret, want;

		mark_last_error();
		ret = llmem_buffer_create(m, &bci, &b);
		want = !size ? -EINVAL : size > max ? -ENOMEM : 0;
		/* Within a page of the limit the driver's rounding may refuse it. */
		if (!want && ret == -ENOMEM && size > max - 4096)
			want = -ENOMEM;
		EXPECT_EQ(ret, want)
		TH_LOG("buffer of %llu: %s", (unsigned long long)size, llmem_last_error());
		if (ret) {
			EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE);
			EXPECT_EQ(b, NULL);
			continue;
		}
		EXPECT_EQ(touch(b, size), 0);
		llmem_buffer_destroy(b);
	}
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* Every power-of-two alignment up to 2^63 places a buffer (offset 0 of a
 * page is aligned to anything); any other alignment is -EINVAL. */
TEST_F(sizes, buffer_alignment)
{
	struct llmem_memory_create_info ci = { .flags = FLAGS, .page_size = MIB };
	struct llmem_buffer *first, *b;
	struct llmem_allocation a;
	struct llmem_memory *m;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	/* Offset 0 of the first page is taken: aligned ones need a fresh page. */
	ASSERT_EQ(llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = 16 }, &first),
		  0);
	for (int k = 0; k < 64; k++) {
		struct llmem_buffer_create_info bci = { .size = 16, .alignment = 1ull << k };

		ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0)
		TH_LOG("alignment 2^%d: %s", k, llmem_last_error());
		ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
		EXPECT_EQ(a.offset % bci.alignment, 0);
		EXPECT_EQ(touch(b, 16), 0);
		llmem_buffer_destroy(b);
	}
	for (int i = 0; i < self->n; i++) {
		uint64_t al = self->sizes[i];
		struct llmem_buffer_create_info bci = { .size = 16, .alignment = al };

		if (!(al & (al - 1)))
			continue;
		EXPECT_FAILS(llmem_buffer_create(m, &bci, &b), -EINVAL);
	}
	llmem_buffer_destroy(first);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/*
 * Sub-regions and the ranges of flush and invalidate: any [offset, +size)
 * outside the buffer is -EINVAL, whatever offset + size wraps to; inside,
 * sub-buffers at a page-aligned offset work.
 */
TEST_F(sizes, ranges)
{
	const uint64_t len = 4 * MIB;
	struct llmem_memory_create_info ci = { .flags = FLAGS, .page_size = 8 * MIB };
	struct llmem_buffer *parent, *sub;
	struct llmem_memory *m;
	void *p;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(
		llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = len }, &parent),
		0);
	ASSERT_EQ(llmem_buffer_map(parent, &p), 0);
	for (int i = 0; i < self->n; i++) {
		for (int j = 0; j < self->n; j += 3) {
			uint64_t off = self->sizes[i], size = self->sizes[j];
			bool inside = off <= len && size <= len - off;
			int ret, want;

			ret = llmem_buffer_create_sub(parent, off, size, NULL, &sub);
			want = size && inside ? 0 : -EINVAL;
			/* The device's alignment for a buffer is at most a page. */
			if (!want && ret == -EINVAL && off % 4096)
				want = -EINVAL;
			EXPECT_EQ(ret, want)
			TH_LOG("sub [%llu, +%llu): %s", (unsigned long long)off,
			       (unsigned long long)size, llmem_last_error());
			if (!ret)
				llmem_buffer_destroy(sub);
			/* LLMEM_WHOLE_SIZE syncs to the end from any offset inside. */
			if (size == LLMEM_WHOLE_SIZE)
				inside = off <= len;
			EXPECT_EQ(llmem_buffer_flush(parent, off, size), inside ? 0 : -EINVAL)
			TH_LOG("flush [%llu, +%llu)", (unsigned long long)off,
			       (unsigned long long)size);
			EXPECT_EQ(llmem_buffer_invalidate(parent, off, size), inside ? 0 : -EINVAL);
		}
	}
	EXPECT_EQ(llmem_buffer_unmap(parent), 0);
	llmem_buffer_destroy(parent);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/*
 * Image extents up to 2^32 - 1 on each axis, as Vulkan's format query
 * judges them: above maxExtent -ENOTSUP; above maxResourceSize or the
 * largest allocation -ENOMEM; the rest are made.
 */
TEST_F(sizes, image_extent)
{
	const uint32_t extents[] = { 1, 255, 4096, 16384, 16385, 65536, 1u << 31, UINT32_MAX };
	struct llmem_memory_create_info ci = {
		.flags = FLAGS,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
	};
	VkPhysicalDevice pd = llmem_session_vk_physical_device(self->s);
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	uint64_t max;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	max = self->type_max[mi.memory_type_index];
	for (int type = 0; type < 2; type++) {
		VkImageFormatProperties fp;
		VkImageType vk_type = type ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D;

		ASSERT_EQ(vkGetPhysicalDeviceImageFormatProperties(
				  pd, VK_FORMAT_R8G8B8A8_UINT, vk_type, VK_IMAGE_TILING_OPTIMAL,
				  VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
				  0, &fp),
			  VK_SUCCESS);
		for (size_t i = 0; i < sizeof(extents) / sizeof(extents[0]); i++) {
			for (size_t j = 0; j < sizeof(extents) / sizeof(extents[0]); j++) {
				uint32_t d = type ? extents[j] : 1, h = type ? 2 : extents[j];
				uint32_t w = extents[i];
				struct llmem_image_create_info ici = {
					.ndim = 4,
					.shape = { d, h, w, 4 },
					.usage =
						LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_TRANSFER_DST,
				};
				unsigned __int128 bytes = (unsigned __int128)d * h * w * 4;
				struct llmem_image *img;
				int want = 0, ret;

				if (d > fp.maxExtent.depth || h > fp.maxExtent.height ||
				    w > fp.maxExtent.width)
					want = -ENOTSUP;
				else if (bytes > fp.maxResourceSize || bytes > max)
					want = -ENOMEM;
				mark_last_error();
				ret = llmem_image_create(m, &ici, &img);
				/* The driver's padding may take a fitting image over. */
				if (!want && ret == -ENOMEM && bytes > max / 2)
					want = -ENOMEM;
				EXPECT_EQ(ret, want)
				TH_LOG("image %ux%ux%u: %s", d, h, w, llmem_last_error());
				if (!ret)
					llmem_image_destroy(img);
				else
					EXPECT_STRNE(llmem_last_error(), MARK_MESSAGE);
			}
		}
	}
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

TEST_HARNESS_MAIN
