/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_MEMORY_BUFFER_H
#define LLMEM_MEMORY_BUFFER_H

#include <stdatomic.h>

#include "memory/memory.h"

struct llmem_buffer {
	struct llmem_object obj;
	VkBuffer vk;
	uint64_t size;
	uint32_t usage;
	/* A sub-region's parent, which it keeps alive; NULL otherwise. */
	struct llmem_buffer *parent;
	/* One for the caller, one per live sub-region. */
	atomic_int refs;
	/* Unique for the process's life, never 0: what caches of recorded
	 * work key on, since a freed buffer's address comes back. */
	uint64_t serial;
};

/*
 * A second VkBuffer over @b's bytes and the rest of its last 32-bit word,
 * bound where @b is, for a shader that reads @b as words: a storage
 * buffer's uint array ends at the last whole word of its range, so through
 * @b->vk the last 1 to 3 bytes of a buffer whose size is not a multiple of
 * 4 cannot be read.  The bytes past @b's end lie in its page where @b
 * starts at a multiple of 4 (every device's buffer alignment seen is) in a
 * page of whole host pages; they are read, never written.  The caller
 * destroys *@out (vkDestroyBuffer) once no work that binds it is pending;
 * it does not keep @b alive.
 * Return: 0; -EINVAL where the device wants the view elsewhere or larger
 * than the page allows; -ENOMEM or -EIO when Vulkan fails.
 */
int llmem_buffer_whole_words(struct llmem_buffer *b, VkBuffer *out);

#endif
