// SPDX-License-Identifier: MIT
/*
 * bench alloc's peer: the trace as an application without a sub-allocator
 * runs it, one vkAllocateMemory per object, on a device of its own opened
 * with plain Vulkan, so that no part of the library is in its figures.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench_alloc_rounds.h"

int bench_alloc_peer_open(struct alloc_bench *b)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "llmem bench alloc",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
	};
	VkPhysicalDeviceMemoryProperties mp;
	VkPhysicalDeviceProperties props;
	VkPhysicalDevice phys;
	uint32_t n = 1;
	VkResult r;

	r = vkCreateInstance(&ici, NULL, &b->instance);
	if (r != VK_SUCCESS)
		return -ENODEV;
	r = vkEnumeratePhysicalDevices(b->instance, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
		return -ENODEV;
	vkGetPhysicalDeviceProperties(phys, &props);
	snprintf(b->device_name, sizeof(b->device_name), "%s", props.deviceName);
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	b->memory_type = 0;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
		if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
			b->memory_type = i;
			break;
		}
	}
	r = vkCreateDevice(phys, &dci, NULL, &b->device);
	return r == VK_SUCCESS ? 0 : -ENODEV;
}

void bench_alloc_peer_close(struct alloc_bench *b)
{
	if (b->device)
		vkDestroyDevice(b->device, NULL);
	if (b->instance)
		vkDestroyInstance(b->instance, NULL);
}

int bench_alloc_peer(struct alloc_bench *b, size_t ops, int timed, struct figures *f)
{
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.memoryTypeIndex = b->memory_type,
	};
	VkResult r = VK_SUCCESS;
	struct tally t;
	size_t i;

	memset(b->memories, 0, b->trace->objects * sizeof(*b->memories));
	tally_start(&t);
	for (i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &b->trace->ops[i];
		uint64_t t0 = timed ? timing_ns(CLOCK_MONOTONIC) : 0;

		if (op->free) {
			vkFreeMemory(b->device, b->memories[op->id], NULL);
			b->memories[op->id] = VK_NULL_HANDLE;
		} else {
			mai.allocationSize = op->size;
			r = vkAllocateMemory(b->device, &mai, NULL, &b->memories[op->id]);
		}
		if (!tally_step(&t, timed, r != VK_SUCCESS, op->free, t0))
			break;
	}
	tally_finish(&t, b, ops, f);
	for (uint32_t id = 0; id < b->trace->objects; id++)
		if (b->memories[id] != VK_NULL_HANDLE)
			vkFreeMemory(b->device, b->memories[id], NULL);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "llmem bench alloc: vkAllocateMemory failed (%d) at op %zu\n", r,
			i);
		return -ENOMEM;
	}
	return 0;
}
