// SPDX-License-Identifier: MIT
/*
 * Where a page's memory comes from (backend.h): Vulkan allocations, exported
 * or not, llmem.ko's pages imported as DMA-BUFs or host pointers, and
 * foreign DMA-BUFs and host memory imported.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/llmem.h>

#include "base/error.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/backend.h"

#define PROBE_SIZE (64u << 10)

VkExternalMemoryHandleTypeFlagBits llmem_backend_handle_type(uint32_t backend)
{
	switch (backend) {
	case LLMEM_BACKEND_VULKAN_DMABUF:
	case LLMEM_BACKEND_LLMEM_DMABUF:
	case LLMEM_BACKEND_IMPORT_DMABUF:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	case LLMEM_BACKEND_LLMEM_HOST_POINTER:
	case LLMEM_BACKEND_IMPORT_HOST_POINTER:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	case LLMEM_BACKEND_VULKAN_OPAQUE_FD:
		return VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
	}
	return 0;
}

LLMEM_PUBLIC const char *llmem_backend_name(uint32_t backend)
{
	static const char *const names[] = {
		[LLMEM_BACKEND_VULKAN] = "vulkan",
		[LLMEM_BACKEND_VULKAN_DMABUF] = "vulkan-dmabuf",
		[LLMEM_BACKEND_LLMEM_DMABUF] = "llmem-dmabuf",
		[LLMEM_BACKEND_LLMEM_HOST_POINTER] = "llmem-host-pointer",
		[LLMEM_BACKEND_IMPORT_DMABUF] = "import-dmabuf",
		[LLMEM_BACKEND_IMPORT_HOST_POINTER] = "import-host-pointer",
		[LLMEM_BACKEND_VULKAN_OPAQUE_FD] = "vulkan-opaque-fd",
	};

	return backend < sizeof(names) / sizeof(names[0]) ? names[backend] : "unknown";
}

static int is_host_pointer(uint32_t backend)
{
	return backend == LLMEM_BACKEND_LLMEM_HOST_POINTER ||
	       backend == LLMEM_BACKEND_IMPORT_HOST_POINTER;
}

int llmem_backend_choose_import(struct llmem_session *s, uint32_t want, uint32_t *backend)
{
	if (want && want != LLMEM_BACKEND_IMPORT_DMABUF &&
	    want != LLMEM_BACKEND_IMPORT_HOST_POINTER)
		return llmem_error(-EINVAL, "import memory: backend %s cannot import",
				   llmem_backend_name(want));
	if ((!want || want == LLMEM_BACKEND_IMPORT_DMABUF) &&
	    (s->info.caps & LLMEM_CAP_DMABUF_IMPORT)) {
		*backend = LLMEM_BACKEND_IMPORT_DMABUF;
		return 0;
	}
	if ((!want || want == LLMEM_BACKEND_IMPORT_HOST_POINTER) &&
	    (s->info.caps & LLMEM_CAP_HOST_POINTER_IMPORT)) {
		*backend = LLMEM_BACKEND_IMPORT_HOST_POINTER;
		return 0;
	}
	return llmem_error(-ENOTSUP, "import memory: the device imports neither DMA-BUFs nor "
				     "host pointers");
}

/* What LLMEM_IOC_ALLOC's -ENOMEM may mean besides memory running out. */
#define CAPS_REACHED \
	"llmem.ko's max_bytes or max_bytes_per_process or the memory cgroup's limit reached"

/*
 * Zeroed system pages from llmem.ko, as a close-on-exec DMA-BUF fd;
 * physically contiguous ones when @contiguous.
 */
static int llmem_device_alloc(uint64_t size, bool contiguous, int *fd)
{
	struct llmem_alloc req = {
		.size = size,
		.flags = LLMEM_ALLOC_CLOEXEC | (contiguous ? LLMEM_ALLOC_CONTIGUOUS : 0),
	};
	int dev = open("/dev/llmem", O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (dev < 0 && errno == EACCES)
		return llmem_error(-EACCES,
				   "open /dev/llmem: %s (it is the video group's; "
				   "see docs/module.md)",
				   strerror(errno));
	if (dev < 0)
		return llmem_error(-errno, "open /dev/llmem: %s (is llmem.ko loaded?)",
				   strerror(errno));
	if (ioctl(dev, LLMEM_IOC_ALLOC, &req) == -1) {
		if (contiguous && errno == E2BIG)
			ret = llmem_error(-E2BIG,
					  "LLMEM_IOC_ALLOC of %llu contiguous bytes: more than the "
					  "kernel's largest contiguous block",
					  (unsigned long long)size);
		else if (contiguous && errno == ENOMEM)
			ret = llmem_error(-ENOMEM,
					  "LLMEM_IOC_ALLOC of %llu contiguous bytes: no free block "
					  "that large (memory is fragmented), or " CAPS_REACHED,
					  (unsigned long long)size);
		else if (errno == ENOMEM)
			ret = llmem_error(-ENOMEM,
					  "LLMEM_IOC_ALLOC of %llu bytes: " CAPS_REACHED
					  ", or no free pages",
					  (unsigned long long)size);
		else
			ret = llmem_error(-errno, "LLMEM_IOC_ALLOC of %llu bytes: %s",
					  (unsigned long long)size, strerror(errno));
	} else {
		*fd = (int)req.fd;
	}
	close(dev);
	return ret;
}

static int alloc_exportable(struct llmem_session *s, uint32_t backend, uint32_t type_index,
			    uint64_t size, VkDeviceMemory *out)
{
	VkExportMemoryAllocateInfo export_info = {
		.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
		.handleTypes = llmem_backend_handle_type(backend),
	};
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &export_info,
		.allocationSize = size,
		.memoryTypeIndex = type_index,
	};
	VkResult r = vkAllocateMemory(s->device, &ai, NULL, out);

	if (r == VK_SUCCESS)
		return 0;
	return llmem_vk_error(r, backend == LLMEM_BACKEND_VULKAN_OPAQUE_FD
					 ? "vkAllocateMemory (exportable as opaque fd)"
					 : "vkAllocateMemory (exportable as DMA-BUF)");
}

static int import_as_dmabuf(struct llmem_session *s, uint32_t type_index, int fd, uint64_t size,
			    struct llmem_page_backing *out)
{
	PFN_vkGetMemoryFdPropertiesKHR get_props =
		(PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(s->device,
								    "vkGetMemoryFdPropertiesKHR");
	VkMemoryFdPropertiesKHR props = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
	VkImportMemoryFdInfoKHR import_info = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
	};
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import_info,
		.allocationSize = size,
		.memoryTypeIndex = type_index,
	};
	VkResult r;
	int vk_fd;

	if (!get_props)
		return llmem_error(-ENOTSUP, "the device cannot import DMA-BUFs");
	r = get_props(s->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, &props);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkGetMemoryFdPropertiesKHR");
	if (!(props.memoryTypeBits & (1u << type_index)))
		return llmem_error(-ENOTSUP,
				   "the DMA-BUF imports into memory types 0x%x, not type %u",
				   props.memoryTypeBits, type_index);
	/* A successful import takes the fd it is given; the page keeps its own. */
	vk_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (vk_fd < 0 || out->fd < 0) {
		int err = errno;

		if (vk_fd >= 0)
			close(vk_fd);
		if (out->fd >= 0)
			close(out->fd);
		out->fd = -1;
		return llmem_error(-err, "dup of DMA-BUF fd %d: %s", fd, strerror(err));
	}
	import_info.fd = vk_fd;
	r = vkAllocateMemory(s->device, &ai, NULL, &out->vk);
	if (r != VK_SUCCESS) {
		close(vk_fd);
		close(out->fd);
		out->fd = -1;
		return llmem_vk_error(r, "vkAllocateMemory (DMA-BUF import)");
	}
	return 0;
}

/* @ptr and @size as the device needs them; -EINVAL names the alignment. */
static int check_host_pointer(struct llmem_session *s, const void *ptr, uint64_t size)
{
	uint64_t align = s->info.min_imported_host_pointer_alignment;

	if (!align || !vkGetDeviceProcAddr(s->device, "vkGetMemoryHostPointerPropertiesEXT"))
		return llmem_error(-ENOTSUP, "the device cannot import host pointers "
					     "(no VK_EXT_external_memory_host)");
	if ((uintptr_t)ptr % align)
		return llmem_error(-EINVAL,
				   "host pointer %p is not aligned to %llu bytes "
				   "(minImportedHostPointerAlignment)",
				   ptr, (unsigned long long)align);
	if (!size || size % align)
		return llmem_error(-EINVAL,
				   "a host-pointer page must be a non-zero multiple of %llu bytes "
				   "(minImportedHostPointerAlignment), not %llu",
				   (unsigned long long)align, (unsigned long long)size);
	return 0;
}

static int import_host_memory(struct llmem_session *s, uint32_t type_index, void *ptr,
			      uint64_t size, VkDeviceMemory *out)
{
	PFN_vkGetMemoryHostPointerPropertiesEXT get_props =
		(PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
			s->device, "vkGetMemoryHostPointerPropertiesEXT");
	VkMemoryHostPointerPropertiesEXT props = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT,
	};
	VkImportMemoryHostPointerInfoEXT import_info = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
		.pHostPointer = ptr,
	};
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import_info,
		.allocationSize = size,
		.memoryTypeIndex = type_index,
	};
	VkResult r;
	int ret;

	ret = check_host_pointer(s, ptr, size);
	if (ret)
		return ret;
	r = get_props(s->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, ptr,
		      &props);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkGetMemoryHostPointerPropertiesEXT");
	if (!(props.memoryTypeBits & (1u << type_index)))
		return llmem_error(-ENOTSUP,
				   "the host memory imports into memory types 0x%x, not type %u",
				   props.memoryTypeBits, type_index);
	r = vkAllocateMemory(s->device, &ai, NULL, out);
	return r == VK_SUCCESS ? 0 : llmem_vk_error(r, "vkAllocateMemory (host pointer import)");
}

static int import_as_host_pointer(struct llmem_session *s, uint32_t type_index, int fd,
				  uint64_t size, struct llmem_page_backing *out)
{
	int ret;

	ret = check_host_pointer(s, NULL, size);
	if (ret)
		return ret;
	out->host_ptr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (out->host_ptr == MAP_FAILED) {
		out->host_ptr = NULL;
		return llmem_error(-errno, "mmap of DMA-BUF fd %d: %s", fd, strerror(errno));
	}
	out->host_len = size;
	ret = import_host_memory(s, type_index, out->host_ptr, size, &out->vk);
	if (ret)
		goto out_unmap;
	out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (out->fd < 0) {
		ret = llmem_error(-errno, "dup of DMA-BUF fd %d: %s", fd, strerror(errno));
		vkFreeMemory(s->device, out->vk, NULL);
		out->vk = VK_NULL_HANDLE;
		goto out_unmap;
	}
	return 0;

out_unmap:
	munmap(out->host_ptr, out->host_len);
	out->host_ptr = NULL;
	out->host_len = 0;
	return ret;
}

int llmem_backend_page_import_host(struct llmem_session *s, uint32_t type_index, void *ptr,
				   uint64_t size, struct llmem_page_backing *out)
{
	*out = (struct llmem_page_backing){ .fd = -1 };
	return import_host_memory(s, type_index, ptr, size, &out->vk);
}

int llmem_backend_page_import(struct llmem_session *s, uint32_t backend, uint32_t type_index,
			      int fd, uint64_t size, struct llmem_page_backing *out)
{
	*out = (struct llmem_page_backing){ .fd = -1 };
	if (is_host_pointer(backend))
		return import_as_host_pointer(s, type_index, fd, size, out);
	return import_as_dmabuf(s, type_index, fd, size, out);
}

int llmem_backend_page_alloc(struct llmem_session *s, uint32_t backend, uint32_t type_index,
			     uint64_t size, bool contiguous, struct llmem_page_backing *out)
{
	int fd = -1, ret;

	*out = (struct llmem_page_backing){ .fd = -1 };
	if (backend == LLMEM_BACKEND_VULKAN_DMABUF || backend == LLMEM_BACKEND_VULKAN_OPAQUE_FD)
		return alloc_exportable(s, backend, type_index, size, &out->vk);
	ret = llmem_device_alloc(size, contiguous, &fd);
	if (ret)
		return ret;
	ret = llmem_backend_page_import(s, backend, type_index, fd, size, out);
	close(fd);
	return ret;
}

void llmem_backend_page_free(struct llmem_session *s, struct llmem_page_backing *p)
{
	if (p->vk)
		vkFreeMemory(s->device, p->vk, NULL);
	/* The device may use a host pointer until its memory is freed. */
	if (p->host_ptr)
		munmap(p->host_ptr, p->host_len);
	if (p->fd >= 0)
		close(p->fd);
	*p = (struct llmem_page_backing){ .fd = -1 };
}

/* A new close-on-exec fd of @handle_type for page memory @vk. */
static int vk_export_fd(struct llmem_session *s, VkDeviceMemory vk,
			VkExternalMemoryHandleTypeFlagBits handle_type, const char *what, int *fd)
{
	PFN_vkGetMemoryFdKHR get_fd =
		(PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(s->device, "vkGetMemoryFdKHR");
	VkMemoryGetFdInfoKHR gi = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
		.memory = vk,
		.handleType = handle_type,
	};
	VkResult r;

	if (!get_fd)
		return llmem_error(-ENOTSUP, "the device cannot export memory as an fd");
	/* Vulkan's fds are new descriptors; O_CLOEXEC is ours to add. */
	r = get_fd(s->device, &gi, fd);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, what);
	if (fcntl(*fd, F_SETFD, FD_CLOEXEC) == -1) {
		int err = errno;

		close(*fd);
		return llmem_error(-err, "fcntl FD_CLOEXEC: %s", strerror(err));
	}
	return 0;
}

int llmem_backend_page_export(struct llmem_session *s, uint32_t backend,
			      const struct llmem_page_backing *p, int *fd)
{
	if (p->fd >= 0) {
		*fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
		return *fd < 0 ? llmem_error(-errno, "dup of a page's DMA-BUF: %s", strerror(errno))
			       : 0;
	}
	if (backend != LLMEM_BACKEND_VULKAN_DMABUF)
		return llmem_error(-ENOTSUP, "the page has no DMA-BUF to export%s",
				   backend == LLMEM_BACKEND_VULKAN_OPAQUE_FD
					   ? " (it exports opaque fds only)"
					   : "");
	return vk_export_fd(s, p->vk, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
			    "vkGetMemoryFdKHR (DMA-BUF)", fd);
}

int llmem_backend_page_export_opaque_fd(struct llmem_session *s, uint32_t backend,
					const struct llmem_page_backing *p, int *fd)
{
	if (backend != LLMEM_BACKEND_VULKAN_OPAQUE_FD)
		return llmem_error(-ENOTSUP, "the page was not allocated exportable as an opaque "
					     "fd (LLMEM_SHARING_OPAQUE_FD)");
	return vk_export_fd(s, p->vk, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
			    "vkGetMemoryFdKHR (opaque fd)", fd);
}

static int probe(struct llmem_session *s, uint32_t backend, uint32_t type_index, bool contiguous)
{
	struct llmem_page_backing p;
	int ret, fd;

	ret = llmem_backend_page_alloc(s, backend, type_index, PROBE_SIZE, contiguous, &p);
	if (ret)
		return ret;
	if (backend == LLMEM_BACKEND_VULKAN_OPAQUE_FD)
		ret = llmem_backend_page_export_opaque_fd(s, backend, &p, &fd);
	else
		ret = llmem_backend_page_export(s, backend, &p, &fd);
	if (!ret)
		close(fd);
	llmem_backend_page_free(s, &p);
	return ret;
}

int llmem_backend_choose(struct llmem_session *s, uint32_t type_index, uint32_t want,
			 bool contiguous, uint32_t *backend)
{
	static const struct {
		uint32_t backend;
		uint32_t caps;
		const char *needs;
	} order[] = {
		{ LLMEM_BACKEND_VULKAN_DMABUF, LLMEM_CAP_DMABUF_EXPORT,
		  "VK_EXT_external_memory_dma_buf export" },
		{ LLMEM_BACKEND_LLMEM_DMABUF, LLMEM_CAP_LLMEM_DEVICE | LLMEM_CAP_DMABUF_IMPORT,
		  "/dev/llmem and DMA-BUF import" },
		{ LLMEM_BACKEND_LLMEM_HOST_POINTER,
		  LLMEM_CAP_LLMEM_DEVICE | LLMEM_CAP_HOST_POINTER_IMPORT,
		  "/dev/llmem and VK_EXT_external_memory_host" },
	};
	char reasons[768] = "";
	size_t used = 0;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const char *why;
		int ret = 0;

		if (want && want != order[i].backend)
			continue;
		if ((s->info.caps & order[i].caps) != order[i].caps) {
			why = "missing";
		} else if (contiguous && order[i].backend == LLMEM_BACKEND_VULKAN_DMABUF) {
			why = "its pages are not physically contiguous";
		} else {
			ret = probe(s, order[i].backend, type_index, contiguous);
			if (!ret) {
				*backend = order[i].backend;
				return 0;
			}
			why = llmem_last_error();
		}
		used += (size_t)snprintf(reasons + used, sizeof(reasons) - used, "%s%s: %s",
					 used ? "; " : "", order[i].needs, why);
		if (used >= sizeof(reasons))
			break;
	}
	return llmem_error(-ENOTSUP, "no way to share memory here (%s)",
			   *reasons ? reasons : "that backend does not allocate pages");
}

int llmem_backend_choose_opaque_fd(struct llmem_session *s, uint32_t type_index, uint32_t want,
				   uint32_t *backend)
{
	VkPhysicalDeviceExternalBufferInfo bi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
	};
	VkExternalBufferProperties ep = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };
	int ret;

	if (want && want != LLMEM_BACKEND_VULKAN_OPAQUE_FD)
		return llmem_error(-EINVAL, "opaque-fd memory: backend %s cannot export opaque fds",
				   llmem_backend_name(want));
	if (!vkGetDeviceProcAddr(s->device, "vkGetMemoryFdKHR"))
		return llmem_error(-ENOTSUP, "opaque-fd memory: no VK_KHR_external_memory_fd");
	vkGetPhysicalDeviceExternalBufferProperties(s->physical, &bi, &ep);
	if (!(ep.externalMemoryProperties.externalMemoryFeatures &
	      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
		return llmem_error(-ENOTSUP,
				   "opaque-fd memory: the device cannot export opaque fds");
	ret = probe(s, LLMEM_BACKEND_VULKAN_OPAQUE_FD, type_index, false);
	if (ret)
		return llmem_error(ret, "opaque-fd memory: memory type %u: %s", type_index,
				   llmem_last_error());
	*backend = LLMEM_BACKEND_VULKAN_OPAQUE_FD;
	return 0;
}
