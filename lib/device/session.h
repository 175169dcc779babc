/* SPDX-License-Identifier: MIT */
/*
 * What the objects of one session share: the device, its properties, the
 * enabled extensions, the one VkQueue (submit.h), and the slots where
 * higher tiers keep what they need for the session's life.
 */
#ifndef LLMEM_DEVICE_SESSION_H
#define LLMEM_DEVICE_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <vulkan/vulkan.h>

#include <llmem/session.h>

struct llmem_first_use;

/*
 * What a higher tier keeps for the session's life: a slot, found by the
 * address of a key that tier owns (a static const object), so that the
 * session knows neither what it keeps nor for whom.
 */
struct llmem_session_slot_key {
	/* Makes the object, on the slot's first use; under the session's
	 * slots lock, so it must not take another slot. */
	int (*create)(struct llmem_session *s, void **object);
	/* llmem_session_destroy() calls it first of all: slots go in the
	 * reverse order of their making. */
	void (*destroy)(void *object);
};

struct llmem_session_slot {
	const struct llmem_session_slot_key *key;
	void *object;
};

/* The formats of Vulkan 1.0's core, every one an llmem image can have. */
#define LLMEM_CORE_FORMATS (VK_FORMAT_ASTC_12x12_SRGB_BLOCK + 1)

struct llmem_session {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkDevice device;

	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem_props;
	/* The API version the instance was created for. */
	uint32_t instance_api_version;
	/* Vulkan's stated limits on one allocation (maxMemoryAllocationSize)
	 * and one VkBuffer (maxBufferSize; UINT64_MAX before Vulkan 1.3): the
	 * memory tier refuses what exceeds them before asking the driver. */
	uint64_t max_allocation_size;
	uint64_t max_buffer_size;
	struct llmem_session_info info;
	/* VK_KHR_sampler_mirror_clamp_to_edge is enabled. */
	bool mirror_clamp_to_edge;
	/* VK_KHR_push_descriptor's command, NULL without the extension. */
	PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;

	llmem_message_fn message_fn;
	void *message_user;
	atomic_llong validation_messages;

	/* submit.c: the VkQueue, one submitter at a time. */
	pthread_mutex_t queue_lock;
	uint32_t queue_family;
	VkQueue queue;

	/*
	 * submit.c, under queue_lock: images whose move from UNDEFINED to
	 * GENERAL waits for the next submission, and the command buffer and
	 * fence that carry those moves.
	 */
	struct llmem_first_use **first_uses;
	uint32_t first_use_count, first_use_cap;
	VkCommandPool first_use_pool;
	VkCommandBuffer first_use_cmd;
	VkFence first_use_fence;
	bool first_use_in_flight;

	/* llmem_session_slot(), in the order they were made. */
	pthread_mutex_t slots_lock;
	struct llmem_session_slot *slots;
	uint32_t slot_count, slot_cap;

	/* llmem_session_format_properties(): the core formats' properties,
	 * each asked of the driver once, under formats_lock. */
	pthread_mutex_t formats_lock;
	atomic_bool format_known[LLMEM_CORE_FORMATS];
	VkFormatProperties format_props[LLMEM_CORE_FORMATS];

	atomic_int memories;
};

/*
 * vkGetPhysicalDeviceFormatProperties(), asked once per session for a core
 * format: image creation asks for each image, and the driver's answer cost
 * more than the rest of the image's bookkeeping.  Thread-safe.
 */
void llmem_session_format_properties(struct llmem_session *s, VkFormat format,
				     VkFormatProperties *props);

/**
 * llmem_session_slot() - the object a higher tier keeps in @s under @key,
 * made by @key->create on the first call.  Thread-safe.
 *
 * llmem_session_destroy() calls @key->destroy on it before anything else,
 * even when it then fails with -EBUSY and keeps the session: the next call
 * makes the object again.
 *
 * Return: 0, -ENOMEM, or @key->create's error (nothing is kept then).
 */
int llmem_session_slot(struct llmem_session *s, const struct llmem_session_slot_key *key,
		       void **out);

#endif
