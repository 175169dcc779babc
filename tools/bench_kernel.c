// SPDX-License-Identifier: MIT
/*
 * llmem bench kernel: the cost of getting fresh DMA-BUF memory the CPU can
 * write — allocate, mmap the DMA-BUF, touch every page — from llmem.ko, from
 * the system DMA heap and from udmabuf (over a sealed memfd), interleaved in
 * one run, as medians with min and max, and as llmem's ratio to each peer.
 * A peer the running kernel lacks is reported as unavailable.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-heap.h>
#include <linux/llmem.h>
#include <linux/udmabuf.h>

#include "commands.h"

#define PAGE 4096UL
#define MAX_REPS 200

enum {
	LLMEM,
	HEAP,
	UDMABUF,
	NR_PATHS
};

static const char *const path_names[NR_PATHS] = { "llmem", "system-heap", "udmabuf" };

static int path_open(int path)
{
	static const char *const devs[NR_PATHS] = {
		"/dev/llmem",
		"/dev/dma_heap/system",
		"/dev/udmabuf",
	};

	return open(devs[path], O_RDWR | O_CLOEXEC);
}

/* Returns a DMA-BUF of @size bytes from @path's device @dev, or -1. */
static int path_alloc(int path, int dev, size_t size)
{
	int memfd, fd = -1;

	switch (path) {
	case LLMEM: {
		struct llmem_alloc a = { .size = size, .flags = LLMEM_ALLOC_CLOEXEC };

		return ioctl(dev, LLMEM_IOC_ALLOC, &a) ? -1 : (int)a.fd;
	}
	case HEAP: {
		struct dma_heap_allocation_data d = {
			.len = size,
			.fd_flags = O_RDWR | O_CLOEXEC,
		};

		return ioctl(dev, DMA_HEAP_IOCTL_ALLOC, &d) ? -1 : (int)d.fd;
	}
	case UDMABUF: {
		struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = size };

		memfd = memfd_create("llmem-bench", MFD_ALLOW_SEALING | MFD_CLOEXEC);
		if (memfd < 0)
			return -1;
		if (ftruncate(memfd, size) == 0 && fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0) {
			c.memfd = memfd;
			fd = ioctl(dev, UDMABUF_CREATE, &c);
		}
		close(memfd);
		return fd;
	}
	}
	return -1;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One allocation, mmap and first touch; the time in µs, or a negative value. */
static double run_once(int path, int dev, size_t size)
{
	double t0 = now_us(), t1;
	volatile uint8_t *p;
	int fd = path_alloc(path, dev, size);

	if (fd < 0)
		return -1;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	for (size_t off = 0; off < size; off += PAGE)
		p[off] = 1;
	t1 = now_us();
	munmap((void *)p, size);
	close(fd);
	return t1 - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct {
	uint64_t scale;
	bool json;
} args = {
	.scale = 1,
};

static const struct cli_option options[] = {
	{ .name = "scale",
	  .type = CLI_UINT,
	  .value = &args.scale,
	  .meta = "N",
	  .min = 1,
	  .max = MAX_REPS / 100,
	  .help = "repetitions times N (default 1)" },
	CLI_OPTION_JSON(&args.json),
	{ 0 },
};

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct {
		size_t size;
		int reps;
	} cases[] = { { 32UL << 20, 15 }, { 1UL << 20, 100 } };
	double times[NR_PATHS][MAX_REPS];
	int devs[NR_PATHS];
	int scale, ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	scale = (int)args.scale;
	for (int p = 0; p < NR_PATHS; p++)
		devs[p] = path_open(p);
	if (devs[LLMEM] < 0)
		return cli_fail(cmd, CLI_FAILED, "/dev/llmem: %s (load llmem.ko)", strerror(errno));

	if (args.json)
		printf("{\"cases\": [");
	else
		printf("# alloc + mmap + first touch of every page; medians over the\n"
		       "# repetitions (min..max), paths interleaved in one run\n");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t size = cases[c].size;
		int reps = cases[c].reps * scale;
		double med[NR_PATHS] = { 0 };

		for (int p = 0; p < NR_PATHS; p++)
			if (devs[p] >= 0)
				run_once(p, devs[p], size);
		for (int r = 0; r < reps; r++)
			for (int p = 0; p < NR_PATHS; p++)
				times[p][r] = devs[p] < 0 ? -1 : run_once(p, devs[p], size);

		if (args.json)
			printf("%s{\"size\": %zu, \"runs\": %d", c ? ", " : "", size, reps);
		for (int p = 0; p < NR_PATHS; p++) {
			const char *why = NULL;

			if (devs[p] < 0 || times[p][0] < 0) {
				why = "unavailable on this kernel";
			} else {
				qsort(times[p], reps, sizeof(double), cmp_double);
				if (times[p][0] < 0)
					why = "failed";
				else
					med[p] = times[p][reps / 2];
			}
			if (args.json && why)
				printf(", \"%s\": null", path_names[p]);
			else if (args.json)
				printf(", \"%s\": {\"median_us\": %.1f, \"min_us\": %.1f, "
				       "\"max_us\": %.1f}",
				       path_names[p], med[p], times[p][0], times[p][reps - 1]);
			else if (why)
				printf("%-12s %5zu KiB: %s\n", path_names[p], size >> 10, why);
			else
				printf("%-12s %5zu KiB: %10.1f us median (%.1f..%.1f), %d runs\n",
				       path_names[p], size >> 10, med[p], times[p][0],
				       times[p][reps - 1], reps);
		}
		for (int p = HEAP; p < NR_PATHS; p++) {
			if (!(med[LLMEM] > 0 && med[p] > 0))
				continue;
			if (args.json)
				printf(", \"ratio_llmem_%s\": %.3f", path_names[p],
				       med[LLMEM] / med[p]);
			else
				printf("ratio llmem/%s %zu KiB: %.2f (below 1: llmem faster)\n",
				       path_names[p], size >> 10, med[LLMEM] / med[p]);
		}
		if (args.json)
			printf("}");
	}
	if (args.json)
		printf("]}\n");
	for (int p = 0; p < NR_PATHS; p++)
		if (devs[p] >= 0)
			close(devs[p]);
	return CLI_OK;
}

const struct cli_command cmd_bench_kernel = {
	.name = "bench kernel",
	.summary = "llmem.ko ALLOC+mmap+touch vs DMA heap and udmabuf",
	.description =
		"Times fresh DMA-BUF memory the CPU can write (allocate, mmap, touch every\n"
		"page) from llmem.ko, from the system DMA heap and from udmabuf, interleaved\n"
		"in one run, at 32 MiB and 1 MiB, and prints llmem's ratio to each peer the\n"
		"kernel has.  Needs /dev/llmem.",
	.options = options,
	.run = run,
};
