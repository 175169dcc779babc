// SPDX-License-Identifier: MIT
/*
 * Images: Lluvia's shapes, every channel type, tracked layouts, round trips
 * through buffers and the staging path, and views with their samplers.
 */
#include <stdlib.h>

#include <vulkan/vulkan.h>

#include <llmem/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(image)
{
	struct llmem_session *s;
	struct llmem_memory *dev;
	struct llmem_memory *host;
};

FIXTURE_SETUP(image)
{
	struct llmem_memory_create_info dci = { .page_size = 4ull << 20, .name = "device" };
	struct llmem_memory_create_info hci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 4ull << 20,
		.name = "host",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &dci, &self->dev), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &hci, &self->host), 0);
}

FIXTURE_TEARDOWN(image)
{
	EXPECT_EQ(llmem_memory_destroy(self->dev), 0);
	EXPECT_EQ(llmem_memory_destroy(self->host), 0);
	VK_TEST_SESSION_END(self->s);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

/* Lluvia's shapes: width; height×width; h×w×channels; depth×h×w×channels. */
TEST_F(image, shapes)
{
	static const struct {
		uint32_t ndim, shape[4], w, h, d, c;
	} cases[] = {
		{ 1, { 40 }, 40, 1, 1, 1 },
		{ 2, { 30, 40 }, 40, 30, 1, 1 },
		{ 3, { 30, 40, 2 }, 40, 30, 1, 2 },
		{ 3, { 30, 40, 4 }, 40, 30, 1, 4 },
		{ 4, { 5, 30, 40, 4 }, 40, 30, 5, 4 },
		{ 4, { 1, 30, 40, 1 }, 40, 30, 1, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct llmem_image_create_info ci = { .ndim = cases[i].ndim };
		struct llmem_image *img;

		memcpy(ci.shape, cases[i].shape, sizeof(ci.shape));
		ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
		EXPECT_EQ(llmem_image_width(img), cases[i].w);
		EXPECT_EQ(llmem_image_height(img), cases[i].h);
		EXPECT_EQ(llmem_image_depth(img), cases[i].d);
		EXPECT_EQ(llmem_image_channels(img), cases[i].c);
		EXPECT_EQ(llmem_image_channel_type(img), LLMEM_CHANNEL_U8);
		EXPECT_EQ(llmem_image_usage(img), LLMEM_IMAGE_DEFAULT_USAGE);
		EXPECT_EQ(llmem_image_size(img),
			  (uint64_t)cases[i].w * cases[i].h * cases[i].d * cases[i].c);
		EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
		EXPECT_EQ(llmem_image_memory(img), self->dev);
		llmem_image_destroy(img);
	}
}

/* Each channel type picks its format and keeps its bytes through a round trip. */
TEST_F(image, channel_types_round_trip)
{
	static const uint32_t formats[] = {
		VK_FORMAT_R8G8B8A8_UINT,       VK_FORMAT_R8G8B8A8_SINT,
		VK_FORMAT_R16G16B16A16_UINT,   VK_FORMAT_R16G16B16A16_SINT,
		VK_FORMAT_R32G32B32A32_UINT,   VK_FORMAT_R32G32B32A32_SINT,
		VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
	};

	for (uint32_t t = LLMEM_CHANNEL_U8; t <= LLMEM_CHANNEL_F32; t++) {
		struct llmem_image_create_info ci = {
			.ndim = 3,
			.shape = { 17, 23, 4 },
			.channel_type = t,
		};
		struct llmem_image *img;
		uint8_t *in, *out;
		uint64_t size;

		ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
		EXPECT_EQ(llmem_image_format(img), formats[t]);
		size = llmem_image_size(img);
		in = malloc(size);
		out = calloc(1, size);
		ASSERT_NE(in, NULL);
		ASSERT_NE(out, NULL);
		/* Stay clear of float NaNs, whose bits a copy need not keep. */
		for (uint64_t i = 0; i < size; i++)
			in[i] = (uint8_t)(i % 61);
		ASSERT_EQ(llmem_image_upload(img, in, size), 0);
		EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
		ASSERT_EQ(llmem_image_download(img, out, size), 0);
		EXPECT_EQ(memcmp(in, out, size), 0);
		free(in);
		free(out);
		llmem_image_destroy(img);
	}
}

/* 1D and 3D images round-trip through mapped buffers the caller owns. */
TEST_F(image, buffer_round_trip_1d_3d)
{
	static const struct llmem_image_create_info cis[] = {
		{ .ndim = 1, .shape = { 1000 }, .channel_type = LLMEM_CHANNEL_U16 },
		{ .ndim = 4, .shape = { 6, 10, 12, 2 }, .channel_type = LLMEM_CHANNEL_F32 },
	};

	for (size_t k = 0; k < 2; k++) {
		struct llmem_buffer *up, *down;
		struct llmem_image *img;
		uint8_t *pu, *pd;
		uint64_t size;

		ASSERT_EQ(llmem_image_create(self->dev, &cis[k], &img), 0);
		size = llmem_image_size(img);
		ASSERT_EQ(llmem_buffer_create_like_image(self->host, img, NULL, &up), 0);
		ASSERT_EQ(llmem_buffer_create_like_image(self->host, img, NULL, &down), 0);
		EXPECT_EQ(llmem_buffer_size(up), size);
		ASSERT_EQ(llmem_buffer_map(up, (void **)&pu), 0);
		ASSERT_EQ(llmem_buffer_map(down, (void **)&pd), 0);
		for (uint64_t i = 0; i < size; i++)
			pu[i] = (uint8_t)(i % 59);
		memset(pd, 0, size);
		ASSERT_EQ(llmem_buffer_flush(up, 0, LLMEM_WHOLE_SIZE), 0);
		ASSERT_EQ(llmem_image_copy_from_buffer(img, up), 0);
		ASSERT_EQ(llmem_image_copy_to_buffer(img, down), 0);
		ASSERT_EQ(llmem_buffer_invalidate(down, 0, LLMEM_WHOLE_SIZE), 0);
		EXPECT_EQ(memcmp(pu, pd, size), 0);
		EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
		llmem_buffer_destroy(down);
		llmem_buffer_destroy(up);
		llmem_image_destroy(img);
	}
}

/* From host data: the texels are in the image; the size must match the shape. */
TEST_F(image, create_from_host)
{
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 64, 48 }, .name = "gray" };
	uint8_t in[64 * 48], out[64 * 48];
	struct llmem_object_info obj;
	struct llmem_image *img;

	fill(in, sizeof(in), 5);
	EXPECT_EQ(llmem_image_create_from_host(self->dev, &ci, in, sizeof(in) - 1, &img), -EINVAL);
	EXPECT_EQ(llmem_memory_list_objects(self->dev, NULL, 0), 0);
	ASSERT_EQ(llmem_image_create_from_host(self->dev, &ci, in, sizeof(in), &img), 0);
	ASSERT_EQ(llmem_image_download(img, out, sizeof(out)), 0);
	EXPECT_EQ(memcmp(in, out, sizeof(in)), 0);
	ASSERT_EQ(llmem_memory_list_objects(self->dev, &obj, 1), 1);
	EXPECT_EQ(obj.kind, LLMEM_OBJECT_IMAGE);
	EXPECT_STREQ(obj.name, "gray");
	llmem_image_destroy(img);
}

/* Bad shapes, types and usages are -EINVAL, and leave nothing behind. */
TEST_F(image, bad_arguments)
{
	struct llmem_image_create_info ci = { .ndim = 0 };
	struct llmem_image *img = (void *)1;
	struct llmem_allocation a;
	uint8_t byte;

	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	EXPECT_EQ(img, NULL);
	ci.ndim = 5;
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "dimensions"), NULL);
	ci = (struct llmem_image_create_info){ .ndim = 3, .shape = { 4, 4, 5 } };
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "channels"), NULL);
	ci = (struct llmem_image_create_info){ .ndim = 2, .shape = { 4, 0 } };
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	ci = (struct llmem_image_create_info){ .ndim = 2,
					       .shape = { 4, 4 },
					       .channel_type = LLMEM_CHANNEL_SRGB8 + 1 };
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	ci = (struct llmem_image_create_info){ .ndim = 2, .shape = { 4, 4 }, .usage = 1u << 9 };
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -EINVAL);
	EXPECT_EQ(llmem_image_create(NULL, &ci, &img), -EINVAL);
	EXPECT_EQ(llmem_image_create(self->dev, NULL, &img), -EINVAL);
	EXPECT_EQ(llmem_image_create(self->dev, &ci, NULL), -EINVAL);
	EXPECT_EQ(llmem_image_create_from_host(self->dev, &ci, NULL, 16, &img), -EINVAL);
	EXPECT_EQ(llmem_image_upload(NULL, &byte, 1), -EINVAL);
	EXPECT_EQ(llmem_image_download(NULL, &byte, 1), -EINVAL);
	EXPECT_EQ(llmem_image_copy_from_buffer(NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_image_copy_to_buffer(NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_image_get_allocation(NULL, &a), -EINVAL);
	EXPECT_EQ(llmem_image_view_create(NULL, NULL, NULL), -EINVAL);
	EXPECT_EQ(llmem_image_size(NULL), 0);
	llmem_image_destroy(NULL);
	llmem_image_view_destroy(NULL);
	EXPECT_EQ(llmem_memory_list_objects(self->dev, NULL, 0), 0);
}

/* A format the device lacks for the usage is -ENOTSUP, not a Vulkan error. */
TEST_F(image, unsupported_format_for_usage)
{
	VkPhysicalDevice pd = llmem_session_vk_physical_device(self->s);
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { 8, 8, 3 },
		.usage = LLMEM_IMAGE_STORAGE,
	};
	VkImageFormatProperties fp;
	struct llmem_image *img;

	if (vkGetPhysicalDeviceImageFormatProperties(
		    pd, VK_FORMAT_R8G8B8_UINT, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
		    VK_IMAGE_USAGE_STORAGE_BIT, 0, &fp) == VK_SUCCESS)
		SKIP(return, "this device has three-channel storage images");
	EXPECT_EQ(llmem_image_create(self->dev, &ci, &img), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "format"), NULL);
	EXPECT_EQ(llmem_memory_list_objects(self->dev, NULL, 0), 0);
}

/* Transfers need their usage bits: -EPERM and the layout is left alone. */
TEST_F(image, transfer_needs_usage)
{
	struct llmem_image_create_info ci = {
		.ndim = 2,
		.shape = { 8, 8 },
		.usage = LLMEM_IMAGE_SAMPLED,
	};
	struct llmem_buffer_create_info bi = { .size = 64 };
	struct llmem_buffer *small, *b;
	struct llmem_image *img;
	uint8_t data[64];

	ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
	EXPECT_EQ(llmem_image_upload(img, data, sizeof(data)), -EPERM);
	EXPECT_EQ(llmem_image_download(img, data, sizeof(data)), -EPERM);
	EXPECT_EQ(llmem_image_upload(img, data, 63), -EINVAL);
	ASSERT_EQ(llmem_buffer_create(self->host, &bi, &b), 0);
	EXPECT_EQ(llmem_image_copy_from_buffer(img, b), -EPERM);
	EXPECT_EQ(llmem_image_copy_to_buffer(img, b), -EPERM);
	bi.size = 63;
	ASSERT_EQ(llmem_buffer_create(self->host, &bi, &small), 0);
	EXPECT_EQ(llmem_image_copy_to_buffer(img, small), -EINVAL);
	EXPECT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);
	llmem_buffer_destroy(small);
	llmem_buffer_destroy(b);
	llmem_image_destroy(img);
}

/* Buffers and images share pages without overlapping, granularity respected. */
TEST_F(image, shares_pages_with_buffers)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 16, 16, 4 } };
	struct llmem_buffer_create_info bi = { .size = 100 };
	struct llmem_session_info info;
	struct llmem_allocation ab, ai, ab2;
	struct llmem_buffer *b, *b2;
	struct llmem_image *img;
	uint64_t g;

	ASSERT_EQ(llmem_session_get_info(self->s, &info), 0);
	g = info.buffer_image_granularity;
	ASSERT_EQ(llmem_buffer_create(self->dev, &bi, &b), 0);
	ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
	ASSERT_EQ(llmem_buffer_create(self->dev, &bi, &b2), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &ab), 0);
	ASSERT_EQ(llmem_image_get_allocation(img, &ai), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b2, &ab2), 0);
	EXPECT_EQ(ab.page, ai.page);
	EXPECT_GE(ai.size, 16 * 16 * 4);
	/* Linear and optimal objects never share a granularity slot. */
	if (ai.offset > ab.offset)
		EXPECT_LE((ab.offset + ab.size - 1) / g, ai.offset / g - 1);
	if (ab2.offset > ai.offset)
		EXPECT_LE((ai.offset + ai.size - 1) / g, ab2.offset / g - 1);
	llmem_buffer_destroy(b2);
	llmem_image_destroy(img);
	llmem_buffer_destroy(b);
}

/* Views with every address mode and filter the format allows. */
TEST_F(image, views_and_samplers)
{
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { 8, 8, 4 },
		.channel_type = LLMEM_CHANNEL_F32,
	};
	struct llmem_image_view_create_info vi = { 0 }, got;
	struct llmem_image_view *v;
	struct llmem_image *img;

	ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
	ASSERT_EQ(llmem_image_view_create(img, NULL, &v), 0);
	EXPECT_NE(llmem_image_view_vk_view(v), VK_NULL_HANDLE);
	EXPECT_NE(llmem_image_view_vk_sampler(v), VK_NULL_HANDLE);
	ASSERT_EQ(llmem_image_view_get_info(v, &got), 0);
	EXPECT_EQ(got.filter, LLMEM_FILTER_NEAREST);
	EXPECT_EQ(got.address_mode, LLMEM_ADDRESS_REPEAT);
	EXPECT_EQ(got.unnormalized_coordinates, 0);
	llmem_image_view_destroy(v);

	for (uint32_t f = LLMEM_FILTER_NEAREST; f <= LLMEM_FILTER_LINEAR; f++) {
		for (uint32_t a = LLMEM_ADDRESS_REPEAT; a <= LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE;
		     a++) {
			int ret;

			vi = (struct llmem_image_view_create_info){ .filter = f,
								    .address_mode = a };
			ret = llmem_image_view_create(img, &vi, &v);
			if (ret == -ENOTSUP && a == LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE)
				continue;
			ASSERT_EQ(ret, 0);
			ASSERT_EQ(llmem_image_view_get_info(v, &got), 0);
			EXPECT_EQ(got.filter, f);
			EXPECT_EQ(got.address_mode, a);
			llmem_image_view_destroy(v);
		}
	}

	/* Texel coordinates with the clamping modes Vulkan allows for them. */
	vi = (struct llmem_image_view_create_info){
		.address_mode = LLMEM_ADDRESS_CLAMP_TO_EDGE,
		.unnormalized_coordinates = 1,
	};
	ASSERT_EQ(llmem_image_view_create(img, &vi, &v), 0);
	llmem_image_view_destroy(v);
	vi.address_mode = LLMEM_ADDRESS_CLAMP_TO_BORDER;
	vi.filter = LLMEM_FILTER_LINEAR;
	ASSERT_EQ(llmem_image_view_create(img, &vi, &v), 0);
	llmem_image_view_destroy(v);
	llmem_image_destroy(img);
}

/* View parameters Vulkan forbids are refused before Vulkan sees them. */
TEST_F(image, bad_views)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 8, 8, 4 } };
	struct llmem_image_view_create_info vi = {
		.address_mode = LLMEM_ADDRESS_REPEAT,
		.unnormalized_coordinates = 1,
	};
	struct llmem_image_view *v = (void *)1;
	struct llmem_image *img;

	ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
	EXPECT_EQ(llmem_image_view_create(img, &vi, &v), -EINVAL);
	EXPECT_EQ(v, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "clamp"), NULL);
	vi = (struct llmem_image_view_create_info){ .filter = 2 };
	EXPECT_EQ(llmem_image_view_create(img, &vi, &v), -EINVAL);
	vi = (struct llmem_image_view_create_info){ .address_mode = 5 };
	EXPECT_EQ(llmem_image_view_create(img, &vi, &v), -EINVAL);
	vi = (struct llmem_image_view_create_info){ .unnormalized_coordinates = 2 };
	EXPECT_EQ(llmem_image_view_create(img, &vi, &v), -EINVAL);
	/* Integer texels cannot be filtered linearly. */
	vi = (struct llmem_image_view_create_info){ .filter = LLMEM_FILTER_LINEAR };
	EXPECT_EQ(llmem_image_view_create(img, &vi, &v), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "linear"), NULL);
	llmem_image_destroy(img);
}

/* Images never used cost no submission and leave nothing behind. */
TEST_F(image, unused_images_need_no_submission)
{
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 8, 8 } };
	struct llmem_image *img[3];

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(llmem_image_create(self->dev, &ci, &img[i]), 0);
	/* Out of creation order, so that the pending list is reshuffled. */
	llmem_image_destroy(img[1]);
	llmem_image_destroy(img[0]);
	llmem_image_destroy(img[2]);
}

/* Many new images go to GENERAL with the first submission after them. */
TEST_F(image, many_new_images_then_one_upload)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 4, 4, 4 } };
	enum {
		COUNT = 150
	};
	struct llmem_image *img[COUNT];
	uint8_t in[64], out[64];

	fill(in, sizeof(in), 3);
	for (int i = 0; i < COUNT; i++)
		ASSERT_EQ(llmem_image_create(self->dev, &ci, &img[i]), 0);
	llmem_image_destroy(img[7]);
	ASSERT_EQ(llmem_image_upload(img[COUNT - 1], in, sizeof(in)), 0);
	for (int i = 0; i < COUNT; i += 37) {
		if (i == 7)
			continue;
		memset(out, 0, sizeof(out));
		ASSERT_EQ(llmem_image_upload(img[i], in, sizeof(in)), 0);
		ASSERT_EQ(llmem_image_download(img[i], out, sizeof(out)), 0);
		EXPECT_EQ(memcmp(in, out, sizeof(out)), 0);
	}
	for (int i = 0; i < COUNT; i++)
		if (i != 7)
			llmem_image_destroy(img[i]);
}

/*
 * The handle leaves in GENERAL on the device: work recorded by the caller
 * from GENERAL passes the validation layer's layout check at submission and
 * its clear is what the library reads back.
 */
TEST_F(image, handle_is_in_general_for_own_work)
{
	struct llmem_image_create_info ci = { .ndim = 3, .shape = { 4, 4, 4 } };
	VkDevice dev = llmem_session_vk_device(self->s);
	VkPhysicalDevice phys = llmem_session_vk_physical_device(self->s);
	VkQueueFamilyProperties qf[16];
	uint32_t n = 16, family = 0;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkQueue queue;
	struct llmem_image *img;
	VkImage vk;
	uint8_t out[64];

	/* The library's queue: the first family that computes (session.h). */
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, qf);
	while (family < n && !(qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT))
		family++;
	ASSERT_LT(family, n);
	vkGetDeviceQueue(dev, family, 0, &queue);
	ASSERT_EQ(vkCreateCommandPool(dev,
				      &(VkCommandPoolCreateInfo){
					      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					      .queueFamilyIndex = family,
				      },
				      NULL, &pool),
		  VK_SUCCESS);
	ASSERT_EQ(vkAllocateCommandBuffers(
			  dev,
			  &(VkCommandBufferAllocateInfo){
				  .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
				  .commandPool = pool,
				  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
				  .commandBufferCount = 1,
			  },
			  &cmd),
		  VK_SUCCESS);
	ASSERT_EQ(vkCreateFence(
			  dev, &(VkFenceCreateInfo){ .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO },
			  NULL, &fence),
		  VK_SUCCESS);

	ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
	vk = llmem_image_vk_image(img);
	ASSERT_NE(vk, VK_NULL_HANDLE);
	ASSERT_EQ(llmem_image_layout(img), VK_IMAGE_LAYOUT_GENERAL);

	ASSERT_EQ(vkBeginCommandBuffer(cmd,
				       &(VkCommandBufferBeginInfo){
					       .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
				       }),
		  VK_SUCCESS);
	vkCmdClearColorImage(cmd, vk, VK_IMAGE_LAYOUT_GENERAL,
			     &(VkClearColorValue){ .uint32 = { 1, 2, 3, 4 } }, 1,
			     &(VkImageSubresourceRange){ VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 });
	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
			     &(VkMemoryBarrier){
				     .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
				     .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT,
			     },
			     0, NULL, 0, NULL);
	ASSERT_EQ(vkEndCommandBuffer(cmd), VK_SUCCESS);
	ASSERT_EQ(vkQueueSubmit(queue, 1,
				&(VkSubmitInfo){
					.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
					.commandBufferCount = 1,
					.pCommandBuffers = &cmd,
				},
				fence),
		  VK_SUCCESS);
	ASSERT_EQ(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);

	ASSERT_EQ(llmem_image_download(img, out, sizeof(out)), 0);
	for (int i = 0; i < 64; i++)
		EXPECT_EQ(out[i], (uint8_t)(i % 4 + 1));
	vkDestroyFence(dev, fence, NULL);
	vkDestroyCommandPool(dev, pool, NULL);
	llmem_image_destroy(img);
}

TEST_HARNESS_MAIN
