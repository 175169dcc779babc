// SPDX-License-Identifier: MIT
/*
 * A codec's node: finding V4L2 memory-to-memory devices by what their
 * queues take, opening one, and the ioctl and poll helpers the other codec
 * files use (video/codec.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <llmem/v4l2.h>

#include "base/error.h"
#include "video/codec.h"
#include "video/v4l2.h"

/* Room for any /dev/videoN a finder returns. */
#define MIN_PATH 32

const char *llmem_codec_fourcc_str(uint32_t fourcc, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);

		buf[i] = c >= 32 && c < 127 ? c : '?';
	}
	buf[4] = '\0';
	return buf;
}

/* Runs one ioctl; on failure records which one, on which node, and why. */
int llmem_codec_call(struct llmem_codec *c, unsigned long request, const char *name, void *arg)
{
	int ret = llmem_v4l2_xioctl(c->fd, request, arg);

	if (ret)
		return llmem_error(ret, "%s on %s: %s", name, c->path, strerror(-ret));
	return 0;
}

static uint32_t queue_type(bool mplane, bool output)
{
	if (mplane)
		return output ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE
			      : V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	return output ? V4L2_BUF_TYPE_VIDEO_OUTPUT : V4L2_BUF_TYPE_VIDEO_CAPTURE;
}

/* Whether queue @q lists @fourcc (true for 0), and in @compressed whether
 * it lists any compressed format. */
static bool queue_lists(const struct llmem_v4l2_queue_info *q, uint32_t fourcc, bool *compressed)
{
	bool found = !fourcc;

	*compressed = false;
	for (uint32_t i = 0; i < q->num_formats; i++) {
		if (q->formats[i].flags & V4L2_FMT_FLAG_COMPRESSED)
			*compressed = true;
		if (q->formats[i].fourcc == fourcc)
			found = true;
	}
	return found;
}

/*
 * The kind of the node llmem_v4l2_list_nodes() described (0: none), and
 * whether it matches @info; in @err the errno of a QUERYCAP or ENUM_FMT
 * that gave no answer, when the node could not be told apart (0
 * otherwise).
 */
static uint32_t classify(const struct llmem_v4l2_node *node,
			 const struct llmem_codec_find_info *info, bool *matches, int *err)
{
	const struct llmem_v4l2_queue_info *out = &node->queues[0], *cap = &node->queues[1];
	bool out_comp, cap_comp, out_fmt, cap_fmt, raw_out, raw_cap, dummy, dmabuf;
	uint32_t kind;

	*matches = false;
	/* ENOTTY: not a V4L2 node at all, which is an answer. */
	*err = node->error == -ENOTTY ? 0 : node->error;
	if (node->error || !node->streaming || node->role != LLMEM_V4L2_ROLE_M2M)
		return 0;
	*err = out->formats_error ? out->formats_error : cap->formats_error;
	out_fmt = queue_lists(out, info ? info->coded_fourcc : 0, &out_comp);
	cap_fmt = queue_lists(cap, info ? info->coded_fourcc : 0, &cap_comp);
	if (out_comp && cap_comp)
		return 0;
	if (cap_comp)
		kind = LLMEM_CODEC_ENCODER;
	else if (out_comp)
		kind = LLMEM_CODEC_DECODER;
	else
		kind = LLMEM_CODEC_CONVERTER;
	/* A decoder that demands media requests is stateless: not ours. */
	if (kind == LLMEM_CODEC_DECODER && (out->memory & LLMEM_V4L2_MEMCAP_REQUESTS))
		return 0;
	dmabuf = (out->memory & LLMEM_V4L2_MEMCAP_DMABUF) &&
		 (cap->memory & LLMEM_V4L2_MEMCAP_DMABUF);
	if (!dmabuf || !info) {
		*matches = dmabuf;
		return kind;
	}
	raw_out = queue_lists(out, info->raw_fourcc, &dummy);
	raw_cap = queue_lists(cap, info->raw_fourcc, &dummy);
	*matches = (!info->kind || info->kind == kind) &&
		   (!info->driver || !strcmp(info->driver, node->driver)) &&
		   (!info->coded_fourcc || (kind == LLMEM_CODEC_ENCODER ? cap_fmt : out_fmt)) &&
		   (raw_out || raw_cap) && !(kind == LLMEM_CODEC_CONVERTER && info->coded_fourcc);
	return kind;
}

LLMEM_PUBLIC int llmem_codec_find(const struct llmem_codec_find_info *info, char *path, size_t size)
{
	static const char *const kinds[] = { "codec", "encoder", "decoder", "converter" };
	struct llmem_v4l2_node_list *list;
	bool matches = false;
	char want[5];
	uint32_t i;
	int ret, err;

	if (!path || size < MIN_PATH)
		return llmem_error(-EINVAL, "llmem_codec_find: %s",
				   path ? "path too short" : "NULL path");
	if (info && info->kind > LLMEM_CODEC_CONVERTER)
		return llmem_error(-EINVAL, "llmem_codec_find: unknown kind %u", info->kind);
	ret = llmem_v4l2_list_nodes(NULL, &list);
	if (ret)
		return ret;
	for (i = 0; i < list->count && !matches; i++)
		classify(&list->nodes[i], info, &matches, &err);
	if (matches)
		snprintf(path, size, "%s", list->nodes[i - 1].path);
	llmem_v4l2_node_list_free(list);
	if (matches)
		return 0;
	return llmem_error(
		-ENODEV, "no memory-to-memory %s%s%s%s%s that imports DMA-BUFs (/dev/video*)",
		kinds[info ? info->kind : 0], info && info->coded_fourcc ? " of " : "",
		info && info->coded_fourcc ? llmem_codec_fourcc_str(info->coded_fourcc, want) : "",
		info && info->driver ? " by driver " : "",
		info && info->driver ? info->driver : "");
}

LLMEM_PUBLIC int llmem_codec_open(const char *path, struct llmem_codec **out)
{
	struct llmem_v4l2_node_list *list;
	struct llmem_codec *c;
	bool matches;
	int ret, err;

	if (!path || !out)
		return llmem_error(-EINVAL, "llmem_codec_open: NULL %s", path ? "out" : "path");
	c = calloc(1, sizeof(*c));
	if (!c)
		return llmem_error(-ENOMEM, "llmem_codec_open: out of memory");
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (c->fd < 0) {
		ret = llmem_error(-errno, "open %s: %s", path, strerror(errno));
		goto out_free;
	}
	ret = llmem_v4l2_list_nodes(path, &list);
	if (ret)
		goto out_close;
	c->kind = classify(&list->nodes[0], NULL, &matches, &err);
	c->mplane = list->nodes[0].num_queues && list->nodes[0].queues[0].multiplanar;
	memcpy(c->driver, list->nodes[0].driver, sizeof(c->driver));
	llmem_v4l2_node_list_free(list);
	if (err) {
		ret = llmem_error(err, "%s: VIDIOC_QUERYCAP or VIDIOC_ENUM_FMT: %s", path,
				  strerror(-err));
		goto out_close;
	}
	if (!c->kind) {
		ret = llmem_error(-ENODEV,
				  "%s is no streaming memory-to-memory encoder, stateful decoder "
				  "or converter",
				  path);
		goto out_close;
	}
	c->out.type = queue_type(c->mplane, true);
	c->cap.type = queue_type(c->mplane, false);
	c->state = LLMEM_CODEC_INITIAL;
	if (c->kind == LLMEM_CODEC_DECODER) {
		struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };

		ret = CODEC_CALL(c, VIDIOC_SUBSCRIBE_EVENT, &sub);
		if (ret)
			goto out_close;
		sub.type = V4L2_EVENT_EOS;
		ret = CODEC_CALL(c, VIDIOC_SUBSCRIBE_EVENT, &sub);
		if (ret)
			goto out_close;
	}
	*out = c;
	return 0;

out_close:
	close(c->fd);
out_free:
	free(c);
	return ret;
}

const char *llmem_codec_queue_name(const struct llmem_codec *c, const struct codec_queue *q)
{
	return q == &c->out ? "OUTPUT" : "CAPTURE";
}

LLMEM_PUBLIC uint32_t llmem_codec_kind(const struct llmem_codec *c)
{
	return c ? c->kind : 0;
}

LLMEM_PUBLIC uint32_t llmem_codec_state(const struct llmem_codec *c)
{
	return c ? c->state : 0;
}

LLMEM_PUBLIC int llmem_codec_multiplanar(const struct llmem_codec *c)
{
	return c ? c->mplane : 0;
}

LLMEM_PUBLIC const char *llmem_codec_driver(const struct llmem_codec *c)
{
	return c ? c->driver : "";
}

int64_t llmem_codec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for @events on the node until @deadline (negative: forever); 0,
 * -ETIMEDOUT, or 1 when poll saw an error condition. */
int llmem_codec_wait_for(struct llmem_codec *c, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = c->fd, .events = events };
	int left = -1, ret;

	if (deadline >= 0) {
		int64_t rest = deadline - llmem_codec_now_ns() / 1000000;

		left = rest > 0 ? (int)rest : 0;
	}
	do {
		ret = poll(&pfd, 1, left);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "poll %s: %s", c->path, strerror(errno));
	if (ret == 0)
		return -ETIMEDOUT;
	return (pfd.revents & events) ? 0 : 1;
}
