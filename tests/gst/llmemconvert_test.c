// SPDX-License-Identifier: MIT
/*
 * The GStreamer plugin from the build tree: the registry finds it, its
 * pool's frames carry llmem's layout and come back as the same memories,
 * llmemconvert's output equals llmem's own conversion of the same frame
 * pixel for pixel (zero-copy from videotestsrc, copied from appsrc), its
 * YUV from RGB equals the CPU reference (tests/lib/yuv_ref.c) in every
 * code and videoconvert's within its fixed point, and every refusal ends
 * the pipeline with an error message.
 *
 * meson.build points GStreamer at build/gst alone, with a registry of the
 * build's own and no scanner process (a sanitized plugin cannot load into
 * the unsanitized gst-plugin-scanner); the few system plugins the
 * pipelines use are loaded by file.
 */
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>
#include <gst/check/gstharness.h>
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
#include "yuv_ref.h"

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

FIXTURE(to_yuv)
{
	GstSample *raw;
	GstSample *out;
	GstVideoInfo out_info;
};

FIXTURE_VARIANT(to_yuv)
{
	const char *in;
	/* The caps after llmemconvert. */
	const char *out;
	int width, height;
	/* What the output caps must say: the matrix (0 BT.601, 1 BT.709) and
	 * range (1 full). */
	int matrix, full_range;
};

/* Downstream leaves the colour open: BT.601 limited at 240 lines. */
FIXTURE_VARIANT_ADD(to_yuv, bgrx_yuy2){
	.in = "BGRx",
	.out = "YUY2",
	.width = 320,
	.height = 240,
};

FIXTURE_VARIANT_ADD(to_yuv, rgba_nv12_bt709){
	.in = "RGBA",
	.out = "NV12,colorimetry=bt709",
	.width = 320,
	.height = 240,
	.matrix = 1,
};

/* Full range BT.601 asked for. */
FIXTURE_VARIANT_ADD(to_yuv, bgra_nv12_full){
	.in = "BGRA",
	.out = "NV12,colorimetry=1:4:0:0",
	.width = 320,
	.height = 240,
	.full_range = 1,
};

/* NV12 318 pixels wide: rows of 320 bytes, the last word of each row
 * half past the frame. */
FIXTURE_VARIANT_ADD(to_yuv, rgbx_nv12_318){
	.in = "RGBx",
	.out = "NV12",
	.width = 318,
	.height = 240,
};

/* Downstream leaves the colour open: BT.709 limited at 720 lines. */
FIXTURE_VARIANT_ADD(to_yuv, rgbx_yuy2_720){
	.in = "RGBx",
	.out = "YUY2",
	.width = 1280,
	.height = 720,
	.matrix = 1,
};

/* videotestsrc's SMPTE bars in variant->in, as they are and through
 * llmemconvert (zero copy: videotestsrc draws into its pool). */
FIXTURE_SETUP(to_yuv)
{
	gchar *caps = g_strdup_printf("video/x-raw,format=%s,width=%d,height=%d", variant->in,
				      variant->width, variant->height);
	gchar *raw = g_strdup_printf(
		"videotestsrc pattern=smpte num-buffers=1 ! %s ! appsink name=out", caps);
	gchar *launch = g_strdup_printf("videotestsrc pattern=smpte num-buffers=1 ! %s ! "
					"llmemconvert name=convert ! video/x-raw,format=%s ! "
					"appsink name=out",
					caps, variant->out);
	gint64 copied = -1, messages = -1, unused;

	ASSERT_EQ(gst_test_init(), 0);
	self->raw = one_sample(_metadata, raw, &unused, &unused);
	ASSERT_NE(self->raw, NULL);
	self->out = one_sample(_metadata, launch, &copied, &messages);
	ASSERT_NE(self->out, NULL);
	EXPECT_EQ(copied, 0);
	EXPECT_EQ(messages, 0);
	ASSERT_TRUE(gst_video_info_from_caps(&self->out_info, gst_sample_get_caps(self->out)));
	g_free(launch);
	g_free(raw);
	g_free(caps);
}

FIXTURE_TEARDOWN(to_yuv)
{
	if (self->out)
		gst_sample_unref(self->out);
	if (self->raw)
		gst_sample_unref(self->raw);
	EXPECT_EQ(gst_test_end(), 0);
}

/* A YUY2 or NV12 frame's codes: luma per pixel, chroma per sample. */
struct yuv_codes {
	uint32_t width, height, chroma_width, chroma_height;
	uint8_t *y, *cb, *cr;
};

static int read_yuv(GstSample *sample, const GstVideoInfo *info, struct yuv_codes *c)
{
	gboolean nv12 = GST_VIDEO_INFO_FORMAT(info) == GST_VIDEO_FORMAT_NV12;
	GstVideoFrame f;

	c->width = GST_VIDEO_INFO_WIDTH(info);
	c->height = GST_VIDEO_INFO_HEIGHT(info);
	c->chroma_width = (c->width + 1) / 2;
	c->chroma_height = nv12 ? (c->height + 1) / 2 : c->height;
	if (!gst_video_frame_map(&f, info, gst_sample_get_buffer(sample), GST_MAP_READ))
		return -1;
	c->y = g_malloc((size_t)c->width * c->height);
	c->cb = g_malloc((size_t)c->chroma_width * c->chroma_height);
	c->cr = g_malloc((size_t)c->chroma_width * c->chroma_height);
	for (uint32_t row = 0; row < c->height; row++) {
		const uint8_t *p = (const uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&f, 0) +
				   (size_t)row * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);

		for (uint32_t x = 0; x < c->width; x++)
			c->y[(size_t)row * c->width + x] = nv12 ? p[x] : p[2 * x];
		if (nv12)
			continue;
		for (uint32_t k = 0; k < c->chroma_width; k++) {
			c->cb[(size_t)row * c->chroma_width + k] = p[4 * k + 1];
			c->cr[(size_t)row * c->chroma_width + k] = p[4 * k + 3];
		}
	}
	for (uint32_t row = 0; nv12 && row < c->chroma_height; row++) {
		const uint8_t *p = (const uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&f, 1) +
				   (size_t)row * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);

		for (uint32_t k = 0; k < c->chroma_width; k++) {
			c->cb[(size_t)row * c->chroma_width + k] = p[2 * k];
			c->cr[(size_t)row * c->chroma_width + k] = p[2 * k + 1];
		}
	}
	gst_video_frame_unmap(&f);
	return 0;
}

static void free_yuv(struct yuv_codes *c)
{
	g_free(c->y);
	g_free(c->cb);
	g_free(c->cr);
}

/* The RGB frame of @raw: its bytes, pitch, and whether B comes first. */
static const uint8_t *rgb_of(GstSample *raw, GstMapInfo *map, uint32_t *pitch, int *bgra)
{
	GstVideoInfo info;
	GstVideoFormat format;

	if (!gst_video_info_from_caps(&info, gst_sample_get_caps(raw)) ||
	    !gst_buffer_map(gst_sample_get_buffer(raw), map, GST_MAP_READ))
		return NULL;
	format = GST_VIDEO_INFO_FORMAT(&info);
	*bgra = format == GST_VIDEO_FORMAT_BGRx || format == GST_VIDEO_FORMAT_BGRA;
	*pitch = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
	return map->data + GST_VIDEO_INFO_PLANE_OFFSET(&info, 0);
}

/* The output caps say the colour asked for (or the default for the
 * height) and llmem's chroma siting, and every luma and chroma code is the
 * CPU reference's of the same RGB frame (its rounding, or either side of a
 * half). */
TEST_F(to_yuv, equals_reference)
{
	const GstStructure *s = gst_caps_get_structure(gst_sample_get_caps(self->out), 0);
	gboolean nv12 = GST_VIDEO_INFO_FORMAT(&self->out_info) == GST_VIDEO_FORMAT_NV12;
	struct yuv_codes got;
	double *y, *cb, *cr;
	GstMapInfo map;
	uint32_t pitch;
	int bgra, differ = 0;
	const uint8_t *rgb;

	EXPECT_EQ(self->out_info.colorimetry.matrix,
		  variant->matrix ? GST_VIDEO_COLOR_MATRIX_BT709 : GST_VIDEO_COLOR_MATRIX_BT601);
	EXPECT_EQ(self->out_info.colorimetry.range,
		  variant->full_range ? GST_VIDEO_COLOR_RANGE_0_255 : GST_VIDEO_COLOR_RANGE_16_235);
	EXPECT_STREQ(gst_structure_get_string(s, "chroma-site"), "jpeg");
	ASSERT_EQ(read_yuv(self->out, &self->out_info, &got), 0);
	rgb = rgb_of(self->raw, &map, &pitch, &bgra);
	ASSERT_NE(rgb, NULL);
	y = g_new(double, (size_t)got.width *got.height);
	cb = g_new(double, (size_t)got.chroma_width *got.chroma_height);
	cr = g_new(double, (size_t)got.chroma_width *got.chroma_height);
	ref_rgba_to_yuv(rgb, pitch, bgra, got.width, got.height, variant->matrix,
			variant->full_range, 2, nv12 ? 2 : 1, y, cb, cr);
	gst_buffer_unmap(gst_sample_get_buffer(self->raw), &map);
	for (size_t i = 0; i < (size_t)got.width * got.height; i++)
		if (!ref_code_matches(got.y[i], y[i]) && differ++ == 0)
			TH_LOG("luma %zu: %u, the reference %.4f", i, got.y[i], y[i]);
	for (size_t i = 0; i < (size_t)got.chroma_width * got.chroma_height; i++)
		if ((!ref_code_matches(got.cb[i], cb[i]) || !ref_code_matches(got.cr[i], cr[i])) &&
		    differ++ == 0)
			TH_LOG("chroma %zu: %u %u, the reference %.4f %.4f", i, got.cb[i],
			       got.cr[i], cb[i], cr[i]);
	EXPECT_EQ(differ, 0);
	g_free(y);
	g_free(cb);
	g_free(cr);
	free_yuv(&got);
}

/*
 * videoconvert's YUV of the same frame, with the colorimetry llmemconvert
 * chose and no chroma resampling or dither (chroma-mode=none takes one
 * pixel's chroma where llmem takes the mean of those a sample covers), is
 * within VIDEOCONVERT_TOLERANCE of llmem's in every luma code, and in
 * every chroma code whose pixels have one colour (there the siting cannot
 * matter).  The tolerance is videoconvert's: its RGB to YUV matrix is 8-bit
 * fixed point, and on these frames its own codes are up to 1 off the exact
 * ones (BT.601, luma) and 2 (BT.709 chroma), which the log shows, while
 * llmem's are the exact ones (equals_reference).
 */
#define VIDEOCONVERT_TOLERANCE 2
TEST_F(to_yuv, near_videoconvert)
{
	gboolean nv12 = GST_VIDEO_INFO_FORMAT(&self->out_info) == GST_VIDEO_FORMAT_NV12;
	gchar *colorimetry = gst_video_colorimetry_to_string(&self->out_info.colorimetry);
	gchar *launch = g_strdup_printf(
		"videotestsrc pattern=smpte num-buffers=1 ! "
		"video/x-raw,format=%s,width=%d,height=%d ! videoconvert chroma-mode=none "
		"dither=none ! video/x-raw,format=%s,colorimetry=%s ! appsink name=out",
		variant->in, variant->width, variant->height,
		gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&self->out_info)), colorimetry);
	struct yuv_codes got, peer;
	GstVideoInfo peer_info;
	GstSample *sample;
	GstMapInfo map;
	uint32_t pitch;
	int bgra, worst_y = 0, worst_c = 0, peer_off = 0;
	guint compared = 0;
	gint64 unused;
	const uint8_t *rgb;
	double *y, *cb, *cr;

	sample = one_sample(_metadata, launch, &unused, &unused);
	ASSERT_NE(sample, NULL);
	ASSERT_TRUE(gst_video_info_from_caps(&peer_info, gst_sample_get_caps(sample)));
	ASSERT_EQ(read_yuv(sample, &peer_info, &peer), 0);
	ASSERT_EQ(read_yuv(self->out, &self->out_info, &got), 0);
	rgb = rgb_of(self->raw, &map, &pitch, &bgra);
	ASSERT_NE(rgb, NULL);
	y = g_new(double, (size_t)got.width *got.height);
	cb = g_new(double, (size_t)got.chroma_width *got.chroma_height);
	cr = g_new(double, (size_t)got.chroma_width *got.chroma_height);
	ref_rgba_to_yuv(rgb, pitch, bgra, got.width, got.height, variant->matrix,
			variant->full_range, 2, nv12 ? 2 : 1, y, cb, cr);
	for (size_t i = 0; i < (size_t)got.width * got.height; i++) {
		worst_y = MAX(worst_y, abs(got.y[i] - peer.y[i]));
		peer_off = MAX(peer_off, abs(peer.y[i] - ref_code_byte(y[i])));
	}
	for (uint32_t r = 0; r < got.chroma_height; r++)
		for (uint32_t k = 0; k < got.chroma_width; k++) {
			size_t i = (size_t)r * got.chroma_width + k;
			uint32_t rows = nv12 ? 2 : 1;
			gboolean one_colour = TRUE;

			for (uint32_t dy = 0; dy < rows; dy++)
				for (uint32_t dx = 0; dx < 2; dx++)
					one_colour &= !memcmp(
						rgb + (size_t)(r * rows + dy) * pitch +
							(2 * k + dx) * 4,
						rgb + (size_t)r * rows * pitch + 2 * k * 4, 3);
			if (!one_colour)
				continue;
			compared++;
			worst_c = MAX(worst_c, MAX(abs(got.cb[i] - peer.cb[i]),
						   abs(got.cr[i] - peer.cr[i])));
			peer_off = MAX(peer_off, MAX(abs(peer.cb[i] - ref_code_byte(cb[i])),
						     abs(peer.cr[i] - ref_code_byte(cr[i]))));
		}
	gst_buffer_unmap(gst_sample_get_buffer(self->raw), &map);
	TH_LOG("%s: llmem and videoconvert differ by %d in luma, %d in chroma (%u of %u samples); "
	       "videoconvert and the exact codes by %d",
	       colorimetry, worst_y, worst_c, compared, got.chroma_width * got.chroma_height,
	       peer_off);
	EXPECT_LE(worst_y, VIDEOCONVERT_TOLERANCE);
	EXPECT_LE(worst_c, VIDEOCONVERT_TOLERANCE);
	EXPECT_GT(compared, got.chroma_width * got.chroma_height / 2);
	g_free(y);
	g_free(cb);
	g_free(cr);
	free_yuv(&peer);
	free_yuv(&got);
	gst_sample_unref(sample);
	g_free(launch);
	g_free(colorimetry);
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
	/* Planes at multiples of 4 bytes, what llmem's converters write NV12
	 * at: rows of 320 bytes for 318 pixels. */
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 318, 240,
					  &(struct llmem_frame_constraints){ .pitch_alignment = 4,
									     .plane_alignment = 4 },
					  &l),
		  0);
	EXPECT_EQ(l.pitch[0], 320);
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

/* A BGRx frame of llmem's whose rows lie 1274 bytes apart, not a multiple
 * of 4 (the converters read 32-bit words), is copied into an llmem frame
 * and converted, not refused. */
TEST(unaligned_frame_copied)
{
	GstCaps *pool_caps;
	GstQuery *query;
	GstBufferPool *pool = NULL;
	GstStructure *config;
	GstElement *element;
	GstHarness *h;
	GstBuffer *buf, *out;
	GstMapInfo map;
	guint64 copied = 0;
	gint64 messages = -1;
	guint size;

	ASSERT_EQ(gst_test_init(), 0);
	pool_caps =
		gst_caps_from_string("video/x-raw,format=BGRx,width=318,height=240,framerate=30/1");
	query = gst_query_new_allocation(pool_caps, TRUE);
	element = gst_element_factory_make("llmemconvert", NULL);
	ASSERT_NE(element, NULL);
	h = gst_harness_new_with_element(element, "sink", "src");
	gst_harness_set_sink_caps_str(h, "video/x-raw,format=YUY2");
	/* Two rows fewer than the pool's frames: room for the wider rows. */
	gst_harness_set_src_caps_str(h,
				     "video/x-raw,format=BGRx,width=318,height=238,framerate=30/1");
	ASSERT_TRUE(gst_pad_peer_query(h->srcpad, query));
	ASSERT_GT(gst_query_get_n_allocation_pools(query), 0);
	gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, NULL, NULL);
	ASSERT_NE(pool, NULL);
	config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, pool_caps, size, 1, 1);
	ASSERT_TRUE(gst_buffer_pool_set_config(pool, config));
	ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
	ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buf, NULL), GST_FLOW_OK);
	ASSERT_TRUE(gst_buffer_map(buf, &map, GST_MAP_WRITE));
	memset(map.data, 0x80, map.size);
	gst_buffer_unmap(buf, &map);
	gst_buffer_get_video_meta(buf)->stride[0] = 1274;
	ASSERT_EQ(gst_harness_push(h, buf), GST_FLOW_OK);
	ASSERT_TRUE(gst_harness_push_event(h, gst_event_new_eos()));
	out = gst_harness_try_pull(h);
	ASSERT_NE(out, NULL);
	g_object_get(element, "frames-copied", &copied, "validation-messages", &messages, NULL);
	EXPECT_EQ(copied, 1);
	EXPECT_EQ(messages, 0);
	/* Grey: Y U Y V with U and V at 128. */
	ASSERT_TRUE(gst_buffer_map(out, &map, GST_MAP_READ));
	EXPECT_EQ(map.data[0], map.data[2]);
	EXPECT_EQ(map.data[1], 128);
	EXPECT_EQ(map.data[3], 128);
	gst_buffer_unmap(out, &map);
	gst_buffer_unref(out);
	gst_object_unref(element);
	gst_harness_teardown(h);
	gst_buffer_pool_set_active(pool, FALSE);
	gst_object_unref(pool);
	gst_query_unref(query);
	gst_caps_unref(pool_caps);
	EXPECT_EQ(gst_test_end(), 0);
}

/* Caps llmemconvert cannot do end the pipeline with an error message:
 * a width YUYV cannot have (llmem's reason in it), a format it does not
 * take, a size change, YUV out of YUV, RGB out of RGB, YUV of a matrix
 * llmem does not write; a device that is not there. */
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
	/* RGB in, RGB out: no conversion of llmem's. */
	expect_error(_metadata,
		     "appsrc name=src caps=video/x-raw,format=BGRx,width=320,height=240,"
		     "framerate=30/1 ! llmemconvert ! video/x-raw,format=RGBA ! fakesink",
		     "src", GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED, "not-negotiated");
	/* YUV of a matrix llmem does not write. */
	expect_error(_metadata,
		     "videotestsrc num-buffers=1 ! video/x-raw,format=BGRx ! "
		     "llmemconvert name=convert ! video/x-raw,format=NV12,colorimetry=bt2020 ! "
		     "fakesink",
		     "convert", GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
		     "colorimetry=(string)bt2020");
	expect_error(_metadata,
		     "videotestsrc num-buffers=1 ! video/x-raw,format=YUY2 ! "
		     "llmemconvert name=convert device=no-such-device ! fakesink",
		     "convert", GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "no-such-device");
	EXPECT_EQ(gst_test_end(), 0);
}

TEST_HARNESS_MAIN
