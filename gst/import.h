/* SPDX-License-Identifier: MIT */
/*
 * Upstream's DMA-BUF memories (v4l2src io-mode=dmabuf, a decoder's CAPTURE
 * buffers) as llmem buffers the GPU reads in place.
 */
#ifndef GST_LLMEM_IMPORT_H
#define GST_LLMEM_IMPORT_H

#include <gst/gst.h>

#include "session.h"

struct llmem_buffer;

/*
 * The llmem buffer over the whole DMA-BUF of @mem (a DMA-BUF memory; a
 * share of one counts from its parent's first byte, as mem->offset does),
 * imported on first use and kept with the GstMemory while it lives: pools
 * hand the same memories back, so each DMA-BUF is imported once.  NULL when
 * @session cannot import it, the reason in llmem_last_error().
 */
struct llmem_buffer *gst_llmem_import_dmabuf(GstLlmemSession *session, GstMemory *mem);

#endif
