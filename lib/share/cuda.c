// SPDX-License-Identifier: MIT
/*
 * Pages in CUDA through opaque fds, with libcuda.so.1 loaded at run time.
 *
 * The few CUDA driver API types and values used here are declared below from
 * CUDA's public cuda.h (the ABI is stable across releases: versioned entry
 * points get a _v2 name, which is the one resolved).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llmem/cuda.h>
#include <llmem/negotiate.h>
#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"
#include "memory/memory.h"
#include "device/session.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUextMemory_st *CUexternalMemory;
typedef unsigned long long CUdeviceptr;

typedef struct {
	char bytes[16];
} CUuuid;

#define CUDA_SUCCESS 0
#define CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD 1
/* CUdevice_attribute values. */
#define CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT 14
#define CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT 51
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH 70
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT 71
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH 72

typedef struct {
	int type;
	union {
		int fd;
		struct {
			void *handle;
			const void *name;
		} win32;
		const void *nvSciBufObject;
	} handle;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;

typedef struct {
	unsigned long long offset;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC;

struct cuda_api {
	CUresult (*init)(unsigned int flags);
	CUresult (*device_get_count)(int *count);
	CUresult (*device_get)(CUdevice *dev, int ordinal);
	CUresult (*device_get_uuid)(CUuuid *uuid, CUdevice dev);
	CUresult (*device_get_attribute)(int *value, int attribute, CUdevice dev);
	CUresult (*primary_ctx_retain)(CUcontext *ctx, CUdevice dev);
	CUresult (*primary_ctx_release)(CUdevice dev);
	CUresult (*ctx_push)(CUcontext ctx);
	CUresult (*ctx_pop)(CUcontext *ctx);
	CUresult (*ctx_synchronize)(void);
	CUresult (*import_external_memory)(CUexternalMemory *ext,
					   const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc);
	CUresult (*external_memory_get_mapped_buffer)(CUdeviceptr *ptr, CUexternalMemory ext,
						      const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc);
	CUresult (*destroy_external_memory)(CUexternalMemory ext);
	CUresult (*mem_free)(CUdeviceptr ptr);
	CUresult (*memcpy_dtoh)(void *dst, CUdeviceptr src, size_t size);
	CUresult (*memcpy_htod)(CUdeviceptr dst, const void *src, size_t size);
	CUresult (*memset_d8)(CUdeviceptr dst, unsigned char value, size_t size);
	CUresult (*get_error_name)(CUresult err, const char **name);
};

struct llmem_cuda {
	void *lib;
	struct cuda_api api;
	CUdevice device;
	CUcontext ctx;
};

struct llmem_cuda_memory {
	struct llmem_cuda *cuda;
	CUexternalMemory ext;
	CUdeviceptr ptr;
	uint64_t size;
};

static const char *cu_name(struct llmem_cuda *cu, CUresult r)
{
	const char *name = NULL;

	if (cu->api.get_error_name && cu->api.get_error_name(r, &name) == CUDA_SUCCESS && name)
		return name;
	return "unknown CUDA error";
}

static int cu_error(struct llmem_cuda *cu, const char *what, CUresult r)
{
	return llmem_error(-EIO, "%s: %s (%d)", what, cu_name(cu, r), r);
}

static int load(struct llmem_cuda *cu)
{
	static const struct {
		const char *name;
		size_t offset;
	} syms[] = {
#define SYM(field, name) { name, offsetof(struct cuda_api, field) }
		SYM(init, "cuInit"),
		SYM(device_get_count, "cuDeviceGetCount"),
		SYM(device_get, "cuDeviceGet"),
		SYM(device_get_uuid, "cuDeviceGetUuid"),
		SYM(device_get_attribute, "cuDeviceGetAttribute"),
		SYM(primary_ctx_retain, "cuDevicePrimaryCtxRetain"),
		SYM(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2"),
		SYM(ctx_push, "cuCtxPushCurrent_v2"),
		SYM(ctx_pop, "cuCtxPopCurrent_v2"),
		SYM(ctx_synchronize, "cuCtxSynchronize"),
		SYM(import_external_memory, "cuImportExternalMemory"),
		SYM(external_memory_get_mapped_buffer, "cuExternalMemoryGetMappedBuffer"),
		SYM(destroy_external_memory, "cuDestroyExternalMemory"),
		SYM(mem_free, "cuMemFree_v2"),
		SYM(memcpy_dtoh, "cuMemcpyDtoH_v2"),
		SYM(memcpy_htod, "cuMemcpyHtoD_v2"),
		SYM(memset_d8, "cuMemsetD8_v2"),
		SYM(get_error_name, "cuGetErrorName"),
#undef SYM
	};

	cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib)
		return llmem_error(-ENOTSUP, "CUDA: cannot load libcuda.so.1 (%s)", dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *fn = dlsym(cu->lib, syms[i].name);

		if (!fn)
			return llmem_error(-ENOTSUP,
					   "CUDA: libcuda.so.1 has no %s (driver too old)",
					   syms[i].name);
		memcpy((char *)&cu->api + syms[i].offset, &fn, sizeof(fn));
	}
	return 0;
}

/* The CUDA device whose UUID is the Vulkan device's. */
static int find_device(struct llmem_cuda *cu, struct llmem_session *s)
{
	VkPhysicalDeviceIDProperties id = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
	};
	VkPhysicalDeviceProperties2 p2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
		.pNext = &id,
	};
	CUresult r;
	int count;

	vkGetPhysicalDeviceProperties2(s->physical, &p2);
	r = cu->api.device_get_count(&count);
	if (r != CUDA_SUCCESS)
		return cu_error(cu, "cuDeviceGetCount", r);
	for (int i = 0; i < count; i++) {
		CUuuid uuid;
		CUdevice dev;

		if (cu->api.device_get(&dev, i) != CUDA_SUCCESS ||
		    cu->api.device_get_uuid(&uuid, dev) != CUDA_SUCCESS)
			continue;
		if (!memcmp(uuid.bytes, id.deviceUUID, sizeof(uuid.bytes))) {
			cu->device = dev;
			return 0;
		}
	}
	return llmem_error(-ENODEV, "CUDA: none of its %d devices is the session's device '%s'",
			   count, s->props.deviceName);
}

LLMEM_PUBLIC int llmem_cuda_create(struct llmem_session *s, struct llmem_cuda **out)
{
	struct llmem_cuda *cu;
	CUresult r;
	int ret;

	if (!s || !out)
		return llmem_error(-EINVAL, "CUDA: NULL argument");
	*out = NULL;
	cu = calloc(1, sizeof(*cu));
	if (!cu)
		return llmem_error(-ENOMEM, "CUDA: out of memory");
	ret = load(cu);
	if (ret)
		goto out_free;
	r = cu->api.init(0);
	if (r != CUDA_SUCCESS) {
		ret = llmem_error(r == 100 /* CUDA_ERROR_NO_DEVICE */ ? -ENODEV : -EIO,
				  "CUDA: cuInit: %s (%d)", cu_name(cu, r), r);
		goto out_free;
	}
	ret = find_device(cu, s);
	if (ret)
		goto out_free;
	r = cu->api.primary_ctx_retain(&cu->ctx, cu->device);
	if (r != CUDA_SUCCESS) {
		ret = cu_error(cu, "cuDevicePrimaryCtxRetain", r);
		goto out_free;
	}
	*out = cu;
	return 0;

out_free:
	if (cu->lib)
		dlclose(cu->lib);
	free(cu);
	return ret;
}

LLMEM_PUBLIC void llmem_cuda_destroy(struct llmem_cuda *cu)
{
	if (!cu)
		return;
	cu->api.primary_ctx_release(cu->device);
	/* libcuda is never unloaded: it keeps threads and handlers of its own. */
	free(cu);
}

/*
 * What a kernel reading a frame through a pitched 2D texture needs (the
 * strictest of CUDA's ways to read one; plain pointers need only the
 * element's alignment): each plane's address a multiple of the texture
 * alignment, each pitch of the pitch alignment, and the linear 2D bounds.
 */
LLMEM_PUBLIC int llmem_participant_cuda(struct llmem_cuda *cu, struct llmem_participant *out)
{
	static const struct {
		int attribute;
		const char *name;
	} attrs[] = {
		{ CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, "TEXTURE_ALIGNMENT" },
		{ CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, "TEXTURE_PITCH_ALIGNMENT" },
		{ CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
		  "MAXIMUM_TEXTURE2D_LINEAR_WIDTH" },
		{ CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
		  "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT" },
		{ CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
		  "MAXIMUM_TEXTURE2D_LINEAR_PITCH" },
	};
	int v[sizeof(attrs) / sizeof(attrs[0])];
	struct llmem_constraints *c;

	if (!cu || !out)
		return llmem_error(-EINVAL, "CUDA participant: NULL %s", cu ? "out" : "cuda");
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		CUresult r = cu->api.device_get_attribute(&v[i], attrs[i].attribute, cu->device);

		if (r != CUDA_SUCCESS)
			return cu_error(cu, "cuDeviceGetAttribute", r);
		if (v[i] < 0)
			return llmem_error(-EIO, "CUDA: CU_DEVICE_ATTRIBUTE_%s is %d",
					   attrs[i].name, v[i]);
	}
	memset(out, 0, sizeof(*out));
	out->kind = LLMEM_PARTICIPANT_CUDA;
	snprintf(out->name, sizeof(out->name), "CUDA device %d", cu->device);
	c = &out->constraints;
	c->plane_alignment = (uint32_t)v[0];
	c->pitch_alignment = (uint32_t)v[1];
	c->max_width = (uint32_t)v[2];
	c->max_height = (uint32_t)v[3];
	c->max_pitch = (uint32_t)v[4];
	return 0;
}

static int push(struct llmem_cuda *cu)
{
	CUresult r = cu->api.ctx_push(cu->ctx);

	return r == CUDA_SUCCESS ? 0 : cu_error(cu, "cuCtxPushCurrent", r);
}

static void pop(struct llmem_cuda *cu)
{
	CUcontext ctx;

	cu->api.ctx_pop(&ctx);
}

LLMEM_PUBLIC int llmem_cuda_import_page(struct llmem_cuda *cu, struct llmem_memory *m,
					uint32_t page, struct llmem_cuda_memory **out)
{
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd = { .type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD };
	CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = { 0 };
	struct llmem_cuda_memory *mem;
	CUresult r;
	int fd, ret;

	if (!cu || !m || !out)
		return llmem_error(-EINVAL, "CUDA import: NULL argument");
	*out = NULL;
	ret = llmem_memory_export_page_opaque_fd(m, page, &fd);
	if (ret)
		return ret;
	mem = calloc(1, sizeof(*mem));
	if (!mem) {
		close(fd);
		return llmem_error(-ENOMEM, "CUDA import: out of memory");
	}
	mem->cuda = cu;
	mem->size = llmem_memory_page_size(m, page);
	hd.handle.fd = fd;
	hd.size = mem->size;
	bd.size = mem->size;
	ret = push(cu);
	if (ret) {
		close(fd);
		free(mem);
		return ret;
	}
	r = cu->api.import_external_memory(&mem->ext, &hd);
	if (r != CUDA_SUCCESS) {
		/* Only a successful import takes the fd. */
		close(fd);
		ret = cu_error(cu, "cuImportExternalMemory (opaque fd)", r);
		goto out_pop;
	}
	r = cu->api.external_memory_get_mapped_buffer(&mem->ptr, mem->ext, &bd);
	if (r != CUDA_SUCCESS) {
		ret = cu_error(cu, "cuExternalMemoryGetMappedBuffer", r);
		cu->api.destroy_external_memory(mem->ext);
	}
out_pop:
	pop(cu);
	if (ret) {
		free(mem);
		return ret;
	}
	*out = mem;
	return 0;
}

LLMEM_PUBLIC uint64_t llmem_cuda_memory_pointer(const struct llmem_cuda_memory *mem)
{
	return mem ? mem->ptr : 0;
}

LLMEM_PUBLIC void llmem_cuda_memory_destroy(struct llmem_cuda_memory *mem)
{
	struct llmem_cuda *cu;

	if (!mem)
		return;
	cu = mem->cuda;
	if (!push(cu)) {
		cu->api.mem_free(mem->ptr);
		cu->api.destroy_external_memory(mem->ext);
		pop(cu);
	}
	free(mem);
}

/* Runs one CUDA call in the context, then waits for the context to be idle. */
static int finish(struct llmem_cuda *cu, const char *what, CUresult r)
{
	if (r == CUDA_SUCCESS)
		r = cu->api.ctx_synchronize();
	pop(cu);
	return r == CUDA_SUCCESS ? 0 : cu_error(cu, what, r);
}

LLMEM_PUBLIC int llmem_cuda_copy_to_host(struct llmem_cuda *cu, void *host, uint64_t device,
					 size_t size)
{
	int ret;

	if (!cu || !host || !device)
		return llmem_error(-EINVAL, "cuMemcpyDtoH: NULL argument");
	ret = push(cu);
	if (ret)
		return ret;
	return finish(cu, "cuMemcpyDtoH", cu->api.memcpy_dtoh(host, device, size));
}

LLMEM_PUBLIC int llmem_cuda_copy_from_host(struct llmem_cuda *cu, uint64_t device, const void *host,
					   size_t size)
{
	int ret;

	if (!cu || !host || !device)
		return llmem_error(-EINVAL, "cuMemcpyHtoD: NULL argument");
	ret = push(cu);
	if (ret)
		return ret;
	return finish(cu, "cuMemcpyHtoD", cu->api.memcpy_htod(device, host, size));
}

LLMEM_PUBLIC int llmem_cuda_memset(struct llmem_cuda *cu, uint64_t device, uint8_t value,
				   size_t size)
{
	int ret;

	if (!cu || !device)
		return llmem_error(-EINVAL, "cuMemsetD8: NULL argument");
	ret = push(cu);
	if (ret)
		return ret;
	return finish(cu, "cuMemsetD8", cu->api.memset_d8(device, value, size));
}
