// SPDX-License-Identifier: MIT
/*
 * The pool makes its allocator when it is configured: the frame's size and
 * the number of frames fix the page size, so that the pool's frames share
 * pages where the backend lets them.  An allocator in the configuration is
 * replaced by the pool's own: frames must be llmem's to be converted in
 * place.
 */
#include "pool.h"

#include <llmem/llmem.h>

#include "allocator.h"
#include "format.h"

struct _GstLlmemBufferPool {
	GstBufferPool parent;
	GstLlmemSession *session;
	GstAllocator *allocator;
	GstVideoInfo info;
	struct llmem_frame_layout layout;
	gboolean configured;
};

G_DEFINE_TYPE(GstLlmemBufferPool, gst_llmem_buffer_pool, GST_TYPE_BUFFER_POOL)

static const gchar **gst_llmem_buffer_pool_get_options(GstBufferPool *pool)
{
	static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };

	(void)pool;
	return options;
}

static gboolean gst_llmem_buffer_pool_set_config(GstBufferPool *pool, GstStructure *config)
{
	GstLlmemBufferPool *self = GST_LLMEM_BUFFER_POOL(pool);
	guint size, min, max;
	GstCaps *caps;
	GstVideoInfo info;
	struct llmem_frame_layout layout;
	GstAllocator *allocator;
	int ret;

	if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
	    !gst_video_info_from_caps(&info, caps)) {
		GST_CAT_ERROR(gst_llmem_debug, "pool %p: configuration without video caps", pool);
		return FALSE;
	}
	if (!gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(&info))) {
		GST_CAT_ERROR(gst_llmem_debug, "pool %p: llmem has no layout for %s", pool,
			      gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
		return FALSE;
	}
	if (gst_llmem_format_layout(&info, &layout)) {
		GST_CAT_ERROR(gst_llmem_debug, "pool %p: %" GST_PTR_FORMAT ": %s", pool, caps,
			      llmem_last_error());
		return FALSE;
	}
	/* As many frames a page as the pool may hold, or a few where it has
	 * no bound. */
	ret = gst_llmem_allocator_new(self->session, layout.size,
				      max ? max : MAX(min, GST_LLMEM_POOL_MIN_BUFFERS), &allocator);
	if (ret) {
		GST_CAT_ERROR(gst_llmem_debug, "pool %p: allocator: %s", pool, llmem_last_error());
		return FALSE;
	}
	gst_clear_object(&self->allocator);
	self->allocator = allocator;
	self->info = info;
	self->layout = layout;
	self->configured = TRUE;
	gst_buffer_pool_config_set_params(config, caps, layout.size, min, max);
	gst_buffer_pool_config_set_allocator(config, allocator, NULL);
	return GST_BUFFER_POOL_CLASS(gst_llmem_buffer_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn gst_llmem_buffer_pool_alloc_buffer(GstBufferPool *pool, GstBuffer **out,
							GstBufferPoolAcquireParams *params)
{
	GstLlmemBufferPool *self = GST_LLMEM_BUFFER_POOL(pool);
	GstMemory *mem = gst_allocator_alloc(self->allocator, self->layout.size, NULL);
	GstBuffer *buffer;

	(void)params;
	if (!mem)
		return GST_FLOW_ERROR;
	buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, mem);
	gst_llmem_format_add_meta(buffer, GST_VIDEO_INFO_FORMAT(&self->info), &self->layout);
	*out = buffer;
	return GST_FLOW_OK;
}

static void gst_llmem_buffer_pool_finalize(GObject *object)
{
	GstLlmemBufferPool *self = GST_LLMEM_BUFFER_POOL(object);

	gst_clear_object(&self->allocator);
	gst_llmem_session_unref(self->session);
	G_OBJECT_CLASS(gst_llmem_buffer_pool_parent_class)->finalize(object);
}

static void gst_llmem_buffer_pool_class_init(GstLlmemBufferPoolClass *klass)
{
	GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = gst_llmem_buffer_pool_finalize;
	pool_class->get_options = gst_llmem_buffer_pool_get_options;
	pool_class->set_config = gst_llmem_buffer_pool_set_config;
	pool_class->alloc_buffer = gst_llmem_buffer_pool_alloc_buffer;
}

static void gst_llmem_buffer_pool_init(GstLlmemBufferPool *self)
{
	(void)self;
}

GstBufferPool *gst_llmem_buffer_pool_new(GstLlmemSession *session)
{
	GstLlmemBufferPool *self = g_object_new(GST_TYPE_LLMEM_BUFFER_POOL, NULL);

	gst_object_ref_sink(self);
	self->session = gst_llmem_session_ref(session);
	return GST_BUFFER_POOL(self);
}

gboolean gst_llmem_buffer_pool_get_layout(GstLlmemBufferPool *pool,
					  struct llmem_frame_layout *layout)
{
	if (!pool->configured)
		return FALSE;
	*layout = pool->layout;
	return TRUE;
}
