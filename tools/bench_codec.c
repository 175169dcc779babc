// SPDX-License-Identifier: MIT
/*
 * llmem bench codec: an encoder fed frames a camera captured into llmem
 * pages, queued as the DMA-BUFs they are, against the copy path: the
 * encoder's own MMAP buffers, each filled by memcpy from the same captured
 * frame.  Same frames, encoder and size, in one run, a frame of each path
 * in turn.
 *
 * Everything runs in the feeding thread, and so does the encoding: a V4L2
 * memory-to-memory driver runs its job in the call that makes it ready
 * (v4l2_m2m_try_schedule() from VIDIOC_QBUF), and vicodec encodes right
 * there, on the CPU, as system time of the caller.  Each frame is fed in
 * three phases so that the encoding is timed apart: submit (the copy
 * path's memcpy, between the DMA-BUF's CPU-access brackets, and VIDIOC_QBUF of the frame,
 * with no bitstream buffer queued yet, so nothing runs), encode
 * (VIDIOC_QBUF of the bitstream buffer: the driver's job) and collect
 * (VIDIOC_DQBUF of both).  Submit is the phase the paths differ in; a
 * hardware encoder's job would cost the CPU next to nothing in encode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "codec_bufs.h"
#include "commands.h"
#include "emit.h"
#include "stat3.h"
#include "progress.h"

#define TIMEOUT_MS 10000
#define BITSTREAM_BUFS 2

enum phase {
	SUBMIT,
	ENCODE,
	COLLECT,
	TOTAL,
	PHASES
};

static const char *const phase_names[PHASES] = { "submit", "encode", "collect", "total" };

static struct {
	const char *device, *encoder;
	uint32_t size[2];
	uint64_t frames, input;
	bool input_given, json, quiet;
} args = {
	.size = { 640, 480 },
	.frames = 20,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(
		&args.device,
		"the camera that captures the frames; default: the first capture node that "
		"imports DMA-BUFs"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	CLI_OPTION_ENCODER(&args.encoder),
	CLI_OPTION_SIZE(args.size, 64, 4096, NULL, "frame size in pixels (default 640x480)"),
	CLI_OPTION_FRAMES(&args.frames, 100000, NULL, "frames per path (default 20)"),
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but the result"),
	{ 0 },
};

struct path_result {
	/* Thread CPU time per frame of each phase, in microseconds. */
	struct stat3 phase[PHASES];
	/* Per frame over the whole run, from getrusage(RUSAGE_THREAD): the
	 * feeding thread's user and system time, and the CPU time of the
	 * process's other threads (lavapipe's, idle here). */
	double user_us, system_us, other_threads_us;
	uint64_t bytes_copied_per_frame;
	uint64_t bitstream_bytes, bitstream_hash;
};

struct bench {
	struct llmem_session *session;
	struct llmem_camera *cam;
	struct llmem_camera_info info;
	char encoder[64];
	/* The captured frames: their DMA-BUFs, and mapped for the copy path. */
	int frame_fd[LLMEM_CAMERA_MAX_BUFFERS];
	void *frame_map[LLMEM_CAMERA_MAX_BUFFERS];
	struct codec_buf bits[BITSTREAM_BUFS];
	uint32_t frames, raw_size;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem bench codec: %s: %s\n", what, llmem_last_error());
	return err;
}

static double clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1e6 + tv->tv_usec;
}

/* FNV-1a 64 over @len bytes, continuing @h. */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The camera's frames, each captured at least once: the camera streams
 * until every buffer came back filled, then stops, and the buffers keep
 * what it wrote last.  No conversion: only the encoder reads them.
 */
static int capture(struct bench *b)
{
	struct llmem_camera_create_info cci = {
		.device = args.device,
		.fourcc = V4L2_PIX_FMT_YUYV,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.flags = LLMEM_CAMERA_CONVERT_LATER | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
	};
	uint32_t seen = 0, all;
	int ret;

	ret = llmem_camera_open(b->session, &cci, &b->cam);
	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(b->cam, &b->info);
	all = (1u << b->info.buffers) - 1;
	ret = llmem_camera_start(b->cam);
	for (uint32_t n = 0; !ret && seen != all && n < 4 * b->info.buffers; n++) {
		struct llmem_camera_frame f;

		ret = llmem_camera_next(b->cam, TIMEOUT_MS, &f);
		if (!ret)
			seen |= 1u << f.index;
		if (!ret)
			ret = llmem_camera_release(b->cam, &f);
	}
	if (!ret)
		ret = llmem_camera_stop(b->cam);
	if (ret)
		return fail(ret, "capture");
	if (seen != all) {
		fprintf(stderr, "llmem bench codec: %s filled %u of its %u buffers\n",
			b->info.device, (unsigned)__builtin_popcount(seen), b->info.buffers);
		return -EIO;
	}
	b->frames = b->info.buffers;
	b->raw_size = b->info.format.sizeimage;
	for (uint32_t i = 0; i < b->frames; i++) {
		ret = llmem_camera_export(b->cam, i, &b->frame_fd[i]);
		if (ret)
			return fail(ret, "the frame's DMA-BUF");
		ret = llmem_dmabuf_map(b->frame_fd[i], 0, b->raw_size, LLMEM_CPU_READ,
				       &b->frame_map[i]);
		if (ret)
			return fail(ret, "the frame's mapping");
	}
	return 0;
}

/* An encoder with its formats set, OUTPUT of @memory, no buffer queued. */
static int open_encoder(struct bench *b, uint32_t memory, struct llmem_codec **out)
{
	struct llmem_codec_format raw = { .fourcc = V4L2_PIX_FMT_YUYV,
					  .width = b->info.format.width,
					  .height = b->info.format.height };
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
	if (got.num_planes != 1 || got.bytesperline[0] != b->info.format.bytesperline ||
	    got.sizeimage[0] != b->raw_size) {
		fprintf(stderr,
			"llmem bench codec: %s reads %ux%u, pitch %u, %u bytes; %s gives "
			"%ux%u, pitch %u, %u bytes\n",
			b->encoder, got.width, got.height, got.bytesperline[0], got.sizeimage[0],
			b->info.device, raw.width, raw.height, b->info.format.bytesperline,
			b->raw_size);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < BITSTREAM_BUFS && !b->bits[i].buffer; i++) {
		ret = codec_buf_alloc(b->session, 0, got_coded.sizeimage[0], "bitstream",
				      &b->bits[i]);
		if (ret)
			return ret;
	}
	ret = llmem_codec_request_buffers(enc, LLMEM_CODEC_OUTPUT, memory, b->frames);
	if (ret >= 0 && (uint32_t)ret < b->frames)
		ret = -ENOBUFS;
	if (ret >= 0)
		ret = llmem_codec_request_buffers(enc, LLMEM_CODEC_CAPTURE,
						  LLMEM_V4L2_MEMORY_DMABUF, BITSTREAM_BUFS);
	if (ret >= 0 && ret < BITSTREAM_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "encoder buffers");
	ret = llmem_codec_stream_on(enc, LLMEM_CODEC_OUTPUT);
	if (!ret)
		ret = llmem_codec_stream_on(enc, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start encoder") : 0;
}

/* The copy path's submit: the captured frame copied into the encoder's own
 * buffer, read between the DMA-BUF's CPU-access brackets as any CPU access
 * must be. */
static int copy_in(struct bench *b, struct llmem_codec *enc, uint32_t i)
{
	void *dst;
	int ret;

	ret = llmem_codec_map(enc, LLMEM_CODEC_OUTPUT, i, 0, &dst, NULL);
	if (ret)
		return fail(ret, "the encoder's buffer");
	ret = llmem_dmabuf_begin_cpu_access(b->frame_fd[i], LLMEM_CPU_READ);
	if (!ret) {
		memcpy(dst, b->frame_map[i], b->raw_size);
		ret = llmem_dmabuf_end_cpu_access(b->frame_fd[i], LLMEM_CPU_READ);
	}
	if (ret)
		fprintf(stderr, "llmem bench codec: frame %u: %s\n", i, llmem_last_error());
	return ret;
}

/* One frame in three timed phases (above); @t receives each phase's time. */
static int feed(struct bench *b, struct llmem_codec *enc, bool copy, uint32_t n,
		struct path_result *res, double t[PHASES])
{
	uint32_t i = n % b->frames, k = n % BITSTREAM_BUFS;
	struct llmem_codec_plane p = { .fd = b->frame_fd[i], .bytesused = b->raw_size };
	struct llmem_codec_plane bp = { .fd = b->bits[k].fd };
	struct llmem_codec_buffer bits, done;
	double t0 = clock_us(CLOCK_THREAD_CPUTIME_ID), t1, t2;
	int ret = 0;

	if (copy) {
		ret = copy_in(b, enc, i);
		if (ret)
			return ret;
		res->bytes_copied_per_frame = b->raw_size;
	}
	ret = llmem_codec_queue(enc, LLMEM_CODEC_OUTPUT, i, &p, 1, n);
	t1 = clock_us(CLOCK_THREAD_CPUTIME_ID);
	if (!ret)
		ret = llmem_codec_queue(enc, LLMEM_CODEC_CAPTURE, k, &bp, 1, 0);
	t2 = clock_us(CLOCK_THREAD_CPUTIME_ID);
	if (!ret)
		ret = llmem_codec_dequeue(enc, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &bits);
	if (!ret) {
		llmem_buffer_invalidate(b->bits[bits.index].buffer, 0, LLMEM_WHOLE_SIZE);
		ret = llmem_codec_dequeue(enc, LLMEM_CODEC_OUTPUT, TIMEOUT_MS, &done);
	}
	if (ret)
		return fail(ret, "encode");
	t[SUBMIT] = t1 - t0;
	t[ENCODE] = t2 - t1;
	t[COLLECT] = clock_us(CLOCK_THREAD_CPUTIME_ID) - t2;
	t[TOTAL] = t[SUBMIT] + t[ENCODE] + t[COLLECT];
	/* The check that both paths made the same bitstream, not timed. */
	res->bitstream_bytes += bits.bytesused[0];
	res->bitstream_hash =
		fnv1a(res->bitstream_hash, b->bits[bits.index].map, bits.bytesused[0]);
	return 0;
}

/* Where a path's CPU time went, summed over its frames. */
struct cpu_split {
	struct rusage ru;
	double thread, process;
};

static void cpu_now(struct cpu_split *c)
{
	/* The same order before and after, so that neither window is the longer. */
	getrusage(RUSAGE_THREAD, &c->ru);
	c->thread = clock_us(CLOCK_THREAD_CPUTIME_ID);
	c->process = clock_us(CLOCK_PROCESS_CPUTIME_ID);
}

static void cpu_add(struct path_result *r, const struct cpu_split *a, const struct cpu_split *b)
{
	r->user_us += tv_us(&b->ru.ru_utime) - tv_us(&a->ru.ru_utime);
	r->system_us += tv_us(&b->ru.ru_stime) - tv_us(&a->ru.ru_stime);
	r->other_threads_us += (b->process - a->process) - (b->thread - a->thread);
}

/*
 * Encodes args.frames frames on each path, a frame of one then a frame of
 * the other, the zero-copy path first in even frames and the copy path in
 * odd ones, so that both see the same load on the machine (under QEMU's
 * TCG the host's other work moves every time), each on an encoder of its
 * own, timing the feeding thread.
 */
static int run_paths(struct bench *b, struct path_result res[2])
{
	static const char *const names[2] = { "zero-copy", "copy" };
	struct llmem_codec *enc[2] = { NULL, NULL };
	double *t = calloc(2 * PHASES * args.frames, sizeof(*t));
	struct progress pr;
	int ret;

	if (!t)
		return -ENOMEM;
	memset(res, 0, 2 * sizeof(*res));
	for (int k = 0; k < 2; k++)
		res[k].bitstream_hash = 0xcbf29ce484222325ull;
	ret = open_encoder(b, LLMEM_V4L2_MEMORY_DMABUF, &enc[0]);
	if (!ret)
		ret = open_encoder(b, LLMEM_V4L2_MEMORY_MMAP, &enc[1]);
	progress_start(&pr, "llmem bench codec", "frames per path", args.frames,
		       args.quiet || args.json);
	for (uint32_t n = 0; !ret && n < args.frames; n++) {
		for (int turn = 0; !ret && turn < 2; turn++) {
			/* The first of a pair runs on caches the other left: each
			 * path goes first every other frame. */
			int k = (int)((n + turn) % 2);
			double *tk = t + k * PHASES * args.frames, phase[PHASES];
			struct cpu_split before, after;

			cpu_now(&before);
			ret = feed(b, enc[k], k == 1, n, &res[k], phase);
			cpu_now(&after);
			cpu_add(&res[k], &before, &after);
			for (int p = 0; !ret && p < PHASES; p++)
				tk[p * args.frames + n] = phase[p];
			if (ret)
				fprintf(stderr, "llmem bench codec: the %s path, frame %u\n",
					names[k], n);
		}
		progress_step(&pr, n + 1);
	}
	progress_end(&pr);
	llmem_codec_close(enc[0]);
	llmem_codec_close(enc[1]);
	for (int k = 0; !ret && k < 2; k++) {
		for (int p = 0; p < PHASES; p++)
			res[k].phase[p] =
				stat3_of(t + (k * PHASES + p) * args.frames, (uint32_t)args.frames);
		res[k].user_us /= args.frames;
		res[k].system_us /= args.frames;
		res[k].other_threads_us /= args.frames;
	}
	free(t);
	return ret;
}

static int setup(struct bench *b)
{
	struct llmem_session_create_info sci = { .app_name = "llmem bench codec" };
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_ENCODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .raw_fourcc = V4L2_PIX_FMT_YUYV };
	int ret;

	if (args.encoder)
		snprintf(b->encoder, sizeof(b->encoder), "%s", args.encoder);
	else if ((ret = llmem_codec_find(&fi, b->encoder, sizeof(b->encoder))))
		return fail(ret, "find an encoder");
	ret = llmem_session_create(&sci, &b->session);
	if (ret)
		return fail(ret, "Vulkan session");
	return capture(b);
}

static void emit_path(struct emit *e, const char *name, const struct path_result *r)
{
	char key[32];

	emit_object(e, name);
	for (int p = 0; p < PHASES; p++) {
		snprintf(key, sizeof(key), "%s_cpu_us_per_frame", phase_names[p]);
		emit_stat3(e, key, &r->phase[p], 1);
	}
	emit_double(e, "user_us_per_frame", r->user_us, 1);
	emit_double(e, "system_us_per_frame", r->system_us, 1);
	emit_double(e, "other_threads_us_per_frame", r->other_threads_us, 1);
	emit_uint(e, "bytes_copied_per_frame", r->bytes_copied_per_frame);
	emit_uint(e, "bitstream_bytes", r->bitstream_bytes);
	emit_end(e);
}

static void print_json(const struct bench *b, const struct path_result *zero,
		       const struct path_result *copy, double submit, double total)
{
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_string(&e, "camera", b->info.device);
	emit_string(&e, "camera_driver", b->info.driver);
	emit_string(&e, "backend", llmem_backend_name(b->info.backend));
	emit_string(&e, "encoder", b->encoder);
	emit_string(&e, "format", "YUYV");
	emit_uint(&e, "width", b->info.format.width);
	emit_uint(&e, "height", b->info.format.height);
	emit_uint(&e, "frames", args.frames);
	emit_uint(&e, "captured_frames", b->frames);
	emit_path(&e, "zero_copy", zero);
	emit_path(&e, "copy", copy);
	emit_double(&e, "ratio_submit_cpu_per_frame", submit, 4);
	emit_double(&e, "ratio_cpu_per_frame", total, 4);
	emit_finish(&e);
}

static void print_result(const struct bench *b, const struct path_result *zero,
			 const struct path_result *copy)
{
	double submit = zero->phase[SUBMIT].median / copy->phase[SUBMIT].median;
	double total = zero->phase[TOTAL].median / copy->phase[TOTAL].median;

	if (args.json) {
		print_json(b, zero, copy, submit, total);
		return;
	}
	printf("llmem bench codec: %u frame%s %ux%u YUYV captured by %s (%s, %s pages), encoded "
	       "to FWHT by %s, %llu frame%s per path\n",
	       b->frames, cli_plural(b->frames), b->info.format.width, b->info.format.height,
	       b->info.device, b->info.driver, llmem_backend_name(b->info.backend), b->encoder,
	       (unsigned long long)args.frames, cli_plural(args.frames));
	printf("  thread CPU per frame, us: median (min-max)\n");
	for (int k = 0; k < 2; k++) {
		const struct path_result *r = k ? copy : zero;

		printf("  %-9s", k ? "copy" : "zero-copy");
		for (int p = 0; p < PHASES; p++)
			printf(" %s %.1f (%.1f-%.1f)", phase_names[p], r->phase[p].median,
			       r->phase[p].min, r->phase[p].max);
		printf(" | user %.1f system %.1f, other threads %.1f | copied %llu B/frame\n",
		       r->user_us, r->system_us, r->other_threads_us,
		       (unsigned long long)r->bytes_copied_per_frame);
	}
	printf("  ratio zero-copy/copy: submit %.3f, total %.3f (the encoding, the same work on "
	       "both paths, runs in the feeding thread)\n",
	       submit, total);
	printf("  the paths take turns frame by frame, each first every other frame; left out: "
	       "the capture\n  (before, once), opening the encoders, the bitstream check\n");
}

static void release(struct bench *b)
{
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
		llmem_dmabuf_unmap(b->frame_map[i], b->raw_size);
		if (b->frame_fd[i] >= 0)
			close(b->frame_fd[i]);
	}
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++)
		codec_buf_free(&b->bits[i]);
	llmem_camera_close(b->cam);
	llmem_session_destroy(b->session);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct path_result res[2];
	struct bench b = { 0 };
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		b.frame_fd[i] = -1;
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++)
		b.bits[i].fd = -1;
	ret = setup(&b);
	if (!ret)
		ret = run_paths(&b, res);
	if (!ret && (res[0].bitstream_bytes != res[1].bitstream_bytes ||
		     res[0].bitstream_hash != res[1].bitstream_hash)) {
		fprintf(stderr,
			"llmem bench codec: the paths made different bitstreams (%llu and %llu "
			"bytes)\n",
			(unsigned long long)res[0].bitstream_bytes,
			(unsigned long long)res[1].bitstream_bytes);
		ret = -EIO;
	}
	if (!ret)
		print_result(&b, &res[0], &res[1]);
	release(&b);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_bench_codec = {
	.name = "bench codec",
	.summary = "an encoder fed captured llmem frames against MMAP buffers + memcpy",
	.description =
		"Captures frames from a V4L2 camera into llmem pages, then encodes them with a\n"
		"V4L2 memory-to-memory encoder (FWHT, vicodec) twice: queued as the DMA-BUFs\n"
		"they are, and through the encoder's own MMAP buffers filled by memcpy from\n"
		"the same frames.  Prints the bytes copied and the feeding thread's CPU time\n"
		"per frame of both, in phases: submit (the copy and the queueing), encode (the\n"
		"driver's job, which runs in the feeding thread) and collect, with their\n"
		"ratios, and checks that both paths made the same bitstream.",
	.options = options,
	.run = run,
};
