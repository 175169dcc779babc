/* SPDX-License-Identifier: MIT */
/*
 * What the plugin's tests share: GStreamer with the build's plugin and the
 * few system plugins the pipelines use, a pipeline run to its end, and the
 * error message a refused pipeline must end with.  Include after
 * kselftest_harness.h.
 */
#ifndef LLMEM_GST_TEST_H
#define LLMEM_GST_TEST_H

#include <string.h>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "vk_test.h"

static inline int gst_test_init(void)
{
	static const char *const plugins[] = { "libgstcoreelements.so", "libgstvideotestsrc.so",
					       "libgstapp.so", "libgstvideoconvertscale.so" };

	gst_init(NULL, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(plugins); i++) {
		gchar *path = g_build_filename(GST_SYSTEM_PLUGINS, plugins[i], NULL);
		GstPlugin *plugin = gst_plugin_load_file(path, NULL);

		g_free(path);
		if (!plugin)
			return -1;
		gst_object_unref(plugin);
	}
	return 0;
}

/* gst_deinit(), then no leak. */
static inline int gst_test_end(void)
{
	gst_deinit();
	return vk_test_leak_check();
}

/* The pipeline's error message, or NULL at EOS; waits up to 60 s. */
static inline GstMessage *run_to_end(GstElement *pipeline)
{
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *msg;

	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	msg = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
	gst_object_unref(bus);
	if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) {
		gst_message_unref(msg);
		return NULL;
	}
	return msg ? msg
		   : gst_message_new_error(NULL, g_error_new_literal(GST_CORE_ERROR, 0, "timeout"),
					   "no EOS within 60 s");
}

/* The error message @launch ends with, from element @from; its debug text
 * must hold @says. */
static inline void expect_error(struct __test_metadata *_metadata, const char *launch,
				const char *from, GQuark domain, gint code, const char *says)
{
	GstElement *pipeline = gst_parse_launch(launch, NULL);
	GstMessage *msg;
	GError *err = NULL;
	gchar *debug = NULL;

	GstElement *src;

	ASSERT_NE(pipeline, NULL);
	src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	if (src && GST_IS_APP_SRC(src)) {
		/* appsrc sends its caps with its first buffer. */
		gst_element_set_state(pipeline, GST_STATE_PLAYING);
		gst_app_src_push_buffer(GST_APP_SRC(src),
					gst_buffer_new_allocate(NULL, 4096, NULL));
		gst_app_src_end_of_stream(GST_APP_SRC(src));
	}
	gst_clear_object(&src);
	msg = run_to_end(pipeline);
	ASSERT_NE(msg, NULL);
	gst_message_parse_error(msg, &err, &debug);
	TH_LOG("%s: %s (%s)", GST_MESSAGE_SRC_NAME(msg), err->message, debug);
	EXPECT_STREQ(GST_MESSAGE_SRC_NAME(msg), from);
	EXPECT_EQ(err->domain, domain);
	EXPECT_EQ(err->code, code);
	EXPECT_NE(strstr(debug, says), NULL);
	g_error_free(err);
	g_free(debug);
	gst_message_unref(msg);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

/* The one sample @launch's appsink "out" gets; NULL on an error. */
static inline GstSample *one_sample(struct __test_metadata *_metadata, const char *launch,
				    gint64 *copied, gint64 *messages)
{
	GError *err = NULL;
	GstElement *pipeline = gst_parse_launch(launch, &err);
	GstElement *sink, *convert;
	GstSample *sample;
	GstMessage *msg;

	if (!pipeline) {
		TH_LOG("%s: %s", launch, err->message);
		g_error_free(err);
		return NULL;
	}
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	/* A pipeline that fails ends without a sample: never wait forever. */
	sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND);
	msg = run_to_end(pipeline);
	if (msg) {
		gst_message_parse_error(msg, &err, NULL);
		TH_LOG("%s: %s", launch, err->message);
		g_error_free(err);
		gst_message_unref(msg);
	}
	convert = gst_bin_get_by_name(GST_BIN(pipeline), "convert");
	if (convert) {
		guint64 frames;

		g_object_get(convert, "frames-copied", &frames, "validation-messages", messages,
			     NULL);
		*copied = (gint64)frames;
		gst_object_unref(convert);
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	return sample;
}

#endif
