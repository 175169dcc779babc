/* SPDX-License-Identifier: MIT */
/*
 * bench alloc's measurement: the state of a run, the rounds that take turns
 * between its three phases and make the ratios, and the tally through which
 * each phase times an operation the same way, so that their figures
 * compare.  The phases are declared here, for the rounds call them; each
 * lives in a file of its own (bench_alloc_virtual.c, _objects.c, _peer.c).
 */
#ifndef LLMEM_TOOLS_BENCH_ALLOC_ROUNDS_H
#define LLMEM_TOOLS_BENCH_ALLOC_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/llmem.h>

#include "alloc_trace.h"
#include "stat3.h"
#include "timing.h"

#define BENCH_ALLOC_MAX_RUNS 101
/* An image operation's width in RGBA8 texels: its rows are size / 4096. */
#define BENCH_ALLOC_IMAGE_WIDTH 1024

struct figures {
	double op_ns, alloc_ns, free_ns;
	/* Objects only: allocations of buffers and of images apart. */
	double buffer_ns, image_ns;
};

struct alloc_bench {
	const struct alloc_trace *trace;
	bool quiet;
	size_t peak_op; /* after this operation, live bytes are at their peak */
	uint64_t peak_bytes;
	double clock_ns;

	/* The virtual pool. */
	uint64_t granularity;
	uint64_t *handles;
	uint32_t pages, peak_pages;
	double fragmentation;

	/* The peer. */
	VkInstance instance;
	VkDevice device;
	uint32_t memory_type;
	char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	VkDeviceMemory *memories;

	/* Full objects through the library. */
	struct llmem_session *session;
	void **objects;
	uint8_t *object_is_image; /* free operations do not say */
	uint32_t obj_peak_pages;
	double obj_fragmentation;
	uint64_t obj_peak_bytes; /* bytes the pool held at the peak op, padding included */
};

/* A pass's operations: the whole in the thread's CPU time, each timed one
 * on CLOCK_MONOTONIC (bench_alloc_rounds.c says why). */
struct tally {
	uint64_t start, alloc_ns, free_ns, allocs, frees;
	/* The last operation's time, for a phase that splits allocations further. */
	uint64_t last_ns;
};

static inline void tally_start(struct tally *t)
{
	*t = (struct tally){ .start = timing_ns(CLOCK_THREAD_CPUTIME_ID) };
}

/*
 * After one operation begun at @t0 (a timed pass; 0 otherwise) that
 * returned @ret: its time added to the allocations' or the frees'.  Inline,
 * as the loop it replaced was: the clock is read right after the operation.
 * Return: whether the pass goes on.
 */
static inline bool tally_step(struct tally *t, bool timed, int ret, bool is_free, uint64_t t0)
{
	uint64_t t1;

	if (!timed)
		return !ret;
	t1 = timing_ns(CLOCK_MONOTONIC);
	if (ret)
		return false;
	t->last_ns = t1 - t0;
	if (is_free) {
		t->free_ns += t->last_ns;
		t->frees++;
	} else {
		t->alloc_ns += t->last_ns;
		t->allocs++;
	}
	return true;
}

/* The pass's figures, less the clock's own cost per timed operation. */
void tally_finish(const struct tally *t, const struct alloc_bench *b, size_t ops,
		  struct figures *f);

/*
 * The phases: one pass over the first @ops of the trace, @timed splitting
 * allocations from frees.  Return: 0 or a negative errno after a message.
 */
int bench_alloc_virtual(struct alloc_bench *b, size_t ops, int timed, struct figures *f);
int bench_alloc_objects(struct alloc_bench *b, size_t ops, int timed, struct figures *f);
int bench_alloc_peer(struct alloc_bench *b, size_t ops, int timed, struct figures *f);

/* The session the objects are made in, and the peer's device. */
int bench_alloc_objects_open(struct alloc_bench *b);
int bench_alloc_peer_open(struct alloc_bench *b);
void bench_alloc_peer_close(struct alloc_bench *b);

/* The cost of one clock read, and the operation after which live bytes peak. */
double bench_alloc_clock_cost(void);
void bench_alloc_find_peak(struct alloc_bench *b);

/* One of the three, with its figures per round. */
struct phase {
	int (*run)(struct alloc_bench *b, size_t ops, int timed, struct figures *f);
	size_t ops;
	int runs; /* it takes part in the first @runs rounds; 0: not at all */
	double v[5][BENCH_ALLOC_MAX_RUNS]; /* op, alloc, free, buffer alloc, image alloc */
	struct stat3 s[5];
};

/*
 * @rounds rounds of @n phases, the phase that goes first rotating from one
 * round to the next.  A phase that fails drops out (its runs 0) and the
 * others go on; Return: 0, or the virtual pool's error, which ends the run.
 */
int bench_alloc_measure(struct alloc_bench *b, struct phase *ph, int n, int rounds);

/* @a's figures over @b's, round by round, in the rounds both took part in. */
struct ratio {
	struct stat3 q[3]; /* op, alloc, free */
	bool valid[3];
};

struct ratio bench_alloc_ratio(const struct phase *a, const struct phase *b);

#endif
