// SPDX-License-Identifier: MIT
/*
 * A page's one host mapping, shared by the objects on it and by raw use of
 * the page (vkgdr's raw memory, wrapped host memory): pages mapped, flushed
 * and invalidated without, or before, any object.
 */
#include <errno.h>
#include <stdatomic.h>

#include "base/error.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/memory.h"

int llmem_memory_page_map_locked(struct llmem_memory *m, uint32_t page, void **ptr)
{
	struct llmem_page *p = &m->pages[page];
	VkResult r;

	if (!p->map) {
		r = vkMapMemory(m->session->device, p->vk, 0, VK_WHOLE_SIZE, 0, &p->map);
		if (r == VK_SUCCESS && !p->map) {
			vkUnmapMemory(m->session->device, p->vk);
			r = VK_ERROR_MEMORY_MAP_FAILED;
		}
		if (r != VK_SUCCESS) {
			p->map = NULL;
			return llmem_error(llmem_vk_errno(r),
					   "memory '%s': vkMapMemory of page %u: %s", m->name, page,
					   llmem_vk_result_name(r));
		}
	}
	p->map_count++;
	*ptr = p->map;
	return 0;
}

void llmem_memory_page_unmap_locked(struct llmem_memory *m, uint32_t page)
{
	struct llmem_page *p = &m->pages[page];

	if (--p->map_count == 0) {
		vkUnmapMemory(m->session->device, p->vk);
		p->map = NULL;
	}
}

/*
 * Coherent memory needs no flush, but Vulkan allows one; doing it anyway
 * lets the validation layer check the rounding on every device.
 */
int llmem_memory_page_sync_locked(struct llmem_memory *m, uint32_t page, uint64_t offset,
				  uint64_t size, bool flush)
{
	uint64_t atom = m->session->props.limits.nonCoherentAtomSize;
	struct llmem_page *p = &m->pages[page];
	VkMappedMemoryRange range = {
		.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
		.memory = p->vk,
	};
	uint64_t end;
	VkResult r;

	if (!size)
		return 0;
	/* Write-combined stores (the BAR) reach the device in order after this. */
	if (flush)
		atomic_thread_fence(memory_order_seq_cst);
	/* Widen to whole atoms, but never past the page: its end is always valid. */
	range.offset = offset / atom * atom;
	end = (offset + size + atom - 1) / atom * atom;
	range.size = (end < p->size ? end : p->size) - range.offset;
	if (flush)
		r = vkFlushMappedMemoryRanges(m->session->device, 1, &range);
	else
		r = vkInvalidateMappedMemoryRanges(m->session->device, 1, &range);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "%s: %s",
				   flush ? "vkFlushMappedMemoryRanges"
					 : "vkInvalidateMappedMemoryRanges",
				   llmem_vk_result_name(r));
	return 0;
}

int llmem_memory_check_mappable(const struct llmem_memory *m)
{
	if (!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return llmem_error(-EPERM, "memory '%s' is not host visible: it cannot be mapped",
				   m->name);
	return 0;
}

LLMEM_PUBLIC int llmem_memory_add_page(struct llmem_memory *m, uint64_t size, uint32_t *page)
{
	int ret;

	if (!m || !page)
		return llmem_error(-EINVAL, "add page: NULL argument");
	if (!size || size % 4096)
		return llmem_error(-EINVAL,
				   "add page: size %llu is not a non-zero multiple of 4096",
				   (unsigned long long)size);
	if (m->sharing == LLMEM_SHARING_IMPORT)
		return llmem_error(-EINVAL,
				   "add page: memory '%s' takes pages only from imports (sharing "
				   "LLMEM_SHARING_IMPORT)",
				   m->name);
	pthread_mutex_lock(&m->lock);
	m->page_failed = false;
	ret = llmem_pool_add_page(m->pool, size, page);
	pthread_mutex_unlock(&m->lock);
	if (ret && !m->page_failed)
		llmem_error(ret, "add page: memory '%s': no page of %llu bytes", m->name,
			    (unsigned long long)size);
	return ret;
}

LLMEM_PUBLIC int llmem_memory_map_page(struct llmem_memory *m, uint32_t page, void **ptr)
{
	int ret;

	if (!m || !ptr)
		return llmem_error(-EINVAL, "map page: NULL argument");
	ret = llmem_memory_check_mappable(m);
	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	if (!llmem_memory_live_page(m, page))
		ret = llmem_error(-EINVAL, "map page: memory '%s' has no page %u", m->name, page);
	else
		ret = llmem_memory_page_map_locked(m, page, ptr);
	if (!ret)
		m->pages[page].raw_maps++;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

LLMEM_PUBLIC int llmem_memory_unmap_page(struct llmem_memory *m, uint32_t page)
{
	struct llmem_page *p;
	int ret = 0;

	if (!m)
		return llmem_error(-EINVAL, "unmap page: NULL memory");
	pthread_mutex_lock(&m->lock);
	p = llmem_memory_live_page(m, page);
	if (!p || !p->raw_maps) {
		ret = llmem_error(-EINVAL, "unmap page: page %u of memory '%s' is not mapped", page,
				  m->name);
	} else {
		p->raw_maps--;
		llmem_memory_page_unmap_locked(m, page);
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int sync_page(struct llmem_memory *m, uint32_t page, uint64_t offset, uint64_t size,
		     bool flush)
{
	const char *what = flush ? "flush page" : "invalidate page";
	struct llmem_page *p;
	int ret;

	pthread_mutex_lock(&m->lock);
	p = llmem_memory_live_page(m, page);
	if (!p || !p->map) {
		ret = llmem_error(-EINVAL, "%s: page %u of memory '%s' is not mapped", what, page,
				  m->name);
		goto out_unlock;
	}
	if (size == LLMEM_WHOLE_SIZE && offset <= p->size)
		size = p->size - offset;
	if (offset > p->size || size > p->size - offset) {
		ret = llmem_error(-EINVAL,
				  "%s: range [%llu, +%llu) lies outside page %u's %llu bytes", what,
				  (unsigned long long)offset, (unsigned long long)size, page,
				  (unsigned long long)p->size);
		goto out_unlock;
	}
	ret = llmem_memory_page_sync_locked(m, page, offset, size, flush);
out_unlock:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

LLMEM_PUBLIC int llmem_memory_flush_page(struct llmem_memory *m, uint32_t page, uint64_t offset,
					 uint64_t size)
{
	if (!m)
		return llmem_error(-EINVAL, "flush page: NULL memory");
	return sync_page(m, page, offset, size, true);
}

LLMEM_PUBLIC int llmem_memory_invalidate_page(struct llmem_memory *m, uint32_t page,
					      uint64_t offset, uint64_t size)
{
	if (!m)
		return llmem_error(-EINVAL, "invalidate page: NULL memory");
	return sync_page(m, page, offset, size, false);
}
