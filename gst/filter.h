/* SPDX-License-Identifier: MIT */
/*
 * llmemfilter: a user's SPIR-V compute kernel run on each frame, in place
 * or into a new frame, the way llmem's kernels run on buffers (kernel.h).
 */
#ifndef GST_LLMEM_FILTER_H
#define GST_LLMEM_FILTER_H

#include "transform.h"

#define GST_TYPE_LLMEM_FILTER gst_llmem_filter_get_type()
G_DECLARE_FINAL_TYPE(GstLlmemFilter, gst_llmem_filter, GST, LLMEM_FILTER, GstLlmemTransform)

GST_ELEMENT_REGISTER_DECLARE(llmemfilter);

/*
 * What the kernel gets: binding 0 the input frame's buffer, binding 1 the
 * output frame's (the same buffer in place), both storage buffers whose
 * byte 0 is the buffer's; then this block of push constants, bytes from the
 * buffers' starts, followed by the words of the "push-constants" property.
 */
struct gst_llmem_filter_push {
	uint32_t width;
	uint32_t height;
	uint32_t src_offset[2];
	uint32_t src_pitch[2];
	uint32_t dst_offset[2];
	uint32_t dst_pitch[2];
};

#endif
