/* SPDX-License-Identifier: MIT */
/*
 * Buffers for `llmem encode` and `llmem decode`: llmem buffers that a codec
 * takes as DMA-BUFs, each starting at its fd's first byte, mapped for the
 * host, and the FWHT stream split into frames.
 */
#ifndef LLMEM_TOOLS_CODEC_BUFS_H
#define LLMEM_TOOLS_CODEC_BUFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct llmem_session;
struct llmem_memory;
struct llmem_buffer;

struct codec_buf {
	struct llmem_memory *memory;
	struct llmem_buffer *buffer;
	uint8_t *map;
	int fd; /* the buffer's DMA-BUF, owned here */
	uint32_t size;
};

/*
 * A buffer of at least @size bytes in a page of its own on @backend (0: the
 * best that shares), exported as the page's DMA-BUF.  Return: 0, or a
 * negative errno after a message on stderr naming @who.
 */
int codec_buf_alloc(struct llmem_session *session, uint32_t backend, uint32_t size, const char *who,
		    struct codec_buf *out);
void codec_buf_free(struct codec_buf *b);

/*
 * Appends @size bytes of DMA-BUF @fd, mapped at @map, to @f between
 * the DMA-BUF's CPU-access brackets for a read: 0, or a negative errno
 * after a message on stderr naming @who.
 */
int dmabuf_append(FILE *f, int fd, const void *map, size_t size, const char *who);

/* The bytes of an FWHT frame's header: struct fwht_cframe_hdr of the
 * kernel's codec-fwht.h, 11 big-endian words, the payload's size last. */
#define FWHT_HEADER 44
/* The bytes of the FWHT frame whose header @hdr holds (its size field and
 * the header), or 0 when it holds none. */
size_t fwht_frame_bytes(const uint8_t *hdr);
/* The bytes of the FWHT frame at the start of @data (its header's size
 * field and the header), or 0 when @len holds no whole frame. */
size_t fwht_frame_size(const uint8_t *data, size_t len);
/* The width and height an FWHT frame's header gives. */
void fwht_frame_dims(const uint8_t *data, uint32_t *width, uint32_t *height);
/* Its flags (V4L2_FWHT_FL_*: intra frame, chroma subsampling...). */
uint32_t fwht_frame_flags(const uint8_t *data);

#endif
