// SPDX-License-Identifier: MIT
/*
 * llmem devices: everything on this machine llmem can allocate from or
 * share with, and how, so that a user knows which --device to pass before
 * a command fails on the wrong one.
 */
#include <stdbool.h>

#include "commands.h"
#include "devices.h"

static struct {
	bool json, quiet;
} args;

static const struct cli_option options[] = {
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "accepted as every command accepts it: devices prints "
				      "no progress"),
	{ 0 },
};

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct emit e;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	emit_begin(&e, stdout, args.json);
	devices_vulkan(&e);
	devices_v4l2(&e);
	devices_libcamera(&e);
	devices_drm(&e);
	devices_kernel(&e);
	emit_finish(&e);
	return CLI_OK;
}

const struct cli_command cmd_devices = {
	.name = "devices",
	.summary = "list the devices llmem can allocate from or share with",
	.description =
		"Lists the Vulkan devices with what each can share; the V4L2 nodes with\n"
		"their role (capture, output, m2m), and for each queue the formats it takes\n"
		"and the memory it streams from (mmap, userptr, dmabuf, requests), and the\n"
		"node `llmem camera` takes without --device; libcamera's cameras, by the id\n"
		"`llmem camera --libcamera --device` takes; the DRM nodes with PRIME,\n"
		"modesetting and writeback; and the kernel's DMA-BUF providers: /dev/llmem,\n"
		"DMA heaps and udmabuf.  A device that cannot be opened is listed with the\n"
		"reason.  LLMEM_DEVICE is ignored: every Vulkan device is opened in turn.",
	.options = options,
	.run = run,
};
