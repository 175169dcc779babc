// SPDX-License-Identifier: MIT
/*
 * The Vulkan handles behind sessions, buffers, images and views
 * (llmem/vulkan.h), for programs that record their own work on them.
 */
#include <llmem/vulkan.h>

#include "base/export.h"
#include "device/session.h"
#include "device/submit.h"
#include "memory/buffer.h"
#include "memory/image.h"

LLMEM_PUBLIC VkInstance llmem_session_vk_instance(const struct llmem_session *s)
{
	return s ? s->instance : VK_NULL_HANDLE;
}

LLMEM_PUBLIC VkPhysicalDevice llmem_session_vk_physical_device(const struct llmem_session *s)
{
	return s ? s->physical : VK_NULL_HANDLE;
}

LLMEM_PUBLIC VkDevice llmem_session_vk_device(const struct llmem_session *s)
{
	return s ? s->device : VK_NULL_HANDLE;
}

LLMEM_PUBLIC VkBuffer llmem_buffer_vk_buffer(const struct llmem_buffer *b)
{
	return b ? b->vk : VK_NULL_HANDLE;
}

LLMEM_PUBLIC VkImage llmem_image_vk_image(const struct llmem_image *img)
{
	struct llmem_image *mutable = (struct llmem_image *)img;

	/* The caller's own work may run on another queue: the image must be
	 * in GENERAL on the device before the handle leaves. */
	if (!img ||
	    llmem_first_use_settle(llmem_memory_session(img->obj.memory), &mutable->first_use))
		return VK_NULL_HANDLE;
	return img->vk;
}

LLMEM_PUBLIC VkImageView llmem_image_view_vk_view(const struct llmem_image_view *v)
{
	if (!v || !llmem_image_vk_image(v->image))
		return VK_NULL_HANDLE;
	return v->vk;
}

LLMEM_PUBLIC VkSampler llmem_image_view_vk_sampler(const struct llmem_image_view *v)
{
	return v ? v->sampler : VK_NULL_HANDLE;
}
