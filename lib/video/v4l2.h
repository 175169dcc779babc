/* SPDX-License-Identifier: MIT */
/*
 * A V4L2 capture node as v4l2.c (the node and its streaming) and
 * v4l2_format.c (its formats) share it.
 */
#ifndef LLMEM_VIDEO_V4L2_H
#define LLMEM_VIDEO_V4L2_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include <llmem/negotiate.h>
#include <llmem/v4l2.h>

struct llmem_v4l2 {
	int fd;
	char path[64];
	char driver[16];
	/* V4L2_BUF_TYPE_VIDEO_CAPTURE or V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE. */
	uint32_t type;
	enum llmem_v4l2_memory memory;
	uint32_t count;
	int streaming;
	struct llmem_v4l2_format format;
};

static inline bool llmem_v4l2_is_mplane(const struct llmem_v4l2 *dev)
{
	return dev->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
}

/* The ioctl, retried on EINTR: 0 or -errno, nothing recorded
 * (v4l2_nodes.c, the video tier's lowest file, for all of it). */
int llmem_v4l2_xioctl(int fd, unsigned long request, void *arg);

/*
 * The DRM fourcc llmem lays out for a V4L2 pixel format, 0 for none.  For
 * these the codes are the same (V4L2's XBGR32 is DRM's XRGB8888: bytes B,
 * G, R, X); NV12M is NV12 with a buffer per plane.
 */
uint32_t llmem_v4l2_drm_fourcc(uint32_t pixelformat);

/* Runs one ioctl; on failure records which one, on which node, and why. */
int llmem_v4l2_call(struct llmem_v4l2 *dev, unsigned long request, const char *name, void *arg);

#define LLMEM_V4L2_CALL(dev, request, arg) llmem_v4l2_call(dev, request, #request, arg)

/*
 * v4l2_selection.c: the picture's rectangle in a queue's frames of buffer
 * @type, the crop rectangle of an OUTPUT queue and the compose rectangle
 * of a CAPTURE queue.  Set at the top left at @width x @height, and what
 * the driver made of it in @got; or read.  0 or the ioctl's -errno,
 * nothing recorded: the callers name the node.
 */
int llmem_v4l2_set_picture(int fd, uint32_t type, uint32_t width, uint32_t height,
			   struct v4l2_rect *got);
int llmem_v4l2_get_picture(int fd, uint32_t type, struct v4l2_rect *out);

/* The capture node's compose rectangle: where in its frames of the format
 * set it writes the picture, at their top left (v4l2_format.c).  0;
 * -ENOTSUP where the driver composes elsewhere; the ioctl's errors,
 * recorded. */
int llmem_v4l2_compose(struct llmem_v4l2 *dev, uint32_t width, uint32_t height);

/* v4l2_participant_check.c: whether V4L2 participant @p (its node and
 * queue) takes frame @f through S_FMT, REQBUFS and QBUF; 0, or the refusal
 * naming the participant and the call. */
int llmem_v4l2_queue_takes(const struct llmem_participant *p,
			   const struct llmem_negotiated_frame *f);

#endif
