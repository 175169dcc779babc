// SPDX-License-Identifier: MIT
/*
 * Linear images mapped by the host: texels written through the mapping are
 * what a device copy reads, a device copy's texels are what the mapping
 * shows, row by row at the driver's pitch; optimal images refuse the map.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define H 17
#define W 23
#define C 4

FIXTURE(image_map)
{
	struct llmem_session *s;
	struct llmem_memory *host;
	struct llmem_image *img;
};

FIXTURE_SETUP(image_map)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.page_size = 4ull << 20,
		.name = "host",
	};
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { H, W, C },
		.tiling = LLMEM_TILING_LINEAR,
		.name = "linear",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->host), 0);
	ASSERT_EQ(llmem_image_create(self->host, &ci, &self->img), 0);
}

FIXTURE_TEARDOWN(image_map)
{
	llmem_image_destroy(self->img);
	EXPECT_EQ(llmem_memory_destroy(self->host), 0);
	VK_TEST_SESSION_END(self->s);
}

static uint8_t texel(int y, int x, int c, int seed)
{
	return (uint8_t)(y * 31 + x * 7 + c * 3 + seed);
}

/* Host writes through the mapping, at its pitch, reach a device copy. */
TEST_F(image_map, host_to_device)
{
	struct llmem_image_mapping map;
	uint8_t out[H * W * C];

	EXPECT_EQ(llmem_image_tiling(self->img), LLMEM_TILING_LINEAR);
	ASSERT_EQ(llmem_image_map(self->img, &map), 0);
	EXPECT_GE(map.row_pitch, (uint64_t)W * C);
	EXPECT_EQ(map.slice_pitch, map.row_pitch * H);
	EXPECT_GE(map.size, map.row_pitch * (H - 1) + W * C);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < C; c++)
				((uint8_t *)map.data)[y * map.row_pitch + x * C + c] =
					texel(y, x, c, 1);
	ASSERT_EQ(llmem_image_unmap(self->img), 0);
	ASSERT_EQ(llmem_image_download(self->img, out, sizeof(out)), 0);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < C; c++)
				ASSERT_EQ(out[(y * W + x) * C + c], texel(y, x, c, 1));
}

/* A device copy's texels are what the mapping shows. */
TEST_F(image_map, device_to_host)
{
	struct llmem_image_mapping map;
	uint8_t in[H * W * C];

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			for (int c = 0; c < C; c++)
				in[(y * W + x) * C + c] = texel(y, x, c, 5);
	ASSERT_EQ(llmem_image_upload(self->img, in, sizeof(in)), 0);
	ASSERT_EQ(llmem_image_map(self->img, &map), 0);
	for (int y = 0; y < H; y++)
		ASSERT_EQ(memcmp((uint8_t *)map.data + y * map.row_pitch, in + y * W * C, W * C),
			  0);
	ASSERT_EQ(llmem_image_unmap(self->img), 0);
}

/* Maps nest and share the page's one mapping; each needs its unmap. */
TEST_F(image_map, nested)
{
	struct llmem_image_mapping a, b;

	ASSERT_EQ(llmem_image_map(self->img, &a), 0);
	ASSERT_EQ(llmem_image_map(self->img, &b), 0);
	EXPECT_EQ(a.data, b.data);
	EXPECT_EQ(a.row_pitch, b.row_pitch);
	EXPECT_EQ(llmem_image_unmap(self->img), 0);
	EXPECT_EQ(llmem_image_unmap(self->img), 0);
	EXPECT_FAILS(llmem_image_unmap(self->img), -EINVAL);
}

/* An image made like a linear one is linear, and maps. */
TEST_F(image_map, like_keeps_tiling)
{
	struct llmem_image_mapping map;
	struct llmem_image *like;

	ASSERT_EQ(llmem_image_create_like_image(self->host, self->img, NULL, &like), 0);
	EXPECT_EQ(llmem_image_tiling(like), LLMEM_TILING_LINEAR);
	ASSERT_EQ(llmem_image_map(like, &map), 0);
	EXPECT_EQ(llmem_image_unmap(like), 0);
	llmem_image_destroy(like);
}

/*
 * Optimal tiling cannot be mapped, whatever memory holds the image.  The image
 * is made in device memory: NVIDIA's driver refuses optimal images in host
 * memory (-EOPNOTSUPP).  Bad arguments are refused.
 */
TEST_F(image_map, refused)
{
	struct llmem_memory_create_info mci = { .page_size = 4ull << 20 };
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 8, 8 } };
	struct llmem_image_mapping map;
	struct llmem_image *optimal;
	struct llmem_memory *dev;

	ASSERT_EQ(llmem_memory_create(self->s, &mci, &dev), 0);
	ASSERT_EQ(llmem_image_create(dev, &ci, &optimal), 0);
	EXPECT_EQ(llmem_image_tiling(optimal), LLMEM_TILING_OPTIMAL);
	EXPECT_FAILS(llmem_image_map(optimal, &map), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "optimal tiling"), NULL);
	EXPECT_FAILS(llmem_image_unmap(optimal), -EINVAL);
	llmem_image_destroy(optimal);
	EXPECT_EQ(llmem_memory_destroy(dev), 0);
	EXPECT_FAILS(llmem_image_map(NULL, &map), -EINVAL);
	EXPECT_FAILS(llmem_image_map(self->img, NULL), -EINVAL);
	EXPECT_FAILS(llmem_image_unmap(NULL), -EINVAL);
	ci.tiling = 2;
	EXPECT_FAILS(llmem_image_create(self->host, &ci, &optimal), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "tiling"), NULL);
}

TEST_HARNESS_MAIN
