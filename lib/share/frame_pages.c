// SPDX-License-Identifier: MIT
/*
 * Frames' buffers in shared pages (frame_pages.h).
 */
#include <errno.h>

#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/share.h>

#include "base/error.h"
#include "share/frame_pages.h"

/* Only llmem.ko exports a range of a page as a DMA-BUF of its own. */
static bool ranges_cut(uint32_t backend)
{
	return backend == LLMEM_BACKEND_LLMEM_DMABUF || backend == LLMEM_BACKEND_LLMEM_HOST_POINTER;
}

static uint32_t frames_a_page(const struct llmem_frame_pages_info *info)
{
	uint64_t fit = LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE / info->bytes[0];

	if (!info->contiguous || fit >= info->frames)
		return info->frames ? info->frames : 1;
	return fit ? (uint32_t)fit : 1;
}

int llmem_frame_pages_create(struct llmem_session *s, const struct llmem_frame_pages_info *info,
			     struct llmem_memory **memories, uint32_t *per_page, uint32_t *backend)
{
	struct llmem_memory_create_info mci = {
		.options = info->contiguous ? LLMEM_MEMORY_CONTIGUOUS : 0,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = info->backend,
	};
	struct llmem_memory_info mi;
	int ret;

	*per_page = frames_a_page(info);
	for (uint32_t p = 0; p < info->buffers; p++) {
		mci.page_size = *per_page * info->bytes[p];
		mci.name = info->names[p];
		ret = llmem_memory_create(s, &mci, &memories[p]);
		if (ret)
			return ret;
		llmem_memory_get_info(memories[p], &mi);
		/* Only the first can meet a backend whose pages cannot be cut. */
		if (*per_page > 1 && !ranges_cut(mi.backend)) {
			llmem_memory_destroy(memories[p]);
			*per_page = 1;
			mci.page_size = info->bytes[p];
			mci.backend = mi.backend;
			ret = llmem_memory_create(s, &mci, &memories[p]);
			if (ret) {
				memories[p] = NULL;
				return ret;
			}
		}
		mci.backend = mi.backend;
	}
	if (backend)
		*backend = mci.backend;
	return 0;
}

int llmem_frame_pages_export(struct llmem_memory *memory, uint32_t per_page, uint64_t bytes,
			     const char *label, struct llmem_buffer **buffer, int *fd)
{
	struct llmem_buffer_create_info bci = {
		.size = bytes,
		.name = label,
		.alignment = LLMEM_FRAME_PAGES_ALIGN,
	};
	struct llmem_dmabuf_region region;
	int ret = llmem_buffer_create(memory, &bci, buffer);

	if (ret)
		return ret;
	ret = per_page > 1 ? llmem_buffer_export_range(*buffer, &region)
			   : llmem_buffer_export(*buffer, &region);
	if (ret)
		return ret;
	*fd = region.fd;
	/* A buffer alone in its page starts it. */
	if (region.offset)
		return llmem_error(-EIO, "%s lies at offset %llu of its page", label,
				   (unsigned long long)region.offset);
	return 0;
}
