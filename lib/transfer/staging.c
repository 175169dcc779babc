// SPDX-License-Identifier: MIT
/*
 * A queue's staging ring: host-visible memory of the queue's own, made on
 * first use, handed out in chunks that the device reads (uploads) or writes
 * (downloads) before the host copies them on; a batch that outgrows it gets
 * temporary staging, released with the batch.
 */
#include <errno.h>
#include <stdbool.h>

#include "base/box.h"
#include "base/error.h"
#include "transfer/queue.h"

/*
 * A CPU device copies a chunk out of the ring on another core, which has to
 * fetch every line the host has just left dirty in its own caches: streaming
 * the chunk to memory took lavapipe's staged uploads from about 0.7 of
 * memcpy to 0.83-0.92.  On the H100 streaming made uploads slower (0.58-0.74
 * of vkCmdCopyBuffer against 0.72-0.78): its DMA then reads from memory
 * what is otherwise partly still in the CPU's caches.  GPUs get ordinary
 * stores.
 */
void llmem_queue_stage_box(const struct llmem_queue *q, uint8_t *dst, uint64_t drp, uint64_t dsp,
			   const uint8_t *src, uint64_t srp, uint64_t ssp, uint64_t bytes,
			   uint64_t rows, uint64_t slices)
{
	bool stream = q->session->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;

	llmem_box_copy(dst, drp, dsp, src, srp, ssp, bytes, rows, slices, stream);
}

static int ring_init(struct llmem_queue *q)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_CACHED,
		.page_size = q->ring_size,
		.name = "llmem transfer staging",
	};
	struct llmem_buffer_create_info bci = {
		.size = q->ring_size,
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
		.name = "staging ring",
	};
	int ret;

	/* Cached memory reads back fast; without it, plain host-visible. */
	ret = llmem_memory_create(q->session, &mci, &q->staging_memory);
	if (ret == -ENOTSUP) {
		mci.flags = LLMEM_MEMORY_HOST_VISIBLE;
		ret = llmem_memory_create(q->session, &mci, &q->staging_memory);
	}
	if (ret)
		return ret;
	ret = llmem_buffer_create(q->staging_memory, &bci, &q->ring);
	if (!ret)
		ret = llmem_buffer_map(q->ring, (void **)&q->ring_map);
	if (ret) {
		llmem_buffer_destroy(q->ring);
		q->ring = NULL;
		llmem_memory_destroy(q->staging_memory);
		q->staging_memory = NULL;
	}
	return ret;
}

/* A ring range, or -EAGAIN when waiting would not free one. */
static int ring_alloc(struct llmem_queue *q, uint64_t size, uint64_t align, uint64_t *off)
{
	for (;;) {
		uint64_t rel = q->head % q->ring_size;
		uint64_t at = (rel + align - 1) / align * align;
		uint64_t pos = q->head - rel + at;
		int ret;

		if (at + size > q->ring_size)
			pos = q->head - rel + q->ring_size;
		if (pos + size - q->tail <= q->ring_size) {
			q->head = pos + size;
			*off = pos % q->ring_size;
			return 0;
		}
		if (!q->first)
			return -EAGAIN;
		ret = llmem_queue_retire_oldest(q, UINT64_MAX);
		if (ret)
			return ret;
	}
}

int llmem_queue_stage(struct llmem_queue *q, uint64_t size, uint64_t align, struct llmem_span *out)
{
	struct llmem_buffer_create_info bci = {
		.size = size,
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
		.name = "batch staging",
	};
	struct llmem_done done = { .kind = LLMEM_DONE_DESTROY };
	int ret;

	if (!llmem_queue_open_record(q))
		return q->record_error;
	if (!q->ring) {
		ret = ring_init(q);
		if (ret)
			return ret;
	}
	if (size <= q->ring_size) {
		ret = ring_alloc(q, size, align, &out->off);
		if (ret == 0) {
			out->buffer = q->ring;
			out->ptr = q->ring_map + out->off;
			q->open->ring_end = q->head;
			return 0;
		}
		if (ret != -EAGAIN)
			return ret;
	}
	/* Only a batch outgrows the ring: other operations stage piece by piece. */
	ret = llmem_buffer_create(q->staging_memory, &bci, &done.buffer);
	if (ret)
		return ret;
	ret = llmem_buffer_map(done.buffer, (void **)&out->ptr);
	if (!ret)
		ret = llmem_queue_add_done(q, &done);
	if (ret) {
		llmem_buffer_destroy(done.buffer);
		return ret;
	}
	out->buffer = done.buffer;
	out->off = 0;
	return 0;
}

uint64_t llmem_queue_chunk(const struct llmem_queue *q)
{
	return q->chunk_size;
}

int llmem_queue_stage_flush(const struct llmem_span *span, uint64_t size)
{
	return llmem_buffer_flush(span->buffer, span->off, size);
}
