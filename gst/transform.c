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
 *
 * Frames in flight: submit_input_buffer submits the frame's work and
 * queues it; generate_output, which GstBaseTransform's chain calls until it
 * gives nothing, pushes the frames found done, so the streaming thread
 * never waits for the frame it just submitted, only for the oldest when
 * more than "frames-in-flight" are unfinished.
 */
#include "transform.h"

#include <errno.h>

#include <drm_fourcc.h>
#include <llmem/llmem.h>

#include "allocator.h"
#include "format.h"
#include "import.h"
#include "pool.h"

/* What the default frames in flight buys: the GPU converts one frame while
 * upstream makes the next, and a second absorbs a frame that takes the GPU
 * longer without stalling upstream; more only hold more of upstream's
 * buffers (a camera has a few) and add latency. */
#define DEFAULT_FRAMES_IN_FLIGHT 2
/* llmem_converter_create_info's bound. */
#define MAX_FRAMES_IN_FLIGHT 16

typedef struct {
	gchar *device;
	guint frames_in_flight;
	GstLlmemSession *session;
	GstVideoInfo in_info;
	struct llmem_frame_layout out_layout;
	/* The copy path's frames, in the input's format. */
	GstBufferPool *staging;
	guint64 frames_copied;
	gint64 validation_messages;
	struct gst_llmem_inflight inflight;
	/* frames_in_flight as the element started (the property changes in
	 * READY only), and a frame's duration (0: unknown), for the latency
	 * query from any thread. */
	guint in_flight;
	GstClockTime frame_duration;
	/* A frame in flight carries a discontinuity that GstBaseTransform's
	 * chain has yet to mark on the next frame pushed (GstBaseTransform
	 * marks the first frame pushed after a discontinuity). */
	gboolean discont_unapplied;
} GstLlmemTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(GstLlmemTransform, gst_llmem_transform, GST_TYPE_BASE_TRANSFORM)

#define PRIV(self) ((GstLlmemTransformPrivate *)gst_llmem_transform_get_instance_private(self))

enum {
	PROP_0,
	PROP_DEVICE,
	PROP_FRAMES_COPIED,
	PROP_VALIDATION_MESSAGES,
	PROP_FRAMES_IN_FLIGHT
};

static int inflight_wait(gpointer owner, union gst_llmem_work *work, guint64 timeout_ns)
{
	GstLlmemTransform *self = owner;

	return GST_LLMEM_TRANSFORM_GET_CLASS(self)->wait(self, work, timeout_ns);
}

static void inflight_release(gpointer owner, union gst_llmem_work *work)
{
	GstLlmemTransform *self = owner;
	GstLlmemTransformClass *klass = GST_LLMEM_TRANSFORM_GET_CLASS(self);

	if (klass->release_work)
		klass->release_work(self, work);
}

static const struct gst_llmem_inflight_ops inflight_ops = {
	.wait = inflight_wait,
	.release = inflight_release,
};

static gboolean gst_llmem_transform_start(GstBaseTransform *trans)
{
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(trans));
	int ret;

	GST_OBJECT_LOCK(trans);
	ret = gst_llmem_session_new(priv->device, &priv->session);
	priv->in_flight = priv->frames_in_flight;
	priv->frame_duration = 0;
	GST_OBJECT_UNLOCK(trans);
	priv->inflight.flushing = FALSE;
	priv->discont_unapplied = FALSE;
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

/* Drops the frames in flight once the GPU is done with them; with
 * @flushing, takes no frame until called again without. */
static void discard(GstLlmemTransformPrivate *priv, gboolean flushing)
{
	g_mutex_lock(&priv->inflight.lock);
	gst_llmem_inflight_discard(&priv->inflight);
	priv->inflight.flushing = flushing;
	g_mutex_unlock(&priv->inflight.lock);
}

static gboolean gst_llmem_transform_stop(GstBaseTransform *trans)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	GstLlmemTransformClass *klass = GST_LLMEM_TRANSFORM_GET_CLASS(self);

	discard(priv, FALSE);
	if (klass->release)
		klass->release(self);
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

/* The GPU work on a frame failed (or the device is lost): the message. */
static void work_failed(GstLlmemTransform *self)
{
	GST_ELEMENT_ERROR(self, LIBRARY, FAILED, ("The GPU work on a frame failed."),
			  ("%s", llmem_last_error()));
}

/* In place on a staged frame: its result back into upstream's buffer. */
static gboolean copy_back(GstLlmemTransformPrivate *priv, GstBuffer *staged, GstBuffer *buf)
{
	GstVideoFrame from, to;
	gboolean copied;

	if (!gst_video_frame_map(&from, &priv->in_info, staged, GST_MAP_READ))
		return FALSE;
	if (!gst_video_frame_map(&to, &priv->in_info, buf, GST_MAP_WRITE)) {
		gst_video_frame_unmap(&from);
		return FALSE;
	}
	copied = gst_video_frame_copy(&to, &from);
	gst_video_frame_unmap(&to);
	gst_video_frame_unmap(&from);
	return copied;
}

/* What goes downstream of a frame whose work is done, in *@outbuf; the
 * frame's other buffers go back. */
static GstFlowReturn finish(GstLlmemTransform *self, struct gst_llmem_inflight_frame *frame,
			    GstBuffer **outbuf)
{
	GstFlowReturn flow = GST_FLOW_OK;

	if (frame->copy_back && !copy_back(PRIV(self), frame->staged, frame->outbuf)) {
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Cannot copy the frame back."), (NULL));
		flow = GST_FLOW_ERROR;
	} else {
		*outbuf = g_steal_pointer(&frame->outbuf);
	}
	gst_llmem_inflight_frame_clear(frame);
	return flow;
}

/*
 * Pushes every frame in flight, oldest first, each once its work is done:
 * what came before an event or a new format goes before it.  On a failure,
 * drops the rest.
 */
static GstFlowReturn drain(GstLlmemTransform *self)
{
	GstLlmemTransformPrivate *priv = PRIV(self);

	for (;;) {
		struct gst_llmem_inflight_frame frame;
		GstBuffer *outbuf = NULL;
		GstFlowReturn flow;
		int ret;

		g_mutex_lock(&priv->inflight.lock);
		ret = gst_llmem_inflight_pop(&priv->inflight, G_MAXUINT64, &frame);
		if (ret && ret != -ENOENT) {
			work_failed(self);
			gst_llmem_inflight_discard(&priv->inflight);
		}
		g_mutex_unlock(&priv->inflight.lock);
		if (ret == -ENOENT)
			return GST_FLOW_OK;
		if (ret)
			return GST_FLOW_ERROR;
		/* Unlocked: downstream may block (a sink prerolling) until a
		 * flush, which discards under the lock. */
		flow = finish(self, &frame, &outbuf);
		if (flow == GST_FLOW_OK)
			flow = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(GST_BASE_TRANSFORM(self)),
					    outbuf);
		if (flow != GST_FLOW_OK) {
			GST_DEBUG_OBJECT(self, "dropping the frames in flight: %s",
					 gst_flow_get_name(flow));
			g_mutex_lock(&priv->inflight.lock);
			gst_llmem_inflight_discard(&priv->inflight);
			g_mutex_unlock(&priv->inflight.lock);
			return flow;
		}
	}
}

static gboolean gst_llmem_transform_set_caps(GstBaseTransform *trans, GstCaps *incaps,
					     GstCaps *outcaps)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct llmem_frame_layout in_layout, out_layout;
	GstVideoInfo in, out;
	guint size;

	/* Frames of the old caps go out before the new caps (a renegotiation
	 * from the streaming thread comes here without a CAPS event). */
	drain(self);
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
	GST_OBJECT_LOCK(self);
	priv->frame_duration =
		in.fps_n > 0 && in.fps_d > 0
			? gst_util_uint64_scale_int_ceil(GST_SECOND, in.fps_d, in.fps_n)
			: 0;
	GST_OBJECT_UNLOCK(self);
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
	guint size, min;

	(void)decide_query;
	gst_query_parse_allocation(query, &caps, &need_pool);
	if (!caps)
		return FALSE;
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	if (!need_pool)
		return TRUE;
	/* Upstream's frames stay with the element while in flight. */
	min = GST_LLMEM_POOL_MIN_BUFFERS + PRIV(self)->in_flight;
	pool = make_pool(self, caps, min, &size);
	if (!pool)
		return TRUE;
	gst_query_add_allocation_pool(query, pool, size, min, 0);
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
	min = MAX(min, GST_LLMEM_POOL_MIN_BUFFERS) + PRIV(self)->in_flight;
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
 * (a V4L2 multi-planar format comes as a memory per plane).  The size is
 * what the planes in the first memory span, so that llmem refuses a frame
 * its buffer cannot hold, whatever the meta says.
 */
static gboolean input_layout(GstLlmemTransformPrivate *priv, GstBuffer *inbuf,
			     struct llmem_frame_layout *layout, guint mem_of[GST_VIDEO_MAX_PLANES])
{
	const GstVideoInfo *info = &priv->in_info;
	GstVideoMeta *meta = gst_buffer_get_video_meta(inbuf);

	*layout = (struct llmem_frame_layout){
		.fourcc = gst_llmem_format_fourcc(GST_VIDEO_INFO_FORMAT(info)),
		.width = GST_VIDEO_INFO_WIDTH(info),
		.height = GST_VIDEO_INFO_HEIGHT(info),
		.num_planes = GST_VIDEO_INFO_N_PLANES(info),
	};
	for (guint i = 0; i < layout->num_planes; i++) {
		gsize offset = meta ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(info, i);
		gsize skip;
		guint length;

		if (!gst_buffer_find_memory(inbuf, offset, 1, &mem_of[i], &length, &skip))
			return FALSE;
		layout->offset[i] = gst_buffer_peek_memory(inbuf, mem_of[i])->offset + skip;
		layout->pitch[i] = meta ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(info, i);
		if (mem_of[i] == 0)
			layout->size = MAX(layout->size,
					   layout->offset[i] +
						   (guint64)layout->pitch[i] *
							   GST_VIDEO_INFO_COMP_HEIGHT(info, i));
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

/*
 * Whether the GPU can read @l where it lies: llmem's converters (and
 * kernels reading a uint at a time) read YUYV and RGB planes a 32-bit word
 * at a time, so those start and are pitched at multiples of 4; an NV12
 * source may lie at any byte (convert.h).
 */
static gboolean word_aligned(const struct llmem_frame_layout *l)
{
	return l->fourcc == DRM_FORMAT_NV12 || (l->offset[0] % 4 == 0 && l->pitch[0] % 4 == 0);
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
	if (!word_aligned(layout)) {
		GST_DEBUG_OBJECT(self,
				 "upstream's frame starts at byte %" G_GUINT64_FORMAT
				 " with rows %u bytes apart: the GPU reads 32-bit words",
				 layout->offset[0], layout->pitch[0]);
		return FALSE;
	}
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
			 "an llmem frame of this element's device, or not one the GPU can read "
			 "in place",
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

/*
 * The input frame of @inbuf as llmem buffers and its layout; *@staged
 * receives the staging frame when the frame had to be copied, NULL
 * otherwise.  A frame whose planes come in a memory each (V4L2's NV12M) is
 * read in place where the class takes_chroma, copied otherwise.  Posts the
 * error message on failure.
 */
static GstFlowReturn input(GstLlmemTransform *self, GstBuffer *inbuf, struct gst_llmem_frame *frame,
			   GstBuffer **staged)
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

/* transform and transform_ip: with the in-flight lock held, @src's work
 * into @dst submitted and the frame queued. */
static GstFlowReturn submit(GstLlmemTransform *self, struct gst_llmem_inflight_frame *frame,
			    GstBuffer *inbuf, const struct gst_llmem_frame *dst)
{
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct gst_llmem_frame src;
	GstFlowReturn flow;

	flow = input(self, inbuf, &src, &frame->staged);
	if (flow == GST_FLOW_OK)
		flow = GST_LLMEM_TRANSFORM_GET_CLASS(self)->submit(self, &src, dst ? dst : &src,
								   &frame->work);
	if (flow != GST_FLOW_OK) {
		gst_llmem_inflight_frame_clear(frame);
		return flow;
	}
	frame->copy_back = !dst && frame->staged;
	gst_llmem_inflight_add(&priv->inflight, frame);
	return GST_FLOW_OK;
}

static GstFlowReturn gst_llmem_transform_transform(GstBaseTransform *trans, GstBuffer *inbuf,
						   GstBuffer *outbuf)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct gst_llmem_frame dst = { .layout = priv->out_layout };

	if (gst_buffer_n_memory(outbuf) == 1)
		dst.buffer = gst_llmem_memory_get_buffer(gst_buffer_peek_memory(outbuf, 0),
							 priv->session);
	if (!dst.buffer) {
		GST_ELEMENT_ERROR(self, CORE, FAILED, ("The output buffer is not an llmem frame."),
				  (NULL));
		return GST_FLOW_ERROR;
	}
	return submit(self,
		      &(struct gst_llmem_inflight_frame){ .outbuf = gst_buffer_ref(outbuf),
							  .inbuf = gst_buffer_ref(inbuf) },
		      inbuf, &dst);
}

/* In place: the work writes upstream's frame (or the staged copy of it,
 * copied back when done). */
static GstFlowReturn gst_llmem_transform_transform_ip(GstBaseTransform *trans, GstBuffer *buf)
{
	return submit(GST_LLMEM_TRANSFORM(trans),
		      &(struct gst_llmem_inflight_frame){ .outbuf = gst_buffer_ref(buf) }, buf,
		      NULL);
}

static GstFlowReturn gst_llmem_transform_submit_input_buffer(GstBaseTransform *trans,
							     gboolean is_discont, GstBuffer *inbuf)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	GstBaseTransformClass *klass = GST_BASE_TRANSFORM_GET_CLASS(trans);
	GstBuffer *outbuf = NULL;
	gboolean new_discont;
	GstFlowReturn flow;
	int ret;

	/* GstBaseTransform's own does the renegotiation and QoS, and keeps
	 * the buffer in queued_buf. */
	flow = GST_BASE_TRANSFORM_CLASS(gst_llmem_transform_parent_class)
		       ->submit_input_buffer(trans, is_discont, inbuf);
	if (flow == GST_BASE_TRANSFORM_FLOW_DROPPED)
		priv->discont_unapplied = FALSE;
	if (flow != GST_FLOW_OK)
		return flow;
	inbuf = g_steal_pointer(&trans->queued_buf);
	/* A new discontinuity (upstream's, or a frame QoS dropped): the frames
	 * before it go first, so that the chain marks this one. */
	new_discont = is_discont && !priv->discont_unapplied;
	if (new_discont)
		flow = drain(self);
	if (flow == GST_FLOW_OK)
		flow = klass->prepare_output_buffer(trans, inbuf, &outbuf);
	if (flow != GST_FLOW_OK || !outbuf)
		goto out;
	if (new_discont) {
		GST_BUFFER_FLAG_SET(outbuf, GST_BUFFER_FLAG_DISCONT);
		priv->discont_unapplied = TRUE;
	}

	g_mutex_lock(&priv->inflight.lock);
	if (priv->inflight.flushing)
		flow = GST_FLOW_FLUSHING;
	else if (gst_base_transform_is_in_place(trans))
		flow = klass->transform_ip(trans, outbuf);
	else
		flow = klass->transform(trans, inbuf, outbuf);
	/* Back-pressure: no more than frames-in-flight unfinished when the
	 * streaming thread goes back upstream. */
	if (flow == GST_FLOW_OK &&
	    (ret = gst_llmem_inflight_wait(&priv->inflight, priv->in_flight))) {
		GST_DEBUG_OBJECT(self, "waiting for the oldest frame: %d", ret);
		work_failed(self);
		flow = GST_FLOW_ERROR;
	}
	if (flow != GST_FLOW_OK)
		gst_llmem_inflight_discard(&priv->inflight);
	g_mutex_unlock(&priv->inflight.lock);
out:
	if (outbuf && outbuf != inbuf)
		gst_buffer_unref(outbuf);
	gst_buffer_unref(inbuf);
	return flow;
}

/* The oldest frame once its work is done, without waiting; GstBaseTransform's
 * chain pushes it and asks again. */
static GstFlowReturn gst_llmem_transform_generate_output(GstBaseTransform *trans,
							 GstBuffer **outbuf)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);
	struct gst_llmem_inflight_frame frame;
	int ret;

	*outbuf = NULL;
	g_mutex_lock(&priv->inflight.lock);
	ret = gst_llmem_inflight_pop(&priv->inflight, 0, &frame);
	if (ret && ret != -ENOENT && ret != -ETIMEDOUT) {
		work_failed(self);
		gst_llmem_inflight_discard(&priv->inflight);
	}
	g_mutex_unlock(&priv->inflight.lock);
	if (ret == -ENOENT || ret == -ETIMEDOUT)
		return GST_FLOW_OK;
	if (ret)
		return GST_FLOW_ERROR;
	/* The chain marks the discontinuity on this frame, the oldest. */
	priv->discont_unapplied = FALSE;
	return finish(self, &frame, outbuf);
}

static gboolean gst_llmem_transform_sink_event(GstBaseTransform *trans, GstEvent *event)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);
	GstLlmemTransformPrivate *priv = PRIV(self);

	switch (GST_EVENT_TYPE(event)) {
	case GST_EVENT_FLUSH_START:
		discard(priv, TRUE);
		break;
	case GST_EVENT_FLUSH_STOP:
		discard(priv, FALSE);
		priv->discont_unapplied = FALSE;
		break;
	default:
		/* EOS, CAPS, SEGMENT, GAP…: they stay behind the frames before them. */
		if (GST_EVENT_IS_SERIALIZED(event))
			drain(self);
		break;
	}
	return GST_BASE_TRANSFORM_CLASS(gst_llmem_transform_parent_class)->sink_event(trans, event);
}

/* A frame waits for up to frames-in-flight later frames (or the end of the
 * stream) before it is pushed: that many frame durations. */
static void add_latency(GstLlmemTransform *self, GstQuery *query)
{
	GstLlmemTransformPrivate *priv = PRIV(self);
	GstClockTime min, max, ours;
	gboolean live;

	gst_query_parse_latency(query, &live, &min, &max);
	GST_OBJECT_LOCK(self);
	ours = priv->in_flight * priv->frame_duration;
	if (priv->in_flight && !priv->frame_duration)
		/* Without a frame rate, how long the next frames take to come is
		 * not known: no bound. */
		max = GST_CLOCK_TIME_NONE;
	GST_OBJECT_UNLOCK(self);
	min += ours;
	if (GST_CLOCK_TIME_IS_VALID(max))
		max += ours;
	GST_DEBUG_OBJECT(self, "frames in flight add %" GST_TIME_FORMAT, GST_TIME_ARGS(ours));
	gst_query_set_latency(query, live, min, max);
}

static gboolean gst_llmem_transform_query(GstBaseTransform *trans, GstPadDirection direction,
					  GstQuery *query)
{
	GstLlmemTransform *self = GST_LLMEM_TRANSFORM(trans);

	/* A serialized query (DRAIN, ALLOCATION) comes after the frames
	 * before it, as an event does. */
	if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED(query))
		drain(self);
	if (!GST_BASE_TRANSFORM_CLASS(gst_llmem_transform_parent_class)
		     ->query(trans, direction, query))
		return FALSE;
	if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY)
		add_latency(self, query);
	return TRUE;
}

GstLlmemSession *gst_llmem_transform_session(GstLlmemTransform *self)
{
	return PRIV(self)->session;
}

const GstVideoInfo *gst_llmem_transform_in_info(GstLlmemTransform *self)
{
	return &PRIV(self)->in_info;
}

guint gst_llmem_transform_frames_in_flight(GstLlmemTransform *self)
{
	return PRIV(self)->in_flight;
}

int gst_llmem_transform_wait_in_flight(GstLlmemTransform *self)
{
	return gst_llmem_inflight_wait(&PRIV(self)->inflight, 0);
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
	case PROP_FRAMES_IN_FLIGHT:
		GST_OBJECT_LOCK(object);
		priv->frames_in_flight = g_value_get_uint(value);
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
	case PROP_FRAMES_IN_FLIGHT:
		g_value_set_uint(value, priv->frames_in_flight);
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
	GstLlmemTransformPrivate *priv = PRIV(GST_LLMEM_TRANSFORM(object));

	gst_llmem_inflight_clear(&priv->inflight);
	g_free(priv->device);
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
	g_object_class_install_property(
		object_class, PROP_FRAMES_IN_FLIGHT,
		g_param_spec_uint(
			"frames-in-flight", "Frames in flight",
			"Frames whose GPU work may still run when the element takes the "
			"next one: each is pushed once done, and beyond this many the "
			"oldest is waited for.  0 waits for every frame (no latency added)",
			0, MAX_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT,
			G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

	trans_class->start = gst_llmem_transform_start;
	trans_class->stop = gst_llmem_transform_stop;
	trans_class->set_caps = gst_llmem_transform_set_caps;
	trans_class->propose_allocation = gst_llmem_transform_propose_allocation;
	trans_class->decide_allocation = gst_llmem_transform_decide_allocation;
	trans_class->transform = gst_llmem_transform_transform;
	trans_class->transform_ip = gst_llmem_transform_transform_ip;
	trans_class->submit_input_buffer = gst_llmem_transform_submit_input_buffer;
	trans_class->generate_output = gst_llmem_transform_generate_output;
	trans_class->sink_event = gst_llmem_transform_sink_event;
	trans_class->query = gst_llmem_transform_query;
	trans_class->passthrough_on_same_caps = FALSE;
}

static void gst_llmem_transform_init(GstLlmemTransform *self)
{
	GstLlmemTransformPrivate *priv = PRIV(self);

	priv->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
	gst_llmem_inflight_init(&priv->inflight, &inflight_ops, self);
}
