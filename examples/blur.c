// SPDX-License-Identifier: MIT
/*
 * A box blur with llmem and a compute shader of one's own (blur.comp):
 * an RGBA UNORM8 picture goes up to the device, the shader reads
 * it through a sampler as floats and writes the blurred picture into a
 * storage image, which comes back and is checked against the same blur
 * computed here on the CPU.
 *
 *   blur BLUR.SPV [WIDTH HEIGHT RADIUS]
 *
 * Prints the largest difference from the CPU's result, in steps of 1/255;
 * exits 1 when it exceeds 1 (rounding) or the validation layer
 * (LLMEM_VALIDATION=1) reported anything, 2 on an error, which one line on
 * stderr names.
 */
#include <stdio.h>
#include <stdlib.h>

#include <llmem/llmem.h>

static int fail(const char *what, int ret)
{
	fprintf(stderr, "blur: %s: %s: %s\n", what, llmem_strerror(ret), llmem_last_error());
	return 2;
}

/* A whole decimal number from @lo to @hi, or -1. */
static int number(const char *s, int lo, int hi)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < lo || v > hi ? -1 : (int)v;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The shader's sum, in floats of each byte / 255, over clamped neighbours. */
static void blur_cpu(const uint8_t *in, uint8_t *out, int w, int h, int r)
{
	float n = (float)((2 * r + 1) * (2 * r + 1));

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < 4; c++) {
				float sum = 0;

				for (int dy = -r; dy <= r; dy++)
					for (int dx = -r; dx <= r; dx++)
						sum += in[(clampi(y + dy, 0, h - 1) * w +
							   clampi(x + dx, 0, w - 1)) *
								  4 +
							  c] /
						       255.0f;
				out[(y * w + x) * 4 + c] = (uint8_t)(sum / n * 255.0f + 0.5f);
			}
}

int main(int argc, char **argv)
{
	int w = argc > 4 ? number(argv[2], 1, 16384) : 96;
	int h = argc > 4 ? number(argv[3], 1, 16384) : 64;
	int radius = argc > 4 ? number(argv[4], 0, 16) : 2, worst = 0, ret;
	const uint32_t bindings[] = { LLMEM_BINDING_SAMPLED_IMAGE, LLMEM_BINDING_STORAGE_IMAGE };
	struct llmem_image_view_create_info clamp = { .address_mode = LLMEM_ADDRESS_CLAMP_TO_EDGE };
	struct llmem_image_create_info ci = { .ndim = 3, .channel_type = LLMEM_CHANNEL_UNORM8 };
	struct llmem_session *s = NULL;
	struct llmem_memory *m = NULL;
	struct llmem_image *src = NULL, *dst = NULL;
	struct llmem_image_view *sv = NULL, *dv = NULL;
	struct llmem_kernel *k = NULL;
	struct llmem_queue *q = NULL;
	uint8_t *in, *out, *ref;
	size_t size;
	int status = 2;

	if (argc != 2 && argc != 5) {
		fprintf(stderr, "usage: blur BLUR.SPV [WIDTH HEIGHT RADIUS]\n");
		return 2;
	}
	if (w < 0 || h < 0 || radius < 0) {
		fprintf(stderr,
			"blur: a width and a height from 1 to 16384, a radius from 0 to 16\n");
		return 2;
	}
	size = (size_t)w * h * 4;
	in = malloc(size);
	out = malloc(size);
	ref = malloc(size);
	if (!in || !out || !ref) {
		fprintf(stderr, "blur: %dx%d: out of memory\n", w, h);
		goto out_free;
	}
	/* Stripes and a gradient, so that a blur changes something. */
	for (size_t i = 0; i < size; i++)
		in[i] = (uint8_t)((i / 4 % (size_t)w) * 255 / (size_t)w ^
				  ((i / 4 / (size_t)w) & 8 ? 0xff : 0)) +
			(uint8_t)(i % 4 * 60);
	blur_cpu(in, ref, w, h, radius);

	ret = llmem_session_create(NULL, &s);
	if (ret) {
		status = fail("session", ret);
		goto out_free;
	}
	ret = llmem_memory_create(s, NULL, &m);
	if (ret) {
		status = fail("memory", ret);
		goto out_destroy;
	}
	ci.shape[0] = (uint32_t)h;
	ci.shape[1] = (uint32_t)w;
	ci.shape[2] = 4;
	ret = llmem_image_create_from_host(m, &ci, in, size, &src);
	if (!ret)
		ret = llmem_image_create_like_image(m, src, NULL, &dst);
	if (ret) {
		status = fail("images", ret);
		goto out_destroy;
	}
	ret = llmem_image_view_create(src, &clamp, &sv);
	if (!ret)
		ret = llmem_image_view_create(dst, NULL, &dv);
	if (ret) {
		status = fail("views", ret);
		goto out_destroy;
	}
	ret = llmem_kernel_create(s,
				  &(struct llmem_kernel_create_info){
					  .path = argv[1],
					  .bindings = bindings,
					  .binding_count = 2,
					  .push_size = sizeof(int),
				  },
				  &k);
	if (ret) {
		status = fail("kernel", ret);
		goto out_destroy;
	}
	ret = llmem_queue_create(s, NULL, &q);
	if (ret) {
		status = fail("queue", ret);
		goto out_destroy;
	}

	struct llmem_kernel_arg args[] = { { .view = sv }, { .view = dv } };
	struct llmem_dispatch d = {
		.args = args,
		.arg_count = 2,
		.push = &radius,
		.groups = { (uint32_t)(w + 7) / 8, (uint32_t)(h + 7) / 8, 1 },
	};
	ret = llmem_enqueue_dispatch(q, k, &d, NULL, NULL);
	if (!ret)
		ret = llmem_enqueue_read_image(q, dst, NULL, out, NULL, NULL, NULL);
	if (ret) {
		status = fail("blur", ret);
		goto out_destroy;
	}
	for (size_t i = 0; i < size; i++) {
		int diff = abs((int)out[i] - (int)ref[i]);

		worst = diff > worst ? diff : worst;
	}
	printf("blur %dx%d radius %d: largest difference from the CPU %d/255\n", w, h, radius,
	       worst);
	status = worst > 1 || llmem_session_validation_messages(s);

	/* Every destroy takes NULL: a failure part-way unwinds from here too. */
out_destroy:
	llmem_queue_destroy(q);
	llmem_kernel_destroy(k);
	llmem_image_view_destroy(dv);
	llmem_image_view_destroy(sv);
	llmem_image_destroy(dst);
	llmem_image_destroy(src);
	llmem_memory_destroy(m);
	llmem_session_destroy(s);
out_free:
	free(in);
	free(out);
	free(ref);
	return status;
}
