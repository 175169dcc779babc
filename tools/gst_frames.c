// SPDX-License-Identifier: MIT
/*
 * llmem-gst-frames: a GStreamer source that costs nothing per frame, for
 * llmem bench gst.  A pad of its own, linked to DESCRIPTION's first
 * element, pushes FRAMES frames cycled from BUFFERS frames drawn once,
 * before the first: frames taken from the pool downstream proposes
 * (llmemconvert's llmem frames, which it then reads in place;
 * videoconvert's system memory), so that a frame costs the source one push
 * of a buffer it already holds.  videotestsrc draws every frame, which at
 * 1920x1080 costs more than the conversion measured.  (appsrc would not
 * do: it asks downstream for a pool only after its first buffer.)
 *
 * usage: llmem-gst-frames FRAMES BUFFERS CAPS DESCRIPTION...
 * The words of DESCRIPTION are joined as gst-launch-1.0 joins them.  Exits
 * 0 at the end of the stream, 1 with one line on stderr otherwise.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#define MAX_BUFFERS 16

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "llmem-gst-frames: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || !*s || *s == '-' || !*out || *out > max ? -1 : 0;
}

/* Rows of grey ramps, a different one per buffer: enough to tell frames
 * apart in a picture, drawn once. */
static gboolean draw(GstBuffer *buf, const GstVideoInfo *info, guint index)
{
	GstVideoFrame frame;

	if (!gst_video_frame_map(&frame, info, buf, GST_MAP_WRITE))
		return FALSE;
	for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); p++) {
		guint8 *data = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
		gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
		guint rows = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, p);

		for (guint y = 0; y < rows; y++)
			memset(data + (gsize)y * (gsize)stride, (int)(16 + (y + index * 37) % 220),
			       (gsize)stride);
	}
	gst_video_frame_unmap(&frame);
	return TRUE;
}

/* Downstream's pool for @caps, configured for @n frames; NULL where
 * downstream proposes none (fakesink). */
static GstBufferPool *downstream_pool(GstPad *pad, GstCaps *caps, guint n)
{
	GstQuery *query = gst_query_new_allocation(caps, TRUE);
	GstBufferPool *pool = NULL;
	guint size, min, max;

	if (gst_pad_peer_query(pad, query) && gst_query_get_n_allocation_pools(query) > 0)
		gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
	gst_query_unref(query);
	if (pool) {
		GstStructure *config = gst_buffer_pool_get_config(pool);

		gst_buffer_pool_config_set_params(config, caps, size, MAX(min, n),
						  max ? MAX(max, n) : 0);
		/* A pool may keep the config it came with. */
		gst_buffer_pool_set_config(pool, config);
		if (!gst_buffer_pool_set_active(pool, TRUE))
			gst_clear_object(&pool);
	}
	return pool;
}

/* @n frames to push, drawn; from downstream's pool where it offers one
 * whose frames are whole. */
static gboolean make_frames(GstPad *pad, GstCaps *caps, const GstVideoInfo *info, GstBuffer **bufs,
			    guint n)
{
	GstBufferPool *pool = downstream_pool(pad, caps, n);
	gboolean ok = TRUE;

	for (guint i = 0; i < n && ok; i++) {
		if (pool && gst_buffer_pool_acquire_buffer(pool, &bufs[i], NULL) != GST_FLOW_OK)
			bufs[i] = NULL;
		if (bufs[i] && gst_buffer_get_size(bufs[i]) < info->size)
			gst_clear_buffer(&bufs[i]);
		if (!bufs[i])
			bufs[i] = gst_buffer_new_allocate(NULL, info->size, NULL);
		ok = bufs[i] && draw(bufs[i], info, i);
	}
	if (pool)
		gst_object_unref(pool);
	return ok;
}

struct source {
	GstPad *pad;
	GstCaps *caps;
	GstVideoInfo info;
	unsigned long frames;
	guint n;
	GstBuffer *bufs[MAX_BUFFERS];
	gboolean drawn;
};

/*
 * The source's streaming thread, named as GStreamer names a pad's task
 * ("element:pad"), so that llmem bench gst counts it with the others:
 * the stream's events, the frames drawn, then each frame one push of a
 * buffer held, and the end of the stream.  Downstream runs in this thread
 * as it would in a source's.
 */
static gpointer stream(gpointer data)
{
	struct source *s = data;
	GstSegment segment;

	gst_segment_init(&segment, GST_FORMAT_TIME);
	gst_pad_push_event(s->pad, gst_event_new_stream_start("llmem-gst-frames"));
	gst_pad_push_event(s->pad, gst_event_new_caps(s->caps));
	gst_pad_push_event(s->pad, gst_event_new_segment(&segment));
	s->drawn = make_frames(s->pad, s->caps, &s->info, s->bufs, s->n);
	for (unsigned long i = 0; s->drawn && i < s->frames; i++)
		if (gst_pad_push(s->pad, gst_buffer_ref(s->bufs[i % s->n])) != GST_FLOW_OK)
			break;
	gst_pad_push_event(s->pad, gst_event_new_eos());
	return NULL;
}

/* Until the end of the stream or an error, which is told. */
static int wait_for_end(GstElement *pipeline)
{
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
						     GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	int ret = 0;

	if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
		GError *err = NULL;
		gchar *debug = NULL;

		gst_message_parse_error(msg, &err, &debug);
		ret = fail("%s: %s (%s)", GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), err->message,
			   debug ? debug : "no details");
		g_clear_error(&err);
		g_free(debug);
	}
	gst_message_unref(msg);
	gst_object_unref(bus);
	return ret;
}

static int run(struct source *s, const char *description)
{
	GstElement *pipeline = gst_pipeline_new("llmem-gst-frames");
	GError *err = NULL;
	GstElement *rest = gst_parse_bin_from_description(description, TRUE, &err);
	GstPad *sink;
	GThread *thread;
	int ret;

	if (!rest) {
		ret = fail("%s: %s", description, err ? err->message : "cannot parse");
		g_clear_error(&err);
		gst_object_unref(pipeline);
		return ret;
	}
	gst_bin_add(GST_BIN(pipeline), rest);
	sink = gst_element_get_static_pad(rest, "sink");
	s->pad = gst_pad_new("src", GST_PAD_SRC);
	if (!sink || !gst_pad_set_active(s->pad, TRUE) ||
	    GST_PAD_LINK_FAILED(gst_pad_link(s->pad, sink))) {
		ret = fail("%s takes no frames", description);
	} else if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
		ret = fail("%s does not start", description);
	} else {
		thread = g_thread_new("frames:src", stream, s);
		ret = wait_for_end(pipeline);
		g_thread_join(thread);
		if (!ret && !s->drawn)
			ret = fail("cannot draw the frames");
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	for (guint i = 0; i < s->n; i++)
		gst_clear_buffer(&s->bufs[i]);
	gst_pad_set_active(s->pad, FALSE);
	gst_object_unref(s->pad);
	if (sink)
		gst_object_unref(sink);
	gst_object_unref(pipeline);
	return ret;
}

int main(int argc, char **argv)
{
	struct source s = { 0 };
	unsigned long buffers;
	GString *description;
	int ret;

	gst_init(&argc, &argv);
	if (argc < 5 || parse_count(argv[1], 1000000, &s.frames) ||
	    parse_count(argv[2], MAX_BUFFERS, &buffers))
		return fail("usage: llmem-gst-frames FRAMES BUFFERS(1-%d) CAPS DESCRIPTION...",
			    MAX_BUFFERS);
	s.n = (guint)buffers;
	s.caps = gst_caps_from_string(argv[3]);
	if (!s.caps || !gst_caps_is_fixed(s.caps) || !gst_video_info_from_caps(&s.info, s.caps))
		return fail("%s: not the caps of one raw video format and size", argv[3]);
	description = g_string_new(argv[4]);
	for (int i = 5; i < argc; i++)
		g_string_append_printf(description, " %s", argv[i]);
	ret = run(&s, description->str);
	g_string_free(description, TRUE);
	gst_caps_unref(s.caps);
	/* Everything released, so that a leak checker sees only leaks. */
	gst_deinit();
	return ret;
}
