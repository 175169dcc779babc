// SPDX-License-Identifier: MIT
/*
 * bench alloc's full objects: the trace as the library's users run it.  A
 * buffer operation is llmem_buffer_create() of its size (default usage), an
 * image operation llmem_image_create() of a 2-D RGBA8 (u8, four channels)
 * image BENCH_ALLOC_IMAGE_WIDTH texels wide and size / 4096 rows high, whose
 * tightly packed bytes are exactly the operation's size (image sizes are
 * multiples of 4096); a free is llmem_buffer_destroy() or
 * llmem_image_destroy().  All live in one memory of 32 MiB pages.
 */
#include <stdio.h>
#include <string.h>

#include "bench_alloc_rounds.h"

/* A session without validation: the figures are the library's, not the layer's. */
int bench_alloc_objects_open(struct alloc_bench *b)
{
	struct llmem_session_create_info ci = { .app_name = "llmem bench alloc" };
	int ret;

	ret = llmem_session_create(&ci, &b->session);
	if (ret)
		fprintf(stderr, "llmem bench alloc: objects: %s\n", llmem_last_error());
	return ret;
}

static int object_alloc(struct llmem_memory *m, const struct alloc_trace_op *op, void **out)
{
	if (op->image) {
		struct llmem_image_create_info ci = {
			.ndim = 3,
			.shape = { (uint32_t)(op->size / (BENCH_ALLOC_IMAGE_WIDTH * 4)),
				   BENCH_ALLOC_IMAGE_WIDTH, 4 },
			.channel_type = LLMEM_CHANNEL_U8,
		};

		return llmem_image_create(m, &ci, (struct llmem_image **)out);
	}
	return llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = op->size },
				   (struct llmem_buffer **)out);
}

static void object_free(struct alloc_bench *b, uint32_t id)
{
	if (b->object_is_image[id])
		llmem_image_destroy(b->objects[id]);
	else
		llmem_buffer_destroy(b->objects[id]);
	b->objects[id] = NULL;
}

/* After a timed allocation: its pages, and at the peak the memory's free space. */
static void observe(struct alloc_bench *b, struct llmem_memory *m, size_t i)
{
	struct llmem_memory_info mi;

	llmem_memory_get_info(m, &mi);
	if (mi.page_count > b->obj_peak_pages)
		b->obj_peak_pages = mi.page_count;
	if (i == b->peak_op) {
		struct llmem_page_stats ps;

		llmem_memory_get_page_stats(m, LLMEM_ALL_PAGES, &ps);
		b->obj_fragmentation =
			ps.free_bytes ? 1.0 - (double)ps.largest_free / (double)ps.free_bytes : 0;
		b->obj_peak_bytes = ps.used_bytes;
	}
}

int bench_alloc_objects(struct alloc_bench *b, size_t ops, int timed, struct figures *f)
{
	struct llmem_memory_create_info mci = {
		.page_size = LLMEM_MEMORY_DEFAULT_PAGE_SIZE,
		.name = "bench alloc",
	};
	uint64_t image_ns = 0, images = 0;
	const struct alloc_trace *trace = b->trace;
	struct llmem_memory *m;
	struct tally t;
	int ret = 0;
	size_t i;

	ret = llmem_memory_create(b->session, &mci, &m);
	if (ret)
		goto out_message;
	memset(b->objects, 0, trace->objects * sizeof(*b->objects));
	b->obj_peak_pages = 0;
	tally_start(&t);
	for (i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &trace->ops[i];
		uint64_t t0 = timed ? timing_ns(CLOCK_MONOTONIC) : 0;

		if (op->free) {
			object_free(b, op->id);
		} else {
			b->object_is_image[op->id] = op->image;
			ret = object_alloc(m, op, &b->objects[op->id]);
		}
		if (!tally_step(&t, timed, ret, op->free, t0))
			break;
		if (!timed || op->free)
			continue;
		if (op->image) {
			image_ns += t.last_ns;
			images++;
		}
		observe(b, m, i);
	}
	tally_finish(&t, b, ops, f);
	f->image_ns = images ? (double)image_ns / (double)images - b->clock_ns : 0;
	f->buffer_ns = t.allocs > images
			       ? (double)(t.alloc_ns - image_ns) / (double)(t.allocs - images) -
					 b->clock_ns
			       : 0;
	for (uint32_t id = 0; id < trace->objects; id++)
		if (b->objects[id])
			object_free(b, id);
	llmem_memory_destroy(m);
	if (!ret)
		return 0;
	fprintf(stderr, "llmem bench alloc: objects, at op %zu: ", i);
out_message:
	fprintf(stderr, "%s\n", llmem_last_error());
	return ret;
}
