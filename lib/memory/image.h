/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_MEMORY_IMAGE_H
#define LLMEM_MEMORY_IMAGE_H

#include <stdatomic.h>

#include <llmem/image.h>

#include "device/submit.h"
#include "memory/memory.h"

struct llmem_image {
	struct llmem_object obj;
	VkImage vk;
	VkImageType type;
	VkFormat format;
	VkImageTiling tiling;
	/* Where the image rests between operations (GENERAL once created). */
	VkImageLayout layout;
	uint32_t width, height, depth, channels;
	uint32_t channel_type, channel_order;
	uint32_t usage;
	/* Live views: migration refuses to move an image they look at. */
	atomic_int views;
	/* The move out of UNDEFINED, deferred to the next submission. */
	struct llmem_first_use first_use;
};

struct llmem_image_view {
	struct llmem_image *image;
	VkImageView vk;
	VkSampler sampler;
	struct llmem_image_view_create_info info;
};

/*
 * llmem_image_barrier() - records a barrier moving @img from layout @from to
 * @to, ordered after every earlier write and before every later access.
 * The tracked layout is the caller's to update.
 */
void llmem_image_barrier(VkCommandBuffer cmd, const struct llmem_image *img, VkImageLayout from,
			 VkImageLayout to);

#endif
