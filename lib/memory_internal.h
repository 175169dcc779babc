/* SPDX-License-Identifier: MIT */
/*
 * What buffers and images share: an object placed in a page of a memory,
 * listed by the memory so that destroying it can name what is still alive.
 */
#ifndef LLMEM_MEMORY_INTERNAL_H
#define LLMEM_MEMORY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/llmem.h>

struct llmem_object {
	struct llmem_memory *memory;
	struct llmem_object *prev, *next;
	uint32_t kind;
	uint64_t id;
	char name[64];
	/* The pool's name for the range; 0 for a sub-region, which owns none. */
	uint64_t handle;
	struct llmem_allocation alloc;
	/* Maps of this object not yet unmapped; under the memory's lock. */
	uint32_t map_count;
};

struct llmem_session *llmem_memory_session(const struct llmem_memory *m);

/*
 * Places @obj (whose kind and name are set) for @req in a page and lists it.
 * @page_memory receives the page's VkDeviceMemory, to bind the resource to
 * at obj->alloc.offset.  -ENOTSUP when the memory type is not in
 * req->memoryTypeBits.
 */
int llmem_memory_place(struct llmem_memory *m, struct llmem_object *obj,
		       const VkMemoryRequirements *req, bool optimal, VkDeviceMemory *page_memory);

/* Lists an object that shares another's range (a sub-region). */
void llmem_memory_attach(struct llmem_memory *m, struct llmem_object *obj);

/* Unmaps what @obj left mapped, unlists it and frees its range if it owns one. */
void llmem_memory_release(struct llmem_memory *m, struct llmem_object *obj);

uint64_t llmem_memory_page_size(struct llmem_memory *m, uint32_t page);

int llmem_memory_map(struct llmem_memory *m, struct llmem_object *obj, void **ptr);
int llmem_memory_unmap(struct llmem_memory *m, struct llmem_object *obj);
/* Object-relative range; @flush chooses flush over invalidate. */
int llmem_memory_sync(struct llmem_memory *m, struct llmem_object *obj, uint64_t offset,
		      uint64_t size, bool flush);

/*
 * Binds a buffer (or, when @buffer is VK_NULL_HANDLE, an image) to @page at
 * @offset under the memory's lock: the validation layer counts a bind that
 * overlaps vkMapMemory of the same page in another thread as a race.
 */
VkResult llmem_memory_bind(struct llmem_memory *m, uint32_t page, uint64_t offset, VkBuffer buffer,
			   VkImage image);

/* What VkExternalMemory*CreateInfo must declare for objects on @m; 0 if none. */
VkExternalMemoryHandleTypeFlags llmem_memory_handle_types(const struct llmem_memory *m);

/*
 * The DMA-BUF behind a page of a shared memory, borrowed: it stays the
 * page's.  -ENOTSUP for memory that is not shared.
 */
int llmem_memory_page_fd(struct llmem_memory *m, uint32_t page, int *fd);

#endif
