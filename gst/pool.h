/* SPDX-License-Identifier: MIT */
/*
 * GstLlmemBufferPool: video frames laid out by llmem
 * (llmem_frame_layout_init()), one GstLlmemAllocator memory each, with the
 * GstVideoMeta of that layout.  A released buffer keeps its memory, so an
 * importer that caches state on a GstMemory (kmssink's framebuffer) finds
 * it again.
 */
#ifndef GST_LLMEM_POOL_H
#define GST_LLMEM_POOL_H

#include <gst/video/video.h>

#include <llmem/frame.h>

#include "session.h"

#define GST_TYPE_LLMEM_BUFFER_POOL gst_llmem_buffer_pool_get_type()
G_DECLARE_FINAL_TYPE(GstLlmemBufferPool, gst_llmem_buffer_pool, GST, LLMEM_BUFFER_POOL,
		     GstBufferPool)

/* Frames llmemconvert's pools ask for at least, and frames a page where a
 * configuration sets no maximum. */
#define GST_LLMEM_POOL_MIN_BUFFERS 4

GstBufferPool *gst_llmem_buffer_pool_new(GstLlmemSession *session);

/* The layout of the configured caps' frames; FALSE before a configuration
 * was accepted. */
gboolean gst_llmem_buffer_pool_get_layout(GstLlmemBufferPool *pool,
					  struct llmem_frame_layout *layout);

#endif
