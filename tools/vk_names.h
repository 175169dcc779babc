/* SPDX-License-Identifier: MIT */
/*
 * The names `llmem info` and `llmem devices` give a session's capability
 * bits and device types, so both commands and their JSON agree.
 */
#ifndef LLMEM_TOOLS_VK_NAMES_H
#define LLMEM_TOOLS_VK_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct vk_cap_name {
	uint32_t bit;
	const char *name;
};

/* Every enum llmem_caps bit, in its order. */
extern const struct vk_cap_name vk_cap_names[];
extern const size_t vk_cap_name_count;

/* VkPhysicalDeviceType as a word ("discrete-gpu"); "unknown" past the enum. */
const char *vk_device_type_name(uint32_t type);

#endif
