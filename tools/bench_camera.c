// SPDX-License-Identifier: MIT
/*
 * llmem bench camera: the zero-copy path against the copy path (V4L2 MMAP,
 * memcpy into a staging buffer, upload) on the same device, format and size
 * in one run.  The figure that matters is the CPU time of the pipeline
 * thread per frame, from DQBUF until the frame is converted: on lavapipe the
 * conversion itself also runs on the CPU, in the driver's threads, and is
 * reported apart.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/memory.h>

#include "camera.h"
#include "commands.h"

static void print_row(const char *name, const struct camera_result *r, bool copy)
{
	printf("  %-10s cpu/frame median %9.1f us  min %9.1f  max %9.1f | fps %6.1f | "
	       "convert %9.1f us | copied %8llu B/frame | %s\n",
	       name, r->cpu_us_median, r->cpu_us_min, r->cpu_us_max, r->frames / r->seconds,
	       r->convert_us_median, (unsigned long long)r->bytes_copied_per_frame,
	       copy ? "copy" : llmem_backend_name(r->info.backend));
}

int llmem_bench_camera(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "input", required_argument, NULL, 'i' },
		{ "backend", required_argument, NULL, 'B' },
		{ 0 },
	};
	struct camera_options o = {
		.create = {
			.fourcc = V4L2_PIX_FMT_YUYV,
			.width = 1280,
			.height = 720,
			.buffers = 4,
		},
		.frames = 60,
	};
	struct llmem_camera_create_info *c = &o.create;
	struct camera_result zero, copy;
	int opt;

	while ((opt = getopt_long(argc, argv, "d:f:s:n:i:B:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->device = optarg;
			break;
		case 'f':
			if (camera_parse_format(optarg, &c->fourcc))
				return 2;
			break;
		case 's':
			if (sscanf(optarg, "%ux%u", &c->width, &c->height) != 2)
				return 2;
			break;
		case 'n':
			o.frames = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'i':
			c->input = (uint32_t)atoi(optarg);
			c->flags |= LLMEM_CAMERA_INPUT;
			break;
		case 'B':
			if (camera_parse_backend(optarg, &c->backend))
				return 2;
			break;
		default:
			fprintf(stderr,
				"usage: llmem bench camera --device /dev/videoN [--format "
				"YUYV|NV12] [--size WxH] [--frames N] [--input N] [--backend B]\n");
			return 2;
		}
	}
	if (!c->device || !o.frames) {
		fprintf(stderr, "llmem bench camera: --device is required\n");
		return 2;
	}

	if (camera_run(&o, &zero))
		return 1;
	c->flags |= LLMEM_CAMERA_COPY;
	if (camera_run(&o, &copy))
		return 1;

	printf("camera %s, %.4s %ux%u, %u frames per path (CPU times on the pipeline thread)\n",
	       c->device, (const char *)&c->fourcc, c->width, c->height, o.frames);
	print_row("zero-copy", &zero, false);
	print_row("copy", &copy, true);
	printf("ratio zero-copy/copy: cpu/frame %.3f, bytes copied %llu vs %llu\n",
	       zero.cpu_us_median / copy.cpu_us_median,
	       (unsigned long long)zero.bytes_copied_per_frame,
	       (unsigned long long)copy.bytes_copied_per_frame);
	return 0;
}
