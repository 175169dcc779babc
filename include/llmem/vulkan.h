/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan handles behind llmem objects, for programs that record their own
 * work on them.  The library keeps ownership of every handle: never destroy
 * one, and never change an image's layout behind the library's back without
 * moving it back to llmem_image_layout() before the next llmem call on it.
 *
 * The image and view handles come out with the image in GENERAL on the
 * device: the first call for a new image submits its deferred move out of
 * UNDEFINED (image.h) if no submission has carried it yet, and waits for
 * it, so that work on any queue may start from GENERAL; they return
 * VK_NULL_HANDLE, with llmem_last_error() set, when that submission fails.
 *
 * Thread safety: the session, buffer and sampler calls only read fields
 * fixed at creation; the image and view calls take the session's queue
 * lock the first time for each image.
 */
#ifndef LLMEM_VULKAN_H
#define LLMEM_VULKAN_H

#include <vulkan/vulkan.h>

#include "llmem.h"

#ifdef __cplusplus
extern "C" {
#endif

VkInstance llmem_session_vk_instance(const struct llmem_session *session);
VkPhysicalDevice llmem_session_vk_physical_device(const struct llmem_session *session);
VkDevice llmem_session_vk_device(const struct llmem_session *session);
VkBuffer llmem_buffer_vk_buffer(const struct llmem_buffer *buffer);
VkImage llmem_image_vk_image(const struct llmem_image *image);
VkImageView llmem_image_view_vk_view(const struct llmem_image_view *view);
VkSampler llmem_image_view_vk_sampler(const struct llmem_image_view *view);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_VULKAN_H */
