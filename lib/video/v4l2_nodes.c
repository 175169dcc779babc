// SPDX-License-Identifier: MIT
/*
 * The library's one scan of /dev/video*: every node described as data
 * (llmem/v4l2.h), which the finders of cameras and codecs and the tools
 * read instead of opening the nodes again each.  The memory types come
 * from VIDIOC_REQBUFS with no buffers, which allocates nothing and reports
 * the queue's capabilities; a queue busy streaming for another process
 * answers EBUSY, kept as the queue's memory_error.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/v4l2.h>

#include "base/error.h"
#include "video/v4l2.h"

static_assert(LLMEM_V4L2_MEMCAP_MMAP == V4L2_BUF_CAP_SUPPORTS_MMAP &&
		      LLMEM_V4L2_MEMCAP_USERPTR == V4L2_BUF_CAP_SUPPORTS_USERPTR &&
		      LLMEM_V4L2_MEMCAP_DMABUF == V4L2_BUF_CAP_SUPPORTS_DMABUF &&
		      LLMEM_V4L2_MEMCAP_REQUESTS == V4L2_BUF_CAP_SUPPORTS_REQUESTS,
	      "memory caps are V4L2's bits");

#define MEMCAP_MASK                                                                      \
	(LLMEM_V4L2_MEMCAP_MMAP | LLMEM_V4L2_MEMCAP_USERPTR | LLMEM_V4L2_MEMCAP_DMABUF | \
	 LLMEM_V4L2_MEMCAP_REQUESTS)

int llmem_v4l2_xioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : 0;
}

static uint32_t role(uint32_t caps)
{
	if (caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE))
		return LLMEM_V4L2_ROLE_M2M;
	if (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE))
		return LLMEM_V4L2_ROLE_CAPTURE;
	if (caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE))
		return LLMEM_V4L2_ROLE_OUTPUT;
	if (caps & V4L2_CAP_META_CAPTURE)
		return LLMEM_V4L2_ROLE_METADATA;
	return LLMEM_V4L2_ROLE_OTHER;
}

/* The queue's formats, in a growing array: drivers list from one to a
 * hundred. */
static int describe_formats(int fd, struct llmem_v4l2_queue_info *q)
{
	uint32_t capacity = 0;
	int ret;

	for (uint32_t index = 0;; index++) {
		struct v4l2_fmtdesc d = { .index = index, .type = q->type };

		ret = llmem_v4l2_xioctl(fd, VIDIOC_ENUM_FMT, &d);
		if (ret) {
			q->formats_error = ret == -EINVAL ? 0 : ret;
			return 0;
		}
		if (q->num_formats == capacity) {
			uint32_t grown = capacity ? 2 * capacity : 16;
			struct llmem_v4l2_fmtdesc *f = realloc(q->formats, grown * sizeof(*f));

			if (!f)
				return -ENOMEM;
			q->formats = f;
			capacity = grown;
		}
		q->formats[q->num_formats] = (struct llmem_v4l2_fmtdesc){
			.fourcc = d.pixelformat,
			.flags = d.flags,
		};
		memcpy(q->formats[q->num_formats].description, d.description,
		       sizeof(q->formats[0].description) - 1);
		q->num_formats++;
	}
}

static int describe_queue(int fd, bool output, bool mplane, bool streaming,
			  struct llmem_v4l2_queue_info *q)
{
	struct v4l2_requestbuffers req = { .memory = V4L2_MEMORY_MMAP };

	if (output)
		q->type = mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT;
	else
		q->type = mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE : V4L2_BUF_TYPE_VIDEO_CAPTURE;
	q->output = output;
	q->multiplanar = mplane;
	if (streaming) {
		req.type = q->type;
		q->memory_error = llmem_v4l2_xioctl(fd, VIDIOC_REQBUFS, &req);
		if (!q->memory_error)
			q->memory = req.capabilities & MEMCAP_MASK;
	}
	return describe_formats(fd, q);
}

/* The node's queues: what it is fed, then what it captures into. */
static int describe_queues(int fd, struct llmem_v4l2_node *node)
{
	uint32_t caps = node->caps;
	bool m2m = caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE);
	bool mplane = caps & (V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_VIDEO_OUTPUT_MPLANE |
			      V4L2_CAP_VIDEO_M2M_MPLANE);
	int ret = 0;

	if (m2m || (caps & (V4L2_CAP_VIDEO_OUTPUT | V4L2_CAP_VIDEO_OUTPUT_MPLANE)))
		ret = describe_queue(fd, true, mplane, node->streaming,
				     &node->queues[node->num_queues++]);
	if (!ret && (m2m || (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE))))
		ret = describe_queue(fd, false, mplane, node->streaming,
				     &node->queues[node->num_queues++]);
	return ret;
}

/* Fills @node for @path; only running out of memory fails. */
static int describe_node(const char *path, struct llmem_v4l2_node *node)
{
	struct v4l2_capability cap = { 0 };
	int fd, ret;

	snprintf(node->path, sizeof(node->path), "%s", path);
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		node->error = -errno;
		return 0;
	}
	node->error = llmem_v4l2_xioctl(fd, VIDIOC_QUERYCAP, &cap);
	if (node->error) {
		close(fd);
		return 0;
	}
	memcpy(node->driver, cap.driver, sizeof(node->driver) - 1);
	memcpy(node->card, cap.card, sizeof(node->card) - 1);
	memcpy(node->bus, cap.bus_info, sizeof(node->bus) - 1);
	node->caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	node->role = role(node->caps);
	node->streaming = !!(node->caps & V4L2_CAP_STREAMING);
	ret = describe_queues(fd, node);
	close(fd);
	return ret;
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name + 5) - atoi((*b)->d_name + 5);
}

static int is_video_node(const struct dirent *d)
{
	return !strncmp(d->d_name, "video", 5) && d->d_name[5] >= '0' && d->d_name[5] <= '9';
}

/* Describes every /dev/videoN into @list; frees the directory entries. */
static int describe_all(struct llmem_v4l2_node_list *list)
{
	struct dirent **names;
	int count = scandir("/dev", &names, is_video_node, by_number);
	int ret = 0;

	if (count <= 0)
		return 0;
	list->nodes = calloc((size_t)count, sizeof(*list->nodes));
	if (!list->nodes)
		ret = -ENOMEM;
	for (int i = 0; i < count; i++) {
		char path[300];

		if (!ret) {
			snprintf(path, sizeof(path), "/dev/%s", names[i]->d_name);
			ret = describe_node(path, &list->nodes[list->count++]);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_list_nodes(const char *path, struct llmem_v4l2_node_list **out)
{
	struct llmem_v4l2_node_list *list;
	int ret;

	if (!out)
		return llmem_error(-EINVAL, "llmem_v4l2_list_nodes: NULL out");
	list = calloc(1, sizeof(*list));
	if (!list)
		return llmem_error(-ENOMEM, "llmem_v4l2_list_nodes: out of memory");
	if (path) {
		list->nodes = calloc(1, sizeof(*list->nodes));
		ret = list->nodes ? describe_node(path, &list->nodes[list->count++]) : -ENOMEM;
	} else {
		ret = describe_all(list);
	}
	if (ret) {
		llmem_v4l2_node_list_free(list);
		return llmem_error(ret, "llmem_v4l2_list_nodes: out of memory");
	}
	*out = list;
	return 0;
}

LLMEM_PUBLIC void llmem_v4l2_node_list_free(struct llmem_v4l2_node_list *list)
{
	if (!list)
		return;
	for (uint32_t i = 0; i < list->count; i++)
		for (uint32_t q = 0; q < list->nodes[i].num_queues; q++)
			free(list->nodes[i].queues[q].formats);
	free(list->nodes);
	free(list);
}

LLMEM_PUBLIC int llmem_v4l2_node_captures_dmabuf(const struct llmem_v4l2_node *node)
{
	if (!node)
		return llmem_error(-EINVAL, "llmem_v4l2_node_captures_dmabuf: NULL node");
	if (node->error || !node->streaming ||
	    !(node->caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)))
		return 0;
	for (uint32_t q = 0; q < node->num_queues; q++)
		if (!node->queues[q].output && (node->queues[q].memory & LLMEM_V4L2_MEMCAP_DMABUF))
			return 1;
	return 0;
}
