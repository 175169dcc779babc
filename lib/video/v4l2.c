// SPDX-License-Identifier: MIT
/*
 * V4L2 capture nodes driven for zero-copy: finding and opening them,
 * buffers queued as the caller's DMA-BUFs or the driver's own, streaming
 * and dequeueing, every failure named with its ioctl and node (formats are
 * v4l2_format.c's).  Single-planar and multi-planar nodes take the same
 * calls: the buffer type is chosen at open, and a struct v4l2_buffer
 * carries its planes only on the latter.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/share.h>
#include <llmem/v4l2.h>

#include "base/error.h"
#include "video/v4l2.h"

/* Room for any /dev/videoN a finder returns. */
#define MIN_PATH 32

/*
 * What an errno means coming from a streaming node, where the bare string
 * would mislead: vb2 answers EIO once the driver reported the stream broken
 * (vb2_queue_error()), and the V4L2 core ENODEV once the device is gone.
 */
static const char *v4l2_errno_hint(unsigned long request, int err)
{
	if (err == EIO && (request == VIDIOC_DQBUF || request == VIDIOC_QBUF))
		return " (the driver reported a fatal streaming error: stop streaming and "
		       "start again)";
	if (err == ENODEV)
		return " (the device was disconnected: only closing it is left)";
	return "";
}

int llmem_v4l2_call(struct llmem_v4l2 *dev, unsigned long request, const char *name, void *arg)
{
	int ret;

	do {
		ret = ioctl(dev->fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "%s on %s: %s%s", name, dev->path, strerror(errno),
				   v4l2_errno_hint(request, errno));
	return 0;
}

/* The capture buffer type a node with @caps is driven through; 0 for none. */
static uint32_t capture_type(uint32_t caps)
{
	if (!(caps & V4L2_CAP_STREAMING))
		return 0;
	if (caps & V4L2_CAP_VIDEO_CAPTURE)
		return V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (caps & V4L2_CAP_VIDEO_CAPTURE_MPLANE)
		return V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	return 0;
}

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
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_QUERYCAP, &cap);
	if (ret)
		goto out_close;
	dev->type = capture_type(cap.device_caps);
	if (!dev->type) {
		ret = llmem_error(-ENODEV, "%s (%s) is not a streaming video capture device", path,
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

LLMEM_PUBLIC int llmem_v4l2_multiplanar(const struct llmem_v4l2 *dev)
{
	return dev && llmem_v4l2_is_mplane(dev);
}

LLMEM_PUBLIC int llmem_v4l2_set_input(struct llmem_v4l2 *dev, uint32_t index)
{
	int input = (int)index;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_set_input: NULL device");
	return LLMEM_V4L2_CALL(dev, VIDIOC_S_INPUT, &input);
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

/*
 * The memory planes of the format the node has, for a caller that never
 * set one (llmem_v4l2_set_format()): what DMA-BUFs it needs to be queued.
 * A format of more planes than this library queues is left unknown, and
 * queueing then fails with the count.
 */
static void learn_mem_planes(struct llmem_v4l2 *dev)
{
	struct v4l2_format fmt = { .type = dev->type };

	if (LLMEM_V4L2_CALL(dev, VIDIOC_G_FMT, &fmt))
		return;
	if (!llmem_v4l2_is_mplane(dev)) {
		dev->format.mem_planes = 1;
		dev->format.mem_plane_size[0] = fmt.fmt.pix.sizeimage;
		return;
	}
	if (fmt.fmt.pix_mp.num_planes > LLMEM_V4L2_MAX_MEM_PLANES)
		return;
	dev->format.mem_planes = fmt.fmt.pix_mp.num_planes;
	for (uint32_t p = 0; p < fmt.fmt.pix_mp.num_planes; p++)
		dev->format.mem_plane_size[p] = fmt.fmt.pix_mp.plane_fmt[p].sizeimage;
}

LLMEM_PUBLIC int llmem_v4l2_request_buffers(struct llmem_v4l2 *dev, enum llmem_v4l2_memory memory,
					    uint32_t count)
{
	struct v4l2_requestbuffers req = { .count = count };
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_request_buffers: NULL device");
	req.type = dev->type;
	if (to_v4l2_memory(memory) < 0)
		return llmem_error(-EINVAL, "llmem_v4l2_request_buffers: unknown memory %d",
				   (int)memory);
	if (dev->streaming)
		return llmem_error(-EBUSY, "%s: stop streaming before changing buffers", dev->path);
	req.memory = (uint32_t)to_v4l2_memory(memory);
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_REQBUFS, &req);
	if (ret)
		return ret;
	dev->memory = memory;
	dev->count = req.count;
	if (req.count && !dev->format.mem_planes)
		learn_mem_planes(dev);
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

/*
 * A struct v4l2_buffer for slot @index: on a multi-planar node with @planes
 * (VIDEO_MAX_PLANES of them) for its memory planes, which the caller fills.
 */
static void buffer_init(const struct llmem_v4l2 *dev, struct v4l2_buffer *buf,
			struct v4l2_plane *planes, uint32_t index, enum llmem_v4l2_memory memory)
{
	*buf = (struct v4l2_buffer){
		.index = index,
		.type = dev->type,
		.memory = (uint32_t)to_v4l2_memory(memory),
	};
	if (llmem_v4l2_is_mplane(dev)) {
		memset(planes, 0, VIDEO_MAX_PLANES * sizeof(*planes));
		buf->m.planes = planes;
		buf->length = dev->format.mem_planes ? dev->format.mem_planes : VIDEO_MAX_PLANES;
	}
}

/*
 * The bytes the device may write into @plane: its stated length, or the
 * whole fd; -EINVAL when below the memory plane's size, which some kernels'
 * videobuf2 answers by keeping a reference to the buffer.
 */
static int plane_length(struct llmem_v4l2 *dev, uint32_t p, const struct llmem_v4l2_plane *plane,
			uint32_t *length)
{
	uint32_t need = dev->format.mem_plane_size[p];
	off_t size;

	*length = plane->length;
	if (!*length || *length >= need) {
		size = lseek(plane->fd, 0, SEEK_END);
		/* EINVAL, as VIDIOC_QBUF itself answers an fd that is no DMA-BUF. */
		if (size < 0)
			return llmem_error(
				-EINVAL,
				"llmem_v4l2_queue_dmabuf: %s plane %u: fd %d is not a DMA-BUF (%s)",
				dev->path, p, plane->fd, strerror(errno));
		if (!*length || *length > size)
			*length = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	}
	if (*length < need)
		return llmem_error(-EINVAL,
				   "llmem_v4l2_queue_dmabuf: %s plane %u: DMA-BUF %d offers %u "
				   "bytes, the driver needs %u; refused before VIDIOC_QBUF",
				   dev->path, p, plane->fd, *length, need);
	return 0;
}

/* After an EFAULT from QBUF: whether scattered pages are the likely cause. */
static int explain_efault(struct llmem_v4l2 *dev, const struct llmem_v4l2_plane *planes,
			  uint32_t num_planes)
{
	for (uint32_t p = 0; p < num_planes; p++) {
		/* videobuf2-dma-contig refuses a buffer it cannot map as one range. */
		int contiguous = dmabuf_contiguous(planes[p].fd);

		if (contiguous != 1)
			return llmem_error(-EFAULT,
					   "VIDIOC_QBUF on %s: Bad address: the driver (%s) cannot "
					   "use DMA-BUF %d, whose pages %s; it probably needs "
					   "physically contiguous memory: create the memory with "
					   "LLMEM_MEMORY_CONTIGUOUS",
					   dev->path, dev->driver, planes[p].fd,
					   contiguous ? "may be scattered" : "are not contiguous");
	}
	return -EFAULT;
}

LLMEM_PUBLIC int llmem_v4l2_queue_dmabuf_planes(struct llmem_v4l2 *dev, uint32_t index,
						const struct llmem_v4l2_plane *planes,
						uint32_t num_planes)
{
	struct v4l2_plane vp[VIDEO_MAX_PLANES];
	struct v4l2_buffer buf;
	uint32_t length[LLMEM_V4L2_MAX_MEM_PLANES];
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_DMABUF, "llmem_v4l2_queue_dmabuf");

	if (ret)
		return ret;
	if (!planes || num_planes != dev->format.mem_planes)
		return llmem_error(-EINVAL,
				   "llmem_v4l2_queue_dmabuf: %u DMA-BUFs given, a frame of %s "
				   "takes %u",
				   planes ? num_planes : 0, dev->path, dev->format.mem_planes);
	for (uint32_t p = 0; p < num_planes; p++) {
		ret = plane_length(dev, p, &planes[p], &length[p]);
		if (ret)
			return ret;
	}
	buffer_init(dev, &buf, vp, index, LLMEM_V4L2_MEMORY_DMABUF);
	if (llmem_v4l2_is_mplane(dev)) {
		for (uint32_t p = 0; p < num_planes; p++) {
			vp[p].m.fd = planes[p].fd;
			vp[p].length = length[p];
		}
	} else {
		buf.m.fd = planes[0].fd;
		buf.length = length[0];
	}
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_QBUF, &buf);
	return ret == -EFAULT ? explain_efault(dev, planes, num_planes) : ret;
}

LLMEM_PUBLIC int llmem_v4l2_queue_dmabuf(struct llmem_v4l2 *dev, uint32_t index, int fd,
					 uint32_t length)
{
	struct llmem_v4l2_plane plane = { .fd = fd, .length = length };

	return llmem_v4l2_queue_dmabuf_planes(dev, index, &plane, 1);
}

LLMEM_PUBLIC int llmem_v4l2_queue(struct llmem_v4l2 *dev, uint32_t index)
{
	struct v4l2_plane vp[VIDEO_MAX_PLANES];
	struct v4l2_buffer buf;
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_MMAP, "llmem_v4l2_queue");

	if (ret)
		return ret;
	buffer_init(dev, &buf, vp, index, LLMEM_V4L2_MEMORY_MMAP);
	return LLMEM_V4L2_CALL(dev, VIDIOC_QBUF, &buf);
}

LLMEM_PUBLIC int llmem_v4l2_export_plane(struct llmem_v4l2 *dev, uint32_t index, uint32_t plane,
					 int *fd)
{
	struct v4l2_exportbuffer exp = {
		.index = index,
		.plane = plane,
		.flags = O_CLOEXEC | O_RDWR,
	};
	int ret = check_slot(dev, index, LLMEM_V4L2_MEMORY_MMAP, "llmem_v4l2_export");

	if (ret)
		return ret;
	if (!fd)
		return llmem_error(-EINVAL, "llmem_v4l2_export: NULL fd");
	if (plane && plane >= dev->format.mem_planes)
		return llmem_error(-EINVAL, "llmem_v4l2_export: plane %u, a frame of %s has %u",
				   plane, dev->path, dev->format.mem_planes);
	exp.type = dev->type;
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_EXPBUF, &exp);
	if (ret)
		return ret;
	*fd = exp.fd;
	return 0;
}

LLMEM_PUBLIC int llmem_v4l2_export(struct llmem_v4l2 *dev, uint32_t index, int *fd)
{
	return llmem_v4l2_export_plane(dev, index, 0, fd);
}

LLMEM_PUBLIC int llmem_v4l2_stream_on(struct llmem_v4l2 *dev)
{
	int type, ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_stream_on: NULL device");
	type = (int)dev->type;
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_STREAMON, &type);
	if (!ret)
		dev->streaming = 1;
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_stream_off(struct llmem_v4l2 *dev)
{
	int type, ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_stream_off: NULL device");
	type = (int)dev->type;
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_STREAMOFF, &type);
	if (!ret)
		dev->streaming = 0;
	return ret;
}

LLMEM_PUBLIC int llmem_v4l2_dequeue(struct llmem_v4l2 *dev, int timeout_ms,
				    struct llmem_v4l2_frame *frame)
{
	struct v4l2_plane vp[VIDEO_MAX_PLANES];
	struct v4l2_buffer buf;
	uint32_t bytesused = 0;
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
	buffer_init(dev, &buf, vp, 0, dev->memory);
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_DQBUF, &buf);
	/* vb2 flags an empty queue as a poll error, and DQBUF then says EAGAIN. */
	if (ret == -EAGAIN && (pfd.revents & POLLERR))
		return llmem_error(-EAGAIN, "%s: no buffer is queued", dev->path);
	if (ret)
		return ret;
	if (!llmem_v4l2_is_mplane(dev))
		bytesused = buf.bytesused;
	for (uint32_t p = 0; llmem_v4l2_is_mplane(dev) && p < buf.length; p++)
		bytesused += vp[p].bytesused;
	*frame = (struct llmem_v4l2_frame){
		.index = buf.index,
		.bytesused = bytesused,
		.sequence = buf.sequence,
		.corrupted = !!(buf.flags & V4L2_BUF_FLAG_ERROR),
		.timestamp_ns = (uint64_t)buf.timestamp.tv_sec * 1000000000u +
				(uint64_t)buf.timestamp.tv_usec * 1000u,
	};
	return 0;
}

LLMEM_PUBLIC int llmem_v4l2_find_capture(char *path, size_t size)
{
	struct llmem_v4l2_node_list *list;
	uint32_t i;
	int ret;

	if (!path || size < MIN_PATH)
		return llmem_error(-EINVAL, "llmem_v4l2_find_capture: %s",
				   path ? "path too short" : "NULL path");
	ret = llmem_v4l2_list_nodes(NULL, &list);
	if (ret)
		return ret;
	for (i = 0; i < list->count; i++)
		if (llmem_v4l2_node_captures_dmabuf(&list->nodes[i]) == 1)
			break;
	if (i < list->count)
		snprintf(path, size, "%s", list->nodes[i].path);
	else
		ret = llmem_error(-ENODEV, "no V4L2 node captures with streaming I/O into "
					   "DMA-BUFs (/dev/video*)");
	llmem_v4l2_node_list_free(list);
	return ret;
}
