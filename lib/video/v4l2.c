// SPDX-License-Identifier: MIT
/*
 * V4L2 capture nodes driven for zero-copy: format negotiation, buffers
 * queued as the caller's DMA-BUFs or the driver's own, streaming and
 * dequeueing, every failure named with its ioctl and node.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/share.h>
#include <llmem/v4l2.h>

#include "base/error.h"

/* /dev/video0 to /dev/video255, as the kernel numbers V4L2 nodes. */
#define MAX_NODES 256

struct llmem_v4l2 {
	int fd;
	char path[64];
	char driver[16];
	enum llmem_v4l2_memory memory;
	uint32_t count;
	int streaming;
	struct llmem_v4l2_format format;
};

static const char *fourcc_str(uint32_t fourcc, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);

		buf[i] = c >= 32 && c < 127 ? c : '?';
	}
	buf[4] = '\0';
	return buf;
}

/* Runs one ioctl; on failure records which one, on which node, and why. */
static int v4l2_call(struct llmem_v4l2 *dev, unsigned long request, const char *name, void *arg)
{
	int ret;

	do {
		ret = ioctl(dev->fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "%s on %s: %s", name, dev->path, strerror(errno));
	return 0;
}

#define V4L2_CALL(dev, request, arg) v4l2_call(dev, request, #request, arg)

LLMEM_PUBLIC int llmem_v4l2_open(const char *path, struct llmem_v4l2 **out)
{
	struct v4l2_capability cap = { 0 };
	struct llmem_v4l2 *dev;
	int ret;

	if (!path || !out)
		return llmem_error(-EINVAL, "llmem_v4l2_open: NULL %s", path ? "out" : "path");
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return llmem_error(-ENOMEM, "llmem_v4l2_open: out of memory");
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	dev->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (dev->fd < 0) {
		ret = llmem_error(-errno, "open %s: %s", path, strerror(errno));
		goto out_free;
	}
	ret = V4L2_CALL(dev, VIDIOC_QUERYCAP, &cap);
	if (ret)
		goto out_close;
	if (!(cap.device_caps & V4L2_CAP_VIDEO_CAPTURE) ||
	    !(cap.device_caps & V4L2_CAP_STREAMING)) {
		ret = llmem_error(-ENODEV,
				  "%s (%s) is not a streaming single-planar capture device", path,
				  (const char *)cap.driver);
		goto out_close;
	}
	memcpy(dev->driver, cap.driver, sizeof(dev->driver) - 1);
	*out = dev;
	return 0;

out_close:
	close(dev->fd);
out_free:
	free(dev);
	return ret;
}

LLMEM_PUBLIC void llmem_v4l2_close(struct llmem_v4l2 *dev)
{
	if (!dev)
		return;
	if (dev->streaming)
		llmem_v4l2_stream_off(dev);
	if (dev->count)
		llmem_v4l2_request_buffers(dev, dev->memory, 0);
	close(dev->fd);
	free(dev);
}

LLMEM_PUBLIC const char *llmem_v4l2_driver(const struct llmem_v4l2 *dev)
{
	return dev ? dev->driver : "";
}

LLMEM_PUBLIC int llmem_v4l2_set_input(struct llmem_v4l2 *dev, uint32_t index)
{
	int input = (int)index;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_set_input: NULL device");
	return V4L2_CALL(dev, VIDIOC_S_INPUT, &input);
}

LLMEM_PUBLIC int llmem_v4l2_has_format(struct llmem_v4l2 *dev, uint32_t fourcc)
{
	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_has_format: NULL device");
	for (uint32_t i = 0;; i++) {
		struct v4l2_fmtdesc desc = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		int ret = ioctl(dev->fd, VIDIOC_ENUM_FMT, &desc);

		if (ret == -1 && errno == EINVAL)
			return 0;
		if (ret == -1)
			return llmem_error(-errno, "VIDIOC_ENUM_FMT on %s: %s", dev->path,
					   strerror(errno));
		if (desc.pixelformat == fourcc)
			return 1;
	}
}

/* Where the colour planes of one single-planar buffer lie. */
static int describe_planes(struct llmem_v4l2_format *f)
{
	switch (f->fourcc) {
	case V4L2_PIX_FMT_YUYV:
		f->num_planes = 1;
		f->plane_offset[0] = 0;
		f->plane_pitch[0] = f->bytesperline;
		return 0;
	case V4L2_PIX_FMT_NV12:
		f->num_planes = 2;
		f->plane_offset[0] = 0;
		f->plane_pitch[0] = f->bytesperline;
		f->plane_offset[1] = f->bytesperline * f->height;
		f->plane_pitch[1] = f->bytesperline;
		return 0;
	default:
		return -EINVAL;
	}
}

/* The driver may leave encoding and quantization to its colorspace's defaults. */
static void describe_colour(const struct v4l2_pix_format *pix, struct llmem_v4l2_format *f)
{
	uint32_t enc = pix->ycbcr_enc, quant = pix->quantization;

	if (enc == V4L2_YCBCR_ENC_DEFAULT)
		enc = V4L2_MAP_YCBCR_ENC_DEFAULT(pix->colorspace);
	if (quant == V4L2_QUANTIZATION_DEFAULT)
		quant = V4L2_MAP_QUANTIZATION_DEFAULT(0, pix->colorspace, enc);
	f->encoding = enc == V4L2_YCBCR_ENC_709 ? LLMEM_YCBCR_BT709 : LLMEM_YCBCR_BT601;
	f->range = quant == V4L2_QUANTIZATION_FULL_RANGE ? LLMEM_YCBCR_FULL_RANGE
							 : LLMEM_YCBCR_LIMITED_RANGE;
}

LLMEM_PUBLIC int llmem_v4l2_set_format(struct llmem_v4l2 *dev, uint32_t fourcc, uint32_t width,
				       uint32_t height, struct llmem_v4l2_format *out)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct llmem_v4l2_format agreed = { 0 };
	char want[5], got[5];
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_set_format: NULL device");
	if (fourcc != V4L2_PIX_FMT_YUYV && fourcc != V4L2_PIX_FMT_NV12)
		return llmem_error(-EINVAL, "format %s: only YUYV and NV12 are supported",
				   fourcc_str(fourcc, want));
	if (!width || !height)
		return llmem_error(-EINVAL, "size %ux%u: width and height must be non-zero", width,
				   height);
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = fourcc;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ret = V4L2_CALL(dev, VIDIOC_S_FMT, &fmt);
	if (ret)
		return ret;
	if (fmt.fmt.pix.pixelformat != fourcc || fmt.fmt.pix.width != width ||
	    fmt.fmt.pix.height != height)
		return llmem_error(-EINVAL, "%s offers %ux%u %s instead of %ux%u %s", dev->path,
				   fmt.fmt.pix.width, fmt.fmt.pix.height,
				   fourcc_str(fmt.fmt.pix.pixelformat, got), width, height,
				   fourcc_str(fourcc, want));
	agreed.fourcc = fourcc;
	agreed.width = width;
	agreed.height = height;
	agreed.bytesperline = fmt.fmt.pix.bytesperline;
	agreed.sizeimage = fmt.fmt.pix.sizeimage;
	describe_planes(&agreed);
	describe_colour(&fmt.fmt.pix, &agreed);
	dev->format = agreed;
	if (out)
		*out = agreed;
	return 0;
}

static int to_v4l2_memory(enum llmem_v4l2_memory memory)
{
	switch (memory) {
	case LLMEM_V4L2_MEMORY_DMABUF:
		return V4L2_MEMORY_DMABUF;
	case LLMEM_V4L2_MEMORY_MMAP:
		return V4L2_MEMORY_MMAP;
	}
	return -1;
}

LLMEM_PUBLIC int llmem_v4l2_request_buffers(struct llmem_v4l2 *dev, enum llmem_v4l2_memory memory,
					    uint32_t count)
{
	struct v4l2_requestbuffers req = { .count = count, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_request_buffers: NULL device");
	if (to_v4l2_memory(memory) < 0)
		return llmem_error(-EINVAL, "llmem_v4l2_request_buffers: unknown memory %d",
				   (int)memory);
	if (dev->streaming)
		return llmem_error(-EBUSY, "%s: stop streaming before changing buffers", dev->path);
	req.memory = (uint32_t)to_v4l2_memory(memory);
	ret = V4L2_CALL(dev, VIDIOC_REQBUFS, &req);
	if (ret)
		return ret;
	dev->memory = memory;
	dev->count = req.count;
	return (int)req.count;
}

static int check_slot(struct llmem_v4l2 *dev, uint32_t index, enum llmem_v4l2_memory memory,
		      const char *what)
{
	if (!dev)
		return llmem_error(-EINVAL, "%s: NULL device", what);
	if (!dev->count || dev->memory != memory)
		return llmem_error(-EINVAL, "%s: %s has no %s buffers requested", what, dev->path,
				   memory == LLMEM_V4L2_MEMORY_DMABUF ? "DMABUF" : "MMAP");
	if (index >= dev->count)
		return llmem_error(-EINVAL, "%s: index %u, but only %u buffers were granted", what,
				   index, dev->count);
	return 0;
}

/*
 * Whether llmem.ko says the DMA-BUF @fd is physically contiguous: 1 or 0;
 * -1 when it cannot tell (no /dev/llmem).  Only llmem's own buffers can be
 * contiguous as far as it knows; a foreign one reads as not.
 */
static int dmabuf_contiguous(int fd)
{
	struct llmem_dmabuf_state state;

	if (llmem_dmabuf_query(fd, &state))
		return -1;
	return !!(state.flags & LLMEM_DMABUF_CONTIGUOUS);
}

LLMEM_PUBLIC int llmem_v4l2_queue_dmabuf(struct llmem_v4l2 *dev, uint32_t index, int fd,
					 uint32_t length)
{
	struct v4l2_buffer buf = {
		.index = index,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
		.length = length,
	};
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_DMABUF, "llmem_v4l2_queue_dmabuf");
	int contiguous;

	if (ret)
		return ret;
	if (length < dev->format.sizeimage)
		return llmem_error(-EINVAL, "llmem_v4l2_queue_dmabuf: %u bytes, a frame needs %u",
				   length, dev->format.sizeimage);
	buf.m.fd = fd;
	ret = V4L2_CALL(dev, VIDIOC_QBUF, &buf);
	if (ret != -EFAULT)
		return ret;
	/* videobuf2-dma-contig refuses a buffer it cannot map as one range. */
	contiguous = dmabuf_contiguous(fd);
	if (contiguous != 1)
		ret = llmem_error(-EFAULT,
				  "VIDIOC_QBUF on %s: Bad address: the driver (%s) cannot use "
				  "DMA-BUF %d, whose pages %s; it probably needs physically "
				  "contiguous memory: create the memory with "
				  "LLMEM_MEMORY_CONTIGUOUS",
				  dev->path, dev->driver, fd,
				  contiguous ? "may be scattered" : "are not contiguous");
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_queue(struct llmem_v4l2 *dev, uint32_t index)
{
	struct v4l2_buffer buf = {
		.index = index,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_MMAP, "llmem_v4l2_queue");

	return ret ? ret : V4L2_CALL(dev, VIDIOC_QBUF, &buf);
}

LLMEM_PUBLIC int llmem_v4l2_export(struct llmem_v4l2 *dev, uint32_t index, int *fd)
{
	struct v4l2_exportbuffer exp = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.index = index,
		.flags = O_CLOEXEC | O_RDWR,
	};
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_MMAP, "llmem_v4l2_export");

	if (ret)
		return ret;
	if (!fd)
		return llmem_error(-EINVAL, "llmem_v4l2_export: NULL fd");
	ret = V4L2_CALL(dev, VIDIOC_EXPBUF, &exp);
	if (ret)
		return ret;
	*fd = exp.fd;
	return 0;
}

LLMEM_PUBLIC int llmem_v4l2_stream_on(struct llmem_v4l2 *dev)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_stream_on: NULL device");
	ret = V4L2_CALL(dev, VIDIOC_STREAMON, &type);
	if (!ret)
		dev->streaming = 1;
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_stream_off(struct llmem_v4l2 *dev)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_stream_off: NULL device");
	ret = V4L2_CALL(dev, VIDIOC_STREAMOFF, &type);
	if (!ret)
		dev->streaming = 0;
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_dequeue(struct llmem_v4l2 *dev, int timeout_ms,
				    struct llmem_v4l2_frame *frame)
{
	struct v4l2_buffer buf = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct pollfd pfd;
	int ret;

	if (!dev || !frame)
		return llmem_error(-EINVAL, "llmem_v4l2_dequeue: NULL %s",
				   dev ? "frame" : "device");
	if (!dev->streaming)
		return llmem_error(-EINVAL, "llmem_v4l2_dequeue: %s is not streaming", dev->path);
	pfd = (struct pollfd){ .fd = dev->fd, .events = POLLIN };
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "poll %s: %s", dev->path, strerror(errno));
	if (ret == 0)
		return llmem_error(-ETIMEDOUT, "%s: no frame within %d ms", dev->path, timeout_ms);
	buf.memory = (uint32_t)to_v4l2_memory(dev->memory);
	ret = V4L2_CALL(dev, VIDIOC_DQBUF, &buf);
	/* vb2 flags an empty queue as a poll error, and DQBUF then says EAGAIN. */
	if (ret == -EAGAIN && (pfd.revents & POLLERR))
		return llmem_error(-EAGAIN, "%s: no buffer is queued", dev->path);
	if (ret)
		return ret;
	*frame = (struct llmem_v4l2_frame){
		.index = buf.index,
		.bytesused = buf.bytesused,
		.sequence = buf.sequence,
		.corrupted = !!(buf.flags & V4L2_BUF_FLAG_ERROR),
		.timestamp_ns = (uint64_t)buf.timestamp.tv_sec * 1000000000u +
				(uint64_t)buf.timestamp.tv_usec * 1000u,
	};
	return 0;
}

LLMEM_PUBLIC int llmem_v4l2_format_layout(const struct llmem_v4l2_format *f,
					  struct llmem_frame_layout *layout)
{
	struct llmem_frame_constraints c;

	if (!f || !layout)
		return llmem_error(-EINVAL, "llmem_v4l2_format_layout: NULL %s",
				   f ? "layout" : "format");
	/* For YUYV and NV12 the V4L2 pixel format is the DRM fourcc. */
	c = (struct llmem_frame_constraints){
		.pitch = f->bytesperline,
		.min_size = f->sizeimage,
	};
	return llmem_frame_layout_init(f->fourcc, f->width, f->height, &c, layout);
}

/* Whether the open node @fd captures with streaming I/O into DMA-BUFs. */
static bool imports_dmabuf(int fd)
{
	struct v4l2_capability cap = { 0 };
	struct v4l2_requestbuffers req = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};

	if (ioctl(fd, VIDIOC_QUERYCAP, &cap) == -1 || !(cap.device_caps & V4L2_CAP_VIDEO_CAPTURE) ||
	    !(cap.device_caps & V4L2_CAP_STREAMING))
		return false;
	/* A request of no buffers allocates nothing and reports what the
	 * queue supports. */
	return ioctl(fd, VIDIOC_REQBUFS, &req) == 0 &&
	       (req.capabilities & V4L2_BUF_CAP_SUPPORTS_DMABUF);
}

LLMEM_PUBLIC int llmem_v4l2_find_capture(char *path, size_t size)
{
	char node[32];

	if (!path || size < sizeof(node))
		return llmem_error(-EINVAL, "llmem_v4l2_find_capture: %s",
				   path ? "path too short" : "NULL path");
	for (int i = 0; i < MAX_NODES; i++) {
		bool found;
		int fd;

		snprintf(node, sizeof(node), "/dev/video%d", i);
		fd = open(node, O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		found = imports_dmabuf(fd);
		close(fd);
		if (found) {
			snprintf(path, size, "%s", node);
			return 0;
		}
	}
	return llmem_error(-ENODEV,
			   "no V4L2 node captures with streaming I/O into DMA-BUFs (/dev/video*)");
}
