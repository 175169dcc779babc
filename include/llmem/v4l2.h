/* SPDX-License-Identifier: MIT */
/*
 * A V4L2 capture device driven for zero-copy: frames land in DMA-BUFs the
 * caller supplies (V4L2_MEMORY_DMABUF), or in the device's own buffers that
 * it exports (V4L2_MEMORY_MMAP + VIDIOC_EXPBUF).
 *
 * Errors from the driver come back as the ioctl's negative errno, and
 * llmem_last_error() names the ioctl and the device: "VIDIOC_QBUF on
 * /dev/video0: Bad address".
 *
 * Thread-safety: a struct llmem_v4l2 is not thread-safe; use it from one
 * thread at a time.
 */
#ifndef LLMEM_V4L2_H
#define LLMEM_V4L2_H

#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_v4l2;

/* Where the device's frames live. */
enum llmem_v4l2_memory {
	LLMEM_V4L2_MEMORY_DMABUF = 1, /* DMA-BUFs queued by the caller */
	LLMEM_V4L2_MEMORY_MMAP = 2, /* the device's own buffers */
};

/**
 * struct llmem_v4l2_format - what the device agreed to.
 * @fourcc: V4L2 pixel format; for YUYV and NV12 the same code as the DRM
 *          fourcc (DRM_FORMAT_YUYV, DRM_FORMAT_NV12).
 * @width: pixels.
 * @height: pixels.
 * @bytesperline: pitch of the first plane, as the driver demands it.
 * @sizeimage: bytes one frame needs; every buffer must hold at least this.
 * @num_planes: colour planes in the single buffer: 1 for YUYV, 2 for NV12.
 * @plane_offset: where each colour plane starts inside the buffer.
 * @plane_pitch: bytes per row of each colour plane.
 * @encoding: the Y'CbCr matrix the driver says it uses, as enum
 *            llmem_ycbcr_encoding (BT.709 when it says so, BT.601 otherwise).
 * @range: the quantization it says it uses, as enum llmem_ycbcr_range.
 */
struct llmem_v4l2_format {
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t bytesperline;
	uint32_t sizeimage;
	uint32_t num_planes;
	uint32_t plane_offset[2];
	uint32_t plane_pitch[2];
	uint32_t encoding;
	uint32_t range;
};

/**
 * struct llmem_v4l2_frame - a dequeued buffer.
 * @index: the buffer's index, as given to llmem_v4l2_queue_dmabuf().
 * @bytesused: bytes of frame data the device wrote.
 * @sequence: the driver's frame counter.
 * @timestamp_ns: capture time on CLOCK_MONOTONIC.
 * @corrupted: the driver flagged the frame V4L2_BUF_FLAG_ERROR.
 */
struct llmem_v4l2_frame {
	uint32_t index;
	uint32_t bytesused;
	uint32_t sequence;
	uint32_t corrupted;
	uint64_t timestamp_ns;
};

/**
 * llmem_v4l2_format_layout() - where a frame of @format lies in its buffer,
 * as llmem_frame_layout_init() describes it for importers: the driver's
 * pitch (bytesperline) and frame size (sizeimage) are the importer's
 * demands.
 *
 * Return: 0; -EINVAL for NULL arguments or a format the layout cannot
 * describe.
 */
int llmem_v4l2_format_layout(const struct llmem_v4l2_format *format,
			     struct llmem_frame_layout *layout);

/**
 * llmem_v4l2_find_capture() - the first node, /dev/video0 up, that captures
 * single-planar video with streaming I/O and imports DMA-BUFs
 * (V4L2_BUF_CAP_SUPPORTS_DMABUF).
 * @path: receives the node's path.
 * @size: bytes at @path.
 *
 * Each node is opened and closed again; one another process streams from
 * does not qualify.
 *
 * Return: 0; -EINVAL for a NULL @path or one too short; -ENODEV when no
 * node qualifies.
 */
int llmem_v4l2_find_capture(char *path, size_t size);

/**
 * llmem_v4l2_open() - open a video capture node.
 * @path: e.g. "/dev/video0".
 * @out: the new handle.
 *
 * The node is opened close-on-exec and must capture single-planar video
 * with streaming I/O.
 *
 * Return: 0; -ENOENT, -EACCES... from open(); -ENODEV when the node cannot
 * capture or stream; -EINVAL for NULL arguments; -ENOMEM.
 */
int llmem_v4l2_open(const char *path, struct llmem_v4l2 **out);

/**
 * llmem_v4l2_close() - stop streaming, release the buffers, close the node.
 * @dev: the handle, or NULL.
 *
 * DMA-BUF fds the caller queued stay open and the caller's.
 */
void llmem_v4l2_close(struct llmem_v4l2 *dev);

/* The driver's name (v4l2_capability.driver), e.g. "vivid". */
const char *llmem_v4l2_driver(const struct llmem_v4l2 *dev);

/**
 * llmem_v4l2_set_input() - select the device's video input @index.
 *
 * Return: 0; -EINVAL for an input the device does not have; -EBUSY while
 * streaming; other VIDIOC_S_INPUT errors.
 */
int llmem_v4l2_set_input(struct llmem_v4l2 *dev, uint32_t index);

/**
 * llmem_v4l2_has_format() - whether the device can capture a pixel format.
 *
 * Return: 1 when VIDIOC_ENUM_FMT lists @fourcc, 0 when not, negative errno.
 */
int llmem_v4l2_has_format(struct llmem_v4l2 *dev, uint32_t fourcc);

/**
 * llmem_v4l2_set_format() - negotiate format and size.
 * @dev: the device.
 * @fourcc: the pixel format wanted.
 * @width: pixels wanted.
 * @height: pixels wanted.
 * @out: the format agreed, with the driver's pitch and size; may be NULL.
 *
 * Drivers may substitute another format or size; that is an error here,
 * since buffers laid out for one format must not receive another.
 *
 * Return: 0; -EINVAL when the device does not offer exactly what was asked
 * (the message says what it offered instead) or for a format this library
 * cannot describe; -EBUSY while buffers are allocated; other VIDIOC_S_FMT
 * errors.
 */
int llmem_v4l2_set_format(struct llmem_v4l2 *dev, uint32_t fourcc, uint32_t width, uint32_t height,
			  struct llmem_v4l2_format *out);

/**
 * llmem_v4l2_request_buffers() - allocate (or, with @count 0, release) buffers.
 *
 * Return: the number of buffers the driver granted (it may differ from
 * @count, and a request of 0 returns 0); -EINVAL for an unknown @memory;
 * -EBUSY while streaming; other VIDIOC_REQBUFS errors.
 */
int llmem_v4l2_request_buffers(struct llmem_v4l2 *dev, enum llmem_v4l2_memory memory,
			       uint32_t count);

/**
 * llmem_v4l2_queue_dmabuf() - give the device a DMA-BUF to capture into.
 * @dev: a device with DMABUF buffers requested.
 * @index: buffer slot, below the count granted.
 * @fd: the DMA-BUF; it stays the caller's (the kernel takes its own
 *      reference), and the frame starts at its offset 0.
 * @length: bytes of @fd the device may write, at least sizeimage.
 *
 * Return: 0; -EINVAL for an index outside the buffers granted, a length
 * below sizeimage or the wrong memory type; -EFAULT when the driver cannot
 * use the buffer: a driver on videobuf2-dma-contig (no IOMMU) given pages
 * that are not physically contiguous, in which case llmem_last_error() says
 * so and the caller can retry with a memory created with
 * LLMEM_MEMORY_CONTIGUOUS (memory.h); other VIDIOC_QBUF errors.
 */
int llmem_v4l2_queue_dmabuf(struct llmem_v4l2 *dev, uint32_t index, int fd, uint32_t length);

/* Queues (or re-queues) the device's own buffer @index (MMAP memory). */
int llmem_v4l2_queue(struct llmem_v4l2 *dev, uint32_t index);

/**
 * llmem_v4l2_export() - the device's own buffer @index as a DMA-BUF.
 * @fd: receives a new close-on-exec fd the caller owns and must close.
 *
 * Return: 0; -EINVAL for an index outside the buffers granted or without
 * MMAP memory; other VIDIOC_EXPBUF errors.
 */
int llmem_v4l2_export(struct llmem_v4l2 *dev, uint32_t index, int *fd);

int llmem_v4l2_stream_on(struct llmem_v4l2 *dev);
int llmem_v4l2_stream_off(struct llmem_v4l2 *dev);

/**
 * llmem_v4l2_dequeue() - wait for the next frame.
 * @timeout_ms: how long to wait; negative waits forever.
 *
 * Return: 0; -ETIMEDOUT when no frame came in time; -EAGAIN at once when
 * no buffer is queued (no frame could ever come); -EINVAL when not
 * streaming; other VIDIOC_DQBUF errors.
 */
int llmem_v4l2_dequeue(struct llmem_v4l2 *dev, int timeout_ms, struct llmem_v4l2_frame *frame);

#ifdef __cplusplus
}
#endif

#endif
