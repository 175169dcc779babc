// SPDX-License-Identifier: MIT
/*
 * Every bad input the core API names (zero sizes, too many dimensions,
 * channels above 4, formats the device lacks for a usage, flags no memory
 * type has, NULL handles) returns its documented errno, leaves a message of
 * its own in llmem_last_error(), and leaves nothing behind: no object, no
 * page, no leak (LeakSanitizer runs at teardown under -Db_sanitize=address).
 *
 * Mapping memory the host cannot see (-EPERM) needs a memory type without
 * HOST_VISIBLE, which lavapipe does not have: tests/gpu/device_memory_test.c
 * checks it on a real GPU.
 */
#include <stdlib.h>

#include <llmem/vulkan.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(errors)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(errors)
{
	struct llmem_memory_create_info ci = {
		.page_size = 1ull << 20,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.name = "errors",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
}

/* Nothing any failure made is left in the memory (empty pages go at once). */
FIXTURE_TEARDOWN(errors)
{
	struct llmem_memory_info mi;

	EXPECT_EQ(llmem_memory_get_info(self->m, &mi), 0);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(mi.page_count, 0);
	EXPECT_EQ(mi.bytes_in_use, 0);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* Zero sizes: buffers, sub-regions, image extents and host data. */
TEST_F(errors, zero_size)
{
	struct llmem_buffer_create_info bci = { .size = 0 };
	struct llmem_image_create_info ici = { .ndim = 2, .shape = { 4, 0 } };
	struct llmem_buffer *b = (void *)1, *parent, *sub = (void *)1;
	struct llmem_image *img = (void *)1;
	uint8_t data[16] = { 0 };

	EXPECT_FAILS(llmem_buffer_create(self->m, &bci, &b), -EINVAL);
	EXPECT_EQ(b, NULL);
	EXPECT_FAILS(llmem_buffer_create_from_host(self->m, NULL, data, 0, &b), -EINVAL);
	EXPECT_FAILS(llmem_image_create(self->m, &ici, &img), -EINVAL);
	EXPECT_EQ(img, NULL);
	for (uint32_t d = 0; d < 4; d++) {
		ici = (struct llmem_image_create_info){ .ndim = 4, .shape = { 2, 2, 2, 2 } };
		ici.shape[d] = 0;
		EXPECT_FAILS(llmem_image_create(self->m, &ici, &img), -EINVAL);
	}

	bci.size = 4096;
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &parent), 0);
	EXPECT_FAILS(llmem_buffer_create_sub(parent, 0, 0, NULL, &sub), -EINVAL);
	EXPECT_EQ(sub, NULL);
	llmem_buffer_destroy(parent);
}

/* More than four dimensions, or none. */
TEST_F(errors, dimensions)
{
	struct llmem_image_create_info ci = { .ndim = 5, .shape = { 2, 2, 2, 2 } };
	struct llmem_image *img = (void *)1;
	uint8_t data[16] = { 0 };

	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	EXPECT_EQ(img, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "dimensions"), NULL);
	ci.ndim = UINT32_MAX;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	ci.ndim = 0;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	ci.ndim = 5;
	EXPECT_FAILS(llmem_image_create_from_host(self->m, &ci, data, sizeof(data), &img), -EINVAL);
}

/* Channels are the last of three or four dimensions, 1 to 4 of them. */
TEST_F(errors, channels_above_four)
{
	struct llmem_image_create_info c3 = { .ndim = 3, .shape = { 4, 4, 5 } };
	struct llmem_image_create_info c4 = { .ndim = 4, .shape = { 2, 4, 4, 5 } };
	struct llmem_image *img = (void *)1;

	EXPECT_FAILS(llmem_image_create(self->m, &c3, &img), -EINVAL);
	EXPECT_EQ(img, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "channels"), NULL);
	EXPECT_FAILS(llmem_image_create(self->m, &c4, &img), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "channels"), NULL);
	c3.shape[2] = UINT32_MAX;
	EXPECT_FAILS(llmem_image_create(self->m, &c3, &img), -EINVAL);
}

/* Unknown channel types and usage bits. */
TEST_F(errors, unknown_type_and_usage)
{
	struct llmem_image_create_info ici = { .ndim = 2,
					       .shape = { 4, 4 },
					       .channel_type = LLMEM_CHANNEL_SRGB8 + 1 };
	struct llmem_buffer_create_info bci = { .size = 16, .usage = 1u << 20 };
	struct llmem_image *img;
	struct llmem_buffer *b;

	EXPECT_FAILS(llmem_image_create(self->m, &ici, &img), -EINVAL);
	ici.channel_type = 0;
	ici.usage = 1u << 9;
	EXPECT_FAILS(llmem_image_create(self->m, &ici, &img), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create(self->m, &bci, &b), -EINVAL);
}

/*
 * A format the device lacks for the usage is -ENOTSUP.  Three-channel
 * integer formats as storage images are the usual gap; the first one this
 * device lacks is used.
 */
TEST_F(errors, unsupported_format_for_usage)
{
	static const struct {
		uint32_t type;
		VkFormat format;
	} candidates[] = {
		{ LLMEM_CHANNEL_U8, VK_FORMAT_R8G8B8_UINT },
		{ LLMEM_CHANNEL_I8, VK_FORMAT_R8G8B8_SINT },
		{ LLMEM_CHANNEL_U16, VK_FORMAT_R16G16B16_UINT },
		{ LLMEM_CHANNEL_I16, VK_FORMAT_R16G16B16_SINT },
		{ LLMEM_CHANNEL_F16, VK_FORMAT_R16G16B16_SFLOAT },
		{ LLMEM_CHANNEL_U32, VK_FORMAT_R32G32B32_UINT },
		{ LLMEM_CHANNEL_F32, VK_FORMAT_R32G32B32_SFLOAT },
	};
	VkPhysicalDevice pd = llmem_session_vk_physical_device(self->s);
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { 8, 8, 3 },
		.usage = LLMEM_IMAGE_STORAGE,
	};
	struct llmem_image *img = (void *)1;
	VkImageFormatProperties fp;
	size_t i;

	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (vkGetPhysicalDeviceImageFormatProperties(
			    pd, candidates[i].format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
			    VK_IMAGE_USAGE_STORAGE_BIT, 0, &fp) != VK_SUCCESS)
			break;
	ASSERT_LT(i, sizeof(candidates) / sizeof(candidates[0]))
	TH_LOG("this device has every three-channel storage format");
	ci.channel_type = candidates[i].type;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -ENOTSUP);
	EXPECT_EQ(img, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "format"), NULL);
}

/*
 * Flags no memory type has: HOST_COHERENT alone is not a combination
 * Vulkan allows a type to have, so it exists on no device exactly.  Bits
 * outside the four flags are -EINVAL.
 */
TEST_F(errors, flags_no_memory_type_has)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_COHERENT,
		.options = LLMEM_MEMORY_EXACT_MATCH,
	};
	struct llmem_memory *m = (void *)1;

	EXPECT_FAILS(llmem_memory_create(self->s, &ci, &m), -ENOTSUP);
	EXPECT_EQ(m, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "0x4"), NULL);
	ci.flags = LLMEM_MEMORY_HOST_CACHED;
	EXPECT_FAILS(llmem_memory_create(self->s, &ci, &m), -ENOTSUP);
	ci.flags = 1u << 4;
	ci.options = 0;
	EXPECT_FAILS(llmem_memory_create(self->s, &ci, &m), -EINVAL);
	ci.flags = 0;
	ci.options = 1u << 1;
	EXPECT_FAILS(llmem_memory_create(self->s, &ci, &m), -EINVAL);
	ci.options = 0;
	ci.page_size = 4097;
	EXPECT_FAILS(llmem_memory_create(self->s, &ci, &m), -EINVAL);
}

/* NULL sessions, memories and out pointers. */
TEST_F(errors, null_session_and_memory)
{
	struct llmem_session_info si;
	struct llmem_memory_info mi;
	struct llmem_page_stats ps;
	struct llmem_memory *m;
	uint32_t page;
	int fd;

	EXPECT_FAILS(llmem_session_create(NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_session_get_info(NULL, &si), -EINVAL);
	EXPECT_FAILS(llmem_session_get_info(self->s, NULL), -EINVAL);
	EXPECT_FAILS((int)llmem_session_validation_messages(NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_create(NULL, NULL, &m), -EINVAL);
	EXPECT_FAILS(llmem_memory_create(self->s, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_get_info(NULL, &mi), -EINVAL);
	EXPECT_FAILS(llmem_memory_get_info(self->m, NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_page_mappable(NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_memory_list_objects(NULL, NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_memory_list_objects(self->m, NULL, 1), -EINVAL);
	EXPECT_FAILS(llmem_memory_get_page_stats(NULL, LLMEM_ALL_PAGES, &ps), -EINVAL);
	EXPECT_FAILS(llmem_memory_get_page_stats(self->m, LLMEM_ALL_PAGES, NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_dump_json(NULL, stdout), -EINVAL);
	EXPECT_FAILS(llmem_memory_dump_json(self->m, NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_export_page(NULL, 0, &fd), -EINVAL);
	EXPECT_FAILS(llmem_memory_import_dmabuf(NULL, 0, 0, &page), -EINVAL);
	/* No page yet: an index is -ENOENT, not a crash. */
	EXPECT_FAILS(llmem_memory_page_mappable(self->m, 0), -ENOENT);
	EXPECT_FAILS(llmem_memory_get_page_stats(self->m, 0, &ps), -ENOENT);
	/* Destroying NULL is a no-op. */
	EXPECT_EQ(llmem_session_destroy(NULL), 0);
	EXPECT_EQ(llmem_memory_destroy(NULL), 0);
}

/* NULL buffers and out pointers. */
TEST_F(errors, null_buffer)
{
	struct llmem_buffer_create_info ci = { .size = 64 };
	struct llmem_buffer *b, *out = (void *)1;
	struct llmem_allocation a;
	uint8_t data[64] = { 0 };
	void *p;

	ASSERT_EQ(llmem_buffer_create(self->m, &ci, &b), 0);
	EXPECT_FAILS(llmem_buffer_create(NULL, &ci, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create(self->m, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create(self->m, &ci, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_from_host(NULL, NULL, data, 64, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_from_host(self->m, NULL, NULL, 64, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_from_host(self->m, NULL, data, 64, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_like_buffer(self->m, NULL, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_like_buffer(NULL, b, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_like_image(self->m, NULL, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_sub(NULL, 0, 16, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_buffer_create_sub(b, 0, 16, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_get_allocation(NULL, &a), -EINVAL);
	EXPECT_FAILS(llmem_buffer_get_allocation(b, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_map(NULL, &p), -EINVAL);
	EXPECT_FAILS(llmem_buffer_map(b, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_unmap(NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_flush(NULL, 0, 1), -EINVAL);
	EXPECT_FAILS(llmem_buffer_invalidate(NULL, 0, 1), -EINVAL);
	EXPECT_FAILS(llmem_buffer_copy(NULL, 0, b, 0, 1), -EINVAL);
	EXPECT_FAILS(llmem_buffer_copy(b, 0, NULL, 0, 1), -EINVAL);
	EXPECT_EQ(llmem_buffer_size(NULL), 0);
	EXPECT_EQ(llmem_buffer_memory(NULL), NULL);
	llmem_buffer_destroy(NULL);
	llmem_buffer_destroy(b);
}

/* NULL images, views, data and out pointers. */
TEST_F(errors, null_image)
{
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 4, 4 } };
	struct llmem_image_view_create_info vi;
	struct llmem_image *img, *out = (void *)1;
	struct llmem_image_view *v = (void *)1;
	struct llmem_allocation a;
	struct llmem_buffer *b;
	uint8_t data[16] = { 0 };

	ASSERT_EQ(llmem_image_create(self->m, &ci, &img), 0);
	ASSERT_EQ(llmem_buffer_create_like_image(self->m, img, NULL, &b), 0);
	EXPECT_FAILS(llmem_image_create(NULL, &ci, &out), -EINVAL);
	EXPECT_FAILS(llmem_image_create(self->m, NULL, &out), -EINVAL);
	EXPECT_FAILS(llmem_image_create(self->m, &ci, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_create_from_host(NULL, &ci, data, 16, &out), -EINVAL);
	EXPECT_FAILS(llmem_image_create_from_host(self->m, &ci, NULL, 16, &out), -EINVAL);
	EXPECT_FAILS(llmem_image_create_from_host(self->m, &ci, data, 15, &out), -EINVAL);
	EXPECT_FAILS(llmem_image_get_allocation(NULL, &a), -EINVAL);
	EXPECT_FAILS(llmem_image_get_allocation(img, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_upload(NULL, data, 16), -EINVAL);
	EXPECT_FAILS(llmem_image_upload(img, NULL, 16), -EINVAL);
	EXPECT_FAILS(llmem_image_download(NULL, data, 16), -EINVAL);
	EXPECT_FAILS(llmem_image_download(img, NULL, 16), -EINVAL);
	EXPECT_FAILS(llmem_image_copy_from_buffer(NULL, b), -EINVAL);
	EXPECT_FAILS(llmem_image_copy_from_buffer(img, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_copy_to_buffer(NULL, b), -EINVAL);
	EXPECT_FAILS(llmem_image_copy_to_buffer(img, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_view_create(NULL, NULL, &v), -EINVAL);
	EXPECT_FAILS(llmem_image_view_create(img, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_view_get_info(NULL, &vi), -EINVAL);
	EXPECT_EQ(llmem_image_size(NULL), 0);
	EXPECT_EQ(llmem_image_memory(NULL), NULL);
	llmem_image_view_destroy(NULL);
	llmem_image_destroy(NULL);
	llmem_buffer_destroy(b);
	llmem_image_destroy(img);
}

TEST_HARNESS_MAIN
