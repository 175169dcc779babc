/* SPDX-License-Identifier: MIT */
/*
 * Memories and what their buffers and images share: an object placed in a
 * page of a memory, listed by the memory so that destroying it can name what
 * is still alive.  memory.c makes memories and places objects, map.c maps
 * them and raw pages, stats.c describes the layout.
 */
#ifndef LLMEM_MEMORY_MEMORY_H
#define LLMEM_MEMORY_MEMORY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/memory.h>
#include <llmem/pool.h>

struct llmem_page {
	VkDeviceMemory vk;
	uint64_t size;
	void *map;
	uint32_t map_count;
	/* Shared pages: see struct llmem_page_backing (backend.h). */
	int fd;
	void *host_ptr;
	uint64_t host_len;
	/* llmem_memory_map_page() calls not yet unmapped. */
	uint32_t raw_maps;
};

struct llmem_memory {
	struct llmem_session *session;
	pthread_mutex_t lock;
	struct llmem_pool *pool;
	char name[64];
	uint32_t type_index;
	uint32_t flags;
	uint64_t page_size;
	/* The most one page may hold (llmem_memory_type_limit()), and whether
	 * the heap's size set it rather than maxMemoryAllocationSize. */
	uint64_t max_allocation;
	bool limit_is_heap;
	/* Set by the pool's page_create on failure: its message is the one to
	 * keep. */
	bool page_failed;

	uint32_t sharing;
	uint32_t backend;
	uint32_t options;
	/* The DMA-BUF or host memory llmem_memory_adopt_page() is turning into
	 * a page: -1 and NULL otherwise. */
	int import_fd;
	void *import_ptr;

	/* Indexed by the pool's page index; vk is NULL where no page lives. */
	struct llmem_page *pages;
	uint32_t pages_cap;

	struct llmem_object *first, *last;
	uint32_t object_count;
	uint64_t next_id;
};

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

/* "image" or "buffer", for messages. */
static inline const char *llmem_object_kind_name(uint32_t kind)
{
	return kind == LLMEM_OBJECT_IMAGE ? "image" : "buffer";
}

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

/*
 * The most one allocation of memory type @type may hold: its heap's size
 * (more is invalid use, VUID-vkAllocateMemory-pAllocateInfo-01713) or
 * maxMemoryAllocationSize, whichever is smaller; @heap says which.  Past
 * them a driver may "succeed" with memory that is not there: lavapipe maps
 * a 2^50-byte page at (void *)-1.
 */
uint64_t llmem_memory_type_limit(const struct llmem_session *s, uint32_t type, bool *heap);

/*
 * -ENOMEM, with a message naming @what and the limit, when @size bytes are
 * more than one page of @m may hold; 0 otherwise.  Every size goes through
 * it before the driver sees it.
 */
int llmem_memory_check_size(const struct llmem_memory *m, const char *what, uint64_t size);

/* The page @page, or NULL where none lives.  Context: the memory's lock held. */
static inline struct llmem_page *llmem_memory_live_page(struct llmem_memory *m, uint32_t page)
{
	return page < m->pages_cap && m->pages[page].vk ? &m->pages[page] : NULL;
}

/* page.c: -EPERM, with a message, for memory the host cannot map. */
int llmem_memory_check_mappable(const struct llmem_memory *m);

/*
 * page.c, with the memory's lock held: the page's one mapping, made on the
 * first call, counted, and unmapped when the count drops to zero; flush
 * (@flush) or invalidate of a page-relative range of a mapped page, widened
 * to whole non-coherent atoms but never past the page.
 */
int llmem_memory_page_map_locked(struct llmem_memory *m, uint32_t page, void **ptr);
void llmem_memory_page_unmap_locked(struct llmem_memory *m, uint32_t page);
int llmem_memory_page_sync_locked(struct llmem_memory *m, uint32_t page, uint64_t offset,
				  uint64_t size, bool flush);

/* object.c: an object's maps, which share its page's mapping; the range
 * of a sync is relative to the object; @flush chooses flush over
 * invalidate. */
int llmem_memory_map(struct llmem_memory *m, struct llmem_object *obj, void **ptr);
int llmem_memory_unmap(struct llmem_memory *m, struct llmem_object *obj);
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

/*
 * A new close-on-exec opaque fd (vkGetMemoryFdKHR) for page @page of an
 * LLMEM_SHARING_OPAQUE_FD memory, the caller's.  -EINVAL for no such page.
 */
int llmem_memory_page_opaque_fd(struct llmem_memory *m, uint32_t page, int *fd);

/*
 * Adds a page of @size bytes made from a foreign DMA-BUF (@fd, duplicated:
 * it stays the caller's) or from caller-owned host memory (@ptr, with @fd
 * -1) to an LLMEM_SHARING_IMPORT memory; the page lives until the memory
 * does.  The caller has checked the arguments against the memory.
 */
int llmem_memory_adopt_page(struct llmem_memory *m, int fd, void *ptr, uint64_t size,
			    uint32_t *page);

/*
 * Frees page @page that llmem_memory_adopt_page() added, while no object
 * lies in it: undoes an import whose caller failed afterwards.
 */
void llmem_memory_drop_page(struct llmem_memory *m, uint32_t page);

#endif
