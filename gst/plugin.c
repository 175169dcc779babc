// SPDX-License-Identifier: MIT
/*
 * The llmem GStreamer plugin: its elements and its debug category
 * (GST_DEBUG=llmem:6 shows where each frame came from and went).
 */
#include <gst/gst.h>

#include "convert.h"
#include "filter.h"
#include "session.h"

GST_DEBUG_CATEGORY(gst_llmem_debug);

static gboolean plugin_init(GstPlugin *plugin)
{
	GST_DEBUG_CATEGORY_INIT(gst_llmem_debug, "llmem", 0, "llmem frames in GStreamer");
	return GST_ELEMENT_REGISTER(llmemconvert, plugin) &&
	       GST_ELEMENT_REGISTER(llmemfilter, plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, llmem,
		  "Zero-copy video on llmem's shared device memory", plugin_init, LLMEM_VERSION,
		  "MIT", "llmem", "llmem")
