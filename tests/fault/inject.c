// SPDX-License-Identifier: MIT
/*
 * The wrappers behind inject.h.  They are defined in the test program, which
 * must export them (export_dynamic), so that libllmem.so binds to them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

#include <llmem/session.h>
#include <vulkan/vulkan.h>

#include "inject.h"

static atomic_uint armed_kinds;
static atomic_ulong counted, target;
static atomic_int fired, fired_errno;
static uintptr_t text_start, text_end;

static int find_text(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = data;

	(void)size;
	if (strcmp(info->dlpi_name, name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && ph->p_flags & PF_X) {
			text_start = info->dlpi_addr + ph->p_vaddr;
			text_end = text_start + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

void inject_arm(unsigned int kinds, unsigned long nth)
{
	Dl_info info;

	if (!text_end && dladdr((void *)llmem_session_create, &info))
		dl_iterate_phdr(find_text, (void *)info.dli_fname);
	if (!text_end)
		abort();
	atomic_store(&counted, 0);
	atomic_store(&fired, 0);
	atomic_store(&target, nth);
	atomic_store(&armed_kinds, kinds);
}

unsigned long inject_disarm(void)
{
	atomic_store(&armed_kinds, 0);
	return atomic_load(&counted);
}

int inject_fired(void)
{
	return atomic_load(&fired);
}

int inject_errno(void)
{
	return atomic_load(&fired_errno);
}

/* Whether this call, made from @caller, is the one to fail, with @err. */
static int hit(unsigned int kind, void *caller, int err)
{
	uintptr_t pc = (uintptr_t)caller;

	if (!(atomic_load(&armed_kinds) & kind) || pc < text_start || pc >= text_end)
		return 0;
	if (atomic_fetch_add(&counted, 1) + 1 != atomic_load(&target))
		return 0;
	atomic_store(&fired_errno, err);
	atomic_store(&fired, 1);
	return 1;
}

/*
 * dlsym() may allocate before the next malloc is known: those few early
 * blocks come from a static arena and are never freed.
 */
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static _Alignas(16) char arena[4096];
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (arena_used + n > sizeof(arena))
		abort();
	p = arena + arena_used;
	arena_used += n;
	return memset(p, 0, n);
}

static int resolve(void)
{
	if (next_malloc && next_calloc && next_realloc)
		return 1;
	if (resolving)
		return 0;
	resolving = 1;
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	resolving = 0;
	return next_malloc && next_calloc && next_realloc;
}

void *malloc(size_t n)
{
	if (!resolve())
		return arena_alloc(n);
	if (hit(INJECT_MALLOC, __builtin_return_address(0), ENOMEM)) {
		errno = ENOMEM;
		return NULL;
	}
	return next_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (!resolve())
		return size && n > SIZE_MAX / size ? NULL : arena_alloc(n * size);
	if (hit(INJECT_MALLOC, __builtin_return_address(0), ENOMEM)) {
		errno = ENOMEM;
		return NULL;
	}
	return next_calloc(n, size);
}

/* The arena's blocks are never handed to realloc: only dlsym allocates there. */
void *realloc(void *p, size_t n)
{
	if (!resolve() || ((char *)p >= arena && (char *)p < arena + sizeof(arena)))
		abort();
	if (hit(INJECT_MALLOC, __builtin_return_address(0), ENOMEM)) {
		errno = ENOMEM;
		return NULL;
	}
	return next_realloc(p, n);
}

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next_ioctl)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next_ioctl)
		next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (hit(INJECT_IOCTL, __builtin_return_address(0), ENOMEM)) {
		errno = ENOMEM;
		return -1;
	}
	return next_ioctl(fd, request, arg);
}

/* glibc's names for them on x86-64, which is what libllmem.so links to. */
int open64(const char *path, int flags, ...)
{
	static int (*next_open)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | __O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (!next_open)
		next_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	if (hit(INJECT_SYSCALL, __builtin_return_address(0), EMFILE)) {
		errno = EMFILE;
		return -1;
	}
	return next_open(path, flags, mode);
}

int fcntl64(int fd, int cmd, ...)
{
	static int (*next_fcntl)(int, int, ...);
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next_fcntl)
		next_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl64");
	if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) &&
	    hit(INJECT_SYSCALL, __builtin_return_address(0), EMFILE)) {
		errno = EMFILE;
		return -1;
	}
	return next_fcntl(fd, cmd, arg);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*next_mmap)(void *, size_t, int, int, int, off_t);

	if (!next_mmap)
		next_mmap =
			(void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap64");
	if (hit(INJECT_SYSCALL, __builtin_return_address(0), ENOMEM)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	return next_mmap(addr, len, prot, flags, fd, off);
}

/* One Vulkan entry point: fail when it is the armed call, else the loader's. */
#define WRAP(fn, params, args)                                               \
	VKAPI_ATTR VkResult VKAPI_CALL fn params                             \
	{                                                                    \
		static PFN_##fn next_fn;                                     \
		if (!next_fn)                                                \
			next_fn = (PFN_##fn)dlsym(RTLD_NEXT, #fn);           \
		if (hit(INJECT_VULKAN, __builtin_return_address(0), ENOMEM)) \
			return VK_ERROR_OUT_OF_HOST_MEMORY;                  \
		return next_fn args;                                         \
	}

#define CREATE(fn, Info, Handle)                                                           \
	WRAP(fn, (VkDevice d, const Info *i, const VkAllocationCallbacks *a, Handle *out), \
	     (d, i, a, out))

WRAP(vkCreateInstance,
     (const VkInstanceCreateInfo *i, const VkAllocationCallbacks *a, VkInstance *out), (i, a, out))
WRAP(vkCreateDevice,
     (VkPhysicalDevice p, const VkDeviceCreateInfo *i, const VkAllocationCallbacks *a,
      VkDevice *out),
     (p, i, a, out))
CREATE(vkAllocateMemory, VkMemoryAllocateInfo, VkDeviceMemory)
CREATE(vkCreateBuffer, VkBufferCreateInfo, VkBuffer)
CREATE(vkCreateImage, VkImageCreateInfo, VkImage)
CREATE(vkCreateImageView, VkImageViewCreateInfo, VkImageView)
CREATE(vkCreateSampler, VkSamplerCreateInfo, VkSampler)
CREATE(vkCreateCommandPool, VkCommandPoolCreateInfo, VkCommandPool)
CREATE(vkCreateFence, VkFenceCreateInfo, VkFence)
CREATE(vkCreateSemaphore, VkSemaphoreCreateInfo, VkSemaphore)
CREATE(vkCreateDescriptorPool, VkDescriptorPoolCreateInfo, VkDescriptorPool)
CREATE(vkCreateDescriptorSetLayout, VkDescriptorSetLayoutCreateInfo, VkDescriptorSetLayout)
CREATE(vkCreatePipelineLayout, VkPipelineLayoutCreateInfo, VkPipelineLayout)
CREATE(vkCreateShaderModule, VkShaderModuleCreateInfo, VkShaderModule)
WRAP(vkCreateComputePipelines,
     (VkDevice d, VkPipelineCache c, uint32_t n, const VkComputePipelineCreateInfo *i,
      const VkAllocationCallbacks *a, VkPipeline *out),
     (d, c, n, i, a, out))
WRAP(vkAllocateCommandBuffers,
     (VkDevice d, const VkCommandBufferAllocateInfo *i, VkCommandBuffer *out), (d, i, out))
WRAP(vkAllocateDescriptorSets,
     (VkDevice d, const VkDescriptorSetAllocateInfo *i, VkDescriptorSet *out), (d, i, out))
WRAP(vkMapMemory,
     (VkDevice d, VkDeviceMemory m, VkDeviceSize o, VkDeviceSize s, VkMemoryMapFlags f, void **out),
     (d, m, o, s, f, out))
WRAP(vkBindBufferMemory, (VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize o), (d, b, m, o))
WRAP(vkBindImageMemory, (VkDevice d, VkImage img, VkDeviceMemory m, VkDeviceSize o), (d, img, m, o))
