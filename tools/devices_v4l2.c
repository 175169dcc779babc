// SPDX-License-Identifier: MIT
/*
 * V4L2 nodes: what each is for, and for each of its queues the pixel
 * formats it takes and the memory it can stream from.  The memory types
 * come from VIDIOC_REQBUFS with no buffers, which allocates nothing and
 * reports the queue's capabilities (Linux 4.20 and later); a queue busy
 * streaming for another process answers EBUSY, shown as such.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "devices.h"

#define MAX_VIDEO_NODES 64

static const struct {
	uint32_t bit;
	const char *name;
} memory_caps[] = {
	{ V4L2_BUF_CAP_SUPPORTS_MMAP, "mmap" },
	{ V4L2_BUF_CAP_SUPPORTS_USERPTR, "userptr" },
	{ V4L2_BUF_CAP_SUPPORTS_DMABUF, "dmabuf" },
	{ V4L2_BUF_CAP_SUPPORTS_REQUESTS, "requests" },
};

/* The role a node's capabilities give it, as a user would name it. */
static const char *role(uint32_t caps)
{
	if (caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE))
		return "m2m";
	if (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE))
		return "capture";
	if (caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE))
		return "output";
	if (caps & V4L2_CAP_META_CAPTURE)
		return "metadata";
	return "other";
}

/* A fourcc as its four characters, "-BE" for the big-endian variants. */
static void fourcc_name(uint32_t fourcc, char name[8])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0x7f);

		name[i] = c >= ' ' && c <= '~' ? c : '?';
	}
	strcpy(name + 4, fourcc & (1u << 31) ? "-BE" : "");
	/* Short fourccs ("GREY" is full, "Y16 " is not) end in spaces. */
	for (int i = 3; i > 0 && name[i] == ' ' && !name[i + 1]; i--)
		name[i] = '\0';
}

static void describe_formats(struct emit *e, int fd, uint32_t type)
{
	emit_array(e, "formats");
	for (uint32_t index = 0;; index++) {
		struct v4l2_fmtdesc desc = { .index = index, .type = type };
		char name[8];

		if (ioctl(fd, VIDIOC_ENUM_FMT, &desc) == -1)
			break;
		fourcc_name(desc.pixelformat, name);
		emit_string(e, NULL, name);
	}
	emit_end(e);
}

static void describe_memory(struct emit *e, int fd, uint32_t type)
{
	struct v4l2_requestbuffers req = { .type = type, .memory = V4L2_MEMORY_MMAP };

	if (ioctl(fd, VIDIOC_REQBUFS, &req) == -1) {
		emit_string(e, "memory_error", strerror(errno));
		return;
	}
	emit_array(e, "memory");
	for (size_t i = 0; i < sizeof(memory_caps) / sizeof(memory_caps[0]); i++)
		if (req.capabilities & memory_caps[i].bit)
			emit_string(e, NULL, memory_caps[i].name);
	emit_end(e);
}

static void describe_queue(struct emit *e, int fd, const char *name, uint32_t type, bool streaming)
{
	emit_object(e, NULL);
	emit_string(e, "queue", name);
	emit_bool(e, "multiplanar",
		  type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ||
			  type == V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE);
	describe_formats(e, fd, type);
	if (streaming)
		describe_memory(e, fd, type);
	emit_end(e);
}

/* The queues of a node: what it captures into, and what it is fed. */
static void describe_queues(struct emit *e, int fd, uint32_t caps)
{
	bool m2m = caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE);
	bool mplane = caps & (V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_VIDEO_OUTPUT_MPLANE |
			      V4L2_CAP_VIDEO_M2M_MPLANE);
	bool streaming = caps & V4L2_CAP_STREAMING;

	emit_array(e, "queues");
	if (m2m || (caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE)))
		describe_queue(e, fd, "output",
			       mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE
				      : V4L2_BUF_TYPE_VIDEO_OUTPUT,
			       streaming);
	if (m2m || (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)))
		describe_queue(e, fd, "capture",
			       mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE
				      : V4L2_BUF_TYPE_VIDEO_CAPTURE,
			       streaming);
	emit_end(e);
}

static void describe_node(struct emit *e, const char *path)
{
	struct v4l2_capability cap = { 0 };
	uint32_t caps;
	int fd;

	emit_object(e, NULL);
	emit_string(e, "path", path);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, VIDIOC_QUERYCAP, &cap) == -1) {
		emit_string(e, "error", strerror(errno));
		if (fd >= 0)
			close(fd);
		emit_end(e);
		return;
	}
	caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	emit_string(e, "driver", (const char *)cap.driver);
	emit_string(e, "card", (const char *)cap.card);
	emit_string(e, "bus", (const char *)cap.bus_info);
	emit_string(e, "role", role(caps));
	emit_bool(e, "streaming", caps & V4L2_CAP_STREAMING);
	describe_queues(e, fd, caps);
	close(fd);
	emit_end(e);
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 5) - atoi((*b)->d_name + 5);
}

static int is_video_node(const struct dirent *d)
{
	return !strncmp(d->d_name, "video", 5) && d->d_name[5] >= '0' && d->d_name[5] <= '9';
}

void devices_v4l2(struct emit *e)
{
	char camera[64];
	struct dirent **nodes;
	int count = scandir("/dev", &nodes, is_video_node, by_number);

	emit_array(e, "v4l2");
	for (int i = 0; i < count; i++) {
		char path[300];

		if (i < MAX_VIDEO_NODES) {
			snprintf(path, sizeof(path), "/dev/%s", nodes[i]->d_name);
			describe_node(e, path);
		}
		free(nodes[i]);
	}
	if (count >= 0)
		free(nodes);
	emit_end(e);
	if (llmem_v4l2_find_capture(camera, sizeof(camera)))
		emit_null(e, "default_camera");
	else
		emit_string(e, "default_camera", camera);
}
