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
	/* VK_KHR_push_descriptor's command, NULL without it: the fill and
	 * clear shaders of queues need it (transfer_fill.c). */
	PFN_vkCmdPushDescriptorSetKHR push_descriptor_set;
	/* transfer_fill.c: tests shrink a shader dispatch's bytes and groups
	 * per dimension (0: no such limit) and count the dispatches. */
	uint64_t shader_piece_max;
	uint32_t shader_groups_max;
	atomic_uint_fast64_t shader_dispatches;

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

	/*
	 * image_init.c, under queue_lock: images whose move from UNDEFINED to
	 * GENERAL waits for the next submission, and the command buffer and
	 * fence that carry those moves.
	 */
	struct llmem_image **init_pending;
	uint32_t init_count, init_cap;
	VkCommandBuffer init_cmd;
	VkFence init_fence;
	bool init_in_flight;

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

/*
 * image_init.c: a new image is moved to GENERAL by the next submission to
 * the session's queue rather than by one of its own.  Every submission that
 * may touch images calls llmem_image_init_flush() first, under queue_lock;
 * llmem_image_init_settle() makes the move happen and waits for it, for
 * handles given to the caller's own Vulkan work; llmem_image_init_forget()
 * is the last call before the VkImage goes.
 */
int llmem_image_init_defer(struct llmem_session *s, struct llmem_image *img);
int llmem_image_init_flush(struct llmem_session *s);
int llmem_image_init_settle(struct llmem_session *s, struct llmem_image *img);
void llmem_image_init_forget(struct llmem_session *s, struct llmem_image *img);
void llmem_image_init_fini(struct llmem_session *s);

/* Name a VkResult for error messages. */
const char *llmem_vk_result_name(VkResult r);

/* Staging memory of the session, created on first call. */
int llmem_session_staging(struct llmem_session *s, struct llmem_memory **out);

#endif
