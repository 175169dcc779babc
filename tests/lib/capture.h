/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_CAPTURE_H
#define LLMEM_TEST_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include <llmem/v4l2.h>

/*
 * One frame through the camera's own buffers (V4L2_MEMORY_MMAP), the
 * reference picture the zero-copy paths are compared with: streams @nbufs
 * buffers, lets the first frames pass, copies the next into a malloc'ed
 * *@frame of @sizeimage bytes, and leaves the device stopped with no
 * buffers.  Return: 0 or a negative errno.
 */
int capture_mmap_frame(struct llmem_v4l2 *dev, uint32_t sizeimage, uint32_t nbufs, uint8_t **frame);

/*
 * The same on a multi-planar node, with raw ioctls rather than the
 * library's, so that the reference does not share its multi-planar code:
 * in the format set on @path, copies each memory plane of a frame into a
 * malloc'ed planes[p] of sizes[p] bytes (the driver's plane sizes).
 * Return: the number of memory planes, or a negative errno.
 */
int capture_mmap_mplane(const char *path, uint32_t nbufs, uint8_t *planes[VIDEO_MAX_PLANES],
			uint32_t sizes[VIDEO_MAX_PLANES]);

/*
 * The /dev/video* node whose V4L2 name (sysfs) is @name, e.g.
 * "vivid-003-vid-cap", the capture node of vivid's fourth instance:
 * 0 or -ENODEV.
 */
int video_node_named(const char *name, char *path, size_t len);

/*
 * Sets vivid's control called @name (as VIDIOC_QUERY_EXT_CTRL names it,
 * e.g. "Inject VIDIOC_QBUF Error") at @path to @value, through a file of its
 * own, closed again: 0, -ENOENT when the node has no such control, or
 * -errno.
 */
int vivid_set_control(const char *path, const char *name, int value);

#endif
