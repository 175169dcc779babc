/* SPDX-License-Identifier: MIT */
/*
 * A session: one Vulkan instance and device, the one VkQueue every
 * submission of the library goes to, and the answer to "what can this
 * device do".
 *
 * Thread safety: a session may be used from any number of threads at once
 * for everything but llmem_session_destroy(), which the caller must order
 * after every other call on the session and on the objects made from it.
 * Submissions to the VkQueue are serialised by a mutex inside the session.
 */
#ifndef LLMEM_SESSION_H
#define LLMEM_SESSION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;

/* Overrides create_info.device_index and device_name: digits alone are an
 * index (up to UINT32_MAX, else -EINVAL), anything else a case-insensitive
 * substring of the device name. */
#define LLMEM_ENV_DEVICE "LLMEM_DEVICE"
/* "1" turns validation on, "0" turns it off, whatever create_info says;
 * any other non-empty value fails llmem_session_create() with -EINVAL.
 * So does an LLMEM_COPY_THREADS other than 1 to 16. */
#define LLMEM_ENV_VALIDATION "LLMEM_VALIDATION"

enum llmem_session_flags {
	/* Enable VK_LAYER_KHRONOS_validation and count its messages. */
	LLMEM_SESSION_VALIDATION = 1u << 0,
};

/**
 * typedef llmem_message_fn - receives one validation-layer message.
 * @user: create_info.message_user.
 * @severity: VkDebugUtilsMessageSeverityFlagBitsEXT of the message.
 * @message: the layer's text; valid during the call only.
 *
 * Called from whichever thread made the Vulkan call that triggered it.
 */
typedef void (*llmem_message_fn)(void *user, uint32_t severity, const char *message);

struct llmem_session_create_info {
	/* Index into the devices in the loader's order; leave 0 for the first. */
	uint32_t device_index;
	/* Case-insensitive substring of the device name; leave NULL to choose
	 * by device_index.  -ENODEV when no device matches. */
	const char *device_name;
	/* enum llmem_session_flags; leave 0 for no validation. */
	uint32_t flags;
	/* Reported to the driver as VkApplicationInfo; leave NULL for "llmem". */
	const char *app_name;
	/* VK_MAKE_VERSION-style application version; leave 0 for 0. */
	uint32_t app_version;
	/* Validation messages go here; leave NULL to print them on stderr.
	 * Every message is counted either way. */
	llmem_message_fn message_fn;
	void *message_user;
};

/**
 * llmem_session_create() - open a Vulkan device.
 * @info: the choices; NULL for all defaults.
 * @out: the new session.
 *
 * Optional extensions (external memory fd, DMA-BUF, host pointers, DRM
 * format modifiers) are enabled only where the device has them; their
 * absence shows in llmem_session_info.caps, it is not an error.
 *
 * Return: 0; -EINVAL for a NULL @out or unknown flags; -ENODEV when no
 * device matches; -ENOTSUP when validation was asked for and the layer is
 * not installed; -ENOMEM; -EIO for another Vulkan failure (named in
 * llmem_last_error()).
 */
int llmem_session_create(const struct llmem_session_create_info *info, struct llmem_session **out);

/**
 * llmem_session_destroy() - close the device.  NULL returns 0.
 *
 * The queue of the blocking transfer calls (transfer.h) goes first.
 *
 * Return: 0; -EBUSY when memories made from the session are still alive
 * (queues made with llmem_queue_create() hold one each): the session stays
 * usable (freeing the device under them would leave them dangling) and can
 * be destroyed once they are.
 */
int llmem_session_destroy(struct llmem_session *session);

enum llmem_caps {
	/* VK_EXT_external_memory_dma_buf and buffers can export DMA-BUF fds.
	 * An allocation can still fail where the kernel lacks a DMA-BUF
	 * provider (lavapipe without udmabuf). */
	LLMEM_CAP_DMABUF_EXPORT = 1u << 0,
	/* Buffers can be bound to imported DMA-BUF fds. */
	LLMEM_CAP_DMABUF_IMPORT = 1u << 1,
	/* VK_EXT_external_memory_host: host allocations import as memory. */
	LLMEM_CAP_HOST_POINTER_IMPORT = 1u << 2,
	/* VK_EXT_image_drm_format_modifier. */
	LLMEM_CAP_DRM_FORMAT_MODIFIERS = 1u << 3,
	/* /dev/llmem exists (the llmem.ko exporter is loaded) and this process
	 * may open it read-write (module/70-llmem.rules: the video group). */
	LLMEM_CAP_LLMEM_DEVICE = 1u << 4,
	/* VK_EXT_queue_family_foreign: ownership transfers to other devices. */
	LLMEM_CAP_QUEUE_FAMILY_FOREIGN = 1u << 5,
	/* VK_KHR_external_semaphore_fd with sync_file payloads: a queue's work
	 * can signal a sync_file (export) and wait for one on the device
	 * (import); without them a sync_file is waited for on the CPU. */
	LLMEM_CAP_SYNC_FD_EXPORT = 1u << 6,
	LLMEM_CAP_SYNC_FD_IMPORT = 1u << 7,
};

#define LLMEM_MAX_MEMORY_TYPES 32
#define LLMEM_MAX_MEMORY_HEAPS 16

struct llmem_memory_type_info {
	/* VkMemoryPropertyFlags; the llmem_memory_flags are the same bits. */
	uint32_t flags;
	uint32_t heap_index;
};

struct llmem_memory_heap_info {
	uint64_t size;
	/* VkMemoryHeapFlags. */
	uint32_t flags;
};

struct llmem_session_info {
	char device_name[256];
	/* VkPhysicalDeviceDriverProperties; empty where the driver is older
	 * than Vulkan 1.2. */
	char driver_name[256];
	char driver_info[256];
	/* VK_MAKE_API_VERSION encoding. */
	uint32_t api_version;
	uint32_t driver_version;
	uint32_t vendor_id;
	uint32_t device_id;
	/* VkPhysicalDeviceType. */
	uint32_t device_type;

	uint32_t memory_type_count;
	struct llmem_memory_type_info memory_types[LLMEM_MAX_MEMORY_TYPES];
	uint32_t memory_heap_count;
	struct llmem_memory_heap_info memory_heaps[LLMEM_MAX_MEMORY_HEAPS];
	/* The distinct property-flag sets of the memory types, restricted to
	 * the llmem_memory_flags bits, in memory-type order: what a memory
	 * can ask for with exact match. */
	uint32_t flag_set_count;
	uint32_t flag_sets[LLMEM_MAX_MEMORY_TYPES];

	uint64_t buffer_image_granularity;
	uint64_t non_coherent_atom_size;
	/* 0 without LLMEM_CAP_HOST_POINTER_IMPORT. */
	uint64_t min_imported_host_pointer_alignment;

	/* enum llmem_caps. */
	uint32_t caps;
	/* Whether the validation layer is on for this session. */
	uint32_t validation;
};

/**
 * llmem_session_get_info() - describe the device.
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
int llmem_session_get_info(const struct llmem_session *session, struct llmem_session_info *info);

/**
 * llmem_session_validation_messages() - messages the validation layer sent.
 *
 * Counts warnings and errors (not info or verbose) since the session was
 * created; tests assert it is 0 at teardown.
 *
 * Return: the count, 0 without validation, -EINVAL for NULL.
 */
int64_t llmem_session_validation_messages(const struct llmem_session *session);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_SESSION_H */
