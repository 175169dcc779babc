// SPDX-License-Identifier: MIT
/*
 * llmemfilter with a kernel of the tests (tests/shaders/gst_xor.comp: each
 * pixel XOR a word of push-constants): in place and into a new frame, from
 * llmem frames and from system memory, against the same XOR done by the
 * CPU on videotestsrc's frame; and the refusals of its properties.
 */
#include <gst/video/video.h>

#include "kselftest_harness.h"
#include "gst_test.h"

#define WIDTH 320
#define HEIGHT 240
#define MASK 0x00ffffffu

FIXTURE(filter)
{
	GstSample *raw;
};

FIXTURE_VARIANT(filter)
{
	const char *in_place;
	/* Between the source and llmemfilter. */
	const char *between;
	gint64 copied;
};

FIXTURE_VARIANT_ADD(filter, in_place){
	.in_place = "true",
	.between = "",
	.copied = 0,
};

FIXTURE_VARIANT_ADD(filter, new_frame){
	.in_place = "false",
	.between = "",
	.copied = 0,
};

/* videotestsrc's own pool, not llmem's: the copy path, in place. */
FIXTURE_VARIANT_ADD(filter, in_place_copied){
	.in_place = "true",
	.between = "identity drop-allocation=true ! ",
	.copied = 1,
};

FIXTURE_SETUP(filter)
{
	gint64 unused;

	ASSERT_EQ(gst_test_init(), 0);
	self->raw = one_sample(_metadata,
			       "videotestsrc pattern=smpte num-buffers=1 ! "
			       "video/x-raw,format=RGBA,width=320,height=240 ! appsink name=out",
			       &unused, &unused);
	ASSERT_NE(self->raw, NULL);
}

FIXTURE_TEARDOWN(filter)
{
	gst_sample_unref(self->raw);
	EXPECT_EQ(gst_test_end(), 0);
}

/* Pixels of @out that are not @raw's XOR MASK. */
static int pixels_differing(GstSample *raw, GstSample *out)
{
	GstVideoInfo info;
	GstVideoFrame a, b;
	int differ = 0;

	if (!gst_video_info_from_caps(&info, gst_sample_get_caps(raw)) ||
	    !gst_video_frame_map(&a, &info, gst_sample_get_buffer(raw), GST_MAP_READ))
		return -1;
	if (!gst_video_frame_map(&b, &info, gst_sample_get_buffer(out), GST_MAP_READ)) {
		gst_video_frame_unmap(&a);
		return -1;
	}
	for (int y = 0; y < HEIGHT; y++)
		for (int x = 0; x < WIDTH; x++) {
			uint32_t pa, pb;

			memcpy(&pa,
			       (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&a, 0) +
				       y * GST_VIDEO_FRAME_PLANE_STRIDE(&a, 0) + x * 4,
			       4);
			memcpy(&pb,
			       (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&b, 0) +
				       y * GST_VIDEO_FRAME_PLANE_STRIDE(&b, 0) + x * 4,
			       4);
			differ += (pa ^ MASK) != pb;
		}
	gst_video_frame_unmap(&b);
	gst_video_frame_unmap(&a);
	return differ;
}

/* The kernel's output is the CPU's XOR of the same frame in every pixel;
 * frames from llmem's pool are not copied, others once. */
TEST_F(filter, kernel_output_equals_cpu)
{
	gchar *launch = g_strdup_printf(
		"videotestsrc pattern=smpte num-buffers=1 ! "
		"video/x-raw,format=RGBA,width=%d,height=%d"
		" ! %sllmemfilter name=convert kernel=%s push-constants=0x%x in-place=%s ! "
		"appsink name=out",
		WIDTH, HEIGHT, variant->between, GST_XOR_SPV, MASK, variant->in_place);
	gint64 copied = -1, messages = -1;
	GstSample *out;

	out = one_sample(_metadata, launch, &copied, &messages);
	ASSERT_NE(out, NULL);
	EXPECT_EQ(copied, variant->copied);
	EXPECT_EQ(messages, 0);
	EXPECT_EQ(pixels_differing(self->raw, out), 0);
	gst_sample_unref(out);
	g_free(launch);
}

/* Each bad property ends the pipeline with its reason, before a frame. */
TEST(refusals)
{
	const char *head = "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA ! ";
	struct {
		const char *element;
		const char *says;
	} cases[] = {
		{ "llmemfilter name=convert", "kernel=FILE.spv" },
		{ "llmemfilter name=convert kernel=/nonexistent.spv", "/nonexistent.spv" },
		{ "llmemfilter name=convert kernel=" GST_XOR_SOURCE, "SPIR-V" },
		{ "llmemfilter name=convert kernel=" GST_XOR_SPV " entry=nomain", "nomain" },
		{ "llmemfilter name=convert kernel=" GST_XOR_SPV " push-constants=1,zz", "zz" },
		{ "llmemfilter name=convert kernel=" GST_XOR_SPV
		  " push-constants=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22",
		  "more than 22 words" },
	};

	ASSERT_EQ(gst_test_init(), 0);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		gchar *launch = g_strdup_printf("%s%s ! fakesink", head, cases[i].element);

		expect_error(_metadata, launch, "convert", GST_RESOURCE_ERROR,
			     i < 1 || i > 3 ? GST_RESOURCE_ERROR_SETTINGS
					    : GST_RESOURCE_ERROR_OPEN_READ,
			     cases[i].says);
		g_free(launch);
	}
	EXPECT_EQ(gst_test_end(), 0);
}

TEST_HARNESS_MAIN
