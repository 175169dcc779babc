// SPDX-License-Identifier: MIT
/*
 * llmem bench codec: an encoder fed from llmem buffers (DMA-BUFs queued as
 * they are) against the copy path (the encoder's own MMAP buffers, each
 * frame copied in by memcpy from the frame in llmem memory), the same
 * frames, encoder and size in one run.  The figure is the CPU time of the
 * feeding thread per frame, from taking the frame to getting it back
 * encoded; the encoding itself runs in the driver's worker, on both paths
 * alike.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/session.h>

#include "codec_bufs.h"
#include "commands.h"

#define TIMEOUT_MS 10000
#define SLOTS 2

static struct {
	const char *encoder;
	uint32_t size[2];
	uint64_t frames;
	bool json, quiet;
} args = {
	.size = { 640, 480 },
	.frames = 20,
};

static const struct cli_option options[] = {
	{ .name = "encoder",
	  .short_name = 'e',
	  .type = CLI_PATH,
	  .value = &args.encoder,
	  .meta = "PATH",
	  .help = "the encoder node; default: the first FWHT encoder that imports DMA-BUFs" },
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_WXH,
	  .value = args.size,
	  .meta = "WxH",
	  .min = 64,
	  .max = 4096,
	  .help = "frame size in pixels (default 640x480)" },
	{ .name = "frames",
	  .short_name = 'n',
	  .type = CLI_UINT,
	  .value = &args.frames,
	  .meta = "N",
	  .min = 1,
	  .max = 100000,
	  .help = "frames per path (default 20)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but the result"),
	{ 0 },
};

struct path_result {
	double cpu_us_median, cpu_us_min, cpu_us_max;
	uint64_t bytes_copied_per_frame;
	uint64_t bitstream_bytes;
};

struct bench {
	struct llmem_session *session;
	char encoder[64];
	struct codec_buf frames[SLOTS], bits[SLOTS];
	uint32_t raw_size;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem bench codec: %s: %s\n", what, llmem_last_error());
	return err;
}

static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* YUV420 frames with a square that moves, in llmem memory, as captured. */
static void make_frame(uint8_t *yuv, uint32_t w, uint32_t h, uint32_t n)
{
	memset(yuv, 128, (size_t)w * h * 3 / 2);
	for (uint32_t r = 0; r < h; r++)
		for (uint32_t c = 0; c < w; c++)
			yuv[r * w + c] = (c >= 32 + 8 * n && c < 96 + 8 * n && r >= 32 && r < 96)
						 ? 235
						 : (uint8_t)(16 + c * 200 / w);
}

/* An encoder with its formats set, OUTPUT of @memory, CAPTURE in llmem. */
static int open_encoder(struct bench *b, uint32_t memory, struct llmem_codec **out)
{
	struct llmem_codec_format raw = { .fourcc = V4L2_PIX_FMT_YUV420,
					  .width = args.size[0],
					  .height = args.size[1] };
	struct llmem_codec_format coded = raw, got, got_coded;
	struct llmem_codec *enc;
	int ret;

	coded.fourcc = V4L2_PIX_FMT_FWHT;
	ret = llmem_codec_open(b->encoder, &enc);
	if (ret)
		return fail(ret, "open encoder");
	*out = enc;
	ret = llmem_codec_set_format(enc, LLMEM_CODEC_CAPTURE, &coded, &got_coded);
	if (!ret)
		ret = llmem_codec_set_format(enc, LLMEM_CODEC_OUTPUT, &raw, &got);
	if (ret)
		return fail(ret, "encoder format");
	if (got.width != args.size[0] || got.height != args.size[1] ||
	    got.sizeimage[0] != b->raw_size) {
		fprintf(stderr, "llmem bench codec: %s encodes %ux%u, not %ux%u\n", b->encoder,
			got.width, got.height, args.size[0], args.size[1]);
		return -EINVAL;
	}
	/* Bitstream buffers of the size the encoder asks for, made once. */
	for (uint32_t i = 0; i < SLOTS && !b->bits[i].buffer; i++) {
		ret = codec_buf_alloc(b->session, 0, got_coded.sizeimage[0], "bitstream",
				      &b->bits[i]);
		if (ret)
			return ret;
	}
	ret = llmem_codec_request_buffers(enc, LLMEM_CODEC_OUTPUT, memory, SLOTS);
	if (ret >= 0)
		ret = llmem_codec_request_buffers(enc, LLMEM_CODEC_CAPTURE,
						  LLMEM_V4L2_MEMORY_DMABUF, SLOTS);
	if (ret >= 0 && ret < SLOTS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "encoder buffers");
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct llmem_codec_plane p = { .fd = b->bits[i].fd };

		ret = llmem_codec_queue(enc, LLMEM_CODEC_CAPTURE, i, &p, 1, 0);
		if (ret)
			return fail(ret, "queue bitstream buffer");
	}
	ret = llmem_codec_stream_on(enc, LLMEM_CODEC_OUTPUT);
	if (!ret)
		ret = llmem_codec_stream_on(enc, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start encoder") : 0;
}

/* Encodes args.frames frames on one path, timing the feeding thread. */
static int run_path(struct bench *b, bool copy, struct path_result *res)
{
	struct llmem_codec *enc = NULL;
	double *cpu = calloc(args.frames, sizeof(*cpu));
	int ret;

	memset(res, 0, sizeof(*res));
	if (!cpu)
		return -ENOMEM;
	ret = open_encoder(b, copy ? LLMEM_V4L2_MEMORY_MMAP : LLMEM_V4L2_MEMORY_DMABUF, &enc);
	for (uint32_t n = 0; !ret && n < args.frames; n++) {
		const struct codec_buf *src = &b->frames[n % SLOTS];
		struct llmem_codec_plane p = { .fd = src->fd, .bytesused = b->raw_size };
		struct llmem_codec_buffer done;
		double t0 = thread_cpu_us();
		void *dst;

		if (copy) {
			ret = llmem_codec_map(enc, LLMEM_CODEC_OUTPUT, n % SLOTS, 0, &dst, NULL);
			if (ret) {
				fail(ret, "map the encoder's buffer");
				break;
			}
			memcpy(dst, src->map, b->raw_size);
			res->bytes_copied_per_frame = b->raw_size;
		}
		ret = llmem_codec_queue(enc, LLMEM_CODEC_OUTPUT, n % SLOTS, &p, 1, n);
		if (!ret)
			ret = llmem_codec_dequeue(enc, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &done);
		if (!ret) {
			struct llmem_codec_plane bp = { .fd = b->bits[done.index].fd };

			res->bitstream_bytes += done.bytesused[0];
			ret = llmem_codec_queue(enc, LLMEM_CODEC_CAPTURE, done.index, &bp, 1, 0);
		}
		if (!ret)
			ret = llmem_codec_dequeue(enc, LLMEM_CODEC_OUTPUT, TIMEOUT_MS, &done);
		if (ret) {
			fail(ret, "encode");
			break;
		}
		cpu[n] = thread_cpu_us() - t0;
	}
	llmem_codec_close(enc);
	if (!ret) {
		qsort(cpu, args.frames, sizeof(*cpu), cmp_double);
		res->cpu_us_median = cpu[args.frames / 2];
		res->cpu_us_min = cpu[0];
		res->cpu_us_max = cpu[args.frames - 1];
	}
	free(cpu);
	return ret;
}

static int setup(struct bench *b)
{
	struct llmem_session_create_info sci = { .app_name = "llmem bench codec" };
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_ENCODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .raw_fourcc = V4L2_PIX_FMT_YUV420 };
	int ret;

	b->raw_size = args.size[0] * args.size[1] * 3 / 2;
	if (args.encoder)
		snprintf(b->encoder, sizeof(b->encoder), "%s", args.encoder);
	else if ((ret = llmem_codec_find(&fi, b->encoder, sizeof(b->encoder))))
		return fail(ret, "find an encoder");
	ret = llmem_session_create(&sci, &b->session);
	if (ret)
		return fail(ret, "Vulkan session");
	for (uint32_t i = 0; i < SLOTS; i++) {
		ret = codec_buf_alloc(b->session, 0, b->raw_size, "frame", &b->frames[i]);
		if (ret)
			return ret;
		make_frame(b->frames[i].map, args.size[0], args.size[1], i);
		llmem_buffer_flush(b->frames[i].buffer, 0, LLMEM_WHOLE_SIZE);
	}
	return 0;
}

static void print_result(const struct bench *b, const struct path_result *zero,
			 const struct path_result *copy)
{
	double ratio = zero->cpu_us_median / copy->cpu_us_median;

	if (args.json) {
		printf("{\"encoder\": \"%s\", \"width\": %u, \"height\": %u, \"frames\": %llu, ",
		       b->encoder, args.size[0], args.size[1], (unsigned long long)args.frames);
		printf("\"zero_copy\": {\"cpu_us_per_frame\": {\"median\": %.1f, \"min\": %.1f, "
		       "\"max\": %.1f}, \"bytes_copied_per_frame\": %llu, \"bitstream_bytes\": "
		       "%llu}, ",
		       zero->cpu_us_median, zero->cpu_us_min, zero->cpu_us_max,
		       (unsigned long long)zero->bytes_copied_per_frame,
		       (unsigned long long)zero->bitstream_bytes);
		printf("\"copy\": {\"cpu_us_per_frame\": {\"median\": %.1f, \"min\": %.1f, "
		       "\"max\": %.1f}, \"bytes_copied_per_frame\": %llu, \"bitstream_bytes\": "
		       "%llu}, ",
		       copy->cpu_us_median, copy->cpu_us_min, copy->cpu_us_max,
		       (unsigned long long)copy->bytes_copied_per_frame,
		       (unsigned long long)copy->bitstream_bytes);
		printf("\"ratio_cpu_per_frame\": %.4f}\n", ratio);
		return;
	}
	printf("llmem bench codec: %s, %ux%u YUV420 to FWHT, %llu frames per path\n", b->encoder,
	       args.size[0], args.size[1], (unsigned long long)args.frames);
	printf("  %-10s cpu/frame median %9.1f us  min %9.1f  max %9.1f | copied %8llu B/frame\n",
	       "zero-copy", zero->cpu_us_median, zero->cpu_us_min, zero->cpu_us_max,
	       (unsigned long long)zero->bytes_copied_per_frame);
	printf("  %-10s cpu/frame median %9.1f us  min %9.1f  max %9.1f | copied %8llu B/frame\n",
	       "copy", copy->cpu_us_median, copy->cpu_us_min, copy->cpu_us_max,
	       (unsigned long long)copy->bytes_copied_per_frame);
	printf("  ratio zero-copy/copy CPU per frame: %.3f\n", ratio);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct path_result zero, copy;
	struct bench b = { 0 };
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	for (uint32_t i = 0; i < SLOTS; i++)
		b.frames[i].fd = b.bits[i].fd = -1;
	ret = setup(&b);
	if (!ret)
		ret = run_path(&b, false, &zero);
	if (!ret)
		ret = run_path(&b, true, &copy);
	if (!ret && zero.bitstream_bytes != copy.bitstream_bytes) {
		fprintf(stderr,
			"llmem bench codec: the paths made %llu and %llu bytes of bitstream\n",
			(unsigned long long)zero.bitstream_bytes,
			(unsigned long long)copy.bitstream_bytes);
		ret = -EIO;
	}
	if (!ret)
		print_result(&b, &zero, &copy);
	for (uint32_t i = 0; i < SLOTS; i++) {
		codec_buf_free(&b.frames[i]);
		codec_buf_free(&b.bits[i]);
	}
	llmem_session_destroy(b.session);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_bench_codec = {
	.name = "bench codec",
	.summary = "an encoder fed llmem buffers against MMAP buffers + memcpy",
	.description = "Encodes the same frames with a V4L2 memory-to-memory encoder (FWHT,\n"
		       "vicodec) twice: from llmem buffers queued as DMA-BUFs, and through the\n"
		       "encoder's own MMAP buffers filled by memcpy from those buffers.  Prints\n"
		       "the bytes copied and the feeding thread's CPU time per frame of both, and\n"
		       "their ratio.",
	.options = options,
	.run = run,
};
