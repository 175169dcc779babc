/* SPDX-License-Identifier: MIT */
/*
 * Transfer queues: records of command buffers and fences recycled from
 * submission to submission (queue.c), the protocol every operation follows
 * with its waits, batches and events (operation.c), and the staging ring
 * (staging.c).  The operations themselves are in buffer.c, image.c, fill.c
 * and migrate.c; blocking.c runs them on the session's own queue.
 */
#ifndef LLMEM_TRANSFER_QUEUE_H
#define LLMEM_TRANSFER_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/transfer.h>

#include "base/box.h"
#include "device/session.h"
#include "memory/buffer.h"

/* A growing array of semaphores. */
struct llmem_semaphores {
	VkSemaphore *items;
	uint32_t count, cap;
};

enum llmem_done_kind {
	/* Copy a box out of staging into host memory. */
	LLMEM_DONE_READ,
	/* Destroy temporary staging. */
	LLMEM_DONE_DESTROY,
	/* Destroy a migrated buffer's or image's old copy: once copied, or with
	 * its batch when that is discarded (the caller holds the new one by
	 * then). */
	LLMEM_DONE_MIGRATED,
};

struct llmem_done {
	enum llmem_done_kind kind;
	struct llmem_buffer *buffer;
	/* LLMEM_DONE_MIGRATED of an image: the old image (buffer is NULL). */
	struct llmem_image *image;
	/* LLMEM_DONE_READ: bytes [off, off + rows × slices × bytes) of buffer,
	 * tightly packed, go to dst with the given pitches. */
	uint64_t off;
	uint8_t *dst;
	uint64_t bytes, rows, slices;
	uint64_t dst_row_pitch, dst_slice_pitch;
};

struct llmem_record {
	struct llmem_record *next;
	uint64_t seq;
	VkCommandBuffer cmd;
	VkFence fence;
	/* Ring position when the record opened and after its last staging. */
	uint64_t ring_start, ring_end;
	struct llmem_done *done;
	uint32_t done_count, done_cap;
	bool recorded;
	/* sync.c: sync_files the submission waits for, as semaphores, and the
	 * semaphore it signals for one; destroyed when the record is done. */
	struct llmem_semaphores waits;
	VkSemaphore signal;
	/* LLMEM_QUEUE_PROFILING: timestamps 0 (before the work) and 1 (after),
	 * and the host's clock at submission. */
	VkQueryPool timestamps;
	uint64_t submitted_ns;
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
	struct llmem_record *first, *last;
	struct llmem_record *open;
	struct llmem_record *free;
	/* Why llmem_queue_open_record() last gave NULL (-ENOMEM, -EIO). */
	int record_error;
	bool batch;
	int batch_error;
	/* The event the operation under the lock hands out, allocated before it
	 * records anything so that running out of memory cannot fail an
	 * operation already recorded. */
	struct llmem_event *pending_event;

	uint64_t next_seq;
	atomic_uint_fast64_t submitted, completed;

	/* sync.c: sync_files the next submission waits for. */
	struct llmem_semaphores waits;

	/* event.c: events handed out and not yet found done, oldest first;
	 * those found done whose callbacks run once the lock is dropped; what
	 * the operation under the lock started with. */
	struct llmem_event *pending_first, *pending_last;
	struct llmem_event *fired;
	uint64_t op_first_seq, op_queued_ns;
	/* The device's timestampPeriod, when profiling. */
	double timestamp_period;
};

/*
 * An operation's event ({queue, seq}: done once submission @seq is), or a
 * user event (queue NULL), which the host sets.
 */
struct llmem_event {
	struct llmem_queue *queue;
	struct llmem_session *session;
	/* The first and the last submission of the operation. */
	uint64_t first_seq, seq;
	/* Under the queue's lock: in its pending list, found done. */
	struct llmem_event *prev, *next;
	bool linked, done, started;
	struct llmem_event_profile profile;
	llmem_event_callback fn;
	void *user;
	struct llmem_event *fired_next;
	/* User events: LLMEM_EVENT_QUEUED until set, then 0 or an error. */
	pthread_mutex_t user_lock;
	pthread_cond_t user_cond;
	int user_state;
};

/* A piece of staging: @ptr is the host's view of [@off, +size) of @buffer. */
struct llmem_span {
	struct llmem_buffer *buffer;
	uint64_t off;
	uint8_t *ptr;
};

/*
 * queue.c: records.  llmem_queue_open_record() gives the record being
 * filled, opened (and begun) on first use; NULL on error, its errno in
 * q->record_error (and llmem_queue_begin_op()'s VK_NULL_HANDLE too).
 * llmem_queue_submit_open() ends and submits it; on failure it is dropped
 * with its staging.  llmem_queue_discard_open() drops it unsubmitted, its
 * host work not run (old copies of migrated objects destroyed when
 * @migrated).  llmem_queue_flush() submits it outside a batch, so that the
 * next piece of a large transfer gets its own; no-op in a batch.
 * Context: the queue's lock held, as for everything below but
 * llmem_queue_op_enter().
 */
struct llmem_record *llmem_queue_open_record(struct llmem_queue *q);
int llmem_queue_submit_open(struct llmem_queue *q);
void llmem_queue_discard_open(struct llmem_queue *q, bool migrated);
int llmem_queue_flush(struct llmem_queue *q);

/* Destroys every semaphore of @set and empties it. */
void llmem_semaphores_clear(struct llmem_session *s, struct llmem_semaphores *set);

/* Host work for when the record being filled is done.  0 or -ENOMEM. */
int llmem_queue_add_done(struct llmem_queue *q, const struct llmem_done *done);

/*
 * queue.c: retiring.  llmem_queue_retire_oldest() waits up to @timeout for
 * the oldest submission and retires it (-ETIMEDOUT); llmem_queue_wait_seq()
 * retires every submission up to @seq; llmem_queue_retire_done() those
 * already done, without waiting.
 */
int llmem_queue_retire_oldest(struct llmem_queue *q, uint64_t timeout);
int llmem_queue_wait_seq(struct llmem_queue *q, uint64_t seq, uint64_t timeout_ns);
void llmem_queue_retire_done(struct llmem_queue *q);

/*
 * operation.c: entry and exit of every operation.  llmem_queue_op_enter()
 * checks @wait_for and, for a blocking call that wants the host to touch
 * device memory directly (@host_side), waits for the events of other queues
 * before taking the queue's lock; it allocates the event when @event is not
 * NULL and returns with the lock held.  llmem_queue_op_leave() submits what
 * the operation recorded (unless a batch is open), waits when @event is
 * NULL, hands out the event otherwise, and drops the lock.
 */
int llmem_queue_op_enter(struct llmem_queue *q, const struct llmem_wait_list *wait_for,
			 bool host_side, struct llmem_event **event);
int llmem_queue_op_leave(struct llmem_queue *q, int ret, struct llmem_event **event);

/*
 * Whether the host may touch device memory now, in order: outside a batch,
 * with nothing of this queue in flight (a blocking call waits for it, and
 * for the sync_files the queue waits for) and the events of other queues
 * done.
 */
bool llmem_queue_host_turn(struct llmem_queue *q, const struct llmem_wait_list *wait_for,
			   bool blocking);

/*
 * event.c: llmem_queue_event_init() fills a new operation event for
 * submission @seq and lists it as pending (done at once when @seq is);
 * llmem_queue_record_retired() marks the events @rec completes done, with
 * their profiling times, and queues their callbacks; llmem_queue_unlock()
 * drops the queue's lock, then runs those callbacks.  llmem_queue_events_orphan()
 * unlists every pending event, at queue destruction.  llmem_user_event_wait()
 * waits for a user event: its state, or -ETIMEDOUT; llmem_user_event_state()
 * reads it.  This file calls nothing of queue.c nor operation.c, which call it.
 */
/* Timeouts this long (146 years) are no limit, and sums stay in range. */
#define LLMEM_FOREVER_NS (1ull << 62)

void llmem_queue_event_init(struct llmem_queue *q, struct llmem_event *ev, uint64_t seq);
void llmem_queue_record_retired(struct llmem_queue *q, const struct llmem_record *rec);
void llmem_queue_unlock(struct llmem_queue *q);
void llmem_queue_events_orphan(struct llmem_queue *q);
int llmem_user_event_wait(struct llmem_event *ev, uint64_t timeout_ns);
int llmem_user_event_state(struct llmem_event *ev);
uint64_t llmem_now_ns(void);

/* Full barrier before an operation: the queue is in order. */
void llmem_cmd_barrier(VkCommandBuffer cmd);
/* The record being filled, opened if need be, with an operation's full
 * barrier recorded; VK_NULL_HANDLE on error. */
VkCommandBuffer llmem_queue_begin_op(struct llmem_queue *q);

bool llmem_queue_same_session(const struct llmem_queue *q, const struct llmem_buffer *b);
/* 0, or -EINVAL naming @what for a NULL queue or buffer or one of another
 * session. */
int llmem_queue_check_buffer(const struct llmem_queue *q, const struct llmem_buffer *b,
			     const char *what);

/* Records buffer-to-buffer copies of a box, rows merged where both sides are packed. */
void llmem_cmd_copy_rows(VkCommandBuffer cmd, VkBuffer src, const struct llmem_lin *s, VkBuffer dst,
			 const struct llmem_lin *d, uint64_t bytes, uint64_t rows, uint64_t slices);

/*
 * staging.c: staging for @size bytes at a multiple of @align, waiting for
 * the ring to drain outside a batch, allocating beyond it in one; the part
 * of a transfer staged at once; making host writes to a span visible to the
 * device; and the host's copy of a box into staging, which the device reads
 * next: with streaming stores where the device is a CPU (staging.c says
 * why).
 */
int llmem_queue_stage(struct llmem_queue *q, uint64_t size, uint64_t align, struct llmem_span *out);
uint64_t llmem_queue_chunk(const struct llmem_queue *q);
int llmem_queue_stage_flush(const struct llmem_span *span, uint64_t size);
void llmem_queue_stage_box(const struct llmem_queue *q, uint8_t *dst, uint64_t dst_row_pitch,
			   uint64_t dst_slice_pitch, const uint8_t *src, uint64_t src_row_pitch,
			   uint64_t src_slice_pitch, uint64_t bytes, uint64_t rows,
			   uint64_t slices);

#endif
