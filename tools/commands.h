/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TOOLS_COMMANDS_H
#define LLMEM_TOOLS_COMMANDS_H

struct llmem_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Subcommands, one file each, listed in llmem.c. */

/* llmem info: the device as a session describes it (cmd_info.c). */
int llmem_cmd_info(int argc, char **argv);

/* llmem camera: the zero-copy capture pipeline (cmd_camera.c). */
int llmem_cmd_camera(int argc, char **argv);

/* llmem bench NAME: the benchmarks, each against its peer (bench.c). */
int llmem_cmd_bench(int argc, char **argv);

/* Benchmarks under "llmem bench", one file each, listed in bench.c. */
int llmem_bench_alloc(int argc, char **argv);
int llmem_bench_kernel(int argc, char **argv);
int llmem_bench_camera(int argc, char **argv);
int llmem_bench_transfer(int argc, char **argv);

#endif
