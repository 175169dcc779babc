// SPDX-License-Identifier: MIT
/*
 * A new image must leave UNDEFINED before anything uses it.  Submitting and
 * waiting for that one barrier made image creation cost as much as tens of
 * vkAllocateMemory calls on lavapipe, so creation only puts the image on a
 * list; the next submission to the session's queue is preceded by one
 * command buffer that moves every listed image to GENERAL.  Later work on
 * the image runs after it: every submission of the library opens with a
 * barrier whose first scope is all earlier work on the queue.
 *
 * Handles given out for the caller's own Vulkan work (vulkan.h) may be used
 * on another queue, so handing one out settles the move first: submits it
 * if still listed and waits for it.
 */
#include <errno.h>
#include <stdlib.h>

#include "error.h"
#include "image_internal.h"
#include "session_internal.h"

/* Barriers per vkCmdPipelineBarrier call, to keep the array on the stack. */
#define BARRIERS_PER_CALL 64

static int vk_fail(const char *what, VkResult r)
{
	return llmem_error(-EIO, "image init: %s: %s", what, llmem_vk_result_name(r));
}

static int ensure_objects(struct llmem_session *s)
{
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = s->command_pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VkResult r;

	if (!s->init_cmd) {
		r = vkAllocateCommandBuffers(s->device, &cai, &s->init_cmd);
		if (r != VK_SUCCESS) {
			s->init_cmd = VK_NULL_HANDLE;
			return vk_fail("vkAllocateCommandBuffers", r);
		}
	}
	if (!s->init_fence) {
		r = vkCreateFence(s->device, &fci, NULL, &s->init_fence);
		if (r != VK_SUCCESS) {
			s->init_fence = VK_NULL_HANDLE;
			return vk_fail("vkCreateFence", r);
		}
	}
	return 0;
}

/* Waits for the last submitted moves; the fence stays signalled. */
static int wait_in_flight(struct llmem_session *s)
{
	VkResult r;

	if (!s->init_in_flight)
		return 0;
	r = vkWaitForFences(s->device, 1, &s->init_fence, VK_TRUE, UINT64_MAX);
	return r == VK_SUCCESS ? 0 : vk_fail("vkWaitForFences", r);
}

int llmem_image_init_defer(struct llmem_session *s, struct llmem_image *img)
{
	pthread_mutex_lock(&s->queue_lock);
	if (s->init_count == s->init_cap) {
		uint32_t cap = s->init_cap ? s->init_cap * 2 : 64;
		struct llmem_image **list = realloc(s->init_pending, cap * sizeof(*list));

		if (!list) {
			pthread_mutex_unlock(&s->queue_lock);
			return llmem_error(-ENOMEM, "image: out of memory");
		}
		s->init_pending = list;
		s->init_cap = cap;
	}
	s->init_pending[s->init_count++] = img;
	img->init_slot = s->init_count;
	pthread_mutex_unlock(&s->queue_lock);
	return 0;
}

static void record_moves(struct llmem_session *s)
{
	VkImageMemoryBarrier b[BARRIERS_PER_CALL];

	for (uint32_t done = 0; done < s->init_count;) {
		uint32_t n = s->init_count - done;

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
				.image = s->init_pending[done + i]->vk,
				.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
			};
		vkCmdPipelineBarrier(s->init_cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
				     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, n, b);
		done += n;
	}
}

int llmem_image_init_flush(struct llmem_session *s)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &s->init_cmd,
	};
	VkResult r;
	int ret;

	if (!s->init_count)
		return 0;
	ret = ensure_objects(s);
	if (!ret)
		ret = wait_in_flight(s);
	if (ret)
		return ret;
	r = vkResetFences(s->device, 1, &s->init_fence);
	if (r != VK_SUCCESS)
		return vk_fail("vkResetFences", r);
	s->init_in_flight = false;
	r = vkBeginCommandBuffer(s->init_cmd, &bi);
	if (r != VK_SUCCESS)
		return vk_fail("vkBeginCommandBuffer", r);
	record_moves(s);
	r = vkEndCommandBuffer(s->init_cmd);
	if (r == VK_SUCCESS)
		r = vkQueueSubmit(s->queue, 1, &si, s->init_fence);
	if (r != VK_SUCCESS) {
		vkResetCommandBuffer(s->init_cmd, 0);
		return vk_fail("vkQueueSubmit", r);
	}
	s->init_in_flight = true;
	for (uint32_t i = 0; i < s->init_count; i++) {
		s->init_pending[i]->init_slot = 0;
		s->init_pending[i]->init_submitted = true;
	}
	s->init_count = 0;
	return 0;
}

int llmem_image_init_settle(struct llmem_session *s, struct llmem_image *img)
{
	int ret = 0;

	if (atomic_load(&img->init_settled))
		return 0;
	pthread_mutex_lock(&s->queue_lock);
	if (img->init_slot)
		ret = llmem_image_init_flush(s);
	if (!ret && img->init_submitted)
		ret = wait_in_flight(s);
	if (!ret)
		atomic_store(&img->init_settled, true);
	pthread_mutex_unlock(&s->queue_lock);
	return ret;
}

void llmem_image_init_forget(struct llmem_session *s, struct llmem_image *img)
{
	pthread_mutex_lock(&s->queue_lock);
	if (img->init_slot) {
		struct llmem_image *last = s->init_pending[--s->init_count];

		s->init_pending[img->init_slot - 1] = last;
		last->init_slot = img->init_slot;
		img->init_slot = 0;
	} else if (img->init_submitted && !atomic_load(&img->init_settled)) {
		/* Nothing to do if this fails: the device is lost. */
		wait_in_flight(s);
	}
	pthread_mutex_unlock(&s->queue_lock);
}

void llmem_image_init_fini(struct llmem_session *s)
{
	wait_in_flight(s);
	if (s->init_fence)
		vkDestroyFence(s->device, s->init_fence, NULL);
	free(s->init_pending);
}
