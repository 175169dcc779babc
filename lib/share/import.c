// SPDX-License-Identifier: MIT
/*
 * Foreign memory as pages of an LLMEM_SHARING_IMPORT memory: DMA-BUFs from
 * other drivers and processes, and host memory the caller allocated.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <llmem/share.h>

#include "base/error.h"
#include "device/session.h"
#include "memory/memory.h"

LLMEM_PUBLIC int llmem_memory_import_dmabuf(struct llmem_memory *m, int fd, uint64_t size,
					    uint32_t *page)
{
	off_t end;

	if (!m || !page)
		return llmem_error(-EINVAL, "import: NULL argument");
	if (m->sharing != LLMEM_SHARING_IMPORT)
		return llmem_error(-EINVAL,
				   "import: memory '%s' was not created with LLMEM_SHARING_IMPORT",
				   m->name);
	if (fd < 0 || fcntl(fd, F_GETFD) == -1)
		return llmem_error(-EBADF, "import: fd %d is not open", fd);
	/* A DMA-BUF reports its size through lseek; other files may too, and
	 * the driver refuses those at import. */
	end = lseek(fd, 0, SEEK_END);
	if (end <= 0)
		return llmem_error(-EINVAL, "import: fd %d has no size (is it a DMA-BUF?)", fd);
	lseek(fd, 0, SEEK_SET);
	if (!size)
		size = (uint64_t)end;
	if (size > (uint64_t)end)
		return llmem_error(-EINVAL, "import: %llu bytes asked of a %lld-byte DMA-BUF",
				   (unsigned long long)size, (long long)end);
	return llmem_memory_adopt_page(m, fd, NULL, size, page);
}

LLMEM_PUBLIC int llmem_memory_import_host(struct llmem_memory *m, void *ptr, uint64_t size,
					  uint32_t *page)
{
	uint64_t align;

	if (!m || !ptr || !page)
		return llmem_error(-EINVAL, "import host: NULL argument");
	if (m->sharing != LLMEM_SHARING_IMPORT || m->backend != LLMEM_BACKEND_IMPORT_HOST_POINTER)
		return llmem_error(-EINVAL,
				   "import host: memory '%s' was not created with "
				   "LLMEM_SHARING_IMPORT and LLMEM_BACKEND_IMPORT_HOST_POINTER",
				   m->name);
	align = m->session->info.min_imported_host_pointer_alignment;
	if ((uintptr_t)ptr % align)
		return llmem_error(-EINVAL,
				   "import host: pointer %p is not aligned to %llu bytes "
				   "(minImportedHostPointerAlignment)",
				   ptr, (unsigned long long)align);
	if (!size || size % align)
		return llmem_error(
			-EINVAL,
			"import host: size %llu is not a non-zero multiple of %llu bytes "
			"(minImportedHostPointerAlignment)",
			(unsigned long long)size, (unsigned long long)align);
	return llmem_memory_adopt_page(m, -1, ptr, size, page);
}

/*
 * Drivers take the address on trust (lavapipe imports anything), and the
 * device touching an unmapped page would fault the process later: mincore()
 * fails with ENOMEM when part of the range is not mapped.
 */
static int check_mapped(uintptr_t start, uintptr_t end)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (end - start + (uintptr_t)page - 1) / (uintptr_t)page;
	unsigned char *vec = malloc(pages);
	int ret = 0;

	if (!vec)
		return llmem_error(-ENOMEM, "memory from host: out of memory");
	if (mincore((void *)start, end - start, vec))
		ret = llmem_error(-EFAULT, "memory from host: [%p, %p) is not all mapped",
				  (void *)start, (void *)end);
	free(vec);
	return ret;
}

/* Whole alignment units around the range: what Vulkan imports. */
LLMEM_PUBLIC int llmem_memory_create_from_host(struct llmem_session *s, void *ptr, uint64_t size,
					       const char *name, struct llmem_memory **out,
					       uint64_t *offset)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
		.name = name ? name : "host",
	};
	uintptr_t start, end;
	uint64_t align;
	uint32_t page;
	int ret;

	if (!s || !ptr || !out || !offset)
		return llmem_error(-EINVAL, "memory from host: NULL argument");
	*out = NULL;
	if (!size)
		return llmem_error(-EINVAL, "memory from host: size 0");
	align = s->info.min_imported_host_pointer_alignment;
	if (!(s->info.caps & LLMEM_CAP_HOST_POINTER_IMPORT) || !align)
		return llmem_error(-ENOTSUP, "memory from host: the device cannot import host "
					     "memory");
	start = (uintptr_t)ptr - (uintptr_t)ptr % align;
	if (size > UINTPTR_MAX - (uintptr_t)ptr - align)
		return llmem_error(-EINVAL, "memory from host: %llu bytes from %p wrap around",
				   (unsigned long long)size, ptr);
	end = (uintptr_t)ptr + (uintptr_t)size;
	end += (align - end % align) % align;
	ret = check_mapped(start, end);
	if (ret)
		return ret;
	ret = llmem_memory_create(s, &ci, out);
	if (ret)
		return ret;
	ret = llmem_memory_import_host(*out, (void *)start, end - start, &page);
	if (ret) {
		llmem_memory_destroy(*out);
		*out = NULL;
		return ret;
	}
	*offset = (uintptr_t)ptr - start;
	return 0;
}
