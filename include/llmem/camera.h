/* SPDX-License-Identifier: MIT */
/*
 * The zero-copy camera pipeline as one object.  Opening a camera opens the
 * V4L2 capture device, negotiates the format, lays the frame out as the
 * driver demands (llmem_v4l2_format_layout()), allocates the frames in
 * shared pages on the chosen backend and queues them to the device as
 * DMA-BUFs.  Then, per frame: llmem_camera_next() dequeues a frame the
 * camera wrote, converts it to RGBA on the device in place (convert.h) and
 * hands both to the caller; llmem_camera_release() gives the frame back to
 * the camera.
 *
 * The RGBA frames live in host-visible memory of the camera's own, or with
 * LLMEM_CAMERA_SHARED_RGBA in shared pages (share.h) that a display or
 * another process imports: llmem_buffer_export_frame() of the frame's @rgba
 * with the info's @rgba_layout describes one as drmModeAddFB2 takes it.
 * Displays scan out B, G, R, X in memory (DRM's XRGB8888), not the R, G, B,
 * A of the default ABGR8888: create_info.rgba_fourcc picks the byte order
 * the shader writes.  With create_info.rgba_buffers above 1 the conversion
 * writes each frame into the next RGBA buffer in turn, so that one can be
 * shown while the next is written.
 *
 * A driver on videobuf2-dma-contig (no IOMMU) refuses scattered pages: the
 * frames are then made again in physically contiguous pages from llmem.ko
 * (LLMEM_MEMORY_CONTIGUOUS), and the info says so.
 *
 * On a multi-planar node (V4L2_CAP_VIDEO_CAPTURE_MPLANE) with NV12M, each
 * frame is two buffers, the Y plane and the CbCr plane, each queued as a
 * DMA-BUF of its own (llmem_camera_plane_buffer(), llmem_camera_export_plane())
 * and read by the conversion where the camera wrote it.
 *
 * With LLMEM_CAMERA_LIBCAMERA the camera is one of libcamera's (the
 * cameras behind an ISP: Raspberry Pi's, Intel IPU3's, Rockchip's, and UVC
 * cameras too), where llmem was built with libcamera 0.3 or later:
 * create_info.device is libcamera's camera id (llmem_camera_list_libcamera()),
 * the format and size are asked of one viewfinder stream, libcamera's
 * validate() states its stride and frame size, and the frames are negotiated
 * and made as for a V4L2 camera and handed to libcamera as its FrameBuffers;
 * llmem_camera_next() hands out its completed requests.  The info's @format
 * is the V4L2 pixel format of the same bytes (libcamera's BGR888 is V4L2's
 * RGB24: bytes R, G, B), its @driver "libcamera".  libcamera allows one
 * CameraManager a process: the library starts one at its first libcamera
 * call and keeps it, with its thread and fds, until the process ends; a
 * process that runs its own cannot open a camera here.  Before that first
 * call the library sets LIBCAMERA_LOG_LEVELS to "*:WARN" where it is unset
 * (libcamera logs every configuration at INFO on stderr otherwise).  The
 * conversion's storage binding asks RGB24 rows of a multiple of 4 bytes:
 * widths whose rows are not are refused by the negotiation, by name.
 *
 * Errors name the call and the device in llmem_last_error(), e.g.
 * "VIDIOC_DQBUF on /dev/video0: No such device (the device was
 * disconnected: only closing it is left)".  A driver that skips frames
 * (drops buffers, or finds none queued) leaves gaps in its frame counter,
 * which each frame reports as @dropped; the stream goes on.  After a fatal
 * streaming error (-EIO from llmem_camera_next()) llmem_camera_stop() and
 * llmem_camera_start() begin again; after a disconnection (-ENODEV) only
 * llmem_camera_close() is left, and it releases every frame.
 *
 * Thread safety: a camera is used from one thread at a time.
 */
#ifndef LLMEM_CAMERA_H
#define LLMEM_CAMERA_H

#include <stdint.h>

#include "frame.h"
#include "negotiate.h"
#include "v4l2.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;
struct llmem_buffer;
struct llmem_camera;

enum llmem_camera_flags {
	/* Frames in physically contiguous pages from the start. */
	LLMEM_CAMERA_CONTIGUOUS = 1u << 0,
	/*
	 * The copy path: the camera fills its own buffers (V4L2_MEMORY_MMAP)
	 * and each frame is copied by the CPU into device memory before the
	 * conversion.  For drivers that cannot import DMA-BUFs, and the peer
	 * `llmem bench camera` measures the zero-copy path against.
	 */
	LLMEM_CAMERA_COPY = 1u << 1,
	/* Select video input create_info.input; without it the device keeps
	 * the input it has. */
	LLMEM_CAMERA_INPUT = 1u << 2,
	/* Convert with create_info.encoding, and with create_info.range;
	 * without them, with what the driver says its frames use. */
	LLMEM_CAMERA_ENCODING = 1u << 3,
	LLMEM_CAMERA_RANGE = 1u << 4,
	/* The RGBA frames in shared pages (LLMEM_SHARING_DMABUF, the best
	 * backend that works here), to export; without it, in host-visible
	 * memory that is not shared. */
	LLMEM_CAMERA_SHARED_RGBA = 1u << 5,
	/* llmem_camera_next() hands the frame out as captured, not converted
	 * (its rgba NULL), so that the caller can work on it in place first;
	 * llmem_camera_convert() converts it then, if the caller wants RGBA. */
	LLMEM_CAMERA_CONVERT_LATER = 1u << 6,
	/* One of libcamera's cameras (above); not with LLMEM_CAMERA_INPUT.
	 * With LLMEM_CAMERA_COPY its frames are libcamera's own buffers
	 * (FrameBufferAllocator, as `cam` captures), copied. */
	LLMEM_CAMERA_LIBCAMERA = 1u << 7,
};

/* Bytes of a camera's name: a V4L2 node's path, libcamera's camera id. */
#define LLMEM_CAMERA_ID_SIZE 64

/* The most buffers a camera asks of its driver. */
#define LLMEM_CAMERA_MAX_BUFFERS 16
/* The most RGBA buffers the conversion writes in turn. */
#define LLMEM_CAMERA_MAX_RGBA_BUFFERS 4

struct llmem_camera_create_info {
	/* The capture node; leave NULL for the first one (/dev/video0 up)
	 * that captures with streaming I/O and imports DMA-BUFs
	 * (llmem_v4l2_find_capture()).  With LLMEM_CAMERA_LIBCAMERA,
	 * libcamera's camera id; NULL for its first camera.  Copied. */
	const char *device;
	/* V4L2 pixel format, V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_NV12 or (on a
	 * multi-planar node) V4L2_PIX_FMT_NV12M; leave 0 for YUYV.  With
	 * LLMEM_CAMERA_LIBCAMERA, V4L2_PIX_FMT_RGB24, _BGR24, _YUYV or _NV12;
	 * leave 0 for the camera's own choice among them. */
	uint32_t fourcc;
	/* Pixels; leave both 0 for 640x480. */
	uint32_t width;
	uint32_t height;
	/* Buffers to ask the driver for, at most LLMEM_CAMERA_MAX_BUFFERS;
	 * leave 0 for 4.  The driver may grant more (up to the maximum) or
	 * fewer (at least 2, or the open fails); libcamera's pipeline handler
	 * chooses the count itself, as its validate() leaves it. */
	uint32_t buffers;
	/* enum llmem_camera_flags; leave 0 for the zero-copy path. */
	uint32_t flags;
	/* With LLMEM_CAMERA_INPUT: the video input to select. */
	uint32_t input;
	/* enum llmem_backend (memory.h) of the frames' pages; leave 0 for the
	 * best that works here. */
	uint32_t backend;
	/* With LLMEM_CAMERA_ENCODING, enum llmem_ycbcr_encoding; with
	 * LLMEM_CAMERA_RANGE, enum llmem_ycbcr_range (convert.h). */
	uint32_t encoding;
	uint32_t range;
	/* DRM fourcc of the RGBA frames: DRM_FORMAT_ABGR8888 (bytes R, G, B,
	 * A), DRM_FORMAT_XRGB8888 or DRM_FORMAT_ARGB8888 (bytes B, G, R, A:
	 * what displays scan out); leave 0 for ABGR8888. */
	uint32_t rgba_fourcc;
	/* RGBA buffers the conversion writes in turn, at most
	 * LLMEM_CAMERA_MAX_RGBA_BUFFERS; leave 0 for 1. */
	uint32_t rgba_buffers;
	/* Every RGBA row's pitch a multiple of this (a power of two: a display
	 * engine's 64 or 256); leave 0 for no demand. */
	uint32_t rgba_pitch_alignment;
	/* The other devices the captured frames go to (an encoder's OUTPUT
	 * queue, a display plane): the frames' layout is negotiated
	 * (negotiate.h) between the camera's queue, the device's conversion
	 * and these, and the camera is asked for the pitch chosen; NULL for
	 * the driver's own layout.  Read at open. */
	const struct llmem_participant *participants;
	uint32_t num_participants;
	/* The same for the RGBA frames (a display plane that scans them
	 * out), negotiated with the conversion that writes them. */
	uint32_t num_rgba_participants;
	const struct llmem_participant *rgba_participants;
	/* Frames the caller may hold at once, each until it releases it (a
	 * consumer in another process that reads several in place, as a
	 * PipeWire stream's does), at most LLMEM_CAMERA_MAX_BUFFERS; leave 0
	 * for 1.  The copy path holds 1.  A camera whose every buffer is held
	 * captures nothing until one is released. */
	uint32_t max_held;
};

/**
 * struct llmem_camera_info - what a camera agreed to and runs on.
 * @device: the capture node's path, or libcamera's camera id.
 * @driver: the driver's name, as llmem_v4l2_driver() gives it; "libcamera"
 *	for a camera of libcamera's.
 * @format: the format the driver agreed to; @format.mem_planes buffers make
 *	a frame (2 for NV12M).
 * @layout: where a captured frame lies in its buffer; for NV12M each
 *	plane's offset counts from its own buffer (llmem_v4l2_format_layout()).
 * @rgba_layout: where the RGBA frame lies in its buffer, in the fourcc of
 *	create_info.rgba_fourcc (ABGR8888 by default: bytes R, G, B, A).
 * @buffers: frames queued to the device (the buffers the driver granted).
 * @flags: enum llmem_camera_flags in effect: LLMEM_CAMERA_CONTIGUOUS is set
 *	when the frames had to be made again in contiguous pages.
 * @backend: enum llmem_backend of the frames' pages; LLMEM_BACKEND_VULKAN
 *	on the copy path, whose frames the driver allocates.
 * @encoding: enum llmem_ycbcr_encoding the conversion uses.
 * @range: enum llmem_ycbcr_range the conversion uses.
 * @frames_per_page: frames that share one page of memory: on llmem.ko's
 *	pages all of them (as many as a contiguous page holds), each a range of
 *	the page exported as a DMA-BUF of its own; 1 on Vulkan's exported pages
 *	and on the copy path.  With NV12M, the frames' Y planes share pages of
 *	their own and their CbCr planes others, as many a page.
 * @rgba_buffers: RGBA buffers the conversion writes in turn.
 * @rgba_backend: enum llmem_backend of the RGBA frames' pages;
 *	LLMEM_BACKEND_VULKAN unless LLMEM_CAMERA_SHARED_RGBA.
 * @max_held: frames the caller may hold at once (create_info.max_held).
 */
struct llmem_camera_info {
	char device[LLMEM_CAMERA_ID_SIZE];
	char driver[16];
	struct llmem_v4l2_format format;
	struct llmem_frame_layout layout;
	struct llmem_frame_layout rgba_layout;
	uint32_t buffers;
	uint32_t flags;
	uint32_t backend;
	uint32_t encoding;
	uint32_t range;
	uint32_t frames_per_page;
	uint32_t rgba_buffers;
	uint32_t rgba_backend;
	uint32_t max_held;
};

/**
 * struct llmem_camera_frame - a frame handed to the caller.
 * @source: the buffer the camera wrote the frame into (on the copy path,
 *	the device buffer it was copied to), laid out as the info's @layout;
 *	for NV12M its Y plane.  The camera's: valid until the frame is released.
 * @rgba: the RGBA frame, laid out as the info's @rgba_layout, in memory
 *	the host can read; the frame @rgba_buffers later overwrites it.  NULL
 *	with LLMEM_CAMERA_CONVERT_LATER until llmem_camera_convert().
 * @rgba_data: @rgba mapped, its first byte.
 * @index: the V4L2 buffer (libcamera's request) the frame came in.
 * @rgba_index: the RGBA buffer it was converted into
 *	(llmem_camera_rgba_buffer()).
 * @sequence: the driver's frame counter.
 * @corrupted: the driver flagged the frame V4L2_BUF_FLAG_ERROR.
 * @timestamp_ns: capture time on CLOCK_MONOTONIC (libcamera's: the
 *	sensor's timestamp, which its V4L2 pipelines take from the driver's).
 * @bytes_copied: bytes the CPU copied for this frame: 0 on the zero-copy
 *	path.
 * @convert_ns: wall time of the conversion, its submission and the wait
 *	for the device.
 * @source_chroma: for NV12M, the buffer of the frame's CbCr plane, as
 *	@source; NULL for a frame of one buffer.
 * @dropped: frames the driver skipped between the frame before this one
 *	(since llmem_camera_start()) and this one, by the gap in its frame
 *	counter: buffers it dropped, and frame times with no buffer queued.
 * @fd: per memory plane, the DMA-BUF the frame was captured into (as
 *	llmem_camera_export() gives it), whose first byte is the plane's: what
 *	an encoder (llmem_encoder_push()) or another device takes.  The
 *	camera's, not to close: valid until the camera is closed; -1 past the
 *	format's mem_planes.
 */
struct llmem_camera_frame {
	struct llmem_buffer *source;
	struct llmem_buffer *rgba;
	const void *rgba_data;
	uint32_t index;
	uint32_t sequence;
	uint32_t corrupted;
	uint32_t rgba_index;
	uint64_t timestamp_ns;
	uint64_t bytes_copied;
	uint64_t convert_ns;
	struct llmem_buffer *source_chroma;
	uint32_t dropped;
	int fd[LLMEM_V4L2_MAX_MEM_PLANES];
	uint32_t reserved;
};

/**
 * llmem_camera_open() - open a camera, ready to stream.
 * @session: the device that converts the frames.
 * @info: the choices; NULL for all defaults.
 * @out: the new camera.
 *
 * Return: 0; -EINVAL for a NULL @out, unknown flags, LLMEM_CAMERA_LIBCAMERA
 * with LLMEM_CAMERA_INPUT, more than
 * LLMEM_CAMERA_MAX_BUFFERS buffers or frames held, or LLMEM_CAMERA_MAX_RGBA_BUFFERS RGBA
 * buffers, more than one frame held on the copy path, an RGBA fourcc other than those above, an RGBA pitch alignment
 * that is not a power of two, a size of which one side only is 0, or a
 * format the device does not offer exactly (the message says what it
 * offered instead); -ENODEV when no device is given and none qualifies, or
 * the node cannot capture (no libcamera camera of that id); -ENOTSUP when no
 * backend can share the frames (or, with LLMEM_CAMERA_SHARED_RGBA, the RGBA
 * frames), or for LLMEM_CAMERA_LIBCAMERA where llmem was built without
 * libcamera or the camera's stream offers none of the formats above;
 * -EBUSY when libcamera's camera is another's; libcamera's errors;
 * open()'s and the driver's errors, named with the call; -ENOMEM; -EIO.
 */
int llmem_camera_open(struct llmem_session *session, const struct llmem_camera_create_info *info,
		      struct llmem_camera **out);

/* Stops streaming, releases every frame and closes the device.  NULL is fine. */
void llmem_camera_close(struct llmem_camera *camera);

/**
 * llmem_camera_list_libcamera() - the cameras libcamera finds here.
 * @ids: receives up to @max camera ids, NUL-terminated (an id too long is
 *	cut, and would not open); may be NULL with @max 0.
 * @count: receives how many cameras there are, which may exceed @max.
 *
 * Return: 0; -EINVAL for NULL @count or @ids; -ENOTSUP where llmem was
 * built without libcamera; libcamera's CameraManager::start() errors.
 */
int llmem_camera_list_libcamera(char (*ids)[LLMEM_CAMERA_ID_SIZE], uint32_t max, uint32_t *count);

/* Return: 0, or -EINVAL for NULL. */
int llmem_camera_get_info(const struct llmem_camera *camera, struct llmem_camera_info *info);

/**
 * llmem_camera_buffer() - the buffer of V4L2 buffer @index, laid out as the
 * info's @layout: to export it (share.h), or to ask llmem.ko who holds it.
 * For NV12M, the Y plane's: llmem_camera_plane_buffer() with @plane 0.
 *
 * The camera's: valid until it is closed.  On the copy path the camera's
 * buffers are the driver's own, and there is none (-ENOENT).
 *
 * Return: 0; -EINVAL for NULL or an @index past the buffers; -ENOENT.
 */
int llmem_camera_buffer(const struct llmem_camera *camera, uint32_t index,
			struct llmem_buffer **out);

/**
 * llmem_camera_plane_buffer() - memory plane @plane of V4L2 buffer @index:
 * for NV12M 0 is the Y plane's buffer and 1 the CbCr plane's.
 *
 * Return: as llmem_camera_buffer(); -EINVAL also for a @plane past the
 * format's mem_planes.
 */
int llmem_camera_plane_buffer(const struct llmem_camera *camera, uint32_t index, uint32_t plane,
			      struct llmem_buffer **out);

/**
 * llmem_camera_rgba_buffer() - RGBA buffer @index, laid out as the info's
 * @rgba_layout: to make a display's framebuffer of it before streaming
 * (display.h), or to export it with llmem_buffer_export_frame() (it must
 * be LLMEM_CAMERA_SHARED_RGBA's for that).
 *
 * The camera's: valid until it is closed.
 *
 * Return: 0; -EINVAL for NULL or an @index past the RGBA buffers.
 */
int llmem_camera_rgba_buffer(const struct llmem_camera *camera, uint32_t index,
			     struct llmem_buffer **out);

/**
 * llmem_camera_export() - the DMA-BUF V4L2 buffer @index is queued as: a
 * range of a page of the frames' memory, a whole page, or on the copy path
 * the driver's own buffer (VIDIOC_EXPBUF); to ask llmem.ko who holds it.
 * @fd: receives a new close-on-exec fd, the caller's to close.
 *
 * For NV12M, the Y plane's: llmem_camera_export_plane() with @plane 0.
 *
 * Return: 0; -EINVAL for NULL or an @index past the buffers; fcntl()'s
 * errno.
 */
int llmem_camera_export(const struct llmem_camera *camera, uint32_t index, int *fd);

/**
 * llmem_camera_export_plane() - the DMA-BUF memory plane @plane of V4L2
 * buffer @index is queued as (on the copy path, the driver's own).
 * @fd: receives a new close-on-exec fd, the caller's to close.
 *
 * Return: as llmem_camera_export(); -EINVAL also for a @plane past the
 * format's mem_planes.
 */
int llmem_camera_export_plane(const struct llmem_camera *camera, uint32_t index, uint32_t plane,
			      int *fd);

/**
 * llmem_camera_fd() - an fd that polls readable (POLLIN) once a frame waits:
 * llmem_camera_next() then hands one out without waiting.  The V4L2 node,
 * or an eventfd that counts libcamera's completed requests.  The camera's,
 * not to close or read; valid until the camera is closed.
 *
 * Return: the fd; -EINVAL for NULL.
 */
int llmem_camera_fd(const struct llmem_camera *camera);

/* VIDIOC_STREAMON and VIDIOC_STREAMOFF (libcamera's Camera::start() and
 * Camera::stop()); stopping dequeues nothing more and
 * requeues every frame, released or not, for the next start.  A failed
 * start leaves the camera stopped, its frames queued, to start again. */
int llmem_camera_start(struct llmem_camera *camera);
int llmem_camera_stop(struct llmem_camera *camera);

/**
 * llmem_camera_next() - the next frame, converted to RGBA.
 * @timeout_ms: how long to wait for the camera; negative waits forever.
 *
 * At most create_info.max_held frames at a time (one by default): beyond
 * that, a frame handed out before must be released first.  Each frame's
 * RGBA is written into the next RGBA buffer in turn.
 *
 * Return: 0; -EINVAL for NULL arguments; -EBUSY while max_held frames are
 * held or the camera is not streaming; -ETIMEDOUT when no frame came in time; -EIO
 * after a fatal streaming error of the driver (llmem_camera_stop() then
 * llmem_camera_start() begin again); -ENODEV once the device is
 * disconnected; the driver's other errors and the conversion's.
 */
int llmem_camera_next(struct llmem_camera *camera, int timeout_ms,
		      struct llmem_camera_frame *frame);

/**
 * llmem_camera_convert() - with LLMEM_CAMERA_CONVERT_LATER, convert a
 * frame held to RGBA now, as it lies after the caller's work on it.
 * @frame: the frame llmem_camera_next() handed out; its @rgba, @rgba_data,
 *	@rgba_index and @convert_ns are filled in.  Converting it again writes
 *	the next RGBA buffer.
 *
 * Return: 0; -EINVAL for NULL, a frame that is not held, or a camera
 * opened without LLMEM_CAMERA_CONVERT_LATER; the conversion's errors.
 */
int llmem_camera_convert(struct llmem_camera *camera, struct llmem_camera_frame *frame);

/**
 * llmem_camera_release() - give @frame's buffer back to the camera.
 *
 * Return: 0; -EINVAL for NULL or a frame that is not held; the
 * driver's VIDIOC_QBUF errors, after which the frame is still held: release
 * it again, stop, or close.
 */
int llmem_camera_release(struct llmem_camera *camera, const struct llmem_camera_frame *frame);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_CAMERA_H */
