// SPDX-License-Identifier: MIT
/*
 * bench alloc's measurement: the phases taking turns in rounds, the first
 * of a round rotating, so that each ratio compares passes made at the same
 * moment on a loaded machine; a ratio is taken per round, and its median,
 * min and max kept.  Each operation is timed on its own with
 * CLOCK_MONOTONIC, less the cost of reading the clock measured beforehand,
 * to split allocations from frees (the thread's CPU clock is a system call,
 * dearer than a pool operation); a second pass without per-operation clocks
 * gives the whole-run figure, in the thread's CPU time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_alloc_rounds.h"
#include "progress.h"

/*
 * The cost of one clock read, taken off every timed operation: the least of
 * 20 batches, so that a batch preempted on a busy machine does not count.
 */
double bench_alloc_clock_cost(void)
{
	double best = 1e9;

	for (int batch = 0; batch < 20; batch++) {
		uint64_t t0 = timing_ns(CLOCK_MONOTONIC), t = t0;

		for (int i = 0; i < 5000; i++)
			t = timing_ns(CLOCK_MONOTONIC);
		if ((double)(t - t0) / 5000 < best)
			best = (double)(t - t0) / 5000;
	}
	return best;
}

void bench_alloc_find_peak(struct alloc_bench *b)
{
	const struct alloc_trace *t = b->trace;
	uint64_t *sizes = calloc(t->objects ? t->objects : 1, sizeof(*sizes));
	uint64_t live = 0;

	for (size_t i = 0; i < t->count; i++) {
		const struct alloc_trace_op *op = &t->ops[i];

		if (op->free) {
			live -= sizes[op->id];
			continue;
		}
		sizes[op->id] = op->size;
		live += op->size;
		if (live > b->peak_bytes) {
			b->peak_bytes = live;
			b->peak_op = i;
		}
	}
	free(sizes);
}

void tally_finish(const struct tally *t, const struct alloc_bench *b, size_t ops, struct figures *f)
{
	f->op_ns = (double)(timing_ns(CLOCK_THREAD_CPUTIME_ID) - t->start) / (double)ops;
	f->alloc_ns = t->allocs ? (double)t->alloc_ns / (double)t->allocs - b->clock_ns : 0;
	f->free_ns = t->frees ? (double)t->free_ns / (double)t->frees - b->clock_ns : 0;
}

/* A whole pass for the op figure, then a timed one for the split. */
static int measure_once(struct alloc_bench *b, struct phase *ph, int r)
{
	struct figures f, g;
	int ret;

	ret = ph->run(b, ph->ops, 0, &g);
	if (!ret)
		ret = ph->run(b, ph->ops, 1, &f);
	if (ret)
		return ret;
	ph->v[0][r] = g.op_ns;
	ph->v[1][r] = f.alloc_ns;
	ph->v[2][r] = f.free_ns;
	ph->v[3][r] = f.buffer_ns;
	ph->v[4][r] = f.image_ns;
	return 0;
}

int bench_alloc_measure(struct alloc_bench *b, struct phase *ph, int n, int rounds)
{
	struct progress p;
	int ret = 0;

	progress_start(&p, "llmem bench alloc", "runs", (uint64_t)rounds, b->quiet);
	for (int r = 0; r < rounds; r++) {
		for (int j = 0; j < n; j++) {
			struct phase *q = &ph[(r + j) % n];

			if (r >= q->runs)
				continue;
			ret = measure_once(b, q, r);
			if (ret && q == &ph[0]) {
				progress_end(&p);
				return ret;
			}
			if (ret)
				q->runs = 0;
		}
		progress_step(&p, (uint64_t)r + 1);
	}
	progress_end(&p);
	/* On copies: the rounds' order is kept for the ratios. */
	for (int k = 0; k < n; k++) {
		for (int i = 0; ph[k].runs && i < 5; i++) {
			double v[BENCH_ALLOC_MAX_RUNS];

			memcpy(v, ph[k].v[i], (size_t)ph[k].runs * sizeof(*v));
			ph[k].s[i] = stat3_of(v, (uint32_t)ph[k].runs);
		}
	}
	return 0;
}

struct ratio bench_alloc_ratio(const struct phase *a, const struct phase *b)
{
	int rounds = a->runs < b->runs ? a->runs : b->runs;
	struct ratio out = { 0 };
	double v[BENCH_ALLOC_MAX_RUNS];

	for (int i = 0; i < 3; i++) {
		uint32_t n = 0;

		for (int r = 0; r < rounds; r++) {
			double q = a->v[i][r] / b->v[i][r];

			if (a->v[i][r] > 0 && b->v[i][r] > 0 && isfinite(q))
				v[n++] = q;
		}
		/* A short trace frees nothing: no ratio. */
		out.valid[i] = n > 0;
		if (out.valid[i])
			out.q[i] = stat3_of(v, n);
	}
	return out;
}
