// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the `llmem` command line.  The input's first byte picks
 * a command; the rest, split at NUL bytes, are its arguments.  cli_parse()
 * (tools/cli_parse.c, with every command's real option table) must answer
 * with the operands' index or a negative exit status, never a crash or a
 * read past an argument, and cli_parse_size() and cli_parse_uint() must
 * return 0 or -1 for any string.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy, *argv[MAX_ARGS + 2];
	size_t ncmd = 0, start;
	int argc = 1, ret;
	uint64_t v;

	if (!size)
		return 0;
	while (cli_commands[ncmd])
		ncmd++;
	/* Each argument its own allocation, so ASan sees a read past its end. */
	argv[0] = strdup("llmem");
	start = 1;
	for (size_t i = 1; i <= size && argc <= MAX_ARGS; i++) {
		if (i == size || !data[i]) {
			copy = malloc(i - start + 1);
			memcpy(copy, data + start, i - start);
			copy[i - start] = '\0';
			argv[argc++] = copy;
			start = i + 1;
		}
	}
	argv[argc] = NULL;
	ret = cli_parse(cli_commands[data[0] % ncmd], argc, argv);
	if (ret > argc)
		abort();
	for (int i = 1; i < argc; i++) {
		if (cli_parse_size(argv[i], 1, &v) < -1 ||
		    cli_parse_uint(argv[i], 0, UINT64_MAX, &v) < -1)
			abort();
	}
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
