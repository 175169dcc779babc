/* SPDX-License-Identifier: MIT */
/*
 * User compute: a SPIR-V compute shader of the caller's, run on llmem
 * buffers and images on a transfer queue (Lluvia's compute nodes, in C).
 *
 * A kernel is one compute entry point and the list of its bindings: binding
 * i of descriptor set 0 has the type bindings[i] says, one descriptor each.
 * Push constants, when it has any, are one block of push_size bytes at
 * offset 0.  A dispatch names the objects for each binding (a buffer, a
 * sub-region of one, or a view of an image with its sampler), the push
 * constants and the group counts, and runs in order on a queue like any
 * transfer (transfer.h): wait lists and events included.  Images are in
 * GENERAL (image.h) when the shader runs, and must be used that way.
 *
 * Needs VK_KHR_push_descriptor (lavapipe and the big GPU drivers have it):
 * the descriptors travel in the command buffer, so kernels keep no pools.
 *
 * Thread safety: a kernel never changes after creation; dispatches of one
 * kernel may come from several threads and queues at once.
 * llmem_kernel_destroy() must be ordered after the work of every dispatch
 * of it is done (wait for their events, or llmem_queue_finish()).
 */
#ifndef LLMEM_KERNEL_H
#define LLMEM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "image.h"
#include "transfer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;
struct llmem_kernel;

enum llmem_binding_type {
	/* A buffer with STORAGE usage (GLSL `buffer`). */
	LLMEM_BINDING_STORAGE_BUFFER = 0,
	/* A buffer with UNIFORM usage (GLSL `uniform` block). */
	LLMEM_BINDING_UNIFORM_BUFFER = 1,
	/* A view of an image with STORAGE usage (GLSL `image2D` …). */
	LLMEM_BINDING_STORAGE_IMAGE = 2,
	/* A view of an image with SAMPLED usage and the view's sampler
	 * (GLSL `sampler2D` …: normalised and float types read as floats). */
	LLMEM_BINDING_SAMPLED_IMAGE = 3,
};

#define LLMEM_KERNEL_MAX_BINDINGS 16
/* The least maxPushConstantsSize Vulkan guarantees. */
#define LLMEM_KERNEL_MAX_PUSH 128

struct llmem_kernel_create_info {
	/* The SPIR-V module in memory (@spirv_size bytes, a multiple of 4),
	 * copied; or leave it NULL and name a file of SPIR-V in @path. */
	const void *spirv;
	size_t spirv_size;
	const char *path;
	/* The entry point; leave NULL for "main". */
	const char *entry;
	/* enum llmem_binding_type of bindings 0 .. binding_count - 1. */
	const uint32_t *bindings;
	uint32_t binding_count;
	/* Bytes of push constants, a multiple of 4, at most
	 * LLMEM_KERNEL_MAX_PUSH; leave 0 for none. */
	uint32_t push_size;
	/* For messages; copied; leave NULL for the file name or "kernel". */
	const char *name;
};

/**
 * llmem_kernel_create() - a compute pipeline from a SPIR-V module.
 *
 * Return: 0; -EINVAL for NULL arguments, neither or both of @spirv and
 * @path, a module that is not SPIR-V (size, magic number), more than
 * LLMEM_KERNEL_MAX_BINDINGS bindings or an unknown type, a bad push size,
 * or no GLCompute entry point of that name in the module; -ENOENT and the
 * other errors of open() and read() for @path; -ENOTSUP without
 * VK_KHR_push_descriptor; -ENOMEM; -EIO when the driver refuses the module.
 * That the binding types match the shader's declarations is the caller's
 * to ensure: the library does not reflect SPIR-V (the validation layer
 * reports a mismatch).
 */
int llmem_kernel_create(struct llmem_session *session, const struct llmem_kernel_create_info *info,
			struct llmem_kernel **out);

/* Accepts NULL. */
void llmem_kernel_destroy(struct llmem_kernel *kernel);

/* What binding i of a dispatch holds: @buffer for buffer bindings, @view
 * for image bindings; the other NULL. */
struct llmem_kernel_arg {
	struct llmem_buffer *buffer;
	struct llmem_image_view *view;
};

struct llmem_dispatch {
	/* One per binding of the kernel, in binding order. */
	const struct llmem_kernel_arg *args;
	uint32_t arg_count;
	/* The push constants: the kernel's push_size bytes; NULL for none. */
	const void *push;
	/* Work groups along x, y, z; leave 0 for 1. */
	uint32_t groups[3];
};

/**
 * llmem_enqueue_dispatch() - run @kernel once on @queue.
 *
 * Ordered as every operation of the queue is: after what was enqueued
 * before, with a full barrier on each side, so what it writes is seen by
 * the next transfer or dispatch.
 *
 * Return: the common returns of transfer.h; -EINVAL also for a NULL kernel
 * or dispatch, an argument count other than the kernel's bindings, a
 * missing or extra object for a binding, objects of another session, NULL
 * push constants where the kernel has some, group counts above the
 * device's maxComputeWorkGroupCount; -EPERM for an object without the
 * usage its binding needs (STORAGE, UNIFORM, SAMPLED).
 */
int llmem_enqueue_dispatch(struct llmem_queue *queue, struct llmem_kernel *kernel,
			   const struct llmem_dispatch *dispatch,
			   const struct llmem_wait_list *wait_for, struct llmem_event **event);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_KERNEL_H */
