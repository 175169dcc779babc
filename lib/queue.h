/* SPDX-License-Identifier: MIT */
/*
 * Transfer queues (queue.c): command buffers and fences recycled from
 * submission to submission, a staging ring, and the work the host must do
 * once a submission is done (copying reads out of the ring, destroying what
 * waited for the device).  The operations themselves are in transfer.c,
 * transfer_image.c and migrate.c.
 */
#ifndef LLMEM_QUEUE_H
#define LLMEM_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/transfer.h>

#include "buffer_internal.h"
#include "session_internal.h"

enum xq_done_kind {
	/* Copy a box out of staging into host memory. */
	XQ_DONE_READ,
	/* Destroy temporary staging. */
	XQ_DONE_DESTROY,
	/* Destroy a migrated buffer's or image's old copy: once copied, or with
	 * its batch when that is discarded (the caller holds the new one by
	 * then). */
	XQ_DONE_MIGRATED,
};

struct xq_done {
	enum xq_done_kind kind;
	struct llmem_buffer *buffer;
	/* XQ_DONE_MIGRATED of an image: the old image (buffer is NULL). */
	struct llmem_image *image;
	/* XQ_DONE_READ: bytes [off, off + rows × slices × bytes) of buffer,
	 * tightly packed, go to dst with the given pitches. */
	uint64_t off;
	uint8_t *dst;
	uint64_t bytes, rows, slices;
	uint64_t dst_row_pitch, dst_slice_pitch;
};

struct xq_record {
	struct xq_record *next;
	uint64_t seq;
	VkCommandBuffer cmd;
	VkFence fence;
	/* Ring position when the record opened and after its last staging. */
	uint64_t ring_start, ring_end;
	struct xq_done *done;
	uint32_t done_count, done_cap;
	bool recorded;
};

struct llmem_queue {
	struct llmem_session *session;
	pthread_mutex_t lock;
	uint32_t flags;
	uint64_t ring_size, chunk_size;
	VkCommandPool pool;

	/* The ring, on first use: staging_memory holds it and the temporary
	 * staging of batches that outgrow it. */
	struct llmem_memory *staging_memory;
	struct llmem_buffer *ring;
	uint8_t *ring_map;
	/* Positions grow without wrapping; the ring offset is modulo ring_size. */
	uint64_t head, tail;

	/* Submitted, oldest first; then the record being filled, if any. */
	struct xq_record *first, *last;
	struct xq_record *open;
	struct xq_record *free;
	bool batch;
	int batch_error;
	/* The event the operation under the lock hands out, allocated before it
	 * records anything so that running out of memory cannot fail an
	 * operation already recorded. */
	struct llmem_event *pending_event;

	uint64_t next_seq;
	atomic_uint_fast64_t submitted, completed;
};

struct llmem_event {
	struct llmem_queue *queue;
	uint64_t seq;
};

/* A piece of staging: @ptr is the host's view of [@off, +size) of @buffer. */
struct xq_span {
	struct llmem_buffer *buffer;
	uint64_t off;
	uint8_t *ptr;
};

/*
 * Entry and exit of every operation.  xq_enter() checks @wait_for and, for
 * a blocking call that wants the host to touch device memory directly
 * (@host_side), waits for the events of other queues before taking the
 * queue's lock; it allocates the event when @event is not NULL and returns
 * with the lock held.  xq_leave() submits what the operation recorded
 * (unless a batch is open), waits when @event is NULL, hands out the event
 * otherwise, and drops the lock.
 */
int xq_enter(struct llmem_queue *q, const struct llmem_wait_list *wait_for, bool host_side,
	     struct llmem_event **event);
int xq_leave(struct llmem_queue *q, int ret, struct llmem_event **event);

/*
 * Whether the host may touch device memory now, in order: outside a batch,
 * with nothing of this queue in flight (a blocking call waits for it) and
 * the events of other queues done.
 */
bool xq_host_turn(struct llmem_queue *q, const struct llmem_wait_list *wait_for, bool blocking);

/* The record being filled, opened (and begun) on first use; NULL on error. */
struct xq_record *xq_record(struct llmem_queue *q);

/* Outside a batch, submits the record being filled so the next piece of a
 * large transfer gets its own; no-op in a batch. */
int xq_flush(struct llmem_queue *q);

/* Staging for @size bytes at a multiple of @align, waiting for the ring to
 * drain outside a batch, allocating beyond it in one. */
int xq_stage(struct llmem_queue *q, uint64_t size, uint64_t align, struct xq_span *out);
/* The part of a transfer staged at once. */
uint64_t xq_chunk(const struct llmem_queue *q);
/* Makes host writes to a span visible to the device. */
int xq_stage_flush(const struct xq_span *span, uint64_t size);

int xq_add_done(struct llmem_queue *q, const struct xq_done *done);

/* Full barrier before an operation: the queue is in order. */
void xq_barrier(VkCommandBuffer cmd);
/* The record being filled, opened if need be, with an operation's full
 * barrier recorded; VK_NULL_HANDLE on error. */
VkCommandBuffer xq_begin(struct llmem_queue *q);

bool xq_same_session(const struct llmem_queue *q, const struct llmem_buffer *b);
/* 0, or -EINVAL naming @what for a NULL queue or buffer or one of another
 * session. */
int xq_check_buffer(const struct llmem_queue *q, const struct llmem_buffer *b, const char *what);

/* Host copy of a box between pitched spaces, one memcpy when both are packed. */
void xq_copy_box(uint8_t *dst, uint64_t dst_row_pitch, uint64_t dst_slice_pitch, const uint8_t *src,
		 uint64_t src_row_pitch, uint64_t src_slice_pitch, uint64_t bytes, uint64_t rows,
		 uint64_t slices);
/* The same into @q's staging, which the device reads next: with streaming
 * stores where the device is a CPU (see queue.c). */
void xq_stage_box(const struct llmem_queue *q, uint8_t *dst, uint64_t dst_row_pitch,
		  uint64_t dst_slice_pitch, const uint8_t *src, uint64_t src_row_pitch,
		  uint64_t src_slice_pitch, uint64_t bytes, uint64_t rows, uint64_t slices);

#endif
