// SPDX-License-Identifier: MIT
#include <llmem/llmem.h>

#include "vk_names.h"

const struct vk_cap_name vk_cap_names[] = {
	{ LLMEM_CAP_DMABUF_EXPORT, "dmabuf_export" },
	{ LLMEM_CAP_DMABUF_IMPORT, "dmabuf_import" },
	{ LLMEM_CAP_HOST_POINTER_IMPORT, "host_pointer_import" },
	{ LLMEM_CAP_DRM_FORMAT_MODIFIERS, "drm_format_modifiers" },
	{ LLMEM_CAP_LLMEM_DEVICE, "llmem_device" },
	{ LLMEM_CAP_QUEUE_FAMILY_FOREIGN, "queue_family_foreign" },
	{ LLMEM_CAP_SYNC_FD_EXPORT, "sync_fd_export" },
	{ LLMEM_CAP_SYNC_FD_IMPORT, "sync_fd_import" },
};

const size_t vk_cap_name_count = sizeof(vk_cap_names) / sizeof(vk_cap_names[0]);

const char *vk_device_type_name(uint32_t type)
{
	static const char *const names[] = { "other", "integrated-gpu", "discrete-gpu",
					     "virtual-gpu", "cpu" };

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}
