// SPDX-License-Identifier: MIT
/*
 * llmem bench transfer: host-to-device and device-to-host bandwidth through
 * each path of the transfer queue (mapped, staging ring), next to plain
 * memcpy of the same size and, for uploads, vkCmdCopyBuffer from host-visible
 * to device-local memory, all measured in the same run.
 *
 * Every figure is the median over --runs blocking transfers of --size bytes,
 * with min and max; the ratio compares medians.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llmem/llmem.h>
#include <llmem/transfer.h>

#include "commands.h"
#include "emit.h"
#include "progress.h"

#define MAX_RUNS 64

enum path {
	MEMCPY,
	MEMCPY_PAIR,
	MAPPED_WRITE,
	MAPPED_READ,
	STAGED_WRITE,
	STAGED_READ,
	COPY_BUFFER,
	CHUNKED_COPY,
	HOSTPTR_UPLOAD,
	PATHS,
};

static const char *const names[PATHS] = {
	[MEMCPY] = "memcpy host->host",		  [MEMCPY_PAIR] = "2 memcpys at once, sum",
	[MAPPED_WRITE] = "mapped write",	  [MAPPED_READ] = "mapped read",
	[STAGED_WRITE] = "staging upload",	  [STAGED_READ] = "staging download",
	[COPY_BUFFER] = "vkCmdCopyBuffer HV->DL", [CHUNKED_COPY] = "vkCmdCopyBuffer chunked",
	[HOSTPTR_UPLOAD] = "wrapped host upload",
};

struct bench {
	struct llmem_session *s;
	struct llmem_memory *visible, *local, *sysmem, *wrap_mem;
	/* mapped: host visible, device local if a type has both; dev: device local. */
	struct llmem_buffer *mapped, *dev, *src;
	/* b->host itself, wrapped as a page (llmem_memory_import_host()). */
	struct llmem_buffer *wrapped;
	double wrap_ms;
	struct llmem_queue *map_q, *stage_q;
	uint8_t *host, *back;
	/* The second pair of the two memcpys at once. */
	uint8_t *host2, *back2;
	/* The staging queue's chunk, for CHUNKED_COPY. */
	uint64_t chunk;
	uint64_t size;
	uint32_t mapped_flags;
	struct llmem_queue_create_info staging;
	bool quiet;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void *copy_second_pair(void *arg)
{
	struct bench *b = arg;

	memcpy(b->back2, b->host2, b->size);
	return NULL;
}

/*
 * Whether the machine's memory moves two copies at once faster than one:
 * the staging ring copies every byte twice (into the ring, then the
 * device's copy out of it), so where it does not, staging tops out near
 * half this sum.
 */
static int copy_pair(struct bench *b)
{
	pthread_t t;

	if (pthread_create(&t, NULL, copy_second_pair, b))
		return -EAGAIN;
	memcpy(b->back, b->host, b->size);
	pthread_join(t, NULL);
	return 0;
}

/*
 * The device's half of a staged upload alone: the same bytes copied from
 * host memory in one submission per chunk, as staging submits them.  Where
 * the device copies over PCIe, no staged upload with these chunks beats it,
 * however fast the host fills the ring; on a CPU device, where this copy is
 * a core's memcpy, a staged upload comes close to it.
 */
static int copy_in_chunks(struct bench *b)
{
	for (uint64_t off = 0; off < b->size; off += b->chunk) {
		uint64_t n = b->size - off < b->chunk ? b->size - off : b->chunk;
		struct llmem_event *e;
		int ret;

		ret = llmem_enqueue_copy_buffer(b->stage_q, b->src, off, b->dev, off, n, NULL, &e);
		if (ret)
			return ret;
		llmem_event_release(e);
	}
	return llmem_queue_finish(b->stage_q);
}

static int run_once(struct bench *b, enum path p)
{
	switch (p) {
	case MEMCPY:
		memcpy(b->back, b->host, b->size);
		return 0;
	case MEMCPY_PAIR:
		return copy_pair(b);
	case MAPPED_WRITE:
		return llmem_enqueue_write_buffer(b->map_q, b->mapped, 0, b->host, b->size, NULL,
						  NULL);
	case MAPPED_READ:
		return llmem_enqueue_read_buffer(b->map_q, b->mapped, 0, b->back, b->size, NULL,
						 NULL);
	case STAGED_WRITE:
		return llmem_enqueue_write_buffer(b->stage_q, b->dev, 0, b->host, b->size, NULL,
						  NULL);
	case STAGED_READ:
		return llmem_enqueue_read_buffer(b->stage_q, b->dev, 0, b->back, b->size, NULL,
						 NULL);
	case HOSTPTR_UPLOAD:
		if (!b->wrapped)
			return 0;
		return llmem_enqueue_copy_buffer(b->stage_q, b->wrapped, 0, b->dev, 0, b->size,
						 NULL, NULL);
	case CHUNKED_COPY:
		return copy_in_chunks(b);
	default:
		return llmem_enqueue_copy_buffer(b->stage_q, b->src, 0, b->dev, 0, b->size, NULL,
						 NULL);
	}
}

static int make_memory(struct llmem_session *s, uint32_t flags, const char *name,
		       struct llmem_memory **out)
{
	struct llmem_memory_create_info ci = { .flags = flags, .name = name };

	return llmem_memory_create(s, &ci, out);
}

/*
 * The upload this issue adds: the source allocation itself wrapped as a page,
 * copied by the device with no CPU copy.  The wrap is paid once, timed apart;
 * where the device cannot import host memory the path is left out.
 */
static void wrap_host(struct bench *b)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.name = "wrapped host",
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
	};
	struct llmem_buffer_create_info bci = { .size = b->size };
	uint32_t page;
	double t0 = now_s();

	if (llmem_memory_create(b->s, &ci, &b->wrap_mem))
		return;
	if (llmem_memory_import_host(b->wrap_mem, b->host, (b->size + 4095) & ~4095ull, &page) ||
	    llmem_buffer_create(b->wrap_mem, &bci, &b->wrapped)) {
		fprintf(stderr, "# wrapped host upload left out: %s\n", llmem_last_error());
		b->wrapped = NULL;
		return;
	}
	b->wrap_ms = (now_s() - t0) * 1e3;
}

static int setup(struct bench *b)
{
	struct llmem_buffer_create_info bci = { .size = b->size };
	struct llmem_queue_create_info qi;
	struct llmem_memory_info mi;
	int ret;

	ret = llmem_session_create(NULL, &b->s);
	if (ret)
		return ret;
	/* The write-combined BAR where there is one (vkgdr's path), else host memory. */
	ret = make_memory(b->s, LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE, "bar",
			  &b->visible);
	if (ret == -ENOTSUP)
		ret = make_memory(b->s, LLMEM_MEMORY_HOST_VISIBLE, "visible", &b->visible);
	if (!ret)
		ret = make_memory(b->s, LLMEM_MEMORY_DEVICE_LOCAL, "local", &b->local);
	/* The copy's source: host memory (fewest extra flags), as staging is. */
	if (!ret)
		ret = make_memory(b->s, LLMEM_MEMORY_HOST_VISIBLE, "host", &b->sysmem);
	if (!ret)
		ret = llmem_memory_get_info(b->visible, &mi);
	if (ret)
		return ret;
	b->mapped_flags = mi.flags;
	ret = llmem_buffer_create(b->visible, &bci, &b->mapped);
	if (!ret)
		ret = llmem_buffer_create(b->local, &bci, &b->dev);
	if (!ret)
		ret = llmem_buffer_create(b->sysmem, &bci, &b->src);
	if (!ret)
		ret = llmem_queue_create(b->s, NULL, &b->map_q);
	if (!ret)
		ret = llmem_queue_create(b->s, &b->staging, &b->stage_q);
	if (!ret)
		ret = llmem_queue_get_info(b->stage_q, &qi);
	if (ret)
		return ret;
	b->chunk = qi.chunk_size;
	/* Page-aligned, so that the host-pointer path can wrap it as it is. */
	b->host = aligned_alloc(4096, (b->size + 4095) & ~4095ull);
	b->back = malloc(b->size);
	b->host2 = malloc(b->size);
	b->back2 = malloc(b->size);
	if (!b->host || !b->back || !b->host2 || !b->back2)
		return -ENOMEM;
	/* Touch every page, so that first-touch faults stay out of the figures. */
	for (uint64_t i = 0; i < b->size; i++)
		b->host[i] = (uint8_t)(i * 7);
	memset(b->back, 0, b->size);
	memset(b->host2, 1, b->size);
	memset(b->back2, 0, b->size);
	wrap_host(b);
	return 0;
}

static void teardown(struct bench *b)
{
	llmem_queue_destroy(b->map_q);
	llmem_queue_destroy(b->stage_q);
	llmem_buffer_destroy(b->mapped);
	llmem_buffer_destroy(b->dev);
	llmem_buffer_destroy(b->src);
	llmem_buffer_destroy(b->wrapped);
	llmem_memory_destroy(b->wrap_mem);
	llmem_memory_destroy(b->sysmem);
	llmem_memory_destroy(b->visible);
	llmem_memory_destroy(b->local);
	llmem_session_destroy(b->s);
	free(b->host);
	free(b->back);
	free(b->host2);
	free(b->back2);
}

struct figure {
	double med, min, max;
};

static int measure(struct bench *b, int runs, struct figure out[PATHS])
{
	double gbs[PATHS][MAX_RUNS];
	struct progress pr;
	int ret;

	/* One warm-up of each path: pages, pipelines and the ring exist after it. */
	for (int p = 0; p < PATHS; p++) {
		ret = run_once(b, p);
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
			double t0 = now_s();

			ret = run_once(b, p);
			if (ret) {
				progress_end(&pr);
				return ret;
			}
			gbs[p][r] =
				(double)b->size * (p == MEMCPY_PAIR ? 2 : 1) / (now_s() - t0) / 1e9;
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

static int verify(struct bench *b)
{
	int ret = llmem_enqueue_write_buffer(b->stage_q, b->dev, 0, b->host, b->size, NULL, NULL);

	memset(b->back, 0, b->size);
	if (!ret)
		ret = llmem_enqueue_read_buffer(b->map_q, b->dev, 0, b->back, b->size, NULL, NULL);
	if (!ret && memcmp(b->host, b->back, b->size))
		ret = -EIO;
	return ret;
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

static void print_json(const struct bench *b, const struct llmem_session_info *info,
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
		emit_object(&e, names[p]);
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
static double rate_unit(const struct bench *b, const struct figure *f, const char **name)
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
	struct bench b = { .staging.flags = LLMEM_QUEUE_NO_MAPPING };
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
	ret = setup(&b);
	if (!ret)
		ret = verify(&b);
	if (!ret)
		ret = measure(&b, runs, f);
	if (ret) {
		cli_fail(cmd, CLI_FAILED, "%s", llmem_last_error());
		teardown(&b);
		return CLI_FAILED;
	}
	llmem_session_get_info(b.s, &info);
	if (args.json) {
		print_json(&b, &info, f, runs);
		teardown(&b);
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
		printf("%-24s %9.2f %9.2f %9.2f %10.2f %10.2f\n", names[p], f[p].med * k,
		       f[p].min * k, f[p].max * k, f[p].med / f[MEMCPY].med,
		       f[p].med / f[COPY_BUFFER].med);
	}
	printf("# two copies of every byte at the pair's pace: %.2f %s; staging upload %.2f, "
	       "download %.2f of it\n",
	       f[MEMCPY_PAIR].med / 2 * k, unit, f[STAGED_WRITE].med / (f[MEMCPY_PAIR].med / 2),
	       f[STAGED_READ].med / (f[MEMCPY_PAIR].med / 2));
	format_bytes(size, sizeof(size), b.chunk);
	printf("# %s chunks: staging upload %.2f of the device's copy in chunks\n", size,
	       f[STAGED_WRITE].med / f[CHUNKED_COPY].med);
	teardown(&b);
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
