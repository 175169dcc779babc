// SPDX-License-Identifier: MIT
/*
 * llmem: the command-line front end.  Each subcommand lives in its own
 * file and is listed in commands.h.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct llmem_command commands[] = {
	{ "info", "describe the Vulkan device: memory, limits, capabilities", llmem_cmd_info },
	{ "camera", "capture, convert on the device, write PNGs (zero-copy)", llmem_cmd_camera },
	{ "bench", "run a benchmark against its peer", llmem_cmd_bench },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: llmem COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "llmem: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
