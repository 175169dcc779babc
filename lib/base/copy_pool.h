/* SPDX-License-Identifier: MIT */
/*
 * Large memcpys spread over a pool of copy threads that outlive the copy
 * (copy_pool.c), for the staging ring and mapped device memory.
 */
#ifndef LLMEM_BASE_COPY_POOL_H
#define LLMEM_BASE_COPY_POOL_H

#include <stddef.h>

/*
 * llmem_copy_pool_memcpy() - memcpy(@dst, @src, @bytes), by several threads when
 * the copy is large and the machine has cores to spare.
 *
 * Safe from any thread; when another thread's copy holds the pool, the
 * caller copies alone rather than wait for it.
 */
void llmem_copy_pool_memcpy(void *dst, const void *src, size_t bytes);

/* The same with llmem_stream_copy(): for the staging ring, which the device reads
 * next.  Every thread's streaming stores are fenced before it returns. */
void llmem_copy_pool_stream(void *dst, const void *src, size_t bytes);

#define LLMEM_ENV_COPY_THREADS "LLMEM_COPY_THREADS"

/*
 * llmem_copy_pool_check_environment() - 0 where LLMEM_COPY_THREADS is unset,
 * empty or a count from 1 to 16; -EINVAL and a message naming it otherwise.
 * Sessions call it, so that a bad value is refused once, not ignored.
 */
int llmem_copy_pool_check_environment(void);

/* Threads besides the caller's (0: every copy is the caller's alone). */
unsigned int llmem_copy_pool_workers(void);

/* Slices the workers have copied so far. */
size_t llmem_copy_pool_helped(void);

#endif
