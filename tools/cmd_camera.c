// SPDX-License-Identifier: MIT
/*
 * llmem camera: capture through the zero-copy path, convert on the device,
 * write PNG frames and summary.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/convert.h>
#include <llmem/memory.h>

#include "camera.h"
#include "commands.h"
#include "report.h"

const struct cli_choice camera_formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV },
	{ "NV12", V4L2_PIX_FMT_NV12 },
	{ 0 },
};

const struct cli_choice camera_capture_formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV },
	{ "NV12", V4L2_PIX_FMT_NV12 },
	/* A buffer per plane: multi-planar nodes only. */
	{ "NV12M", V4L2_PIX_FMT_NV12M },
	/* libcamera's RGB streams (its BGR888 and RGB888): --libcamera only. */
	{ "RGB24", V4L2_PIX_FMT_RGB24 },
	{ "BGR24", V4L2_PIX_FMT_BGR24 },
	{ 0 },
};

const struct cli_choice camera_backends[] = {
	{ "vulkan-dmabuf", LLMEM_BACKEND_VULKAN_DMABUF },
	{ "llmem-dmabuf", LLMEM_BACKEND_LLMEM_DMABUF },
	{ "llmem-host-pointer", LLMEM_BACKEND_LLMEM_HOST_POINTER },
	{ 0 },
};

static struct {
	const char *device;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames;
	const char *out;
	uint64_t input;
	uint64_t buffers;
	bool copy;
	uint32_t backend;
	bool contiguous;
	bool bt601, bt709, full_range, limited_range;
	bool json, quiet;
	bool input_given, format_given;
	bool libcamera;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 1280, 720 },
	.frames = 30,
	.buffers = 4,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE
			  "; with --libcamera, libcamera's camera id (llmem devices)"),
	CLI_OPTION_FORMAT(&args.format, camera_capture_formats, &args.format_given,
			  "the pixel format (default YUYV, with --libcamera the camera's "
			  "choice; NV12M on multi-planar nodes, RGB24 and BGR24 with "
			  "--libcamera)"),
	CLI_OPTION_LIBCAMERA(&args.libcamera,
			     "capture from a camera of libcamera's (default its first)"),
	CLI_OPTION_SIZE(args.size, 2, 16384, NULL, "frame size in pixels (default 1280x720)"),
	CLI_OPTION_FRAMES(&args.frames, 1000000, NULL, "frames to capture (default 30)"),
	CLI_OPTION_OUT(&args.out, "write frame-NNN.png and summary.json into DIR"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	{ .name = "buffers",
	  .short_name = 'b',
	  .type = CLI_UINT,
	  .value = &args.buffers,
	  .meta = "N",
	  .min = 2,
	  .max = LLMEM_CAMERA_MAX_BUFFERS,
	  .help = "buffers to ask the driver for (default 4)" },
	{ .name = "copy",
	  .short_name = 'c',
	  .type = CLI_FLAG,
	  .value = &args.copy,
	  .help = "the copy path: the driver's own buffers, copied by the CPU" },
	CLI_OPTION_BACKEND(&args.backend,
			   "where the frames' pages come from (default: the best that works)"),
	{ .name = "contiguous",
	  .short_name = 'C',
	  .type = CLI_FLAG,
	  .value = &args.contiguous,
	  .help = "physically contiguous frames from the start" },
	{ .name = "bt601",
	  .type = CLI_FLAG,
	  .value = &args.bt601,
	  .help = "convert with BT.601 (default: what the driver says)" },
	{ .name = "bt709",
	  .type = CLI_FLAG,
	  .value = &args.bt709,
	  .help = "convert with BT.709 (default: what the driver says)" },
	{ .name = "full-range",
	  .type = CLI_FLAG,
	  .value = &args.full_range,
	  .help = "full-range Y'CbCr (default: what the driver says)" },
	{ .name = "limited-range",
	  .type = CLI_FLAG,
	  .value = &args.limited_range,
	  .help = "limited-range Y'CbCr (default: what the driver says)" },
	{ .name = "json",
	  .short_name = 'j',
	  .type = CLI_FLAG,
	  .value = &args.json,
	  .help = "print the summary as JSON on stdout (schema in docs/cli.md)" },
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

int camera_check_libcamera(const struct cli_command *cmd, bool libcamera, bool input_given,
			   bool format_given, uint32_t format)
{
	if (libcamera && input_given)
		return cli_fail(cmd, CLI_USAGE, "--libcamera has no --input");
	if (!libcamera && format_given &&
	    (format == V4L2_PIX_FMT_RGB24 || format == V4L2_PIX_FMT_BGR24))
		return cli_fail(cmd, CLI_USAGE,
				"--format %.4s is libcamera's: with --libcamera only",
				(const char *)&format);
	return CLI_OK;
}

uint32_t camera_fourcc(bool libcamera, bool format_given, uint32_t format)
{
	return libcamera && !format_given ? 0 : format;
}

static int check(const struct cli_command *cmd)
{
	int ret;

	if (args.bt601 && args.bt709)
		return cli_fail(cmd, CLI_USAGE, "--bt601 and --bt709 exclude each other");
	if (args.full_range && args.limited_range)
		return cli_fail(cmd, CLI_USAGE,
				"--full-range and --limited-range exclude each other");
	ret = camera_check_libcamera(cmd, args.libcamera, args.input_given, args.format_given,
				     args.format);
	if (ret)
		return ret;
	if (args.copy && (args.backend || args.contiguous))
		return cli_fail(cmd, CLI_USAGE,
				"--copy captures into the driver's buffers: --%s does not apply",
				args.backend ? "backend" : "contiguous");
	return CLI_OK;
}

static void options_to_camera(struct camera_options *o)
{
	struct llmem_camera_create_info *c = &o->create;

	*o = (struct camera_options){
		.create = {
			.device = args.device,
			.fourcc = camera_fourcc(args.libcamera, args.format_given, args.format),
			.width = args.size[0],
			.height = args.size[1],
			.buffers = (uint32_t)args.buffers,
			.input = (uint32_t)args.input,
			.backend = args.backend,
		},
		.frames = (uint32_t)args.frames,
		.out_dir = args.out,
		.quiet = args.quiet || args.json,
	};
	if (args.input_given)
		c->flags |= LLMEM_CAMERA_INPUT;
	if (args.libcamera)
		c->flags |= LLMEM_CAMERA_LIBCAMERA;
	if (args.copy)
		c->flags |= LLMEM_CAMERA_COPY;
	if (args.contiguous)
		c->flags |= LLMEM_CAMERA_CONTIGUOUS;
	if (args.bt601 || args.bt709) {
		c->flags |= LLMEM_CAMERA_ENCODING;
		c->encoding = args.bt709 ? LLMEM_YCBCR_BT709 : LLMEM_YCBCR_BT601;
	}
	if (args.full_range || args.limited_range) {
		c->flags |= LLMEM_CAMERA_RANGE;
		c->range = args.full_range ? LLMEM_YCBCR_FULL_RANGE : LLMEM_YCBCR_LIMITED_RANGE;
	}
}

static void print_human(const struct camera_options *o, const struct camera_result *r)
{
	const struct llmem_camera_info *i = &r->info;
	char cpu[32], convert[32];

	printf("llmem camera: %u frame%s %ux%u %.4s from %s (%s) in %.2f s (%.1f fps), %s path, "
	       "backend %s\n",
	       r->frames, cli_plural(r->frames), i->format.width, i->format.height,
	       (const char *)&i->format.fourcc, i->device, i->driver, r->seconds,
	       r->frames / r->seconds, args.copy ? "copy" : "zero-copy",
	       args.copy ? "copy" : llmem_backend_name(i->backend));
	report_duration(cpu, sizeof(cpu), r->cpu_us_median, "us");
	report_duration(convert, sizeof(convert), r->convert_us_median, "us");
	printf("  CPU per frame %s (median), conversion %s, %llu bytes copied per frame\n", cpu,
	       convert, (unsigned long long)r->bytes_copied_per_frame);
	if (r->frames_dropped || r->frames_corrupted)
		printf("  the driver skipped %llu frame%s and flagged %u corrupt\n",
		       (unsigned long long)r->frames_dropped, cli_plural(r->frames_dropped),
		       r->frames_corrupted);
	if (o->out_dir)
		printf("  frames, contact.png, timing.svg, summary.json and index.html in %s\n",
		       o->out_dir);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct camera_options o;
	struct camera_result r;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = check(cmd);
	if (ret)
		return ret;
	options_to_camera(&o);
	if (camera_run(&o, &r))
		return CLI_FAILED;
	if (o.out_dir && camera_write_report(&o, &r))
		return CLI_FAILED;
	if (args.json)
		camera_print_summary(stdout, &o, &r);
	else if (!args.quiet)
		print_human(&o, &r);
	return CLI_OK;
}

const struct cli_command cmd_camera = {
	.name = "camera",
	.summary = "capture, convert on the device, write PNGs (zero-copy)",
	.description =
		"Captures frames from a V4L2 camera (with --libcamera, one of libcamera's)\n"
		"straight into llmem pages shared as DMA-BUFs, converts each to RGBA on the\n"
		"device where it lies, and times the pipeline thread per frame.  With --out,\n"
		"writes each frame as a PNG and a summary.json of the run.  Without --device\n"
		"it takes the first capture node that imports DMA-BUFs and says which (with\n"
		"--libcamera, libcamera's first camera; `llmem devices` lists their ids).",
	.options = options,
	.run = run,
};
