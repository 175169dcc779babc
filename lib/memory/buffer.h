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

#endif
