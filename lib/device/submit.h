/* SPDX-License-Identifier: MIT */
/*
 * The one way GPU work reaches the session's VkQueue, and the rule every
 * submission carries: a new image leaves UNDEFINED before anything uses it.
 *
 * Submitting and waiting for that one barrier made image creation cost as
 * much as tens of vkAllocateMemory calls on lavapipe, so creating an image
 * only lists its first use; llmem_submit() precedes the work it submits by
 * one command buffer that moves every listed image to GENERAL.  Later work
 * runs after it: every command buffer of the library opens with a barrier
 * whose first scope is all earlier work on the queue.
 */
#ifndef LLMEM_DEVICE_SUBMIT_H
#define LLMEM_DEVICE_SUBMIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

struct llmem_session;

/* An image's move out of UNDEFINED, kept in the image it moves. */
struct llmem_first_use {
	VkImage image;
	/* Under the session's queue_lock: the place in the pending list plus
	 * one (0: not pending), and whether the move went in a submission that
	 * may still run. */
	uint32_t slot;
	bool submitted;
	/* Set once the move is known done: the handle accessors stop asking. */
	atomic_bool settled;
};

/* Semaphores a submission waits for before any of its work, and signals. */
struct llmem_submit_sync {
	const VkSemaphore *waits;
	uint32_t wait_count;
	const VkSemaphore *signals;
	uint32_t signal_count;
};

/**
 * llmem_submit() - submit @count command buffers to the session's queue,
 * signalling @fence (VK_NULL_HANDLE for none) when they are done.
 * @sync: NULL, or semaphores to wait for first and to signal when done.
 *
 * The moves of images made since the last submission go first.
 * Context: takes the session's queue_lock; never waits for the device except
 * for the previous moves' command buffer, which it re-records.
 * Return: 0, -ENOMEM or -EIO with the Vulkan call named.
 */
int llmem_submit(struct llmem_session *s, const VkCommandBuffer *cmds, uint32_t count,
		 const struct llmem_submit_sync *sync, VkFence fence);

/* Lists @fu's image for the next submission.  Return: 0 or -ENOMEM. */
int llmem_first_use_defer(struct llmem_session *s, struct llmem_first_use *fu);

/*
 * Makes the move happen if still listed and waits for it: before a handle
 * leaves for the caller's own Vulkan work, which may run on another queue.
 */
int llmem_first_use_settle(struct llmem_session *s, struct llmem_first_use *fu);

/* The last call before the VkImage goes: unlists it, or waits for its move. */
void llmem_first_use_forget(struct llmem_session *s, struct llmem_first_use *fu);

/* At session destruction: waits for the last moves and frees their objects. */
void llmem_submit_fini(struct llmem_session *s);

#endif
