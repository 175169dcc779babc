// SPDX-License-Identifier: MIT
/*
 * GStreamer's pipewiresrc as a consumer for the PipeWire checks: an
 * unconnected input stream named NAME (linked by the caller's pw-link),
 * taking DMA-BUFs (caps memory:DMABuf, YUY2), into an appsink; for each of
 * FRAMES buffers it prints frame_line.h's line for the buffer's first
 * GstMemory, TYPE "gstdmabuf" when it is a GstDmaBufMemory (its fd's inode,
 * the picture read through the memory's own mapping) and "gstother" when
 * not, SEQ the buffer's offset (pipewiresrc's copy of the header's
 * sequence).  Exits 0 after FRAMES, 2 on an error, 3 on a buffer that is
 * no GstDmaBufMemory.
 *
 * usage: gst_pw_consumer NAME FRAMES
 */
#include <stdio.h>
#include <stdlib.h>

#include <gst/allocators/gstdmabuf.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "frame_line.h"

/* Long enough for pw-link's retries and a cold start under TCG. */
#define FIRST_FRAME_TIMEOUT (60 * GST_SECOND)

static int print_frame(GstSample *sample)
{
	GstBuffer *buf = gst_sample_get_buffer(sample);
	GstMemory *mem = gst_buffer_peek_memory(buf, 0);
	GstVideoMeta *meta = gst_buffer_get_video_meta(buf);
	GstVideoInfo info;
	GstMapInfo map;
	int32_t stride;
	int ret;

	if (!gst_video_info_from_caps(&info, gst_sample_get_caps(sample)))
		return 2;
	stride = meta ? meta->stride[0] : GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
	if (!gst_is_dmabuf_memory(mem)) {
		printf("frame gstother 0 - %zu %d %zu 0 %" G_GINT64_FORMAT "\n", mem->offset,
		       stride, mem->size, (gint64)GST_BUFFER_OFFSET(buf));
		return 3;
	}
	if (!gst_memory_map(mem, &map, GST_MAP_READ))
		return 2;
	ret = frame_line_print(
		"gstdmabuf", gst_dmabuf_memory_get_fd(mem), (uint32_t)mem->offset, stride,
		(uint32_t)mem->size, map.data, (uint32_t)GST_VIDEO_INFO_COMP_WIDTH(&info, 0) * 2,
		(uint32_t)GST_VIDEO_INFO_HEIGHT(&info), (int64_t)GST_BUFFER_OFFSET(buf));
	gst_memory_unmap(mem, &map);
	return ret ? 2 : 0;
}

/*
 * GStreamer with only the plugins the pipeline takes, loaded by file: a
 * scan of every plugin on the system takes a minute under TCG, and the
 * node would wait that long for its consumer.
 */
static int gst_start(void)
{
	static const char *const plugins[] = { "libgstcoreelements.so", "libgstapp.so",
					       "libgstpipewire.so" };
	char registry[256];

	snprintf(registry, sizeof(registry), "%s/gst_pw_consumer.registry",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	setenv("GST_REGISTRY_1_0", registry, 1);
	setenv("GST_PLUGIN_SYSTEM_PATH_1_0", "", 1);
	setenv("GST_PLUGIN_PATH_1_0", "", 1);
	gst_init(NULL, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(plugins); i++) {
		gchar *path = g_build_filename(GST_SYSTEM_PLUGINS, plugins[i], NULL);
		GstPlugin *plugin = gst_plugin_load_file(path, NULL);

		if (!plugin) {
			fprintf(stderr, "gst_pw_consumer: cannot load %s\n", path);
			g_free(path);
			return -1;
		}
		g_free(path);
		gst_object_unref(plugin);
	}
	return 0;
}

int main(int argc, char **argv)
{
	GstElement *pipeline, *sink;
	GError *error = NULL;
	char *launch;
	int frames, status = 0;

	if (argc != 3 || (frames = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: gst_pw_consumer NAME FRAMES\n");
		return 64;
	}
	if (gst_start())
		return 2;
	/* A camera of 4 buffers: pipewiresrc asks 8 unless told fewer. */
	launch = g_strdup_printf("pipewiresrc min-buffers=2 autoconnect=false "
				 "stream-properties=props,node.name=%s ! "
				 "video/x-raw(memory:DMABuf),format=YUY2 ! "
				 "appsink name=sink sync=false",
				 argv[1]);
	pipeline = gst_parse_launch(launch, &error);
	g_free(launch);
	if (!pipeline) {
		fprintf(stderr, "gst_pw_consumer: %s\n", error->message);
		return 2;
	}
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	for (int n = 0; n < frames && !status; n++) {
		GstSample *sample =
			gst_app_sink_try_pull_sample(GST_APP_SINK(sink), FIRST_FRAME_TIMEOUT);

		if (!sample) {
			GstMessage *msg =
				gst_bus_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_MESSAGE_ERROR);
			GError *err = NULL;

			if (msg)
				gst_message_parse_error(msg, &err, NULL);
			fprintf(stderr, "gst_pw_consumer: no frame %d: %s\n", n,
				err ? err->message : "timed out");
			g_clear_error(&err);
			if (msg)
				gst_message_unref(msg);
			status = 2;
			break;
		}
		status = print_frame(sample);
		gst_sample_unref(sample);
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	return status;
}
