/* SPDX-License-Identifier: MIT */
/*
 * GstLlmemTransform: what llmem's elements share around their GPU work.
 * The device (the "device" property and its session), the frames
 * downstream gets (the element's own llmem pool, decide_allocation), the
 * pool offered upstream (propose_allocation), and the input frame as an
 * llmem buffer: upstream's own where it is an llmem frame of the element's
 * device, a copy in a staging frame otherwise ("frames-copied").
 */
#ifndef GST_LLMEM_TRANSFORM_H
#define GST_LLMEM_TRANSFORM_H

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <llmem/frame.h>

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
 * GstBaseTransform's transform is the base class's: it takes the output
 * frame from the element's pool and the input frame in place (or copied),
 * and calls @process with both.
 */
struct _GstLlmemTransformClass {
	GstBaseTransformClass parent_class;
	/* The GPU work on one frame; posts its error message on failure. */
	GstFlowReturn (*process)(GstLlmemTransform *self, const struct gst_llmem_frame *src,
				 const struct gst_llmem_frame *dst);
	/* Whether @process takes a src whose CbCr plane is a buffer of its
	 * own; without it such a frame is copied into one buffer first. */
	gboolean takes_chroma;
};

/* For subclasses: valid between start and stop. */
GstLlmemSession *gst_llmem_transform_session(GstLlmemTransform *self);

/* The caps set_caps was given, parsed. */
const GstVideoInfo *gst_llmem_transform_in_info(GstLlmemTransform *self);

/*
 * The input frame of @inbuf as llmem buffers and its layout, for work in
 * place (transform_ip); *@staged receives the staging frame when the frame
 * had to be copied (the caller's to unref after the GPU work), NULL
 * otherwise.  A frame whose planes come in a memory each (V4L2's NV12M) is
 * read in place where the class takes_chroma, copied otherwise.  Posts the
 * error message on failure.
 */
GstFlowReturn gst_llmem_transform_input(GstLlmemTransform *self, GstBuffer *inbuf,
					struct gst_llmem_frame *frame, GstBuffer **staged);

#endif
