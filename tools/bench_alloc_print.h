/* SPDX-License-Identifier: MIT */
/*
 * bench alloc's report (bench_alloc_print.c), for people or as JSON.
 */
#ifndef LLMEM_TOOLS_BENCH_ALLOC_PRINT_H
#define LLMEM_TOOLS_BENCH_ALLOC_PRINT_H

#include "bench_alloc_rounds.h"

/* What the report says: the run as asked for, and what it measured. */
struct bench_alloc_result {
	const struct alloc_bench *b;
	const struct alloc_trace *trace;
	size_t ops, peer_ops;
	int runs, object_runs;
	/* Asked for; measured when the phase's runs are not 0. */
	bool objects;
	struct llmem_session_info session;
	const struct phase *virt, *obj, *peer;
	struct ratio virt_peer, virt_obj, obj_peer;
};

void bench_alloc_print_json(const struct bench_alloc_result *r);
void bench_alloc_print_text(const struct bench_alloc_result *r);

#endif
