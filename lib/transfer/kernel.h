/* SPDX-License-Identifier: MIT */
/*
 * What the library's own compute work shares with the caller's kernels
 * (llmem/kernel.h): the built-in shaders of shaders/ are kernels made by
 * llmem_kernel_create() on first use, described by the file that runs them
 * in the same create-info a caller fills, and dispatched by the same code.
 *
 * A dispatch is recorded into any command buffer: a transfer queue's
 * (llmem_enqueue_dispatch(), fills and clears), its descriptors pushed into
 * it (VK_KHR_push_descriptor), or one recorded once and submitted again and
 * again (the converters), its descriptors in a set of its
 * own: lavapipe replays pushed descriptors at every submission, which
 * `llmem bench camera` in the VM shows as more CPU time per frame.
 */
#ifndef LLMEM_TRANSFER_KERNEL_H
#define LLMEM_TRANSFER_KERNEL_H

#include <stdint.h>

#include <vulkan/vulkan.h>

#include <llmem/kernel.h>

struct llmem_dispatch_state;
struct llmem_session;

/* The library's kernels, one per shader of shaders/ (device/shaders.h). */
enum llmem_builtin_kernel {
	LLMEM_KERNEL_YUYV_TO_RGBA,
	LLMEM_KERNEL_NV12_TO_RGBA,
	LLMEM_KERNEL_RGB24_TO_RGBA,
	LLMEM_KERNEL_RGBA_TO_YUYV,
	LLMEM_KERNEL_RGBA_TO_NV12,
	LLMEM_KERNEL_FILL,
	LLMEM_KERNEL_CLEAR,
	LLMEM_KERNEL_BUILTINS,
};

/*
 * A kernel whose dispatches are recorded once each and submitted many
 * times: each recording binds a descriptor set of its own
 * (llmem_kernel_sets_create()), and the device needs no
 * VK_KHR_push_descriptor.  Without it, descriptors are pushed.
 */
#define LLMEM_KERNEL_RECORDED (1u << 0)

/**
 * llmem_kernel_builtin() - the session's kernel @id, made from @info and
 * @flags (LLMEM_KERNEL_RECORDED or 0) as llmem_kernel_create() makes a
 * caller's, on its first use, and kept until the session goes.
 *
 * Each id is asked for by one file, always with the same @info and @flags.
 * Context: any thread; creation is serialised per session.
 * Return: 0, or the errors of llmem_kernel_create() (-ENOTSUP without
 * VK_KHR_push_descriptor, for a kernel that pushes its descriptors).
 */
int llmem_kernel_builtin(struct llmem_session *s, enum llmem_builtin_kernel id,
			 const struct llmem_kernel_create_info *info, uint32_t flags,
			 struct llmem_kernel **out);

/* A dispatch's descriptors, entry i for binding i: a buffer range or an
 * image view as Vulkan takes them (the other entry unused). */
struct llmem_kernel_descriptors {
	VkDescriptorBufferInfo buffers[LLMEM_KERNEL_MAX_BINDINGS];
	VkDescriptorImageInfo images[LLMEM_KERNEL_MAX_BINDINGS];
};

/*
 * Checks @count objects of @args against @k's bindings (kind, session,
 * usage) and describes them whole in @out.  Return: 0; -EINVAL or -EPERM as
 * llmem_enqueue_dispatch() documents.  A caller that binds a range of a
 * buffer fills @out itself.
 */
int llmem_kernel_describe(const struct llmem_kernel *k, const struct llmem_kernel_arg *args,
			  uint32_t count, struct llmem_kernel_descriptors *out);

/*
 * Records @k's dispatch into @cmd: its pipeline, its descriptors @d (pushed;
 * for a LLMEM_KERNEL_RECORDED kernel, written to @set and bound, so @set's
 * earlier recording must not be pending), @push (@k's push size) and
 * @groups (none 0).  Records no barrier: ordering is the caller's.  Counts
 * the dispatch in the session's dispatch state (dispatch.h).
 */
void llmem_kernel_record(const struct llmem_kernel *k, VkCommandBuffer cmd,
			 const struct llmem_kernel_descriptors *d, VkDescriptorSet set,
			 const void *push, const uint32_t groups[3]);

/* The session's dispatch state, as @k holds it: what limits tests set. */
const struct llmem_dispatch_state *llmem_kernel_dispatch_state(const struct llmem_kernel *k);

/* Descriptor sets of a LLMEM_KERNEL_RECORDED kernel, one per recording, in
 * a pool of their own. */
struct llmem_kernel_sets {
	VkDevice device;
	VkDescriptorPool pool;
	VkDescriptorSet sets[];
};

/* @count sets of @k's layout.  Return: 0, -ENOMEM or -EIO. */
int llmem_kernel_sets_create(const struct llmem_kernel *k, uint32_t count,
			     struct llmem_kernel_sets **out);

/* Accepts NULL; after the work of every recording that binds the sets. */
void llmem_kernel_sets_destroy(struct llmem_kernel_sets *sets);

#endif
