// SPDX-License-Identifier: MIT
/*
 * A PipeWire video consumer for the PipeWire checks: connects an input
 * stream named NAME, takes DMA-BUFs (dmabuf: YUY2 with the linear modifier
 * left open, MANDATORY and DONT_FIXATE, as compositors and OBS ask), shared
 * memory only (memfd: no modifier, as browsers' libwebrtc asks) or
 * DMA-BUFs of a tiled layout only (tiled: Intel's X-tiling, which no camera
 * writes: nothing in common with a linear producer), and for each of FRAMES
 * buffers prints frame_line.h's line, TYPE "dmabuf" or "memfd" as the buffer
 * came, SEQ from its header meta.  Exits 0 after FRAMES, 2 on a PipeWire
 * error, 3 when the format agreed has no modifier though DMA-BUFs were
 * asked.  Linking is the caller's (pw-link): with no session manager
 * nothing links.
 *
 * usage: pw_consumer NAME dmabuf|memfd|tiled FRAMES
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <drm_fourcc.h>
#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>

#include "frame_line.h"

struct consumer {
	struct pw_main_loop *loop;
	struct pw_stream *stream;
	struct spa_hook listener;
	int dmabuf;
	int frames, seen;
	int status;
	uint32_t width, height;
};

/* @modifier: DRM_FORMAT_MOD_INVALID for none (shared memory). */
static const struct spa_pod *format(struct spa_pod_builder *b, uint64_t modifier)
{
	struct spa_pod_frame object, choice;

	spa_pod_builder_push_object(b, &object, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
	spa_pod_builder_add(b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
			    SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
			    SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_YUY2), 0);
	if (modifier != DRM_FORMAT_MOD_INVALID) {
		spa_pod_builder_prop(b, SPA_FORMAT_VIDEO_modifier,
				     SPA_POD_PROP_FLAG_MANDATORY | SPA_POD_PROP_FLAG_DONT_FIXATE);
		spa_pod_builder_push_choice(b, &choice, SPA_CHOICE_Enum, 0);
		spa_pod_builder_long(b, (int64_t)modifier);
		spa_pod_builder_long(b, (int64_t)modifier);
		spa_pod_builder_pop(b, &choice);
	}
	spa_pod_builder_add(b, SPA_FORMAT_VIDEO_size,
			    SPA_POD_CHOICE_RANGE_Rectangle(&SPA_RECTANGLE(640, 480),
							   &SPA_RECTANGLE(1, 1),
							   &SPA_RECTANGLE(8192, 8192)),
			    SPA_FORMAT_VIDEO_framerate,
			    SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(0, 1), &SPA_FRACTION(0, 1),
							  &SPA_FRACTION(1000, 1)),
			    0);
	return spa_pod_builder_pop(b, &object);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct consumer *c = data;
	struct spa_video_info_raw info = { 0 };
	uint8_t bytes[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(bytes, sizeof(bytes));
	const struct spa_pod *params[2];
	const struct spa_pod_prop *modifier;
	uint32_t types = c->dmabuf ? 1 << SPA_DATA_DmaBuf : 1 << SPA_DATA_MemFd;

	if (id != SPA_PARAM_Format || !param)
		return;
	if (spa_format_video_raw_parse(param, &info) < 0) {
		fprintf(stderr, "pw_consumer: a format it cannot read\n");
		c->status = 2;
		pw_main_loop_quit(c->loop);
		return;
	}
	modifier = spa_pod_find_prop(param, NULL, SPA_FORMAT_VIDEO_modifier);
	if (c->dmabuf && !modifier) {
		fprintf(stderr, "pw_consumer: agreed without a modifier\n");
		c->status = 3;
		pw_main_loop_quit(c->loop);
		return;
	}
	/* Still open: the producer fixates it and offers again. */
	if (modifier && (modifier->flags & SPA_POD_PROP_FLAG_DONT_FIXATE))
		return;
	c->width = info.size.width;
	c->height = info.size.height;
	params[0] = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
		SPA_POD_CHOICE_RANGE_Int(4, 2, 16), SPA_PARAM_BUFFERS_blocks,
		SPA_POD_CHOICE_RANGE_Int(1, 1, 4), SPA_PARAM_BUFFERS_size,
		SPA_POD_CHOICE_RANGE_Int(1, 1, INT32_MAX), SPA_PARAM_BUFFERS_stride,
		SPA_POD_CHOICE_RANGE_Int(0, 0, INT32_MAX), SPA_PARAM_BUFFERS_dataType,
		SPA_POD_CHOICE_FLAGS_Int(types));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
					       SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
					       SPA_PARAM_META_size,
					       SPA_POD_Int(sizeof(struct spa_meta_header)));
	pw_stream_update_params(c->stream, params, 2);
}

static void on_process(void *data)
{
	struct consumer *c = data;
	struct pw_buffer *pwb = pw_stream_dequeue_buffer(c->stream);
	struct spa_data *d;
	struct spa_meta_header *h;
	void *map;

	if (!pwb)
		return;
	d = &pwb->buffer->datas[0];
	h = spa_buffer_find_meta_data(pwb->buffer, SPA_META_Header, sizeof(*h));
	if (!d->chunk->size || d->chunk->stride <= 0 ||
	    (uint64_t)d->chunk->offset + (uint64_t)d->chunk->stride * (c->height - 1) +
			    c->width * 2 >
		    d->maxsize) {
		fprintf(stderr, "pw_consumer: buffer fd %" PRId64 ", chunk size %u\n", d->fd,
			d->chunk->size);
		c->status = 2;
		pw_main_loop_quit(c->loop);
		return;
	}
	map = mmap(NULL, d->maxsize + d->mapoffset, PROT_READ, MAP_SHARED, (int)d->fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "pw_consumer: mmap of the buffer: %s\n", strerror(errno));
		c->status = 2;
		pw_main_loop_quit(c->loop);
		return;
	}
	if (frame_line_print(d->type == SPA_DATA_DmaBuf	 ? "dmabuf"
			     : d->type == SPA_DATA_MemFd ? "memfd"
							 : "other",
			     (int)d->fd, d->chunk->offset, d->chunk->stride, d->chunk->size,
			     (const uint8_t *)map + d->mapoffset + d->chunk->offset, c->width * 2,
			     c->height, h ? (int64_t)h->seq : -1)) {
		fprintf(stderr, "pw_consumer: buffer fd %" PRId64 ": %s\n", d->fd, strerror(errno));
		c->status = 2;
		pw_main_loop_quit(c->loop);
	}
	munmap(map, d->maxsize + d->mapoffset);
	pw_stream_queue_buffer(c->stream, pwb);
	if (++c->seen == c->frames)
		pw_main_loop_quit(c->loop);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state,
			     const char *error)
{
	struct consumer *c = data;

	fprintf(stderr, "pw_consumer: %s -> %s%s%s\n", pw_stream_state_as_string(old),
		pw_stream_state_as_string(state), error ? ": " : "", error ? error : "");
	/* Unconnected before its frames came: the daemon or the link went. */
	if (state == PW_STREAM_STATE_ERROR ||
	    (state == PW_STREAM_STATE_UNCONNECTED && c->seen < c->frames)) {
		fprintf(stderr, "pw_consumer: stream %s: %s\n", pw_stream_state_as_string(state),
			error ? error : "-");
		c->status = 2;
		pw_main_loop_quit(c->loop);
	}
}

static const struct pw_stream_events events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.process = on_process,
};

int main(int argc, char **argv)
{
	struct consumer c = { 0 };
	uint8_t bytes[2048];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(bytes, sizeof(bytes));
	const struct spa_pod *params[2];
	uint32_t n = 0;

	if (argc != 4 ||
	    (strcmp(argv[2], "dmabuf") && strcmp(argv[2], "memfd") && strcmp(argv[2], "tiled"))) {
		fprintf(stderr, "usage: pw_consumer NAME dmabuf|memfd|tiled FRAMES\n");
		return 64;
	}
	c.dmabuf = strcmp(argv[2], "memfd") != 0;
	c.frames = atoi(argv[3]);
	if (c.frames <= 0) {
		fprintf(stderr, "pw_consumer: FRAMES %s: want a count above 0\n", argv[3]);
		return 64;
	}
	pw_init(NULL, NULL);
	c.loop = pw_main_loop_new(NULL);
	if (!c.loop) {
		fprintf(stderr, "pw_consumer: pw_main_loop_new failed\n");
		return 2;
	}
	c.stream = pw_stream_new_simple(pw_main_loop_get_loop(c.loop), argv[1],
					pw_properties_new(PW_KEY_MEDIA_TYPE, "Video",
							  PW_KEY_MEDIA_CATEGORY, "Capture",
							  PW_KEY_NODE_NAME, argv[1], NULL),
					&events, &c);
	if (!c.stream) {
		fprintf(stderr, "pw_consumer: pw_stream_new_simple failed\n");
		return 2;
	}
	params[n++] = format(&b, !strcmp(argv[2], "tiled")    ? I915_FORMAT_MOD_X_TILED
				 : !strcmp(argv[2], "dmabuf") ? DRM_FORMAT_MOD_LINEAR
							      : DRM_FORMAT_MOD_INVALID);
	if (pw_stream_connect(c.stream, PW_DIRECTION_INPUT, PW_ID_ANY, 0, params, n) < 0) {
		fprintf(stderr, "pw_consumer: pw_stream_connect failed\n");
		return 2;
	}
	pw_main_loop_run(c.loop);
	pw_stream_destroy(c.stream);
	pw_main_loop_destroy(c.loop);
	pw_deinit();
	return c.status;
}
