/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_IMAGE_INTERNAL_H
#define LLMEM_IMAGE_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "memory_internal.h"

struct llmem_image {
	struct llmem_object obj;
	VkImage vk;
	VkImageType type;
	VkFormat format;
	/* Where the image rests between operations (GENERAL once created). */
	VkImageLayout layout;
	uint32_t width, height, depth, channels;
	uint32_t channel_type;
	uint32_t usage;
	/* Live views: migration refuses to move an image they look at. */
	atomic_int views;
	/* image_init.c, under the session's queue_lock: the image's place in
	 * the pending list plus one (0: not pending), and whether its move
	 * to GENERAL went in a submission that may still run. */
	uint32_t init_slot;
	bool init_submitted;
	/* Set once the move is known done: the handle accessors stop asking. */
	atomic_bool init_settled;
};

/*
 * llmem_image_barrier() - records a barrier moving @img from layout @from to
 * @to, ordered after every earlier write and before every later access.
 * The tracked layout is the caller's to update.
 */
void llmem_image_barrier(VkCommandBuffer cmd, const struct llmem_image *img, VkImageLayout from,
			 VkImageLayout to);

#endif
