/* SPDX-License-Identifier: MIT */
/*
 * The camera object as camera.c (the object, its RGBA frames and the
 * stream), camera_frames.c (where the captured frames live and how they
 * reach the driver) and camera_libcamera.c (a camera of libcamera's) share
 * it.
 */
#ifndef LLMEM_VIDEO_CAMERA_H
#define LLMEM_VIDEO_CAMERA_H

#include <stdbool.h>
#include <stdint.h>

#include <llmem/camera.h>

struct llmem_camera {
	struct llmem_session *session;
	/* The V4L2 node, or with LLMEM_CAMERA_LIBCAMERA libcamera's camera and
	 * the requests its validate() asked for. */
	struct llmem_v4l2 *dev;
	struct llmem_libcamera *lc;
	uint32_t lc_buffers;
	struct llmem_camera_info info;
	bool copy;
	bool streaming;
	/* The frames handed out and not yet released, a bit per V4L2 buffer;
	 * how many may be (create_info.max_held). */
	uint32_t held;
	uint32_t max_held;
	/* Each held frame's sequence: a frame handed out before, whose buffer
	 * came round again, is not the one held now. */
	uint32_t held_sequence[LLMEM_CAMERA_MAX_BUFFERS];
	bool queued[LLMEM_CAMERA_MAX_BUFFERS];
	/* The sequence number of the last frame dequeued since the start, to
	 * count the frames the driver skipped. */
	bool have_sequence;
	uint32_t last_sequence;

	/*
	 * Zero-copy: per memory plane (one, or NV12M's two), a memory whose
	 * pages hold that plane of the frames, and per V4L2 buffer the plane's
	 * llmem buffer.  Plane-major, so that frames[p] lists plane p of every
	 * frame, as the converter takes it.
	 */
	struct llmem_memory *shared[LLMEM_V4L2_MAX_MEM_PLANES];
	struct llmem_buffer *frames[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CAMERA_MAX_BUFFERS];
	/* Each plane of each V4L2 buffer as a DMA-BUF: the one queued on the
	 * zero-copy path, the driver's own exported on the copy path. */
	int fds[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CAMERA_MAX_BUFFERS];

	/* Copy path: the driver's buffers mapped, and the upload chain: one
	 * staging buffer for all planes, a device buffer per plane. */
	void *maps[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CAMERA_MAX_BUFFERS];
	struct llmem_memory *staging_memory, *device_memory;
	struct llmem_buffer *staging, *device_frame[LLMEM_V4L2_MAX_MEM_PLANES];
	void *staging_map;

	struct llmem_memory *rgba_memory;
	struct llmem_buffer *rgba[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	void *rgba_map[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	/* The conversion of each frame buffer into each RGBA buffer, recorded
	 * once; the RGBA buffer the next frame goes to. */
	struct llmem_converter *converters[LLMEM_CAMERA_MAX_RGBA_BUFFERS];
	uint32_t next_rgba;
};

/*
 * The frames, on the zero-copy path (llmem buffers queued as DMA-BUFs,
 * made again in contiguous pages where the driver refuses scattered ones)
 * or the copy path (the driver's own buffers, mapped, and the device
 * buffers they are copied to), each granted buffer queued.
 */
int llmem_camera_frames_setup(struct llmem_camera *c, uint32_t buffers, uint32_t backend);

/*
 * Opens libcamera's camera create_info.device (the first for NULL) for one
 * stream at @width x @height with @buffers requests, and negotiates the
 * frames' layout with it, the conversion and the caller's participants.
 */
int llmem_camera_libcamera_open(struct llmem_camera *c, const struct llmem_camera_create_info *ci,
				uint32_t width, uint32_t height, uint32_t buffers);

/* Queues V4L2 buffer @i (libcamera's request @i) again. */
int llmem_camera_frames_queue(struct llmem_camera *c, uint32_t i);

/* The copy path's CPU copy and upload of the frame in V4L2 buffer @i. */
int llmem_camera_frames_copy_up(struct llmem_camera *c, uint32_t i);

/* Releases what llmem_camera_frames_setup() made; after the node is closed,
 * so that the driver has let go of the frames. */
void llmem_camera_frames_destroy(struct llmem_camera *c);

#endif
