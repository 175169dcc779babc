// SPDX-License-Identifier: MIT
/*
 * The pool makes its allocator when it is configured: the frame's size and
 * the number of frames fix the page size, so that the pool's frames share
 * pages where the backend lets them.  An allocator in the configuration is
 * replaced by the pool's own: frames must be llmem's to be converted in
 * place.  A GstVideoAlignment in the configuration pads the frames: the
 * picture at the top left of a larger coded frame (frame.h), as an encoder
 * downstream codes it, and each buffer's GstVideoMeta says so.
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
	GstVideoAlignment align;
	gboolean configured;
};

G_DEFINE_TYPE(GstLlmemBufferPool, gst_llmem_buffer_pool, GST_TYPE_BUFFER_POOL)

static const gchar **gst_llmem_buffer_pool_get_options(GstBufferPool *pool)
{
	static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META,
					  GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT, NULL };

	(void)pool;
	return options;
}

/*
 * The frames' layout for the caps, padded as the configuration's
 * GstVideoAlignment asks: its right and bottom padding make the coded
 * frame, its stride masks a pitch alignment.  llmem lays pictures out at
 * the top left of their frame, so padding above or left of it is refused.
 * The padding kept (the format's pairs of pixels may add a column) is
 * written back to the configuration.
 */
static gboolean padded_layout(GstLlmemBufferPool *self, GstStructure *config,
			      const GstVideoInfo *info, struct llmem_frame_layout *layout)
{
	struct llmem_frame_constraints c = { 0 };
	guint width = GST_VIDEO_INFO_WIDTH(info), height = GST_VIDEO_INFO_HEIGHT(info);
	GstVideoAlignment *a = &self->align;

	gst_video_alignment_reset(a);
	if (!gst_buffer_pool_config_has_option(config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT))
		return !gst_llmem_format_layout(info, layout);
	gst_buffer_pool_config_get_video_alignment(config, a);
	if (a->padding_top || a->padding_left) {
		GST_CAT_ERROR(gst_llmem_debug,
			      "pool %p: padding above (%u) or left (%u) of the picture: llmem lays "
			      "pictures out at the top left",
			      self, a->padding_top, a->padding_left);
		return FALSE;
	}
	for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(info); p++)
		c.pitch_alignment = MAX(c.pitch_alignment, a->stride_align[p] + 1);
	c.coded_width = width + a->padding_right;
	c.coded_height = height + a->padding_bottom;
	if (llmem_frame_layout_init(gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(info)), width,
				    height, &c, layout)) {
		GST_CAT_ERROR(gst_llmem_debug, "pool %p: padding %u right, %u below: %s", self,
			      a->padding_right, a->padding_bottom, llmem_last_error());
		return FALSE;
	}
	gst_buffer_pool_config_set_video_alignment(config, a);
	return TRUE;
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
	if (!padded_layout(self, config, &info, &layout)) {
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
	GstVideoMeta *meta;
	GstBuffer *buffer;

	(void)params;
	if (!mem)
		return GST_FLOW_ERROR;
	buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, mem);
	meta = gst_llmem_format_add_meta(buffer, GST_VIDEO_INFO_FORMAT(&self->info), &self->layout);
	gst_video_meta_set_alignment(meta, self->align);
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
