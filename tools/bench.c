// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const struct llmem_command benchmarks[] = {
	{ "alloc", "sub-allocator vs one vkAllocateMemory per object", llmem_bench_alloc },
	{ "kernel", "llmem.ko ALLOC+mmap+touch vs DMA heap and udmabuf", llmem_bench_kernel },
	{ "camera", "zero-copy capture vs V4L2 MMAP + memcpy + upload", llmem_bench_camera },
	{ "transfer", "mapped and staged transfers vs memcpy and vkCmdCopyBuffer",
	  llmem_bench_transfer },
};

int llmem_cmd_bench(int argc, char **argv)
{
	size_t n = sizeof(benchmarks) / sizeof(benchmarks[0]);

	if (argc >= 2) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(argv[1], benchmarks[i].name))
				return benchmarks[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "usage: llmem bench NAME [ARGS...]\n\nbenchmarks:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  %-8s %s\n", benchmarks[i].name, benchmarks[i].summary);
	return 2;
}
