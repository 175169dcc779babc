// SPDX-License-Identifier: MIT
/*
 * A camera's frames as a PipeWire Video/Source node (llmem/pipewire.h).
 * The node drives its graph: the newest frame the camera wrote is queued in
 * the PipeWire buffer that is the frame's own DMA-BUF and one graph cycle
 * is run (pw_stream_trigger_process()); PipeWire hands a buffer back
 * (dequeued again) on the cycle after the one that carried it, and its
 * frame goes back to the camera then.  The formats go as PipeWire's DMA-BUF
 * procedure has them: with the modifier for DMA-BUF consumers, and without
 * one for consumers of shared memory, which get the same fds as MemFd.
 *
 * The source's loop stays entered from creation to destruction: 0.3's
 * context runs a data thread, whose calls into a loop not entered would
 * run on that thread, beside the caller's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

#include <llmem/camera.h>
#include <llmem/pipewire.h>

#include "base/error.h"
#include "base/export.h"
#include "pipeline/pipewire_links.h"

#define DEFAULT_NAME "llmem-camera"
/* Room for the two formats, or the buffer parameters of one answer. */
#define POD_BYTES 4096

struct llmem_pipewire_source {
	struct llmem_camera *camera;
	struct llmem_camera_info cam;
	uint32_t spa_format;

	struct pw_loop *loop;
	struct pw_context *context;
	struct pw_core *core;
	struct spa_hook core_listener;
	struct pw_stream *stream;
	struct spa_hook stream_listener;
	struct pipewire_links links;
	/* The camera's fd on the loop while the camera streams, waited on
	 * unless every frame the camera may hand out is held. */
	struct spa_source *camera_source;
	bool camera_streaming;

	/* Each camera buffer's DMA-BUF, its PipeWire buffer once added, whether
	 * PipeWire handed that buffer to us (free to carry a frame), and the
	 * frame it carries while PipeWire has it. */
	int fds[LLMEM_CAMERA_MAX_BUFFERS];
	struct pw_buffer *buffers[LLMEM_CAMERA_MAX_BUFFERS];
	bool ours[LLMEM_CAMERA_MAX_BUFFERS];
	bool carrying[LLMEM_CAMERA_MAX_BUFFERS];
	struct llmem_camera_frame frames[LLMEM_CAMERA_MAX_BUFFERS];
	/* The size every buffer offers, the smallest of the frames' DMA-BUFs:
	 * a consumer that maps buffers wants one size for all. */
	uint64_t maxsize;

	struct llmem_pipewire_source_info info;
	/* A camera error the caller has not been told of yet. */
	int camera_error;
};

static uint32_t spa_format_of(uint32_t drm_fourcc)
{
	switch (drm_fourcc) {
	case DRM_FORMAT_YUYV:
		return SPA_VIDEO_FORMAT_YUY2;
	case DRM_FORMAT_NV12:
		return SPA_VIDEO_FORMAT_NV12;
	/* DRM names packed formats by the word, PipeWire by the bytes. */
	case DRM_FORMAT_BGR888:
		return SPA_VIDEO_FORMAT_RGB;
	case DRM_FORMAT_RGB888:
		return SPA_VIDEO_FORMAT_BGR;
	default:
		return SPA_VIDEO_FORMAT_UNKNOWN;
	}
}

static void fail(struct llmem_pipewire_source *s, const char *why)
{
	s->info.state = LLMEM_PIPEWIRE_FAILED;
	snprintf(s->info.error, sizeof(s->info.error), "%s", why);
}

static void camera_failed(struct llmem_pipewire_source *s, int err)
{
	if (err && !s->camera_error)
		s->camera_error = err;
}

/*
 * One EnumFormat: the camera's format and size, with @modifier flagged
 * MANDATORY (a consumer of DMA-BUFs must name it), or with no modifier for
 * DRM_FORMAT_MOD_INVALID (shared memory).  The one modifier is fixed from
 * the start: PipeWire's fixation round (DONT_FIXATE, then the producer's
 * pick) is for a producer choosing among several, and a consumer that takes
 * the first format it is given as final (gst's pipewiresrc on GStreamer
 * 1.22) fails on the open one when it comes before the fixed one.
 */
static const struct spa_pod *format_pod(struct llmem_pipewire_source *s, struct spa_pod_builder *b,
					uint64_t modifier)
{
	struct spa_pod_frame object;

	spa_pod_builder_push_object(b, &object, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
	spa_pod_builder_add(b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
			    SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
			    SPA_FORMAT_VIDEO_format, SPA_POD_Id(s->spa_format), 0);
	if (modifier != DRM_FORMAT_MOD_INVALID) {
		spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY);
		spa_pod_builder_long(b, (int64_t)modifier);
	}
	spa_pod_builder_add(
		b, SPA_FORMAT_VIDEO_size,
		SPA_POD_Rectangle(&SPA_RECTANGLE(s->cam.layout.width, s->cam.layout.height)),
		SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&SPA_FRACTION(0, 1)), 0);
	return spa_pod_builder_pop(b, &object);
}

/* The formats offered: DMA-BUF, linear (all a camera writes), then shared
 * memory. */
static uint32_t format_pods(struct llmem_pipewire_source *s, struct spa_pod_builder *b,
			    const struct spa_pod **pods)
{
	pods[0] = format_pod(s, b, DRM_FORMAT_MOD_LINEAR);
	pods[1] = format_pod(s, b, DRM_FORMAT_MOD_INVALID);
	return 2;
}

static uint32_t plane_size(const struct llmem_frame_layout *l, uint32_t p)
{
	return (uint32_t)((p + 1 < l->num_planes ? l->offset[p + 1] : l->size) - l->offset[p]);
}

/* The buffers for the format agreed: one a camera buffer, its planes in the
 * buffer's one DMA-BUF, as DmaBuf or MemFd. */
static void agree_buffers(struct llmem_pipewire_source *s, bool dmabuf)
{
	uint8_t bytes[POD_BYTES];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(bytes, sizeof(bytes));
	const struct spa_pod *params[2];
	int32_t count = (int32_t)s->cam.buffers;

	s->info.dmabuf = dmabuf;
	/* Up to one PipeWire buffer a camera buffer: a consumer that takes
	 * fewer gets fewer, and the frames of the others are dropped. */
	params[0] = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
		SPA_POD_CHOICE_RANGE_Int(count, 1, count), SPA_PARAM_BUFFERS_blocks,
		SPA_POD_Int((int32_t)s->cam.layout.num_planes), SPA_PARAM_BUFFERS_size,
		SPA_POD_Int((int32_t)plane_size(&s->cam.layout, 0)), SPA_PARAM_BUFFERS_stride,
		SPA_POD_Int((int32_t)s->cam.layout.pitch[0]), SPA_PARAM_BUFFERS_dataType,
		SPA_POD_CHOICE_FLAGS_Int(1 << (dmabuf ? SPA_DATA_DmaBuf : SPA_DATA_MemFd)));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
					       SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
					       SPA_PARAM_META_size,
					       SPA_POD_Int(sizeof(struct spa_meta_header)));
	pw_stream_update_params(s->stream, params, 2);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct llmem_pipewire_source *s = data;
	const struct spa_pod_prop *modifier;
	const struct spa_pod *value;
	uint64_t fixed = DRM_FORMAT_MOD_LINEAR;
	uint32_t n, choice;

	if (id != SPA_PARAM_Format)
		return;
	s->info.dmabuf = 0;
	s->info.modifier = 0;
	if (!param)
		return;
	modifier = spa_pod_find_prop(param, NULL, SPA_FORMAT_VIDEO_modifier);
	if (!modifier) {
		agree_buffers(s, false);
		return;
	}
	/* A value, or a choice of one where the consumer offered a choice. */
	value = spa_pod_get_values(&modifier->value, &n, &choice);
	if (!n || spa_pod_get_long(value, (int64_t *)&fixed) || fixed != DRM_FORMAT_MOD_LINEAR) {
		fail(s, "the consumer agreed to a modifier other than linear");
		pw_stream_set_error(s->stream, -EINVAL, "llmem: frames are linear only");
		return;
	}
	s->info.modifier = fixed;
	agree_buffers(s, true);
}

/* The first camera buffer without a PipeWire buffer. */
static uint32_t free_slot(const struct llmem_pipewire_source *s)
{
	uint32_t i = 0;

	while (i < s->cam.buffers && s->buffers[i])
		i++;
	return i;
}

/* Where the frame lies in the buffer, and whether it is whole. */
static void describe_chunks(struct llmem_pipewire_source *s, struct spa_buffer *buf, bool corrupted)
{
	for (uint32_t p = 0; p < buf->n_datas; p++) {
		struct spa_chunk *c = buf->datas[p].chunk;

		c->offset = (uint32_t)s->cam.layout.offset[p];
		c->stride = (int32_t)s->cam.layout.pitch[p];
		c->size = plane_size(&s->cam.layout, p);
		c->flags = corrupted ? SPA_CHUNK_FLAG_CORRUPTED : 0;
	}
}

static void on_add_buffer(void *data, struct pw_buffer *pwb)
{
	struct llmem_pipewire_source *s = data;
	struct spa_buffer *buf = pwb->buffer;
	uint32_t type = s->info.dmabuf ? SPA_DATA_DmaBuf : SPA_DATA_MemFd;
	uint32_t i = free_slot(s);

	if (i >= s->cam.buffers || buf->n_datas != s->cam.layout.num_planes) {
		fail(s, "PipeWire asked for buffers other than the camera's");
		pw_stream_set_error(s->stream, -EINVAL, "llmem: buffers other than the camera's");
		return;
	}
	for (uint32_t p = 0; p < buf->n_datas; p++) {
		struct spa_data *d = &buf->datas[p];

		if (!(d->type & (1u << type))) {
			fail(s, "PipeWire took neither DmaBuf nor MemFd for the camera's buffers");
			pw_stream_set_error(s->stream, -EINVAL, "llmem: buffers not shareable");
			return;
		}
		d->type = type;
		d->fd = s->fds[i];
		d->mapoffset = 0;
		d->maxsize = (uint32_t)s->maxsize;
		d->data = NULL;
		d->flags = SPA_DATA_FLAG_READABLE;
#ifdef SPA_DATA_FLAG_MAPPABLE
		if (type == SPA_DATA_MemFd)
			d->flags |= SPA_DATA_FLAG_MAPPABLE;
#endif
	}
	describe_chunks(s, buf, false);
	pwb->user_data = (void *)(uintptr_t)i;
	s->buffers[i] = pwb;
	s->ours[i] = false;
	s->info.buffers++;
}

static void give_back(struct llmem_pipewire_source *s, uint32_t i)
{
	if (!s->carrying[i])
		return;
	camera_failed(s, llmem_camera_release(s->camera, &s->frames[i]));
	s->carrying[i] = false;
}

static void on_remove_buffer(void *data, struct pw_buffer *pwb)
{
	struct llmem_pipewire_source *s = data;
	uint32_t i = (uint32_t)(uintptr_t)pwb->user_data;

	if (i >= s->cam.buffers || s->buffers[i] != pwb)
		return;
	give_back(s, i);
	s->buffers[i] = NULL;
	s->ours[i] = false;
	s->info.buffers--;
}

/* Waits on the camera's fd, or stops waiting while every frame it may
 * hand out is held (it stays readable, and the loop would spin). */
static void wait_for_camera(struct llmem_pipewire_source *s, bool wait)
{
	if (s->camera_source)
		pw_loop_update_io(s->loop, s->camera_source, wait ? SPA_IO_IN | SPA_IO_ERR : 0);
}

/* The buffers PipeWire handed back: their frames go back to the camera. */
static void take_back_buffers(struct llmem_pipewire_source *s)
{
	struct pw_buffer *pwb;
	bool any = false;

	while ((pwb = pw_stream_dequeue_buffer(s->stream))) {
		uint32_t i = (uint32_t)(uintptr_t)pwb->user_data;

		if (i >= s->cam.buffers)
			continue;
		s->ours[i] = true;
		give_back(s, i);
		any = true;
	}
	if (any && s->camera_streaming)
		wait_for_camera(s, true);
}

static void on_process(void *data)
{
	take_back_buffers(data);
}

/* The newest frame the camera wrote, into its PipeWire buffer; older ones
 * waiting, and any whose buffer PipeWire has not handed back, go back to
 * the camera unsent. */
static void on_camera(void *data, int fd, uint32_t mask)
{
	struct llmem_pipewire_source *s = data;
	struct llmem_camera_frame f, newest;
	bool have = false;
	int ret;

	(void)fd;
	take_back_buffers(s);
	while (!(ret = llmem_camera_next(s->camera, 0, &f))) {
		if (have) {
			camera_failed(s, llmem_camera_release(s->camera, &newest));
			s->info.frames_dropped++;
		}
		newest = f;
		have = true;
	}
	if (ret == -EBUSY)
		wait_for_camera(s, false);
	else if (ret != -ETIMEDOUT)
		camera_failed(s, ret);
	if (!have) {
		/* A stopped or vanished device polls as an error, not a frame. */
		if ((mask & SPA_IO_ERR) && ret == -ETIMEDOUT)
			wait_for_camera(s, false);
		return;
	}

	struct pw_buffer *pwb = newest.index < s->cam.buffers ? s->buffers[newest.index] : NULL;
	struct spa_meta_header *h;

	if (s->info.state != LLMEM_PIPEWIRE_STREAMING || !pwb || !s->ours[newest.index]) {
		camera_failed(s, llmem_camera_release(s->camera, &newest));
		s->info.frames_dropped++;
		return;
	}
	describe_chunks(s, pwb->buffer, newest.corrupted);
	h = spa_buffer_find_meta_data(pwb->buffer, SPA_META_Header, sizeof(*h));
	if (h) {
		h->pts = (int64_t)newest.timestamp_ns;
		h->seq = newest.sequence;
		h->flags = newest.corrupted ? SPA_META_HEADER_FLAG_CORRUPTED : 0;
		h->offset = 0;
		h->dts_offset = 0;
	}
	s->frames[newest.index] = newest;
	s->carrying[newest.index] = true;
	s->ours[newest.index] = false;
	ret = pw_stream_queue_buffer(s->stream, pwb);
	if (!ret)
		ret = pw_stream_trigger_process(s->stream);
	if (ret < 0)
		camera_failed(s, llmem_error(ret, "pipewire: queueing frame %u: %s",
					     newest.sequence, strerror(-ret)));
	else
		s->info.frames_queued++;
}

static void start_camera(struct llmem_pipewire_source *s)
{
	int ret;

	/* One cycle before the first frame: queueing before any trigger runs
	 * PipeWire's older path, which would run a cycle of its own. */
	pw_stream_trigger_process(s->stream);
	ret = llmem_camera_start(s->camera);
	if (ret) {
		camera_failed(s, ret);
		return;
	}
	s->camera_streaming = true;
	s->camera_source = pw_loop_add_io(s->loop, llmem_camera_fd(s->camera),
					  SPA_IO_IN | SPA_IO_ERR, false, on_camera, s);
	if (!s->camera_source)
		camera_failed(s,
			      llmem_error(-ENOMEM, "pipewire: the camera's fd in PipeWire's loop"));
	s->info.state = LLMEM_PIPEWIRE_STREAMING;
}

static void stop_camera(struct llmem_pipewire_source *s)
{
	if (s->camera_source) {
		pw_loop_destroy_source(s->loop, s->camera_source);
		s->camera_source = NULL;
	}
	if (!s->camera_streaming)
		return;
	/* What PipeWire still queues goes back to us first: the camera must
	 * not write into a frame a consumer could still be handed. */
	pw_stream_flush(s->stream, false);
	camera_failed(s, llmem_camera_stop(s->camera));
	s->camera_streaming = false;
	memset(s->carrying, 0, sizeof(s->carrying));
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state,
			     const char *error)
{
	struct llmem_pipewire_source *s = data;

	(void)old;
	s->info.node_id = pw_stream_get_node_id(s->stream);
	if (state == PW_STREAM_STATE_STREAMING) {
		start_camera(s);
		return;
	}
	stop_camera(s);
	if (state == PW_STREAM_STATE_ERROR)
		fail(s, error ? error : "PipeWire's stream failed");
	else if (s->info.state == LLMEM_PIPEWIRE_STREAMING)
		s->info.state = LLMEM_PIPEWIRE_WAITING;
}

static const struct pw_stream_events stream_events = {
	.version = PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.add_buffer = on_add_buffer,
	.remove_buffer = on_remove_buffer,
	.process = on_process,
};

/*
 * Only the daemon's going ends the node: the stream's own errors come as
 * its state, and the others name requests of the link watcher's that came
 * too late (a link destroyed as it was bound), which change nothing.
 */
static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message)
{
	struct llmem_pipewire_source *s = data;

	(void)seq;
	(void)message;
	if (id == PW_ID_CORE && res == -EPIPE)
		fail(s, "the PipeWire daemon went away");
}

static const struct pw_core_events core_events = {
	.version = PW_VERSION_CORE_EVENTS,
	.error = on_core_error,
};

static int check_camera(struct llmem_pipewire_source *s)
{
	int ret = llmem_camera_get_info(s->camera, &s->cam);

	if (ret)
		return ret;
	if (s->cam.flags & LLMEM_CAMERA_COPY)
		return llmem_error(-EINVAL,
				   "pipewire: %s is on the copy path: its frames are "
				   "the driver's, not llmem's to share",
				   s->cam.device);
	if (!(s->cam.flags & LLMEM_CAMERA_CONVERT_LATER))
		return llmem_error(-EINVAL,
				   "pipewire: open %s with LLMEM_CAMERA_CONVERT_LATER: "
				   "the frames go as captured",
				   s->cam.device);
	if (s->cam.max_held < 2)
		return llmem_error(-EINVAL,
				   "pipewire: %s holds %u frame at a time; the node "
				   "needs 2 at least (create_info.max_held): PipeWire hands "
				   "a buffer back a cycle after the next",
				   s->cam.device, s->cam.max_held);
	if (s->cam.format.mem_planes > 1)
		return llmem_error(-ENOTSUP,
				   "pipewire: %s's frames are %u buffers each; "
				   "one a frame only",
				   s->cam.device, s->cam.format.mem_planes);
	s->spa_format = spa_format_of(s->cam.layout.fourcc);
	if (s->spa_format == SPA_VIDEO_FORMAT_UNKNOWN)
		return llmem_error(-ENOTSUP, "pipewire: no PipeWire name for %s's format %.4s",
				   s->cam.device, (const char *)&s->cam.layout.fourcc);
	s->maxsize = UINT32_MAX;
	for (uint32_t i = 0; i < s->cam.buffers; i++) {
		off_t end;

		ret = llmem_camera_export(s->camera, i, &s->fds[i]);
		if (ret)
			return ret;
		end = lseek(s->fds[i], 0, SEEK_END);
		if (end < 0)
			return llmem_error(-errno, "pipewire: the size of %s's buffer %u: %s",
					   s->cam.device, i, strerror(errno));
		if ((uint64_t)end < s->cam.layout.size)
			return llmem_error(-EINVAL,
					   "pipewire: %s's buffer %u is %lld bytes, "
					   "smaller than its frame",
					   s->cam.device, i, (long long)end);
		if ((uint64_t)end < s->maxsize)
			s->maxsize = (uint64_t)end;
	}
	return 0;
}

/* An error of PipeWire's constructors, which set errno. */
static int pw_failed(const char *call)
{
	int err = errno ? errno : ENOMEM;

	return llmem_error(-err, "pipewire: %s: %s", call, strerror(err));
}

static int connect_node(struct llmem_pipewire_source *s,
			const struct llmem_pipewire_source_create_info *ci)
{
	uint8_t bytes[POD_BYTES];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(bytes, sizeof(bytes));
	const struct spa_pod *pods[2];
	const char *name = ci->name ? ci->name : DEFAULT_NAME;
	struct pw_properties *props;
	int ret;

	s->loop = pw_loop_new(NULL);
	if (!s->loop)
		return pw_failed("pw_loop_new");
	pw_loop_enter(s->loop);
	s->context = pw_context_new(s->loop, NULL, 0);
	if (!s->context)
		return pw_failed("pw_context_new");
	props = ci->remote ? pw_properties_new(PW_KEY_REMOTE_NAME, ci->remote, NULL) : NULL;
	errno = 0;
	s->core = pw_context_connect(s->context, props, 0);
	if (!s->core) {
		int err = errno ? errno : ECONNREFUSED;

		return llmem_error(-err, "pipewire: no daemon answers at %s: %s",
				   ci->remote ? ci->remote : "PipeWire's default socket",
				   strerror(err));
	}
	pw_core_add_listener(s->core, &s->core_listener, &core_events, s);
	ret = llmem_pipewire_links_watch(&s->links, s->core, &s->info.node_id);
	if (ret)
		return ret;
	props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
				  PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_MEDIA_ROLE, "Camera",
				  PW_KEY_NODE_NAME, name, PW_KEY_NODE_DESCRIPTION,
				  ci->description ? ci->description : s->cam.device, NULL);
	if (!props)
		return llmem_error(-ENOMEM, "pipewire: out of memory");
	s->stream = pw_stream_new(s->core, name, props);
	if (!s->stream)
		return pw_failed("pw_stream_new");
	pw_stream_add_listener(s->stream, &s->stream_listener, &stream_events, s);
	ret = pw_stream_connect(s->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
				PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS, pods,
				format_pods(s, &b, pods));
	if (ret < 0)
		return llmem_error(ret, "pipewire: pw_stream_connect: %s", strerror(-ret));
	return 0;
}

LLMEM_PUBLIC int llmem_pipewire_source_create(struct llmem_camera *camera,
					      const struct llmem_pipewire_source_create_info *info,
					      struct llmem_pipewire_source **out)
{
	static const struct llmem_pipewire_source_create_info defaults;
	struct llmem_pipewire_source *s;
	int ret;

	if (!camera || !out)
		return llmem_error(-EINVAL, "pipewire: NULL %s", camera ? "out" : "camera");
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return llmem_error(-ENOMEM, "pipewire: out of memory");
	s->camera = camera;
	s->info.node_id = UINT32_MAX;
	for (int i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		s->fds[i] = -1;
	/* Counted: llmem_pipewire_source_destroy() undoes it. */
	pw_init(NULL, NULL);
	ret = check_camera(s);
	if (!ret)
		ret = connect_node(s, info ? info : &defaults);
	if (ret) {
		llmem_pipewire_source_destroy(s);
		return ret;
	}
	*out = s;
	return 0;
}

LLMEM_PUBLIC void llmem_pipewire_source_destroy(struct llmem_pipewire_source *s)
{
	if (!s)
		return;
	if (s->stream) {
		stop_camera(s);
		pw_stream_destroy(s->stream);
	}
	llmem_pipewire_links_unwatch(&s->links);
	if (s->core) {
		spa_hook_remove(&s->core_listener);
		pw_core_disconnect(s->core);
	}
	if (s->context)
		pw_context_destroy(s->context);
	if (s->loop) {
		pw_loop_leave(s->loop);
		pw_loop_destroy(s->loop);
	}
	for (int i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	pw_deinit();
	free(s);
}

LLMEM_PUBLIC int llmem_pipewire_source_fd(const struct llmem_pipewire_source *s)
{
	if (!s)
		return llmem_error(-EINVAL, "pipewire: NULL source");
	return pw_loop_get_fd(s->loop);
}

LLMEM_PUBLIC int llmem_pipewire_source_iterate(struct llmem_pipewire_source *s, int timeout_ms)
{
	int ret;

	if (!s)
		return llmem_error(-EINVAL, "pipewire: NULL source");
	ret = pw_loop_iterate(s->loop, timeout_ms);
	take_back_buffers(s);
	if (ret < 0 && ret != -EINTR)
		return llmem_error(ret, "pipewire: the loop: %s", strerror(-ret));
	if (s->info.state == LLMEM_PIPEWIRE_FAILED)
		return llmem_error(-EIO, "pipewire: %s", s->info.error);
	if (s->camera_error) {
		ret = s->camera_error;
		s->camera_error = 0;
		return ret;
	}
	return 0;
}

LLMEM_PUBLIC int llmem_pipewire_source_get_info(const struct llmem_pipewire_source *s,
						struct llmem_pipewire_source_info *info)
{
	if (!s || !info)
		return llmem_error(-EINVAL, "pipewire: NULL %s", s ? "info" : "source");
	*info = s->info;
	info->links_failed = s->links.failed;
	info->failed_consumer = s->links.failed ? s->links.failed_consumer : UINT32_MAX;
	snprintf(info->link_error, sizeof(info->link_error), "%s", s->links.error);
	return 0;
}
