// SPDX-License-Identifier: MIT
/*
 * Synchronisation with the other users of a shared buffer: CPU access to a
 * DMA-BUF (its mapping and the DMA_BUF_IOCTL_SYNC brackets around it), and
 * the fences of its reservation object as sync_files, both ways.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>

#include <llmem/share.h>

#include "base/error.h"
#include "memory/buffer.h"

static int retry_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret == -1 ? -errno : 0;
}

static int check_open(int fd, const char *what)
{
	if (fd < 0 || fcntl(fd, F_GETFD) == -1)
		return llmem_error(-EBADF, "%s: fd %d is not open", what, fd);
	return 0;
}

#define CPU_ACCESS_MASK ((uint32_t)(LLMEM_CPU_READ | LLMEM_CPU_WRITE))

static int dmabuf_cpu_access(int fd, uint32_t access, uint64_t edge, const char *what)
{
	struct dma_buf_sync sync = { .flags = edge };
	int ret;

	if (!access || (access & ~CPU_ACCESS_MASK))
		return llmem_error(-EINVAL, "%s: access 0x%x, READ and/or WRITE", what, access);
	ret = check_open(fd, what);
	if (ret)
		return ret;
	if (access & LLMEM_CPU_READ)
		sync.flags |= DMA_BUF_SYNC_READ;
	if (access & LLMEM_CPU_WRITE)
		sync.flags |= DMA_BUF_SYNC_WRITE;
	ret = retry_ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	if (ret == -ENOTTY)
		return llmem_error(-EINVAL, "%s: fd %d is not a DMA-BUF", what, fd);
	if (ret)
		return llmem_error(ret, "%s: DMA_BUF_IOCTL_SYNC on fd %d: %s", what, fd,
				   strerror(-ret));
	return 0;
}

LLMEM_PUBLIC int llmem_dmabuf_begin_cpu_access(int fd, uint32_t access)
{
	return dmabuf_cpu_access(fd, access, DMA_BUF_SYNC_START, "llmem_dmabuf_begin_cpu_access");
}

LLMEM_PUBLIC int llmem_dmabuf_end_cpu_access(int fd, uint32_t access)
{
	return dmabuf_cpu_access(fd, access, DMA_BUF_SYNC_END, "llmem_dmabuf_end_cpu_access");
}

LLMEM_PUBLIC int llmem_dmabuf_map(int fd, uint64_t offset, uint64_t size, uint32_t access,
				  void **ptr)
{
	long page = sysconf(_SC_PAGESIZE);
	int prot = 0, ret;
	void *map;

	if (!ptr)
		return llmem_error(-EINVAL, "llmem_dmabuf_map: NULL ptr");
	*ptr = NULL;
	if (!access || (access & ~CPU_ACCESS_MASK))
		return llmem_error(-EINVAL, "llmem_dmabuf_map: access 0x%x, READ and/or WRITE",
				   access);
	if (!size || size > SIZE_MAX || offset % (uint64_t)page || offset > (uint64_t)INT64_MAX ||
	    size > (uint64_t)INT64_MAX - offset)
		return llmem_error(-EINVAL,
				   "llmem_dmabuf_map: %llu bytes at %llu: want a size above 0 and "
				   "an offset that is a multiple of %ld, within the file's range",
				   (unsigned long long)size, (unsigned long long)offset, page);
	ret = check_open(fd, "llmem_dmabuf_map");
	if (ret)
		return ret;
	if (access & LLMEM_CPU_READ)
		prot |= PROT_READ;
	if (access & LLMEM_CPU_WRITE)
		prot |= PROT_WRITE;
	map = mmap(NULL, size, prot, MAP_SHARED, fd, (off_t)offset);
	if (map == MAP_FAILED)
		return llmem_error(
			-errno, "llmem_dmabuf_map: mmap of %llu bytes of fd %d at %llu: %s",
			(unsigned long long)size, fd, (unsigned long long)offset, strerror(errno));
	*ptr = map;
	return 0;
}

LLMEM_PUBLIC int llmem_dmabuf_unmap(void *ptr, uint64_t size)
{
	if (!ptr)
		return 0;
	if (!size || size > SIZE_MAX)
		return llmem_error(-EINVAL, "llmem_dmabuf_unmap: %llu bytes",
				   (unsigned long long)size);
	if (munmap(ptr, size))
		return llmem_error(-errno, "llmem_dmabuf_unmap: munmap of %p: %s", ptr,
				   strerror(errno));
	return 0;
}

static int cpu_access(struct llmem_buffer *b, uint32_t access, uint64_t edge, const char *what)
{
	int fd, ret;

	if (!b || !access || (access & ~CPU_ACCESS_MASK))
		return llmem_error(-EINVAL, "%s: NULL buffer or access 0x%x", what, access);
	/* Pages with no DMA-BUF behind them (plain, wrapped host memory,
	 * opaque fds) have no exporter to bracket; plain memory is told apart
	 * first so that the common case leaves llmem_last_error() alone. */
	if (!llmem_memory_handle_types(b->obj.memory))
		return 0;
	ret = llmem_memory_page_fd(b->obj.memory, b->obj.alloc.page, &fd);
	if (ret == -ENOTSUP)
		return 0;
	if (ret)
		return ret;
	return dmabuf_cpu_access(fd, access, edge, what);
}

LLMEM_PUBLIC int llmem_buffer_begin_cpu_access(struct llmem_buffer *b, uint32_t access)
{
	return cpu_access(b, access, DMA_BUF_SYNC_START, "llmem_buffer_begin_cpu_access");
}

LLMEM_PUBLIC int llmem_buffer_end_cpu_access(struct llmem_buffer *b, uint32_t access)
{
	return cpu_access(b, access, DMA_BUF_SYNC_END, "llmem_buffer_end_cpu_access");
}

#define ACCESS_MASK ((uint32_t)(LLMEM_SYNC_READ | LLMEM_SYNC_WRITE))

static uint32_t sync_flags(uint32_t access)
{
	return (access & LLMEM_SYNC_READ ? DMA_BUF_SYNC_READ : 0) |
	       (access & LLMEM_SYNC_WRITE ? DMA_BUF_SYNC_WRITE : 0);
}

/* Whether @fd is a sync_file: the kernel answers SYNC_IOC_FILE_INFO for no other file. */
static int check_sync_file(int fd, const char *what)
{
	struct sync_file_info info = { 0 };
	int ret = check_open(fd, what);

	if (ret)
		return ret;
	if (retry_ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return llmem_error(-EINVAL, "%s: fd %d is not a sync_file", what, fd);
	return 0;
}

LLMEM_PUBLIC int llmem_dmabuf_export_sync_file(int dmabuf, uint32_t access, int *fd)
{
	struct dma_buf_export_sync_file req = { .flags = sync_flags(access), .fd = -1 };
	int ret;

	if (!fd)
		return llmem_error(-EINVAL, "export sync_file: NULL fd");
	*fd = -1;
	if (!access || (access & ~ACCESS_MASK))
		return llmem_error(-EINVAL, "export sync_file: access 0x%x, READ and/or WRITE",
				   access);
	ret = check_open(dmabuf, "export sync_file");
	if (ret)
		return ret;
	ret = retry_ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &req);
	if (ret == -ENOTTY)
		return llmem_error(
			-EINVAL,
			"export sync_file: fd %d is not a DMA-BUF (or the kernel predates "
			"DMA_BUF_IOCTL_EXPORT_SYNC_FILE, Linux 6.0)",
			dmabuf);
	if (ret)
		return llmem_error(ret,
				   "export sync_file: DMA_BUF_IOCTL_EXPORT_SYNC_FILE on fd %d: %s",
				   dmabuf, strerror(-ret));
	*fd = req.fd;
	return 0;
}

LLMEM_PUBLIC int llmem_dmabuf_import_sync_file(int dmabuf, uint32_t access, int fd)
{
	struct dma_buf_import_sync_file req = { .flags = sync_flags(access), .fd = fd };
	int ret;

	if (access != LLMEM_SYNC_READ && access != LLMEM_SYNC_WRITE)
		return llmem_error(-EINVAL, "import sync_file: access 0x%x, READ or WRITE", access);
	ret = check_open(dmabuf, "import sync_file");
	if (!ret)
		ret = check_sync_file(fd, "import sync_file");
	if (ret)
		return ret;
	ret = retry_ioctl(dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &req);
	if (ret == -ENOTTY)
		return llmem_error(-EINVAL, "import sync_file: fd %d is not a DMA-BUF", dmabuf);
	if (ret)
		return llmem_error(ret,
				   "import sync_file: DMA_BUF_IOCTL_IMPORT_SYNC_FILE on fd %d: %s",
				   dmabuf, strerror(-ret));
	return 0;
}

/* The DMA-BUF of @b's page, borrowed. */
static int buffer_dmabuf(struct llmem_buffer *b, const char *what, int *fd)
{
	if (!b)
		return llmem_error(-EINVAL, "%s: NULL buffer", what);
	if (!llmem_memory_handle_types(b->obj.memory))
		return llmem_error(-ENOTSUP, "%s: memory '%s' is not shared: no DMA-BUF", what,
				   b->obj.memory->name);
	return llmem_memory_page_fd(b->obj.memory, b->obj.alloc.page, fd);
}

LLMEM_PUBLIC int llmem_buffer_export_sync_file(struct llmem_buffer *b, uint32_t access, int *fd)
{
	int dmabuf, ret;

	if (fd)
		*fd = -1;
	ret = buffer_dmabuf(b, "export sync_file", &dmabuf);
	return ret ? ret : llmem_dmabuf_export_sync_file(dmabuf, access, fd);
}

LLMEM_PUBLIC int llmem_buffer_import_sync_file(struct llmem_buffer *b, uint32_t access, int fd)
{
	int dmabuf, ret = buffer_dmabuf(b, "import sync_file", &dmabuf);

	return ret ? ret : llmem_dmabuf_import_sync_file(dmabuf, access, fd);
}

LLMEM_PUBLIC int llmem_sync_file_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = check_sync_file(fd, "sync_file wait");

	if (ret)
		return ret;
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret == -1 && errno == EINTR);
	if (ret == -1)
		return llmem_error(-errno, "sync_file wait: poll: %s", strerror(errno));
	if (ret == 0)
		return llmem_error(-ETIMEDOUT, "sync_file wait: fd %d not signalled after %d ms",
				   fd, timeout_ms);
	return 0;
}
