// SPDX-License-Identifier: MIT
/*
 * v4l2src ! llmemconvert ! kmssink failing in the VM, on vivid and vkms:
 * caps llmemconvert cannot satisfy, and the camera unplugged while it
 * streams (vivid's Disconnect control).  Each must end the pipeline with a
 * GStreamer error message, the process alive, and every llmem allocator
 * whose frames went through llmemconvert with no live page once the
 * pipeline is gone.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "gst/gst_test.h"

#define CAPS "video/x-raw,format=YUY2,width=640,height=480"

/* The allocators of the frames that went through llmemconvert's pads. */
struct seen {
	GMutex lock;
	GPtrArray *allocators;
	guint buffers;
};

static GstPadProbeReturn seen_buffer(GstPad *pad, GstPadProbeInfo *info, gpointer user)
{
	struct seen *seen = user;
	GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
	GstAllocator *allocator = gst_buffer_peek_memory(buf, 0)->allocator;

	g_mutex_lock(&seen->lock);
	seen->buffers++;
	if (allocator && g_object_class_find_property(G_OBJECT_GET_CLASS(allocator), "pages") &&
	    !g_ptr_array_find(seen->allocators, allocator, NULL))
		g_ptr_array_add(seen->allocators, gst_object_ref(allocator));
	g_mutex_unlock(&seen->lock);
	return GST_PAD_PROBE_OK;
}

static guint seen_buffers(struct seen *seen)
{
	guint n;

	g_mutex_lock(&seen->lock);
	n = seen->buffers;
	g_mutex_unlock(&seen->lock);
	return n;
}

/* vivid-000's capture node. */
static int vivid_node(char *path, size_t len)
{
	DIR *dir = opendir("/sys/class/video4linux");
	struct dirent *d;
	int found = -1;

	while (dir && (d = readdir(dir)) && found) {
		char name_path[300], name[64] = "";
		FILE *f;

		snprintf(name_path, sizeof(name_path), "/sys/class/video4linux/%s/name", d->d_name);
		f = fopen(name_path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strcmp(g_strstrip(name), "vivid-000-vid-cap")) {
			snprintf(path, len, "/dev/%s", d->d_name);
			found = 0;
		}
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return found;
}

/* The id of @fd's control named @name, 0 if it has none. */
static uint32_t control_id(int fd, const char *name)
{
	struct v4l2_queryctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	while (!ioctl(fd, VIDIOC_QUERYCTRL, &q)) {
		if (!strcmp((const char *)q.name, name))
			return q.id;
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	return 0;
}

/* This process's fds open on @path. */
static int fds_on(const char *path)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	int n = 0;

	while (dir && (d = readdir(dir))) {
		char link[300], target[300];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", d->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = 0;
			n += !strcmp(target, path);
		}
	}
	if (dir)
		closedir(dir);
	return n;
}

FIXTURE(failures)
{
	char node[64];
	struct seen seen;
	GstElement *pipeline;
};

FIXTURE_SETUP(failures)
{
	static const char *const plugins[] = { "libgstvideo4linux2.so", "libgstkms.so" };

	ASSERT_EQ(gst_test_init(), 0);
	for (size_t i = 0; i < G_N_ELEMENTS(plugins); i++) {
		gchar *path = g_build_filename(GST_SYSTEM_PLUGINS, plugins[i], NULL);
		GstPlugin *plugin = gst_plugin_load_file(path, NULL);

		g_free(path);
		ASSERT_NE(plugin, NULL);
		gst_object_unref(plugin);
	}
	ASSERT_EQ(vivid_node(self->node, sizeof(self->node)), 0);
	g_mutex_init(&self->seen.lock);
	self->seen.allocators = g_ptr_array_new();
}

FIXTURE_TEARDOWN(failures)
{
	for (guint i = 0; i < self->seen.allocators->len; i++) {
		guint pages = G_MAXUINT;

		g_object_get(self->seen.allocators->pdata[i], "pages", &pages, NULL);
		TH_LOG("allocator %s: %u live pages",
		       GST_OBJECT_NAME(self->seen.allocators->pdata[i]), pages);
		EXPECT_EQ(pages, 0);
		gst_object_unref(self->seen.allocators->pdata[i]);
	}
	g_ptr_array_free(self->seen.allocators, TRUE);
	g_mutex_clear(&self->seen.lock);
	EXPECT_EQ(gst_test_end(), 0);
}

/* @launch (with llmemconvert named "convert"), its pads probed. */
static GstElement *launch(struct __test_metadata *_metadata, FIXTURE_DATA(failures) * self,
			  const char *text)
{
	gchar *full = g_strdup_printf(text, self->node);
	GstElement *pipeline = gst_parse_launch(full, NULL);
	GstElement *convert;

	TH_LOG("%s", full);
	g_free(full);
	if (!pipeline)
		return NULL;
	convert = gst_bin_get_by_name(GST_BIN(pipeline), "convert");
	for (int i = 0; i < 2; i++) {
		GstPad *pad = gst_element_get_static_pad(convert, i ? "src" : "sink");

		gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, seen_buffer, &self->seen, NULL);
		gst_object_unref(pad);
	}
	gst_object_unref(convert);
	return pipeline;
}

/* The error @pipeline ended with: its source's name and its GError. */
static void expect_ended_with_error(struct __test_metadata *_metadata, GstElement *pipeline,
				    const char *from, GQuark domain)
{
	GstMessage *msg = run_to_end(pipeline);
	GError *err = NULL;
	gchar *debug = NULL;

	ASSERT_NE(msg, NULL);
	gst_message_parse_error(msg, &err, &debug);
	TH_LOG("%s: %s (%s)", GST_MESSAGE_SRC_NAME(msg), err->message, debug);
	EXPECT_STREQ(GST_MESSAGE_SRC_NAME(msg), from);
	EXPECT_EQ(err->domain, domain);
	g_error_free(err);
	g_free(debug);
	gst_message_unref(msg);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

/* An output format llmemconvert does not write: it says so when the input's
 * caps come, before a frame. */
TEST_F(failures, caps_out)
{
	GstElement *p = launch(_metadata, self,
			       "v4l2src device=%s io-mode=dmabuf-import ! " CAPS " ! "
			       "llmemconvert name=convert ! video/x-raw,format=I420 ! "
			       "kmssink driver-name=vkms force-modesetting=true");

	ASSERT_NE(p, NULL);
	expect_ended_with_error(_metadata, p, "convert", GST_CORE_ERROR);
	EXPECT_EQ(seen_buffers(&self->seen), 0);
}

/* An input format vivid sends and llmemconvert does not read: it proposes
 * no pool for it, and v4l2src, which must import, says so. */
TEST_F(failures, caps_in)
{
	GstElement *p = launch(
		_metadata, self,
		"v4l2src device=%s io-mode=dmabuf-import ! "
		"video/x-raw,format=UYVY,width=640,height=480 ! "
		"llmemconvert name=convert ! kmssink driver-name=vkms force-modesetting=true");

	ASSERT_NE(p, NULL);
	expect_ended_with_error(_metadata, p, "v4l2src0", GST_RESOURCE_ERROR);
	EXPECT_EQ(seen_buffers(&self->seen), 0);
}

/*
 * vivid unplugged mid-stream after 10 frames of @text: v4l2src's dequeue
 * fails and the pipeline ends with its error.  Returns the fds of this
 * process still open on vivid's node once the pipeline is gone.
 */
static int disconnect(struct __test_metadata *_metadata, FIXTURE_DATA(failures) * self,
		      const char *text)
{
	GstElement *p = launch(_metadata, self, text);
	struct v4l2_control ctrl = { 0 };
	int fd = open(self->node, O_RDWR);

	if (!p || fd < 0)
		return -1;
	ctrl.id = control_id(fd, "Disconnect");
	EXPECT_NE(ctrl.id, 0);
	gst_element_set_state(p, GST_STATE_PLAYING);
	for (int i = 0; i < 600 && seen_buffers(&self->seen) < 10; i++)
		g_usleep(100000);
	EXPECT_GE(seen_buffers(&self->seen), 10);
	TH_LOG("%u buffers through the probed pads: disconnecting", seen_buffers(&self->seen));
	EXPECT_EQ(ioctl(fd, VIDIOC_S_CTRL, &ctrl), 0);
	close(fd);
	expect_ended_with_error(_metadata, p, "v4l2src0", GST_RESOURCE_ERROR);
	fd = fds_on(self->node);
	TH_LOG("fds still open on %s: %d", self->node, fd);
	return fd;
}

/*
 * Both llmem allocators (llmemconvert's input and output frames) have no
 * live page once the pipeline is gone.  vivid plugs itself back in when
 * its last user closes it; one fd stays open on the node in the process
 * once the pipeline is gone, without llmem too (below), so that waits for
 * the process's exit, which the tests after this one see.
 */
TEST_F_TIMEOUT(failures, disconnect, 300)
{
	EXPECT_GE(disconnect(_metadata, self,
			     "v4l2src device=%s io-mode=dmabuf-import ! " CAPS " ! "
			     "llmemconvert name=convert ! video/x-raw,format=BGRx ! "
			     "kmssink driver-name=vkms force-modesetting=true"),
		  0);
	EXPECT_EQ(self->seen.allocators->len, 2);
}

/* The same without llmem, for the fds it leaves (logged). */
TEST_F_TIMEOUT(failures, disconnect_without_llmem, 300)
{
	EXPECT_GE(disconnect(_metadata, self,
			     "v4l2src device=%s io-mode=mmap ! " CAPS " ! identity name=convert ! "
			     "fakesink"),
		  0);
	EXPECT_EQ(self->seen.allocators->len, 0);
}

TEST_HARNESS_MAIN
