// SPDX-License-Identifier: MIT
/*
 * llmemconvert: YUY2 and NV12 to RGB, or RGB to YUY2 and NV12, with an
 * llmem_converter made for the caps' frames when they are set: from the
 * input frame (GstLlmemTransform finds it) into a frame of the element's
 * pool, a submission a frame.  The caps keep size and rate; the format
 * changes kind, YUV to RGB or RGB to YUV.
 *
 * Colour: to RGB, the matrix and range the input caps say; to YUV, those of
 * the output caps, which fixation sets where downstream leaves them open:
 * GStreamer's own default for YUV caps of that height (BT.601 up to 576
 * lines, BT.709 above; BT.709 for UHD too, where GStreamer says BT.2020,
 * which llmem has not), limited range.  YUV output says chroma-site "jpeg":
 * each chroma sample is the mean of the pixels it covers (convert.h).
 */
#include "convert.h"

#include <errno.h>

#include <llmem/llmem.h>

#include "format.h"
#include "transform.h"

struct _GstLlmemConvert {
	GstLlmemTransform parent;
	uint32_t encoding;
	uint32_t range;
	/* Made for frames laid out as these; frames laid out otherwise
	 * (another element's DMA-BUFs) get a converter of their own. */
	struct llmem_converter *converter;
	struct llmem_frame_layout src_layout;
	struct llmem_frame_layout dst_layout;
};

G_DEFINE_TYPE(GstLlmemConvert, gst_llmem_convert, GST_TYPE_LLMEM_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(llmemconvert, "llmemconvert", GST_RANK_NONE, GST_TYPE_LLMEM_CONVERT)

static GstStaticPadTemplate sink_template =
	GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_LLMEM_FORMATS)));

static GstStaticPadTemplate src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
				GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_LLMEM_FORMATS)));

static GstStaticCaps yuv_formats =
	GST_STATIC_CAPS("video/x-raw, format=(string)" GST_LLMEM_YUV_FORMATS);
static GstStaticCaps rgb_formats =
	GST_STATIC_CAPS("video/x-raw, format=(string)" GST_LLMEM_RGB_FORMATS);

enum {
	KIND_YUV = 1u << 0,
	KIND_RGB = 1u << 1
};

/* The "format" field of @formats, a list. */
static const GValue *formats_of(GstStaticCaps *formats)
{
	GstCaps *caps = gst_static_caps_get(formats);
	const GValue *value = gst_structure_get_value(gst_caps_get_structure(caps, 0), "format");

	/* Static caps live as long as the plugin: the value stays valid. */
	gst_caps_unref(caps);
	return value;
}

/* The kinds of llmem's formats a caps' "format" value holds: a string, a
 * list, or no value (any). */
static guint format_kinds(const GValue *format)
{
	guint kinds = 0;

	if (!format)
		return KIND_YUV | KIND_RGB;
	if (GST_VALUE_HOLDS_LIST(format)) {
		for (guint i = 0; i < gst_value_list_get_size(format); i++)
			kinds |= format_kinds(gst_value_list_get_value(format, i));
	} else if (G_VALUE_HOLDS_STRING(format)) {
		GstVideoFormat f = gst_video_format_from_string(g_value_get_string(format));

		if (gst_llmem_format_fourcc(f))
			kinds = GST_VIDEO_FORMAT_INFO_IS_YUV(gst_video_format_get_info(f))
					? KIND_YUV
					: KIND_RGB;
	}
	return kinds;
}

/* @s with the other kind's @formats: size and rate stay, YUV's colour
 * fields go; where llmemconvert writes YUV, its chroma siting comes. */
static GstCaps *other_kind(GstCaps *out, const GstStructure *s, GstCapsFeatures *features,
			   const GValue *formats, gboolean writes_yuv)
{
	GstStructure *o = gst_structure_copy(s);

	gst_structure_set_value(o, "format", formats);
	gst_structure_remove_fields(o, "colorimetry", "chroma-site", NULL);
	if (writes_yuv)
		gst_structure_set(o, "chroma-site", G_TYPE_STRING, "jpeg", NULL);
	return gst_caps_merge_structure_full(out, o, gst_caps_features_copy(features));
}

static GstCaps *gst_llmem_convert_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
						 GstCaps *caps, GstCaps *filter)
{
	GstCaps *out = gst_caps_new_empty();

	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		const GstStructure *s = gst_caps_get_structure(caps, i);
		GstCapsFeatures *features = gst_caps_get_features(caps, i);
		guint kinds = format_kinds(gst_structure_get_value(s, "format"));

		if (kinds & KIND_YUV)
			out = other_kind(out, s, features, formats_of(&rgb_formats), FALSE);
		if (kinds & KIND_RGB)
			out = other_kind(out, s, features, formats_of(&yuv_formats),
					 direction == GST_PAD_SINK);
	}
	if (filter) {
		GstCaps *both = gst_caps_intersect_full(filter, out, GST_CAPS_INTERSECT_FIRST);

		gst_caps_unref(out);
		out = both;
	}
	GST_DEBUG_OBJECT(trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, out);
	return out;
}

/* The YUV llmemconvert writes: colorimetry as said at the top of this
 * file where downstream leaves it open. */
static void fixate_colour(GstStructure *out)
{
	gint height = 0;

	gst_structure_fixate_field(out, "format");
	if (!(format_kinds(gst_structure_get_value(out, "format")) & KIND_YUV) ||
	    gst_structure_has_field(out, "colorimetry"))
		return;
	gst_structure_get_int(out, "height", &height);
	gst_structure_set(out, "colorimetry", G_TYPE_STRING,
			  height > 576 ? GST_VIDEO_COLORIMETRY_BT709 : GST_VIDEO_COLORIMETRY_BT601,
			  NULL);
}

static GstCaps *gst_llmem_convert_fixate_caps(GstBaseTransform *trans, GstPadDirection direction,
					      GstCaps *caps, GstCaps *othercaps)
{
	GstStructure *in = gst_caps_get_structure(caps, 0);
	GstStructure *out;
	gint width, height, num, den;

	(void)trans;
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
	if (direction == GST_PAD_SINK)
		fixate_colour(out);
	return gst_caps_fixate(othercaps);
}

/* A converter for frames laid out as @src and @dst; FALSE with the error
 * message posted.  Nothing of the old one may be in flight. */
static gboolean make_converter(GstLlmemConvert *self, const struct llmem_frame_layout *src,
			       const struct llmem_frame_layout *dst)
{
	guint in_flight = gst_llmem_transform_frames_in_flight(GST_LLMEM_TRANSFORM(self));
	int ret;

	llmem_converter_destroy(self->converter);
	self->converter = NULL;
	ret = llmem_converter_create(
		&(struct llmem_converter_create_info){
			.src_layout = src,
			.dst_layout = dst,
			.encoding = self->encoding,
			.range = self->range,
			/* With none in flight GstLlmemTransform waits for each
			 * frame itself. */
			.frames_in_flight = MAX(in_flight, 1),
			.session = gst_llmem_session_get(
				gst_llmem_transform_session(GST_LLMEM_TRANSFORM(self))),
		},
		&self->converter);
	if (ret) {
		GST_ELEMENT_ERROR(self, LIBRARY, INIT,
				  ("Cannot make an llmem converter for these frames."),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	self->src_layout = *src;
	self->dst_layout = *dst;
	return TRUE;
}

/* The colour of the conversion, from the YUV side's caps; FALSE for a
 * matrix llmem cannot write. */
static gboolean set_colour(GstLlmemConvert *self, const GstVideoInfo *yuv, gboolean writes)
{
	GstVideoColorMatrix matrix = yuv->colorimetry.matrix;

	if (matrix != GST_VIDEO_COLOR_MATRIX_BT709 && matrix != GST_VIDEO_COLOR_MATRIX_BT601) {
		if (writes)
			return FALSE;
		GST_INFO_OBJECT(self, "matrix %d of the input is converted as BT.601", matrix);
	}
	self->encoding =
		matrix == GST_VIDEO_COLOR_MATRIX_BT709 ? LLMEM_YCBCR_BT709 : LLMEM_YCBCR_BT601;
	self->range = yuv->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255
			      ? LLMEM_YCBCR_FULL_RANGE
			      : LLMEM_YCBCR_LIMITED_RANGE;
	return TRUE;
}

static gboolean gst_llmem_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps,
					   GstCaps *outcaps)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(trans);
	struct llmem_frame_layout src, dst;
	GstVideoInfo in, out;
	gboolean to_yuv;

	if (!gst_video_info_from_caps(&in, incaps) || !gst_video_info_from_caps(&out, outcaps))
		return FALSE;
	to_yuv = GST_VIDEO_INFO_IS_YUV(&out);
	/* Without a peer on the source pad GstBaseTransform passes the input
	 * caps through as output caps, of the same kind. */
	if (GST_VIDEO_INFO_IS_YUV(&in) == to_yuv) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("%s cannot give these caps.", GST_ELEMENT_NAME(self)),
				  ("%" GST_PTR_FORMAT " to %" GST_PTR_FORMAT, incaps, outcaps));
		return FALSE;
	}
	if (!set_colour(self, to_yuv ? &out : &in, to_yuv)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("llmem writes YUV with the BT.601 or BT.709 matrix only."),
				  ("%" GST_PTR_FORMAT, outcaps));
		return FALSE;
	}
	if (!GST_BASE_TRANSFORM_CLASS(gst_llmem_convert_parent_class)
		     ->set_caps(trans, incaps, outcaps))
		return FALSE;
	/* The one line a reader needs to convert a frame the same way (the VM's scan-out check). */
	GST_INFO_OBJECT(self, "converting with encoding %u range %u (llmem_ycbcr_encoding, _range)",
			self->encoding, self->range);
	/* The layouts of the frames the element's pools make, which the
	 * parent's set_caps has checked. */
	gst_llmem_format_layout(&in, &src);
	gst_llmem_format_layout(&out, &dst);
	return make_converter(self, &src, &dst);
}

/* Whether a frame laid out as @b is where the converter for @a reads or
 * writes it: the size of its buffer does not matter. */
static gboolean same_layout(const struct llmem_frame_layout *a, const struct llmem_frame_layout *b)
{
	if (a->fourcc != b->fourcc || a->width != b->width || a->height != b->height ||
	    a->num_planes != b->num_planes)
		return FALSE;
	for (guint p = 0; p < a->num_planes; p++)
		if (a->offset[p] != b->offset[p] || a->pitch[p] != b->pitch[p])
			return FALSE;
	return TRUE;
}

static GstFlowReturn gst_llmem_convert_submit(GstLlmemTransform *base,
					      const struct gst_llmem_frame *src,
					      const struct gst_llmem_frame *dst,
					      union gst_llmem_work *work)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(base);
	int ret;

	if (!same_layout(&self->src_layout, &src->layout) ||
	    !same_layout(&self->dst_layout, &dst->layout)) {
		GST_INFO_OBJECT(self,
				"input frames with pitches %u, %u and offsets %" G_GUINT64_FORMAT
				", %" G_GUINT64_FORMAT ": a converter of their own",
				src->layout.pitch[0], src->layout.pitch[1], src->layout.offset[0],
				src->layout.offset[1]);
		if (gst_llmem_transform_wait_in_flight(base)) {
			GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("The GPU conversion failed."),
					  ("%s", llmem_last_error()));
			return GST_FLOW_ERROR;
		}
		if (!make_converter(self, &src->layout, &dst->layout))
			return GST_FLOW_ERROR;
	}
	ret = llmem_converter_submit(self->converter,
				     &(struct llmem_convert_frame){
					     .src = src->buffer,
					     .src_chroma = src->chroma,
					     .dst = dst->buffer,
				     },
				     &work->ticket);
	if (ret) {
		GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("The GPU conversion failed."),
				  ("%s", llmem_last_error()));
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

static int gst_llmem_convert_wait(GstLlmemTransform *base, union gst_llmem_work *work,
				  guint64 timeout_ns)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(base);

	if (!timeout_ns)
		return llmem_converter_completed(self->converter) >= work->ticket ? 0 : -ETIMEDOUT;
	return llmem_converter_wait(self->converter, work->ticket, timeout_ns);
}

static void gst_llmem_convert_release(GstLlmemTransform *base)
{
	GstLlmemConvert *self = GST_LLMEM_CONVERT(base);

	llmem_converter_destroy(self->converter);
	self->converter = NULL;
}

static void gst_llmem_convert_class_init(GstLlmemConvertClass *klass)
{
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
	GstLlmemTransformClass *llmem_class = GST_LLMEM_TRANSFORM_CLASS(klass);

	gst_element_class_set_static_metadata(
		element_class, "llmem video converter", "Filter/Converter/Video",
		"Converts YUY2 and NV12 to RGB, or RGB to YUY2 and NV12, on the GPU with llmem, "
		"in llmem's shared frames",
		"llmem");
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);

	trans_class->transform_caps = gst_llmem_convert_transform_caps;
	trans_class->fixate_caps = gst_llmem_convert_fixate_caps;
	trans_class->set_caps = gst_llmem_convert_set_caps;
	llmem_class->submit = gst_llmem_convert_submit;
	llmem_class->wait = gst_llmem_convert_wait;
	llmem_class->release = gst_llmem_convert_release;
	llmem_class->takes_chroma = TRUE;
}

static void gst_llmem_convert_init(GstLlmemConvert *self)
{
	/* Both pads take every format, but never the same kind on both: caps
	 * downstream offers are no output for them. */
	gst_base_transform_set_prefer_passthrough(GST_BASE_TRANSFORM(self), FALSE);
}
