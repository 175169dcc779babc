/* SPDX-License-Identifier: MIT */
/*
 * Buffers: a VkBuffer bound to a range of one page of a memory, or a
 * sub-region of another buffer that shares its bytes.
 *
 * Thread safety: different buffers may be used from different threads
 * freely; calls on one buffer need no external locking either, except that
 * llmem_buffer_destroy() must be ordered after every other call on it.
 * Map, unmap, flush and invalidate take the memory's mutex.
 */
#ifndef LLMEM_BUFFER_H
#define LLMEM_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;
struct llmem_image;

/* The same bits as VkBufferUsageFlagBits. */
enum llmem_buffer_usage {
	LLMEM_BUFFER_TRANSFER_SRC = 1u << 0,
	LLMEM_BUFFER_TRANSFER_DST = 1u << 1,
	LLMEM_BUFFER_UNIFORM_TEXEL = 1u << 2,
	LLMEM_BUFFER_STORAGE_TEXEL = 1u << 3,
	LLMEM_BUFFER_UNIFORM = 1u << 4,
	LLMEM_BUFFER_STORAGE = 1u << 5,
	LLMEM_BUFFER_INDEX = 1u << 6,
	LLMEM_BUFFER_VERTEX = 1u << 7,
	LLMEM_BUFFER_INDIRECT = 1u << 8,
};

#define LLMEM_BUFFER_DEFAULT_USAGE \
	(LLMEM_BUFFER_STORAGE | LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST)

struct llmem_buffer_create_info {
	/* Bytes; must not be 0. */
	uint64_t size;
	/* enum llmem_buffer_usage; leave 0 for LLMEM_BUFFER_DEFAULT_USAGE. */
	uint32_t usage;
	/* Debug name for listings and messages; copied; leave NULL for none. */
	const char *name;
	/* Bytes the buffer's offset in its page is a multiple of, a power of
	 * two, on top of what the device asks for; leave 0 for the device's
	 * alone.  4096 lets the buffer be exported as a DMA-BUF of its own
	 * (llmem_buffer_export_range()). */
	uint64_t alignment;
};

/**
 * llmem_buffer_create() - place a new buffer in @memory.
 *
 * Return: 0; -EINVAL for NULL arguments, size 0, unknown usage bits or an
 * alignment that is not a power of two;
 * -ENOTSUP when the memory's type cannot hold a buffer of this usage;
 * -ENOMEM when no page can be allocated, or for a size above maxBufferSize
 * or the memory's max_allocation_size (struct llmem_memory_info), refused
 * before Vulkan sees it; -EIO for other Vulkan failures.
 */
int llmem_buffer_create(struct llmem_memory *memory, const struct llmem_buffer_create_info *info,
			struct llmem_buffer **out);

/**
 * llmem_buffer_create_from_host() - a buffer holding a copy of @data.
 * @size: bytes of @data, and of the buffer; info->size must be 0 or equal.
 *
 * The memory must be mappable: the bytes are written through a mapping and
 * flushed.  Return: as llmem_buffer_create(), and -EPERM when the memory is
 * not host visible.
 */
int llmem_buffer_create_from_host(struct llmem_memory *memory,
				  const struct llmem_buffer_create_info *info, const void *data,
				  uint64_t size, struct llmem_buffer **out);

/**
 * llmem_buffer_create_like_buffer() - a buffer of @like's size and usage.
 * @info: NULL, or overrides: a non-zero usage replaces @like's, a name and
 *	an alignment are used.
 *
 * The new buffer lives in @memory, which need not be @like's.
 */
int llmem_buffer_create_like_buffer(struct llmem_memory *memory, const struct llmem_buffer *like,
				    const struct llmem_buffer_create_info *info,
				    struct llmem_buffer **out);

/**
 * llmem_buffer_create_like_image() - a buffer as large as @like's texels,
 * tightly packed (width × height × depth × texel size): what a full copy to
 * or from the image needs.  @info as for llmem_buffer_create_like_buffer().
 */
int llmem_buffer_create_like_image(struct llmem_memory *memory, const struct llmem_image *like,
				   const struct llmem_buffer_create_info *info,
				   struct llmem_buffer **out);

/**
 * llmem_buffer_create_sub() - bytes [@offset, @offset + @size) of @parent as
 * a buffer of their own, with @parent's usage.
 *
 * The sub-region shares @parent's memory and keeps @parent alive: @parent
 * may be destroyed first, its range is released when the last sub-region
 * goes.  @offset must be a multiple of the alignment the device asks for
 * buffers of this usage (minStorageBufferOffsetAlignment for storage).
 *
 * Return: 0; -EINVAL for NULL, size 0, a misaligned offset or a range
 * outside @parent.
 */
int llmem_buffer_create_sub(struct llmem_buffer *parent, uint64_t offset, uint64_t size,
			    const char *name, struct llmem_buffer **out);

/*
 * Releases the buffer's range, or drops the reference a sub-region holds on
 * its parent.  A mapped buffer is unmapped first.  NULL is a no-op.
 */
void llmem_buffer_destroy(struct llmem_buffer *buffer);

uint64_t llmem_buffer_size(const struct llmem_buffer *buffer);
uint32_t llmem_buffer_usage(const struct llmem_buffer *buffer);
struct llmem_memory *llmem_buffer_memory(const struct llmem_buffer *buffer);

/* Return: 0, or -EINVAL for NULL. */
int llmem_buffer_get_allocation(const struct llmem_buffer *buffer,
				struct llmem_allocation *allocation);

/**
 * llmem_buffer_map() - the buffer's bytes in this process.
 * @ptr: (out) the first byte of the buffer.
 *
 * Maps the buffer's page if no object of it is mapped yet; maps nest, each
 * needs its unmap.  Return: 0; -EINVAL for NULL; -EPERM when the memory is
 * not host visible; -ENOMEM or -EIO when vkMapMemory fails.
 */
int llmem_buffer_map(struct llmem_buffer *buffer, void **ptr);

/* Return: 0; -EINVAL for NULL or a buffer that is not mapped. */
int llmem_buffer_unmap(struct llmem_buffer *buffer);

/**
 * llmem_buffer_flush() - make host writes to [@offset, @offset + @size) of
 * a mapped buffer visible to the device.
 *
 * The range is relative to the buffer and is widened to nonCoherentAtomSize
 * (bytes around it, of other objects, are flushed too: harmless, the device
 * sees what the host wrote).  Harmless on coherent memory.
 *
 * Return: 0; -EINVAL for NULL, an unmapped buffer, or a range that does not
 * lie inside the buffer; -EIO when Vulkan fails.
 */
int llmem_buffer_flush(struct llmem_buffer *buffer, uint64_t offset, uint64_t size);

/* As llmem_buffer_flush(), for device writes the host is about to read. */
int llmem_buffer_invalidate(struct llmem_buffer *buffer, uint64_t offset, uint64_t size);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_BUFFER_H */
