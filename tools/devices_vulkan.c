// SPDX-License-Identifier: MIT
/*
 * Vulkan devices, found by opening a session on each index until the
 * library says there is none: what the user sees is what a session would
 * give them, extensions and all, not what the loader merely lists.
 */
#include <errno.h>
#include <stdlib.h>

#include <llmem/llmem.h>

#include "devices.h"
#include "vk_names.h"

/* Past any machine's device count: a guard against a loader that never
 * runs out. */
#define MAX_VULKAN_DEVICES 64

static void describe(struct emit *e, uint32_t index, const struct llmem_session_info *i)
{
	uint64_t device_local = 0;

	for (uint32_t h = 0; h < i->memory_heap_count; h++)
		if (i->memory_heaps[h].flags & 1)
			device_local += i->memory_heaps[h].size;
	emit_object(e, NULL);
	emit_uint(e, "index", index);
	emit_string(e, "name", i->device_name);
	emit_string(e, "type", vk_device_type_name(i->device_type));
	emit_string(e, "driver", i->driver_name[0] ? i->driver_name : "unknown");
	emit_uint(e, "device_local_bytes", device_local);
	emit_array(e, "shares");
	for (size_t c = 0; c < vk_cap_name_count; c++)
		if (i->caps & vk_cap_names[c].bit)
			emit_string(e, NULL, vk_cap_names[c].name);
	emit_end(e);
	emit_end(e);
}

void devices_vulkan(struct emit *e)
{
	/* The variable picks one device for every session; here each index
	 * must be its own. */
	unsetenv(LLMEM_ENV_DEVICE);
	emit_array(e, "vulkan");
	for (uint32_t index = 0; index < MAX_VULKAN_DEVICES; index++) {
		struct llmem_session_create_info ci = { .device_index = index,
							.app_name = "llmem devices" };
		struct llmem_session_info info;
		struct llmem_session *s;
		int ret = llmem_session_create(&ci, &s);

		if (ret == -ENODEV)
			break;
		if (ret) {
			emit_object(e, NULL);
			emit_uint(e, "index", index);
			emit_string(e, "error", llmem_last_error());
			emit_end(e);
			/* Without a session the next index cannot be told
			 * apart from this one's failure. */
			break;
		}
		llmem_session_get_info(s, &info);
		describe(e, index, &info);
		llmem_session_destroy(s);
	}
	emit_end(e);
}
