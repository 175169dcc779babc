/* SPDX-License-Identifier: MIT */
/*
 * Pages of a memory in CUDA: vkgdr's path.  A page of a memory created with
 * sharing = LLMEM_SHARING_OPAQUE_FD is exported as an opaque fd and imported
 * with cuImportExternalMemory(); cuExternalMemoryGetMappedBuffer() gives the
 * CUDA device pointer of the same bytes.  With DEVICE_LOCAL|HOST_VISIBLE
 * memory the CPU writes them through llmem_memory_map_page() (the BAR) and
 * CUDA kernels use them in place.
 *
 * libcuda.so.1 is loaded at run time (dlopen): llmem has no build dependency
 * on CUDA, and on a machine without the driver llmem_cuda_create() returns
 * -ENOTSUP with a message.
 *
 * Ordering: every llmem_cuda_* copy is synchronous (it returns when CUDA has
 * finished), and blocking llmem transfers have completed when they return, so
 * alternating the two needs no further synchronisation.  Work queued by other
 * CUDA or Vulkan code must be waited for by that code.
 *
 * Thread safety: the calls push the context they use and pop it before
 * returning; one llmem_cuda may be used from any thread.
 */
#ifndef LLMEM_CUDA_H
#define LLMEM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_session;
struct llmem_memory;
struct llmem_cuda;
struct llmem_cuda_memory;
struct llmem_participant;

/**
 * llmem_cuda_create() - load libcuda and retain the primary context of the
 * CUDA device that is the session's Vulkan device (same device UUID).
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOTSUP when libcuda.so.1 cannot
 * be loaded or lacks a function llmem needs; -ENODEV when no CUDA device is
 * the session's device (another vendor, lavapipe); -EIO when CUDA fails
 * (its error name in the message); -ENOMEM.
 */
int llmem_cuda_create(struct llmem_session *session, struct llmem_cuda **out);

/**
 * llmem_participant_cuda() - what the CUDA device takes of a frame it reads
 * through a pitched 2D texture (negotiate.h): every plane's offset a
 * multiple of CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, every pitch of
 * TEXTURE_PITCH_ALIGNMENT, and MAXIMUM_TEXTURE2D_LINEAR_WIDTH, _HEIGHT and
 * _PITCH as bounds, all reported by the driver.  Any fourcc: CUDA reads
 * bytes.  CUDA imports llmem pages as opaque fds (llmem_cuda_import_page()),
 * not DMA-BUFs: a frame it shares with a V4L2 or KMS device lies in memory
 * that both can reach (docs/negotiation.md).
 *
 * Return: 0; -EINVAL for NULL arguments; -EIO when the driver cannot say.
 */
int llmem_participant_cuda(struct llmem_cuda *cuda, struct llmem_participant *out);

/* Releases the context; every llmem_cuda_memory of it must be gone.  NULL is fine. */
void llmem_cuda_destroy(struct llmem_cuda *cuda);

/**
 * llmem_cuda_import_page() - page @page of @memory (LLMEM_SHARING_OPAQUE_FD)
 * in CUDA, as one linear buffer of the page's size.
 *
 * The opaque fd it exports for this is owned by CUDA once imported.  The
 * import keeps the memory alive on its own; still, destroy it before the page
 * is reused for anything else.
 *
 * Return: 0; -EINVAL for NULL arguments or no page @page; -ENOTSUP for a
 * memory of another sharing mode; -EIO when CUDA refuses it.
 */
int llmem_cuda_import_page(struct llmem_cuda *cuda, struct llmem_memory *memory, uint32_t page,
			   struct llmem_cuda_memory **out);

/* The CUDA device pointer (a CUdeviceptr) of the page's first byte; 0 for NULL. */
uint64_t llmem_cuda_memory_pointer(const struct llmem_cuda_memory *mem);

/* Frees the mapping and the import (cuMemFree, cuDestroyExternalMemory).  NULL is fine. */
void llmem_cuda_memory_destroy(struct llmem_cuda_memory *mem);

/*
 * Synchronous copies and fill through CUDA (cuMemcpyDtoH, cuMemcpyHtoD,
 * cuMemsetD8), for tests and tools: @device is any CUDA device pointer, such
 * as llmem_cuda_memory_pointer() plus an offset.
 * Return: 0; -EINVAL for NULL; -EIO with CUDA's error name.
 */
int llmem_cuda_copy_to_host(struct llmem_cuda *cuda, void *host, uint64_t device, size_t size);
int llmem_cuda_copy_from_host(struct llmem_cuda *cuda, uint64_t device, const void *host,
			      size_t size);
int llmem_cuda_memset(struct llmem_cuda *cuda, uint64_t device, uint8_t value, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_CUDA_H */
