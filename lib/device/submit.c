// SPDX-License-Identifier: MIT
/*
 * Submissions to the session's VkQueue and the deferred first use of new
 * images (submit.h says why they are deferred).
 */
#include <errno.h>
#include <stdlib.h>

#include "base/error.h"
#include "device/session.h"
#include "device/submit.h"
#include "device/vk.h"

/* Barriers per vkCmdPipelineBarrier call, to keep the array on the stack. */
#define BARRIERS_PER_CALL 64

static int first_use_objects(struct llmem_session *s)
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

	if (!s->first_use_pool) {
		r = vkCreateCommandPool(s->device, &pci, NULL, &s->first_use_pool);
		if (r != VK_SUCCESS) {
			s->first_use_pool = VK_NULL_HANDLE;
			return llmem_vk_error(r, "image first use: vkCreateCommandPool");
		}
	}
	if (!s->first_use_cmd) {
		cai.commandPool = s->first_use_pool;
		r = vkAllocateCommandBuffers(s->device, &cai, &s->first_use_cmd);
		if (r != VK_SUCCESS) {
			s->first_use_cmd = VK_NULL_HANDLE;
			return llmem_vk_error(r, "image first use: vkAllocateCommandBuffers");
		}
	}
	if (!s->first_use_fence) {
		r = vkCreateFence(s->device, &fci, NULL, &s->first_use_fence);
		if (r != VK_SUCCESS) {
			s->first_use_fence = VK_NULL_HANDLE;
			return llmem_vk_error(r, "image first use: vkCreateFence");
		}
	}
	return 0;
}

/* Waits for the last submitted moves; the fence stays signalled. */
static int wait_in_flight(struct llmem_session *s)
{
	VkResult r;

	if (!s->first_use_in_flight)
		return 0;
	r = vkWaitForFences(s->device, 1, &s->first_use_fence, VK_TRUE, UINT64_MAX);
	return r == VK_SUCCESS ? 0 : llmem_vk_error(r, "image first use: vkWaitForFences");
}

int llmem_first_use_defer(struct llmem_session *s, struct llmem_first_use *fu)
{
	pthread_mutex_lock(&s->queue_lock);
	if (s->first_use_count == s->first_use_cap) {
		uint32_t cap = s->first_use_cap ? s->first_use_cap * 2 : 64;
		struct llmem_first_use **list = realloc(s->first_uses, cap * sizeof(*list));

		if (!list) {
			pthread_mutex_unlock(&s->queue_lock);
			return llmem_error(-ENOMEM, "image: out of memory");
		}
		s->first_uses = list;
		s->first_use_cap = cap;
	}
	s->first_uses[s->first_use_count++] = fu;
	fu->slot = s->first_use_count;
	pthread_mutex_unlock(&s->queue_lock);
	return 0;
}

static void record_moves(struct llmem_session *s)
{
	VkImageMemoryBarrier b[BARRIERS_PER_CALL];

	for (uint32_t done = 0; done < s->first_use_count;) {
		uint32_t n = s->first_use_count - done;

		if (n > BARRIERS_PER_CALL)
			n = BARRIERS_PER_CALL;
		for (uint32_t i = 0; i < n; i++)
			b[i] = (VkImageMemoryBarrier){
				.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
				.dstAccessMask =
					VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
				.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
				.newLayout = VK_IMAGE_LAYOUT_GENERAL,
				.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
				.image = s->first_uses[done + i]->image,
				.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
			};
		vkCmdPipelineBarrier(s->first_use_cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
				     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, n, b);
		done += n;
	}
}

/* Submits the listed moves.  Context: queue_lock held. */
static int submit_moves(struct llmem_session *s)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &s->first_use_cmd,
	};
	VkResult r;
	int ret;

	if (!s->first_use_count)
		return 0;
	ret = first_use_objects(s);
	if (!ret)
		ret = wait_in_flight(s);
	if (ret)
		return ret;
	r = vkResetFences(s->device, 1, &s->first_use_fence);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "image first use: vkResetFences");
	s->first_use_in_flight = false;
	r = vkBeginCommandBuffer(s->first_use_cmd, &bi);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "image first use: vkBeginCommandBuffer");
	record_moves(s);
	r = vkEndCommandBuffer(s->first_use_cmd);
	if (r == VK_SUCCESS)
		r = vkQueueSubmit(s->queue, 1, &si, s->first_use_fence);
	if (r != VK_SUCCESS) {
		vkResetCommandBuffer(s->first_use_cmd, 0);
		return llmem_vk_error(r, "image first use: vkQueueSubmit");
	}
	s->first_use_in_flight = true;
	for (uint32_t i = 0; i < s->first_use_count; i++) {
		s->first_uses[i]->slot = 0;
		s->first_uses[i]->submitted = true;
	}
	s->first_use_count = 0;
	return 0;
}

/* Enough for the few semaphores a submission carries. */
#define MAX_WAITS 16

int llmem_submit(struct llmem_session *s, const VkCommandBuffer *cmds, uint32_t count,
		 const struct llmem_submit_sync *sync, VkFence fence)
{
	VkPipelineStageFlags stages[MAX_WAITS];
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = count,
		.pCommandBuffers = cmds,
	};
	VkResult r;
	int ret;

	if (sync) {
		if (sync->wait_count > MAX_WAITS)
			return llmem_error(-EINVAL, "submit: %u semaphores to wait for, at most %d",
					   sync->wait_count, MAX_WAITS);
		for (uint32_t i = 0; i < sync->wait_count; i++)
			stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
		si.waitSemaphoreCount = sync->wait_count;
		si.pWaitSemaphores = sync->waits;
		si.pWaitDstStageMask = stages;
		si.signalSemaphoreCount = sync->signal_count;
		si.pSignalSemaphores = sync->signals;
	}

	pthread_mutex_lock(&s->queue_lock);
	ret = submit_moves(s);
	if (!ret) {
		r = vkQueueSubmit(s->queue, 1, &si, fence);
		if (r != VK_SUCCESS)
			ret = llmem_vk_error(r, "vkQueueSubmit");
	}
	pthread_mutex_unlock(&s->queue_lock);
	return ret;
}

int llmem_first_use_settle(struct llmem_session *s, struct llmem_first_use *fu)
{
	int ret = 0;

	if (atomic_load(&fu->settled))
		return 0;
	pthread_mutex_lock(&s->queue_lock);
	if (fu->slot)
		ret = submit_moves(s);
	if (!ret && fu->submitted)
		ret = wait_in_flight(s);
	if (!ret)
		atomic_store(&fu->settled, true);
	pthread_mutex_unlock(&s->queue_lock);
	return ret;
}

void llmem_first_use_forget(struct llmem_session *s, struct llmem_first_use *fu)
{
	pthread_mutex_lock(&s->queue_lock);
	if (fu->slot) {
		struct llmem_first_use *last = s->first_uses[--s->first_use_count];

		s->first_uses[fu->slot - 1] = last;
		last->slot = fu->slot;
		fu->slot = 0;
	} else if (fu->submitted && !atomic_load(&fu->settled)) {
		/* Nothing to do if this fails: the device is lost. */
		wait_in_flight(s);
	}
	pthread_mutex_unlock(&s->queue_lock);
}

void llmem_submit_fini(struct llmem_session *s)
{
	wait_in_flight(s);
	if (s->first_use_fence)
		vkDestroyFence(s->device, s->first_use_fence, NULL);
	/* Destroying the pool frees its command buffer. */
	if (s->first_use_pool)
		vkDestroyCommandPool(s->device, s->first_use_pool, NULL);
	free(s->first_uses);
}
