/* SPDX-License-Identifier: MIT */
/*
 * VkResults in the library's error convention (base/error.h).
 */
#ifndef LLMEM_DEVICE_VK_H
#define LLMEM_DEVICE_VK_H

#include <vulkan/vulkan.h>

/* The VkResult's name, for messages. */
const char *llmem_vk_result_name(VkResult r);

/* -ENOMEM for the out-of-memory results, -EIO for the others. */
int llmem_vk_errno(VkResult r);

/*
 * Records "@what: VK_ERROR_..." for llmem_last_error() and returns -ENOMEM
 * for the out-of-memory results, -EIO for the others.
 */
int llmem_vk_error(VkResult r, const char *what);

#endif
