/* SPDX-License-Identifier: MIT */
/*
 * What the encoder and the decoder share: llmem buffers a codec takes as
 * DMA-BUFs, and asking a queue for exactly the slots they need.
 */
#ifndef LLMEM_VIDEO_CODEC_MEMORY_H
#define LLMEM_VIDEO_CODEC_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

struct llmem_codec;
struct llmem_session;

/* A buffer in a page of its own, exported as the page's DMA-BUF and mapped
 * for the host: every backend, the Vulkan driver's own DMA-BUFs included,
 * then hands the codec an fd whose first byte is the buffer's. */
struct codec_memory {
	struct llmem_memory *memory;
	struct llmem_buffer *buffer;
	void *map;
	int fd;
	uint32_t size;
};

/* At least @size bytes on @backend (0: the best that shares); @name names
 * the memory.  Unless @shared, host-visible memory that is not exported
 * (fd -1).  0, or a negative errno with the message saying what. */
int llmem_codec_memory_alloc(struct llmem_session *session, uint32_t backend, uint64_t size,
			     bool shared, const char *name, struct codec_memory *out);

/* Releases what llmem_codec_memory_alloc() made; a zeroed one is fine. */
void llmem_codec_memory_free(struct codec_memory *m);

/* @count slots of @memory on @queue, no fewer (-ENOBUFS, named @what). */
int llmem_codec_request_exactly(struct llmem_codec *c, uint32_t queue, uint32_t memory,
				uint32_t count, const char *what);

#endif
