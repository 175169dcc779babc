/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TOOLS_COMMANDS_H
#define LLMEM_TOOLS_COMMANDS_H

struct llmem_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Subcommands, one file each, listed in llmem.c. */

/* llmem bench NAME: the benchmarks, each against its peer (bench.c). */
int llmem_cmd_bench(int argc, char **argv);

/* Benchmarks under "llmem bench", one file each, listed in bench.c. */

#endif
