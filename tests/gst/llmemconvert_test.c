// SPDX-License-Identifier: MIT
/*
 * The GStreamer plugin from the build tree: the registry finds it, its
 * pool's frames carry llmem's layout and come back as the same memories,
 * llmemconvert's output equals llmem's own conversion of the same frame
 * pixel for pixel (zero-copy from videotestsrc, copied from appsrc), and
 * every refusal ends the pipeline with an error message.
 *
 * meson.build points GStreamer at build/gst alone, with a registry of the
 * build's own and no scanner process (a sanitized plugin cannot load into
 * the unsanitized gst-plugin-scanner); the few system plugins the
 * pipelines use are loaded by file.
 */
#include <string.h>

#include <drm_fourcc.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "kselftest_harness.h"
#include "gst_test.h"
#include "vk_test.h"

#define WIDTH 320
#define HEIGHT 240

/* The registry knows the plugin from GST_PLUGIN_PATH, and every property
 * of its elements says what it is. */
TEST(registry)
{
	static const char *const elements[] = { "llmemconvert", "llmemfilter" };
	GstPlugin *plugin;

	ASSERT_EQ(gst_test_init(), 0);
	plugin = gst_registry_find_plugin(gst_registry_get(), "llmem");
	ASSERT_NE(plugin, NULL);
	EXPECT_NE(strstr(gst_plugin_get_filename(plugin), "gst"), NULL);
	gst_object_unref(plugin);
	for (size_t e = 0; e < G_N_ELEMENTS(elements); e++) {
		GstElementFactory *factory = gst_element_factory_find(elements[e]);
		GstElement *element;
		GParamSpec **props;
		guint n;

		ASSERT_NE(factory, NULL);
		EXPECT_STREQ(gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory)),
			     "llmem");
		element = gst_element_factory_create(factory, NULL);
		ASSERT_NE(element, NULL);
		props = g_object_class_list_properties(G_OBJECT_GET_CLASS(element), &n);
		for (guint i = 0; i < n; i++)
			EXPECT_GT(strlen(g_param_spec_get_blurb(props[i])), 10);
		EXPECT_NE(g_object_class_find_property(G_OBJECT_GET_CLASS(element), "device"),
			  NULL);
		EXPECT_NE(
			g_object_class_find_property(G_OBJECT_GET_CLASS(element), "frames-copied"),
			NULL);
		g_free(props);
		gst_object_unref(element);
		gst_object_unref(factory);
	}
	EXPECT_EQ(gst_test_end(), 0);
}

FIXTURE(pixels)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_VARIANT(pixels)
{
	const char *in;
	const char *out;
	uint32_t in_fourcc;
	uint32_t out_fourcc;
};

FIXTURE_VARIANT_ADD(pixels, yuy2_bgrx){
	.in = "YUY2",
	.out = "BGRx",
	.in_fourcc = DRM_FORMAT_YUYV,
	.out_fourcc = DRM_FORMAT_XRGB8888,
};

FIXTURE_VARIANT_ADD(pixels, nv12_rgba){
	.in = "NV12",
	.out = "RGBA",
	.in_fourcc = DRM_FORMAT_NV12,
	.out_fourcc = DRM_FORMAT_ABGR8888,
};

FIXTURE_VARIANT_ADD(pixels, nv12_bgrx_bt709){
	.in = "NV12,colorimetry=bt709",
	.out = "BGRx",
	.in_fourcc = DRM_FORMAT_NV12,
	.out_fourcc = DRM_FORMAT_XRGB8888,
};

FIXTURE_SETUP(pixels)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0);
	ASSERT_EQ(gst_test_init(), 0);
}

FIXTURE_TEARDOWN(pixels)
{
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
	EXPECT_EQ(gst_test_end(), 0);
}

/*
 * llmem's conversion of @raw (a frame as videotestsrc made it) into
 * *@ref, laid out as llmem lays out @out_fourcc; the caller frees *@ref.
 */
static int reference(struct __test_metadata *_metadata, struct llmem_memory *m, GstSample *raw,
		     uint32_t in_fourcc, uint32_t out_fourcc, struct llmem_frame_layout *dst_l,
		     uint8_t **ref)
{
	struct llmem_frame_layout src_l;
	struct llmem_buffer *src, *dst;
	GstVideoInfo info;
	GstVideoFrame frame;
	uint8_t *src_map, *dst_map;
	int ret;

	if (!gst_video_info_from_caps(&info, gst_sample_get_caps(raw)) ||
	    llmem_frame_layout_init(in_fourcc, WIDTH, HEIGHT, NULL, &src_l) ||
	    llmem_frame_layout_init(out_fourcc, WIDTH, HEIGHT, NULL, dst_l) ||
	    llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = src_l.size }, &src))
		return -1;
	if (llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = dst_l->size }, &dst))
		return -1;
	if (llmem_buffer_map(src, (void **)&src_map) || llmem_buffer_map(dst, (void **)&dst_map))
		return -1;
	if (!gst_video_frame_map(&frame, &info, gst_sample_get_buffer(raw), GST_MAP_READ))
		return -1;
	for (uint32_t p = 0; p < src_l.num_planes; p++) {
		uint32_t rows = p ? HEIGHT / 2 : HEIGHT;

		for (uint32_t row = 0; row < rows; row++)
			memcpy(src_map + src_l.offset[p] + (size_t)row * src_l.pitch[p],
			       (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, p) +
				       (size_t)row * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p),
			       GST_VIDEO_FRAME_COMP_WIDTH(&frame, p == 1 ? 1 : 0) *
				       GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, p == 1 ? 1 : 0));
	}
	gst_video_frame_unmap(&frame);
	ret = llmem_convert_to_rgba(&(struct llmem_convert_info){
		.src = src,
		.src_layout = &src_l,
		.dst = dst,
		.dst_layout = dst_l,
		.encoding = info.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709
				    ? LLMEM_YCBCR_BT709
				    : LLMEM_YCBCR_BT601,
		.range = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255
				 ? LLMEM_YCBCR_FULL_RANGE
				 : LLMEM_YCBCR_LIMITED_RANGE,
	});
	if (ret)
		TH_LOG("convert: %s", llmem_last_error());
	*ref = g_memdup2(dst_map, dst_l->size);
	llmem_buffer_unmap(src);
	llmem_buffer_unmap(dst);
	llmem_buffer_destroy(src);
	llmem_buffer_destroy(dst);
	return ret;
}

/* Rows of @out differing from @ref: 0 when every pixel is the same. */
static int rows_differing(GstSample *out, const uint8_t *ref, const struct llmem_frame_layout *l)
{
	GstVideoInfo info;
	GstVideoFrame frame;
	int differ = 0;

	if (!gst_video_info_from_caps(&info, gst_sample_get_caps(out)) ||
	    !gst_video_frame_map(&frame, &info, gst_sample_get_buffer(out), GST_MAP_READ))
		return -1;
	for (uint32_t row = 0; row < HEIGHT; row++)
		differ += memcmp((uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, 0) +
					 (size_t)row * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0),
				 ref + (size_t)row * l->pitch[0], WIDTH * 4) != 0;
	gst_video_frame_unmap(&frame);
	return differ;
}

static guint allocator_pages(GstAllocator *allocator)
{
	guint pages = G_MAXUINT;

	g_object_get(allocator, "pages", &pages, NULL);
	return pages;
}

/* videotestsrc writes into llmemconvert's proposed llmem frames (no copy),
 * and the GPU's output equals llmem's own conversion of the same frame in
 * every pixel; the frames' pages are gone once their buffers are. */
TEST_F(pixels, zero_copy_equals_library)
{
	gchar *caps = g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d", variant->in,
				      WIDTH, HEIGHT);
	gchar *raw_launch = g_strdup_printf(
		"videotestsrc pattern=smpte num-buffers=1 ! %s ! appsink name=out", caps);
	gchar *launch = g_strdup_printf("videotestsrc pattern=smpte num-buffers=1 ! %s ! "
					"llmemconvert name=convert ! video/x-raw,format=%s ! "
					"appsink name=out",
					caps, variant->out);
	struct llmem_frame_layout dst_l;
	gint64 copied = -1, messages = -1, unused;
	GstSample *raw, *out;
	GstAllocator *allocator;
	uint8_t *ref = NULL;

	raw = one_sample(_metadata, raw_launch, &unused, &unused);
	ASSERT_NE(raw, NULL);
	out = one_sample(_metadata, launch, &copied, &messages);
	ASSERT_NE(out, NULL);
	EXPECT_EQ(copied, 0);
	EXPECT_EQ(messages, 0);
	ASSERT_EQ(reference(_metadata, self->m, raw, variant->in_fourcc, variant->out_fourcc,
			    &dst_l, &ref),
		  0);
	EXPECT_EQ(rows_differing(out, ref, &dst_l), 0);

	allocator = gst_buffer_peek_memory(gst_sample_get_buffer(out), 0)->allocator;
	ASSERT_STREQ(G_OBJECT_TYPE_NAME(allocator), "GstLlmemAllocator");
	gst_object_ref(allocator);
	EXPECT_GT(allocator_pages(allocator), 0);
	gst_sample_unref(out);
	EXPECT_EQ(allocator_pages(allocator), 0);
	gst_object_unref(allocator);
	gst_sample_unref(raw);
	g_free(ref);
	g_free(launch);
	g_free(raw_launch);
	g_free(caps);
}

/* A frame in system memory (appsrc) is copied into an llmem frame, once
 * per frame, and converted to the same pixels. */
TEST_F(pixels, copy_path_equals_library)
{
	gchar *caps = g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d,framerate=30/1",
				      variant->in, WIDTH, HEIGHT);
	gchar *raw_launch = g_strdup_printf(
		"videotestsrc pattern=smpte num-buffers=1 ! %s ! appsink name=out", caps);
	gchar *launch = g_strdup_printf("appsrc name=src caps=\"%s\" format=time ! "
					"llmemconvert name=convert ! video/x-raw,format=%s ! "
					"appsink name=out",
					caps, variant->out);
	struct llmem_frame_layout dst_l;
	gint64 unused, messages = -1;
	guint64 copied = 0;
	GstElement *pipeline, *src, *sink, *convert;
	GstSample *raw, *out;
	GstMessage *msg;
	uint8_t *ref = NULL;

	raw = one_sample(_metadata, raw_launch, &unused, &unused);
	ASSERT_NE(raw, NULL);
	pipeline = gst_parse_launch(launch, NULL);
	ASSERT_NE(pipeline, NULL);
	src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
	convert = gst_bin_get_by_name(GST_BIN(pipeline), "convert");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	ASSERT_EQ(gst_app_src_push_buffer(GST_APP_SRC(src),
					  gst_buffer_ref(gst_sample_get_buffer(raw))),
		  GST_FLOW_OK);
	ASSERT_EQ(gst_app_src_end_of_stream(GST_APP_SRC(src)), GST_FLOW_OK);
	out = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND);
	ASSERT_NE(out, NULL);
	msg = run_to_end(pipeline);
	EXPECT_EQ(msg, NULL);
	g_object_get(convert, "frames-copied", &copied, "validation-messages", &messages, NULL);
	EXPECT_EQ(copied, 1);
	EXPECT_EQ(messages, 0);
	gst_element_set_state(pipeline, GST_STATE_NULL);

	ASSERT_EQ(reference(_metadata, self->m, raw, variant->in_fourcc, variant->out_fourcc,
			    &dst_l, &ref),
		  0);
	EXPECT_EQ(rows_differing(out, ref, &dst_l), 0);
	gst_sample_unref(out);
	gst_sample_unref(raw);
	gst_object_unref(convert);
	gst_object_unref(sink);
	gst_object_unref(src);
	gst_object_unref(pipeline);
	g_free(ref);
	g_free(launch);
	g_free(raw_launch);
	g_free(caps);
}

/* The pool llmemconvert proposes upstream: frames with llmem's offsets and
 * pitches in their GstVideoMeta, the same GstMemory objects after a
 * release, no page left once the pool is gone, and formats llmem has no
 * layout for refused. */
TEST(pool_layout_and_recycling)
{
	GstElement *pipeline, *convert;
	GstCaps *caps;
	GstQuery *query;
	GstBufferPool *pool;
	GstStructure *config;
	GstAllocator *allocator;
	GstBuffer *buffers[2];
	GstMemory *first[2];
	struct llmem_frame_layout l;
	GstPad *pad;
	guint size;

	ASSERT_EQ(gst_test_init(), 0);
	/* GstBaseTransform answers ALLOCATION queries once negotiated. */
	pipeline = gst_parse_launch("llmemconvert name=convert ! fakesink", NULL);
	ASSERT_NE(pipeline, NULL);
	convert = gst_bin_get_by_name(GST_BIN(pipeline), "convert");
	gst_element_set_state(pipeline, GST_STATE_PAUSED);
	pad = gst_element_get_static_pad(convert, "sink");
	caps = gst_caps_from_string("video/x-raw,format=NV12,width=318,height=240,framerate=30/1");
	ASSERT_TRUE(gst_pad_send_event(pad, gst_event_new_stream_start("pool")));
	ASSERT_TRUE(gst_pad_send_event(pad, gst_event_new_caps(caps)));
	query = gst_query_new_allocation(caps, TRUE);
	ASSERT_TRUE(gst_pad_query(pad, query));
	ASSERT_GT(gst_query_get_n_allocation_pools(query), 0);
	EXPECT_TRUE(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL));
	gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, NULL, NULL);
	ASSERT_NE(pool, NULL);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 318, 240, NULL, &l), 0);
	EXPECT_EQ(size, l.size);

	config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, size, 2, 2);
	ASSERT_TRUE(gst_buffer_pool_set_config(pool, config));
	ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
	for (int i = 0; i < 2; i++) {
		GstVideoMeta *meta;
		GstMapInfo map;

		ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffers[i], NULL), GST_FLOW_OK);
		ASSERT_EQ(gst_buffer_n_memory(buffers[i]), 1);
		first[i] = gst_buffer_peek_memory(buffers[i], 0);
		EXPECT_STREQ(G_OBJECT_TYPE_NAME(first[i]->allocator), "GstLlmemAllocator");
		meta = gst_buffer_get_video_meta(buffers[i]);
		ASSERT_NE(meta, NULL);
		EXPECT_EQ(meta->n_planes, l.num_planes);
		for (guint p = 0; p < l.num_planes; p++) {
			EXPECT_EQ(meta->offset[p], l.offset[p]);
			EXPECT_EQ((uint32_t)meta->stride[p], l.pitch[p]);
		}
		/* Mapped through llmem: what is written is read back. */
		ASSERT_TRUE(gst_buffer_map(buffers[i], &map, GST_MAP_WRITE));
		memset(map.data, 0x5a + i, map.size);
		gst_buffer_unmap(buffers[i], &map);
		ASSERT_TRUE(gst_buffer_map(buffers[i], &map, GST_MAP_READ));
		EXPECT_EQ(map.data[map.size - 1], 0x5a + i);
		gst_buffer_unmap(buffers[i], &map);
	}
	allocator = gst_object_ref(first[0]->allocator);
	for (int i = 0; i < 2; i++)
		gst_buffer_unref(buffers[i]);
	for (int i = 0; i < 2; i++) {
		GstMemory *mem;

		ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffers[i], NULL), GST_FLOW_OK);
		mem = gst_buffer_peek_memory(buffers[i], 0);
		EXPECT_TRUE(mem == first[0] || mem == first[1]);
	}
	EXPECT_NE(gst_buffer_peek_memory(buffers[0], 0), gst_buffer_peek_memory(buffers[1], 0));
	for (int i = 0; i < 2; i++)
		gst_buffer_unref(buffers[i]);
	EXPECT_GT(allocator_pages(allocator), 0);
	ASSERT_TRUE(gst_buffer_pool_set_active(pool, FALSE));

	/* A format llmem has no layout for. */
	config = gst_buffer_pool_get_config(pool);
	gst_caps_unref(caps);
	caps = gst_caps_from_string("video/x-raw,format=I420,width=320,height=240");
	gst_buffer_pool_config_set_params(config, caps, 0, 2, 2);
	EXPECT_FALSE(gst_buffer_pool_set_config(pool, config));

	gst_object_unref(pool);
	gst_query_unref(query);
	EXPECT_EQ(allocator_pages(allocator), 0);
	gst_object_unref(allocator);
	gst_caps_unref(caps);
	gst_object_unref(pad);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(convert);
	gst_object_unref(pipeline);
	EXPECT_EQ(gst_test_end(), 0);
}

/* Caps llmemconvert cannot do end the pipeline with an error message:
 * a width YUYV cannot have (llmem's reason in it), a format it does not
 * take, a size change, YUV out; a device that is not there. */
TEST(refusals)
{
	ASSERT_EQ(gst_test_init(), 0);
	expect_error(_metadata,
		     "videotestsrc num-buffers=1 ! video/x-raw,format=YUY2,width=321,height=240 ! "
		     "llmemconvert name=convert ! fakesink",
		     "convert", GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "width must be even");
	expect_error(_metadata,
		     "appsrc name=src caps=video/x-raw,format=I420,width=320,height=240,"
		     "framerate=30/1 ! llmemconvert ! fakesink",
		     "src", GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "not-negotiated");
	expect_error(_metadata,
		     "appsrc name=src caps=video/x-raw,format=YUY2,width=320,height=240,"
		     "framerate=30/1 ! llmemconvert ! video/x-raw,width=640 ! fakesink",
		     "src", GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "not-negotiated");
	/* No peer: GstBaseTransform offers the input caps as output. */
	expect_error(_metadata,
		     "videotestsrc num-buffers=1 ! video/x-raw,format=YUY2 ! "
		     "llmemconvert name=convert",
		     "convert", GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION, "to video/x-raw");
	expect_error(_metadata,
		     "videotestsrc num-buffers=1 ! video/x-raw,format=YUY2 ! "
		     "llmemconvert name=convert device=no-such-device ! fakesink",
		     "convert", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "no-such-device");
	EXPECT_EQ(gst_test_end(), 0);
}

TEST_HARNESS_MAIN
