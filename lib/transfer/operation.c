// SPDX-License-Identifier: MIT
/*
 * What every transfer operation goes through: its wait list checked, its
 * event made, the queue's lock taken (llmem_queue_op_enter()); what it
 * recorded submitted, waited for or handed out as an event
 * (llmem_queue_op_leave()); batches that hold operations back into one
 * submission; and the events themselves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/error.h"
#include "transfer/queue.h"

bool llmem_queue_same_session(const struct llmem_queue *q, const struct llmem_buffer *b)
{
	return llmem_memory_session(b->obj.memory) == q->session;
}

int llmem_queue_check_buffer(const struct llmem_queue *q, const struct llmem_buffer *b,
			     const char *what)
{
	if (!q || !b)
		return llmem_error(-EINVAL, "%s: NULL %s", what, q ? "buffer" : "queue");
	if (!llmem_queue_same_session(q, b))
		return llmem_error(-EINVAL, "%s: the buffer is of another session", what);
	return 0;
}

void llmem_cmd_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &b, 0, NULL, 0, NULL);
}

VkCommandBuffer llmem_queue_begin_op(struct llmem_queue *q)
{
	struct llmem_record *rec = llmem_queue_open_record(q);

	if (!rec)
		return VK_NULL_HANDLE;
	llmem_cmd_barrier(rec->cmd);
	return rec->cmd;
}

/* Regions per vkCmdCopyBuffer call, to keep the array on the stack. */
#define REGIONS 64

void llmem_cmd_copy_rows(VkCommandBuffer cmd, VkBuffer src, const struct llmem_lin *s, VkBuffer dst,
			 const struct llmem_lin *d, uint64_t bytes, uint64_t rows, uint64_t slices)
{
	VkBufferCopy regions[REGIONS];
	uint32_t n = 0;

	if (llmem_lin_packed(s, bytes, rows, slices) && llmem_lin_packed(d, bytes, rows, slices)) {
		regions[0] = (VkBufferCopy){ s->base, d->base, bytes * rows * slices };
		vkCmdCopyBuffer(cmd, src, dst, 1, regions);
		return;
	}
	for (uint64_t z = 0; z < slices; z++) {
		for (uint64_t y = 0; y < rows; y++) {
			regions[n++] = (VkBufferCopy){ llmem_lin_at(s, 1, 0, y, z),
						       llmem_lin_at(d, 1, 0, y, z), bytes };
			if (n == REGIONS) {
				vkCmdCopyBuffer(cmd, src, dst, n, regions);
				n = 0;
			}
		}
	}
	if (n)
		vkCmdCopyBuffer(cmd, src, dst, n, regions);
}

static int check_waits(struct llmem_queue *q, const struct llmem_wait_list *w)
{
	if (!w)
		return 0;
	if (w->count && !w->events)
		return llmem_error(-EINVAL, "wait list: %u events, NULL array", w->count);
	for (uint32_t i = 0; i < w->count; i++) {
		const struct llmem_event *ev = w->events[i];

		if (!ev)
			return llmem_error(-EINVAL, "wait list: event %u is NULL", i);
		if (ev->session != q->session)
			return llmem_error(-EINVAL, "wait list: event %u is of another session", i);
		if (!ev->queue)
			continue;
		/* Own events of the open batch are in order already. */
		if (ev->queue != q && ev->seq > atomic_load(&ev->queue->submitted))
			return llmem_error(-EINVAL,
					   "wait list: event %u belongs to a batch not yet "
					   "submitted",
					   i);
	}
	return 0;
}

int llmem_queue_op_enter(struct llmem_queue *q, const struct llmem_wait_list *w, bool host_side,
			 struct llmem_event **event)
{
	struct llmem_event *ev = NULL;
	int ret = check_waits(q, w);

	if (ret)
		return ret;
	/* User events gate the operation here, before anything is recorded. */
	for (uint32_t i = 0; w && i < w->count; i++) {
		if (w->events[i]->queue)
			continue;
		ret = llmem_user_event_wait(w->events[i], UINT64_MAX);
		if (ret)
			return llmem_error(ret, "wait list: user event %u was set to an error (%s)",
					   i, llmem_strerror(ret));
	}
	if (event) {
		ev = malloc(sizeof(*ev));
		if (!ev)
			return llmem_error(-ENOMEM, "event: out of memory");
	}
	/* Waiting under our lock for another queue's could deadlock. */
	for (uint32_t i = 0; host_side && w && i < w->count; i++) {
		if (w->events[i]->queue == q || !w->events[i]->queue)
			continue;
		ret = llmem_event_wait(w->events[i], UINT64_MAX);
		if (ret) {
			free(ev);
			return ret;
		}
	}
	pthread_mutex_lock(&q->lock);
	q->pending_event = ev;
	q->op_first_seq = q->open ? q->open->seq : q->next_seq;
	q->op_queued_ns = llmem_now_ns();
	return 0;
}

bool llmem_queue_host_turn(struct llmem_queue *q, const struct llmem_wait_list *w, bool blocking)
{
	if (q->batch || (q->open && q->open->recorded))
		return false;
	for (uint32_t i = 0; w && i < w->count; i++)
		if (w->events[i]->queue && w->events[i]->queue != q &&
		    w->events[i]->seq > atomic_load(&w->events[i]->queue->completed))
			return false;
	/*
	 * Nor may it run ahead of the sync_files the device waits for
	 * (sync.c): an empty submission carries them, and a blocking call
	 * waits for it below.
	 */
	if (q->waits.count) {
		if (!blocking || !llmem_queue_open_record(q))
			return false;
		q->open->recorded = true;
		if (llmem_queue_submit_open(q))
			return false;
	}
	if (blocking)
		return llmem_queue_wait_seq(q, UINT64_MAX, UINT64_MAX) == 0;
	llmem_queue_retire_done(q);
	return !q->first;
}

/* Hands out the event llmem_queue_op_enter() allocated, naming submission @seq. */
static void give_event(struct llmem_queue *q, uint64_t seq, struct llmem_event **out)
{
	struct llmem_event *ev = q->pending_event;

	q->pending_event = NULL;
	llmem_queue_event_init(q, ev, seq);
	*out = ev;
}

int llmem_queue_op_leave(struct llmem_queue *q, int ret, struct llmem_event **event)
{
	uint64_t seq;

	if (ret) {
		free(q->pending_event);
		q->pending_event = NULL;
	}
	if (q->batch) {
		if (ret)
			q->batch_error = ret;
		else if (event)
			give_event(q, llmem_queue_open_record(q) ? q->open->seq : 0, event);
		llmem_queue_unlock(q);
		return ret;
	}
	if (ret) {
		/* Pieces already submitted run; the one being filled goes. */
		llmem_queue_discard_open(q, q->batch);
		llmem_queue_unlock(q);
		return ret;
	}
	if (q->open && q->open->recorded)
		ret = llmem_queue_submit_open(q);
	else
		llmem_queue_discard_open(q, q->batch);
	seq = atomic_load(&q->submitted);
	if (ret) {
		free(q->pending_event);
		q->pending_event = NULL;
	} else if (event) {
		give_event(q, seq, event);
	} else {
		ret = llmem_queue_wait_seq(q, seq, UINT64_MAX);
	}
	llmem_queue_retire_done(q);
	llmem_queue_unlock(q);
	return ret;
}

LLMEM_PUBLIC int llmem_queue_begin_batch(struct llmem_queue *q)
{
	int ret = 0;

	if (!q)
		return llmem_error(-EINVAL, "batch: NULL queue");
	pthread_mutex_lock(&q->lock);
	if (q->batch) {
		ret = llmem_error(-EBUSY, "batch: one is open already");
	} else {
		q->batch = true;
		q->batch_error = 0;
	}
	llmem_queue_unlock(q);
	return ret;
}

LLMEM_PUBLIC int llmem_queue_submit_batch(struct llmem_queue *q, struct llmem_event **event)
{
	struct llmem_event *ev = NULL;
	int ret;

	if (!q)
		return llmem_error(-EINVAL, "batch submit: NULL queue");
	/* First, so that running out of memory leaves the batch open. */
	if (event) {
		ev = malloc(sizeof(*ev));
		if (!ev)
			return llmem_error(-ENOMEM, "batch submit: out of memory for the event");
	}
	pthread_mutex_lock(&q->lock);
	if (!q->batch) {
		llmem_queue_unlock(q);
		free(ev);
		return llmem_error(-EINVAL, "batch submit: no batch is open");
	}
	q->batch = false;
	ret = q->batch_error;
	if (ret) {
		llmem_queue_discard_open(q, true);
		llmem_queue_unlock(q);
		free(ev);
		return llmem_error(ret, "batch submit: an operation of the batch failed");
	}
	/* An empty batch still gets its sequence number, for its events. */
	if (!llmem_queue_open_record(q)) {
		ret = q->record_error;
		llmem_queue_unlock(q);
		free(ev);
		return ret;
	}
	q->open->recorded = true;
	q->pending_event = ev;
	return llmem_queue_op_leave(q, 0, event);
}

LLMEM_PUBLIC void llmem_queue_discard_batch(struct llmem_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->batch) {
		llmem_queue_discard_open(q, q->batch);
		q->batch = false;
	}
	llmem_queue_unlock(q);
}

LLMEM_PUBLIC int llmem_event_wait(struct llmem_event *ev, uint64_t timeout_ns)
{
	struct llmem_queue *q;
	int ret;

	if (!ev)
		return llmem_error(-EINVAL, "event wait: NULL event");
	if (!ev->queue) {
		ret = llmem_user_event_wait(ev, timeout_ns);
		if (ret == -ETIMEDOUT)
			return llmem_error(ret, "event wait: user event not set after %llu ns",
					   (unsigned long long)timeout_ns);
		return ret ? llmem_error(ret, "event wait: user event set to an error") : 0;
	}
	q = ev->queue;
	pthread_mutex_lock(&q->lock);
	if (ev->seq > atomic_load(&q->submitted)) {
		llmem_queue_unlock(q);
		return llmem_error(-EBUSY, "event wait: its batch is not submitted");
	}
	ret = llmem_queue_wait_seq(q, ev->seq, timeout_ns);
	llmem_queue_unlock(q);
	if (ret == -ETIMEDOUT)
		return llmem_error(ret, "event wait: not done after %llu ns",
				   (unsigned long long)timeout_ns);
	return ret;
}

LLMEM_PUBLIC int llmem_event_status(struct llmem_event *ev)
{
	struct llmem_queue *q;
	int ret;

	if (!ev)
		return llmem_error(-EINVAL, "event status: NULL event");
	if (!ev->queue)
		return llmem_user_event_state(ev);
	q = ev->queue;
	pthread_mutex_lock(&q->lock);
	if (ev->seq > atomic_load(&q->submitted)) {
		ret = LLMEM_EVENT_QUEUED;
	} else {
		llmem_queue_retire_done(q);
		ret = ev->seq <= atomic_load(&q->completed) ? LLMEM_EVENT_COMPLETE
							    : LLMEM_EVENT_SUBMITTED;
	}
	llmem_queue_unlock(q);
	return ret;
}

LLMEM_PUBLIC int llmem_event_wait_all(const struct llmem_wait_list *events, uint64_t timeout_ns)
{
	uint64_t end = llmem_now_ns() + timeout_ns;
	int ret;

	if (!events || (events->count && !events->events))
		return llmem_error(-EINVAL, "event wait all: NULL %s", events ? "array" : "list");
	for (uint32_t i = 0; i < events->count; i++)
		if (!events->events[i])
			return llmem_error(-EINVAL, "event wait all: event %u is NULL", i);
	for (uint32_t i = 0; i < events->count; i++) {
		uint64_t now = llmem_now_ns(), left = now < end ? end - now : 0;

		if (timeout_ns >= LLMEM_FOREVER_NS)
			left = UINT64_MAX;
		ret = llmem_event_wait(events->events[i], left);
		if (ret)
			return ret;
	}
	return 0;
}

LLMEM_PUBLIC int llmem_event_get_profile(struct llmem_event *ev, struct llmem_event_profile *p)
{
	struct llmem_queue *q;
	int ret = 0;

	if (!ev || !p)
		return llmem_error(-EINVAL, "event profile: NULL %s", ev ? "profile" : "event");
	q = ev->queue;
	if (!q)
		return llmem_error(-EINVAL, "event profile: a user event has no profile");
	if (!(q->flags & LLMEM_QUEUE_PROFILING))
		return llmem_error(-ENOTSUP, "event profile: the queue was made without "
					     "LLMEM_QUEUE_PROFILING");
	pthread_mutex_lock(&q->lock);
	if (ev->done)
		*p = ev->profile;
	else
		ret = llmem_error(-EBUSY, "event profile: the event is not done");
	llmem_queue_unlock(q);
	return ret;
}

LLMEM_PUBLIC int llmem_event_set_callback(struct llmem_event *ev, llmem_event_callback fn,
					  void *user)
{
	struct llmem_queue *q;
	bool now;
	int state;

	if (!ev || !fn)
		return llmem_error(-EINVAL, "event callback: NULL %s", ev ? "function" : "event");
	q = ev->queue;
	if (!q) {
		pthread_mutex_lock(&ev->user_lock);
		state = ev->user_state;
		if (!ev->fn) {
			ev->fn = fn;
			ev->user = user;
		} else {
			state = -EBUSY;
		}
		pthread_mutex_unlock(&ev->user_lock);
		if (state == -EBUSY)
			return llmem_error(-EBUSY, "event callback: the event has one");
		if (state != LLMEM_EVENT_QUEUED)
			fn(ev, state, user);
		return 0;
	}
	pthread_mutex_lock(&q->lock);
	if (ev->fn) {
		pthread_mutex_unlock(&q->lock);
		return llmem_error(-EBUSY, "event callback: the event has one");
	}
	ev->fn = fn;
	ev->user = user;
	now = ev->done;
	llmem_queue_unlock(q);
	if (now)
		fn(ev, 0, user);
	return 0;
}
