// SPDX-License-Identifier: MIT
/*
 * The session's own queue work: layout transitions and copies, recorded in
 * one command buffer and waited for with one fence.  Synchronous on
 * purpose: callers get their data back when the call returns.
 */
#include <errno.h>
#include <stdint.h>

#include "error.h"
#include "session_internal.h"

int llmem_cmd_init(struct llmem_session *s)
{
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = s->queue_family,
	};
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkResult r;

	r = vkCreateCommandPool(s->device, &pci, NULL, &s->command_pool);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "vkCreateCommandPool: %s", llmem_vk_result_name(r));
	cai.commandPool = s->command_pool;
	r = vkAllocateCommandBuffers(s->device, &cai, &s->cmd);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "vkAllocateCommandBuffers: %s", llmem_vk_result_name(r));
	r = vkCreateFence(s->device, &fci, NULL, &s->fence);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "vkCreateFence: %s", llmem_vk_result_name(r));
	return 0;
}

void llmem_cmd_fini(struct llmem_session *s)
{
	if (s->fence)
		vkDestroyFence(s->device, s->fence, NULL);
	/* Destroying the pool frees its command buffer. */
	if (s->command_pool)
		vkDestroyCommandPool(s->device, s->command_pool, NULL);
}

VkCommandBuffer llmem_cmd_begin(struct llmem_session *s)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkResult r;

	pthread_mutex_lock(&s->queue_lock);
	r = vkBeginCommandBuffer(s->cmd, &bi);
	if (r != VK_SUCCESS) {
		pthread_mutex_unlock(&s->queue_lock);
		llmem_error(-EIO, "vkBeginCommandBuffer: %s", llmem_vk_result_name(r));
		return VK_NULL_HANDLE;
	}
	return s->cmd;
}

int llmem_cmd_submit(struct llmem_session *s)
{
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &s->cmd,
	};
	const char *what = "vkEndCommandBuffer";
	VkResult r;

	r = vkEndCommandBuffer(s->cmd);
	if (r != VK_SUCCESS)
		goto out_unlock;
	what = "vkQueueSubmit";
	if (llmem_image_init_flush(s)) {
		r = VK_ERROR_DEVICE_LOST;
		what = "the move of new images to GENERAL";
		goto out_unlock;
	}
	r = vkQueueSubmit(s->queue, 1, &si, s->fence);
	if (r != VK_SUCCESS)
		goto out_unlock;
	what = "vkWaitForFences";
	r = vkWaitForFences(s->device, 1, &s->fence, VK_TRUE, UINT64_MAX);
	if (r != VK_SUCCESS)
		goto out_unlock;
	what = "vkResetFences";
	r = vkResetFences(s->device, 1, &s->fence);
out_unlock:
	vkResetCommandBuffer(s->cmd, 0);
	pthread_mutex_unlock(&s->queue_lock);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "%s: %s", what, llmem_vk_result_name(r));
	return 0;
}
