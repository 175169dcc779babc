// SPDX-License-Identifier: MIT
/*
 * The kernel's DMA-BUF providers a program can allocate from without a
 * GPU, as the library describes them (llmem_dmabuf_provider_get(),
 * llmem_dma_heap_list()): llmem.ko's /dev/llmem, DMA heaps and udmabuf.
 */
#include <stdlib.h>
#include <string.h>

#include <llmem/share.h>

#include "devices.h"

/* Writes "present", and "usable" or the reason it is not. */
static void describe_node(struct emit *e, const struct llmem_dmabuf_provider *p)
{
	emit_string(e, "path", p->path);
	emit_bool(e, "present", p->present);
	if (!p->present)
		return;
	emit_bool(e, "usable", !p->error);
	if (p->error)
		emit_string(e, "error", strerror(-p->error));
}

static void describe_single(struct emit *e, uint32_t kind)
{
	struct llmem_dmabuf_provider p;

	llmem_dmabuf_provider_get(kind, &p);
	emit_object(e, p.name);
	describe_node(e, &p);
	if (p.has_max_bytes)
		emit_uint(e, "max_bytes", p.max_bytes);
	emit_end(e);
}

static void describe_heaps(struct emit *e)
{
	int capacity = llmem_dma_heap_list(NULL, 0), n = 0;
	struct llmem_dmabuf_provider *heaps =
		capacity > 0 ? calloc((size_t)capacity, sizeof(*heaps)) : NULL;

	if (heaps)
		n = llmem_dma_heap_list(heaps, (uint32_t)capacity);
	emit_array(e, "dma_heaps");
	/* A heap made between the two calls waits for the next listing. */
	for (int i = 0; i < n && i < capacity; i++) {
		emit_object(e, NULL);
		emit_string(e, "name", heaps[i].name);
		describe_node(e, &heaps[i]);
		emit_end(e);
	}
	emit_end(e);
	free(heaps);
}

void devices_kernel(struct emit *e)
{
	describe_single(e, LLMEM_DMABUF_PROVIDER_LLMEM);
	describe_heaps(e);
	describe_single(e, LLMEM_DMABUF_PROVIDER_UDMABUF);
}
