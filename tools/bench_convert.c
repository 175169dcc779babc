// SPDX-License-Identifier: MIT
/*
 * llmem bench convert: YUYV and NV12 frames converted to XRGB8888 by the
 * device through a converter with frames in flight, against libyuv on the
 * CPU in one thread and in bands of rows on every core, and against what
 * vkCmdCopyBuffer moves over the bus each way, all in one run.  Every path
 * is checked before it is timed, and llmem's frames in the timed rounds
 * too; the paths take turns in rounds, their order rotating, and each
 * figure is the median of the rounds with their min and max.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/convert.h>

#include "bench_convert.h"
#include "camera.h"
#include "commands.h"
#include "progress.h"

#define MIB (1ull << 20)

enum dst_place {
	DST_HOST,
	DST_DEVICE
};

static const struct cli_choice dst_choices[] = {
	{ "host", DST_HOST },
	{ "device", DST_DEVICE },
	{ 0 },
};

static const struct cli_choice encoding_choices[] = {
	{ "bt601", LLMEM_YCBCR_BT601 },
	{ "bt709", LLMEM_YCBCR_BT709 },
	{ 0 },
};

static struct {
	uint32_t size[2], format, dst, encoding;
	uint64_t frames, sources, in_flight, rounds, copy_size;
	bool size_given, format_given, json, quiet;
} args = {
	.frames = 120,
	.sources = 8,
	.in_flight = 3,
	.rounds = 3,
	.copy_size = 256 * MIB,
};

static const struct cli_option options[] = {
	CLI_OPTION_SIZE(args.size, 2, 8192, &args.size_given,
			"frame size in pixels (default: 1920x1080, then 3840x2160)"),
	CLI_OPTION_FORMAT(&args.format, camera_formats, &args.format_given,
			  "the source's pixel format (default: both, one after the other)"),
	CLI_OPTION_FRAMES(&args.frames, 100000, NULL,
			  "frames each path converts a round (default 120)"),
	{ .name = "sources",
	  .short_name = 'S',
	  .type = CLI_UINT,
	  .value = &args.sources,
	  .meta = "N",
	  .min = 2,
	  .max = CONVERT_MAX_SOURCES,
	  .help = "distinct source frames, converted in turn (default 8)" },
	{ .name = "in-flight",
	  .short_name = 'F',
	  .type = CLI_UINT,
	  .value = &args.in_flight,
	  .meta = "N",
	  .min = 1,
	  .max = CONVERT_MAX_IN_FLIGHT,
	  .help = "llmem's conversions unfinished at once (default 3)" },
	CLI_OPTION_ROUNDS(&args.rounds, CONVERT_MAX_ROUNDS,
			  "rounds the paths take turns in (default 3)"),
	{ .name = "dst",
	  .short_name = 'D',
	  .type = CLI_CHOICE,
	  .value = &args.dst,
	  .meta = "WHERE",
	  .choices = dst_choices,
	  .help = "llmem's destination frames in host-visible or device-local memory "
		  "(default host)" },
	{ .name = "encoding",
	  .short_name = 'E',
	  .type = CLI_CHOICE,
	  .value = &args.encoding,
	  .meta = "MATRIX",
	  .choices = encoding_choices,
	  .help = "the Y'CbCr matrix, limited range (default bt601)" },
	{ .name = "copy-size",
	  .short_name = 'c',
	  .type = CLI_SIZE,
	  .value = &args.copy_size,
	  .meta = "SIZE",
	  .unit = MIB,
	  .align = 4096,
	  .min = 4096,
	  .max = 16ull << 30,
	  .help = "bytes of the bus's copies each way, in whole 4 KiB pages; a bare number "
		  "counts in MiB (default 256M)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

#define MAX_CASES 4

/* The formats and sizes asked for, YUYV before NV12, 1080p before 2160p. */
static uint32_t plan(struct convert_case *cases)
{
	static const uint32_t sizes[][2] = { { 1920, 1080 }, { 3840, 2160 } };
	static const uint32_t formats[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_NV12 };
	uint32_t n = 0;

	for (int f = 0; f < 2; f++) {
		if (args.format_given && formats[f] != args.format)
			continue;
		for (int s = 0; s < 2; s++) {
			const uint32_t *wxh = args.size_given ? args.size : sizes[s];

			if (args.size_given && s)
				break;
			cases[n++] = (struct convert_case){ .fourcc = formats[f],
							    .width = wxh[0],
							    .height = wxh[1] };
		}
	}
	return n;
}

/* Each path once a round, the first rotating from round to round, so that
 * a slow phase of the machine and what a path leaves in the caches fall on
 * each alike. */
static int measure(struct convert_bench *b, struct convert_case *c, struct progress *pr,
		   uint64_t *step)
{
	for (uint32_t r = 0; r < b->set->rounds; r++) {
		for (int j = 0; j < CONVERT_PATHS; j++) {
			int ret = convert_case_run(b, c,
						   (enum convert_path)((j + r) % CONVERT_PATHS), r);

			if (ret)
				return ret;
		}
		progress_step(pr, ++*step);
	}
	for (int p = 0; p < CONVERT_PATHS; p++)
		for (int f = 0; f < CONVERT_FIGURES; f++)
			c->stat[p][f] = stat3_of(c->sample[p][f], b->set->rounds);
	return 0;
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	static struct convert_case cases[MAX_CASES];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct convert_settings set;
	struct convert_bench b = { 0 };
	struct progress pr;
	uint64_t step = 0;
	uint32_t count;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	set = (struct convert_settings){
		.frames = (uint32_t)args.frames,
		.sources = (uint32_t)args.sources,
		.rounds = (uint32_t)args.rounds,
		.in_flight = (uint32_t)args.in_flight,
		.threads = cores > 0 ? (uint32_t)cores : 1,
		.encoding = args.encoding,
		.tolerance = args.encoding == LLMEM_YCBCR_BT709 ? CONVERT_TOLERANCE_BT709
								: CONVERT_TOLERANCE_BT601,
		.dst_device = args.dst == DST_DEVICE,
		.quiet = args.quiet,
		.copy_size = args.copy_size,
	};
	if (args.size_given && (args.size[0] % 2 || args.size[1] % 2))
		return cli_fail(cmd, CLI_USAGE, "--size '%ux%u': expected an even width and height",
				args.size[0], args.size[1]);
	if (!cpu_convert_supports(V4L2_PIX_FMT_YUYV, args.encoding) &&
	    (!args.format_given || args.format == V4L2_PIX_FMT_YUYV))
		return cli_fail(cmd, CLI_USAGE,
				"--encoding bt709: libyuv %d has no YUY2ToARGBMatrix; add "
				"--format NV12",
				cpu_convert_version());
	count = plan(cases);
	ret = convert_bench_init(&b, &set);
	progress_start(&pr, "llmem bench convert", "rounds", (uint64_t)count * set.rounds,
		       set.quiet);
	for (uint32_t i = 0; i < count && !ret; i++) {
		ret = convert_case_init(&b, &cases[i]);
		if (!ret)
			ret = measure(&b, &cases[i], &pr, &step);
	}
	progress_end(&pr);
	if (ret)
		cli_fail(cmd, CLI_FAILED, "%s", b.error[0] ? b.error : llmem_last_error());
	else if (args.json)
		convert_print_json(&(struct convert_report){ &b, cases, count });
	else
		convert_print_text(&(struct convert_report){ &b, cases, count });
	for (uint32_t i = 0; i < count; i++)
		convert_case_fini(&cases[i]);
	convert_bench_fini(&b);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_bench_convert = {
	.name = "bench convert",
	.summary = "YUYV and NV12 to XRGB8888 by the device against libyuv and the bus",
	.description =
		"Converts YUYV and NV12 frames at 1920x1080 and 3840x2160 to XRGB8888 three\n"
		"ways in one run: by the device through llmem's converter with frames in\n"
		"flight, and on the CPU by libyuv in one thread and in bands of rows on every\n"
		"core.  The sources lie in host-visible memory, as a camera's frames do.  Every\n"
		"path is checked against libyuv before it is timed (the largest difference is\n"
		"printed), and pixels of every frame llmem converts in the timed rounds too.\n"
		"Prints frames per second and the process's CPU time per frame of each path,\n"
		"their ratios, and the bytes the conversion moved over the bus against what\n"
		"vkCmdCopyBuffer moves each way; where the Vulkan device is a CPU (lavapipe),\n"
		"ratios only.  The paths take turns in rounds; median, min and max of the\n"
		"rounds.",
	.options = options,
	.run = run,
};
