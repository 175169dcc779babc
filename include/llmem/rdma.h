/* SPDX-License-Identifier: MIT */
/*
 * llmem buffers as RDMA memory regions (verbs), so that a network card
 * reads and writes frames where they lie.
 *
 * Two ways in, tried in this order:
 *   - the buffer's DMA-BUF (ibv_reg_dmabuf_mr()), where the card's driver
 *     imports DMA-BUFs (mlx5, efa, irdma, bnxt_re, erdma);
 *   - the buffer's mapping in this process (ibv_reg_mr()), which the
 *     kernel pins page by page: llmem.ko's pages and Vulkan's host-visible
 *     memory allow it, a VM_PFNMAP mapping (a udmabuf's on 6.12) does not.
 * Software RoCE (rxe) and siw take no DMA-BUF: there the mapping is used,
 * and llmem_rdma_mr_get_info() says why the DMA-BUF was not, never
 * silently.
 *
 * libibverbs.so.1 is loaded at run time (dlopen): llmem has no build
 * dependency on rdma-core, and without it llmem_rdma_register_buffer()
 * returns -ENOTSUP with a message.  The caller brings its own verbs
 * objects (the protection domain) and uses the region's keys with them.
 *
 * Ownership: a region keeps its buffer mapped (on the mapping path) and
 * pinned until llmem_rdma_deregister(), which must come before the
 * buffer's destruction.
 *
 * Thread safety: a region is used from one thread at a time; distinct
 * regions, and regions of one buffer, may be registered concurrently.
 */
#ifndef LLMEM_RDMA_H
#define LLMEM_RDMA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_pd;
struct ibv_mr;
struct llmem_buffer;
struct llmem_rdma_mr;

/* How a region reaches the buffer's pages. */
enum llmem_rdma_path {
	LLMEM_RDMA_PATH_DMABUF = 1, /* the card imported the buffer's DMA-BUF */
	LLMEM_RDMA_PATH_MAPPING = 2, /* the kernel pinned the buffer's mapping */
};

/* Flags of llmem_rdma_register_buffer(). */
enum llmem_rdma_flags {
	/* Fail rather than fall back to the mapping. */
	LLMEM_RDMA_DMABUF_ONLY = 1u << 0,
	/* Register the mapping without asking for the DMA-BUF path. */
	LLMEM_RDMA_MAPPING_ONLY = 1u << 1,
};

/**
 * struct llmem_rdma_mr_info - a registered region.
 * @mr: the verbs region, for the caller's work requests; the region's.
 * @addr: the address work requests name the buffer's first byte by: the
 *	mapping's on LLMEM_RDMA_PATH_MAPPING; on LLMEM_RDMA_PATH_DMABUF the
 *	buffer's offset in its page's DMA-BUF, the region's iova.
 * @size: bytes registered: the buffer's size.
 * @lkey: the local key.
 * @rkey: the remote key, for a peer's RDMA READ and WRITE.
 * @path: enum llmem_rdma_path.
 * @dmabuf_refusal: on the mapping path, why the DMA-BUF path was not
 *	taken ("ibv_reg_dmabuf_mr on rxe0: Operation not supported"); empty
 *	on the DMA-BUF path.
 */
struct llmem_rdma_mr_info {
	struct ibv_mr *mr;
	uint64_t addr;
	uint64_t size;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t path;
	uint32_t reserved;
	char dmabuf_refusal[128];
};

/**
 * llmem_rdma_register_buffer() - register @buffer with protection domain
 * @pd for @access (IBV_ACCESS_* bits, as ibv_reg_mr() takes them).
 * @flags: enum llmem_rdma_flags.
 * @out: the region.
 *
 * The DMA-BUF path needs a buffer of shared memory (LLMEM_SHARING_DMABUF);
 * the mapping path a host-visible one.
 *
 * Return: 0; -EINVAL for NULL arguments, unknown flags or both of them;
 * -ENOTSUP when libibverbs.so.1 cannot be loaded, or when neither path
 * can be taken (the message says why each was not), or with
 * LLMEM_RDMA_DMABUF_ONLY when the DMA-BUF path is refused; the errno of
 * the refusing call otherwise (ibv_reg_mr()'s EFAULT for a mapping the
 * kernel cannot pin).
 */
int llmem_rdma_register_buffer(struct ibv_pd *pd, struct llmem_buffer *buffer, int access,
			       uint32_t flags, struct llmem_rdma_mr **out);

/* Return: 0; -EINVAL for NULL arguments. */
int llmem_rdma_mr_get_info(const struct llmem_rdma_mr *mr, struct llmem_rdma_mr_info *info);

/**
 * llmem_rdma_deregister() - give the region back to the card, and the
 * buffer's mapping and pin with it.  NULL returns 0.
 *
 * Return: 0; ibv_dereg_mr()'s errno (the region is kept then: the card
 * may still use it).
 */
int llmem_rdma_deregister(struct llmem_rdma_mr *mr);

#ifdef __cplusplus
}
#endif

#endif
