/* SPDX-License-Identifier: MIT */
/*
 * Copies for the device to read next (stream_copy.c): the staging ring.
 */
#ifndef LLMEM_BASE_STREAM_COPY_H
#define LLMEM_BASE_STREAM_COPY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * llmem_stream_copy() - memcpy(@dst, @src, @bytes) with non-temporal stores where
 * the CPU has them, ending with a store fence: the bytes are in memory, not
 * dirty in this core's caches, once it returns.  Any alignment.
 */
void llmem_stream_copy(void *dst, const void *src, size_t bytes);

/* llmem_stream_copy() when @stream, memcpy() otherwise: for copies that serve
 * both the staging ring and other destinations. */
void llmem_stream_copy_if(bool stream, void *dst, const void *src, size_t bytes);

/* The widest store llmem_stream_copy() uses on this CPU, in bytes: 64 (AVX-512),
 * 16 (SSE2), or 0 where it is memcpy. */
unsigned int llmem_stream_copy_widest(void);

/* llmem_stream_copy() with stores of @width bytes (16, or 64 where the CPU has
 * it), so that the tests reach each one. */
void llmem_stream_copy_width(void *dst, const void *src, size_t bytes, unsigned int width);

/* Bytes the process has written with streaming stores so far (the lines
 * between a copy's unaligned ends), for the tests. */
size_t llmem_stream_copy_streamed(void);

#endif
