// SPDX-License-Identifier: MIT
/*
 * Frames in flight (GstLlmemTransform) in llmemconvert and llmemfilter,
 * driven by GstHarness from the test's thread, so that every push returns
 * only after the element is done with it: N frames in give N out in order,
 * with their timestamps and metadata, and never more than frames-in-flight
 * of them held; upstream's frames stay referenced until their work is done;
 * EOS pushes what is pending before it, a flush drops it, new caps come
 * after the frames of the old ones; a failed frame ends the stream with an
 * error and lets go of every buffer; upstream's pool gets its frames back;
 * the latency query counts the frames a frame may wait for.
 *
 * Frame i is grey level 16 + 4 i (YUY2 to llmemconvert, RGBA bytes to
 * llmemfilter's XOR kernel), so that the output says which frame it is.
 */
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "kselftest_harness.h"
#include "gst_test.h"

#define FRAMES 12
#define MASK 0x00ffffffu
#define FPS 30
#define FRAME_NS (GST_SECOND / FPS)

FIXTURE(stream)
{
	GstHarness *h;
	GstBufferPool *pool;
	GstCaps *caps;
	/* What the element pushed, in order: b a buffer, C caps, E EOS. */
	GString *order;
	/* The first frame since the last flush; frames pushed and pulled
	 * since; the last output's grey level. */
	guint base, pushed, pulled;
	gint last_grey;
	/* The frame pushed with DISCONT; the frames that came out with it. */
	guint discont_at;
	guint64 discont_out;
	/* Upstream's frames, referenced by the test too (not in place). */
	GstBuffer *kept[2 * FRAMES];
	GHashTable *out_memories;
};

FIXTURE_VARIANT(stream)
{
	const char *element;
	guint in_flight;
	gboolean in_place;
};

FIXTURE_VARIANT_ADD(stream, convert_0){ .element = "llmemconvert", .in_flight = 0 };
FIXTURE_VARIANT_ADD(stream, convert_1){ .element = "llmemconvert", .in_flight = 1 };
FIXTURE_VARIANT_ADD(stream, convert_2){ .element = "llmemconvert", .in_flight = 2 };
FIXTURE_VARIANT_ADD(stream, convert_3){ .element = "llmemconvert", .in_flight = 3 };
FIXTURE_VARIANT_ADD(stream, convert_4){ .element = "llmemconvert", .in_flight = 4 };
FIXTURE_VARIANT_ADD(stream, filter_1){ .element = "llmemfilter", .in_flight = 1 };
FIXTURE_VARIANT_ADD(stream, filter_3){ .element = "llmemfilter", .in_flight = 3 };
FIXTURE_VARIANT_ADD(stream, filter_in_place_2){ .element = "llmemfilter",
						.in_flight = 2,
						.in_place = TRUE };

static gboolean is_convert(const FIXTURE_VARIANT(stream) * variant)
{
	return !strcmp(variant->element, "llmemconvert");
}

static GstPadProbeReturn record(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GString *order = data;

	(void)pad;
	if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER)
		g_string_append_c(order, 'b');
	else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_CAPS)
		g_string_append_c(order, 'C');
	else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS)
		g_string_append_c(order, 'E');
	return GST_PAD_PROBE_OK;
}

/* Input caps of @width x @height; llmemconvert turns YUY2 into BGRx,
 * llmemfilter keeps RGBA. */
static GstCaps *input_caps(const FIXTURE_VARIANT(stream) * variant, int width, int height)
{
	return gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
				   is_convert(variant) ? "YUY2" : "RGBA", "width", G_TYPE_INT,
				   width, "height", G_TYPE_INT, height, "framerate",
				   GST_TYPE_FRACTION, FPS, 1, NULL);
}

/* The pool the element proposes for @caps, configured for at most @max
 * frames (0: no bound) and active; NULL when it proposes none. */
static GstBufferPool *proposed_pool(GstHarness *h, GstCaps *caps, guint max)
{
	GstQuery *query = gst_query_new_allocation(caps, TRUE);
	GstBufferPool *pool = NULL;
	GstStructure *config;
	guint size, min;

	if (gst_pad_peer_query(h->srcpad, query) && gst_query_get_n_allocation_pools(query))
		gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, NULL);
	gst_query_unref(query);
	if (!pool)
		return NULL;
	config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, size, max ? 1 : min, max);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE))
		gst_clear_object(&pool);
	return pool;
}

/* Caps @caps from now on, with frames of the pool proposed for them. */
static int set_caps(FIXTURE_DATA(stream) * self, GstCaps *caps, guint max)
{
	if (self->pool) {
		gst_buffer_pool_set_active(self->pool, FALSE);
		gst_clear_object(&self->pool);
	}
	gst_caps_replace(&self->caps, caps);
	gst_harness_set_src_caps(self->h, gst_caps_ref(caps));
	self->pool = proposed_pool(self->h, caps, max);
	return self->pool ? 0 : -1;
}

FIXTURE_SETUP(stream)
{
	GstElement *element;
	GstPad *src;

	ASSERT_EQ(gst_test_init(), 0);
	element = gst_element_factory_make(variant->element, NULL);
	ASSERT_NE(element, NULL);
	g_object_set(element, "frames-in-flight", variant->in_flight, NULL);
	if (!is_convert(variant))
		g_object_set(element, "kernel", GST_XOR_SPV, "push-constants", "0x00ffffff",
			     "in-place", variant->in_place, NULL);
	self->h = gst_harness_new_with_element(element, "sink", "src");
	gst_object_unref(element);
	gst_harness_set_sink_caps_str(self->h, is_convert(variant) ? "video/x-raw,format=BGRx"
								   : "video/x-raw,format=RGBA");
	self->order = g_string_new(NULL);
	src = gst_element_get_static_pad(self->h->element, "src");
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
			  record, self->order, NULL);
	gst_object_unref(src);
	self->out_memories = g_hash_table_new(NULL, NULL);
	self->last_grey = -1;
	self->discont_at = G_MAXUINT;
}

FIXTURE_TEARDOWN(stream)
{
	gint64 messages = -1;

	for (guint i = 0; i < G_N_ELEMENTS(self->kept); i++)
		gst_clear_buffer(&self->kept[i]);
	g_object_get(self->h->element, "validation-messages", &messages, NULL);
	EXPECT_EQ(messages, 0);
	gst_harness_teardown(self->h);
	if (self->pool) {
		gst_buffer_pool_set_active(self->pool, FALSE);
		gst_object_unref(self->pool);
	}
	gst_clear_caps(&self->caps);
	g_string_free(self->order, TRUE);
	g_hash_table_unref(self->out_memories);
	EXPECT_EQ(gst_test_end(), 0);
}

static guint8 grey_of(guint i)
{
	return 16 + 4 * i;
}

/* Frame @i of the pool: its grey, timestamps and a reference timestamp
 * meta; the test keeps a reference to it in @keep. */
static GstBuffer *frame(struct __test_metadata *_metadata, FIXTURE_DATA(stream) * self,
			const FIXTURE_VARIANT(stream) * variant, guint i, gboolean keep)
{
	GstBufferPoolAcquireParams dontwait = { .flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
	GstCaps *reference = gst_caps_new_empty_simple("timestamp/x-llmem-test");
	GstBuffer *buf = NULL;
	GstMapInfo map;

	/* A pool with a bound has a frame free: the element holds no more
	 * than frames-in-flight of upstream's. */
	if (gst_buffer_pool_acquire_buffer(self->pool, &buf, &dontwait) != GST_FLOW_OK) {
		TH_LOG("no free frame in upstream's pool for frame %u", i);
		gst_caps_unref(reference);
		return NULL;
	}
	if (!gst_buffer_map(buf, &map, GST_MAP_WRITE)) {
		gst_caps_unref(reference);
		gst_buffer_unref(buf);
		return NULL;
	}
	if (is_convert(variant)) {
		for (gsize b = 0; b + 4 <= map.size; b += 4)
			memcpy(map.data + b, (guint8[]){ grey_of(i), 128, grey_of(i), 128 }, 4);
	} else {
		memset(map.data, grey_of(i), map.size);
	}
	gst_buffer_unmap(buf, &map);
	GST_BUFFER_PTS(buf) = i * FRAME_NS;
	GST_BUFFER_DTS(buf) = i * FRAME_NS;
	GST_BUFFER_DURATION(buf) = FRAME_NS;
	GST_BUFFER_OFFSET(buf) = i;
	GST_BUFFER_OFFSET_END(buf) = i + 1;
	if (i == self->discont_at)
		GST_BUFFER_FLAG_SET(buf, GST_BUFFER_FLAG_DISCONT);
	gst_buffer_add_reference_timestamp_meta(buf, reference, 1000 + i, GST_CLOCK_TIME_NONE);
	gst_caps_unref(reference);
	if (keep)
		self->kept[i] = gst_buffer_ref(buf);
	return buf;
}

/* Output frame @i: its timestamps, its meta, its pixel 0. */
static void check_output(struct __test_metadata *_metadata, FIXTURE_DATA(stream) * self,
			 const FIXTURE_VARIANT(stream) * variant, GstBuffer *out, guint i)
{
	GstReferenceTimestampMeta *meta = gst_buffer_get_reference_timestamp_meta(out, NULL);
	GstVideoMeta *vmeta = gst_buffer_get_video_meta(out);
	GstMapInfo map;
	guint32 px;

	EXPECT_EQ(GST_BUFFER_PTS(out), i * FRAME_NS);
	EXPECT_EQ(GST_BUFFER_DTS(out), i * FRAME_NS);
	EXPECT_EQ(GST_BUFFER_DURATION(out), FRAME_NS);
	EXPECT_EQ(GST_BUFFER_OFFSET(out), i);
	EXPECT_EQ(GST_BUFFER_OFFSET_END(out), i + 1);
	ASSERT_NE(meta, NULL);
	EXPECT_EQ(meta->timestamp, 1000 + i);
	ASSERT_TRUE(gst_buffer_map(out, &map, GST_MAP_READ));
	memcpy(&px, map.data + (vmeta ? vmeta->offset[0] : 0), 4);
	gst_buffer_unmap(out, &map);
	if (is_convert(variant)) {
		/* BGRx of a grey YUV frame: B = G = R, brighter each frame. */
		guint8 b = px & 0xff, g = (px >> 8) & 0xff, r = (px >> 16) & 0xff;

		EXPECT_EQ(b, r);
		EXPECT_EQ(g, r);
		EXPECT_GT((gint)r, self->last_grey);
		self->last_grey = r;
	} else {
		EXPECT_EQ(px, (grey_of(i) * 0x01010101u) ^ MASK);
	}
}

/* Takes what the element pushed so far, checking each output against the
 * next frame expected. */
static void pull(struct __test_metadata *_metadata, FIXTURE_DATA(stream) * self,
		 const FIXTURE_VARIANT(stream) * variant)
{
	GstBuffer *out;

	while ((out = gst_harness_try_pull(self->h))) {
		check_output(_metadata, self, variant, out, self->base + self->pulled);
		g_hash_table_add(self->out_memories, gst_buffer_peek_memory(out, 0));
		if (GST_BUFFER_IS_DISCONT(out))
			self->discont_out |= 1ull << (self->base + self->pulled);
		self->pulled++;
		gst_buffer_unref(out);
	}
}

/* The next @n frames pushed one by one, each checked as it comes out;
 * after each push no more than frames-in-flight are pending, and (@keep,
 * not in place) upstream's frame is referenced by the element exactly
 * while its output has not come. */
static void push_frames(struct __test_metadata *_metadata, FIXTURE_DATA(stream) * self,
			const FIXTURE_VARIANT(stream) * variant, guint n, gboolean keep)
{
	keep = keep && !variant->in_place;
	for (guint k = 0; k < n; k++) {
		guint i = self->base + self->pushed;
		GstBuffer *buf = frame(_metadata, self, variant, i, keep);

		ASSERT_NE(buf, NULL);
		ASSERT_EQ(gst_harness_push(self->h, buf), GST_FLOW_OK);
		self->pushed++;
		pull(_metadata, self, variant);
		ASSERT_LE(self->pushed - self->pulled, variant->in_flight);
		for (guint j = self->base; keep && j <= i; j++)
			EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(self->kept[j]),
				  j - self->base < self->pulled ? 1 : 2);
	}
}

/* N frames in, N out in order with their timestamps and meta; EOS pushes
 * the frames still in flight before it. */
TEST_F(stream, order_count_and_eos)
{
	GstCaps *caps = input_caps(variant, 320, 240);

	ASSERT_EQ(set_caps(self, caps, 0), 0);
	gst_caps_unref(caps);
	push_frames(_metadata, self, variant, FRAMES, TRUE);
	TH_LOG("%u frames in flight at EOS", self->pushed - self->pulled);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_eos()));
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, FRAMES);
	EXPECT_STREQ(self->order->str, "Cbbbbbbbbbbbb"
				       "E");
	for (guint j = 0; !variant->in_place && j < FRAMES; j++)
		EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(self->kept[j]), 1);
}

/* A flush drops the frames in flight: they never come out, upstream gets
 * them back; the stream goes on after it. */
TEST_F(stream, flush_drops_pending)
{
	GstCaps *caps = input_caps(variant, 320, 240);
	GstSegment segment;
	guint before;

	ASSERT_EQ(set_caps(self, caps, 0), 0);
	gst_caps_unref(caps);
	push_frames(_metadata, self, variant, FRAMES, TRUE);
	before = self->pulled;
	TH_LOG("%u frames in flight at the flush", self->pushed - self->pulled);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_flush_start()));
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_flush_stop(TRUE)));
	EXPECT_EQ(gst_harness_try_pull(self->h), NULL);
	for (guint j = 0; !variant->in_place && j < FRAMES; j++)
		EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(self->kept[j]), 1);

	gst_segment_init(&segment, GST_FORMAT_TIME);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_segment(&segment)));
	self->base = FRAMES;
	self->pushed = self->pulled = 0;
	self->last_grey = -1;
	push_frames(_metadata, self, variant, FRAMES / 2, TRUE);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_eos()));
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, FRAMES / 2);
	EXPECT_EQ(strlen(self->order->str), 1 + before + FRAMES / 2 + 1);
}

/* New caps: the frames of the old caps come out before them, then the new
 * ones. */
TEST_F(stream, caps_change_drains)
{
	GstCaps *caps = input_caps(variant, 320, 240);
	GstCaps *small = input_caps(variant, 160, 120);
	GString *expected = g_string_new("C");

	ASSERT_EQ(set_caps(self, caps, 0), 0);
	push_frames(_metadata, self, variant, FRAMES / 2, TRUE);
	ASSERT_EQ(set_caps(self, small, 0), 0);
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, FRAMES / 2);
	push_frames(_metadata, self, variant, FRAMES / 2, TRUE);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_eos()));
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, FRAMES);
	for (guint i = 0; i < FRAMES / 2; i++)
		g_string_append_c(expected, 'b');
	g_string_append_c(expected, 'C');
	for (guint i = 0; i < FRAMES / 2; i++)
		g_string_append_c(expected, 'b');
	g_string_append_c(expected, 'E');
	EXPECT_STREQ(self->order->str, expected->str);
	g_string_free(expected, TRUE);
	gst_caps_unref(small);
	gst_caps_unref(caps);
}

/* A discontinuity mid-stream is marked on its own frame, not on an older
 * one still in flight when it came. */
TEST_F(stream, discont_marks_its_frame)
{
	GstCaps *caps = input_caps(variant, 320, 240);

	ASSERT_EQ(set_caps(self, caps, 0), 0);
	gst_caps_unref(caps);
	self->discont_at = FRAMES / 2;
	push_frames(_metadata, self, variant, FRAMES, FALSE);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_eos()));
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, FRAMES);
	EXPECT_EQ(self->discont_out, 1ull << (FRAMES / 2));
}

/* Upstream's pool of frames-in-flight + 1 frames always has one free
 * before the next push; the element's own frames come back to its pool
 * (fewer memories than frames). */
TEST_F(stream, pools_recycle)
{
	GstCaps *caps = input_caps(variant, 320, 240);

	ASSERT_EQ(set_caps(self, caps, variant->in_flight + 1), 0);
	gst_caps_unref(caps);
	push_frames(_metadata, self, variant, 2 * FRAMES, FALSE);
	ASSERT_TRUE(gst_harness_push_event(self->h, gst_event_new_eos()));
	pull(_metadata, self, variant);
	EXPECT_EQ(self->pulled, 2 * FRAMES);
	TH_LOG("%u output memories for %u frames", g_hash_table_size(self->out_memories),
	       2 * FRAMES);
	EXPECT_LT(g_hash_table_size(self->out_memories), 2 * FRAMES);
}

/* Live upstream's latency plus one frame duration for each frame a frame
 * may wait for. */
TEST_F(stream, latency)
{
	GstCaps *caps = input_caps(variant, 320, 240);

	ASSERT_EQ(set_caps(self, caps, 0), 0);
	gst_caps_unref(caps);
	gst_harness_set_upstream_latency(self->h, 10 * GST_MSECOND);
	EXPECT_EQ(gst_harness_query_latency(self->h),
		  10 * GST_MSECOND +
			  variant->in_flight * gst_util_uint64_scale_int_ceil(GST_SECOND, 1, FPS));
}

/*
 * A frame whose work fails mid-stream (its GstVideoMeta says a pitch its
 * buffer cannot hold): the element posts llmem's error, a push fails (the
 * frame's or, where the library finds it late, EOS drops the rest), the
 * frames in flight are dropped and every frame of upstream's goes back.
 */
TEST(error_mid_stream)
{
	GstElement *element;
	GstHarness *h;
	GstBufferPool *pool;
	GstBuffer *kept[6];
	GstBus *bus;
	GstMessage *msg;
	GstCaps *caps;
	GError *err = NULL;
	GstFlowReturn flow = GST_FLOW_OK;
	guint pushed = 0;

	ASSERT_EQ(gst_test_init(), 0);
	element = gst_element_factory_make("llmemconvert", NULL);
	ASSERT_NE(element, NULL);
	g_object_set(element, "frames-in-flight", 4, NULL);
	bus = gst_bus_new();
	gst_element_set_bus(element, bus);
	h = gst_harness_new_with_element(element, "sink", "src");
	gst_object_unref(element);
	gst_harness_set_sink_caps_str(h, "video/x-raw,format=BGRx");
	caps = gst_caps_from_string("video/x-raw,format=YUY2,width=320,height=240,framerate=30/1");
	gst_harness_set_src_caps(h, gst_caps_ref(caps));
	pool = proposed_pool(h, caps, 0);
	ASSERT_NE(pool, NULL);
	for (guint i = 0; i < G_N_ELEMENTS(kept); i++) {
		ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &kept[i], NULL), GST_FLOW_OK);
		GST_BUFFER_PTS(kept[i]) = i * FRAME_NS;
		if (i == 3)
			gst_buffer_get_video_meta(kept[i])->stride[0] *= 16;
		if (flow == GST_FLOW_OK) {
			flow = gst_harness_push(h, gst_buffer_ref(kept[i]));
			pushed++;
		}
	}
	gst_harness_push_event(h, gst_event_new_eos());
	TH_LOG("pushes: %u, the last %s; frames out: %u", pushed, gst_flow_get_name(flow),
	       gst_harness_buffers_received(h));
	msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	ASSERT_NE(msg, NULL);
	gst_message_parse_error(msg, &err, NULL);
	TH_LOG("%s: %s", GST_MESSAGE_SRC_NAME(msg), err->message);
	EXPECT_EQ(err->domain, GST_LIBRARY_ERROR);
	EXPECT_LE(gst_harness_buffers_received(h), 3);
	g_error_free(err);
	gst_message_unref(msg);
	for (guint i = 0; i < G_N_ELEMENTS(kept); i++) {
		EXPECT_EQ(GST_MINI_OBJECT_REFCOUNT_VALUE(kept[i]), 1);
		gst_buffer_unref(kept[i]);
	}
	gst_harness_teardown(h);
	gst_buffer_pool_set_active(pool, FALSE);
	gst_object_unref(pool);
	gst_caps_unref(caps);
	gst_object_unref(bus);
	EXPECT_EQ(gst_test_end(), 0);
}

TEST_HARNESS_MAIN
