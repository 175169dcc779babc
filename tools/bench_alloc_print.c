// SPDX-License-Identifier: MIT
/*
 * bench alloc's report: the figures of each phase, its pages and
 * fragmentation at the peak, and the ratios, for people or as JSON
 * (docs/cli.md); what a phase could not measure is said, not left blank.
 */
#include <stdio.h>
#include <string.h>

#include "bench_alloc_print.h"
#include "cli.h"
#include "emit.h"

/* Operations of the first @ops of the trace that free (@image 0) or allocate an image (1). */
static size_t count_ops(const struct alloc_trace *t, size_t ops, bool image)
{
	size_t n = 0;

	for (size_t i = 0; i < ops && i < t->count; i++)
		n += image ? !t->ops[i].free && t->ops[i].image : t->ops[i].free;
	return n;
}

/* One figure's line; a figure of no operations (a short trace frees nothing) says so. */
static void print_figure(const char *name, const struct stat3 *s, size_t count, const char *what)
{
	if (!count)
		printf("  %-22s none in this trace      (%s)\n", name, what);
	else
		printf("  %-22s median %10.1f   min %10.1f   max %10.1f   (%s)\n", name, s->median,
		       s->min, s->max, what);
}

static void print_human(const char *what, const struct stat3 s[3], size_t frees)
{
	print_figure("ns per op (whole run)", &s[0], 1, what);
	print_figure("ns per allocation", &s[1], 1, what);
	print_figure("ns per free", &s[2], frees, what);
}

/* "0.50000 (2.00x faster) [0.48000-0.52000]": the median of the
 * rounds' quotients, how much faster or slower that makes the first, and
 * the quotients' spread. */
static void print_quotient(const char *key, const struct ratio *q, int i)
{
	const struct stat3 *s = &q->q[i];

	if (!q->valid[i])
		printf("%s n/a (no %ss)", key, key);
	else
		printf("%s %.5f (%.2fx %s) [%.5f-%.5f]", key, s->median,
		       s->median <= 1 ? 1 / s->median : s->median,
		       s->median <= 1 ? "faster" : "slower", s->min, s->max);
}

static void print_ratio(const char *what, const struct ratio *q)
{
	printf("ratio %s: ", what);
	print_quotient("op", q, 0);
	printf(",\n  ");
	print_quotient("alloc", q, 1);
	printf(", ");
	print_quotient("free", q, 2);
	printf("\n");
}

/* null where there is no ratio: a trace too short to free anything times no free. */
static void emit_ratio(struct emit *e, const char *key, const struct ratio *q)
{
	static const char *const names[3] = { "op", "alloc", "free" };

	emit_object(e, key);
	for (int i = 0; i < 3; i++) {
		if (q->valid[i])
			emit_double(e, names[i], q->q[i].median, 5);
		else
			emit_null(e, names[i]);
	}
	emit_object(e, "spread");
	for (int i = 0; i < 3; i++) {
		if (!q->valid[i]) {
			emit_null(e, names[i]);
			continue;
		}
		emit_array(e, names[i]);
		emit_double(e, NULL, q->q[i].min, 5);
		emit_double(e, NULL, q->q[i].max, 5);
		emit_end(e);
	}
	emit_end(e);
	emit_end(e);
}

static void emit_figures(struct emit *e, const struct stat3 s[3])
{
	emit_stat3(e, "op_ns", &s[0], 1);
	emit_stat3(e, "alloc_ns", &s[1], 1);
	emit_stat3(e, "free_ns", &s[2], 1);
}

void bench_alloc_print_json(const struct bench_alloc_result *r)
{
	const struct alloc_bench *b = r->b;
	struct emit e;
	char checksum[17];

	snprintf(checksum, sizeof(checksum), "%016llx", (unsigned long long)r->trace->checksum);
	emit_begin(&e, stdout, true);
	emit_uint(&e, "ops", r->ops);
	emit_int(&e, "seed", ALLOC_TRACE_SEED);
	emit_string(&e, "checksum", checksum);
	emit_int(&e, "runs", r->runs);
	emit_uint(&e, "page_size", LLMEM_POOL_DEFAULT_PAGE_SIZE);
	emit_uint(&e, "granularity", b->granularity);
	emit_double(&e, "clock_ns", b->clock_ns, 1);
	emit_object(&e, "virtual");
	emit_figures(&e, r->virt->s);
	emit_uint(&e, "pages_at_peak", b->peak_pages);
	emit_uint(&e, "peak_live_bytes", b->peak_bytes);
	emit_double(&e, "fragmentation_at_peak", b->fragmentation, 4);
	emit_end(&e);
	if (r->obj->runs) {
		emit_object(&e, "objects");
		emit_string(&e, "device", r->session.device_name);
		emit_uint(&e, "granularity", r->session.buffer_image_granularity);
		emit_int(&e, "runs", r->object_runs);
		emit_int(&e, "image_width", BENCH_ALLOC_IMAGE_WIDTH);
		emit_figures(&e, r->obj->s);
		emit_stat3(&e, "buffer_alloc_ns", &r->obj->s[3], 1);
		emit_stat3(&e, "image_alloc_ns", &r->obj->s[4], 1);
		emit_uint(&e, "pages_at_peak", b->obj_peak_pages);
		emit_uint(&e, "peak_used_bytes", b->obj_peak_bytes);
		emit_double(&e, "fragmentation_at_peak", b->obj_fragmentation, 4);
		emit_end(&e);
		emit_ratio(&e, "ratio_virtual_objects", &r->virt_obj);
	}
	if (r->peer->runs) {
		emit_object(&e, "peer");
		emit_string(&e, "device", b->device_name);
		emit_uint(&e, "memory_type", b->memory_type);
		emit_uint(&e, "ops", r->peer_ops);
		emit_figures(&e, r->peer->s);
		emit_end(&e);
		emit_ratio(&e, "ratio", &r->virt_peer);
		if (r->obj->runs)
			emit_ratio(&e, "ratio_objects_peer", &r->obj_peer);
	}
	emit_finish(&e);
}

static void print_objects(const struct bench_alloc_result *r)
{
	const struct alloc_trace *trace = r->trace;
	const struct alloc_bench *b = r->b;
	const struct stat3 *obj = r->obj->s;

	printf("objects: llmem buffers and %dx(size/%d) RGBA8 images in one memory "
	       "of 32 MiB pages on %s,\n  granularity %llu, device alignments, "
	       "%d run%s%s:\n",
	       BENCH_ALLOC_IMAGE_WIDTH, BENCH_ALLOC_IMAGE_WIDTH * 4, r->session.device_name,
	       (unsigned long long)r->session.buffer_image_granularity, r->object_runs,
	       cli_plural(r->object_runs),
	       r->object_runs < r->runs ? " (fewer: each pass is slow)" : "");
	print_human("objects", obj, count_ops(trace, r->ops, false));
	print_figure("ns per buffer alloc", &obj[3],
		     r->ops - count_ops(trace, r->ops, false) - count_ops(trace, r->ops, true),
		     "objects");
	print_figure("ns per image alloc", &obj[4], count_ops(trace, r->ops, true), "objects");
	printf("  pages at peak          %u\n", b->obj_peak_pages);
	printf("  fragmentation at peak  %.4f  (after op %zu, %.1f MiB held by "
	       "objects)\n",
	       b->obj_fragmentation, b->peak_op, (double)b->obj_peak_bytes / (1 << 20));
}

void bench_alloc_print_text(const struct bench_alloc_result *r)
{
	const struct alloc_bench *b = r->b;
	int rounds = r->runs > r->object_runs ? r->runs : r->object_runs;
	bool have_obj = r->obj->runs > 0, have_peer = r->peer->runs > 0;
	bool lavapipe = have_peer && strstr(b->device_name, "llvmpipe");

	printf("trace: %zu op%s, seed %d, checksum %016llx\n", r->ops, cli_plural(r->ops),
	       ALLOC_TRACE_SEED, (unsigned long long)r->trace->checksum);
	printf("the three take turns in %d round%s, a different one first each round; "
	       "ns per op: a whole\npass in the thread's CPU time; per allocation and "
	       "per free: each on CLOCK_MONOTONIC\nin a second pass; ratios: per round, "
	       "their median [min-max]\n",
	       rounds, cli_plural(rounds));
	printf("virtual pool: 32 MiB pages, granularity %llu, %d run%s "
	       "(clock read %.1f ns, subtracted per op):\n",
	       (unsigned long long)b->granularity, r->runs, cli_plural(r->runs), b->clock_ns);
	print_human("virtual", r->virt->s, count_ops(r->trace, r->ops, false));
	printf("  pages at peak          %u\n", b->peak_pages);
	printf("  fragmentation at peak  %.4f  (1 - largest free / total free, after op "
	       "%zu, %.1f MiB live)\n",
	       b->fragmentation, b->peak_op, (double)b->peak_bytes / (1 << 20));
	if (have_obj)
		print_objects(r);
	else if (r->objects)
		printf("objects: no session, not measured\n");
	if (have_peer) {
		printf("peer: one vkAllocateMemory per object on %s, memory type %u, %d "
		       "run%s",
		       b->device_name, b->memory_type, r->runs, cli_plural(r->runs));
		if (r->peer_ops < r->ops)
			printf(", first %zu op%s of the trace only", r->peer_ops,
			       cli_plural(r->peer_ops));
		printf(":\n");
		print_human("peer", r->peer->s, count_ops(r->trace, r->peer_ops, false));
		print_ratio("virtual/peer", &r->virt_peer);
		if (have_obj)
			print_ratio("objects/peer", &r->obj_peer);
	} else {
		printf("peer: no Vulkan device, not measured\n");
	}
	if (have_obj)
		print_ratio("virtual/objects", &r->virt_obj);
	printf("left out: the trace's generation, opening the session and the device, "
	       "the objects still\nlive after the last operation (freed untimed)%s\n",
	       lavapipe ? "; on lavapipe the peer's vkAllocateMemory is\nthe driver's "
			  "own allocation of host memory, the bulk of the peer's time"
			: "");
}
