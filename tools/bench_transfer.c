// SPDX-License-Identifier: MIT
/*
 * llmem bench transfer: host-to-device and device-to-host bandwidth through
 * each path of the transfer queue (mapped, staging ring), next to plain
 * memcpy of the same size and, for uploads, vkCmdCopyBuffer from host-visible
 * to device-local memory, all measured in the same run.
 *
 * Every figure is the median over --runs blocking transfers of --size bytes,
 * with min and max; the ratio compares medians.  This file times the paths
 * (bench_transfer_paths.c) and reports.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_transfer_paths.h"
#include "commands.h"
#include "emit.h"
#include "progress.h"
#include "timing.h"

#define MAX_RUNS 64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct figure {
	double med, min, max;
};

static int measure(struct transfer_bench *b, int runs, struct figure out[PATHS])
{
	double gbs[PATHS][MAX_RUNS];
	struct progress pr;
	int ret;

	/* One warm-up of each path: pages, pipelines and the ring exist after it. */
	for (int p = 0; p < PATHS; p++) {
		ret = transfer_bench_run(b, p);
		if (ret)
			return ret;
	}
	/* Interleaved, so that a slow phase of the machine hits every path alike,
	 * the first path rotating from run to run: none always runs on what the
	 * same neighbour left in the caches. */
	progress_start(&pr, "llmem bench transfer", "runs", (uint64_t)runs, b->quiet);
	for (int r = 0; r < runs; r++) {
		progress_step(&pr, (uint64_t)r);
		for (int j = 0; j < PATHS; j++) {
			int p = (j + r) % PATHS;
			double t0 = timing_s(CLOCK_MONOTONIC);

			ret = transfer_bench_run(b, p);
			if (ret) {
				progress_end(&pr);
				return ret;
			}
			gbs[p][r] = (double)b->size * (p == MEMCPY_PAIR ? 2 : 1) /
				    (timing_s(CLOCK_MONOTONIC) - t0) / 1e9;
		}
	}
	progress_step(&pr, (uint64_t)runs);
	progress_end(&pr);
	for (int p = 0; p < PATHS; p++) {
		qsort(gbs[p], (size_t)runs, sizeof(double), cmp_double);
		out[p].min = gbs[p][0];
		out[p].max = gbs[p][runs - 1];
		out[p].med =
			runs % 2 ? gbs[p][runs / 2] : (gbs[p][runs / 2 - 1] + gbs[p][runs / 2]) / 2;
	}
	return 0;
}

static struct {
	uint64_t size, runs, staging, chunk;
	bool json, quiet;
} args = {
	.size = 256ull << 20,
	.runs = 7,
};

/* Sizes count in MiB when given bare, as they always have here. */
#define MIB (1ull << 20)
#define PAGE 4096ull

static const struct cli_option options[] = {
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_SIZE,
	  .value = &args.size,
	  .meta = "SIZE",
	  .unit = MIB,
	  .align = 1,
	  .min = 1,
	  .max = 64ull << 30,
	  .help = "bytes per transfer, e.g. 4K, 256M or 1G; a bare number counts in MiB "
		  "(default 256M)" },
	{ .name = "runs",
	  .short_name = 'r',
	  .type = CLI_UINT,
	  .value = &args.runs,
	  .meta = "N",
	  .min = 1,
	  .max = MAX_RUNS,
	  .help = "transfers per path; medians over them (default 7)" },
	{ .name = "staging",
	  .short_name = 'S',
	  .type = CLI_SIZE,
	  .value = &args.staging,
	  .meta = "SIZE",
	  .unit = MIB,
	  .align = PAGE,
	  .min = PAGE,
	  .max = 1ull << 40,
	  .help = "the staging queue's ring, in whole 4 KiB pages; a bare number counts in "
		  "MiB (default 32M)" },
	{ .name = "chunk",
	  .short_name = 'c',
	  .type = CLI_SIZE,
	  .value = &args.chunk,
	  .meta = "SIZE",
	  .unit = MIB,
	  .align = PAGE,
	  .min = PAGE,
	  .max = 1ull << 40,
	  .help = "the staging queue's chunk, in whole 4 KiB pages; a bare number counts in "
		  "MiB (default: a quarter of the ring, at least 4K)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

static void print_json(const struct transfer_bench *b, const struct llmem_session_info *info,
		       const struct figure *f, int runs)
{
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_string(&e, "device", info->device_name);
	emit_string(&e, "driver", info->driver_name);
	emit_uint(&e, "size", b->size);
	emit_int(&e, "runs", runs);
	emit_uint(&e, "chunk", b->chunk);
	emit_object(&e, "paths");
	for (int p = 0; p < PATHS; p++) {
		if (p == HOSTPTR_UPLOAD && !b->wrapped)
			continue;
		emit_object(&e, transfer_path_names[p]);
		emit_double_sig(&e, "median_gbs", f[p].med, 6);
		emit_double_sig(&e, "min_gbs", f[p].min, 6);
		emit_double_sig(&e, "max_gbs", f[p].max, 6);
		emit_end(&e);
	}
	emit_end(&e);
	emit_double(&e, "ratio_staging_upload_copy", f[STAGED_WRITE].med / f[COPY_BUFFER].med, 4);
	emit_double(&e, "ratio_staging_upload_chunked", f[STAGED_WRITE].med / f[CHUNKED_COPY].med,
		    4);
	emit_double(&e, "ratio_staging_upload_memcpy", f[STAGED_WRITE].med / f[MEMCPY].med, 4);
	emit_finish(&e);
}

/* @bytes in the largest binary unit it fills, with as many digits as it needs. */
static void format_bytes(char *out, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB" };
	int u = 0;

	while (u < 3 && bytes >> (10 * (u + 1)))
		u++;
	if (bytes == 1)
		snprintf(out, len, "1 byte");
	else if (bytes % (1ull << (10 * u)) == 0)
		snprintf(out, len, "%llu %s", (unsigned long long)(bytes >> (10 * u)), units[u]);
	else
		snprintf(out, len, "%.6g %s", (double)bytes / (double)(1ull << (10 * u)), units[u]);
}

/*
 * The bandwidth unit of the table: the largest in which the slowest path's
 * median is still at least 1, so that tiny transfers show digits, not 0.00.
 */
static double rate_unit(const struct transfer_bench *b, const struct figure *f, const char **name)
{
	static const struct {
		double scale;
		const char *name;
	} units[] = { { 1e9, "GB/s" }, { 1e6, "MB/s" }, { 1e3, "kB/s" }, { 1, "B/s" } };
	double slowest = f[MEMCPY].med * 1e9;
	size_t u = 0;

	for (int p = 0; p < PATHS; p++)
		if ((p != HOSTPTR_UPLOAD || b->wrapped) && f[p].med * 1e9 < slowest)
			slowest = f[p].med * 1e9;
	while (u + 1 < sizeof(units) / sizeof(units[0]) && slowest < units[u].scale)
		u++;
	*name = units[u].name;
	return 1e9 / units[u].scale;
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_session_info info;
	struct figure f[PATHS];
	struct transfer_bench b = { .staging.flags = LLMEM_QUEUE_NO_MAPPING };
	const char *unit;
	char size[32];
	double k;
	int runs, ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (args.chunk && args.chunk > (args.staging ? args.staging : 32 * MIB))
		return cli_fail(cmd, CLI_USAGE,
				"--chunk %llu: expected at most the ring, %llu bytes",
				(unsigned long long)args.chunk,
				(unsigned long long)(args.staging ? args.staging : 32 * MIB));
	b.size = args.size;
	b.staging.staging_size = args.staging;
	b.staging.chunk_size = args.chunk;
	/* A quarter of a ring under 16 KiB would be a chunk under a page. */
	if (!args.chunk && args.staging && args.staging / 4 < PAGE)
		b.staging.chunk_size = PAGE;
	b.quiet = args.quiet;
	runs = (int)args.runs;
	ret = transfer_bench_setup(&b);
	if (!ret)
		ret = transfer_bench_verify(&b);
	if (!ret)
		ret = measure(&b, runs, f);
	if (ret) {
		cli_fail(cmd, CLI_FAILED, "%s", llmem_last_error());
		transfer_bench_teardown(&b);
		return CLI_FAILED;
	}
	llmem_session_get_info(b.s, &info);
	if (args.json) {
		print_json(&b, &info, f, runs);
		transfer_bench_teardown(&b);
		return CLI_OK;
	}
	printf("# device: %s (%s)\n", info.device_name, info.driver_name);
	format_bytes(size, sizeof(size), b.size);
	k = rate_unit(&b, f, &unit);
	printf("# %s per transfer, %s over %d run%s; mapped memory flags 0x%x\n", size, unit, runs,
	       cli_plural((uint64_t)runs), b.mapped_flags);
	if (b.wrapped)
		printf("# wrapping the %s source as a page took %.2f ms, once\n", size, b.wrap_ms);
	printf("%-24s %9s %9s %9s %10s %10s\n", "path", "median", "min", "max", "/memcpy",
	       "/vkCopy");
	for (int p = 0; p < PATHS; p++) {
		if (p == HOSTPTR_UPLOAD && !b.wrapped)
			continue;
		printf("%-24s %9.2f %9.2f %9.2f %10.2f %10.2f\n", transfer_path_names[p],
		       f[p].med * k, f[p].min * k, f[p].max * k, f[p].med / f[MEMCPY].med,
		       f[p].med / f[COPY_BUFFER].med);
	}
	printf("# two copies of every byte at the pair's pace: %.2f %s; staging upload %.2f, "
	       "download %.2f of it\n",
	       f[MEMCPY_PAIR].med / 2 * k, unit, f[STAGED_WRITE].med / (f[MEMCPY_PAIR].med / 2),
	       f[STAGED_READ].med / (f[MEMCPY_PAIR].med / 2));
	format_bytes(size, sizeof(size), b.chunk);
	printf("# %s chunks: staging upload %.2f of the device's copy in chunks\n", size,
	       f[STAGED_WRITE].med / f[CHUNKED_COPY].med);
	transfer_bench_teardown(&b);
	return CLI_OK;
}

const struct cli_command cmd_bench_transfer = {
	.name = "bench transfer",
	.summary = "mapped and staged transfers vs memcpy and vkCmdCopyBuffer",
	.description =
		"Measures host-to-device and device-to-host bandwidth through each path of\n"
		"the transfer queue (a mapping, the staging ring, wrapped host memory) next\n"
		"to memcpy of the same size and vkCmdCopyBuffer from host-visible to\n"
		"device-local memory, all in one run; medians over --runs transfers of\n"
		"--size bytes, with min and max, and their ratios.",
	.options = options,
	.run = run,
};
