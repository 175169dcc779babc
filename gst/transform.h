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

struct _GstLlmemTransformClass {
	GstBaseTransformClass parent_class;
};

/* For subclasses: valid between start and stop. */
GstLlmemSession *gst_llmem_transform_session(GstLlmemTransform *self);

/* The caps set_caps was given, parsed; and where the output frames lie. */
const GstVideoInfo *gst_llmem_transform_in_info(GstLlmemTransform *self);
const struct llmem_frame_layout *gst_llmem_transform_out_layout(GstLlmemTransform *self);

/*
 * The input frame of @inbuf as an llmem buffer and its layout; *@staged
 * receives the staging frame when the frame had to be copied (the
 * caller's to unref after the GPU work), NULL otherwise.  A caller that
 * takes NV12's CbCr plane in a buffer of its own gives @chroma: a frame
 * that comes as a memory per plane (V4L2's NV12M) is then read in place,
 * *@chroma its CbCr plane's buffer and the layout's plane 1 offset within
 * it; *@chroma is NULL when both planes are in *@buffer.  Without @chroma
 * such a frame is copied.  Posts the error message on failure.
 */
GstFlowReturn gst_llmem_transform_input(GstLlmemTransform *self, GstBuffer *inbuf,
					struct llmem_buffer **buffer, struct llmem_buffer **chroma,
					struct llmem_frame_layout *layout, GstBuffer **staged);

/* The llmem frame of @outbuf (a buffer of the element's pool); posts the
 * error message and returns NULL when it is none. */
struct llmem_buffer *gst_llmem_transform_output(GstLlmemTransform *self, GstBuffer *outbuf);

#endif
