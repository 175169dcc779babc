// SPDX-License-Identifier: MIT
/*
 * llmem buffers as RDMA memory regions (rdma.h), with libibverbs.so.1
 * loaded at run time.
 *
 * The verbs region's leading fields are declared below from rdma-core's
 * public verbs.h (its ABI is stable: struct ibv_mr has kept them since
 * libibverbs 1.0); the three entry points are the versioned symbols every
 * rdma-core since 34 exports.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/rdma.h>
#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"

struct ibv_mr {
	void *context;
	struct ibv_pd *pd;
	void *addr;
	size_t length;
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
};

struct verbs_api {
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t length,
					uint64_t iova, int fd, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
};

struct llmem_rdma_mr {
	struct llmem_buffer *buffer;
	struct llmem_rdma_mr_info info;
	/* The DMA-BUF the card imported, kept open while it may use it. */
	int fd;
	const struct verbs_api *api;
};

static struct verbs_api verbs;
static int verbs_error;
static char verbs_message[160];
static pthread_once_t verbs_once = PTHREAD_ONCE_INIT;

/* libibverbs is never unloaded: its providers keep threads and state. */
static void load_verbs(void)
{
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		verbs_error = -ENOTSUP;
		snprintf(verbs_message, sizeof(verbs_message),
			 "RDMA: cannot load libibverbs.so.1 (%s)", dlerror());
		return;
	}
	*(void **)&verbs.reg_mr = dlsym(lib, "ibv_reg_mr");
	*(void **)&verbs.reg_dmabuf_mr = dlsym(lib, "ibv_reg_dmabuf_mr");
	*(void **)&verbs.dereg_mr = dlsym(lib, "ibv_dereg_mr");
	/* Without ibv_reg_dmabuf_mr (rdma-core before 34) the mapping alone. */
	if (!verbs.reg_mr || !verbs.dereg_mr) {
		verbs_error = -ENOTSUP;
		snprintf(verbs_message, sizeof(verbs_message),
			 "RDMA: libibverbs.so.1 has no ibv_reg_mr or ibv_dereg_mr");
	}
}

/* The card imports the DMA-BUF of the buffer's page, at the buffer's
 * offset in it; @why says why not. */
static int by_dmabuf(struct llmem_rdma_mr *r, struct ibv_pd *pd, int access, char *why, size_t len)
{
	struct llmem_dmabuf_region region;
	struct ibv_mr *mr;
	int ret;

	if (!r->api->reg_dmabuf_mr) {
		snprintf(why, len, "libibverbs.so.1 has no ibv_reg_dmabuf_mr");
		return -ENOTSUP;
	}
	ret = llmem_buffer_export(r->buffer, &region);
	if (ret) {
		snprintf(why, len, "the buffer has no DMA-BUF: %s", llmem_last_error());
		return ret;
	}
	/* The iova keeps the offset's place in its page, as drivers that map
	 * by pages want. */
	mr = r->api->reg_dmabuf_mr(pd, region.offset, (size_t)region.size, region.offset, region.fd,
				   access);
	if (!mr) {
		ret = -errno;
		snprintf(why, len, "ibv_reg_dmabuf_mr: %s", strerror(errno));
		close(region.fd);
		return ret;
	}
	r->fd = region.fd;
	r->info.mr = mr;
	r->info.addr = region.offset;
	r->info.path = LLMEM_RDMA_PATH_DMABUF;
	return 0;
}

/* The kernel pins the buffer's mapping in this process. */
static int by_mapping(struct llmem_rdma_mr *r, struct ibv_pd *pd, int access)
{
	struct ibv_mr *mr;
	void *ptr;
	int ret = llmem_buffer_map(r->buffer, &ptr);

	if (ret)
		return ret;
	mr = r->api->reg_mr(pd, ptr, (size_t)r->info.size, access);
	if (!mr) {
		ret = llmem_error(
			-errno, "RDMA: ibv_reg_mr of the buffer's mapping: %s%s", strerror(errno),
			errno == EFAULT ? " (a mapping the kernel cannot pin, VM_PFNMAP)" : "");
		llmem_buffer_unmap(r->buffer);
		return ret;
	}
	r->info.mr = mr;
	r->info.addr = (uint64_t)(uintptr_t)ptr;
	r->info.path = LLMEM_RDMA_PATH_MAPPING;
	return 0;
}

LLMEM_PUBLIC int llmem_rdma_register_buffer(struct ibv_pd *pd, struct llmem_buffer *buffer,
					    int access, uint32_t flags, struct llmem_rdma_mr **out)
{
	const uint32_t known = LLMEM_RDMA_DMABUF_ONLY | LLMEM_RDMA_MAPPING_ONLY;
	struct llmem_rdma_mr *r;
	char why[sizeof(r->info.dmabuf_refusal)] = "";
	int ret = -ENOTSUP;

	if (!pd || !buffer || !out)
		return llmem_error(-EINVAL, "RDMA: NULL %s",
				   !pd	     ? "protection domain"
				   : !buffer ? "buffer"
					     : "out");
	*out = NULL;
	if ((flags & ~known) || (flags & known) == known)
		return llmem_error(-EINVAL, "RDMA: flags 0x%x", flags);
	pthread_once(&verbs_once, load_verbs);
	if (verbs_error)
		return llmem_error(verbs_error, "%s", verbs_message);
	r = calloc(1, sizeof(*r));
	if (!r)
		return llmem_error(-ENOMEM, "RDMA: out of memory");
	r->buffer = buffer;
	r->api = &verbs;
	r->fd = -1;
	r->info.size = llmem_buffer_size(buffer);
	if (!(flags & LLMEM_RDMA_MAPPING_ONLY))
		ret = by_dmabuf(r, pd, access, why, sizeof(why));
	if (ret && (flags & LLMEM_RDMA_DMABUF_ONLY))
		ret = llmem_error(ret, "RDMA: %s", why);
	else if (ret)
		ret = by_mapping(r, pd, access);
	if (ret) {
		if (why[0] && !(flags & LLMEM_RDMA_DMABUF_ONLY)) {
			char mapping[160];

			snprintf(mapping, sizeof(mapping), "%s", llmem_last_error());
			ret = llmem_error(ret, "%s; the DMA-BUF was not taken either: %s", mapping,
					  why);
		}
		free(r);
		return ret;
	}
	snprintf(r->info.dmabuf_refusal, sizeof(r->info.dmabuf_refusal), "%s", why);
	r->info.lkey = r->info.mr->lkey;
	r->info.rkey = r->info.mr->rkey;
	*out = r;
	return 0;
}

LLMEM_PUBLIC int llmem_rdma_mr_get_info(const struct llmem_rdma_mr *r,
					struct llmem_rdma_mr_info *info)
{
	if (!r || !info)
		return llmem_error(-EINVAL, "RDMA: NULL %s", r ? "info" : "region");
	*info = r->info;
	return 0;
}

LLMEM_PUBLIC int llmem_rdma_deregister(struct llmem_rdma_mr *r)
{
	int ret;

	if (!r)
		return 0;
	ret = r->api->dereg_mr(r->info.mr);
	if (ret)
		return llmem_error(-ret, "RDMA: ibv_dereg_mr: %s", strerror(ret));
	if (r->info.path == LLMEM_RDMA_PATH_MAPPING)
		llmem_buffer_unmap(r->buffer);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
	return 0;
}
