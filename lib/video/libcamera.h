/* SPDX-License-Identifier: MIT */
/*
 * libcamera as the camera object drives it (libcamera.cpp, a C++ shim):
 * one camera of the process's one camera manager, configured for one stream,
 * capturing into DMA-BUFs the caller made, with a request per buffer.
 * Completions arrive on libcamera's own thread; they are queued and counted
 * on an eventfd, so that the caller waits with poll() and dequeues on its
 * thread.  Built where libcamera 0.3 or later is found; without it
 * (libcamera_absent.c) opening and listing answer -ENOTSUP, and no other
 * call is reached.
 */
#ifndef LLMEM_VIDEO_LIBCAMERA_H
#define LLMEM_VIDEO_LIBCAMERA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_libcamera;

/*
 * The stream as libcamera's validate() left it.  @fourcc is a DRM fourcc
 * (libcamera's PixelFormat has the same codes); @buffers the requests the
 * pipeline handler wants at least.
 */
struct llmem_libcamera_stream {
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t stride;
	uint32_t frame_size;
	uint32_t buffers;
};

struct llmem_libcamera_frame {
	uint32_t index;
	uint32_t sequence;
	uint32_t corrupted;
	uint32_t bytesused;
	uint64_t timestamp_ns;
};

/* Camera @id, or the first one for NULL; its id is written to @id_out. */
int llmem_libcamera_open(const char *id, char *id_out, uint32_t id_size,
			 struct llmem_libcamera **out);

/*
 * One stream of DRM @fourcc (0: the camera's own choice among @fourccs)
 * at @width x @height with @buffers requests.  A format or size the
 * camera does not take as asked fails, the message saying what it offered.
 */
int llmem_libcamera_configure(struct llmem_libcamera *lc, uint32_t fourcc, const uint32_t *fourccs,
			      uint32_t num_fourccs, uint32_t width, uint32_t height,
			      uint32_t buffers, struct llmem_libcamera_stream *out);

/* Request @index captures into @fd (the caller's; libcamera holds a
 * duplicate) from its byte 0, planes at @offsets, @length bytes in all. */
int llmem_libcamera_add_buffer(struct llmem_libcamera *lc, uint32_t index, int fd,
			       const uint32_t *offsets, uint32_t num_planes, uint32_t length);

/*
 * The copy path's buffers: libcamera allocates them (FrameBufferAllocator,
 * as `cam` captures), a request each; @count receives how many.  Then
 * buffer @index's first plane as a new fd of the caller's, with the
 * offset and bytes of the frame in it.
 */
int llmem_libcamera_allocate(struct llmem_libcamera *lc, uint32_t *count);
int llmem_libcamera_export(struct llmem_libcamera *lc, uint32_t index, int *fd, uint32_t *offset,
			   uint32_t *length);

/* Starts the camera and queues every request. */
int llmem_libcamera_start(struct llmem_libcamera *lc);

/* Stops the camera; completions not yet dequeued are dropped, and every
 * request is queued again by the next start. */
int llmem_libcamera_stop(struct llmem_libcamera *lc);

/* Readable while a completion waits to be dequeued; the shim's. */
int llmem_libcamera_fd(const struct llmem_libcamera *lc);

/* The next completed request; -ETIMEDOUT, -ENODEV once disconnected. */
int llmem_libcamera_dequeue(struct llmem_libcamera *lc, int timeout_ms,
			    struct llmem_libcamera_frame *out);

/* Queues request @index again, reusing its buffer. */
int llmem_libcamera_queue(struct llmem_libcamera *lc, uint32_t index);

/* Stops, releases the camera and the manager's reference.  NULL is fine. */
void llmem_libcamera_close(struct llmem_libcamera *lc);

/* Up to @max camera ids of @size bytes each into @ids; @count all of them.
 * -ENOTSUP without libcamera. */
int llmem_libcamera_list(char *ids, uint32_t size, uint32_t max, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif
