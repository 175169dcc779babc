/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the llmem.ko tests: ALLOC and INFO wrappers, the module's
 * debugfs counter, and vgem as a real importer that attaches, maps the
 * attachment and adds write fences.
 */
#ifndef LLMEM_MODULE_TEST_H
#define LLMEM_MODULE_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <drm.h>
#include <vgem_drm.h>
#include <linux/llmem.h>

#include "test_util.h"

#define LLMEM_DEV "/dev/llmem"
#define LLMEM_LIVE_PAGES "/sys/kernel/debug/llmem/live_pages"
#define LLMEM_BUFFERS "/sys/kernel/debug/llmem/buffers"
#define LLMEM_PER_PROCESS "/sys/module/llmem/parameters/max_bytes_per_process"

static inline int llmem_open(void)
{
	int fd = open(LLMEM_DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Allocates @size bytes; returns the DMA-BUF fd or -errno. */
static inline int llmem_alloc(int dev, uint64_t size)
{
	struct llmem_alloc a = { .size = size, .flags = LLMEM_ALLOC_CLOEXEC };
	int ret = xioctl(dev, LLMEM_IOC_ALLOC, &a);

	return ret < 0 ? ret : (int)a.fd;
}

/* EXPORT_RANGE of [@offset, @offset + @size) of @fd, close-on-exec: the fd or -errno. */
static inline int llmem_range_export(int dev, int fd, uint64_t offset, uint64_t size)
{
	struct llmem_export_range r = {
		.fd = fd,
		.flags = LLMEM_EXPORT_RANGE_CLOEXEC,
		.offset = offset,
		.size = size,
	};
	int ret = xioctl(dev, LLMEM_IOC_EXPORT_RANGE, &r);

	return ret < 0 ? ret : (int)r.out_fd;
}

/* INFO on @fd, with room for @len importer names at @names. */
static inline int llmem_info(int dev, int fd, struct llmem_info *info, struct llmem_importer *names,
			     unsigned int len)
{
	memset(info, 0, sizeof(*info));
	info->fd = fd;
	info->importers_ptr = (uintptr_t)names;
	info->importers_len = names ? len : 0;
	return xioctl(dev, LLMEM_IOC_INFO, info);
}

/* The number debugfs file @path of the module holds, or -1 when it cannot
 * be read. */
static inline long llmem_debugfs_count(const char *path)
{
	FILE *f = fopen(path, "re");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* The module's live-page counter, or -1 when debugfs cannot be read. */
static inline long llmem_live_pages(void)
{
	return llmem_debugfs_count(LLMEM_LIVE_PAGES);
}

/*
 * Polls for up to 10 s until the module's live pages are back to @want (a
 * process's exit and a device's release free pages after a moment): the
 * count then.
 */
static inline long llmem_live_pages_back_to(long want)
{
	long now = llmem_live_pages();

	for (int i = 0; i < 100 && now != want; i++) {
		usleep(100 * 1000);
		now = llmem_live_pages();
	}
	return now;
}

/* Whether debugfs's buffer table has a line containing @needle. */
static inline int llmem_table_has(const char *needle)
{
	FILE *f = fopen(LLMEM_BUFFERS, "re");
	char line[512];
	int found = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		found |= strstr(line, needle) != NULL;
	fclose(f);
	return found;
}

/* Loads vgem and opens its card; -ENODEV when the kernel has none. */
static inline int vgem_open(void)
{
	char path[32], name[16];

	if (system("modprobe vgem 2>/dev/null") != 0)
		return -ENODEV;
	for (int i = 0; i < 16; i++) {
		struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		memset(name, 0, sizeof(name));
		if (xioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, "vgem"))
			return fd;
		close(fd);
	}
	return -ENODEV;
}

/* vgem imports @fd: attaches and maps it bidirectionally; the GEM handle. */
static inline int vgem_import(int vgem, int fd, uint32_t *handle)
{
	struct drm_prime_handle p = { .fd = fd };
	int ret = xioctl(vgem, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);

	*handle = p.handle;
	return ret;
}

/* Drops the GEM handle: vgem unmaps and detaches. */
static inline int vgem_close(int vgem, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return xioctl(vgem, DRM_IOCTL_GEM_CLOSE, &c);
}

/*
 * The LLMEM_VM_MODULES entry (tests/vm/run) of the module file @ko:
 * "PATH ARGS", for a test that unloads a module and loads it again as the
 * rig did.
 */
static inline int module_entry(const char *ko, char *entry, size_t len)
{
	const char *list = getenv("LLMEM_VM_MODULES");
	const char *p = list;

	while (p && *p) {
		const char *end = strchrnul(p, '\n');
		const char *space = memchr(p, ' ', (size_t)(end - p));
		const char *path_end = space ? space : end;
		size_t n = (size_t)(path_end - p), k = strlen(ko);

		if (n >= k + 1 && p[n - k - 1] == '/' && !strncmp(path_end - k, ko, k) &&
		    (size_t)(end - p) < len) {
			memcpy(entry, p, (size_t)(end - p));
			entry[end - p] = '\0';
			return 0;
		}
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

/* -EWOULDBLOCK: the module is in use (a file, a mapping, a dependent). */
static inline int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static inline int insmod(const char *entry)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "insmod %s", entry);
	return system(cmd) == 0 ? 0 : -EIO;
}

#endif
