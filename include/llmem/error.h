/* SPDX-License-Identifier: MIT */
/*
 * The error convention of libllmem: every function that can fail returns 0
 * or a positive value on success and a negative errno on failure;
 * llmem_strerror() names the code and llmem_last_error() gives the calling
 * thread's message for the most recent failure, with the detail errno alone
 * cannot carry.
 */
#ifndef LLMEM_ERROR_H
#define LLMEM_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * llmem_strerror() - name a negative errno returned by libllmem.
 * @err: a value returned by a libllmem function (negative errno).
 *
 * Return: a thread-local string; never NULL.  Thread-safe.
 */
const char *llmem_strerror(int err);

/**
 * llmem_last_error() - the message for the calling thread's latest failure.
 *
 * Each failing call stores a message in thread-local storage, overwritten by
 * the next failing call on that thread; successful calls leave it alone.
 *
 * Return: a thread-local string, "" when nothing has failed yet.
 */
const char *llmem_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_ERROR_H */
