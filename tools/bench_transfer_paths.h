/* SPDX-License-Identifier: MIT */
/*
 * bench transfer's paths: the memories, buffers, queues and host memory
 * that each path moves bytes between, set up once, and one blocking
 * transfer through any of them; bench_transfer.c times them in turn and
 * reports.
 */
#ifndef LLMEM_TOOLS_BENCH_TRANSFER_PATHS_H
#define LLMEM_TOOLS_BENCH_TRANSFER_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include <llmem/llmem.h>
#include <llmem/transfer.h>

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

/* As the table and the JSON name them. */
extern const char *const transfer_path_names[PATHS];

struct transfer_bench {
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

/*
 * Everything the paths need for @b->size bytes, the staging queue made as
 * @b->staging says; the host memory touched, so that first-touch faults stay
 * out of the figures.  Return: 0 or a negative errno; teardown either way.
 */
int transfer_bench_setup(struct transfer_bench *b);
void transfer_bench_teardown(struct transfer_bench *b);

/* One transfer of @b->size bytes through @p, finished when it returns. */
int transfer_bench_run(struct transfer_bench *b, enum path p);

/* Bytes uploaded by staging come back the same: -EIO when they do not. */
int transfer_bench_verify(struct transfer_bench *b);

#endif
