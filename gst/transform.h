/* SPDX-License-Identifier: MIT */
/*
 * GstLlmemTransform: what llmem's elements share around their GPU work.
 * The device (the "device" property and its session), the frames
 * downstream gets (the element's own llmem pool, decide_allocation), the
 * pool offered upstream (propose_allocation), the input frame as an llmem
 * buffer: upstream's own where it is an llmem frame of the element's
 * device, a copy in a staging frame otherwise ("frames-copied"); and the
 * frames in flight ("frames-in-flight", inflight.h): the streaming thread
 * submits a frame's work and goes back upstream for the next one, and a
 * frame is pushed once its work is done.
 */
#ifndef GST_LLMEM_TRANSFORM_H
#define GST_LLMEM_TRANSFORM_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <llmem/frame.h>

#include "inflight.h"
#include "session.h"

struct llmem_buffer;

#define GST_TYPE_LLMEM_TRANSFORM gst_llmem_transform_get_type()
G_DECLARE_DERIVABLE_TYPE(GstLlmemTransform, gst_llmem_transform, GST, LLMEM_TRANSFORM,
			 GstBaseTransform)

/* A frame as an element's GPU work reads or writes it. */
struct gst_llmem_frame {
	struct llmem_buffer *buffer;
	/* NV12's CbCr plane in a buffer of its own (layout.offset[1] within
	 * it), or NULL: both planes are in @buffer. */
	struct llmem_buffer *chroma;
	struct llmem_frame_layout layout;
};

/*
 * GstBaseTransform's transform and transform_ip are the base class's: they
 * take the output frame from the element's pool (or upstream's own frame
 * in place) and the input frame in place (or copied), @submit the GPU work
 * and queue the frame.  generate_output pushes frames whose work is done,
 * in order; EOS and every other serialized event or query push all of them
 * first; FLUSH_START, FLUSH_STOP and stop() drop them (after the GPU is done
 * with their buffers).
 */
struct _GstLlmemTransformClass {
	GstBaseTransformClass parent_class;
	/* Hands the GPU work on one frame to the device and returns without
	 * waiting for it; *@work receives what @wait finds it by.  Posts its
	 * error message on failure. */
	GstFlowReturn (*submit)(GstLlmemTransform *self, const struct gst_llmem_frame *src,
				const struct gst_llmem_frame *dst, union gst_llmem_work *work);
	/* As gst_llmem_inflight_ops' wait and release (release may be NULL). */
	int (*wait)(GstLlmemTransform *self, union gst_llmem_work *work, guint64 timeout_ns);
	void (*release_work)(GstLlmemTransform *self, union gst_llmem_work *work);
	/* Destroys what the element made on the device, when no frame is in
	 * flight any more and before the session goes; NULL for nothing. */
	void (*release)(GstLlmemTransform *self);
	/* Whether @submit takes a src whose CbCr plane is a buffer of its
	 * own; without it such a frame is copied into one buffer first. */
	gboolean takes_chroma;
};

/* For subclasses: valid between start and stop. */
GstLlmemSession *gst_llmem_transform_session(GstLlmemTransform *self);

/* The caps set_caps was given, parsed. */
const GstVideoInfo *gst_llmem_transform_in_info(GstLlmemTransform *self);

/* The "frames-in-flight" the element started with. */
guint gst_llmem_transform_frames_in_flight(GstLlmemTransform *self);

/*
 * Waits for the work of every frame in flight, for @submit before it
 * replaces what did that work.  Return: 0, or the error of the work that
 * failed.
 */
int gst_llmem_transform_wait_in_flight(GstLlmemTransform *self);

#endif
