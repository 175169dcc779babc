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
#include <stdio.h>

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
	/* Every page physically contiguous, for devices that DMA without an
	 * IOMMU (V4L2 drivers on videobuf2-dma-contig).  Needs sharing
	 * LLMEM_SHARING_DMABUF and takes pages only from llmem.ko (backend
	 * llmem-dmabuf or llmem-host-pointer; -ENOTSUP without /dev/llmem).
	 * The page size defaults to, and may not exceed,
	 * LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE; an object larger than that
	 * fails with -E2BIG, and a page the kernel cannot find a free block
	 * for (memory fragmented) with -ENOMEM.  One frame per page is the
	 * intended use. */
	LLMEM_MEMORY_CONTIGUOUS = 1u << 1,
};

/* For a size argument of flush and invalidate: up to the end of the page
 * or object. */
#define LLMEM_WHOLE_SIZE UINT64_MAX

#define LLMEM_MEMORY_DEFAULT_PAGE_SIZE (32ull << 20)
/* The largest contiguous block Debian's x86 kernels (no CMA) give: 4 MiB,
 * enough for one 1920x1080 YUYV frame. */
#define LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE (4ull << 20)
/* For spare_pages: release every page as soon as it is empty. */
#define LLMEM_MEMORY_SPARE_NONE UINT32_MAX

/* llmem_memory_create_info.sharing. */
enum llmem_sharing {
	LLMEM_SHARING_NONE = 0,
	/* Pages that can be exported as DMA-BUFs. */
	LLMEM_SHARING_DMABUF = 1,
	/* Pages only from llmem_memory_import_dmabuf() or
	 * llmem_memory_import_host(); none are allocated. */
	LLMEM_SHARING_IMPORT = 2,
	/* Pages Vulkan exports as opaque fds (VK_KHR_external_memory_fd), for
	 * CUDA (cuda.h) and other Vulkan devices; they are not DMA-BUFs. */
	LLMEM_SHARING_OPAQUE_FD = 3,
};

/* Where a memory's pages come from (llmem_memory_info.backend). */
enum llmem_backend {
	/* Plain Vulkan memory: cannot be shared. */
	LLMEM_BACKEND_VULKAN = 0,
	LLMEM_BACKEND_VULKAN_DMABUF = 1,
	LLMEM_BACKEND_LLMEM_DMABUF = 2,
	LLMEM_BACKEND_LLMEM_HOST_POINTER = 3,
	/* LLMEM_SHARING_IMPORT: foreign DMA-BUFs imported as such, or their
	 * mapping imported as a host pointer. */
	LLMEM_BACKEND_IMPORT_DMABUF = 4,
	LLMEM_BACKEND_IMPORT_HOST_POINTER = 5,
	/* LLMEM_SHARING_OPAQUE_FD. */
	LLMEM_BACKEND_VULKAN_OPAQUE_FD = 6,
};

/* "vulkan", "vulkan-dmabuf", "llmem-dmabuf", "llmem-host-pointer",
 * "import-dmabuf", "import-host-pointer", "vulkan-opaque-fd"; "unknown"
 * otherwise. */
const char *llmem_backend_name(uint32_t backend);

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
	/* enum llmem_sharing; leave 0 for memory that is not shared. */
	uint32_t sharing;
	/* enum llmem_backend to insist on one; leave 0 for the best that
	 * works here. */
	uint32_t backend;
};

/**
 * llmem_memory_create() - choose a memory type; allocates nothing yet.
 *
 * A page size above what one allocation may hold (the heap's size and
 * maxMemoryAllocationSize, see struct llmem_memory_info) rules a memory type
 * out; the type is chosen among those that can hold it.
 *
 * Return: 0; -EINVAL for a NULL argument, unknown flags or options, a
 * page size that is not a multiple of 4096 or that no memory type with the
 * flags may allocate in one piece, or LLMEM_MEMORY_CONTIGUOUS with
 * a page size above LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE, without sharing
 * LLMEM_SHARING_DMABUF or with a backend other than llmem.ko's; -ENOTSUP
 * when no memory type has the flags (exactly, with
 * LLMEM_MEMORY_EXACT_MATCH) or no backend can share them; -ENOMEM.
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
	/* enum llmem_sharing and enum llmem_backend. */
	uint32_t sharing;
	uint32_t backend;
	/* Whether the memory type is HOST_COHERENT: host writes need no
	 * flush, device writes no invalidate. */
	uint32_t coherent;
	uint32_t reserved;
	/* What flushes and invalidates of mappable memory that is not coherent
	 * round to (nonCoherentAtomSize); 0 for coherent or unmappable memory. */
	uint64_t non_coherent_atom_size;
	/* enum llmem_memory_options it was created with
	 * (LLMEM_MEMORY_CONTIGUOUS: every page physically contiguous). */
	uint32_t options;
	uint32_t reserved2;
	/* The most bytes one page, and so one object, may hold: the smaller
	 * of the memory type's heap and maxMemoryAllocationSize. */
	uint64_t max_allocation_size;
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

/**
 * llmem_memory_add_page() - a page of @size bytes now, with no object in it.
 * @size: bytes, a multiple of 4096; any size, the page size or not.
 * @page: receives the page's index.
 *
 * The page stays until the memory is destroyed, empty or not, and objects
 * created afterwards may be laid out in it.  It is what vkgdr calls raw
 * memory: mapped with llmem_memory_map_page(), exported with
 * llmem_memory_export_page_opaque_fd(), used without any Vulkan buffer — the
 * only way to use DEVICE_LOCAL|HOST_VISIBLE memory where buffers that declare
 * an external handle type cannot bind it (NVIDIA).
 *
 * Return: 0; -EINVAL for NULL arguments, a size that is 0 or not a multiple
 * of 4096, or a memory of LLMEM_SHARING_IMPORT (its pages come from
 * imports); -ENOMEM, also for a size above max_allocation_size (struct
 * llmem_memory_info); the driver's failure.
 */
int llmem_memory_add_page(struct llmem_memory *memory, uint64_t size, uint32_t *page);

/**
 * llmem_memory_map_page() - the host address of a whole page.
 *
 * Shares the page's one mapping with its objects' maps; each call needs an
 * llmem_memory_unmap_page().  On memory that is DEVICE_LOCAL and not
 * HOST_CACHED (the BAR) CPU writes are fast and CPU reads very slow (about
 * 0.05 GB/s on an H100): read such memory through a device copy instead.
 *
 * Return: 0; -EINVAL for NULL arguments or no live page @page; -EPERM for
 * memory that is not host visible; -EIO.
 */
int llmem_memory_map_page(struct llmem_memory *memory, uint32_t page, void **ptr);

/* Return: 0; -EINVAL for NULL, no page @page, or a page not mapped by llmem_memory_map_page(). */
int llmem_memory_unmap_page(struct llmem_memory *memory, uint32_t page);

/**
 * llmem_memory_flush_page() - make host writes to [@offset, +@size) of a
 * mapped page visible to the device; llmem_memory_invalidate_page() - make
 * device writes visible to the host.
 * @size: bytes, or LLMEM_WHOLE_SIZE for the rest of the page.
 *
 * The range is widened to whole non-coherent atoms, never past the page.
 * Coherent memory needs neither, but both are allowed; a flush also orders
 * the CPU's write-combined stores before the call returns.
 *
 * Return: 0; -EINVAL for NULL, no page @page, a page not mapped, or a range
 * past its end; -EIO.
 */
int llmem_memory_flush_page(struct llmem_memory *memory, uint32_t page, uint64_t offset,
			    uint64_t size);
int llmem_memory_invalidate_page(struct llmem_memory *memory, uint32_t page, uint64_t offset,
				 uint64_t size);

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

/* For llmem_memory_get_page_stats(): totals over every live page. */
#define LLMEM_ALL_PAGES UINT32_MAX

/*
 * How full a page is, or (for LLMEM_ALL_PAGES) all of them.  Padding in
 * front of an object counts as used.  For totals, @largest_free is the
 * largest free range of any one page: an object of that size fits without
 * a new page.
 */
struct llmem_page_stats {
	/* Pages counted: 1 for one page. */
	uint32_t pages;
	/* Of them, pages made for one object larger than the page size. */
	uint32_t dedicated_pages;
	/* Bytes in the pages. */
	uint64_t bytes;
	uint64_t used_bytes;
	uint64_t free_bytes;
	/* Maximal free ranges (free neighbours always merge). */
	uint64_t free_ranges;
	uint64_t largest_free;
	/* Objects with a range of their own (sub-regions hold none). */
	uint64_t objects;
};

/**
 * llmem_memory_get_page_stats() - the allocator's view of page @page, or of
 * every live page with LLMEM_ALL_PAGES (all zero when there is none).
 *
 * O(1) per page, except that finding the largest free range walks the free
 * ranges of the page's largest size class.
 *
 * Return: 0; -EINVAL for NULL; -ENOENT when no page @page lives.
 */
int llmem_memory_get_page_stats(struct llmem_memory *memory, uint32_t page,
				struct llmem_page_stats *stats);

/**
 * llmem_memory_dump_json() - write the memory's layout to @out as one JSON
 * object and a newline: "name", "memory_type_index", "flags", then "pool":
 * "page_size", "granularity", the totals of struct llmem_page_stats (as
 * "pages", "dedicated_pages", "bytes", "used_bytes", "free_bytes",
 * "free_ranges", "largest_free", "allocations") and "page_layouts", per live
 * page {"index", "dedicated", "layout"}, the layout giving the page's
 * statistics and "ranges", every range in address order as {"offset",
 * "size", "free"} plus "left_padding" and "kind" ("linear" or "optimal")
 * for objects; last "objects", as llmem_memory_list_objects() gives them:
 * {"kind", "id", "name", "page", "offset", "left_padding", "size"}.
 *
 * Return: 0; -EINVAL for NULL; -EIO when writing fails.
 */
int llmem_memory_dump_json(struct llmem_memory *memory, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_MEMORY_H */
