// SPDX-License-Identifier: MIT
/*
 * User compute: kernels from memory and from a file, buffers and their
 * sub-regions with push constants, images read through views and samplers
 * as floats (every normalised type and sRGB, BGRA order), wait lists and
 * events, and bad input.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <llmem/kernel.h>

#include "kselftest_harness.h"
#include "vk_test.h"

static const uint32_t sample_spv[] =
#include "sample.spv.inc"
	;
static const uint32_t scale_spv[] =
#include "scale.spv.inc"
	;

static const uint32_t sample_bindings[] = { LLMEM_BINDING_SAMPLED_IMAGE,
					    LLMEM_BINDING_STORAGE_BUFFER };
static const uint32_t scale_bindings[] = { LLMEM_BINDING_STORAGE_BUFFER,
					   LLMEM_BINDING_STORAGE_BUFFER };

struct scale_params {
	uint32_t a, b, count;
};

FIXTURE(kernel)
{
	struct llmem_session *s;
	struct llmem_memory *dev, *host;
	struct llmem_queue *q;
	struct llmem_kernel *scale;
};

FIXTURE_SETUP(kernel)
{
	struct llmem_memory_create_info hci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
	};
	struct llmem_kernel_create_info kci = {
		.spirv = scale_spv,
		.spirv_size = sizeof(scale_spv),
		.bindings = scale_bindings,
		.binding_count = 2,
		.push_size = sizeof(struct scale_params),
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, NULL, &self->dev), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &hci, &self->host), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &self->q), 0);
	ASSERT_EQ(llmem_kernel_create(self->s, &kci, &self->scale), 0);
}

FIXTURE_TEARDOWN(kernel)
{
	llmem_kernel_destroy(self->scale);
	llmem_queue_destroy(self->q);
	EXPECT_EQ(llmem_memory_destroy(self->host), 0);
	EXPECT_EQ(llmem_memory_destroy(self->dev), 0);
	VK_TEST_SESSION_END(self->s);
}

/* Sub-regions of one buffer, push constants, and a chain of events. */
TEST_F(kernel, buffers_sub_regions_push_constants)
{
	struct llmem_buffer *b, *x, *y, *z;
	struct llmem_event *e1, *e2;
	struct llmem_wait_list wl = { 1, &e1 };
	uint32_t in[256], out[256];

	for (uint32_t i = 0; i < 256; i++)
		in[i] = i;
	ASSERT_EQ(llmem_buffer_create(self->dev, &(struct llmem_buffer_create_info){ .size = 2048 },
				      &b),
		  0);
	ASSERT_EQ(llmem_buffer_create_sub(b, 0, 512, "x", &x), 0);
	ASSERT_EQ(llmem_buffer_create_sub(b, 512, 512, "y", &y), 0);
	ASSERT_EQ(llmem_buffer_create_sub(b, 1024, 1024, "z", &z), 0);
	/* z untouched: the dispatches stay inside their sub-regions. */
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, z, 0, 1024, &(uint32_t){ 0xdeadbeef }, 4, NULL,
					    NULL),
		  0);
	ASSERT_EQ(llmem_enqueue_write_buffer(self->q, x, 0, in, 512, NULL, NULL), 0);

	struct llmem_kernel_arg a1[] = { { .buffer = x }, { .buffer = y } };
	struct llmem_kernel_arg a2[] = { { .buffer = y }, { .buffer = y } };
	struct scale_params p1 = { 3, 1, 128 }, p2 = { 2, 0, 64 };
	struct llmem_dispatch d1 = { a1, 2, &p1, { 2, 1, 1 } };
	struct llmem_dispatch d2 = { a2, 2, &p2, { 1 } };

	ASSERT_EQ(llmem_enqueue_dispatch(self->q, self->scale, &d1, NULL, &e1), 0);
	ASSERT_EQ(llmem_enqueue_dispatch(self->q, self->scale, &d2, &wl, &e2), 0);
	ASSERT_EQ(llmem_event_wait(e2, UINT64_MAX), 0);
	llmem_event_release(e1);
	llmem_event_release(e2);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, b, 0, out, sizeof(out), NULL, NULL), 0);
	for (uint32_t i = 0; i < 128; i++)
		ASSERT_EQ(out[i], i);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, z, 0, in, sizeof(in), NULL, NULL), 0);
	for (uint32_t i = 0; i < 256; i++)
		ASSERT_EQ(in[i], 0xdeadbeef);
	for (uint32_t i = 0; i < 128; i++) {
		uint32_t want = 3 * i + 1;

		if (i < 64)
			want *= 2;
		ASSERT_EQ(out[128 + i], want);
	}
	llmem_buffer_destroy(z);
	llmem_buffer_destroy(y);
	llmem_buffer_destroy(x);
	llmem_buffer_destroy(b);
}

/* The same module from a file runs the same way. */
TEST_F(kernel, from_file)
{
	char path[] = "/tmp/llmem-kernel-XXXXXX";
	int fd = mkstemp(path);
	struct llmem_kernel *k;
	struct llmem_buffer *x, *y;
	uint32_t in[64], out[64];

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, scale_spv, sizeof(scale_spv)), (ssize_t)sizeof(scale_spv));
	close(fd);
	ASSERT_EQ(llmem_kernel_create(self->s,
				      &(struct llmem_kernel_create_info){
					      .path = path,
					      .bindings = scale_bindings,
					      .binding_count = 2,
					      .push_size = sizeof(struct scale_params),
				      },
				      &k),
		  0);
	unlink(path);
	for (uint32_t i = 0; i < 64; i++)
		in[i] = i * 5;
	ASSERT_EQ(llmem_buffer_create_from_host(self->host, NULL, in, sizeof(in), &x), 0);
	ASSERT_EQ(llmem_buffer_create_like_buffer(self->dev, x, NULL, &y), 0);

	struct llmem_kernel_arg a[] = { { .buffer = x }, { .buffer = y } };
	struct scale_params p = { 1, 7, 64 };
	struct llmem_dispatch d = { a, 2, &p, { 1, 0, 0 } };

	ASSERT_EQ(llmem_enqueue_dispatch(self->q, k, &d, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, y, 0, out, sizeof(out), NULL, NULL), 0);
	for (uint32_t i = 0; i < 64; i++)
		ASSERT_EQ(out[i], i * 5 + 7);
	llmem_buffer_destroy(y);
	llmem_buffer_destroy(x);
	llmem_kernel_destroy(k);
}

static double srgb_to_linear(double v)
{
	return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* What a sampler returns for channel @c (R, G, B, A) of a texel at @t. */
static double decode(uint32_t type, uint32_t order, const uint8_t *t, uint32_t c)
{
	uint32_t at = order == LLMEM_ORDER_BGRA && c != 1 && c != 3 ? 2 - c : c;
	int16_t s16;
	uint16_t u16;

	switch (type) {
	case LLMEM_CHANNEL_UNORM8:
		return t[at] / 255.0;
	case LLMEM_CHANNEL_SNORM8:
		return fmax((int8_t)t[at] / 127.0, -1.0);
	case LLMEM_CHANNEL_UNORM16:
		memcpy(&u16, t + 2 * at, 2);
		return u16 / 65535.0;
	case LLMEM_CHANNEL_SNORM16:
		memcpy(&s16, t + 2 * at, 2);
		return fmax(s16 / 32767.0, -1.0);
	default:
		return c == 3 ? t[at] / 255.0 : srgb_to_linear(t[at] / 255.0);
	}
}

/* Views and samplers read every normalised type as floats, sRGB as linear colour. */
TEST_F(kernel, samplers_read_normalised_as_floats)
{
	static const struct {
		uint32_t type, order;
		double tolerance;
	} cases[] = {
		{ LLMEM_CHANNEL_UNORM8, 0, 1e-6 },
		{ LLMEM_CHANNEL_UNORM8, LLMEM_ORDER_BGRA, 1e-6 },
		{ LLMEM_CHANNEL_SNORM8, 0, 1e-6 },
		{ LLMEM_CHANNEL_UNORM16, 0, 1e-6 },
		{ LLMEM_CHANNEL_SNORM16, 0, 1e-6 },
		/*
		 * The curve may come from a table or an approximation: NVIDIA's
		 * is up to 0.0038 off, a step of 8 bits.
		 */
		{ LLMEM_CHANNEL_SRGB8, 0, 1.0 / 255 + 1e-6 },
		{ LLMEM_CHANNEL_SRGB8, LLMEM_ORDER_BGRA, 1.0 / 255 + 1e-6 },
	};
	const uint32_t w = 13, h = 9;
	struct llmem_kernel *k;

	ASSERT_EQ(llmem_kernel_create(self->s,
				      &(struct llmem_kernel_create_info){
					      .spirv = sample_spv,
					      .spirv_size = sizeof(sample_spv),
					      .bindings = sample_bindings,
					      .binding_count = 2,
					      .name = "sample",
				      },
				      &k),
		  0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct llmem_image_create_info ci = {
			.ndim = 3,
			.shape = { h, w, 4 },
			.channel_type = cases[i].type,
			.channel_order = cases[i].order,
		};
		struct llmem_image *img;
		struct llmem_image_view *view;
		struct llmem_buffer *out;
		uint8_t texels[13 * 9 * 8];
		float *f;

		for (size_t n = 0; n < sizeof(texels); n++)
			texels[n] = (uint8_t)(n * 37 + i);
		ASSERT_EQ(llmem_image_create(self->dev, &ci, &img), 0);
		ASSERT_EQ(llmem_image_upload(img, texels, llmem_image_size(img)), 0);
		ASSERT_EQ(llmem_image_view_create(img, NULL, &view), 0);
		ASSERT_EQ(llmem_buffer_create(
				  self->host,
				  &(struct llmem_buffer_create_info){ .size = w * h * 16 }, &out),
			  0);

		struct llmem_kernel_arg a[] = { { .view = view }, { .buffer = out } };
		struct llmem_dispatch d = { a, 2, NULL, { 2, 2, 1 } };

		ASSERT_EQ(llmem_enqueue_dispatch(self->q, k, &d, NULL, NULL), 0);
		ASSERT_EQ(llmem_buffer_map(out, (void **)&f), 0);
		for (uint32_t t = 0; t < w * h; t++)
			for (uint32_t c = 0; c < 4; c++) {
				double want = decode(cases[i].type, cases[i].order,
						     texels + t * llmem_image_texel_size(img), c);

				ASSERT_LE(fabs(f[t * 4 + c] - want), cases[i].tolerance)
				TH_LOG("case %zu texel %u channel %u: %f, want %f", i, t, c,
				       f[t * 4 + c], want);
			}
		llmem_buffer_unmap(out);
		llmem_buffer_destroy(out);
		llmem_image_view_destroy(view);
		llmem_image_destroy(img);
	}
	llmem_kernel_destroy(k);
}

/* Bad modules and create infos: clear errors, nothing made. */
TEST_F(kernel, bad_kernels)
{
	uint32_t junk[8] = { 0x12345678 }, bad_type[] = { 7 };
	struct llmem_kernel_create_info ci = {
		.spirv = scale_spv,
		.spirv_size = sizeof(scale_spv),
		.bindings = scale_bindings,
		.binding_count = 2,
		.push_size = 12,
	};
	struct llmem_kernel *k = (void *)1;

	EXPECT_FAILS(llmem_kernel_create(NULL, &ci, &k), -EINVAL);
	EXPECT_EQ(k, NULL);
	EXPECT_FAILS(llmem_kernel_create(self->s, NULL, &k), -EINVAL);
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, NULL), -EINVAL);
	ci.path = "/nonexistent/k.spv";
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.spirv = NULL;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -ENOENT);
	EXPECT_NE(strstr(llmem_last_error(), "/nonexistent/k.spv"), NULL);
	ci.path = "/tmp";
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.path = NULL;
	ci.spirv = junk;
	ci.spirv_size = sizeof(junk);
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "not SPIR-V"), NULL);
	ci.spirv = scale_spv;
	ci.spirv_size = sizeof(scale_spv) - 2;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.spirv_size = sizeof(scale_spv);
	ci.entry = "mai";
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "entry point 'mai'"), NULL);
	ci.entry = NULL;
	ci.binding_count = LLMEM_KERNEL_MAX_BINDINGS + 1;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.binding_count = 1;
	ci.bindings = bad_type;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.bindings = scale_bindings;
	ci.binding_count = 2;
	ci.push_size = 6;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	ci.push_size = LLMEM_KERNEL_MAX_PUSH + 4;
	EXPECT_FAILS(llmem_kernel_create(self->s, &ci, &k), -EINVAL);
	EXPECT_EQ(k, NULL);
	llmem_kernel_destroy(NULL);
}

/* Bad dispatches: wrong arguments, usages, push constants, group counts. */
TEST_F(kernel, bad_dispatches)
{
	struct llmem_image_create_info ici = { .ndim = 3, .shape = { 4, 4, 4 } };
	struct llmem_buffer *b, *plain;
	struct llmem_image *img;
	struct llmem_image_view *view;
	struct scale_params p = { 1, 1, 4 };

	ASSERT_EQ(llmem_buffer_create(self->dev, &(struct llmem_buffer_create_info){ .size = 64 },
				      &b),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->dev,
				      &(struct llmem_buffer_create_info){
					      .size = 64, .usage = LLMEM_BUFFER_TRANSFER_DST },
				      &plain),
		  0);
	ASSERT_EQ(llmem_image_create(self->dev, &ici, &img), 0);
	ASSERT_EQ(llmem_image_view_create(img, NULL, &view), 0);

	struct llmem_kernel_arg ok[] = { { .buffer = b }, { .buffer = b } };
	struct llmem_kernel_arg no_storage[] = { { .buffer = b }, { .buffer = plain } };
	struct llmem_kernel_arg wrong_kind[] = { { .buffer = b }, { .view = view } };
	struct llmem_kernel_arg both[] = { { .buffer = b }, { .buffer = b, .view = view } };
	struct llmem_kernel_arg none[] = { { .buffer = b }, { 0 } };
	struct llmem_dispatch d = { ok, 2, &p, { 1 } };

	EXPECT_FAILS(llmem_enqueue_dispatch(NULL, self->scale, &d, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, NULL, &d, NULL, NULL), -EINVAL);
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, NULL, NULL, NULL), -EINVAL);
	d.arg_count = 1;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "1 arguments for 2 bindings"), NULL);
	d.arg_count = 2;
	d.args = no_storage;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EPERM);
	d.args = wrong_kind;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	d.args = both;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	d.args = none;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	d.args = ok;
	d.push = NULL;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	d.push = &p;
	d.groups[2] = UINT32_MAX;
	EXPECT_FAILS(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "groups on axis 2"), NULL);
	d.groups[2] = 1;
	EXPECT_EQ(llmem_enqueue_dispatch(self->q, self->scale, &d, NULL, NULL), 0);
	llmem_image_view_destroy(view);
	llmem_image_destroy(img);
	llmem_buffer_destroy(plain);
	llmem_buffer_destroy(b);
}

TEST_HARNESS_MAIN
