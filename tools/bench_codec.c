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
 * two phases so that the encoding is timed apart: submit
 * (llmem_encoder_push(): the copy path's memcpy, between the DMA-BUF's
 * CPU-access brackets, and VIDIOC_QBUF of the frame, with no bitstream
 * buffer queued yet, so nothing runs) and encode (llmem_encoder_pull():
 * VIDIOC_QBUF of the bitstream buffer, which runs the driver's job, and
 * VIDIOC_DQBUF of both).  Submit is the phase the paths differ in; a
 * hardware encoder's job would cost the CPU next to nothing in encode.
 *
 * Above 400 lines, it stays one file: the capture, the paths fed in turn
 * and the report are one measurement, and each part reads the others'
 * structures.
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

#include "commands.h"
#include "emit.h"
#include "encoder_queue.h"
#include "stat3.h"
#include "progress.h"
#include "timing.h"

#define TIMEOUT_MS 10000

enum phase {
	SUBMIT,
	ENCODE,
	TOTAL,
	PHASES
};

static const char *const phase_names[PHASES] = { "submit", "encode", "total" };

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
	/* The captured frames: their DMA-BUFs (the camera's), and mapped for
	 * the copy path. */
	struct llmem_codec_frame frame[LLMEM_CAMERA_MAX_BUFFERS];
	uint32_t frames, raw_size;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem bench codec: %s: %s\n", what, llmem_last_error());
	return err;
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
 * what it wrote last.  No conversion: only the encoder reads them, and
 * they are laid out for its OUTPUT queue (negotiate.h).
 */
static int capture(struct bench *b)
{
	struct llmem_participant queue;
	char path[64];
	struct llmem_camera_create_info cci = {
		.device = args.device,
		.fourcc = V4L2_PIX_FMT_YUYV,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.flags = LLMEM_CAMERA_CONVERT_LATER | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
		.participants = &queue,
		.num_participants = 1,
	};
	uint32_t seen = 0, all;
	int ret;

	ret = encoder_queue(args.encoder, V4L2_PIX_FMT_YUYV, args.size[0], args.size[1], path,
			    sizeof(path), &queue);
	if (ret)
		return fail(ret, "the encoder and what it takes");
	ret = llmem_camera_open(b->session, &cci, &b->cam);
	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(b->cam, &b->info);
	all = (1u << b->info.buffers) - 1;
	ret = llmem_camera_start(b->cam);
	for (uint32_t n = 0; !ret && seen != all && n < 4 * b->info.buffers; n++) {
		struct llmem_camera_frame f;

		ret = llmem_camera_next(b->cam, TIMEOUT_MS, &f);
		if (!ret) {
			seen |= 1u << f.index;
			b->frame[f.index] = (struct llmem_codec_frame){ .fd = { f.fd[0], -1 },
									.num_planes = 1 };
		}
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
		ret = llmem_dmabuf_map(b->frame[i].fd[0], 0, b->raw_size, LLMEM_CPU_READ,
				       &b->frame[i].data[0]);
		if (ret)
			return fail(ret, "the frame's mapping");
	}
	return 0;
}

/* An encoder with its formats set, on the zero-copy or the copy path. */
static int open_encoder(struct bench *b, bool copy, struct llmem_encoder **out)
{
	struct llmem_encoder_create_info eci = {
		.device = args.encoder,
		.width = b->info.layout.width,
		.height = b->info.layout.height,
		.coded_width = b->info.layout.coded_width,
		.coded_height = b->info.layout.coded_height,
		.pitch = b->info.format.bytesperline,
		.frames = b->frames,
		.flags = copy ? LLMEM_ENCODER_COPY : 0,
	};
	struct llmem_encoder_info info;
	int ret;

	ret = llmem_encoder_open(b->session, &eci, out);
	if (ret)
		return fail(ret, "open encoder");
	llmem_encoder_get_info(*out, &info);
	snprintf(b->encoder, sizeof(b->encoder), "%s", info.device);
	if (info.raw.sizeimage[0] != b->raw_size) {
		fprintf(stderr, "llmem bench codec: %s reads %u bytes a frame; %s gives %u\n",
			b->encoder, info.raw.sizeimage[0], b->info.device, b->raw_size);
		return -EINVAL;
	}
	return 0;
}

/* One frame in two timed phases (above); @t receives each phase's time. */
static int feed(struct bench *b, struct llmem_encoder *enc, bool copy, uint32_t n,
		struct path_result *res, double t[PHASES])
{
	struct llmem_codec_frame f = b->frame[n % b->frames];
	struct llmem_codec_packet p;
	double t0, t1;
	int ret;

	f.id = n;
	t0 = 1e6 * timing_s(CLOCK_THREAD_CPUTIME_ID);
	ret = llmem_encoder_push(enc, &f);
	t1 = 1e6 * timing_s(CLOCK_THREAD_CPUTIME_ID);
	if (!ret)
		ret = llmem_encoder_pull(enc, TIMEOUT_MS, &p);
	if (ret)
		return fail(ret, "encode");
	t[SUBMIT] = t1 - t0;
	t[ENCODE] = 1e6 * timing_s(CLOCK_THREAD_CPUTIME_ID) - t1;
	t[TOTAL] = t[SUBMIT] + t[ENCODE];
	res->bytes_copied_per_frame = copy ? b->raw_size : 0;
	/* The check that both paths made the same bitstream, not timed. */
	res->bitstream_bytes += p.size;
	res->bitstream_hash = fnv1a(res->bitstream_hash, p.data, p.size);
	return llmem_encoder_release_packet(enc, &p);
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
	c->thread = 1e6 * timing_s(CLOCK_THREAD_CPUTIME_ID);
	c->process = 1e6 * timing_s(CLOCK_PROCESS_CPUTIME_ID);
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
	struct llmem_encoder *enc[2] = { NULL, NULL };
	double *t = calloc(2 * PHASES * args.frames, sizeof(*t));
	struct progress pr;
	int ret;

	if (!t)
		return -ENOMEM;
	memset(res, 0, 2 * sizeof(*res));
	for (int k = 0; k < 2; k++)
		res[k].bitstream_hash = 0xcbf29ce484222325ull;
	ret = open_encoder(b, false, &enc[0]);
	if (!ret)
		ret = open_encoder(b, true, &enc[1]);
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
	llmem_encoder_close(enc[0]);
	llmem_encoder_close(enc[1]);
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
	int ret;

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
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		llmem_dmabuf_unmap(b->frame[i].data[0], b->raw_size);
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
		"per frame of both, in phases: submit (the copy and the queueing) and encode\n"
		"(the driver's job, which runs in the feeding thread, and taking the frame\n"
		"and its bitstream back), with their ratios, and checks that both paths made\n"
		"the same bitstream.",
	.options = options,
	.run = run,
};
