// SPDX-License-Identifier: MIT
/*
 * llmem bench kernel: the cost of getting fresh DMA-BUF memory the CPU can
 * write — allocate, mmap the DMA-BUF, touch every page — from llmem.ko, from
 * the system DMA heap and from udmabuf (over a sealed memfd), interleaved in
 * one run, as medians with min and max, and as llmem's ratio to each peer.
 * A peer the running kernel lacks is reported as unavailable.
 */
#include <errno.h>
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

int llmem_bench_kernel(int argc, char **argv)
{
	static const struct {
		size_t size;
		int reps;
	} cases[] = { { 32UL << 20, 15 }, { 1UL << 20, 100 } };
	double times[NR_PATHS][MAX_REPS];
	int devs[NR_PATHS];
	int scale = 1;

	if (argc > 1)
		scale = atoi(argv[1]);
	if (scale < 1 || scale > 2) {
		fprintf(stderr, "usage: llmem bench kernel [REPEAT-SCALE 1|2]\n");
		return 2;
	}
	for (int p = 0; p < NR_PATHS; p++)
		devs[p] = path_open(p);
	if (devs[LLMEM] < 0) {
		fprintf(stderr, "bench kernel: /dev/llmem: %s (load llmem.ko)\n", strerror(errno));
		return 1;
	}

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

		for (int p = 0; p < NR_PATHS; p++) {
			if (devs[p] < 0 || times[p][0] < 0) {
				printf("%-12s %5zu KiB: unavailable on this kernel\n",
				       path_names[p], size >> 10);
				continue;
			}
			qsort(times[p], reps, sizeof(double), cmp_double);
			if (times[p][0] < 0) {
				printf("%-12s %5zu KiB: failed\n", path_names[p], size >> 10);
				continue;
			}
			med[p] = times[p][reps / 2];
			printf("%-12s %5zu KiB: %10.1f us median (%.1f..%.1f), %d runs\n",
			       path_names[p], size >> 10, med[p], times[p][0], times[p][reps - 1],
			       reps);
		}
		for (int p = HEAP; p < NR_PATHS; p++)
			if (med[LLMEM] > 0 && med[p] > 0)
				printf("ratio llmem/%s %zu KiB: %.2f (below 1: llmem faster)\n",
				       path_names[p], size >> 10, med[LLMEM] / med[p]);
	}
	for (int p = 0; p < NR_PATHS; p++)
		if (devs[p] >= 0)
			close(devs[p]);
	return 0;
}
