/* SPDX-License-Identifier: MIT */
/*
 * Frames in flight: frames whose GPU work was submitted and whose output
 * is not pushed yet, oldest first, with the buffers the work reads and
 * writes held until it is done (upstream's pool must not recycle a frame
 * under the GPU).  The element decides when to submit and when to push;
 * this only keeps the frames and waits for their work through the
 * element's @wait.  Work finishes in submission order (one converter, one
 * llmem queue), so a frame found done means every older one is.
 *
 * Locking: the calls on a queue but init and clear with its lock held.
 * The streaming thread adds and pops; FLUSH_START discards from another
 * thread.
 */
#ifndef GST_LLMEM_INFLIGHT_H
#define GST_LLMEM_INFLIGHT_H

#include <gst/gst.h>

struct llmem_event;

/* What an element waits for: a converter's ticket or a queue's event. */
union gst_llmem_work {
	guint64 ticket;
	struct llmem_event *event;
};

struct gst_llmem_inflight_ops {
	/* 0 once @work is done; -ETIMEDOUT while it is not (@timeout_ns 0
	 * only asks, G_MAXUINT64 waits for ever); another negative errno when
	 * it failed, the reason in llmem_last_error(). */
	int (*wait)(gpointer owner, union gst_llmem_work *work, guint64 timeout_ns);
	/* Lets go of @work once it is done or given up; NULL when nothing is
	 * held. */
	void (*release)(gpointer owner, union gst_llmem_work *work);
};

/* One frame in flight; each buffer holds a reference of its own. */
struct gst_llmem_inflight_frame {
	/* What goes downstream (upstream's own buffer in place). */
	GstBuffer *outbuf;
	/* Upstream's buffer, when it is not @outbuf. */
	GstBuffer *inbuf;
	/* The copy path's llmem frame the GPU works on, or NULL. */
	GstBuffer *staged;
	/* In place on @staged: its result goes back into @outbuf once done. */
	gboolean copy_back;
	union gst_llmem_work work;
};

struct gst_llmem_inflight {
	GMutex lock;
	GQueue frames;
	const struct gst_llmem_inflight_ops *ops;
	gpointer owner;
	/* Between FLUSH_START and FLUSH_STOP: nothing new is taken. */
	gboolean flushing;
};

void gst_llmem_inflight_init(struct gst_llmem_inflight *q, const struct gst_llmem_inflight_ops *ops,
			     gpointer owner);
/* After gst_llmem_inflight_discard(): frees the lock. */
void gst_llmem_inflight_clear(struct gst_llmem_inflight *q);

/* Takes @frame's references. */
void gst_llmem_inflight_add(struct gst_llmem_inflight *q,
			    const struct gst_llmem_inflight_frame *frame);

guint gst_llmem_inflight_length(struct gst_llmem_inflight *q);

/*
 * Waits until no more than @unfinished frames' work is still running.
 * Return: 0, or the error of the work that failed.
 */
int gst_llmem_inflight_wait(struct gst_llmem_inflight *q, guint unfinished);

/*
 * The oldest frame, out of the queue, once its work is done (waiting up to
 * @timeout_ns): its work released, its buffers the caller's.
 * Return: 0; -ENOENT when there is none; -ETIMEDOUT when it is not done in
 * time; the error of its work when that failed (the frame stays).
 */
int gst_llmem_inflight_pop(struct gst_llmem_inflight *q, guint64 timeout_ns,
			   struct gst_llmem_inflight_frame *frame);

/* Waits for every frame's work (failed or not) and drops the frames. */
void gst_llmem_inflight_discard(struct gst_llmem_inflight *q);

/* Drops the references of a frame popped. */
void gst_llmem_inflight_frame_clear(struct gst_llmem_inflight_frame *frame);

#endif
