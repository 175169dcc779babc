/* SPDX-License-Identifier: MIT */
/*
 * GstLlmemAllocator: GstMemory objects that are llmem buffers in pages of
 * one llmem memory, each a DMA-BUF fd importers take (kmssink, v4l2src
 * io-mode=dmabuf-import, v4l2 encoders).
 */
#ifndef GST_LLMEM_ALLOCATOR_H
#define GST_LLMEM_ALLOCATOR_H

#include <gst/allocators/allocators.h>

#include "session.h"

struct llmem_buffer;

#define GST_TYPE_LLMEM_ALLOCATOR gst_llmem_allocator_get_type()
G_DECLARE_FINAL_TYPE(GstLlmemAllocator, gst_llmem_allocator, GST, LLMEM_ALLOCATOR,
		     GstDmaBufAllocator)

/*
 * An allocator whose pages hold @frames_per_page memories of @frame_size
 * bytes.  Its pages are shared (DMA-BUFs) where the machine has a backend
 * for them; where it has none (no llmem.ko, a Vulkan driver that cannot
 * export) they are host-visible Vulkan memory, and its memories are not
 * DMA-BUF memories (gst_is_dmabuf_memory() is false): importers copy.
 * Return: 0 or llmem's negative errno (the reason in llmem_last_error()).
 */
int gst_llmem_allocator_new(GstLlmemSession *session, gsize frame_size, guint frames_per_page,
			    GstAllocator **out);

/* The llmem buffer behind @mem (a memory of a GstLlmemAllocator of
 * @session, or a share of one), or NULL when it is none. */
struct llmem_buffer *gst_llmem_memory_get_buffer(GstMemory *mem, GstLlmemSession *session);

#endif
