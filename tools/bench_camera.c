// SPDX-License-Identifier: MIT
/*
 * llmem bench camera: the zero-copy path against the copy path (V4L2 MMAP,
 * memcpy into a staging buffer, upload) on the same device, format and size
 * in one run.  The figure that matters is the CPU time of the pipeline
 * thread per frame, from DQBUF until the frame is converted: on lavapipe the
 * conversion itself also runs on the CPU, in the driver's threads, and is
 * reported apart.
 */
#include <stdbool.h>
#include <stdio.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/memory.h>

#include "camera.h"
#include "commands.h"

static struct {
	const char *device;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames;
	uint64_t input;
	uint32_t backend;
	bool json, quiet;
	bool input_given;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 1280, 720 },
	.frames = 60,
};

static const struct cli_option options[] = {
	{ .name = "device",
	  .short_name = 'd',
	  .type = CLI_PATH,
	  .value = &args.device,
	  .meta = "PATH",
	  .help = "the capture node; default: the first that imports DMA-BUFs" },
	{ .name = "format",
	  .short_name = 'f',
	  .type = CLI_CHOICE,
	  .value = &args.format,
	  .meta = "FOURCC",
	  .choices = camera_capture_formats,
	  .help = "the pixel format (default YUYV)" },
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_WXH,
	  .value = args.size,
	  .meta = "WxH",
	  .min = 2,
	  .max = 16384,
	  .help = "frame size in pixels (default 1280x720)" },
	{ .name = "frames",
	  .short_name = 'n',
	  .type = CLI_UINT,
	  .value = &args.frames,
	  .meta = "N",
	  .min = 1,
	  .max = 1000000,
	  .help = "frames per path (default 60)" },
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	{ .name = "backend",
	  .short_name = 'B',
	  .type = CLI_CHOICE,
	  .value = &args.backend,
	  .meta = "NAME",
	  .choices = camera_backends,
	  .help = "where the zero-copy frames' pages come from (default: the best)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

static void print_row(const char *name, const struct camera_result *r, bool copy)
{
	printf("  %-10s cpu/frame median %9.1f us  min %9.1f  max %9.1f | fps %6.1f | "
	       "convert %9.1f us | copied %8llu B/frame | %s\n",
	       name, r->cpu_us_median, r->cpu_us_min, r->cpu_us_max, r->frames / r->seconds,
	       r->convert_us_median, (unsigned long long)r->bytes_copied_per_frame,
	       copy ? "copy" : llmem_backend_name(r->info.backend));
}

static void print_json_path(const char *key, const struct camera_result *r, bool copy)
{
	printf("\"%s\": {\"backend\": \"%s\", \"fps\": %.2f, \"cpu_us_per_frame\": "
	       "{\"median\": %.1f, \"min\": %.1f, \"max\": %.1f}, \"convert_us_per_frame\": %.1f, "
	       "\"bytes_copied_per_frame\": %llu}",
	       key, copy ? "copy" : llmem_backend_name(r->info.backend), r->frames / r->seconds,
	       r->cpu_us_median, r->cpu_us_min, r->cpu_us_max, r->convert_us_median,
	       (unsigned long long)r->bytes_copied_per_frame);
}

static void print_json(const struct camera_result *zero, const struct camera_result *copy)
{
	const struct llmem_v4l2_format *f = &zero->info.format;

	printf("{\"device\": \"%s\", \"driver\": \"%s\", \"format\": \"%.4s\", \"width\": %u, "
	       "\"height\": %u, \"frames\": %u, ",
	       zero->info.device, zero->info.driver, (const char *)&f->fourcc, f->width, f->height,
	       zero->frames);
	print_json_path("zero_copy", zero, false);
	printf(", ");
	print_json_path("copy", copy, true);
	printf(", \"ratio_cpu_per_frame\": %.4f}\n", zero->cpu_us_median / copy->cpu_us_median);
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
	struct camera_result zero, copy;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	o.create.device = args.device;
	o.create.fourcc = args.format;
	o.create.width = args.size[0];
	o.create.height = args.size[1];
	o.create.backend = args.backend;
	o.create.input = (uint32_t)args.input;
	if (args.input_given)
		o.create.flags |= LLMEM_CAMERA_INPUT;
	o.frames = (uint32_t)args.frames;
	o.quiet = args.quiet;

	if (camera_run(&o, &zero))
		return CLI_FAILED;
	/* The copy path on the device the zero-copy path found. */
	o.create.device = zero.info.device;
	o.create.flags |= LLMEM_CAMERA_COPY;
	o.create.backend = 0;
	if (camera_run(&o, &copy))
		return CLI_FAILED;
	if (args.json) {
		print_json(&zero, &copy);
		return CLI_OK;
	}
	printf("camera %s, %.4s %ux%u, %u frame%s per path (CPU times on the pipeline thread)\n",
	       zero.info.device, (const char *)&args.format, args.size[0], args.size[1], o.frames,
	       cli_plural(o.frames));
	print_row("zero-copy", &zero, false);
	print_row("copy", &copy, true);
	printf("ratio zero-copy/copy: cpu/frame %.3f, bytes copied %llu vs %llu\n",
	       zero.cpu_us_median / copy.cpu_us_median,
	       (unsigned long long)zero.bytes_copied_per_frame,
	       (unsigned long long)copy.bytes_copied_per_frame);
	return CLI_OK;
}

const struct cli_command cmd_bench_camera = {
	.name = "bench camera",
	.summary = "zero-copy capture vs V4L2 MMAP + memcpy + upload",
	.description =
		"Captures the same frames through the zero-copy path and through the copy\n"
		"path (the driver's own buffers, a memcpy into a staging buffer, an upload),\n"
		"one after the other on one device, and prints the CPU time per frame of\n"
		"each on the pipeline thread, the conversion's time, the bytes the CPU\n"
		"copied, and the ratio of the two paths' CPU time.",
	.options = options,
	.run = run,
};
