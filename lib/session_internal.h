/* SPDX-License-Identifier: MIT */
/*
 * What the objects of one session share: the device, its properties, the
 * enabled extensions, and the queue/command helper of command.c.
 */
#ifndef LLMEM_SESSION_INTERNAL_H
#define LLMEM_SESSION_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <vulkan/vulkan.h>

#include <llmem/llmem.h>

#include "pipeline.h"

struct llmem_session {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkDevice device;

	VkPhysicalDeviceProperties props;
	VkPhysicalDeviceMemoryProperties mem_props;
	struct llmem_session_info info;
	/* VK_KHR_sampler_mirror_clamp_to_edge is enabled. */
	bool mirror_clamp_to_edge;

	llmem_message_fn message_fn;
	void *message_user;
	atomic_llong validation_messages;

	/* command.c: one queue, one command buffer, one fence, one user at a time. */
	pthread_mutex_t queue_lock;
	uint32_t queue_family;
	VkQueue queue;
	VkCommandPool command_pool;
	VkCommandBuffer cmd;
	VkFence fence;

	/* pipeline.c: built on first use, under queue_lock. */
	struct llmem_pipeline pipelines[LLMEM_PIPELINE_COUNT];

	/* Host-visible memory for image uploads and downloads, made on first use. */
	pthread_mutex_t staging_lock;
	struct llmem_memory *staging;

	atomic_int memories;
};

/*
 * command.c: cmd_begin() takes the queue lock and returns a command buffer in
 * the recording state; cmd_submit() submits it, waits for it and drops the
 * lock, whatever happens.
 */
int llmem_cmd_init(struct llmem_session *s);
void llmem_cmd_fini(struct llmem_session *s);
VkCommandBuffer llmem_cmd_begin(struct llmem_session *s);
int llmem_cmd_submit(struct llmem_session *s);

/* Name a VkResult for error messages. */
const char *llmem_vk_result_name(VkResult r);

/* Staging memory of the session, created on first call. */
int llmem_session_staging(struct llmem_session *s, struct llmem_memory **out);

#endif
