// SPDX-License-Identifier: MIT
/*
 * An imported page lives until its llmem memory goes
 * (llmem_memory_import_dmabuf()), so each DMA-BUF gets an llmem memory of
 * its own, released with the GstMemory it came in: the import follows the
 * upstream pool's memories, not the frames.
 */
#include "import.h"

#include <gst/allocators/allocators.h>
#include <llmem/llmem.h>

struct import {
	GstLlmemSession *session;
	struct llmem_memory *memory;
	struct llmem_buffer *buffer;
};

static GQuark import_quark(void)
{
	return g_quark_from_static_string("GstLlmemImport");
}

static void import_free(gpointer data)
{
	struct import *i = data;

	llmem_buffer_destroy(i->buffer);
	llmem_memory_destroy(i->memory);
	gst_llmem_session_unref(i->session);
	g_free(i);
}

struct llmem_buffer *gst_llmem_import_dmabuf(GstLlmemSession *session, GstMemory *mem)
{
	GstMemory *root = mem->parent ? mem->parent : mem;
	struct import *i = gst_mini_object_get_qdata(GST_MINI_OBJECT(root), import_quark());
	struct llmem_memory_create_info mci = {
		.sharing = LLMEM_SHARING_IMPORT,
		.name = "gstllmem import",
	};
	uint32_t page;
	int fd = gst_dmabuf_memory_get_fd(mem);

	if (i && i->session == session)
		return i->buffer;
	i = g_new0(struct import, 1);
	i->session = gst_llmem_session_ref(session);
	if (llmem_memory_create(gst_llmem_session_get(session), &mci, &i->memory) ||
	    llmem_memory_import_dmabuf(i->memory, fd, 0, &page) ||
	    llmem_buffer_create(i->memory,
				&(struct llmem_buffer_create_info){ .size = mem->maxsize },
				&i->buffer)) {
		import_free(i);
		return NULL;
	}
	/* The buffer is its page's only object, so it starts at the DMA-BUF's
	 * first byte and upstream's offsets hold in it.  Another session's
	 * import of the same memory goes with its notify. */
	gst_mini_object_set_qdata(GST_MINI_OBJECT(root), import_quark(), i, import_free);
	GST_CAT_DEBUG(gst_llmem_debug, "imported DMA-BUF fd %d (%zu bytes) of memory %p", fd,
		      mem->maxsize, root);
	return i->buffer;
}
