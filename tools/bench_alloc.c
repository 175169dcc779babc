// SPDX-License-Identifier: MIT
/*
 * llmem bench alloc: the standard allocation trace (design.md) through the
 * virtual pool, through the library's full Vulkan objects (buffers and
 * images in a memory of 32 MiB pages), and in the same run through the
 * peer, one vkAllocateMemory per object.  This file holds the command: its
 * options, and the order of the work; the phases, the rounds and the report
 * are bench_alloc_*.c.
 */
#include <stdlib.h>

#include "bench_alloc_print.h"
#include "bench_alloc_rounds.h"
#include "commands.h"

static struct {
	uint64_t ops, runs, object_runs, peer_ops, granularity;
	bool no_objects, json, quiet;
	bool object_runs_given, peer_ops_given;
} args = {
	.ops = 100000,
	.runs = 5,
	.granularity = 1024,
};

static const struct cli_option options[] = {
	{ .name = "ops",
	  .type = CLI_UINT,
	  .value = &args.ops,
	  .meta = "N",
	  .min = 1,
	  .max = 100000000,
	  .help = "operations of the standard trace (default 100000)" },
	{ .name = "runs",
	  .type = CLI_UINT,
	  .value = &args.runs,
	  .meta = "R",
	  .min = 1,
	  .max = BENCH_ALLOC_MAX_RUNS,
	  .help = "rounds: runs of the virtual pool and the peer, in turn (default 5)" },
	{ .name = "object-runs",
	  .type = CLI_UINT,
	  .value = &args.object_runs,
	  .meta = "R",
	  .min = 1,
	  .max = BENCH_ALLOC_MAX_RUNS,
	  .given = &args.object_runs_given,
	  .help = "runs of the full objects (default: --runs or 5, the fewer)" },
	{ .name = "peer-ops",
	  .type = CLI_UINT,
	  .value = &args.peer_ops,
	  .meta = "K",
	  .min = 1,
	  .max = 100000000,
	  .given = &args.peer_ops_given,
	  .help = "the peer's share of the trace, at most --ops (default: all)" },
	{ .name = "granularity",
	  .type = CLI_UINT,
	  .value = &args.granularity,
	  .meta = "G",
	  .min = 1,
	  .max = 1u << 20,
	  .help = "the virtual pool's bufferImageGranularity, a power of two (default 1024)" },
	{ .name = "no-objects",
	  .type = CLI_FLAG,
	  .value = &args.no_objects,
	  .help = "leave the full objects out" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

static int check(const struct cli_command *cmd)
{
	if (args.granularity & (args.granularity - 1))
		return cli_fail(cmd, CLI_USAGE, "--granularity '%llu': expected a power of two",
				(unsigned long long)args.granularity);
	if (args.peer_ops_given && args.peer_ops > args.ops)
		return cli_fail(cmd, CLI_USAGE, "--peer-ops '%llu': expected at most --ops, %llu",
				(unsigned long long)args.peer_ops, (unsigned long long)args.ops);
	return CLI_OK;
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct phase ph[3];
	struct alloc_bench b = { 0 };
	struct bench_alloc_result r = { .b = &b, .virt = &ph[0], .obj = &ph[1], .peer = &ph[2] };
	struct alloc_trace trace;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = check(cmd);
	if (ret)
		return ret;
	r.ops = args.ops;
	r.runs = (int)args.runs;
	/* Full objects cost about 1 s a pass on lavapipe: 5 runs at most by default. */
	r.object_runs = args.object_runs_given ? (int)args.object_runs : r.runs < 5 ? r.runs : 5;
	r.peer_ops = args.peer_ops_given ? args.peer_ops : r.ops;
	r.objects = !args.no_objects;
	b.granularity = args.granularity;
	b.quiet = args.quiet;

	ret = alloc_trace_generate(ALLOC_TRACE_SEED, r.ops, &trace);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "the trace of %zu ops: out of memory", r.ops);
	r.trace = b.trace = &trace;
	b.handles = calloc(trace.objects + 1, sizeof(*b.handles));
	b.memories = calloc(trace.objects + 1, sizeof(*b.memories));
	b.objects = calloc(trace.objects + 1, sizeof(*b.objects));
	b.object_is_image = calloc(trace.objects + 1, 1);
	if (!b.handles || !b.memories || !b.objects || !b.object_is_image)
		return cli_fail(cmd, CLI_FAILED, "out of memory for %u objects", trace.objects);
	bench_alloc_find_peak(&b);
	b.clock_ns = bench_alloc_clock_cost();

	ph[0] = (struct phase){ .run = bench_alloc_virtual, .ops = r.ops, .runs = r.runs };
	ph[1] = (struct phase){ .run = bench_alloc_objects, .ops = r.ops };
	ph[2] = (struct phase){ .run = bench_alloc_peer, .ops = r.peer_ops };
	if (r.objects && !bench_alloc_objects_open(&b)) {
		llmem_session_get_info(b.session, &r.session);
		ph[1].runs = r.object_runs;
	}
	if (!bench_alloc_peer_open(&b))
		ph[2].runs = r.runs;
	ret = bench_alloc_measure(&b, ph, 3, r.runs > r.object_runs ? r.runs : r.object_runs);
	llmem_session_destroy(b.session);
	bench_alloc_peer_close(&b);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "virtual pool: %s", llmem_last_error());
	r.virt_peer = bench_alloc_ratio(&ph[0], &ph[2]);
	r.virt_obj = bench_alloc_ratio(&ph[0], &ph[1]);
	r.obj_peer = bench_alloc_ratio(&ph[1], &ph[2]);
	if (args.json)
		bench_alloc_print_json(&r);
	else
		bench_alloc_print_text(&r);
	alloc_trace_release(&trace);
	free(b.handles);
	free(b.memories);
	free(b.objects);
	free(b.object_is_image);
	return 0;
}

const struct cli_command cmd_bench_alloc = {
	.name = "bench alloc",
	.summary = "sub-allocator vs one vkAllocateMemory per object",
	.description =
		"Runs the standard allocation trace (docs/allocator.md: xorshift64*, seed\n"
		"12345, 2000 live objects, sizes from 256 B to 4 MiB, 30 % images) through\n"
		"the virtual pool alone, through the library's buffers and images, and\n"
		"through the peer, one vkAllocateMemory per object, taking turns in rounds,\n"
		"and prints ns per operation, allocation and free, pages and fragmentation\n"
		"at the peak, and the ratios, taken per round: their median, min and max.",
	.options = options,
	.run = run,
};
