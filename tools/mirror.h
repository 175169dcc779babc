/* SPDX-License-Identifier: MIT */
/*
 * `llmem encode`'s work on the device between the camera and the encoder:
 * the frame mirrored left to right in place (shaders/mirror.comp), in the
 * pages the camera wrote and the encoder reads, through the public kernel
 * API (llmem/kernel.h).
 */
#ifndef LLMEM_TOOLS_MIRROR_H
#define LLMEM_TOOLS_MIRROR_H

#include <stdint.h>

#include <llmem/frame.h>

struct llmem_session;
struct llmem_buffer;
struct llmem_kernel;
struct llmem_queue;

struct mirror {
	struct llmem_kernel *kernel;
	struct llmem_queue *queue;
	/* shaders/mirror.comp's push constants: offset, pitch, row_words,
	 * rows and kind of each of two planes. */
	uint32_t push[10];
	uint32_t groups[3];
};

/*
 * The kernel and a queue for frames laid out as @layout (YUYV, or NV12 of a
 * width that is a multiple of 4).  Return: 0, or a negative errno after a
 * message on stderr that starts with @who.
 */
int mirror_init(struct mirror *m, struct llmem_session *session,
		const struct llmem_frame_layout *layout, const char *who);
/* Mirrors the frame in @frame and waits for it: 0 or a negative errno
 * (llmem_last_error() says why). */
int mirror_run(struct mirror *m, struct llmem_buffer *frame);
/* Accepts a zeroed or failed struct mirror. */
void mirror_fini(struct mirror *m);

#endif
