// SPDX-License-Identifier: MIT
/*
 * llmemfilter.  The kernel is loaded when the element starts, so that a
 * missing or broken file ends the pipeline with llmem's reason before any
 * frame flows.  In place, the kernel writes the input frame itself: zero
 * copy when upstream wrote into the llmem pool the element proposed; a
 * frame from elsewhere is copied into an llmem frame and the result back.
 * Each frame's dispatch goes on the element's queue with an event, which
 * GstLlmemTransform waits for (frames in flight); the queue runs them in
 * order.
 */
#include "filter.h"

#include <errno.h>
#include <stdlib.h>

#include <llmem/llmem.h>

#include "format.h"

#define USER_WORDS ((LLMEM_KERNEL_MAX_PUSH - sizeof(struct gst_llmem_filter_push)) / 4)

struct _GstLlmemFilter {
	GstLlmemTransform parent;
	gchar *kernel_path;
	gchar *entry;
	gchar *push_text;
	gboolean in_place;
	guint local_size[2];
	struct llmem_kernel *kernel;
	struct llmem_queue *queue;
	uint32_t push[LLMEM_KERNEL_MAX_PUSH / 4];
	uint32_t push_size;
};

G_DEFINE_TYPE(GstLlmemFilter, gst_llmem_filter, GST_TYPE_LLMEM_TRANSFORM)
GST_ELEMENT_REGISTER_DEFINE(llmemfilter, "llmemfilter", GST_RANK_NONE, GST_TYPE_LLMEM_FILTER)

enum {
	PROP_0,
	PROP_KERNEL,
	PROP_ENTRY,
	PROP_PUSH_CONSTANTS,
	PROP_IN_PLACE,
	PROP_LOCAL_SIZE_X,
	PROP_LOCAL_SIZE_Y
};

#define FILTER_CAPS GST_VIDEO_CAPS_MAKE(GST_LLMEM_FORMATS)

static GstStaticPadTemplate sink_template =
	GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(FILTER_CAPS));

static GstStaticPadTemplate src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(FILTER_CAPS));

/*
 * "push-constants" as 32-bit words after the frame block: integers
 * (decimal, 0x hex, negative) as they are, numbers with a point or an
 * exponent as floats.  Returns the bad word, or NULL.
 */
static gchar *parse_push(GstLlmemFilter *self, guint *count)
{
	gchar **words = g_strsplit(self->push_text ? self->push_text : "", ",", -1);
	gchar *bad = NULL;
	guint n = 0;

	for (gchar **w = words; *w && !bad; w++) {
		gchar *word = g_strstrip(*w), *end;

		if (!*word && !w[1] && w == words)
			break;
		if (n == USER_WORDS) {
			bad = g_strdup_printf("%s (more than %zu words)", word, USER_WORDS);
			break;
		}
		if (strpbrk(word, ".eE") && !g_str_has_prefix(word, "0x")) {
			float f = strtof(word, &end);

			memcpy(&self->push[sizeof(struct gst_llmem_filter_push) / 4 + n], &f, 4);
		} else {
			gint64 v = g_ascii_strtoll(word, &end, 0);

			if (v < G_MININT32 || v > G_MAXUINT32)
				end = word;
			self->push[sizeof(struct gst_llmem_filter_push) / 4 + n] = (uint32_t)v;
		}
		if (!*word || *end)
			bad = g_strdup(word);
		n++;
	}
	g_strfreev(words);
	*count = n;
	return bad;
}

/* Before the session: queues hold it. */
static void gst_llmem_filter_release(GstLlmemTransform *base)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(base);

	llmem_queue_destroy(self->queue);
	self->queue = NULL;
	llmem_kernel_destroy(self->kernel);
	self->kernel = NULL;
}

/* The kernel and its queue; FALSE with the error message posted. */
static gboolean load_kernel(GstLlmemFilter *self)
{
	static const uint32_t bindings[] = { LLMEM_BINDING_STORAGE_BUFFER,
					     LLMEM_BINDING_STORAGE_BUFFER };
	struct llmem_session *session =
		gst_llmem_session_get(gst_llmem_transform_session(GST_LLMEM_TRANSFORM(self)));
	gchar *bad;
	guint words;
	int ret;

	GST_OBJECT_LOCK(self);
	bad = parse_push(self, &words);
	GST_OBJECT_UNLOCK(self);
	if (bad) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Bad push-constants."),
				  ("not a 32-bit word: %s", bad));
		g_free(bad);
		return FALSE;
	}
	self->push_size = sizeof(struct gst_llmem_filter_push) + words * 4;
	if (!self->kernel_path) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("No kernel."),
				  ("llmemfilter needs kernel=FILE.spv"));
		return FALSE;
	}
	ret = llmem_kernel_create(session,
				  &(struct llmem_kernel_create_info){
					  .path = self->kernel_path,
					  .entry = self->entry,
					  .bindings = bindings,
					  .binding_count = G_N_ELEMENTS(bindings),
					  .push_size = self->push_size,
				  },
				  &self->kernel);
	if (!ret)
		ret = llmem_queue_create(session, NULL, &self->queue);
	if (ret) {
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ,
				  ("Cannot load the kernel %s.", self->kernel_path),
				  ("%s", llmem_last_error()));
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_llmem_filter_start(GstBaseTransform *trans)
{
	GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS(gst_llmem_filter_parent_class);

	if (!parent->start(trans))
		return FALSE;
	/* GstBaseTransform calls stop only after a start that succeeded. */
	if (!load_kernel(GST_LLMEM_FILTER(trans))) {
		parent->stop(trans);
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_llmem_filter_set_caps(GstBaseTransform *trans, GstCaps *incaps,
					  GstCaps *outcaps)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(trans);

	gst_base_transform_set_in_place(trans, self->in_place);
	return GST_BASE_TRANSFORM_CLASS(gst_llmem_filter_parent_class)
		->set_caps(trans, incaps, outcaps);
}

static GstFlowReturn gst_llmem_filter_submit(GstLlmemTransform *base,
					     const struct gst_llmem_frame *src_frame,
					     const struct gst_llmem_frame *dst_frame,
					     union gst_llmem_work *work)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(base);
	const struct llmem_frame_layout *src_l = &src_frame->layout, *dst_l = &dst_frame->layout;
	struct llmem_buffer *src = src_frame->buffer, *dst = dst_frame->buffer;
	struct gst_llmem_filter_push frame = { .width = src_l->width, .height = src_l->height };
	struct llmem_kernel_arg args[] = { { .buffer = src }, { .buffer = dst } };
	int ret;

	for (guint p = 0; p < src_l->num_planes && p < 2; p++) {
		frame.src_offset[p] = (uint32_t)src_l->offset[p];
		frame.src_pitch[p] = src_l->pitch[p];
		frame.dst_offset[p] = (uint32_t)dst_l->offset[p];
		frame.dst_pitch[p] = dst_l->pitch[p];
	}
	memcpy(self->push, &frame, sizeof(frame));
	ret = llmem_enqueue_dispatch(
		self->queue, self->kernel,
		&(struct llmem_dispatch){
			.args = args,
			.arg_count = G_N_ELEMENTS(args),
			.push = self->push,
			.groups = { (src_l->width + self->local_size[0] - 1) / self->local_size[0],
				    (src_l->height + self->local_size[1] - 1) / self->local_size[1],
				    1 },
		},
		NULL, &work->event);
	if (ret) {
		GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("The kernel failed."),
				  ("%s", llmem_last_error()));
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

static int gst_llmem_filter_wait(GstLlmemTransform *base, union gst_llmem_work *work,
				 guint64 timeout_ns)
{
	int ret;

	(void)base;
	if (timeout_ns)
		return llmem_event_wait(work->event, timeout_ns);
	ret = llmem_event_status(work->event);
	if (ret == LLMEM_EVENT_SUBMITTED || ret == LLMEM_EVENT_QUEUED)
		return -ETIMEDOUT;
	return ret;
}

static void gst_llmem_filter_release_work(GstLlmemTransform *base, union gst_llmem_work *work)
{
	(void)base;
	llmem_event_release(work->event);
}

static void gst_llmem_filter_set_property(GObject *object, guint id, const GValue *value,
					  GParamSpec *pspec)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(object);

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_KERNEL:
		g_free(self->kernel_path);
		self->kernel_path = g_value_dup_string(value);
		break;
	case PROP_ENTRY:
		g_free(self->entry);
		self->entry = g_value_dup_string(value);
		break;
	case PROP_PUSH_CONSTANTS:
		g_free(self->push_text);
		self->push_text = g_value_dup_string(value);
		break;
	case PROP_IN_PLACE:
		self->in_place = g_value_get_boolean(value);
		break;
	case PROP_LOCAL_SIZE_X:
	case PROP_LOCAL_SIZE_Y:
		self->local_size[id - PROP_LOCAL_SIZE_X] = g_value_get_uint(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_llmem_filter_get_property(GObject *object, guint id, GValue *value,
					  GParamSpec *pspec)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(object);

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_KERNEL:
		g_value_set_string(value, self->kernel_path);
		break;
	case PROP_ENTRY:
		g_value_set_string(value, self->entry);
		break;
	case PROP_PUSH_CONSTANTS:
		g_value_set_string(value, self->push_text);
		break;
	case PROP_IN_PLACE:
		g_value_set_boolean(value, self->in_place);
		break;
	case PROP_LOCAL_SIZE_X:
	case PROP_LOCAL_SIZE_Y:
		g_value_set_uint(value, self->local_size[id - PROP_LOCAL_SIZE_X]);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_llmem_filter_finalize(GObject *object)
{
	GstLlmemFilter *self = GST_LLMEM_FILTER(object);

	g_free(self->kernel_path);
	g_free(self->entry);
	g_free(self->push_text);
	G_OBJECT_CLASS(gst_llmem_filter_parent_class)->finalize(object);
}

static void gst_llmem_filter_class_init(GstLlmemFilterClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
	const GParamFlags ready =
		G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY;

	object_class->set_property = gst_llmem_filter_set_property;
	object_class->get_property = gst_llmem_filter_get_property;
	object_class->finalize = gst_llmem_filter_finalize;
	g_object_class_install_property(
		object_class, PROP_KERNEL,
		g_param_spec_string("kernel", "Kernel",
				    "File of SPIR-V: a compute shader whose binding 0 is the input "
				    "frame's buffer and binding 1 the output frame's (storage "
				    "buffers), its push constants the frame's size, offsets and "
				    "pitches, then push-constants (docs/gstreamer.md)",
				    NULL, ready));
	g_object_class_install_property(object_class, PROP_ENTRY,
					g_param_spec_string("entry", "Entry point",
							    "The kernel's entry point (NULL: main)",
							    NULL, ready));
	g_object_class_install_property(
		object_class, PROP_PUSH_CONSTANTS,
		g_param_spec_string(
			"push-constants", "Push constants",
			"Comma-separated 32-bit words after the frame's push constants: "
			"integers (decimal or 0x hex) as they are, numbers with a point "
			"or an exponent as floats; up to 22",
			NULL, ready));
	g_object_class_install_property(
		object_class, PROP_IN_PLACE,
		g_param_spec_boolean("in-place", "In place",
				     "The kernel writes the input frame itself (binding 1 is "
				     "binding 0's buffer); otherwise a new frame of the element's "
				     "pool",
				     TRUE, ready));
	g_object_class_install_property(
		object_class, PROP_LOCAL_SIZE_X,
		g_param_spec_uint("local-size-x", "Local size x",
				  "The kernel's local_size_x: work groups across are the width "
				  "divided by it, rounded up",
				  1, 1024, 8, ready));
	g_object_class_install_property(
		object_class, PROP_LOCAL_SIZE_Y,
		g_param_spec_uint("local-size-y", "Local size y",
				  "The kernel's local_size_y: work groups down are the height "
				  "divided by it, rounded up",
				  1, 1024, 8, ready));

	gst_element_class_set_static_metadata(
		element_class, "llmem compute filter", "Filter/Effect/Video",
		"Runs a SPIR-V compute kernel on each frame on the GPU with llmem", "llmem");
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);

	trans_class->start = gst_llmem_filter_start;
	trans_class->set_caps = gst_llmem_filter_set_caps;
	GST_LLMEM_TRANSFORM_CLASS(klass)->submit = gst_llmem_filter_submit;
	GST_LLMEM_TRANSFORM_CLASS(klass)->wait = gst_llmem_filter_wait;
	GST_LLMEM_TRANSFORM_CLASS(klass)->release_work = gst_llmem_filter_release_work;
	GST_LLMEM_TRANSFORM_CLASS(klass)->release = gst_llmem_filter_release;
}

static void gst_llmem_filter_init(GstLlmemFilter *self)
{
	self->in_place = TRUE;
	self->local_size[0] = 8;
	self->local_size[1] = 8;
}
