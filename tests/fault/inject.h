/* SPDX-License-Identifier: MIT */
/*
 * Fault injection for the library's tests, with no hook in lib/: the test
 * program defines malloc, calloc, realloc, ioctl, open, mmap, fcntl and the
 * Vulkan entry points lib/ calls through the loader's exported symbols
 * (vkCreate*, vkAllocate*, vkMapMemory, vkBind*Memory).  An executable's symbols come first in the
 * dynamic linker's lookup, so libllmem.so's calls land here; each wrapper
 * calls the next definition (RTLD_NEXT: libc, the sanitizer's interceptor or
 * the loader).  Only calls whose return address lies in libllmem.so's code
 * count: Mesa's and the loader's own allocations are not ours to test.  A
 * call made for lib/ inside libc (opendir's malloc) is not seen; lib/ calls
 * no strdup.
 *
 * Failures look like exhaustion: malloc, calloc and realloc return NULL
 * with ENOMEM, ioctl -1 with ENOMEM, Vulkan VK_ERROR_OUT_OF_HOST_MEMORY;
 * open and fcntl's F_DUPFD/F_DUPFD_CLOEXEC -1 with EMFILE, mmap MAP_FAILED
 * with ENOMEM.
 */
#ifndef LLMEM_TEST_INJECT_H
#define LLMEM_TEST_INJECT_H

enum inject_kind {
	INJECT_MALLOC = 1 << 0,
	INJECT_IOCTL = 1 << 1,
	INJECT_VULKAN = 1 << 2,
	/* open, fcntl's duplications and mmap: where fds and mappings come from. */
	INJECT_SYSCALL = 1 << 3,
};

/* From now, the @nth (from 1) call of @kinds made by libllmem fails. */
void inject_arm(unsigned int kinds, unsigned long nth);

/* Stops injecting; the calls of the armed kinds counted since inject_arm(). */
unsigned long inject_disarm(void);

/* Whether the armed failure was delivered. */
int inject_fired(void);

/* The errno the delivered failure stood for (ENOMEM, EMFILE). */
int inject_errno(void);

#endif
