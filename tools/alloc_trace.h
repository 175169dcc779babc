/* SPDX-License-Identifier: MIT */
/*
 * The standard allocation workload of design.md ("The allocation
 * workload"): one trace, generated the same way everywhere, so that figures
 * compare across allocators.
 */
#ifndef LLMEM_TOOLS_ALLOC_TRACE_H
#define LLMEM_TOOLS_ALLOC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define ALLOC_TRACE_SEED 12345
#define ALLOC_TRACE_LIVE_MIN 2000

struct alloc_trace_op {
	uint32_t id; /* objects are numbered 0, 1, ... in allocation order */
	uint8_t free; /* 1: free object id; 0: allocate it */
	uint8_t image; /* optimal-tiling image rather than buffer */
	uint64_t size; /* allocations only */
	uint64_t align; /* allocations only */
};

struct alloc_trace {
	struct alloc_trace_op *ops;
	size_t count;
	uint32_t objects; /* ids handed out */
	uint64_t checksum; /* FNV-1a 64 as design.md defines it */
};

/* Return: 0 or -ENOMEM. */
int alloc_trace_generate(uint64_t seed, size_t ops, struct alloc_trace *trace);
void alloc_trace_release(struct alloc_trace *trace);

#endif
