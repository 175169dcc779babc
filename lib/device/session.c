// SPDX-License-Identifier: MIT
/*
 * Sessions: choosing a device, enabling what it has, and describing it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/copy_pool.h"
#include "base/error.h"
#include "device/session.h"
#include "device/submit.h"
#include "device/vk.h"

#define VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Device extensions that unlock capabilities; each is enabled only if present. */
enum optional_extension {
	EXT_MEMORY_FD,
	EXT_MEMORY_DMA_BUF,
	EXT_MEMORY_HOST,
	EXT_QUEUE_FAMILY_FOREIGN,
	EXT_IMAGE_FORMAT_LIST,
	EXT_DRM_FORMAT_MODIFIER,
	EXT_MIRROR_CLAMP_TO_EDGE,
	EXT_PUSH_DESCRIPTOR,
	EXT_SEMAPHORE_FD,
	N_OPTIONAL,
};

static const char *const optional_extensions[N_OPTIONAL] = {
	[EXT_MEMORY_FD] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
	[EXT_MEMORY_DMA_BUF] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME,
	[EXT_MEMORY_HOST] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
	[EXT_QUEUE_FAMILY_FOREIGN] = VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME,
	[EXT_IMAGE_FORMAT_LIST] = VK_KHR_IMAGE_FORMAT_LIST_EXTENSION_NAME,
	[EXT_DRM_FORMAT_MODIFIER] = VK_EXT_IMAGE_DRM_FORMAT_MODIFIER_EXTENSION_NAME,
	[EXT_MIRROR_CLAMP_TO_EDGE] = VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_EXTENSION_NAME,
	[EXT_PUSH_DESCRIPTOR] = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME,
	[EXT_SEMAPHORE_FD] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
};

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
						 VkDebugUtilsMessageTypeFlagsEXT type,
						 const VkDebugUtilsMessengerCallbackDataEXT *data,
						 void *user)
{
	struct llmem_session *s = user;

	(void)type;
	atomic_fetch_add(&s->validation_messages, 1);
	if (s->message_fn)
		s->message_fn(s->message_user, severity, data->pMessage);
	else
		fprintf(stderr, "llmem: validation: %s\n", data->pMessage);
	return VK_FALSE;
}

static bool has_layer(const char *name)
{
	VkLayerProperties *layers;
	uint32_t n = 0;
	bool found = false;

	if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS)
		return false;
	layers = calloc(n ? n : 1, sizeof(*layers));
	if (!layers)
		return false;
	if (vkEnumerateInstanceLayerProperties(&n, layers) == VK_SUCCESS)
		for (uint32_t i = 0; i < n && !found; i++)
			found = !strcmp(layers[i].layerName, name);
	free(layers);
	return found;
}

static bool contains_nocase(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (!strncasecmp(haystack, needle, n))
			return true;
	return n == 0;
}

/*
 * The environment wins over create_info, so a test run can pick the device.
 * A value it cannot mean is refused, never read as something else: digits
 * alone are an index (so "-1" is a name, which no device has), "1" and "0"
 * the only switches.  An empty variable counts as unset.
 */
static int apply_environment(uint32_t *index, const char **name, uint32_t *flags,
			     const char **source)
{
	const char *dev = getenv(LLMEM_ENV_DEVICE);
	const char *val = getenv(LLMEM_ENV_VALIDATION);

	if (dev && *dev && strspn(dev, "0123456789") == strlen(dev)) {
		unsigned long long i;

		errno = 0;
		i = strtoull(dev, NULL, 10);
		if (errno || i > UINT32_MAX)
			return llmem_error(-EINVAL,
					   "%s '%s': expected an index up to %u or a "
					   "piece of a device's name",
					   LLMEM_ENV_DEVICE, dev, UINT32_MAX);
		*index = (uint32_t)i;
		*name = NULL;
	} else if (dev && *dev) {
		*name = dev;
	}
	if (dev && *dev)
		*source = " (" LLMEM_ENV_DEVICE ")";
	if (val && *val && strcmp(val, "1") && strcmp(val, "0"))
		return llmem_error(-EINVAL, "%s '%s': expected 1 (on) or 0 (off)",
				   LLMEM_ENV_VALIDATION, val);
	if (val && !strcmp(val, "1"))
		*flags |= LLMEM_SESSION_VALIDATION;
	else if (val && !strcmp(val, "0"))
		*flags &= ~(uint32_t)LLMEM_SESSION_VALIDATION;
	return llmem_copy_pool_check_environment();
}

static int create_instance(struct llmem_session *s, const struct llmem_session_create_info *ci,
			   bool validation, uint32_t api_version)
{
	VkDebugUtilsMessengerCreateInfoEXT messenger_ci = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
				   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
		.pUserData = s,
	};
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = ci->app_name ? ci->app_name : "llmem",
		.applicationVersion = ci->app_version,
		.pEngineName = "llmem",
		.apiVersion = api_version,
	};
	const char *layer = VALIDATION_LAYER;
	const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		/* Messages from instance creation itself reach the callback too. */
		.pNext = validation ? &messenger_ci : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validation,
		.ppEnabledLayerNames = &layer,
		.enabledExtensionCount = validation,
		.ppEnabledExtensionNames = &ext,
	};
	PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
	VkResult r;

	r = vkCreateInstance(&ici, NULL, &s->instance);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateInstance");
	if (!validation)
		return 0;
	create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
		s->instance, "vkCreateDebugUtilsMessengerEXT");
	if (!create_messenger)
		return llmem_error(-EIO, "vkCreateDebugUtilsMessengerEXT is missing");
	r = create_messenger(s->instance, &messenger_ci, NULL, &s->messenger);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateDebugUtilsMessengerEXT");
	return 0;
}

/* @source: where @index or @name came from, for the messages; "" for create_info. */
static int pick_device(struct llmem_session *s, uint32_t index, const char *name,
		       const char *source)
{
	VkPhysicalDevice *devs;
	uint32_t n = 0;
	VkResult r;
	int ret = 0;

	r = vkEnumeratePhysicalDevices(s->instance, &n, NULL);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkEnumeratePhysicalDevices");
	if (n == 0)
		return llmem_error(-ENODEV, "no Vulkan device");
	devs = calloc(n, sizeof(*devs));
	if (!devs)
		return llmem_error(-ENOMEM, "out of memory");
	r = vkEnumeratePhysicalDevices(s->instance, &n, devs);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		ret = llmem_vk_error(r, "vkEnumeratePhysicalDevices");
		goto out_free_devs;
	}
	if (name) {
		for (uint32_t i = 0; i < n && !s->physical; i++) {
			VkPhysicalDeviceProperties p;

			vkGetPhysicalDeviceProperties(devs[i], &p);
			if (contains_nocase(p.deviceName, name))
				s->physical = devs[i];
		}
		if (!s->physical)
			ret = llmem_error(-ENODEV, "no Vulkan device named like '%s'%s", name,
					  source);
	} else if (index >= n) {
		ret = llmem_error(-ENODEV, "device index %u%s, but there %s %u device%s", index,
				  source, n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
	} else {
		s->physical = devs[index];
	}
out_free_devs:
	free(devs);
	return ret;
}

static bool ext_in(const VkExtensionProperties *exts, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(exts[i].extensionName, name))
			return true;
	return false;
}

static uint32_t external_buffer_features(struct llmem_session *s,
					 VkExternalMemoryHandleTypeFlagBits type)
{
	VkPhysicalDeviceExternalBufferInfo bi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
			 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.handleType = type,
	};
	VkExternalBufferProperties ep = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };

	vkGetPhysicalDeviceExternalBufferProperties(s->physical, &bi, &ep);
	return ep.externalMemoryProperties.externalMemoryFeatures;
}

/* What the device can do with binary semaphores whose payload is a sync_file. */
static uint32_t sync_fd_features(struct llmem_session *s)
{
	VkPhysicalDeviceExternalSemaphoreInfo si = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkExternalSemaphoreProperties ep = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
	};

	vkGetPhysicalDeviceExternalSemaphoreProperties(s->physical, &si, &ep);
	return ep.externalSemaphoreFeatures;
}

/* Fills s->info from the physical device and the extensions found on it. */
static void describe(struct llmem_session *s, const bool *enabled)
{
	struct llmem_session_info *info = &s->info;
	VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
	};
	VkPhysicalDeviceDriverProperties driver = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
	};
	VkPhysicalDeviceMaintenance3Properties maintenance3 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES,
	};
	VkPhysicalDeviceMaintenance4Properties maintenance4 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES,
	};
	VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
					   .pNext = &maintenance3 };
	/* The property bits a memory may ask for (the memory tier names them). */
	const uint32_t mask =
		VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
		VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
	uint32_t features;

	vkGetPhysicalDeviceProperties(s->physical, &s->props);
	vkGetPhysicalDeviceMemoryProperties(s->physical, &s->mem_props);
	if (enabled[EXT_MEMORY_HOST]) {
		host.pNext = p2.pNext;
		p2.pNext = &host;
	}
	if (s->props.apiVersion >= VK_API_VERSION_1_2) {
		driver.pNext = p2.pNext;
		p2.pNext = &driver;
	}
	/* maxBufferSize is core from 1.3, in the instance and the device alike. */
	if (s->props.apiVersion >= VK_API_VERSION_1_3 &&
	    s->instance_api_version >= VK_API_VERSION_1_3) {
		maintenance4.pNext = p2.pNext;
		p2.pNext = &maintenance4;
	}
	vkGetPhysicalDeviceProperties2(s->physical, &p2);
	s->max_allocation_size = maintenance3.maxMemoryAllocationSize;
	s->max_buffer_size = maintenance4.maxBufferSize ? maintenance4.maxBufferSize : UINT64_MAX;

	snprintf(info->device_name, sizeof(info->device_name), "%s", s->props.deviceName);
	snprintf(info->driver_name, sizeof(info->driver_name), "%s", driver.driverName);
	snprintf(info->driver_info, sizeof(info->driver_info), "%s", driver.driverInfo);
	info->api_version = s->props.apiVersion;
	info->driver_version = s->props.driverVersion;
	info->vendor_id = s->props.vendorID;
	info->device_id = s->props.deviceID;
	info->device_type = s->props.deviceType;

	info->memory_type_count = s->mem_props.memoryTypeCount;
	for (uint32_t i = 0; i < s->mem_props.memoryTypeCount; i++) {
		uint32_t f = s->mem_props.memoryTypes[i].propertyFlags;
		uint32_t j;

		info->memory_types[i].flags = f;
		info->memory_types[i].heap_index = s->mem_props.memoryTypes[i].heapIndex;
		f &= mask;
		for (j = 0; j < info->flag_set_count; j++)
			if (info->flag_sets[j] == f)
				break;
		if (j == info->flag_set_count)
			info->flag_sets[info->flag_set_count++] = f;
	}
	info->memory_heap_count = s->mem_props.memoryHeapCount;
	for (uint32_t i = 0; i < s->mem_props.memoryHeapCount; i++) {
		info->memory_heaps[i].size = s->mem_props.memoryHeaps[i].size;
		info->memory_heaps[i].flags = s->mem_props.memoryHeaps[i].flags;
	}

	info->buffer_image_granularity = s->props.limits.bufferImageGranularity;
	info->non_coherent_atom_size = s->props.limits.nonCoherentAtomSize;
	info->min_imported_host_pointer_alignment =
		enabled[EXT_MEMORY_HOST] ? host.minImportedHostPointerAlignment : 0;

	if (enabled[EXT_MEMORY_FD] && enabled[EXT_MEMORY_DMA_BUF]) {
		features =
			external_buffer_features(s, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
		if (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)
			info->caps |= LLMEM_CAP_DMABUF_EXPORT;
		if (features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)
			info->caps |= LLMEM_CAP_DMABUF_IMPORT;
	}
	if (enabled[EXT_MEMORY_HOST])
		info->caps |= LLMEM_CAP_HOST_POINTER_IMPORT;
	if (enabled[EXT_QUEUE_FAMILY_FOREIGN])
		info->caps |= LLMEM_CAP_QUEUE_FAMILY_FOREIGN;
	if (enabled[EXT_DRM_FORMAT_MODIFIER])
		info->caps |= LLMEM_CAP_DRM_FORMAT_MODIFIERS;
	if (enabled[EXT_SEMAPHORE_FD]) {
		features = sync_fd_features(s);
		if (features & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT)
			info->caps |= LLMEM_CAP_SYNC_FD_EXPORT;
		if (features & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT)
			info->caps |= LLMEM_CAP_SYNC_FD_IMPORT;
	}
	s->mirror_clamp_to_edge = enabled[EXT_MIRROR_CLAMP_TO_EDGE];
	if (enabled[EXT_PUSH_DESCRIPTOR])
		s->push_descriptor_set = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(
			s->device, "vkCmdPushDescriptorSetKHR");
	/* A node root alone may open is of no use to other processes. */
	if (faccessat(AT_FDCWD, "/dev/llmem", R_OK | W_OK, AT_EACCESS) == 0)
		info->caps |= LLMEM_CAP_LLMEM_DEVICE;
}

static int pick_queue_family(struct llmem_session *s)
{
	VkQueueFamilyProperties qf[16];
	uint32_t n = 16;

	vkGetPhysicalDeviceQueueFamilyProperties(s->physical, &n, qf);
	/* Compute queues take transfers too; the library needs nothing else. */
	for (uint32_t i = 0; i < n; i++) {
		if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
			s->queue_family = i;
			return 0;
		}
	}
	return llmem_error(-ENODEV, "device '%s' has no compute queue", s->props.deviceName);
}

static int create_device(struct llmem_session *s)
{
	const char *names[N_OPTIONAL];
	bool enabled[N_OPTIONAL] = { 0 };
	VkExtensionProperties *exts;
	uint32_t n = 0, count = 0;
	float priority = 1.0f;
	VkResult r;
	int ret;

	r = vkEnumerateDeviceExtensionProperties(s->physical, NULL, &n, NULL);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkEnumerateDeviceExtensionProperties");
	exts = calloc(n ? n : 1, sizeof(*exts));
	if (!exts)
		return llmem_error(-ENOMEM, "out of memory");
	r = vkEnumerateDeviceExtensionProperties(s->physical, NULL, &n, exts);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		free(exts);
		return llmem_vk_error(r, "vkEnumerateDeviceExtensionProperties");
	}
	for (size_t i = 0; i < N_OPTIONAL; i++)
		enabled[i] = ext_in(exts, n, optional_extensions[i]);
	free(exts);
	/* DMA-BUF needs the fd entry points; DRM modifiers need the format list. */
	enabled[EXT_MEMORY_DMA_BUF] = enabled[EXT_MEMORY_DMA_BUF] && enabled[EXT_MEMORY_FD];
	enabled[EXT_DRM_FORMAT_MODIFIER] =
		enabled[EXT_DRM_FORMAT_MODIFIER] && enabled[EXT_IMAGE_FORMAT_LIST];
	for (size_t i = 0; i < N_OPTIONAL; i++)
		if (enabled[i])
			names[count++] = optional_extensions[i];

	vkGetPhysicalDeviceProperties(s->physical, &s->props);
	ret = pick_queue_family(s);
	if (ret)
		return ret;

	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = s->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = count,
		.ppEnabledExtensionNames = names,
	};
	r = vkCreateDevice(s->physical, &dci, NULL, &s->device);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateDevice");
	vkGetDeviceQueue(s->device, s->queue_family, 0, &s->queue);
	describe(s, enabled);
	return 0;
}

LLMEM_PUBLIC int llmem_session_create(const struct llmem_session_create_info *info,
				      struct llmem_session **out)
{
	static const struct llmem_session_create_info defaults;
	const struct llmem_session_create_info *ci = info ? info : &defaults;
	uint32_t index = ci->device_index, flags = ci->flags, api_version = VK_API_VERSION_1_1;
	const char *name = ci->device_name, *source = "";
	struct llmem_session *s;
	int ret;

	if (!out)
		return llmem_error(-EINVAL, "session: out is NULL");
	*out = NULL;
	if (flags & ~(uint32_t)LLMEM_SESSION_VALIDATION)
		return llmem_error(-EINVAL, "session: unknown flags 0x%x", flags);
	ret = apply_environment(&index, &name, &flags, &source);
	if (ret)
		return ret;

	bool validation = flags & LLMEM_SESSION_VALIDATION;
	if (validation && !has_layer(VALIDATION_LAYER))
		return llmem_error(-ENOTSUP,
				   "session: validation asked for, but %s is not installed",
				   VALIDATION_LAYER);

	s = calloc(1, sizeof(*s));
	if (!s)
		return llmem_error(-ENOMEM, "out of memory");
	s->message_fn = ci->message_fn;
	s->message_user = ci->message_user;
	pthread_mutex_init(&s->queue_lock, NULL);
	pthread_mutex_init(&s->slots_lock, NULL);
	pthread_mutex_init(&s->formats_lock, NULL);

	/* Vulkan 1.2 brings the driver name; older loaders get 1.1, enough for the rest. */
	if (vkEnumerateInstanceVersion(&api_version) != VK_SUCCESS ||
	    api_version < VK_API_VERSION_1_1) {
		ret = llmem_error(-ENODEV, "the Vulkan loader is older than 1.1");
		goto out_destroy;
	}
	if (api_version > VK_API_VERSION_1_3)
		api_version = VK_API_VERSION_1_3;

	s->instance_api_version = api_version;
	ret = create_instance(s, ci, validation, api_version);
	if (ret)
		goto out_destroy;
	ret = pick_device(s, index, name, source);
	if (ret)
		goto out_destroy;
	ret = create_device(s);
	if (ret)
		goto out_destroy;
	s->info.validation = validation;
	*out = s;
	return 0;

out_destroy:
	llmem_session_destroy(s);
	return ret;
}

/* Last made, first gone: a slot may hold what an earlier one made. */
static void destroy_slots(struct llmem_session *s)
{
	pthread_mutex_lock(&s->slots_lock);
	while (s->slot_count) {
		struct llmem_session_slot *slot = &s->slots[--s->slot_count];

		slot->key->destroy(slot->object);
	}
	free(s->slots);
	s->slots = NULL;
	s->slot_cap = 0;
	pthread_mutex_unlock(&s->slots_lock);
}

LLMEM_PUBLIC int llmem_session_destroy(struct llmem_session *s)
{
	int memories;

	if (!s)
		return 0;
	/* What higher tiers keep holds memories of its own: it goes first. */
	destroy_slots(s);
	memories = atomic_load(&s->memories);
	if (memories)
		return llmem_error(-EBUSY, "session: memories still alive: %d", memories);
	if (s->device) {
		llmem_submit_fini(s);
		vkDestroyDevice(s->device, NULL);
	}
	if (s->messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy =
			(PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
				s->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (destroy)
			destroy(s->instance, s->messenger, NULL);
	}
	if (s->instance)
		vkDestroyInstance(s->instance, NULL);
	pthread_mutex_destroy(&s->formats_lock);
	pthread_mutex_destroy(&s->slots_lock);
	pthread_mutex_destroy(&s->queue_lock);
	free(s);
	return 0;
}

void llmem_session_format_properties(struct llmem_session *s, VkFormat format,
				     VkFormatProperties *props)
{
	if ((uint32_t)format >= LLMEM_CORE_FORMATS) {
		vkGetPhysicalDeviceFormatProperties(s->physical, format, props);
		return;
	}
	if (!atomic_load_explicit(&s->format_known[format], memory_order_acquire)) {
		pthread_mutex_lock(&s->formats_lock);
		if (!atomic_load_explicit(&s->format_known[format], memory_order_relaxed)) {
			vkGetPhysicalDeviceFormatProperties(s->physical, format,
							    &s->format_props[format]);
			atomic_store_explicit(&s->format_known[format], true, memory_order_release);
		}
		pthread_mutex_unlock(&s->formats_lock);
	}
	*props = s->format_props[format];
}

/* Context: slots_lock held.  Return: 0 or -ENOMEM. */
static int add_slot(struct llmem_session *s, const struct llmem_session_slot_key *key, void *object)
{
	if (s->slot_count == s->slot_cap) {
		uint32_t cap = s->slot_cap ? 2 * s->slot_cap : 4;
		struct llmem_session_slot *slots = realloc(s->slots, cap * sizeof(*slots));

		if (!slots)
			return llmem_error(-ENOMEM, "session: out of memory");
		s->slots = slots;
		s->slot_cap = cap;
	}
	s->slots[s->slot_count++] = (struct llmem_session_slot){ key, object };
	return 0;
}

int llmem_session_slot(struct llmem_session *s, const struct llmem_session_slot_key *key,
		       void **out)
{
	int ret = 0;

	*out = NULL;
	pthread_mutex_lock(&s->slots_lock);
	for (uint32_t i = 0; i < s->slot_count; i++) {
		if (s->slots[i].key == key) {
			*out = s->slots[i].object;
			goto out_unlock;
		}
	}
	ret = key->create(s, out);
	if (ret) {
		*out = NULL;
		goto out_unlock;
	}
	ret = add_slot(s, key, *out);
	if (ret) {
		key->destroy(*out);
		*out = NULL;
	}
out_unlock:
	pthread_mutex_unlock(&s->slots_lock);
	return ret;
}

LLMEM_PUBLIC int llmem_session_get_info(const struct llmem_session *s,
					struct llmem_session_info *info)
{
	if (!s || !info)
		return llmem_error(-EINVAL, "session info: NULL argument");
	*info = s->info;
	return 0;
}

LLMEM_PUBLIC int64_t llmem_session_validation_messages(const struct llmem_session *s)
{
	if (!s)
		return llmem_error(-EINVAL, "session: NULL");
	return atomic_load(&((struct llmem_session *)s)->validation_messages);
}
