// SPDX-License-Identifier: MIT
/*
 * Normalised and sRGB channel types, BGRA order, three channels as the
 * device's format properties decide, images made like others, fills with a
 * texel of the image's own type and copies from image to image.
 */
#include <math.h>
#include <stdlib.h>

#include <llmem/transfer.h>
#include <llmem/vulkan.h>
#include <vulkan/vulkan.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(fmt)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_queue *q;
};

FIXTURE_SETUP(fmt)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, NULL, &self->m), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
}

FIXTURE_TEARDOWN(fmt)
{
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

static struct llmem_image *make(struct llmem_memory *m, uint32_t h, uint32_t w, uint32_t c,
				uint32_t type, uint32_t order)
{
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { h, w, c },
		.channel_type = type,
		.channel_order = order,
	};
	struct llmem_image *img = NULL;

	if (llmem_image_create(m, &ci, &img)) {
		printf("# image: %s\n", llmem_last_error());
		fflush(stdout);
	}
	return img;
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 5));
}

/* Each normalised type and order picks its format and keeps its bytes. */
TEST_F(fmt, normalised_round_trip)
{
	static const struct {
		uint32_t type, order, format, texel;
	} cases[] = {
		{ LLMEM_CHANNEL_UNORM8, 0, VK_FORMAT_R8G8B8A8_UNORM, 4 },
		{ LLMEM_CHANNEL_SNORM8, 0, VK_FORMAT_R8G8B8A8_SNORM, 4 },
		{ LLMEM_CHANNEL_UNORM16, 0, VK_FORMAT_R16G16B16A16_UNORM, 8 },
		{ LLMEM_CHANNEL_SNORM16, 0, VK_FORMAT_R16G16B16A16_SNORM, 8 },
		{ LLMEM_CHANNEL_SRGB8, 0, VK_FORMAT_R8G8B8A8_SRGB, 4 },
		{ LLMEM_CHANNEL_UNORM8, LLMEM_ORDER_BGRA, VK_FORMAT_B8G8R8A8_UNORM, 4 },
		{ LLMEM_CHANNEL_SRGB8, LLMEM_ORDER_BGRA, VK_FORMAT_B8G8R8A8_SRGB, 4 },
		{ LLMEM_CHANNEL_U8, LLMEM_ORDER_BGRA, VK_FORMAT_B8G8R8A8_UINT, 4 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct llmem_image *img = make(self->m, 19, 21, 4, cases[i].type, cases[i].order);
		uint8_t *in, *out;
		uint64_t size;

		ASSERT_NE(img, NULL);
		EXPECT_EQ(llmem_image_format(img), cases[i].format);
		EXPECT_EQ(llmem_image_channel_type(img), cases[i].type);
		EXPECT_EQ(llmem_image_channel_order(img), cases[i].order);
		EXPECT_EQ(llmem_image_texel_size(img), cases[i].texel);
		size = llmem_image_size(img);
		EXPECT_EQ(size, 19ull * 21 * cases[i].texel);
		in = malloc(size);
		out = calloc(1, size);
		ASSERT_NE(in, NULL);
		ASSERT_NE(out, NULL);
		pattern(in, size, (unsigned)i);
		/* SNORM's -128 reads as -1, as -127 does: keep it out. */
		for (uint64_t k = 0; k < size; k++)
			if (in[k] == 0x80)
				in[k] = 0x81;
		ASSERT_EQ(llmem_image_upload(img, in, size), 0);
		ASSERT_EQ(llmem_image_download(img, out, size), 0);
		EXPECT_EQ(memcmp(in, out, size), 0);
		free(in);
		free(out);
		llmem_image_destroy(img);
	}
}

/* BGRA needs three or four 8-bit channels; unknown orders are refused. */
TEST_F(fmt, bad_orders)
{
	struct llmem_image_create_info ci = {
		.ndim = 3,
		.shape = { 4, 4, 2 },
		.channel_type = LLMEM_CHANNEL_UNORM8,
		.channel_order = LLMEM_ORDER_BGRA,
	};
	struct llmem_image *img;

	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "BGRA"), NULL);
	ci.shape[2] = 4;
	ci.channel_type = LLMEM_CHANNEL_UNORM16;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	ci.channel_type = LLMEM_CHANNEL_F32;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	ci.channel_type = LLMEM_CHANNEL_UNORM8;
	ci.channel_order = 2;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "order"), NULL);
	ci.channel_order = 0;
	ci.channel_type = LLMEM_CHANNEL_SRGB8 + 1;
	EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -EINVAL);
	EXPECT_EQ(llmem_memory_list_objects(self->m, NULL, 0), 0);
}

/*
 * Three channels exist exactly where the device has the format for the
 * usage; elsewhere creation says to use four.
 */
TEST_F(fmt, three_channels_follow_format_properties)
{
	static const struct {
		uint32_t type, order, format;
	} cases[] = {
		{ LLMEM_CHANNEL_U8, 0, VK_FORMAT_R8G8B8_UINT },
		{ LLMEM_CHANNEL_UNORM8, 0, VK_FORMAT_R8G8B8_UNORM },
		{ LLMEM_CHANNEL_SRGB8, LLMEM_ORDER_BGRA, VK_FORMAT_B8G8R8_SRGB },
		{ LLMEM_CHANNEL_F32, 0, VK_FORMAT_R32G32B32_SFLOAT },
	};
	static const uint32_t usages[] = { LLMEM_IMAGE_DEFAULT_USAGE,
					   LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_TRANSFER_DST |
						   LLMEM_IMAGE_SAMPLED };
	VkPhysicalDevice pd = llmem_session_vk_physical_device(self->s);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t u = 0; u < 2; u++) {
			struct llmem_image_create_info ci = {
				.ndim = 3,
				.shape = { 6, 10, 3 },
				.channel_type = cases[i].type,
				.channel_order = cases[i].order,
				.usage = usages[u],
			};
			VkImageFormatProperties fp;
			struct llmem_image *img;
			bool has =
				vkGetPhysicalDeviceImageFormatProperties(
					pd, cases[i].format, VK_IMAGE_TYPE_2D,
					VK_IMAGE_TILING_OPTIMAL, usages[u], 0, &fp) == VK_SUCCESS;
			uint8_t in[6 * 10 * 12], out[sizeof(in)];

			if (!has) {
				EXPECT_FAILS(llmem_image_create(self->m, &ci, &img), -ENOTSUP);
				EXPECT_NE(strstr(llmem_last_error(), "use 4 channels"), NULL);
				continue;
			}
			ASSERT_EQ(llmem_image_create(self->m, &ci, &img), 0);
			EXPECT_EQ(llmem_image_format(img), cases[i].format);
			EXPECT_EQ(llmem_image_channels(img), 3);
			pattern(in, llmem_image_size(img), 3);
			ASSERT_EQ(llmem_image_upload(img, in, llmem_image_size(img)), 0);
			ASSERT_EQ(llmem_image_download(img, out, llmem_image_size(img)), 0);
			EXPECT_EQ(memcmp(in, out, llmem_image_size(img)), 0);
			llmem_image_destroy(img);
		}
	}
	EXPECT_EQ(llmem_memory_list_objects(self->m, NULL, 0), 0);
}

static double srgb(double l)
{
	return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

/*
 * A colour clears a normalised image to the values Vulkan's conversion
 * gives, the device's whole-image clear and the library's clear of a box
 * agreeing; values outside the range are refused.
 */
TEST_F(fmt, clear_normalised)
{
	static const struct {
		uint32_t type, order;
		float color[4];
		uint8_t want[8];
	} cases[] = {
		{ LLMEM_CHANNEL_UNORM8, 0, { 0.5f, 1, 0, 0.25f }, { 128, 255, 0, 64 } },
		{ LLMEM_CHANNEL_UNORM8,
		  LLMEM_ORDER_BGRA,
		  { 1, 0.5f, 0, 0.25f },
		  { 0, 128, 255, 64 } },
		{ LLMEM_CHANNEL_SNORM8, 0, { -1, 1, 0, -0.5f }, { 0x81, 0x7f, 0, 0xc0 } },
		{ LLMEM_CHANNEL_UNORM16,
		  0,
		  { 1, 0, 0.5f, 1 },
		  { 0xff, 0xff, 0, 0, 0, 0x80, 0xff, 0xff } },
		{ LLMEM_CHANNEL_SNORM16,
		  0,
		  { -1, 0, 1, 0 },
		  { 0x01, 0x80, 0, 0, 0xff, 0x7f, 0, 0 } },
		{ LLMEM_CHANNEL_SRGB8, 0, { 0.25f, 1, 0, 0.25f }, { 0, 255, 0, 64 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct llmem_image *img = make(self->m, 8, 8, 4, cases[i].type, cases[i].order);
		struct llmem_image_region box = { { 2, 3, 0 }, { 4, 2, 0 } };
		union llmem_color c, bad;
		uint8_t want[8], out[8 * 8 * 8];
		uint32_t texel;

		ASSERT_NE(img, NULL);
		texel = llmem_image_texel_size(img);
		memcpy(want, cases[i].want, sizeof(want));
		if (cases[i].type == LLMEM_CHANNEL_SRGB8)
			want[0] = (uint8_t)floor(srgb(0.25) * 255 + 0.5);
		memcpy(c.f32, cases[i].color, sizeof(c.f32));
		ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, NULL, &c, NULL, NULL), 0);
		ASSERT_EQ(llmem_image_download(img, out, llmem_image_size(img)), 0);
		/*
		 * The device converts the floats itself and may round a step
		 * off (0.5 to 127 on NVIDIA, 128 on lavapipe).
		 */
		for (uint32_t k = 0; k < texel; k += texel / 4) {
			uint32_t got = 0, exp = 0, mask = texel / 4 == 2 ? 0xffff : 0xff;

			memcpy(&got, out + k, texel / 4);
			memcpy(&exp, want + k, texel / 4);
			EXPECT_TRUE(((got - exp) & mask) <= 1 || ((exp - got) & mask) <= 1)
			TH_LOG("case %zu channel byte %u: %#x, want %#x", i, k, got, exp);
		}
		/* The box by the library's own encoding: exact. */
		memset(c.f32, 0, sizeof(c.f32));
		ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, NULL, &c, NULL, NULL), 0);
		memcpy(c.f32, cases[i].color, sizeof(c.f32));
		ASSERT_EQ(llmem_enqueue_clear_image(self->q, img, &box, &c, NULL, NULL), 0);
		ASSERT_EQ(llmem_image_download(img, out, llmem_image_size(img)), 0);
		for (uint32_t y = 0; y < 8; y++) {
			for (uint32_t x = 0; x < 8; x++) {
				bool in = x >= 2 && x < 6 && y >= 3 && y < 5;
				const uint8_t *t = out + (y * 8 + x) * texel;

				for (uint32_t k = 0; k < texel; k++) {
					ASSERT_EQ(t[k], in ? want[k] : 0)
					TH_LOG("case %zu (%u,%u) byte %u", i, x, y, k);
				}
			}
		}
		bad = c;
		bad.f32[1] = cases[i].type == LLMEM_CHANNEL_SNORM8 ||
					     cases[i].type == LLMEM_CHANNEL_SNORM16
				     ? -1.5f
				     : -0.25f;
		EXPECT_FAILS(llmem_enqueue_clear_image(self->q, img, &box, &bad, NULL, NULL),
			     -EINVAL);
		bad.f32[1] = NAN;
		EXPECT_FAILS(llmem_enqueue_clear_image(self->q, img, NULL, &bad, NULL, NULL),
			     -EINVAL);
		llmem_image_destroy(img);
	}
}

/* A fill writes the texel's bits as given, whole or in a box; bad sizes fail. */
TEST_F(fmt, fill_with_own_type)
{
	struct llmem_image *img = make(self->m, 9, 7, 2, LLMEM_CHANNEL_F32, 0);
	struct llmem_image_region box = { { 1, 2, 0 }, { 3, 4, 0 } };
	const uint32_t nan_payload = 0x7fc01234, one = 0x3f800000;
	uint32_t texel[2] = { nan_payload, one }, zero[2] = { 0, 0 }, out[9 * 7 * 2];
	struct llmem_event *ev;

	ASSERT_NE(img, NULL);
	ASSERT_EQ(llmem_enqueue_fill_image(self->q, img, NULL, zero, 8, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_fill_image(self->q, img, &box, texel, 8, NULL, &ev), 0);
	ASSERT_EQ(llmem_event_wait(ev, UINT64_MAX), 0);
	llmem_event_release(ev);
	ASSERT_EQ(llmem_image_download(img, out, sizeof(out)), 0);
	for (uint32_t y = 0; y < 9; y++)
		for (uint32_t x = 0; x < 7; x++) {
			bool in = x >= 1 && x < 4 && y >= 2 && y < 6;

			ASSERT_EQ(out[(y * 7 + x) * 2], in ? nan_payload : 0);
			ASSERT_EQ(out[(y * 7 + x) * 2 + 1], in ? one : 0);
		}
	EXPECT_FAILS(llmem_enqueue_fill_image(self->q, img, NULL, texel, 4, NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "8-byte texels"), NULL);
	EXPECT_FAILS(llmem_enqueue_fill_image(self->q, img, NULL, NULL, 8, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_enqueue_fill_image(NULL, img, NULL, texel, 8, NULL, NULL), -EINVAL);
	box.origin[0] = 7;
	EXPECT_FAILS(llmem_enqueue_fill_image(self->q, img, &box, texel, 8, NULL, NULL), -EINVAL);
	llmem_image_destroy(img);
}

/* A texel index as 4 bytes, so that every texel of a copy is told apart. */
static void index_texels(uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		memcpy(p + 4 * i, &i, 4);
}

/* Whole copies and boxes, between compatible formats, with events and wait lists. */
TEST_F(fmt, copy_image)
{
	struct llmem_image *a = make(self->m, 16, 20, 4, LLMEM_CHANNEL_U8, 0);
	struct llmem_image *b = make(self->m, 16, 20, 4, LLMEM_CHANNEL_UNORM8, LLMEM_ORDER_BGRA);
	struct llmem_image *c = make(self->m, 10, 12, 1, LLMEM_CHANNEL_U32, 0);
	uint8_t in[16 * 20 * 4], out[sizeof(in)], small[10 * 12 * 4];
	struct llmem_image_copy box = {
		.src_origin = { 3, 5, 0 },
		.dst_origin = { 1, 2, 0 },
		.extent = { 8, 6, 0 },
	};
	struct llmem_event *e1, *e2;
	struct llmem_wait_list wl = { 1, &e1 };

	ASSERT_NE(a, NULL);
	ASSERT_NE(b, NULL);
	ASSERT_NE(c, NULL);
	index_texels(in, 16 * 20);
	ASSERT_EQ(llmem_image_upload(a, in, sizeof(in)), 0);
	ASSERT_EQ(llmem_enqueue_copy_image(self->q, a, b, NULL, NULL, &e1), 0);
	ASSERT_EQ(llmem_enqueue_copy_image(self->q, b, c, &box, &wl, &e2), 0);
	ASSERT_EQ(llmem_event_wait(e2, UINT64_MAX), 0);
	llmem_event_release(e1);
	llmem_event_release(e2);
	ASSERT_EQ(llmem_image_download(b, out, sizeof(out)), 0);
	EXPECT_EQ(memcmp(in, out, sizeof(in)), 0);
	memset(small, 0, sizeof(small));
	ASSERT_EQ(llmem_image_download(c, small, sizeof(small)), 0);
	for (uint32_t y = 0; y < 10; y++)
		for (uint32_t x = 0; x < 12; x++) {
			uint32_t v;
			bool inside = x >= 1 && x < 9 && y >= 2 && y < 8;

			memcpy(&v, small + 4 * (y * 12 + x), 4);
			if (inside)
				ASSERT_EQ(v, (y - 2 + 5) * 20 + (x - 1 + 3));
		}

	/* Within one image, boxes apart. */
	box = (struct llmem_image_copy){ { 0, 0, 0 }, { 10, 8, 0 }, { 10, 8, 0 } };
	ASSERT_EQ(llmem_enqueue_copy_image(self->q, a, a, &box, NULL, NULL), 0);
	ASSERT_EQ(llmem_image_download(a, out, sizeof(out)), 0);
	for (uint32_t y = 0; y < 16; y++)
		for (uint32_t x = 0; x < 20; x++) {
			uint32_t v, want = y * 20 + x;

			if (x >= 10 && y >= 8)
				want = (y - 8) * 20 + (x - 10);
			memcpy(&v, out + 4 * (y * 20 + x), 4);
			ASSERT_EQ(v, want);
		}
	box.dst_origin[0] = 5;
	box.dst_origin[1] = 4;
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, a, &box, NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "overlap"), NULL);

	/* Whole a does not fit c; a box past either edge; texel sizes differ. */
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, c, NULL, NULL, NULL), -EINVAL);
	box = (struct llmem_image_copy){ .src_origin = { 15, 0, 0 }, .extent = { 6, 1, 0 } };
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, b, &box, NULL, NULL), -EINVAL);
	box = (struct llmem_image_copy){ .dst_origin = { 0, 0, 1 }, .extent = { 1, 1, 1 } };
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, b, &box, NULL, NULL), -EINVAL);
	{
		struct llmem_image *d = make(self->m, 16, 20, 2, LLMEM_CHANNEL_U8, 0);

		ASSERT_NE(d, NULL);
		EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, d, NULL, NULL, NULL), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "texels of one size"), NULL);
		llmem_image_destroy(d);
	}
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, NULL, b, NULL, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, a, NULL, NULL, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_enqueue_copy_image(NULL, a, b, NULL, NULL, NULL), -EINVAL);
	llmem_image_destroy(c);
	llmem_image_destroy(b);
	llmem_image_destroy(a);
}

/* Copies need TRANSFER_SRC on the source and TRANSFER_DST on the destination. */
TEST_F(fmt, copy_image_needs_usage)
{
	struct llmem_image_create_info ci = { .ndim = 2, .shape = { 4, 4 } };
	struct llmem_image *full, *no_src, *no_dst;

	ASSERT_EQ(llmem_image_create(self->m, &ci, &full), 0);
	ci.usage = LLMEM_IMAGE_TRANSFER_DST | LLMEM_IMAGE_SAMPLED;
	ASSERT_EQ(llmem_image_create(self->m, &ci, &no_src), 0);
	ci.usage = LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_SAMPLED;
	ASSERT_EQ(llmem_image_create(self->m, &ci, &no_dst), 0);
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, no_src, full, NULL, NULL, NULL), -EPERM);
	EXPECT_FAILS(llmem_enqueue_copy_image(self->q, full, no_dst, NULL, NULL, NULL), -EPERM);
	EXPECT_EQ(llmem_enqueue_copy_image(self->q, no_dst, no_src, NULL, NULL, NULL), 0);
	llmem_image_destroy(no_dst);
	llmem_image_destroy(no_src);
	llmem_image_destroy(full);
}

/* Like another image: shape, types, order and usage; overrides; 1D. */
TEST_F(fmt, create_like_image)
{
	struct llmem_image_create_info ci = {
		.ndim = 4,
		.shape = { 3, 5, 7, 4 },
		.channel_type = LLMEM_CHANNEL_SRGB8,
		.channel_order = LLMEM_ORDER_BGRA,
		.usage = LLMEM_IMAGE_SAMPLED | LLMEM_IMAGE_TRANSFER_DST,
		.name = "src",
	};
	struct llmem_image_create_info over = { .usage = LLMEM_IMAGE_TRANSFER_SRC, .name = "o" };
	struct llmem_image_create_info line = { .ndim = 1,
						.shape = { 33 },
						.channel_type = LLMEM_CHANNEL_UNORM16 };
	struct llmem_image *like, *img, *img2, *l1, *l2, *none;
	struct llmem_object_info objs[5];

	ASSERT_EQ(llmem_image_create(self->m, &ci, &like), 0);
	ASSERT_EQ(llmem_image_create_like_image(self->m, like, NULL, &img), 0);
	EXPECT_EQ(llmem_image_depth(img), 3);
	EXPECT_EQ(llmem_image_height(img), 5);
	EXPECT_EQ(llmem_image_width(img), 7);
	EXPECT_EQ(llmem_image_channels(img), 4);
	EXPECT_EQ(llmem_image_format(img), VK_FORMAT_B8G8R8A8_SRGB);
	EXPECT_EQ(llmem_image_usage(img), ci.usage);
	ASSERT_EQ(llmem_image_create_like_image(self->m, like, &over, &img2), 0);
	EXPECT_EQ(llmem_image_usage(img2), LLMEM_IMAGE_TRANSFER_SRC);
	EXPECT_EQ(llmem_image_format(img2), VK_FORMAT_B8G8R8A8_SRGB);
	ASSERT_EQ(llmem_image_create(self->m, &line, &l1), 0);
	ASSERT_EQ(llmem_image_create_like_image(self->m, l1, NULL, &l2), 0);
	EXPECT_EQ(llmem_image_width(l2), 33);
	EXPECT_EQ(llmem_image_height(l2), 1);
	EXPECT_EQ(llmem_image_size(l2), 66);
	ASSERT_EQ(llmem_memory_list_objects(self->m, objs, 5), 5);
	EXPECT_STREQ(objs[1].name, "src");
	EXPECT_STREQ(objs[2].name, "o");
	EXPECT_FAILS(llmem_image_create_like_image(NULL, like, NULL, &none), -EINVAL);
	EXPECT_FAILS(llmem_image_create_like_image(self->m, NULL, NULL, &none), -EINVAL);
	EXPECT_FAILS(llmem_image_create_like_image(self->m, like, NULL, NULL), -EINVAL);
	over.usage = 1u << 12;
	EXPECT_FAILS(llmem_image_create_like_image(self->m, like, &over, &none), -EINVAL);
	EXPECT_EQ(llmem_memory_list_objects(self->m, NULL, 0), 5);
	llmem_image_destroy(l2);
	llmem_image_destroy(l1);
	llmem_image_destroy(img2);
	llmem_image_destroy(img);
	llmem_image_destroy(like);
}

TEST_HARNESS_MAIN
