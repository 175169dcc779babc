/* SPDX-License-Identifier: MIT */
/*
 * Pages for the buffers of a set of frames, each buffer of each frame an
 * llmem buffer exported as a DMA-BUF that starts at its first byte: V4L2
 * takes no offset into a capture DMA-BUF, and a codec's or a display's
 * import is simplest that way too.  One memory per buffer of a frame (one,
 * or one per plane); where the backend's pages can be cut into ranges
 * (llmem.ko's), a page holds many frames' buffers, each reaching the device
 * as a range, else each has a page of its own.  The camera's frames and a
 * pipeline's (llmem_frames_create()) are both laid out here.
 */
#ifndef LLMEM_SHARE_FRAME_PAGES_H
#define LLMEM_SHARE_FRAME_PAGES_H

#include <stdbool.h>
#include <stdint.h>

struct llmem_buffer;
struct llmem_memory;
struct llmem_session;

/* A DMA-BUF over a range of a page covers whole 4096-byte pages. */
#define LLMEM_FRAME_PAGES_ALIGN 4096u

struct llmem_frame_pages_info {
	/* Buffers per frame, at most 4. */
	uint32_t buffers;
	/* Bytes of each, multiples of LLMEM_FRAME_PAGES_ALIGN; the first the
	 * largest. */
	const uint64_t *bytes;
	/* Frames a page should hold at most: the frames wanted. */
	uint32_t frames;
	/* Physically contiguous pages (LLMEM_MEMORY_CONTIGUOUS): as many
	 * frames a page as LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE holds. */
	bool contiguous;
	/* enum llmem_backend; every buffer takes the first one's. */
	uint32_t backend;
	/* Each memory's name (llmem_memory_create_info.name). */
	const char *const *names;
};

/*
 * Creates a memory for each buffer of a frame into @memories.  Return: 0
 * with the frames a page holds in *@per_page and, where @backend is not
 * NULL, the backend taken in *@backend; or llmem_memory_create()'s errors, with what was made left in
 * @memories for the caller to destroy.
 */
int llmem_frame_pages_create(struct llmem_session *s, const struct llmem_frame_pages_info *info,
			     struct llmem_memory **memories, uint32_t *per_page, uint32_t *backend);

/*
 * Lays out a buffer of @bytes in @memory, named @label (what llmem.ko's
 * debugfs and fdinfo show of its DMA-BUF), and exports it: a range where
 * @per_page is above 1, else its page.  Return: 0 with *@buffer and *@fd
 * (the caller's to close); -EIO where the buffer does not start its
 * DMA-BUF; the errors of llmem_buffer_create() and of the export, with
 * *@buffer set where it was made.
 */
int llmem_frame_pages_export(struct llmem_memory *memory, uint32_t per_page, uint64_t bytes,
			     const char *label, struct llmem_buffer **buffer, int *fd);

#endif
