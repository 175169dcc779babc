// SPDX-License-Identifier: MIT
/*
 * The allocator lays memories out in llmem pages the way llmem's camera lays
 * out its frames: on llmem.ko's pages many frames share a page, each
 * exported as a DMA-BUF over its own bytes (llmem_buffer_export_range()),
 * because V4L2 capture takes no offset into a DMA-BUF; Vulkan's exported
 * pages cannot be cut, so there each memory has a page of its own.
 *
 * The memories are GstDmaBufAllocator's fd memories, so that
 * gst_dmabuf_memory_get_fd() and every importer work on them unchanged;
 * the llmem buffer rides along as the memory's qdata.  CPU maps go through
 * llmem's mapping of the page (one per page, shared by its frames), not an
 * mmap of the fd per memory, bracketed by the DMA-BUF's sync ioctl and
 * llmem's flush and invalidate.
 */
#include "allocator.h"

#include <errno.h>
#include <unistd.h>

#include <llmem/llmem.h>

struct _GstLlmemAllocator {
	GstDmaBufAllocator parent;
	GstLlmemSession *session;
	struct llmem_memory *memory;
	gboolean ranges;
	gboolean shared;
};

G_DEFINE_TYPE(GstLlmemAllocator, gst_llmem_allocator, GST_TYPE_DMABUF_ALLOCATOR)

enum {
	PROP_0,
	PROP_PAGES,
	PROP_SHARED
};

/* The memory type of memories that are not DMA-BUFs (no backend here). */
#define GST_LLMEM_MEMORY_TYPE_UNSHARED "llmem"

static GQuark buffer_quark;

static void destroy_buffer(gpointer buffer)
{
	llmem_buffer_destroy(buffer);
}

static GstMemory *gst_llmem_allocator_alloc(GstAllocator *allocator, gsize size,
					    GstAllocationParams *params)
{
	GstLlmemAllocator *self = GST_LLMEM_ALLOCATOR(allocator);
	struct llmem_buffer_create_info bci = {
		.size = size ? size : 1,
		.name = "gstllmem frame",
		.alignment = 4096,
	};
	struct llmem_dmabuf_region region = { .fd = -1 };
	struct llmem_buffer *buffer;
	GstMemory *mem;
	int ret;

	(void)params;
	ret = llmem_buffer_create(self->memory, &bci, &buffer);
	if (ret) {
		GST_CAT_ERROR(gst_llmem_debug, "frame of %zu bytes: %s", size, llmem_last_error());
		return NULL;
	}
	if (self->shared) {
		ret = self->ranges ? llmem_buffer_export_range(buffer, &region)
				   : llmem_buffer_export(buffer, &region);
		if (ret) {
			GST_CAT_ERROR(gst_llmem_debug, "export: %s", llmem_last_error());
			llmem_buffer_destroy(buffer);
			return NULL;
		}
	}
	/* A memory of a page of its own is the page's only object: its fd's
	 * first byte is the memory's, as in a range. */
	mem = gst_fd_allocator_alloc(allocator, region.fd, size, GST_FD_MEMORY_FLAG_NONE);
	if (!mem) {
		if (region.fd >= 0)
			close(region.fd);
		llmem_buffer_destroy(buffer);
		return NULL;
	}
	gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), buffer_quark, buffer, destroy_buffer);
	GST_CAT_DEBUG(gst_llmem_debug, "memory %p: %zu bytes, fd %d", mem, size, region.fd);
	return mem;
}

static struct llmem_buffer *root_buffer(GstMemory *mem)
{
	GstMemory *root = mem->parent ? mem->parent : mem;

	return gst_mini_object_get_qdata(GST_MINI_OBJECT(root), buffer_quark);
}

static gpointer gst_llmem_mem_map_full(GstMemory *mem, GstMapInfo *info, gsize maxsize)
{
	struct llmem_buffer *buffer = root_buffer(mem);
	uint32_t access = (info->flags & GST_MAP_READ ? LLMEM_CPU_READ : 0) |
			  (info->flags & GST_MAP_WRITE ? LLMEM_CPU_WRITE : 0);
	void *ptr;

	(void)maxsize;
	if (llmem_buffer_map(buffer, &ptr)) {
		GST_CAT_ERROR(gst_llmem_debug, "map: %s", llmem_last_error());
		return NULL;
	}
	if ((access && llmem_buffer_begin_cpu_access(buffer, access)) ||
	    ((info->flags & GST_MAP_READ) &&
	     llmem_buffer_invalidate(buffer, 0, LLMEM_WHOLE_SIZE))) {
		GST_CAT_ERROR(gst_llmem_debug, "map: %s", llmem_last_error());
		llmem_buffer_unmap(buffer);
		return NULL;
	}
	return ptr;
}

static void gst_llmem_mem_unmap_full(GstMemory *mem, GstMapInfo *info)
{
	struct llmem_buffer *buffer = root_buffer(mem);
	uint32_t access = (info->flags & GST_MAP_READ ? LLMEM_CPU_READ : 0) |
			  (info->flags & GST_MAP_WRITE ? LLMEM_CPU_WRITE : 0);

	if ((info->flags & GST_MAP_WRITE) && llmem_buffer_flush(buffer, 0, LLMEM_WHOLE_SIZE))
		GST_CAT_ERROR(gst_llmem_debug, "flush: %s", llmem_last_error());
	if (access && llmem_buffer_end_cpu_access(buffer, access))
		GST_CAT_ERROR(gst_llmem_debug, "end of CPU access: %s", llmem_last_error());
	llmem_buffer_unmap(buffer);
}

static void gst_llmem_allocator_get_property(GObject *object, guint id, GValue *value,
					     GParamSpec *pspec)
{
	GstLlmemAllocator *self = GST_LLMEM_ALLOCATOR(object);
	struct llmem_memory_info mi = { 0 };

	switch (id) {
	case PROP_PAGES:
		if (self->memory)
			llmem_memory_get_info(self->memory, &mi);
		g_value_set_uint(value, mi.page_count);
		break;
	case PROP_SHARED:
		g_value_set_boolean(value, self->shared);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void gst_llmem_allocator_finalize(GObject *object)
{
	GstLlmemAllocator *self = GST_LLMEM_ALLOCATOR(object);

	/* Every memory holds a reference to its allocator: none is left. */
	if (llmem_memory_destroy(self->memory))
		GST_CAT_ERROR(gst_llmem_debug, "memory: %s", llmem_last_error());
	gst_llmem_session_unref(self->session);
	G_OBJECT_CLASS(gst_llmem_allocator_parent_class)->finalize(object);
}

static void gst_llmem_allocator_class_init(GstLlmemAllocatorClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	GST_ALLOCATOR_CLASS(klass)->alloc = gst_llmem_allocator_alloc;
	object_class->get_property = gst_llmem_allocator_get_property;
	object_class->finalize = gst_llmem_allocator_finalize;
	g_object_class_install_property(
		object_class, PROP_PAGES,
		g_param_spec_uint("pages", "Pages",
				  "llmem pages the allocator's memories live in now", 0, G_MAXUINT,
				  0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
	g_object_class_install_property(
		object_class, PROP_SHARED,
		g_param_spec_boolean("shared", "Shared",
				     "Whether the memories are DMA-BUFs (false where the machine "
				     "has no backend that shares llmem pages)",
				     FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
	buffer_quark = g_quark_from_static_string("GstLlmemBuffer");
}

static void gst_llmem_allocator_init(GstLlmemAllocator *self)
{
	GstAllocator *allocator = GST_ALLOCATOR(self);

	allocator->mem_map_full = gst_llmem_mem_map_full;
	allocator->mem_unmap_full = gst_llmem_mem_unmap_full;
}

static gboolean ranges_work(uint32_t backend)
{
	return backend == LLMEM_BACKEND_LLMEM_DMABUF || backend == LLMEM_BACKEND_LLMEM_HOST_POINTER;
}

/*
 * The memory for frames of @alloc bytes, @per_page a page where pages can be
 * cut into ranges, one a page where they cannot.  llmem.ko's pages first,
 * where it is loaded: its pages are cut into ranges, so frames share them,
 * and its tracker shows which device holds each frame.
 */
static int frames_memory(GstLlmemAllocator *self, guint64 alloc, guint per_page)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = alloc * per_page,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.name = "gstllmem frames",
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	};
	struct llmem_session *s = gst_llmem_session_get(self->session);
	struct llmem_memory_info mi;
	int ret = llmem_memory_create(s, &mci, &self->memory);

	if (ret == -ENOTSUP) {
		GST_CAT_INFO(gst_llmem_debug, "not llmem.ko's pages: %s", llmem_last_error());
		mci.backend = 0;
		ret = llmem_memory_create(s, &mci, &self->memory);
	}
	if (ret == -ENOTSUP) {
		GST_CAT_INFO(gst_llmem_debug,
			     "no backend shares pages here (%s): frames are "
			     "host-visible memory, not DMA-BUFs",
			     llmem_last_error());
		mci.sharing = LLMEM_SHARING_NONE;
		return llmem_memory_create(s, &mci, &self->memory);
	}
	if (ret)
		return ret;
	self->shared = TRUE;
	llmem_memory_get_info(self->memory, &mi);
	self->ranges = ranges_work(mi.backend);
	if (per_page > 1 && !self->ranges) {
		llmem_memory_destroy(self->memory);
		self->memory = NULL;
		mci.page_size = alloc;
		mci.backend = mi.backend;
		return llmem_memory_create(s, &mci, &self->memory);
	}
	return 0;
}

int gst_llmem_allocator_new(GstLlmemSession *session, gsize frame_size, guint frames_per_page,
			    GstAllocator **out)
{
	GstLlmemAllocator *self = g_object_new(GST_TYPE_LLMEM_ALLOCATOR, NULL);
	guint64 alloc = ((guint64)frame_size + 4095) & ~4095ull;
	int ret;

	gst_object_ref_sink(self);
	self->session = gst_llmem_session_ref(session);
	ret = frames_memory(self, alloc, frames_per_page ? frames_per_page : 1);
	if (ret) {
		gst_object_unref(self);
		return ret;
	}
	/* gst_is_dmabuf_memory() asks the memory type: memories with no fd
	 * must not look like DMA-BUFs to importers. */
	if (!self->shared)
		GST_ALLOCATOR(self)->mem_type = GST_LLMEM_MEMORY_TYPE_UNSHARED;
	GST_CAT_INFO(gst_llmem_debug, "allocator %p: %s, %u frames of %zu bytes a page", self,
		     self->shared ? (self->ranges ? "DMA-BUF ranges" : "a DMA-BUF a page")
				  : "not shared",
		     self->ranges ? frames_per_page : 1, frame_size);
	*out = GST_ALLOCATOR(self);
	return 0;
}

struct llmem_buffer *gst_llmem_memory_get_buffer(GstMemory *mem, GstLlmemSession *session)
{
	if (!mem->allocator || !GST_IS_LLMEM_ALLOCATOR(mem->allocator) ||
	    GST_LLMEM_ALLOCATOR(mem->allocator)->session != session)
		return NULL;
	return root_buffer(mem);
}
