/* SPDX-License-Identifier: MIT */
/*
 * A V4L2 capture device driven for zero-copy: frames land in DMA-BUFs the
 * caller supplies (V4L2_MEMORY_DMABUF), or in the device's own buffers that
 * it exports (V4L2_MEMORY_MMAP + VIDIOC_EXPBUF).
 *
 * Single-planar nodes (V4L2_CAP_VIDEO_CAPTURE) and multi-planar ones
 * (V4L2_CAP_VIDEO_CAPTURE_MPLANE) alike: on a multi-planar node a frame may
 * take one buffer per colour plane (NV12M: the Y plane and the CbCr plane
 * each a DMA-BUF of its own), what V4L2 calls the planes of a buffer and
 * this API its memory planes.
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
#include "negotiate.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_v4l2;

/* The most memory planes a frame takes here (NV12M's two). */
#define LLMEM_V4L2_MAX_MEM_PLANES 2

/* Where the device's frames live. */
enum llmem_v4l2_memory {
	LLMEM_V4L2_MEMORY_DMABUF = 1, /* DMA-BUFs queued by the caller */
	LLMEM_V4L2_MEMORY_MMAP = 2, /* the device's own buffers */
};

/**
 * struct llmem_v4l2_format - what the device agreed to.
 * @fourcc: V4L2 pixel format: YUYV, NV12 or (multi-planar nodes only)
 *          NV12M; for YUYV and NV12 the same code as the DRM fourcc
 *          (DRM_FORMAT_YUYV, DRM_FORMAT_NV12).
 * @width: pixels.
 * @height: pixels.
 * @bytesperline: pitch of the first plane, as the driver demands it.
 * @sizeimage: bytes one frame needs, all its memory planes together.
 * @num_planes: colour planes of a frame: 1 for YUYV, 2 for NV12 and NV12M.
 * @plane_offset: where each colour plane starts inside its memory plane.
 * @plane_pitch: bytes per row of each colour plane.
 * @encoding: the Y'CbCr matrix the driver says it uses, as enum
 *            llmem_ycbcr_encoding (BT.709 when it says so, BT.601 otherwise).
 * @range: the quantization it says it uses, as enum llmem_ycbcr_range.
 * @mem_planes: buffers a frame takes: 1, or 2 for NV12M, whose colour
 *              plane p is memory plane p.
 * @mem_plane_size: bytes of each memory plane as the driver demands them;
 *                  every DMA-BUF queued for one must hold at least this.
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
	uint32_t mem_planes;
	uint32_t mem_plane_size[LLMEM_V4L2_MAX_MEM_PLANES];
};

/**
 * struct llmem_v4l2_plane - one memory plane of a buffer being queued.
 * @fd: the DMA-BUF; it stays the caller's (the kernel takes its own
 *      reference), and the plane starts at its first byte.
 * @length: bytes of @fd the device may write; leave 0 for the whole fd.
 */
struct llmem_v4l2_plane {
	int fd;
	uint32_t length;
};

/**
 * struct llmem_v4l2_frame - a dequeued buffer.
 * @index: the buffer's index, as given to llmem_v4l2_queue_dmabuf().
 * @bytesused: bytes of frame data the device wrote, in all memory planes.
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
 * A frame of two memory planes (NV12M) is described as DRM describes a
 * framebuffer of one buffer per plane: fourcc DRM_FORMAT_NV12, plane p's
 * offset counted from memory plane p's first byte, and @size the bytes of
 * both memory planes together.
 *
 * Return: 0; -EINVAL for NULL arguments or a format the layout cannot
 * describe.
 */
int llmem_v4l2_format_layout(const struct llmem_v4l2_format *format,
			     struct llmem_frame_layout *layout);

/* What a node is for, as its capabilities say (llmem_v4l2_node.role). */
enum llmem_v4l2_role {
	LLMEM_V4L2_ROLE_OTHER = 0,
	LLMEM_V4L2_ROLE_CAPTURE = 1, /* frames come out of it */
	LLMEM_V4L2_ROLE_OUTPUT = 2, /* frames go into it */
	LLMEM_V4L2_ROLE_M2M = 3, /* both: a codec or a converter */
	LLMEM_V4L2_ROLE_METADATA = 4, /* metadata capture only */
};

/* The memory a queue streams from (llmem_v4l2_queue_info.memory): the
 * same bits as V4L2_BUF_CAP_SUPPORTS_*. */
enum llmem_v4l2_memory_caps {
	LLMEM_V4L2_MEMCAP_MMAP = 1u << 0,
	LLMEM_V4L2_MEMCAP_USERPTR = 1u << 1,
	LLMEM_V4L2_MEMCAP_DMABUF = 1u << 2,
	/* The queue takes media requests (a stateless codec demands them). */
	LLMEM_V4L2_MEMCAP_REQUESTS = 1u << 3,
};

/**
 * struct llmem_v4l2_fmtdesc - one format a queue lists (VIDIOC_ENUM_FMT).
 * @fourcc: the V4L2 pixel format.
 * @flags: V4L2_FMT_FLAG_*; V4L2_FMT_FLAG_COMPRESSED marks a bitstream.
 * @description: the driver's name for it, NUL-terminated.
 */
struct llmem_v4l2_fmtdesc {
	uint32_t fourcc;
	uint32_t flags;
	char description[32];
};

/**
 * struct llmem_v4l2_queue_info - one queue of a node.
 * @type: V4L2_BUF_TYPE_VIDEO_OUTPUT or _CAPTURE, or their _MPLANE forms.
 * @output: 1 for the queue the program feeds (OUTPUT), 0 for the one it
 *          receives frames from (CAPTURE).
 * @multiplanar: 1 when @type is a multi-planar one.
 * @num_formats: entries at @formats.
 * @formats: what VIDIOC_ENUM_FMT lists, in the driver's order.
 * @formats_error: 0, or the negative errno of a VIDIOC_ENUM_FMT that
 *                 failed other than at the end of the list.
 * @memory: enum llmem_v4l2_memory_caps, from a VIDIOC_REQBUFS of no
 *          buffers (it allocates nothing; Linux 4.20 and later); 0 on a
 *          node without streaming I/O, which is not asked.
 * @memory_error: 0, or the negative errno that VIDIOC_REQBUFS gave:
 *                -EBUSY while another process streams from the queue.
 */
struct llmem_v4l2_queue_info {
	uint32_t type;
	uint32_t output;
	uint32_t multiplanar;
	uint32_t num_formats;
	struct llmem_v4l2_fmtdesc *formats;
	int32_t formats_error;
	uint32_t memory;
	int32_t memory_error;
};

/* The most queues a node has: an m2m node's OUTPUT and CAPTURE. */
#define LLMEM_V4L2_MAX_QUEUES 2

/**
 * struct llmem_v4l2_node - a V4L2 video node and what it offers.
 * @path: the node, e.g. "/dev/video0".
 * @error: 0, or the negative errno of the open() or VIDIOC_QUERYCAP that
 *         failed (-EACCES without the rights): then only @path is set.
 * @driver: v4l2_capability.driver, e.g. "vivid".
 * @card: v4l2_capability.card.
 * @bus: v4l2_capability.bus_info.
 * @caps: the node's V4L2_CAP_* (device_caps where the driver gives them).
 * @role: enum llmem_v4l2_role.
 * @streaming: 1 when the node has streaming I/O (V4L2_CAP_STREAMING).
 * @num_queues: entries of @queues: the OUTPUT queue first when the node
 *              has one, then the CAPTURE queue; 0 for metadata and other
 *              nodes.
 * @queues: its video queues, multi-planar when the node offers any
 *          multi-planar capability.
 */
struct llmem_v4l2_node {
	char path[64];
	int32_t error;
	char driver[16];
	char card[32];
	char bus[32];
	uint32_t caps;
	uint32_t role;
	uint32_t streaming;
	uint32_t num_queues;
	struct llmem_v4l2_queue_info queues[LLMEM_V4L2_MAX_QUEUES];
};

/**
 * struct llmem_v4l2_node_list - what llmem_v4l2_list_nodes() found.
 * @count: entries at @nodes.
 * @nodes: in node number order.
 */
struct llmem_v4l2_node_list {
	uint32_t count;
	struct llmem_v4l2_node *nodes;
};

/**
 * llmem_v4l2_list_nodes() - describe V4L2 video nodes: what each is for,
 * and for each of its queues the formats it lists and the memory it
 * streams from.
 * @path: one node to describe, or NULL for every /dev/videoN.
 * @out: receives the list; free it with llmem_v4l2_node_list_free().
 *
 * This is the one place the library scans /dev/video*: the finders
 * (llmem_v4l2_find_capture(), llmem_codec_find()) and `llmem devices` read
 * its answer.  Each node is opened, asked and closed again; nothing is
 * allocated on it or changed.  A node that cannot be opened or asked is
 * listed with its @error, so that a caller can say why it is of no use.
 *
 * Return: 0 (a list of no nodes when there are none); -EINVAL for NULL
 * @out; -ENOMEM.
 */
int llmem_v4l2_list_nodes(const char *path, struct llmem_v4l2_node_list **out);

/* Frees a list and everything in it; NULL is ignored. */
void llmem_v4l2_node_list_free(struct llmem_v4l2_node_list *list);

/**
 * llmem_v4l2_node_captures_dmabuf() - whether a node is one
 * llmem_v4l2_find_capture() takes: it captures video (single- or
 * multi-planar) with streaming I/O into DMA-BUFs.
 *
 * Return: 1 or 0; -EINVAL for a NULL @node.
 */
int llmem_v4l2_node_captures_dmabuf(const struct llmem_v4l2_node *node);

/**
 * llmem_v4l2_find_capture() - the first node, /dev/video0 up, that captures
 * video (single- or multi-planar) with streaming I/O and imports DMA-BUFs
 * (V4L2_BUF_CAP_SUPPORTS_DMABUF).
 * @path: receives the node's path.
 * @size: bytes at @path.
 *
 * The nodes are those llmem_v4l2_list_nodes() describes, taken by
 * llmem_v4l2_node_captures_dmabuf(); one another process streams from
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
 * The node is opened close-on-exec and must capture video with streaming
 * I/O, through the single-planar API or the multi-planar one (a node that
 * offers both is driven single-planar).
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

/* 1 when the node is driven through the multi-planar API, 0 when not or
 * for NULL. */
int llmem_v4l2_multiplanar(const struct llmem_v4l2 *dev);

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
 * (the message says what it offered instead), for a format this library
 * cannot describe, or for NV12M on a single-planar node; -EBUSY while
 * buffers are allocated; other VIDIOC_S_FMT errors.
 */
int llmem_v4l2_set_format(struct llmem_v4l2 *dev, uint32_t fourcc, uint32_t width, uint32_t height,
			  struct llmem_v4l2_format *out);

/**
 * llmem_v4l2_set_format_pitch() - llmem_v4l2_set_format() with the pitch
 * (bytesperline) of every plane asked for too: the one a negotiation
 * chose (negotiate.h).  @pitch 0 leaves it to the driver.
 *
 * Return: as llmem_v4l2_set_format(); -EINVAL also when the driver keeps
 * another pitch (the message gives both).
 */
int llmem_v4l2_set_format_pitch(struct llmem_v4l2 *dev, uint32_t fourcc, uint32_t width,
				uint32_t height, uint32_t pitch, struct llmem_v4l2_format *out);

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
 * @dev: a device with DMABUF buffers requested, in a format of one memory
 *       plane.
 * @index: buffer slot, below the count granted.
 * @fd: the DMA-BUF; it stays the caller's (the kernel takes its own
 *      reference), and the frame starts at its offset 0.
 * @length: bytes of @fd the device may write, at least sizeimage; 0 for
 *          the whole fd.
 *
 * The same as llmem_v4l2_queue_dmabuf_planes() with one plane.
 */
int llmem_v4l2_queue_dmabuf(struct llmem_v4l2 *dev, uint32_t index, int fd, uint32_t length);

/**
 * llmem_v4l2_queue_dmabuf_planes() - give the device a DMA-BUF per memory
 * plane to capture one frame into.
 * @dev: a device with DMABUF buffers requested.
 * @index: buffer slot, below the count granted.
 * @planes: one per memory plane of the format, in order.
 * @num_planes: the format's mem_planes.
 *
 * A DMA-BUF smaller than its plane is refused before the kernel sees it
 * (the fd's own size counts, not only @length): videobuf2 on some kernels
 * keeps a reference to a buffer it rejects for its size.
 *
 * Return: 0; -EINVAL for NULL @planes, a plane count other than the
 * format's, an index outside the buffers granted, a DMA-BUF or length
 * below its plane's size, an fd that is not a DMA-BUF (as VIDIOC_QBUF
 * answers it), or the wrong memory type; -EFAULT when the driver cannot use the buffer: a
 * driver on videobuf2-dma-contig (no IOMMU) given pages that are not
 * physically contiguous, in which case llmem_last_error() says so and the
 * caller can retry with a memory created with LLMEM_MEMORY_CONTIGUOUS
 * (memory.h); other VIDIOC_QBUF errors.
 */
int llmem_v4l2_queue_dmabuf_planes(struct llmem_v4l2 *dev, uint32_t index,
				   const struct llmem_v4l2_plane *planes, uint32_t num_planes);

/* Queues (or re-queues) the device's own buffer @index (MMAP memory). */
int llmem_v4l2_queue(struct llmem_v4l2 *dev, uint32_t index);

/**
 * llmem_v4l2_export() - the device's own buffer @index as a DMA-BUF: its
 * first memory plane, llmem_v4l2_export_plane() with @plane 0.
 * @fd: receives a new close-on-exec fd the caller owns and must close.
 */
int llmem_v4l2_export(struct llmem_v4l2 *dev, uint32_t index, int *fd);

/**
 * llmem_v4l2_export_plane() - memory plane @plane of the device's own
 * buffer @index as a DMA-BUF.
 * @fd: receives a new close-on-exec fd the caller owns and must close.
 *
 * Return: 0; -EINVAL for NULL @fd, an index outside the buffers granted,
 * a plane past the format's mem_planes, or no MMAP memory; other
 * VIDIOC_EXPBUF errors.
 */
int llmem_v4l2_export_plane(struct llmem_v4l2 *dev, uint32_t index, uint32_t plane, int *fd);

int llmem_v4l2_stream_on(struct llmem_v4l2 *dev);
int llmem_v4l2_stream_off(struct llmem_v4l2 *dev);

/**
 * llmem_v4l2_dequeue() - wait for the next frame.
 * @timeout_ms: how long to wait; negative waits forever.
 *
 * Return: 0; -ETIMEDOUT when no frame came in time; -EAGAIN at once when
 * no buffer is queued (no frame could ever come); -EINVAL when not
 * streaming; -EIO after the driver reported a fatal streaming error (stop
 * streaming before anything else); -ENODEV once the device is gone (only
 * closing is left); other VIDIOC_DQBUF errors.  The message names the call
 * and the node, and says which of these it was.
 */
int llmem_v4l2_dequeue(struct llmem_v4l2 *dev, int timeout_ms, struct llmem_v4l2_frame *frame);

/**
 * llmem_participant_v4l2() - what a V4L2 queue takes (negotiate.h), for
 * frames of @width x @height.
 * @path: the node.
 * @output: 0 for the node's CAPTURE queue (a camera's, a codec's CAPTURE),
 *	1 for its OUTPUT queue (what a memory-to-memory device reads).
 * @out: the statement.
 *
 * Fourccs from VIDIOC_ENUM_FMT (reported), those llmem lays out kept
 * (YUYV, NV12, and XBGR32, ABGR32 and RGBA32 as DRM's XRGB8888, ARGB8888
 * and ABGR8888); VIDIOC_TRY_FMT of each at the size gives its sizeimage
 * (reported, the fourcc's min_size).  A try of the first with the pitch
 * padded by 64 bytes tells whether the driver takes another pitch
 * (probed): if it does, tries padded by 1, 2, 4 ... 32 bytes find its
 * granularity, the pitch alignment; if not, each fourcc's bytesperline is
 * its exact pitch.  A size the driver changes becomes its bounds; the
 * minimum of buffers comes from V4L2_CID_MIN_BUFFERS_FOR_CAPTURE or
 * _OUTPUT where the driver has it (reported).  NV12M stands for NV12 only
 * where the queue has no NV12, and then asks for a buffer per plane.
 * Contiguity is never stated: no query tells videobuf2-dma-contig from
 * vmalloc or dma-sg (only a QBUF of a scattered buffer fails), so a caller
 * who knows adds llmem_participant_llmem_contiguous().  Nothing is
 * allocated or changed on the node.
 *
 * Return: 0; -EINVAL for NULL arguments or a zero size; -ENODEV for a node
 * without that queue or no format llmem lays out; open()'s and the
 * driver's errors, named with the call and the node.
 */
int llmem_participant_v4l2(const char *path, uint32_t output, uint32_t width, uint32_t height,
			   struct llmem_participant *out);

#ifdef __cplusplus
}
#endif

#endif
