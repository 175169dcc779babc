/* SPDX-License-Identifier: MIT */
/*
 * A camera's frames offered to PipeWire: a Video/Source node with
 * media.role=Camera (the node the camera portal lists to browsers and OBS)
 * whose buffers are the camera's own frames, shared, not copied.
 *
 * Each PipeWire buffer is one of the camera's V4L2 buffers (libcamera's
 * requests): its DMA-BUF, whose first byte is the frame's.  The newest
 * frame the camera wrote is held and queued to the node, and one graph
 * cycle run; PipeWire hands a buffer back on the cycle after the one that
 * carried it, and the frame goes back to the camera then, to be written
 * again after the camera's other buffers.  A consumer reads a frame in its
 * process callback, as PipeWire's model has it, or copies it: a consumer
 * that keeps one longer reads a later frame.  The frames go as captured
 * (YUY2, NV12, RGB or BGR in PipeWire's names), linear.
 *
 * Formats are offered as PipeWire's DMA-BUF procedure has them: first with
 * the modifier (DRM_FORMAT_MOD_LINEAR, flagged MANDATORY; fixed, the one
 * modifier needing no fixation round), which a consumer that takes
 * DMA-BUFs matches, its buffers SPA_DATA_DmaBuf; then without one,
 * for consumers that take shared memory only (browsers' libwebrtc, OBS's
 * camera source), whose buffers are the same fds labelled SPA_DATA_MemFd,
 * mapped by the consumer (llmem.ko's DMA-BUFs map; the mapping reads
 * the frame as the camera wrote it).  One stream serves one kind of buffer
 * at a time: PipeWire shares an output's buffers among its links.
 *
 * The node's loop and the camera are one fd (llmem_pipewire_source_fd())
 * to poll, and llmem_pipewire_source_iterate() does what is due:
 * PipeWire's messages, the negotiation, a frame queued, a buffer handed
 * back.  PipeWire 0.3 runs a data thread of its own in each context;
 * everything the source does runs on the caller's thread.  Built where
 * libpipewire-0.3 (0.3.65 or later) is found; elsewhere
 * llmem_pipewire_source_create() answers -ENOTSUP.
 *
 * Thread safety: a source is used from the thread that created it, and its
 * camera with it: the source takes and releases the camera's frames.
 */
#ifndef LLMEM_PIPEWIRE_H
#define LLMEM_PIPEWIRE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_camera;
struct llmem_pipewire_source;

struct llmem_pipewire_source_create_info {
	/* node.name, which consumers and pw-link name it by; NULL for
	 * "llmem-camera".  Copied. */
	const char *name;
	/* node.description, what the portal shows; NULL for the camera's
	 * device.  Copied. */
	const char *description;
	/* The PipeWire daemon's socket (as PIPEWIRE_REMOTE names it); NULL
	 * for PipeWire's default.  Copied. */
	const char *remote;
};

/* What a source negotiated and did. */
enum llmem_pipewire_state {
	/* Connected, no consumer linked or the format not agreed yet. */
	LLMEM_PIPEWIRE_WAITING = 0,
	/* A format and buffers agreed: frames flow. */
	LLMEM_PIPEWIRE_STREAMING = 1,
	/* PipeWire's stream failed: the reason is in @error; destroy it. */
	LLMEM_PIPEWIRE_FAILED = 2,
};

/**
 * struct llmem_pipewire_source_info - a source's node and its traffic.
 * @node_id: PipeWire's id of the node, once the daemon made it; UINT32_MAX
 *	before.
 * @state: enum llmem_pipewire_state.
 * @dmabuf: 1 when the buffers went as SPA_DATA_DmaBuf, 0 as SPA_DATA_MemFd
 *	(or before the buffers were agreed).
 * @modifier: the DRM modifier agreed with a DMA-BUF consumer.
 * @buffers: PipeWire buffers, each a camera buffer.
 * @frames_queued: frames handed to PipeWire.
 * @frames_dropped: frames the camera wrote that went back to it unsent:
 *	while no consumer was streaming, or a newer frame waited already.
 * @bytes_copied: bytes the CPU copied: 0.
 * @links_failed: links to consumers that failed their negotiation: no
 *	format in common (a modifier, pixel format or size the camera's
 *	frames are not).  PipeWire tells neither stream, only whoever
 *	watches the link: the source does, and the node goes on waiting.
 * @failed_consumer: the node id of the last such consumer; UINT32_MAX
 *	for none.
 * @error: why the stream failed, with @state LLMEM_PIPEWIRE_FAILED.
 * @link_error: why the last link failed, naming it and its consumer.
 */
struct llmem_pipewire_source_info {
	uint32_t node_id;
	uint32_t state;
	uint32_t dmabuf;
	uint32_t buffers;
	uint64_t modifier;
	uint64_t frames_queued;
	uint64_t frames_dropped;
	uint64_t bytes_copied;
	uint32_t links_failed;
	uint32_t failed_consumer;
	char error[128];
	char link_error[128];
};

/**
 * llmem_pipewire_source_create() - offer @camera's frames as a PipeWire node.
 * @camera: an open camera, stopped, on the zero-copy path, opened with
 *	LLMEM_CAMERA_CONVERT_LATER (the frames go as captured) and a max_held
 *	of 2 at least (one in PipeWire, one coming back); the source starts
 *	it when a consumer streams and stops it when none does.  It must
 *	outlive the source.
 * @info: the choices; NULL for all defaults.
 * @out: the new source, connected to the daemon, its node offered.
 *
 * PIPEWIRE_REMOTE, where set, names the socket in place of @info's remote
 * (PipeWire's rule).
 *
 * Return: 0; -EINVAL for NULL @camera or @out, a camera on the copy path,
 * without LLMEM_CAMERA_CONVERT_LATER or holding fewer than 2 frames;
 * -ENOTSUP where llmem was built without PipeWire, for frames of two
 * buffers (NV12M) or a format PipeWire has no name for; PipeWire's connect
 * error when no daemon answers at the socket (-EHOSTDOWN for none there);
 * -ENOMEM; PipeWire's errors.
 */
int llmem_pipewire_source_create(struct llmem_camera *camera,
				 const struct llmem_pipewire_source_create_info *info,
				 struct llmem_pipewire_source **out);

/* Disconnects the node, stops the camera and releases its frames.  NULL is fine. */
void llmem_pipewire_source_destroy(struct llmem_pipewire_source *source);

/**
 * llmem_pipewire_source_fd() - an fd that polls readable when the source
 * has work (a message from PipeWire, a frame from the camera).  The
 * source's, not to close or read; valid until it is destroyed.
 *
 * Return: the fd; -EINVAL for NULL.
 */
int llmem_pipewire_source_fd(const struct llmem_pipewire_source *source);

/**
 * llmem_pipewire_source_iterate() - do what is due, waiting up to
 * @timeout_ms for something to do (negative: until something comes).
 *
 * Return: 0; -EINVAL for NULL; -EIO once the stream failed (the info says
 * why); -ENODEV once the camera is gone; the camera's errors.
 */
int llmem_pipewire_source_iterate(struct llmem_pipewire_source *source, int timeout_ms);

/* Return: 0, or -EINVAL for NULL. */
int llmem_pipewire_source_get_info(const struct llmem_pipewire_source *source,
				   struct llmem_pipewire_source_info *info);

#ifdef __cplusplus
}
#endif

#endif
