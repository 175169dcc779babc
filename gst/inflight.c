// SPDX-License-Identifier: MIT
/*
 * The queue of frames in flight.  A frame's work is released as soon as it
 * is seen done, once: an element may then replace what made the work (a
 * converter for other layouts) while done frames still wait to be pushed.
 */
#include "inflight.h"

#include <errno.h>

struct entry {
	struct gst_llmem_inflight_frame frame;
	gboolean done;
};

void gst_llmem_inflight_init(struct gst_llmem_inflight *q, const struct gst_llmem_inflight_ops *ops,
			     gpointer owner)
{
	g_mutex_init(&q->lock);
	g_queue_init(&q->frames);
	q->ops = ops;
	q->owner = owner;
	q->flushing = FALSE;
}

void gst_llmem_inflight_clear(struct gst_llmem_inflight *q)
{
	g_mutex_clear(&q->lock);
}

void gst_llmem_inflight_add(struct gst_llmem_inflight *q,
			    const struct gst_llmem_inflight_frame *frame)
{
	struct entry *e = g_new0(struct entry, 1);

	e->frame = *frame;
	g_queue_push_tail(&q->frames, e);
}

guint gst_llmem_inflight_length(struct gst_llmem_inflight *q)
{
	return g_queue_get_length(&q->frames);
}

static void release(struct gst_llmem_inflight *q, struct entry *e)
{
	if (q->ops->release)
		q->ops->release(q->owner, &e->frame.work);
	e->done = TRUE;
}

/* 0 once @e's work is done, released. */
static int wait_entry(struct gst_llmem_inflight *q, struct entry *e, guint64 timeout_ns)
{
	int ret;

	if (e->done)
		return 0;
	ret = q->ops->wait(q->owner, &e->frame.work, timeout_ns);
	if (!ret)
		release(q, e);
	return ret;
}

int gst_llmem_inflight_wait(struct gst_llmem_inflight *q, guint unfinished)
{
	guint length = g_queue_get_length(&q->frames);

	for (guint i = 0; i + unfinished < length; i++) {
		int ret = wait_entry(q, g_queue_peek_nth(&q->frames, i), G_MAXUINT64);

		if (ret)
			return ret;
	}
	return 0;
}

int gst_llmem_inflight_pop(struct gst_llmem_inflight *q, guint64 timeout_ns,
			   struct gst_llmem_inflight_frame *frame)
{
	struct entry *e = g_queue_peek_head(&q->frames);
	int ret;

	if (!e)
		return -ENOENT;
	ret = wait_entry(q, e, timeout_ns);
	if (ret)
		return ret;
	*frame = e->frame;
	g_free(g_queue_pop_head(&q->frames));
	return 0;
}

void gst_llmem_inflight_frame_clear(struct gst_llmem_inflight_frame *frame)
{
	gst_clear_buffer(&frame->outbuf);
	gst_clear_buffer(&frame->inbuf);
	gst_clear_buffer(&frame->staged);
}

void gst_llmem_inflight_discard(struct gst_llmem_inflight *q)
{
	struct entry *e;

	/* The GPU may still read or write the buffers: wait before letting
	 * go of them, whatever the work's outcome. */
	while ((e = g_queue_pop_head(&q->frames))) {
		if (!e->done) {
			q->ops->wait(q->owner, &e->frame.work, G_MAXUINT64);
			release(q, e);
		}
		gst_llmem_inflight_frame_clear(&e->frame);
		g_free(e);
	}
}
