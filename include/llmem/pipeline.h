/* SPDX-License-Identifier: MIT */
/*
 * Frames for a pipeline of devices: allocated to the layout a negotiation
 * chose (negotiate.h) in shared llmem pages, exported as the DMA-BUFs each
 * device takes, and tried on every device that can be asked before the
 * pipeline runs, so that a layout one of them refuses fails here, by name,
 * not at a QBUF or an ADDFB2 in the middle of a stream.
 *
 * Ownership: a frames object owns its memories, buffers and DMA-BUF fds;
 * what llmem_frames_get() returns is valid until llmem_frames_destroy().
 *
 * Thread-safety: one frames object is used from one thread at a time;
 * llmem_frames_get() only reads and may run concurrently with itself.
 */
#ifndef LLMEM_PIPELINE_H
#define LLMEM_PIPELINE_H

#include <stdint.h>

#include "negotiate.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_frames;

#define LLMEM_FRAMES_MAX 64

/* Flags of struct llmem_frames_create_info. */
enum llmem_frames_flags {
	/* Try every frame on every participant that can be asked
	 * (llmem_frames_check()) before returning them.  Builds without
	 * NDEBUG always do. */
	LLMEM_FRAMES_CHECK = 1u << 0,
};

/**
 * struct llmem_frames_create_info - frames of a negotiated layout; zero
 * means the defaults.
 * @negotiated: the result of llmem_negotiate(); its layout, contiguity
 *	and buffer-per-plane flags and its minimum of buffers.
 * @participants: the statements it was negotiated from, for the check; may
 *	be NULL with @num_participants 0.
 * @num_participants: entries of @participants.
 * @count: frames to make; 0 for @negotiated's min_buffers, at least 2.
 * @flags: enum llmem_frames_flags.
 * @backend: enum llmem_backend to insist on one; 0 for the best here.
 * @name: what llmem.ko's debugfs and /proc/PID/fdinfo call the frames'
 *	DMA-BUFs ("NAME 3", "NAME 3 plane 1"); NULL for "frame".
 */
struct llmem_frames_create_info {
	const struct llmem_negotiated *negotiated;
	const struct llmem_participant *participants;
	uint32_t num_participants;
	uint32_t count;
	uint32_t flags;
	uint32_t backend;
	const char *name;
};

/**
 * llmem_frames_create() - allocate frames of a negotiated layout.
 *
 * Each frame is one llmem buffer, or one per plane where the negotiation
 * asks for a buffer per plane, exported as a DMA-BUF whose first byte is
 * the buffer's (V4L2 takes no offset).  On llmem.ko's pages the frames
 * share pages, each fd a range of its page (llmem_buffer_export_range());
 * Vulkan's exported pages cannot be cut, so there each buffer has a page of
 * its own.  Contiguous frames come from llmem.ko's contiguous pages.
 *
 * Return: 0; -EINVAL for NULL @session, @info, @info->negotiated or @out,
 * participants without their count or past LLMEM_NEGOTIATE_MAX_PARTICIPANTS,
 * unknown flags, a count past LLMEM_FRAMES_MAX, or a layout
 * llmem_negotiate() does not make; the errors of llmem_memory_create(),
 * llmem_buffer_create() and the exports; with the check, its errors.
 * Nothing is left allocated on failure.
 */
int llmem_frames_create(struct llmem_session *session, const struct llmem_frames_create_info *info,
			struct llmem_frames **out);

/* Frees every frame.  NULL is fine. */
void llmem_frames_destroy(struct llmem_frames *frames);

/* How many frames there are; 0 for NULL. */
uint32_t llmem_frames_count(const struct llmem_frames *frames);

/**
 * llmem_frames_get() - frame @index as its devices take it.
 *
 * Return: 0; -EINVAL for NULL arguments or an index past the count.
 */
int llmem_frames_get(const struct llmem_frames *frames, uint32_t index,
		     struct llmem_negotiated_frame *out);

/**
 * llmem_frames_check() - try every frame on every participant that can be
 * asked, as it will be used.
 * @participants: statements made by this process's llmem_participant_*()
 *	calls (they name the device to ask).
 * @count: entries of @participants, at most LLMEM_NEGOTIATE_MAX_PARTICIPANTS.
 *
 * A V4L2 queue: VIDIOC_S_FMT at the frame's size, fourcc and pitches (the
 * pitch and size the driver sets must be the frame's), VIDIOC_REQBUFS of
 * one DMA-BUF buffer and VIDIOC_QBUF of the frame; the buffers are freed
 * again, the format stays.  A capture queue that another file streams from
 * answers EBUSY: check before streaming.  A KMS plane: the frame's fds
 * imported (PRIME) and a framebuffer made of them (ADDFB2), then removed.
 * The Vulkan device for storage or transfer: each fd imported into Vulkan
 * and a buffer of the usage bound over it (for sampling it is not asked:
 * llmem makes no image over a DMA-BUF at a layout).  llmem.ko's contiguous pages: each fd asked
 * (llmem_dmabuf_query()) whether its pages are contiguous.  The CPU, and
 * statements without a device (the caller's own, a peer's), are not asked.
 *
 * Return: 0 when every participant asked takes every frame; -EINVAL for
 * NULL arguments, a count past the limit or a device path without its NUL;
 * otherwise the first refusal, its message naming the frame, the
 * participant and the call ("frame 1: vivid /dev/video0 capture refuses
 * the frame: VIDIOC_QBUF: Bad address").
 */
int llmem_frames_check(const struct llmem_frames *frames,
		       const struct llmem_participant *participants, uint32_t count);

#ifdef __cplusplus
}
#endif

#endif
