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
#include "emit.h"
#include "progress.h"

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

/*
 * One allocation, mmap and first touch; the time in µs, or a negative value.
 * With @map_only the allocation is left out of the time: what mapping the
 * buffer costs alone.
 */
static double run_once(int path, int dev, size_t size, bool map_only)
{
	double t0 = now_us(), t1;
	volatile uint8_t *p;
	int fd = path_alloc(path, dev, size);

	if (fd < 0)
		return -1;
	if (map_only)
		t0 = now_us();
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
	uint64_t scale, runs;
	bool json, quiet, large;
	bool scale_given, runs_given;
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
	  .given = &args.scale_given,
	  .help = "repetitions times N (default 1: 15 at 32 MiB, 100 at 1 MiB, 11 above)" },
	{ .name = "runs",
	  .short_name = 'r',
	  .type = CLI_UINT,
	  .value = &args.runs,
	  .meta = "N",
	  .min = 1,
	  .max = MAX_REPS,
	  .given = &args.runs_given,
	  .help = "N repetitions at each size instead, for a quick look" },
	{ .name = "large",
	  .type = CLI_FLAG,
	  .value = &args.large,
	  .help = "also 256 MiB and a 512 MiB mmap alone (max_bytes >= 512 MiB)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

#define NR_CASES 4

/* The last case maps a buffer allocated outside the time (map_only). */
static const struct {
	size_t size;
	int reps;
	bool map_only;
} cases[NR_CASES] = {
	{ 32UL << 20, 15, false },
	{ 1UL << 20, 100, false },
	{ 256UL << 20, 11, false },
	{ 512UL << 20, 11, true },
};

/* Cases run: the first two, or with --large all four. */
static size_t nr_cases(void)
{
	return args.large ? NR_CASES : 2;
}

static int reps_of(size_t c)
{
	return args.runs_given ? (int)args.runs : cases[c].reps * (int)args.scale;
}

/* A path's figures at one size; @why says why there are none. */
struct figure {
	const char *why;
	double med, min, max;
};

/*
 * Every repetition of one size, the paths interleaved; warmed up first so
 * that no path pays for the others' first use of the page allocator.
 */
static void measure(const int devs[NR_PATHS], size_t c, struct progress *pr, uint64_t *done,
		    struct figure out[NR_PATHS])
{
	double times[NR_PATHS][MAX_REPS];
	int reps = reps_of(c);

	for (int p = 0; p < NR_PATHS; p++)
		if (devs[p] >= 0)
			run_once(p, devs[p], cases[c].size, cases[c].map_only);
	for (int r = 0; r < reps; r++) {
		for (int p = 0; p < NR_PATHS; p++)
			times[p][r] = devs[p] < 0 ? -1
						  : run_once(p, devs[p], cases[c].size,
							     cases[c].map_only);
		progress_step(pr, ++*done);
	}
	for (int p = 0; p < NR_PATHS; p++) {
		out[p] = (struct figure){ 0 };
		if (devs[p] < 0 || times[p][0] < 0) {
			out[p].why = "unavailable on this kernel";
			continue;
		}
		qsort(times[p], reps, sizeof(double), cmp_double);
		if (times[p][0] < 0) {
			out[p].why = "failed";
			continue;
		}
		out[p].med = times[p][reps / 2];
		out[p].min = times[p][0];
		out[p].max = times[p][reps - 1];
	}
}

static void print_json(const struct figure f[NR_CASES][NR_PATHS])
{
	char key[32];
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_array(&e, "cases");
	for (size_t c = 0; c < nr_cases(); c++) {
		emit_object(&e, NULL);
		emit_uint(&e, "size", cases[c].size);
		emit_bool(&e, "map_only", cases[c].map_only);
		emit_int(&e, "runs", reps_of(c));
		for (int p = 0; p < NR_PATHS; p++) {
			if (f[c][p].why) {
				emit_null(&e, path_names[p]);
				continue;
			}
			emit_object(&e, path_names[p]);
			emit_double(&e, "median_us", f[c][p].med, 1);
			emit_double(&e, "min_us", f[c][p].min, 1);
			emit_double(&e, "max_us", f[c][p].max, 1);
			emit_end(&e);
		}
		for (int p = HEAP; p < NR_PATHS; p++) {
			if (f[c][LLMEM].why || f[c][p].why)
				continue;
			snprintf(key, sizeof(key), "ratio_llmem_%s", path_names[p]);
			emit_double(&e, key, f[c][LLMEM].med / f[c][p].med, 3);
		}
		emit_end(&e);
	}
	emit_finish(&e);
}

static void print_human(const struct figure f[NR_CASES][NR_PATHS])
{
	printf("# alloc + mmap + first touch of every page (\"mmap\": mmap + touch\n"
	       "# of a buffer allocated untimed); medians over the repetitions\n"
	       "# (min..max), paths interleaved in one run\n");
	for (size_t c = 0; c < nr_cases(); c++) {
		size_t kib = cases[c].size >> 10;

		if (cases[c].map_only)
			printf("# mmap only\n");
		for (int p = 0; p < NR_PATHS; p++) {
			if (f[c][p].why)
				printf("%-12s %5zu KiB: %s\n", path_names[p], kib, f[c][p].why);
			else
				printf("%-12s %5zu KiB: %10.1f us median (%.1f..%.1f), %d run%s\n",
				       path_names[p], kib, f[c][p].med, f[c][p].min, f[c][p].max,
				       reps_of(c), cli_plural((uint64_t)reps_of(c)));
		}
		for (int p = HEAP; p < NR_PATHS; p++)
			if (!f[c][LLMEM].why && !f[c][p].why)
				printf("ratio llmem/%s %zu KiB: %.2f (below 1: llmem faster)\n",
				       path_names[p], kib, f[c][LLMEM].med / f[c][p].med);
	}
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct figure f[NR_CASES][NR_PATHS];
	int devs[NR_PATHS];
	struct progress pr;
	uint64_t total = 0, done = 0;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (args.scale_given && args.runs_given)
		return cli_fail(cmd, CLI_USAGE, "--runs and --scale exclude each other");
	for (int p = 0; p < NR_PATHS; p++)
		devs[p] = path_open(p);
	if (devs[LLMEM] < 0)
		return cli_fail(cmd, CLI_FAILED, "/dev/llmem: %s (load llmem.ko)", strerror(errno));
	for (size_t c = 0; c < nr_cases(); c++)
		total += (uint64_t)reps_of(c);
	/* Everything is measured before anything is printed, so that the
	 * progress line never shares the terminal with the figures. */
	progress_start(&pr, "llmem bench kernel", "runs", total, args.quiet);
	for (size_t c = 0; c < nr_cases(); c++)
		measure(devs, c, &pr, &done, f[c]);
	progress_end(&pr);
	for (int p = 0; p < NR_PATHS; p++)
		if (devs[p] >= 0)
			close(devs[p]);
	if (args.json)
		print_json(f);
	else
		print_human(f);
	return CLI_OK;
}

const struct cli_command cmd_bench_kernel = {
	.name = "bench kernel",
	.summary = "llmem.ko ALLOC+mmap+touch vs DMA heap and udmabuf",
	.description =
		"Times fresh DMA-BUF memory the CPU can write (allocate, mmap, touch every\n"
		"page) from llmem.ko, from the system DMA heap and from udmabuf, interleaved\n"
		"in one run, at 32 MiB and 1 MiB (--large: also 256 MiB, and mapping a\n"
		"512 MiB buffer alone), and prints llmem's ratio to each peer the kernel\n"
		"has.  Needs /dev/llmem.  Shows its progress on stderr, in runs of every\n"
		"path.",
	.options = options,
	.run = run,
};
