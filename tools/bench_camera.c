// SPDX-License-Identifier: MIT
/*
 * llmem bench camera: the zero-copy path against the copy path (V4L2 MMAP,
 * memcpy into a staging buffer, upload) on the same device, format and size
 * in one run.  The figure that matters is the CPU time of the pipeline
 * thread per frame, over the frame's whole cycle: from DQBUF through the
 * release's QBUF, which gives the buffer back (dearer on the zero-copy
 * path: the driver takes the DMA-BUF again).  On lavapipe the conversion
 * itself also runs on the CPU, in the driver's threads, and is reported
 * apart.
 *
 * The paths take turns in rounds, each round opening the camera afresh
 * for each path, the order swapped every round, so that the machine's load
 * (under QEMU's TCG the host's other work moves all the time) falls on
 * both alike; the ratio is taken per round and its spread printed.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "camera.h"
#include "commands.h"
#include "emit.h"
#include "stat3.h"

#define MAX_ROUNDS 100

static struct {
	const char *device;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames, rounds;
	uint64_t input;
	uint32_t backend;
	bool json, quiet;
	bool input_given, format_given;
	bool libcamera;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 1280, 720 },
	.frames = 60,
	.rounds = 4,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE),
	CLI_OPTION_FORMAT(&args.format, camera_capture_formats, &args.format_given,
			  "the pixel format (default YUYV, with --libcamera the camera's choice)"),
	CLI_OPTION_LIBCAMERA(
		&args.libcamera,
		"a camera of libcamera's (--device its id, default its first): its own "
		"buffers copied are the peer"),
	CLI_OPTION_SIZE(args.size, 2, 16384, NULL, "frame size in pixels (default 1280x720)"),
	CLI_OPTION_FRAMES(&args.frames, 1000000, NULL,
			  "frames per path, all rounds together (default 60)"),
	CLI_OPTION_ROUNDS(&args.rounds, MAX_ROUNDS,
			  "rounds the paths take turns in (default 4; no more than the frames)"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	CLI_OPTION_BACKEND(&args.backend,
			   "where the zero-copy frames' pages come from (default: the best)"),
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

/* A path's figures over every round. */
struct path {
	struct camera_result last; /* the device, backend and bytes copied */
	double *frame_cpu_us; /* every frame's, rounds one after another */
	double round_cpu_us[MAX_ROUNDS]; /* each round's median */
	double round_convert_us[MAX_ROUNDS];
	uint32_t frames;
	double seconds;
	struct stat3 cpu, cpu_rounds, convert;
};

/* One round of one path, its frames appended to the path's. */
static int run_round(struct llmem_session *session, struct camera_options *o, struct path *p,
		     uint32_t round)
{
	struct camera_result r;
	int ret;

	ret = camera_run_on(session, o, &r, p->frame_cpu_us + p->frames);
	if (ret)
		return ret;
	p->last = r;
	p->frames += r.frames;
	p->seconds += r.seconds;
	p->round_cpu_us[round] = r.cpu_us_median;
	p->round_convert_us[round] = r.convert_us_median;
	return 0;
}

static void print_row(const char *name, const struct path *p, bool copy)
{
	printf("  %-9s median %8.1f (frames %.1f-%.1f, rounds' medians %.1f-%.1f) | fps %5.1f | "
	       "convert %8.1f | copied %8llu B/frame | %s\n",
	       name, p->cpu.median, p->cpu.min, p->cpu.max, p->cpu_rounds.min, p->cpu_rounds.max,
	       p->frames / p->seconds, p->convert.median,
	       (unsigned long long)p->last.bytes_copied_per_frame,
	       copy ? "copy" : llmem_backend_name(p->last.info.backend));
}

static void emit_path(struct emit *e, const char *key, const struct path *p, bool copy)
{
	emit_object(e, key);
	emit_string(e, "backend", copy ? "copy" : llmem_backend_name(p->last.info.backend));
	emit_double(e, "fps", p->frames / p->seconds, 2);
	emit_stat3(e, "cpu_us_per_frame", &p->cpu, 1);
	emit_stat3(e, "cpu_us_per_frame_rounds", &p->cpu_rounds, 1);
	emit_double(e, "convert_us_per_frame", p->convert.median, 1);
	emit_uint(e, "bytes_copied_per_frame", p->last.bytes_copied_per_frame);
	emit_end(e);
}

static void print_json(const struct path *zero, const struct path *copy, uint32_t rounds,
		       const struct stat3 *ratio, bool lavapipe)
{
	const struct llmem_camera_info *i = &zero->last.info;
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_string(&e, "device", i->device);
	emit_string(&e, "driver", i->driver);
	emit_fourcc(&e, "format", i->format.fourcc);
	emit_uint(&e, "width", i->format.width);
	emit_uint(&e, "height", i->format.height);
	emit_uint(&e, "frames", zero->frames);
	emit_uint(&e, "rounds", rounds);
	emit_bool(&e, "lavapipe", lavapipe);
	emit_path(&e, "zero_copy", zero, false);
	emit_path(&e, "copy", copy, true);
	emit_double(&e, "ratio_cpu_per_frame", ratio->median, 4);
	emit_stat3(&e, "ratio_cpu_per_frame_rounds", ratio, 4);
	emit_finish(&e);
}

static void print_text(const struct path *zero, const struct path *copy, uint32_t rounds,
		       const struct stat3 *ratio, bool lavapipe)
{
	const struct llmem_camera_info *i = &zero->last.info;

	printf("camera %s, %.4s %ux%u, %u frame%s per path in %u round%s, the paths taking "
	       "turns (zero-copy first in odd rounds)\n",
	       i->device, (const char *)&i->format.fourcc, i->format.width, i->format.height,
	       zero->frames, cli_plural(zero->frames), rounds, cli_plural(rounds));
	printf("CPU time of the pipeline thread per frame, DQBUF through the release's QBUF, us; "
	       "convert: the\nconversion's wall time (median):\n");
	print_row("zero-copy", zero, false);
	print_row("copy", copy, true);
	printf("ratio zero-copy/copy, cpu/frame: median %.3f over %u round%s (%.3f-%.3f); bytes "
	       "copied %llu vs %llu\n",
	       ratio->median, rounds, cli_plural(rounds), ratio->min, ratio->max,
	       (unsigned long long)zero->last.bytes_copied_per_frame,
	       (unsigned long long)copy->last.bytes_copied_per_frame);
	printf("left out: opening, starting, stopping and closing the camera each round; the "
	       "conversion's own\nwork, the same on both paths, in the driver's threads%s\n",
	       lavapipe ? " (lavapipe: the CPU does it,\nand it is the bulk of the CPU's work per "
			  "frame: the convert column)"
			: "");
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct camera_options o = {
		.create = {
			.device = NULL,
			.buffers = 4,
		},
		.command = "llmem bench camera",
	};
	struct llmem_session_create_info sci = { .app_name = "llmem bench camera" };
	struct llmem_session_info si = { 0 };
	struct llmem_session *session = NULL;
	struct path paths[2] = { 0 };
	double ratios[MAX_ROUNDS];
	struct stat3 ratio;
	uint32_t rounds;
	bool lavapipe;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = camera_check_libcamera(cmd, args.libcamera, args.input_given, args.format_given,
				     args.format);
	if (ret)
		return ret;
	rounds = (uint32_t)(args.rounds < args.frames ? args.rounds : args.frames);
	o.create.device = args.device;
	o.create.fourcc = camera_fourcc(args.libcamera, args.format_given, args.format);
	o.create.width = args.size[0];
	o.create.height = args.size[1];
	o.create.backend = args.backend;
	o.create.input = (uint32_t)args.input;
	if (args.input_given)
		o.create.flags |= LLMEM_CAMERA_INPUT;
	if (args.libcamera)
		o.create.flags |= LLMEM_CAMERA_LIBCAMERA;
	o.quiet = args.quiet;
	for (int k = 0; k < 2; k++) {
		paths[k].frame_cpu_us = calloc(args.frames, sizeof(double));
		if (!paths[k].frame_cpu_us) {
			ret = cli_fail(cmd, CLI_FAILED, "out of memory");
			goto out;
		}
	}
	ret = llmem_session_create(&sci, &session);
	if (ret) {
		ret = cli_fail(cmd, CLI_FAILED, "Vulkan session: %s", llmem_last_error());
		goto out;
	}
	llmem_session_get_info(session, &si);
	lavapipe = strstr(si.device_name, "llvmpipe") != NULL;
	for (uint32_t r = 0; r < rounds; r++) {
		o.frames = (uint32_t)(args.frames / rounds + (r < args.frames % rounds));
		for (int turn = 0; turn < 2; turn++) {
			int k = (int)((r + turn) % 2); /* 0 zero-copy, 1 copy */
			struct camera_options po = o;

			if (k) {
				/* The copy path on the device the zero-copy path found. */
				po.create.flags |= LLMEM_CAMERA_COPY;
				po.create.backend = 0;
			}
			/* After the first round, the device the first run found. */
			if (paths[0].frames || paths[1].frames) {
				const struct path *seen = paths[0].frames ? &paths[0] : &paths[1];

				po.create.device = seen->last.info.device;
			}
			if (run_round(session, &po, &paths[k], r)) {
				ret = CLI_FAILED;
				goto out;
			}
		}
		ratios[r] = paths[0].round_cpu_us[r] / paths[1].round_cpu_us[r];
	}
	for (int k = 0; k < 2; k++) {
		paths[k].cpu = stat3_of(paths[k].frame_cpu_us, paths[k].frames);
		paths[k].cpu_rounds = stat3_of(paths[k].round_cpu_us, rounds);
		paths[k].convert = stat3_of(paths[k].round_convert_us, rounds);
	}
	ratio = stat3_of(ratios, rounds);
	if (args.json)
		print_json(&paths[0], &paths[1], rounds, &ratio, lavapipe);
	else
		print_text(&paths[0], &paths[1], rounds, &ratio, lavapipe);
	ret = CLI_OK;
out:
	llmem_session_destroy(session);
	free(paths[0].frame_cpu_us);
	free(paths[1].frame_cpu_us);
	return ret;
}

const struct cli_command cmd_bench_camera = {
	.name = "bench camera",
	.summary = "zero-copy capture vs V4L2 MMAP + memcpy + upload",
	.description = "Captures frames through the zero-copy path and through the copy path (the\n"
		       "driver's own buffers, a memcpy into a staging buffer, an upload) on one\n"
		       "device, taking turns in rounds, and prints the CPU time per frame of each\n"
		       "on the pipeline thread from DQBUF through the release's QBUF, the\n"
		       "conversion's time, the bytes the CPU copied, and the ratio of the two\n"
		       "paths' CPU time per round: its median, min and max.",
	.options = options,
	.run = run,
};
