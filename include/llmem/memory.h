/* SPDX-License-Identifier: MIT */
/*
 * A memory: pages of one Vulkan memory type, one VkDeviceMemory each, with
 * buffers and images laid out inside them by a TLSF sub-allocator.
 *
 * No page exists until the first object needs one.  An object larger than
 * the page size gets a page of its own.  Pages left empty are released,
 * keeping at most spare_pages of them for the next object.
 *
 * A page is mapped at most once (vkMapMemory), on the first map of any of
 * its objects, and stays mapped until the last of them is unmapped: every
 * object of a page can be mapped at the same time.
 *
 * Thread safety: every call on a memory and on its objects may come from any
 * thread; a mutex in the memory serialises its allocator, its page mappings
 * and its object list.  llmem_memory_destroy() must be ordered after every
 * other call on the memory.
 */
#ifndef LLMEM_MEMORY_H
#define LLMEM_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;
struct llmem_memory;

/* The same bits as VkMemoryPropertyFlagBits. */
enum llmem_memory_flags {
	LLMEM_MEMORY_DEVICE_LOCAL = 1u << 0,
	LLMEM_MEMORY_HOST_VISIBLE = 1u << 1,
	LLMEM_MEMORY_HOST_COHERENT = 1u << 2,
	LLMEM_MEMORY_HOST_CACHED = 1u << 3,
};

enum llmem_memory_options {
	/* Only a memory type whose flags (of the four above) are exactly
	 * those asked for; without it, the type with the fewest extra flags
	 * among those that have at least the flags asked for. */
	LLMEM_MEMORY_EXACT_MATCH = 1u << 0,
};

#define LLMEM_MEMORY_DEFAULT_PAGE_SIZE (32ull << 20)
/* For spare_pages: release every page as soon as it is empty. */
#define LLMEM_MEMORY_SPARE_NONE UINT32_MAX

struct llmem_memory_create_info {
	/* enum llmem_memory_flags; leave 0 for LLMEM_MEMORY_DEVICE_LOCAL. */
	uint32_t flags;
	/* enum llmem_memory_options; leave 0 for the best type that has at
	 * least the flags. */
	uint32_t options;
	/* Bytes in a page; leave 0 for 32 MiB. */
	uint64_t page_size;
	/* Empty pages kept rather than released; leave 0 for 1,
	 * LLMEM_MEMORY_SPARE_NONE for none. */
	uint32_t spare_pages;
	/* For messages and listings; copied.  Leave NULL for "memory". */
	const char *name;
	/* enum llmem_sharing (share.h); leave 0 for memory that is not
	 * shared. */
	uint32_t sharing;
	/* enum llmem_backend (share.h) to insist on one; leave 0 for the best
	 * that works here. */
	uint32_t backend;
};

/**
 * llmem_memory_create() - choose a memory type; allocates nothing yet.
 *
 * Return: 0; -EINVAL for a NULL argument, unknown flags or options, or a
 * page size that is not a multiple of 4096; -ENOTSUP when no memory type has
 * the flags (exactly, with LLMEM_MEMORY_EXACT_MATCH); -ENOMEM.
 */
int llmem_memory_create(struct llmem_session *session, const struct llmem_memory_create_info *info,
			struct llmem_memory **out);

/**
 * llmem_memory_destroy() - free every page.  NULL returns 0.
 *
 * Return: 0; -EBUSY, with the objects still alive named in
 * llmem_last_error(), when buffers or images live in the memory: the memory
 * stays as it was and can be destroyed once they are.
 */
int llmem_memory_destroy(struct llmem_memory *memory);

struct llmem_memory_info {
	/* Flags of the chosen memory type (VkMemoryPropertyFlags). */
	uint32_t flags;
	uint32_t memory_type_index;
	uint64_t page_size;
	/* Live pages, dedicated ones included. */
	uint32_t page_count;
	/* Bytes of live pages. */
	uint64_t bytes_reserved;
	/* Bytes held by objects, their alignment padding included. */
	uint64_t bytes_in_use;
	uint32_t object_count;
	/* Whether the memory type is HOST_VISIBLE. */
	uint32_t mappable;
	/* Pages mapped now. */
	uint32_t mapped_pages;
	/* enum llmem_sharing and enum llmem_backend (share.h). */
	uint32_t sharing;
	uint32_t backend;
};

/* Return: 0, or -EINVAL for a NULL argument. */
int llmem_memory_get_info(struct llmem_memory *memory, struct llmem_memory_info *info);

/**
 * llmem_memory_page_mappable() - whether page @page can be mapped now.
 *
 * Page indices are stable while a page lives and reused after it is
 * released; they run below llmem_memory_page_limit().
 *
 * Return: 1 or 0; -EINVAL for NULL; -ENOENT when no page @page lives.
 */
int llmem_memory_page_mappable(struct llmem_memory *memory, uint32_t page);

/* One past the highest live page index; 0 for NULL. */
uint32_t llmem_memory_page_limit(struct llmem_memory *memory);

enum llmem_object_kind {
	LLMEM_OBJECT_BUFFER = 1,
	LLMEM_OBJECT_IMAGE = 2,
};

/*
 * Where an object lies (Lluvia's allocationInfo): its bytes start at
 * @offset in page @page; the @left_padding bytes in front of it were taken
 * from the free range with it, for alignment.  A sub-region buffer reports
 * its parent's page and its own offset and size, with no padding.
 */
struct llmem_allocation {
	uint32_t page;
	uint64_t offset;
	uint64_t left_padding;
	uint64_t size;
};

struct llmem_object_info {
	/* enum llmem_object_kind. */
	uint32_t kind;
	/* The object's creation number in its memory, from 0. */
	uint64_t id;
	/* The object's debug name, or "" when it has none. */
	char name[64];
	struct llmem_allocation allocation;
};

/**
 * llmem_memory_list_objects() - the objects alive in a memory.
 * @objects: filled with up to @capacity entries, in creation order; may be
 *	NULL when @capacity is 0.
 *
 * Return: the number of live objects (which may exceed @capacity), or
 * -EINVAL for NULL arguments.
 */
int llmem_memory_list_objects(struct llmem_memory *memory, struct llmem_object_info *objects,
			      size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_MEMORY_H */
