// SPDX-License-Identifier: MIT
/*
 * Non-temporal stores write whole lines to memory without reading them into
 * the cache first and without leaving them dirty there, which is what a
 * reader on another core wants (queue.c says when staging uses this).  SSE2
 * is part of x86-64; AVX-512 stores a whole line at once where the CPU has
 * it.  Other CPUs get memcpy.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/stream_copy.h"

/* Bytes written with streaming stores, for the tests. */
static atomic_size_t streamed;

#if defined(__x86_64__)
#include <immintrin.h>

#define LINE 64

/* Bytes before @d reaches a line, at most @bytes: streaming stores need
 * aligned addresses. */
static size_t to_line(const uint8_t *d, size_t bytes)
{
	size_t head = (LINE - ((uintptr_t)d & (LINE - 1))) & (LINE - 1);

	return head < bytes ? head : bytes;
}

__attribute__((target("avx512f"))) static size_t stream_lines_avx512(uint8_t *d, const uint8_t *s,
								     size_t bytes)
{
	size_t done = 0;

	for (; bytes - done >= LINE; done += LINE)
		_mm512_stream_si512((void *)(d + done), _mm512_loadu_si512(s + done));
	return done;
}

static size_t stream_lines_sse2(uint8_t *d, const uint8_t *s, size_t bytes)
{
	size_t done = 0;

	for (; bytes - done >= LINE; done += LINE) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + done));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + done + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + done + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + done + 48));

		_mm_stream_si128((__m128i *)(d + done), a);
		_mm_stream_si128((__m128i *)(d + done + 16), b);
		_mm_stream_si128((__m128i *)(d + done + 32), c);
		_mm_stream_si128((__m128i *)(d + done + 48), e);
	}
	return done;
}

unsigned int llmem_stream_copy_widest(void)
{
	return __builtin_cpu_supports("avx512f") ? 64 : 16;
}

void llmem_stream_copy_width(void *dst, const void *src, size_t bytes, unsigned int width)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t head, done;

	if (!bytes)
		return;
	head = to_line(d, bytes);
	memcpy(d, s, head);
	d += head;
	s += head;
	bytes -= head;
	if (width >= 64)
		done = stream_lines_avx512(d, s, bytes);
	else
		done = stream_lines_sse2(d, s, bytes);
	memcpy(d + done, s + done, bytes - done);
	atomic_fetch_add_explicit(&streamed, done, memory_order_relaxed);
	/* Streaming stores are weakly ordered: whoever learns that the copy is
	 * done (a submission, another thread) must find it in memory. */
	_mm_sfence();
}
#else
unsigned int llmem_stream_copy_widest(void)
{
	return 0;
}

void llmem_stream_copy_width(void *dst, const void *src, size_t bytes, unsigned int width)
{
	(void)width;
	if (bytes)
		memcpy(dst, src, bytes);
}
#endif

void llmem_stream_copy(void *dst, const void *src, size_t bytes)
{
	llmem_stream_copy_width(dst, src, bytes, llmem_stream_copy_widest());
}

void llmem_stream_copy_if(bool stream, void *dst, const void *src, size_t bytes)
{
	if (stream)
		llmem_stream_copy(dst, src, bytes);
	else
		memcpy(dst, src, bytes);
}

size_t llmem_stream_copy_streamed(void)
{
	return atomic_load_explicit(&streamed, memory_order_relaxed);
}
