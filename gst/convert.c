// SPDX-License-Identifier: MIT
/*
 * llmemconvert.  The frames downstream gets are the frames of the element's
 * own pool (decide_allocation): the GPU writes them, and they are DMA-BUFs
 * where llmem can share pages.  Upstream is offered another llmem pool
 * (propose_allocation), so that a source that writes into downstream's
 * buffers (videotestsrc, v4l2src io-mode=dmabuf-import) writes straight into
 * frames the GPU reads.  A frame from anywhere else is copied into an llmem
 * frame first, and the debug log says so: that is the path to avoid.
 */
#include "convert.h"

#include <llmem/llmem.h>

#include "allocator.h"
#include "format.h"
#include "pool.h"
#include "session.h"

struct _GstLlmemConvert {
	GstBaseTransform parent;
	gchar *device;
	GstLlmemSession *session;
	GstVideoInfo in_info;
	GstVideoInfo out_info;
	struct llmem_frame_layout out_layout;
	uint32_t encoding;
	uint32_t range;
	/* The copy path's frames, in the input's format. */
	GstBufferPool *staging;
	guint64 frames_copied;
	gint64 validation_messages;
};

G_DEFINE_TYPE(GstLlmemConvert, gst_llmem_convert, GST_TYPE_BASE_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(llmemconvert, "llmemconvert", GST_RANK_NONE, GST_TYPE_LLMEM_CONVERT)

enum {
	PROP_0,
	PROP_DEVICE,
	PROP_FRAMES_COPIED,
	PROP_VALIDATION_MESSAGES
};

static GstStaticPadTemplate sink_template =
	GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_LLMEM_YUV_FORMATS)));

static GstStaticPadTemplate src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_LLMEM_RGB_FORMATS)));

static gboolean gst_llmem_convert_start(GstBaseTransform *trans)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
	int ret;

	GST_OBJECT_LOCK(self);
	ret = gst_llmem_session_new(self->device, &self->session);
	GST_OBJECT_UNLOCK(self);
	if (ret) {
		GST_ELEMENT_ERROR(self, LIBRARY, INIT, ("Cannot open the Vulkan device."),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	return TRUE;
}

static void clear_staging(GstLlmemConvert *self)
{
	if (!self->staging)
		return;
	gst_buffer_pool_set_active(self->staging, FALSE);
	gst_clear_object(&self->staging);
}

static gboolean gst_llmem_convert_stop(GstBaseTransform *trans)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);

	clear_staging(self);
	GST_OBJECT_LOCK(self);
	self->validation_messages =
		llmem_session_validation_messages(gst_llmem_session_get(self->session));
	GST_OBJECT_UNLOCK(self);
	gst_llmem_session_unref(self->session);
	self->session = NULL;
	return TRUE;
}

/* The "format" field of @template's caps: the formats of the other side. */
static const GValue *template_formats(GstStaticPadTemplate *template)
{
	GstCaps *caps = gst_static_pad_template_get_caps(template);
	const GValue *formats = gst_structure_get_value(gst_caps_get_structure(caps, 0), "format");

	/* Static caps live as long as the template: the value stays valid. */
	gst_caps_unref(caps);
	return formats;
}

static GstCaps *gst_llmem_convert_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
						 GstCaps *caps, GstCaps *filter)
{
	const GValue *formats =
		template_formats(direction == GST_PAD_SINK ? &src_template : &sink_template);
	GstCaps *out = gst_caps_new_empty();

	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		GstStructure *s = gst_structure_copy(gst_caps_get_structure(caps, i));

		/* Size and rate stay; the format and what only YUV has change. */
		gst_structure_set_value(s, "format", formats);
		gst_structure_remove_fields(s, "colorimetry", "chroma-site", NULL);
		out = gst_caps_merge_structure_full(
			out, s, gst_caps_features_copy(gst_caps_get_features(caps, i)));
	}
	if (filter) {
		GstCaps *both = gst_caps_intersect_full(filter, out, GST_CAPS_INTERSECT_FIRST);

		gst_caps_unref(out);
		out = both;
	}
	GST_DEBUG_OBJECT(trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, out);
	return out;
}

static GstCaps *gst_llmem_convert_fixate_caps(GstBaseTransform *trans, GstPadDirection direction,
					      GstCaps *caps, GstCaps *othercaps)
{
	GstStructure *in = gst_caps_get_structure(caps, 0);
	GstStructure *out;
	gint width, height, num, den;

	(void)trans;
	(void)direction;
	othercaps = gst_caps_truncate(othercaps);
	othercaps = gst_caps_make_writable(othercaps);
	out = gst_caps_get_structure(othercaps, 0);
	/* The converters keep the size: the nearest to the other side's. */
	if (gst_structure_get_int(in, "width", &width))
		gst_structure_fixate_field_nearest_int(out, "width", width);
	if (gst_structure_get_int(in, "height", &height))
		gst_structure_fixate_field_nearest_int(out, "height", height);
	if (gst_structure_get_fraction(in, "framerate", &num, &den))
		gst_structure_fixate_field_nearest_fraction(out, "framerate", num, den);
	return gst_caps_fixate(othercaps);
}

/* A configured llmem pool for @caps, or NULL with the reason logged. */
static GstBufferPool *make_pool(GstLlmemConvert *self, GstCaps *caps, guint min, guint *size)
{
	GstBufferPool *pool = gst_llmem_buffer_pool_new(self->session);
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

static gboolean gst_llmem_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps,
					   GstCaps *outcaps)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
	struct llmem_frame_layout in_layout, out_layout;
	GstVideoInfo in, out;
	guint size;

	/* Fixed caps of the templates' kind always parse; transform_caps keeps
	 * the size. */
	if (!gst_video_info_from_caps(&in, incaps) || !gst_video_info_from_caps(&out, outcaps))
		return FALSE;
	/* Without a peer on the source pad GstBaseTransform passes the input
	 * caps through as output caps: the converters cannot keep YUV. */
	if (!fits_template(trans->sinkpad, incaps) || !fits_template(trans->srcpad, outcaps)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("llmemconvert converts " GST_LLMEM_YUV_FORMATS
				   " to " GST_LLMEM_RGB_FORMATS " only."),
				  ("%" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, incaps, outcaps));
		return FALSE;
	}
	if (gst_llmem_format_layout(&in, &in_layout) ||
	    gst_llmem_format_layout(&out, &out_layout)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("llmem cannot lay out these frames."),
				  ("%" GST_PTR_FORMAT ": %s", incaps, llmem_last_error()));
		return FALSE;
	}
	self->in_info = in;
	self->out_info = out;
	self->encoding = in.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709 ? LLMEM_YCBCR_BT709
									       : LLMEM_YCBCR_BT601;
	self->range = in.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255
			      ? LLMEM_YCBCR_FULL_RANGE
			      : LLMEM_YCBCR_LIMITED_RANGE;
	if (in.colorimetry.matrix != GST_VIDEO_COLOR_MATRIX_BT709 &&
	    in.colorimetry.matrix != GST_VIDEO_COLOR_MATRIX_BT601)
		GST_INFO_OBJECT(self, "matrix %d of the input is converted as BT.601",
				in.colorimetry.matrix);
	clear_staging(self);
	self->staging = make_pool(self, incaps, 1, &size);
	if (!self->staging) {
		GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("No llmem frames for the input."),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_llmem_convert_propose_allocation(GstBaseTransform *trans,
						     GstQuery *decide_query, GstQuery *query)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
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

static gboolean gst_llmem_convert_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
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
	gst_llmem_buffer_pool_get_layout(GST_LLMEM_BUFFER_POOL(pool), &self->out_layout);
	if (gst_query_get_n_allocation_pools(query) > 0)
		gst_query_set_nth_allocation_pool(query, 0, pool, size, min, 0);
	else
		gst_query_add_allocation_pool(query, pool, size, min, 0);
	gst_object_unref(pool);
	return TRUE;
}

/* Where the frame of @mem, laid out as @inbuf's GstVideoMeta says (or as
 * the caps say without one), lies in its llmem buffer. */
static void input_layout(GstLlmemConvert *self, GstBuffer *inbuf, GstMemory *mem,
			 struct llmem_frame_layout *layout)
{
	const GstVideoInfo *info = &self->in_info;
	GstVideoMeta *meta = gst_buffer_get_video_meta(inbuf);

	*layout = (struct llmem_frame_layout){
		.fourcc = gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(info)),
		.width = GST_VIDEO_INFO_WIDTH(info),
		.height = GST_VIDEO_INFO_HEIGHT(info),
		.num_planes = GST_VIDEO_INFO_N_PLANES(info),
		.size = mem->offset + mem->size,
	};
	for (guint i = 0; i < layout->num_planes; i++) {
		layout->offset[i] = mem->offset +
				    (meta ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(info, i));
		layout->pitch[i] = meta ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(info, i);
	}
}

/* The copy path: @inbuf's frame in a staging llmem frame. */
static GstFlowReturn stage(GstLlmemConvert *self, GstBuffer *inbuf, GstBuffer **staged)
{
	GstVideoFrame in, out;
	gboolean copied;

	GST_DEBUG_OBJECT(self,
			 "copying the frame into an llmem frame: upstream's memory (%s) "
			 "is not an llmem frame of this element's device",
			 gst_buffer_peek_memory(inbuf, 0)->allocator
				 ? gst_buffer_peek_memory(inbuf, 0)->allocator->mem_type
				 : "unknown");
	if (!gst_buffer_pool_is_active(self->staging) &&
	    !gst_buffer_pool_set_active(self->staging, TRUE))
		return GST_FLOW_ERROR;
	if (gst_buffer_pool_acquire_buffer(self->staging, staged, NULL) != GST_FLOW_OK)
		return GST_FLOW_ERROR;
	if (!gst_video_frame_map(&in, &self->in_info, inbuf, GST_MAP_READ))
		return GST_FLOW_ERROR;
	if (!gst_video_frame_map(&out, &self->in_info, *staged, GST_MAP_WRITE)) {
		gst_video_frame_unmap(&in);
		return GST_FLOW_ERROR;
	}
	copied = gst_video_frame_copy(&out, &in);
	gst_video_frame_unmap(&out);
	gst_video_frame_unmap(&in);
	if (!copied)
		return GST_FLOW_ERROR;
	GST_OBJECT_LOCK(self);
	self->frames_copied++;
	GST_OBJECT_UNLOCK(self);
	return GST_FLOW_OK;
}

static GstFlowReturn gst_llmem_convert_transform(GstBaseTransform *trans, GstBuffer *inbuf,
						 GstBuffer *outbuf)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
	GstMemory *in_mem =
		gst_buffer_n_memory(inbuf) == 1 ? gst_buffer_peek_memory(inbuf, 0) : NULL;
	struct llmem_buffer *src =
		in_mem ? gst_llmem_memory_get_buffer(in_mem, self->session) : NULL;
	struct llmem_buffer *dst =
		gst_llmem_memory_get_buffer(gst_buffer_peek_memory(outbuf, 0), self->session);
	struct llmem_frame_layout src_layout;
	GstBuffer *staged = NULL;
	int ret;

	if (!dst) {
		GST_ELEMENT_ERROR(self, CORE, FAILED, ("The output buffer is not an llmem frame."),
				  (NULL));
		return GST_FLOW_ERROR;
	}
	if (src) {
		input_layout(self, inbuf, in_mem, &src_layout);
	} else {
		if (stage(self, inbuf, &staged) != GST_FLOW_OK) {
			gst_clear_buffer(&staged);
			GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
					  ("Cannot copy the frame into an llmem frame."),
					  ("GST_DEBUG=llmem:2 shows why"));
			return GST_FLOW_ERROR;
		}
		gst_llmem_buffer_pool_get_layout(GST_LLMEM_BUFFER_POOL(self->staging), &src_layout);
		src = gst_llmem_memory_get_buffer(gst_buffer_peek_memory(staged, 0), self->session);
	}
	ret = llmem_convert_to_rgba(&(struct llmem_convert_info){
		.src = src,
		.src_layout = &src_layout,
		.dst = dst,
		.dst_layout = &self->out_layout,
		.encoding = self->encoding,
		.range = self->range,
	});
	gst_clear_buffer(&staged);
	if (ret) {
		GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("The GPU conversion failed."),
				  ("%s", llmem_last_error()));
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

static void gst_llmem_convert_set_property(GObject *object, guint id, const GValue *value,
					   GParamSpec *pspec)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(object);

	switch (id) {
	case PROP_DEVICE:
		GST_OBJECT_LOCK(self);
		g_free(self->device);
		self->device = g_value_dup_string(value);
		GST_OBJECT_UNLOCK(self);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void gst_llmem_convert_get_property(GObject *object, guint id, GValue *value,
					   GParamSpec *pspec)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(object);

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_DEVICE:
		g_value_set_string(value, self->device);
		break;
	case PROP_FRAMES_COPIED:
		g_value_set_uint64(value, self->frames_copied);
		break;
	case PROP_VALIDATION_MESSAGES:
		g_value_set_int64(value, self->session
						 ? llmem_session_validation_messages(
							   gst_llmem_session_get(self->session))
						 : self->validation_messages);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_llmem_convert_finalize(GObject *object)
{
	g_free(GST_LLMEM_CONVERT(object)->device);
	G_OBJECT_CLASS(gst_llmem_convert_parent_class)->finalize(object);
}

static void gst_llmem_convert_class_init(GstLlmemConvertClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

	object_class->set_property = gst_llmem_convert_set_property;
	object_class->get_property = gst_llmem_convert_get_property;
	object_class->finalize = gst_llmem_convert_finalize;
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

	gst_element_class_set_static_metadata(
		element_class, "llmem video converter", "Filter/Converter/Video",
		"Converts YUY2 and NV12 to RGB on the GPU with llmem, in llmem's shared frames",
		"llmem");
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);

	trans_class->start = gst_llmem_convert_start;
	trans_class->stop = gst_llmem_convert_stop;
	trans_class->transform_caps = gst_llmem_convert_transform_caps;
	trans_class->fixate_caps = gst_llmem_convert_fixate_caps;
	trans_class->set_caps = gst_llmem_convert_set_caps;
	trans_class->propose_allocation = gst_llmem_convert_propose_allocation;
	trans_class->decide_allocation = gst_llmem_convert_decide_allocation;
	trans_class->transform = gst_llmem_convert_transform;
	trans_class->passthrough_on_same_caps = FALSE;
}

static void gst_llmem_convert_init(GstLlmemConvert *self)
{
	(void)self;
}
