// SPDX-License-Identifier: MIT
/*
 * The frames downstream gets are the frames of the element's own pool
 * (decide_allocation): the GPU writes them, and they are DMA-BUFs where
 * llmem can share pages.  Upstream is offered another llmem pool
 * (propose_allocation), so that a source that writes into downstream's
 * buffers (videotestsrc, v4l2src io-mode=dmabuf-import) writes straight into
 * frames the GPU reads.  Another element's DMA-BUF is imported into llmem
 * and read in place.  A frame from anywhere else is copied into an llmem
 * frame first, and the debug log says so: that is the path to avoid.
 */
#include "transform.h"

#include <llmem/llmem.h>

#include "allocator.h"
#include "format.h"
#include "import.h"
#include "pool.h"

typedef struct {
	gchar *device;
	GstLlmemSession *session;
	GstVideoInfo in_info;
	struct llmem_frame_layout out_layout;
	/* The copy path's frames, in the input's format. */
	GstBufferPool *staging;
	guint64 frames_copied;
	gint64 validation_messages;
} GstLlmemTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstLlmemTransform, gst_llmem_transform, GST_TYPE_BASE_TRANSFORM)

#define PRIV(self) ((GstLlmemTransformPrivate *)gst_llmem_transform_get_instance_private(self))

enum {
	PROP_0,
	PROP_DEVICE,
	PROP_FRAMES_COPIED,
	PROP_VALIDATION_MESSAGES
};

static gboolean gst_llmem_transform_start(GstBaseTransform *trans)
{
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(trans));
	int ret;

	GST_OBJECT_LOCK(trans);
	ret = gst_llmem_session_new(priv->device, &priv->session);
	GST_OBJECT_UNLOCK(trans);
	if (ret) {
		GST_ELEMENT_ERROR(trans, LIBRARY, INIT, ("Cannot open the Vulkan device."),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	return TRUE;
}

static void clear_staging(GstLlmemTransformPrivate *priv)
{
	if (!priv->staging)
		return;
	gst_buffer_pool_set_active(priv->staging, FALSE);
	gst_clear_object(&priv->staging);
}

static gboolean gst_llmem_transform_stop(GstBaseTransform *trans)
{
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(trans));

	clear_staging(priv);
	GST_OBJECT_LOCK(trans);
	priv->validation_messages =
		llmem_session_validation_messages(gst_llmem_session_get(priv->session));
	GST_OBJECT_UNLOCK(trans);
	gst_llmem_session_unref(priv->session);
	priv->session = NULL;
	return TRUE;
}

/* A configured llmem pool for @caps, or NULL with the reason logged. */
static GstBufferPool *make_pool(GstLlmemTransform *self, GstCaps *caps, guint min, guint *size)
{
	GstBufferPool *pool = gst_llmem_buffer_pool_new(PRIV(self)->session);
	GstStructure *config = gst_buffer_pool_get_config(pool);
	struct llmem_frame_layout layout;

	gst_buffer_pool_config_set_params(config, caps, 0, min, 0);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		GST_WARNING_OBJECT(self, "no llmem pool for %" GST_PTR_FORMAT, caps);
		gst_object_unref(pool);
		return NULL;
	}
	gst_llmem_buffer_pool_get_layout(GST_LLMEM_BUFFER_POOL(pool), &layout);
	*size = (guint)layout.size;
	return pool;
}

static gboolean fits_template(GstPad *pad, GstCaps *caps)
{
	GstCaps *template = gst_pad_get_pad_template_caps(pad);
	gboolean fits = gst_caps_can_intersect(caps, template);

	gst_caps_unref(template);
	return fits;
}

static gboolean gst_llmem_transform_set_caps(GstBaseTransform *trans, GstCaps *incaps,
					     GstCaps *outcaps)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct llmem_frame_layout in_layout, out_layout;
	GstVideoInfo in, out;
	guint size;

	/* Fixed caps of the templates' kind always parse; transform_caps keeps
	 * the size. */
	if (!gst_video_info_from_caps(&in, incaps) || !gst_video_info_from_caps(&out, outcaps))
		return FALSE;
	/* Without a peer on the source pad GstBaseTransform passes the input
	 * caps through as output caps, whatever the source pad takes. */
	if (!fits_template(trans->sinkpad, incaps) || !fits_template(trans->srcpad, outcaps)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("%s cannot give these caps.", GST_ELEMENT_NAME(self)),
				  ("%" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, incaps, outcaps));
		return FALSE;
	}
	if (gst_llmem_format_layout(&in, &in_layout) ||
	    gst_llmem_format_layout(&out, &out_layout)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("llmem cannot lay out these frames."),
				  ("%" GST_PTR_FORMAT ": %s", incaps, llmem_last_error()));
		return FALSE;
	}
	priv->in_info = in;
	clear_staging(priv);
	priv->staging = make_pool(self, incaps, 1, &size);
	if (!priv->staging) {
		GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("No llmem frames for the input."),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_llmem_transform_propose_allocation(GstBaseTransform *trans,
						       GstQuery *decide_query, GstQuery *query)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstBufferPool *pool;
	gboolean need_pool;
	GstCaps *caps;
	guint size;

	(void)decide_query;
	gst_query_parse_allocation(query, &caps, &need_pool);
	if (!caps)
		return FALSE;
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	if (!need_pool)
		return TRUE;
	pool = make_pool(self, caps, GST_LLMEM_POOL_MIN_BUFFERS, &size);
	if (!pool)
		return TRUE;
	gst_query_add_allocation_pool(query, pool, size, GST_LLMEM_POOL_MIN_BUFFERS, 0);
	gst_object_unref(pool);
	return TRUE;
}

static gboolean gst_llmem_transform_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	guint min = GST_LLMEM_POOL_MIN_BUFFERS, size;
	GstBufferPool *pool;
	GstCaps *caps;

	gst_query_parse_allocation(query, &caps, NULL);
	/* Downstream's pool is no use: the GPU writes llmem frames. */
	if (gst_query_get_n_allocation_pools(query) > 0)
		gst_query_parse_nth_allocation_pool(query, 0, NULL, NULL, &min, NULL);
	min = MAX(min, GST_LLMEM_POOL_MIN_BUFFERS);
	pool = make_pool(self, caps, min, &size);
	if (!pool) {
		GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
				  ("No llmem frames for the output."), ("%s", llmem_last_error()));
		return FALSE;
	}
	gst_llmem_buffer_pool_get_layout(GST_LLMEM_BUFFER_POOL(pool), &PRIV(self)->out_layout);
	if (gst_query_get_n_allocation_pools(query) > 0)
		gst_query_set_nth_allocation_pool(query, 0, pool, size, min, 0);
	else
		gst_query_add_allocation_pool(query, pool, size, min, 0);
	gst_object_unref(pool);
	return TRUE;
}

/*
 * Where each plane of @inbuf's frame, laid out as its GstVideoMeta says (or
 * as the caps say without one), lies: in which of its memories (@mem_of)
 * and where in that memory's llmem buffer, which starts at the DMA-BUF's
 * first byte.  GstVideoMeta's offsets count across the buffer's memories
 * (a V4L2 multi-planar format comes as a memory per plane).
 */
static gboolean input_layout(GstLlmemTransformPrivate *priv, GstBuffer *inbuf,
			     struct llmem_frame_layout *layout, guint mem_of[GST_VIDEO_MAX_PLANES])
{
	const GstVideoInfo *info = &priv->in_info;
	GstVideoMeta *meta = gst_buffer_get_video_meta(inbuf);
	GstMemory *first = gst_buffer_peek_memory(inbuf, 0);

	*layout = (struct llmem_frame_layout){
		.fourcc = gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(info)),
		.width = GST_VIDEO_INFO_WIDTH(info),
		.height = GST_VIDEO_INFO_HEIGHT(info),
		.num_planes = GST_VIDEO_INFO_N_PLANES(info),
		.size = first->offset + first->size,
	};
	for (guint i = 0; i < layout->num_planes; i++) {
		gsize offset = meta ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(info, i);
		gsize skip;
		guint length;

		if (!gst_buffer_find_memory(inbuf, offset, 1, &mem_of[i], &length, &skip))
			return FALSE;
		layout->offset[i] = gst_buffer_peek_memory(inbuf, mem_of[i])->offset + skip;
		layout->pitch[i] = meta ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(info, i);
	}
	return TRUE;
}

/* @mem as an llmem buffer of the element's session: its own frame, or an
 * import of another element's DMA-BUF; NULL for anything else. */
static struct llmem_buffer *llmem_view(GstLlmemTransform *self, GstMemory *mem)
{
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct llmem_buffer *buffer = gst_llmem_memory_get_buffer(mem, priv->session);

	if (!buffer && gst_is_dmabuf_memory(mem)) {
		buffer = gst_llmem_import_dmabuf(priv->session, mem);
		if (!buffer)
			GST_DEBUG_OBJECT(self, "cannot import upstream's DMA-BUF: %s",
					 llmem_last_error());
	}
	return buffer;
}

/* The frame of @inbuf in place: one memory, or with @chroma NV12 whose
 * planes come in a memory each; FALSE when it must be copied. */
static gboolean input_in_place(GstLlmemTransform *self, GstBuffer *inbuf,
			       struct llmem_buffer **buffer, struct llmem_buffer **chroma,
			       struct llmem_frame_layout *layout)
{
	guint mem_of[GST_VIDEO_MAX_PLANES] = { 0 };
	guint n = gst_buffer_n_memory(inbuf);

	if (!input_layout(PRIV(self), inbuf, layout, mem_of))
		return FALSE;
	if (n == 1) {
		*buffer = llmem_view(self, gst_buffer_peek_memory(inbuf, 0));
		return *buffer != NULL;
	}
	if (!chroma || n != 2 || layout->num_planes != 2 || mem_of[0] != 0 || mem_of[1] != 1)
		return FALSE;
	*buffer = llmem_view(self, gst_buffer_peek_memory(inbuf, 0));
	*chroma = llmem_view(self, gst_buffer_peek_memory(inbuf, 1));
	return *buffer && *chroma;
}

/* The copy path: @inbuf's frame in a staging llmem frame. */
static gboolean stage(GstLlmemTransform *self, GstBuffer *inbuf, GstBuffer **staged)
{
	GstLlmemTransformPrivate *priv = PRIV(self);
	GstAllocator *from = gst_buffer_peek_memory(inbuf, 0)->allocator;
	GstVideoFrame in, out;
	gboolean copied;

	GST_DEBUG_OBJECT(self,
			 "copying the frame into an llmem frame: upstream's memory (%s) is not "
			 "an llmem frame of this element's device",
			 from ? from->mem_type : "unknown");
	if (!gst_buffer_pool_is_active(priv->staging) &&
	    !gst_buffer_pool_set_active(priv->staging, TRUE))
		return FALSE;
	if (gst_buffer_pool_acquire_buffer(priv->staging, staged, NULL) != GST_FLOW_OK)
		return FALSE;
	if (!gst_video_frame_map(&in, &priv->in_info, inbuf, GST_MAP_READ))
		return FALSE;
	if (!gst_video_frame_map(&out, &priv->in_info, *staged, GST_MAP_WRITE)) {
		gst_video_frame_unmap(&in);
		return FALSE;
	}
	copied = gst_video_frame_copy(&out, &in);
	gst_video_frame_unmap(&out);
	gst_video_frame_unmap(&in);
	if (!copied)
		return FALSE;
	GST_OBJECT_LOCK(self);
	priv->frames_copied++;
	GST_OBJECT_UNLOCK(self);
	return TRUE;
}

GstFlowReturn gst_llmem_transform_input(GstLlmemTransform *self, GstBuffer *inbuf,
					struct gst_llmem_frame *frame, GstBuffer **staged)
{
	GstLlmemTransformPrivate *priv = PRIV(self);
	gboolean takes_chroma = GST_LLMEM_TRANSFORM_GET_CLASS(self)->takes_chroma;

	*staged = NULL;
	*frame = (struct gst_llmem_frame){ 0 };
	if (input_in_place(self, inbuf, &frame->buffer, takes_chroma ? &frame->chroma : NULL,
			   &frame->layout))
		return GST_FLOW_OK;
	frame->chroma = NULL;
	if (!stage(self, inbuf, staged)) {
		gst_clear_buffer(staged);
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
				  ("Cannot copy the frame into an llmem frame."),
				  ("GST_DEBUG=llmem:2 shows why"));
		return GST_FLOW_ERROR;
	}
	gst_llmem_buffer_pool_get_layout(GST_LLMEM_BUFFER_POOL(priv->staging), &frame->layout);
	frame->buffer =
		gst_llmem_memory_get_buffer(gst_buffer_peek_memory(*staged, 0), priv->session);
	return GST_FLOW_OK;
}

static GstFlowReturn gst_llmem_transform_transform(GstBaseTransform *trans, GstBuffer *inbuf,
						   GstBuffer *outbuf)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct gst_llmem_frame src, dst = { .layout = priv->out_layout };
	GstBuffer *staged;
	GstFlowReturn flow;

	if (gst_buffer_n_memory(outbuf) == 1)
		dst.buffer = gst_llmem_memory_get_buffer(gst_buffer_peek_memory(outbuf, 0),
							 priv->session);
	if (!dst.buffer) {
		GST_ELEMENT_ERROR(self, CORE, FAILED, ("The output buffer is not an llmem frame."),
				  (NULL));
		return GST_FLOW_ERROR;
	}
	flow = gst_llmem_transform_input(self, inbuf, &src, &staged);
	if (flow == GST_FLOW_OK)
		flow = GST_LLMEM_TRANSFORM_GET_CLASS(self)->process(self, &src, &dst);
	gst_clear_buffer(&staged);
	return flow;
}

GstLlmemSession *gst_llmem_transform_session(GstLlmemTransform *self)
{
	return PRIV(self)->session;
}

const GstVideoInfo *gst_llmem_transform_in_info(GstLlmemTransform *self)
{
	return &PRIV(self)->in_info;
}

static void gst_llmem_transform_set_property(GObject *object, guint id, const GValue *value,
					     GParamSpec *pspec)
{
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(object));

	switch (id) {
	case PROP_DEVICE:
		GST_OBJECT_LOCK(object);
		g_free(priv->device);
		priv->device = g_value_dup_string(value);
		GST_OBJECT_UNLOCK(object);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void gst_llmem_transform_get_property(GObject *object, guint id, GValue *value,
					     GParamSpec *pspec)
{
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(object));

	GST_OBJECT_LOCK(object);
	switch (id) {
	case PROP_DEVICE:
		g_value_set_string(value, priv->device);
		break;
	case PROP_FRAMES_COPIED:
		g_value_set_uint64(value, priv->frames_copied);
		break;
	case PROP_VALIDATION_MESSAGES:
		g_value_set_int64(value, priv->session
						 ? llmem_session_validation_messages(
							   gst_llmem_session_get(priv->session))
						 : priv->validation_messages);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
	GST_OBJECT_UNLOCK(object);
}

static void gst_llmem_transform_finalize(GObject *object)
{
	g_free(PRIV(GST_LLMEM_TRANSFORM(object))->device);
	G_OBJECT_CLASS(gst_llmem_transform_parent_class)->finalize(object);
}

static void gst_llmem_transform_class_init(GstLlmemTransformClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

	object_class->set_property = gst_llmem_transform_set_property;
	object_class->get_property = gst_llmem_transform_get_property;
	object_class->finalize = gst_llmem_transform_finalize;
	g_object_class_install_property(
		object_class, PROP_DEVICE,
		g_param_spec_string("device", "Device",
				    "The Vulkan device: a case-insensitive substring of its name "
				    "(NULL: the LLMEM_DEVICE environment variable, else the first)",
				    NULL,
				    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
					    GST_PARAM_MUTABLE_READY));
	g_object_class_install_property(
		object_class, PROP_FRAMES_COPIED,
		g_param_spec_uint64("frames-copied", "Frames copied",
				    "Input frames the CPU copied into llmem frames because they "
				    "were not llmem frames of this element's device (0 on the "
				    "zero-copy path)",
				    0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
	g_object_class_install_property(
		object_class, PROP_VALIDATION_MESSAGES,
		g_param_spec_int64("validation-messages", "Validation messages",
				   "Messages of the Vulkan validation layer so far "
				   "(LLMEM_VALIDATION=1 turns it on)",
				   0, G_MAXINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

	trans_class->start = gst_llmem_transform_start;
	trans_class->stop = gst_llmem_transform_stop;
	trans_class->set_caps = gst_llmem_transform_set_caps;
	trans_class->propose_allocation = gst_llmem_transform_propose_allocation;
	trans_class->decide_allocation = gst_llmem_transform_decide_allocation;
	trans_class->transform = gst_llmem_transform_transform;
	trans_class->passthrough_on_same_caps = FALSE;
}

static void gst_llmem_transform_init(GstLlmemTransform *self)
{
	(void)self;
}
