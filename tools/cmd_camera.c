// SPDX-License-Identifier: MIT
/*
 * llmem camera: capture through the zero-copy path, convert on the device,
 * write PNG frames and summary.json.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/convert.h>
#include <llmem/memory.h>

#include "camera.h"
#include "commands.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: llmem camera --device /dev/videoN [--format YUYV|NV12] [--size WxH]\n"
		     "                    [--frames N] [--out DIR] [--input N] [--buffers N]\n"
		     "                    [--copy] [--backend "
		     "vulkan-dmabuf|llmem-dmabuf|llmem-host-pointer]\n"
		     "                    [--contiguous] [--bt709] [--full-range]\n");
}

int camera_parse_format(const char *s, uint32_t *fourcc)
{
	if (!strcmp(s, "YUYV"))
		*fourcc = V4L2_PIX_FMT_YUYV;
	else if (!strcmp(s, "NV12"))
		*fourcc = V4L2_PIX_FMT_NV12;
	else
		return -EINVAL;
	return 0;
}

int camera_parse_backend(const char *s, uint32_t *backend)
{
	for (uint32_t b = LLMEM_BACKEND_VULKAN_DMABUF; b <= LLMEM_BACKEND_LLMEM_HOST_POINTER; b++)
		if (!strcmp(s, llmem_backend_name(b))) {
			*backend = b;
			return 0;
		}
	return -EINVAL;
}

int llmem_cmd_camera(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "copy", no_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'B' },
		{ "contiguous", no_argument, NULL, 'C' },
		{ "bt601", no_argument, NULL, '6' },
		{ "bt709", no_argument, NULL, '7' },
		{ "full-range", no_argument, NULL, 'F' },
		{ "limited-range", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct camera_options o = {
		.create = {
			.fourcc = V4L2_PIX_FMT_YUYV,
			.width = 1280,
			.height = 720,
			.buffers = 4,
		},
		.frames = 30,
	};
	struct llmem_camera_create_info *c = &o.create;
	struct camera_result r;
	char summary[4096];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "d:f:s:n:o:i:b:cB:C67FLh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			c->device = optarg;
			break;
		case 'f':
			if (camera_parse_format(optarg, &c->fourcc)) {
				fprintf(stderr, "llmem camera: format %s: YUYV or NV12\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (sscanf(optarg, "%ux%u", &c->width, &c->height) != 2) {
				fprintf(stderr, "llmem camera: size %s: WIDTHxHEIGHT\n", optarg);
				return 2;
			}
			break;
		case 'n':
			o.frames = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		case 'i':
			c->input = (uint32_t)atoi(optarg);
			c->flags |= LLMEM_CAMERA_INPUT;
			break;
		case 'b':
			c->buffers = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			c->flags |= LLMEM_CAMERA_COPY;
			break;
		case 'B':
			if (camera_parse_backend(optarg, &c->backend)) {
				fprintf(stderr, "llmem camera: unknown backend %s\n", optarg);
				return 2;
			}
			break;
		case 'C':
			c->flags |= LLMEM_CAMERA_CONTIGUOUS;
			break;
		case '6':
		case '7':
			c->encoding = opt == '7' ? LLMEM_YCBCR_BT709 : LLMEM_YCBCR_BT601;
			c->flags |= LLMEM_CAMERA_ENCODING;
			break;
		case 'F':
		case 'L':
			c->range = opt == 'F' ? LLMEM_YCBCR_FULL_RANGE : LLMEM_YCBCR_LIMITED_RANGE;
			c->flags |= LLMEM_CAMERA_RANGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!c->device || !o.frames || !c->buffers || optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = camera_run(&o, &r);
	if (ret)
		return 1;
	printf("llmem camera: %u frames %ux%u %.4s from %s (%s) in %.2f s (%.1f fps), %s path, "
	       "backend %s\n",
	       r.frames, c->width, c->height, (const char *)&c->fourcc, r.info.device,
	       r.info.driver, r.seconds, r.frames / r.seconds,
	       c->flags & LLMEM_CAMERA_COPY ? "copy" : "zero-copy",
	       c->flags & LLMEM_CAMERA_COPY ? "copy" : llmem_backend_name(r.info.backend));
	printf("  CPU per frame %.1f us (median), conversion %.1f us, %llu bytes copied per "
	       "frame\n",
	       r.cpu_us_median, r.convert_us_median, (unsigned long long)r.bytes_copied_per_frame);
	if (o.out_dir) {
		snprintf(summary, sizeof(summary), "%s/summary.json", o.out_dir);
		if (camera_write_summary(summary, &o, &r))
			return 1;
		printf("  frames and summary.json in %s\n", o.out_dir);
	}
	return 0;
}
