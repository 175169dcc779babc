// SPDX-License-Identifier: MIT
/*
 * The kernel's DMA-BUF providers a program can allocate from without a
 * GPU: llmem.ko's /dev/llmem, DMA heaps and udmabuf.  Each is opened, not
 * just looked for, since a node the user may not open is of no use to them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "devices.h"

#define MAX_DMA_HEAPS 64

/* Writes "present", and "usable" or the reason it is not. */
static void describe_node(struct emit *e, const char *path)
{
	int fd;

	emit_string(e, "path", path);
	if (access(path, F_OK)) {
		emit_bool(e, "present", false);
		return;
	}
	emit_bool(e, "present", true);
	fd = open(path, O_RDWR | O_CLOEXEC);
	emit_bool(e, "usable", fd >= 0);
	if (fd < 0)
		emit_string(e, "error", strerror(errno));
	else
		close(fd);
}

static void describe_llmem(struct emit *e)
{
	FILE *f = fopen("/sys/module/llmem/parameters/max_bytes", "re");
	uint64_t max_bytes;

	emit_object(e, "llmem");
	describe_node(e, "/dev/llmem");
	if (f && fscanf(f, "%" SCNu64, &max_bytes) == 1)
		emit_uint(e, "max_bytes", max_bytes);
	if (f)
		fclose(f);
	emit_end(e);
}

static int is_heap(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void describe_heaps(struct emit *e)
{
	struct dirent **heaps;
	int count = scandir("/dev/dma_heap", &heaps, is_heap, alphasort);

	emit_array(e, "dma_heaps");
	for (int i = 0; i < count; i++) {
		char path[300];

		if (i < MAX_DMA_HEAPS) {
			snprintf(path, sizeof(path), "/dev/dma_heap/%s", heaps[i]->d_name);
			emit_object(e, NULL);
			emit_string(e, "name", heaps[i]->d_name);
			describe_node(e, path);
			emit_end(e);
		}
		free(heaps[i]);
	}
	if (count >= 0)
		free(heaps);
	emit_end(e);
}

void devices_kernel(struct emit *e)
{
	describe_llmem(e);
	describe_heaps(e);
	emit_object(e, "udmabuf");
	describe_node(e, "/dev/udmabuf");
	emit_end(e);
}
