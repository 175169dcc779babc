// SPDX-License-Identifier: MIT
/*
 * Events beyond waiting: the pending list a queue keeps of the events it
 * handed out, filled with profiling times and fired (callbacks) when the
 * submission they name retires, and user events the host sets.  The calls
 * that ask a queue about its events (status, waits, profiles, callbacks)
 * are in operation.c, which calls down into this file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/error.h"
#include "device/vk.h"
#include "transfer/queue.h"

uint64_t llmem_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void unlink_event(struct llmem_queue *q, struct llmem_event *ev)
{
	if (ev->prev)
		ev->prev->next = ev->next;
	else
		q->pending_first = ev->next;
	if (ev->next)
		ev->next->prev = ev->prev;
	else
		q->pending_last = ev->prev;
	ev->prev = ev->next = NULL;
	ev->linked = false;
}

void llmem_queue_event_init(struct llmem_queue *q, struct llmem_event *ev, uint64_t seq)
{
	*ev = (struct llmem_event){
		.queue = q,
		.session = q->session,
		.first_seq = q->op_first_seq < seq ? q->op_first_seq : seq,
		.seq = seq,
		.profile = { .queued = q->op_queued_ns, .submitted = q->op_queued_ns },
	};
	/* Work done on the host (through a mapping) names a finished submission. */
	if (seq <= atomic_load(&q->completed)) {
		ev->done = true;
		return;
	}
	ev->prev = q->pending_last;
	if (q->pending_last)
		q->pending_last->next = ev;
	else
		q->pending_first = ev;
	q->pending_last = ev;
	ev->linked = true;
}

void llmem_queue_record_retired(struct llmem_queue *q, const struct llmem_record *rec)
{
	uint64_t ticks[2] = { 0, 0 };
	struct llmem_event *ev, *next;

	if (rec->timestamps &&
	    vkGetQueryPoolResults(q->session->device, rec->timestamps, 0, 2, sizeof(ticks), ticks,
				  sizeof(ticks[0]), VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
		ticks[0] = ticks[1] = 0;
	for (ev = q->pending_first; ev && ev->first_seq <= rec->seq; ev = next) {
		next = ev->next;
		if (!ev->started) {
			ev->profile.start = (uint64_t)((double)ticks[0] * q->timestamp_period);
			ev->started = true;
		}
		ev->profile.submitted = rec->submitted_ns;
		if (ev->seq > rec->seq)
			continue;
		ev->profile.end = (uint64_t)((double)ticks[1] * q->timestamp_period);
		ev->done = true;
		unlink_event(q, ev);
		if (ev->fn) {
			ev->fired_next = q->fired;
			q->fired = ev;
		}
	}
}

void llmem_queue_unlock(struct llmem_queue *q)
{
	struct llmem_event *fired = q->fired, *next;

	q->fired = NULL;
	pthread_mutex_unlock(&q->lock);
	/* Newest first in the list; a callback may release its event. */
	for (; fired; fired = next) {
		next = fired->fired_next;
		fired->fn(fired, 0, fired->user);
	}
}

void llmem_queue_events_orphan(struct llmem_queue *q)
{
	while (q->pending_first)
		unlink_event(q, q->pending_first);
}

int llmem_user_event_state(struct llmem_event *ev)
{
	int state;

	pthread_mutex_lock(&ev->user_lock);
	state = ev->user_state;
	pthread_mutex_unlock(&ev->user_lock);
	return state;
}

int llmem_user_event_wait(struct llmem_event *ev, uint64_t timeout_ns)
{
	uint64_t end = llmem_now_ns() + timeout_ns;
	struct timespec deadline = {
		.tv_sec = (time_t)(end / 1000000000ull),
		.tv_nsec = (long)(end % 1000000000ull),
	};
	int state, ret = 0;

	pthread_mutex_lock(&ev->user_lock);
	while (ev->user_state == LLMEM_EVENT_QUEUED && ret != ETIMEDOUT) {
		if (timeout_ns >= LLMEM_FOREVER_NS)
			pthread_cond_wait(&ev->user_cond, &ev->user_lock);
		else
			ret = pthread_cond_timedwait(&ev->user_cond, &ev->user_lock, &deadline);
	}
	state = ev->user_state;
	pthread_mutex_unlock(&ev->user_lock);
	return state == LLMEM_EVENT_QUEUED ? -ETIMEDOUT : state;
}

LLMEM_PUBLIC int llmem_user_event_create(struct llmem_session *s, struct llmem_event **out)
{
	struct llmem_event *ev;
	pthread_condattr_t attr;

	if (!s || !out)
		return llmem_error(-EINVAL, "user event: NULL %s", s ? "out" : "session");
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return llmem_error(-ENOMEM, "user event: out of memory");
	ev->session = s;
	ev->user_state = LLMEM_EVENT_QUEUED;
	pthread_mutex_init(&ev->user_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ev->user_cond, &attr);
	pthread_condattr_destroy(&attr);
	*out = ev;
	return 0;
}

LLMEM_PUBLIC int llmem_user_event_set(struct llmem_event *ev, int status)
{
	llmem_event_callback fn;

	if (!ev || ev->queue)
		return llmem_error(-EINVAL, "user event set: %s",
				   ev ? "not a user event" : "NULL event");
	if (status > 0)
		return llmem_error(-EINVAL, "user event set: status %d: 0 or a negative errno",
				   status);
	pthread_mutex_lock(&ev->user_lock);
	if (ev->user_state != LLMEM_EVENT_QUEUED) {
		pthread_mutex_unlock(&ev->user_lock);
		return llmem_error(-EINVAL, "user event set: already set");
	}
	ev->user_state = status;
	fn = ev->fn;
	pthread_cond_broadcast(&ev->user_cond);
	pthread_mutex_unlock(&ev->user_lock);
	if (fn)
		fn(ev, status, ev->user);
	return 0;
}

/* Linked only while its queue lives: destruction unlists every event. */
LLMEM_PUBLIC void llmem_event_release(struct llmem_event *ev)
{
	if (!ev)
		return;
	if (!ev->queue) {
		pthread_cond_destroy(&ev->user_cond);
		pthread_mutex_destroy(&ev->user_lock);
	} else if (ev->linked) {
		pthread_mutex_lock(&ev->queue->lock);
		if (ev->linked)
			unlink_event(ev->queue, ev);
		pthread_mutex_unlock(&ev->queue->lock);
	}
	free(ev);
}
