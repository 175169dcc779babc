// SPDX-License-Identifier: MIT
/*
 * The kernel's allocators of DMA-BUFs that need no GPU, described as data
 * (llmem/share.h): llmem.ko's /dev/llmem, udmabuf and the DMA heaps.  Each
 * node is opened, not only looked for, since one the caller may not open
 * is of no use to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llmem/share.h>

#include "base/error.h"

static void describe(uint32_t kind, const char *name, const char *path,
		     struct llmem_dmabuf_provider *p)
{
	int fd;

	*p = (struct llmem_dmabuf_provider){ .kind = kind };
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->path, sizeof(p->path), "%s", path);
	if (access(path, F_OK)) {
		p->error = -ENOENT;
		return;
	}
	p->present = 1;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		p->error = -errno;
	else
		close(fd);
}

/* llmem.ko's cap, as its module parameter shows it. */
static void read_max_bytes(struct llmem_dmabuf_provider *p)
{
	FILE *f = fopen("/sys/module/llmem/parameters/max_bytes", "re");

	if (!f)
		return;
	p->has_max_bytes = fscanf(f, "%" SCNu64, &p->max_bytes) == 1;
	fclose(f);
}

LLMEM_PUBLIC int llmem_dmabuf_provider_get(uint32_t kind, struct llmem_dmabuf_provider *provider)
{
	if (!provider)
		return llmem_error(-EINVAL, "llmem_dmabuf_provider_get: NULL provider");
	switch (kind) {
	case LLMEM_DMABUF_PROVIDER_LLMEM:
		describe(kind, "llmem", "/dev/llmem", provider);
		read_max_bytes(provider);
		return 0;
	case LLMEM_DMABUF_PROVIDER_UDMABUF:
		describe(kind, "udmabuf", "/dev/udmabuf", provider);
		return 0;
	default:
		return llmem_error(-EINVAL, "llmem_dmabuf_provider_get: kind %u is no single node",
				   kind);
	}
}

static int is_heap(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

LLMEM_PUBLIC int llmem_dma_heap_list(struct llmem_dmabuf_provider *heaps, uint32_t capacity)
{
	struct dirent **names;
	int count;

	if (!heaps && capacity)
		return llmem_error(-EINVAL, "llmem_dma_heap_list: NULL heaps");
	count = scandir("/dev/dma_heap", &names, is_heap, alphasort);
	if (count < 0)
		return errno == ENOENT ? 0
				       : llmem_error(-errno, "/dev/dma_heap: %s", strerror(errno));
	for (int i = 0; i < count; i++) {
		char path[sizeof(heaps->path)];

		if ((uint32_t)i < capacity) {
			snprintf(path, sizeof(path), "/dev/dma_heap/%.*s",
				 (int)(sizeof(path) - sizeof("/dev/dma_heap/")), names[i]->d_name);
			describe(LLMEM_DMABUF_PROVIDER_HEAP, names[i]->d_name, path, &heaps[i]);
		}
		free(names[i]);
	}
	free(names);
	return count;
}
