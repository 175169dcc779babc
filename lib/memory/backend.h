/* SPDX-License-Identifier: MIT */
/*
 * Where a shareable page's memory comes from.  Three backends give pages a
 * DMA-BUF behind them; memory.c picks one per memory and asks backend.c for
 * each page, so buffers and images on top never know which it was.
 */
#ifndef LLMEM_MEMORY_BACKEND_H
#define LLMEM_MEMORY_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/error.h>
#include <llmem/memory.h>

struct llmem_session;

/* What backs one page, besides its VkDeviceMemory. */
struct llmem_page_backing {
	VkDeviceMemory vk;
	/* The page's DMA-BUF where llmem.ko or an importer gave it; -1 where
	 * Vulkan exports it on demand or nothing can. */
	int fd;
	/* A host-pointer page's mapping of @fd, unmapped after vkFreeMemory. */
	void *host_ptr;
	uint64_t host_len;
};

/*
 * Chooses the backend for a shared memory of memory type @type_index: @want,
 * or the best that works here when @want is 0.  Each candidate is probed with
 * a small allocation, so "the extension exists but the kernel cannot back it"
 * (lavapipe without udmabuf) falls through to the next.  With @contiguous only
 * llmem.ko's backends qualify.
 * Return: 0, or -ENOTSUP naming every reason no backend works.
 */
int llmem_backend_choose(struct llmem_session *s, uint32_t type_index, uint32_t want,
			 bool contiguous, uint32_t *backend);

/* The backend of an LLMEM_SHARING_IMPORT memory: @want, or the best. */
int llmem_backend_choose_import(struct llmem_session *s, uint32_t want, uint32_t *backend);

/* The external handle type buffers and images on such pages must declare. */
VkExternalMemoryHandleTypeFlagBits llmem_backend_handle_type(uint32_t backend);

/*
 * A fresh page of @size bytes from @backend, zeroed by whoever provides it;
 * physically contiguous when @contiguous (llmem.ko backends only: -E2BIG
 * past the kernel's largest block, -ENOMEM when memory is fragmented).
 */
int llmem_backend_page_alloc(struct llmem_session *s, uint32_t backend, uint32_t type_index,
			     uint64_t size, bool contiguous, struct llmem_page_backing *out);

/*
 * A foreign DMA-BUF as a page.  @fd stays the caller's: the page holds its
 * own duplicate.  @backend says how to import it (as a DMA-BUF, or mmapped
 * as a host pointer).
 */
int llmem_backend_page_import(struct llmem_session *s, uint32_t backend, uint32_t type_index,
			      int fd, uint64_t size, struct llmem_page_backing *out);

/*
 * Caller-owned host memory as a page: @ptr and @size must be multiples of
 * minImportedHostPointerAlignment (-EINVAL names it).  The page neither
 * frees nor unmaps @ptr: its backing has fd -1 and no host_ptr.
 */
int llmem_backend_page_import_host(struct llmem_session *s, uint32_t type_index, void *ptr,
				   uint64_t size, struct llmem_page_backing *out);

/* The backend of an LLMEM_SHARING_OPAQUE_FD memory, probed on @type_index. */
int llmem_backend_choose_opaque_fd(struct llmem_session *s, uint32_t type_index, uint32_t want,
				   uint32_t *backend);

/* A new close-on-exec opaque fd (vkGetMemoryFdKHR) for the page; the caller owns it. */
int llmem_backend_page_export_opaque_fd(struct llmem_session *s, uint32_t backend,
					const struct llmem_page_backing *p, int *fd);

void llmem_backend_page_free(struct llmem_session *s, struct llmem_page_backing *p);

/* A new close-on-exec DMA-BUF fd for the page; the caller owns it. */
int llmem_backend_page_export(struct llmem_session *s, uint32_t backend,
			      const struct llmem_page_backing *p, int *fd);

#endif
