/* SPDX-License-Identifier: MIT */
/*
 * One Vulkan session shared by an element and every allocator it made.
 * Buffers outlive elements (a sink may hold the last frame after the
 * pipeline stopped), and llmem_session_destroy() refuses while memories
 * live, so the session goes with its last reference, not with the element.
 */
#ifndef GST_LLMEM_SESSION_H
#define GST_LLMEM_SESSION_H

#include <gst/gst.h>

struct llmem_session;

typedef struct _GstLlmemSession GstLlmemSession;

/* Opens the device named @device (a substring of its name; NULL for the
 * first, or LLMEM_DEVICE).  Returns 0 or llmem's negative errno, with the
 * reason in llmem_last_error(). */
int gst_llmem_session_new(const gchar *device, GstLlmemSession **out);
GstLlmemSession *gst_llmem_session_ref(GstLlmemSession *session);
void gst_llmem_session_unref(GstLlmemSession *session);
struct llmem_session *gst_llmem_session_get(GstLlmemSession *session);

GST_DEBUG_CATEGORY_EXTERN(gst_llmem_debug);
/* The elements' GST_*_OBJECT messages go to "llmem" too, not to GStreamer's
 * "default" category, which GST_DEBUG=llmem:N would leave silent. */
#undef GST_CAT_DEFAULT
#define GST_CAT_DEFAULT gst_llmem_debug

#endif
