/* SPDX-License-Identifier: MIT */
/*
 * What the objects of one session share: the device, its properties, the
 * enabled extensions, the one VkQueue (submit.h), and what higher tiers
 * keep for the session's life.
 */
#ifndef LLMEM_DEVICE_SESSION_H
#define LLMEM_DEVICE_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <vulkan/vulkan.h>

#include <llmem/session.h>

struct llmem_first_use;

/* What a higher tier keeps for the session's life (session.c). */
enum llmem_session_extra_id {
	/* transfer/blocking.c: the queue of the blocking transfer calls. */
	LLMEM_SESSION_EXTRA_BLOCKING_QUEUE,
	/* transfer/kernel.c: the built-in kernels; after the queue above,
	 * whose work may use them. */
	LLMEM_SESSION_EXTRA_KERNELS,
	LLMEM_SESSION_EXTRAS,
};

struct llmem_session_extra {
	void *object;
	void (*destroy)(void *object);
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
	/* VK_KHR_push_descriptor's command, NULL without it: the kernels
	 * dispatched on queues need it (transfer/kernel.c). */
	PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
	/* transfer/fill.c: tests shrink a shader dispatch's bytes and groups
	 * per dimension (0: no such limit); transfer/kernel.c counts the
	 * dispatches it records. */
	uint64_t shader_piece_max;
	uint32_t shader_groups_max;
	atomic_uint_fast64_t shader_dispatches;

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

	pthread_mutex_t extras_lock;
	struct llmem_session_extra extras[LLMEM_SESSION_EXTRAS];

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
 * llmem_session_extra() - the object @id a higher tier keeps for the
 * session's life, made by @create on the first call.
 *
 * llmem_session_destroy() calls @destroy on it before anything else, so a
 * tier below never needs to know what it is.
 *
 * Return: 0, or @create's error (nothing is kept then).
 */
int llmem_session_extra(struct llmem_session *s, enum llmem_session_extra_id id,
			int (*create)(struct llmem_session *s, void **object),
			void (*destroy)(void *object), void **out);

#endif
