// SPDX-License-Identifier: MIT
/*
 * The plugin's pool padded as a GstVideoAlignment asks
 * (GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT): frames of the coded size an
 * encoder downstream codes, the picture at their top left, and each
 * buffer's GstVideoMeta with llmem's pitches and offsets and the padding
 * (issue 42: vicodec codes 1000x562 YUYV as 1008x568, NV12 as 1008x576).
 * Padding above or left of the picture, and stride masks llmem cannot lay
 * out, are refused.
 */
#include <drm_fourcc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <llmem/frame.h>

#include "kselftest_harness.h"
#include "gst_test.h"

/* llmemconvert's pool for @caps, from the ALLOCATION query of its sink
 * pad, and the pipeline that holds it. */
static GstBufferPool *pool_for(GstCaps *caps, GstElement **pipeline)
{
	GstBufferPool *pool = NULL;
	GstElement *convert;
	GstQuery *query;
	GstPad *pad;

	*pipeline = gst_parse_launch("llmemconvert name=convert ! fakesink", NULL);
	if (!*pipeline)
		return NULL;
	convert = gst_bin_get_by_name(GST_BIN(*pipeline), "convert");
	gst_element_set_state(*pipeline, GST_STATE_PAUSED);
	pad = gst_element_get_static_pad(convert, "sink");
	query = gst_query_new_allocation(caps, TRUE);
	if (gst_pad_send_event(pad, gst_event_new_stream_start("pool")) &&
	    gst_pad_send_event(pad, gst_event_new_caps(caps)) && gst_pad_query(pad, query) &&
	    gst_query_get_n_allocation_pools(query) > 0)
		gst_query_parse_nth_allocation_pool(query, 0, &pool, NULL, NULL, NULL);
	gst_query_unref(query);
	gst_object_unref(pad);
	gst_object_unref(convert);
	return pool;
}

static void end(GstElement *pipeline, GstBufferPool *pool)
{
	gst_object_unref(pool);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

/* A configuration of @pool for @caps with @align. */
static gboolean configure(GstBufferPool *pool, GstCaps *caps, const GstVideoAlignment *align)
{
	GstStructure *config = gst_buffer_pool_get_config(pool);

	gst_buffer_pool_config_set_params(config, caps, 0, 2, 2);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
	gst_buffer_pool_config_set_video_alignment(config, align);
	return gst_buffer_pool_set_config(pool, config);
}

FIXTURE(padded){};

FIXTURE_VARIANT(padded)
{
	const char *caps;
	uint32_t fourcc;
	guint right, bottom;
};

FIXTURE_VARIANT_ADD(padded, yuy2_1000x562){
	.caps = "video/x-raw,format=YUY2,width=1000,height=562,framerate=30/1",
	.fourcc = DRM_FORMAT_YUYV,
	.right = 8,
	.bottom = 6,
};

FIXTURE_VARIANT_ADD(padded, nv12_1000x562){
	.caps = "video/x-raw,format=NV12,width=1000,height=562,framerate=30/1",
	.fourcc = DRM_FORMAT_NV12,
	.right = 8,
	.bottom = 14,
};

FIXTURE_SETUP(padded)
{
	ASSERT_EQ(gst_test_init(), 0);
}

FIXTURE_TEARDOWN(padded)
{
}

/* The pool's frames are the coded frame llmem lays out, and their
 * GstVideoMeta carries its pitches, offsets, plane heights and padding. */
TEST_F(padded, frames_and_meta)
{
	GstCaps *caps = gst_caps_from_string(variant->caps);
	GstVideoAlignment align, kept;
	struct llmem_frame_constraints c = { .coded_width = 1000 + variant->right,
					     .coded_height = 562 + variant->bottom };
	struct llmem_frame_layout l;
	guint heights[GST_VIDEO_MAX_PLANES];
	GstElement *pipeline;
	GstBufferPool *pool = pool_for(caps, &pipeline);
	GstStructure *config;
	GstVideoMeta *meta;
	GstBuffer *buffer;

	ASSERT_NE(pool, NULL);
	ASSERT_EQ(llmem_frame_layout_init(variant->fourcc, 1000, 562, &c, &l), 0);
	gst_video_alignment_reset(&align);
	align.padding_right = variant->right;
	align.padding_bottom = variant->bottom;
	ASSERT_TRUE(configure(pool, caps, &align));
	config = gst_buffer_pool_get_config(pool);
	ASSERT_TRUE(gst_buffer_pool_config_get_video_alignment(config, &kept));
	EXPECT_EQ(kept.padding_right, variant->right);
	EXPECT_EQ(kept.padding_bottom, variant->bottom);
	gst_structure_free(config);

	ASSERT_TRUE(gst_buffer_pool_set_active(pool, TRUE));
	ASSERT_EQ(gst_buffer_pool_acquire_buffer(pool, &buffer, NULL), GST_FLOW_OK);
	EXPECT_GE(gst_buffer_get_size(buffer), l.size);
	meta = gst_buffer_get_video_meta(buffer);
	ASSERT_NE(meta, NULL);
	EXPECT_EQ(meta->width, 1000);
	EXPECT_EQ(meta->height, 562);
	EXPECT_EQ(meta->alignment.padding_right, variant->right);
	EXPECT_EQ(meta->alignment.padding_bottom, variant->bottom);
	ASSERT_TRUE(gst_video_meta_get_plane_height(meta, heights));
	for (guint p = 0; p < l.num_planes; p++) {
		EXPECT_EQ(meta->offset[p], l.offset[p]);
		EXPECT_EQ((uint32_t)meta->stride[p], l.pitch[p]);
		EXPECT_EQ(heights[p], p ? l.coded_height / 2 : l.coded_height);
	}
	TH_LOG("%s: pitch %u, %u rows coded", variant->caps, l.pitch[0], l.coded_height);
	gst_buffer_unref(buffer);
	ASSERT_TRUE(gst_buffer_pool_set_active(pool, FALSE));
	gst_caps_unref(caps);
	end(pipeline, pool);
	EXPECT_EQ(gst_test_end(), 0);
}

/* Padding llmem cannot lay out is refused at the configuration. */
TEST_F(padded, refused)
{
	GstCaps *caps = gst_caps_from_string(variant->caps);
	GstVideoAlignment align;
	GstElement *pipeline;
	GstBufferPool *pool = pool_for(caps, &pipeline);

	ASSERT_NE(pool, NULL);
	gst_video_alignment_reset(&align);
	align.padding_top = 2;
	EXPECT_FALSE(configure(pool, caps, &align));
	gst_video_alignment_reset(&align);
	align.padding_left = 2;
	EXPECT_FALSE(configure(pool, caps, &align));
	/* A stride mask of 48 - 1 is no power of two's. */
	gst_video_alignment_reset(&align);
	align.stride_align[0] = 47;
	EXPECT_FALSE(configure(pool, caps, &align));
	/* An odd coded width for a format of pixel pairs. */
	gst_video_alignment_reset(&align);
	align.padding_right = 1;
	EXPECT_FALSE(configure(pool, caps, &align));
	gst_caps_unref(caps);
	end(pipeline, pool);
	EXPECT_EQ(gst_test_end(), 0);
}

TEST_HARNESS_MAIN
