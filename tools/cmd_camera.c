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

#include <drm_fourcc.h>

#include <llmem/convert.h>
#include <llmem/share.h>

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
		*fourcc = DRM_FORMAT_YUYV;
	else if (!strcmp(s, "NV12"))
		*fourcc = DRM_FORMAT_NV12;
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
		.fourcc = DRM_FORMAT_YUYV,
		.width = 1280,
		.height = 720,
		.frames = 30,
		.buffers = 4,
		.input = -1,
		.path = CAMERA_ZERO_COPY,
		.encoding = -1,
		.range = -1,
	};
	struct camera_result r;
	char summary[4096];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "d:f:s:n:o:i:b:cB:C67FLh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o.device = optarg;
			break;
		case 'f':
			if (camera_parse_format(optarg, &o.fourcc)) {
				fprintf(stderr, "llmem camera: format %s: YUYV or NV12\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (sscanf(optarg, "%ux%u", &o.width, &o.height) != 2) {
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
			o.input = atoi(optarg);
			break;
		case 'b':
			o.buffers = (uint32_t)strtoul(optarg, NULL, 10);
			break;
		case 'c':
			o.path = CAMERA_COPY;
			break;
		case 'B':
			if (camera_parse_backend(optarg, &o.backend)) {
				fprintf(stderr, "llmem camera: unknown backend %s\n", optarg);
				return 2;
			}
			break;
		case 'C':
			o.contiguous = 1;
			break;
		case '6':
			o.encoding = LLMEM_YCBCR_BT601;
			break;
		case '7':
			o.encoding = LLMEM_YCBCR_BT709;
			break;
		case 'F':
			o.range = LLMEM_YCBCR_FULL_RANGE;
			break;
		case 'L':
			o.range = LLMEM_YCBCR_LIMITED_RANGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.device || !o.frames || !o.buffers || optind != argc) {
		usage(stderr);
		return 2;
	}
	ret = camera_run(&o, &r);
	if (ret)
		return 1;
	printf("llmem camera: %u frames %ux%u %.4s from %s (%s) in %.2f s (%.1f fps), %s path, "
	       "backend %s\n",
	       r.frames, o.width, o.height, (const char *)&o.fourcc, o.device, r.driver, r.seconds,
	       r.frames / r.seconds, o.path == CAMERA_ZERO_COPY ? "zero-copy" : "copy", r.backend);
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
