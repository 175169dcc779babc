// SPDX-License-Identifier: MIT
/*
 * Memories: a memory type, a pool of pages (llmem/pool.h) and one
 * VkDeviceMemory per page, from the backend the memory's sharing chose.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/dmabuf_name.h"
#include "base/error.h"
#include "base/pool.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/backend.h"
#include "memory/memory.h"

#define FLAG_MASK                                                                             \
	(LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT | \
	 LLMEM_MEMORY_HOST_CACHED)

struct llmem_session *llmem_memory_session(const struct llmem_memory *m)
{
	return m->session;
}

static void page_to_backing(const struct llmem_page *p, struct llmem_page_backing *b)
{
	*b = (struct llmem_page_backing){
		.vk = p->vk,
		.fd = p->fd,
		.host_ptr = p->host_ptr,
		.host_len = p->host_len,
	};
}

static int shared_page_create(struct llmem_memory *m, uint32_t index, uint64_t size)
{
	struct llmem_page *p = &m->pages[index];
	struct llmem_page_backing b;
	int ret;

	if (m->sharing == LLMEM_SHARING_IMPORT && m->import_fd < 0 && !m->import_ptr)
		return llmem_error(
			-ENOMEM,
			"memory '%s' has no imported page with room; it takes pages only "
			"from llmem_memory_import_dmabuf()",
			m->name);
	if (m->sharing == LLMEM_SHARING_IMPORT && m->import_ptr)
		ret = llmem_backend_page_import_host(m->session, m->type_index, m->import_ptr, size,
						     &b);
	else if (m->sharing == LLMEM_SHARING_IMPORT)
		ret = llmem_backend_page_import(m->session, m->backend, m->type_index, m->import_fd,
						size, &b);
	else
		ret = llmem_backend_page_alloc(m->session, m->backend, m->type_index, size,
					       m->options & LLMEM_MEMORY_CONTIGUOUS, &b);
	if (ret)
		return ret;
	if (b.fd >= 0 && m->sharing != LLMEM_SHARING_IMPORT)
		llmem_dmabuf_name(b.fd, m->name);
	p->vk = b.vk;
	p->fd = b.fd;
	p->host_ptr = b.host_ptr;
	p->host_len = b.host_len;
	p->size = size;
	m->page_failed = false;
	return 0;
}

static int page_create(void *user, uint32_t index, uint64_t size)
{
	struct llmem_memory *m = user;
	VkMemoryAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = size,
		.memoryTypeIndex = m->type_index,
	};
	VkResult r;
	int ret;

	m->page_failed = true;
	ret = llmem_memory_check_size(m, "a page", size);
	if (ret)
		return ret;
	if (index >= m->pages_cap) {
		uint32_t cap = index + 8;
		struct llmem_page *p = realloc(m->pages, cap * sizeof(*p));

		if (!p)
			return llmem_error(-ENOMEM, "memory '%s': out of memory", m->name);
		memset(p + m->pages_cap, 0, (cap - m->pages_cap) * sizeof(*p));
		m->pages = p;
		m->pages_cap = cap;
	}
	if (m->sharing != LLMEM_SHARING_NONE)
		return shared_page_create(m, index, size);
	r = vkAllocateMemory(m->session->device, &ai, NULL, &m->pages[index].vk);
	if (r != VK_SUCCESS)
		return llmem_error(
			r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
				? -ENOMEM
				: -EIO,
			"memory '%s': vkAllocateMemory of %llu bytes for page %u: %s", m->name,
			(unsigned long long)size, index, llmem_vk_result_name(r));
	m->pages[index].size = size;
	m->page_failed = false;
	return 0;
}

static void page_destroy(void *user, uint32_t index)
{
	struct llmem_memory *m = user;
	struct llmem_page *p = &m->pages[index];

	if (p->map)
		vkUnmapMemory(m->session->device, p->vk);
	if (m->sharing != LLMEM_SHARING_NONE) {
		struct llmem_page_backing b;

		page_to_backing(p, &b);
		llmem_backend_page_free(m->session, &b);
	} else {
		vkFreeMemory(m->session->device, p->vk, NULL);
	}
	memset(p, 0, sizeof(*p));
}

uint64_t llmem_memory_type_limit(const struct llmem_session *s, uint32_t type, bool *heap)
{
	uint32_t h = s->mem_props.memoryTypes[type].heapIndex;
	uint64_t heap_size = s->mem_props.memoryHeaps[h].size;
	uint64_t max = s->max_allocation_size;

	*heap = !max || heap_size <= max;
	return *heap ? heap_size : max;
}

int llmem_memory_check_size(const struct llmem_memory *m, const char *what, uint64_t size)
{
	if (size <= m->max_allocation)
		return 0;
	return llmem_error(-ENOMEM,
			   "memory '%s': %s of %llu bytes is above %llu, the most one allocation "
			   "of memory type %u may hold (%s)",
			   m->name, what, (unsigned long long)size,
			   (unsigned long long)m->max_allocation, m->type_index,
			   m->limit_is_heap ? "the size of its heap" : "maxMemoryAllocationSize");
}

/*
 * The type with the fewest flags beyond those asked for whose one
 * allocation may hold @page_size bytes; ties to the lower index.  -1 when
 * no type has the flags, -2 when those that have them are all too small,
 * @largest then the most any of them holds and @heap whether a heap's size
 * set it.
 */
static int choose_type(const struct llmem_session *s, uint32_t want, bool exact, uint64_t page_size,
		       uint64_t *largest, bool *largest_heap)
{
	const VkMemoryPropertyFlags unusable =
		VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
	int best = -1, best_extra = 33;

	*largest = 0;
	for (uint32_t i = 0; i < s->mem_props.memoryTypeCount; i++) {
		uint32_t f = s->mem_props.memoryTypes[i].propertyFlags;
		int extra = __builtin_popcount((f & FLAG_MASK) & ~want);
		uint64_t limit;
		bool heap;

		if (f & unusable)
			continue;
		if ((f & want) != want || (exact && extra))
			continue;
		limit = llmem_memory_type_limit(s, i, &heap);
		if (limit > *largest) {
			*largest = limit;
			*largest_heap = heap;
		}
		if (limit < page_size)
			continue;
		if (extra < best_extra) {
			best = (int)i;
			best_extra = extra;
		}
	}
	return best < 0 && *largest ? -2 : best;
}

LLMEM_PUBLIC int llmem_memory_create(struct llmem_session *s,
				     const struct llmem_memory_create_info *info,
				     struct llmem_memory **out)
{
	static const struct llmem_memory_create_info defaults;
	const struct llmem_memory_create_info *ci = info ? info : &defaults;
	uint32_t want = ci->flags ? ci->flags : LLMEM_MEMORY_DEVICE_LOCAL;
	bool contiguous = ci->options & LLMEM_MEMORY_CONTIGUOUS;
	uint64_t page_size = ci->page_size ? ci->page_size
			     : contiguous  ? LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE
					   : LLMEM_MEMORY_DEFAULT_PAGE_SIZE;
	uint32_t backend = LLMEM_BACKEND_VULKAN;
	struct llmem_memory *m;
	bool largest_heap = false;
	uint64_t largest;
	int type, ret;

	if (!s || !out)
		return llmem_error(-EINVAL, "memory: NULL %s", s ? "out" : "session");
	*out = NULL;
	if (want & ~FLAG_MASK)
		return llmem_error(-EINVAL, "memory: unknown flags 0x%x", want & ~FLAG_MASK);
	if (ci->options & ~(uint32_t)(LLMEM_MEMORY_EXACT_MATCH | LLMEM_MEMORY_CONTIGUOUS))
		return llmem_error(-EINVAL, "memory: unknown options 0x%x", ci->options);
	if (page_size % 4096)
		return llmem_error(-EINVAL, "memory: page size %llu is not a multiple of 4096",
				   (unsigned long long)page_size);
	if (ci->sharing > LLMEM_SHARING_OPAQUE_FD)
		return llmem_error(-EINVAL, "memory: unknown sharing %u", ci->sharing);
	if (ci->backend > LLMEM_BACKEND_VULKAN_OPAQUE_FD ||
	    (ci->backend && ci->sharing == LLMEM_SHARING_NONE))
		return llmem_error(-EINVAL, "memory: backend %u with sharing %u", ci->backend,
				   ci->sharing);
	if (contiguous && page_size > LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE)
		return llmem_error(-EINVAL,
				   "memory: page size %llu is above %llu, the largest contiguous "
				   "page",
				   (unsigned long long)page_size,
				   (unsigned long long)LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE);
	if (contiguous && (ci->sharing != LLMEM_SHARING_DMABUF ||
			   (ci->backend && ci->backend != LLMEM_BACKEND_LLMEM_DMABUF &&
			    ci->backend != LLMEM_BACKEND_LLMEM_HOST_POINTER)))
		return llmem_error(-EINVAL,
				   "memory: contiguous pages need sharing DMA-BUF and come only "
				   "from llmem.ko");
	type = choose_type(s, want, ci->options & LLMEM_MEMORY_EXACT_MATCH, page_size, &largest,
			   &largest_heap);
	if (type == -2)
		return llmem_error(
			-EINVAL,
			"memory: page size %llu is above %llu, the most one allocation of "
			"a memory type with flags 0x%x may hold (%s)",
			(unsigned long long)page_size, (unsigned long long)largest, want,
			largest_heap ? "the size of its heap" : "maxMemoryAllocationSize");
	if (type < 0)
		return llmem_error(-ENOTSUP, "memory: no memory type has %sflags 0x%x",
				   ci->options & LLMEM_MEMORY_EXACT_MATCH ? "exactly the " : "",
				   want);
	if (ci->sharing == LLMEM_SHARING_DMABUF) {
		ret = llmem_backend_choose(s, (uint32_t)type, ci->backend, contiguous, &backend);
		if (ret)
			return ret;
	} else if (ci->sharing == LLMEM_SHARING_IMPORT) {
		ret = llmem_backend_choose_import(s, ci->backend, &backend);
		if (ret)
			return ret;
	} else if (ci->sharing == LLMEM_SHARING_OPAQUE_FD) {
		ret = llmem_backend_choose_opaque_fd(s, (uint32_t)type, ci->backend, &backend);
		if (ret)
			return ret;
	}

	m = calloc(1, sizeof(*m));
	if (!m)
		return llmem_error(-ENOMEM, "memory: out of memory");
	m->session = s;
	m->type_index = (uint32_t)type;
	m->flags = s->mem_props.memoryTypes[type].propertyFlags;
	m->page_size = page_size;
	m->max_allocation = llmem_memory_type_limit(s, (uint32_t)type, &m->limit_is_heap);
	m->sharing = ci->sharing;
	m->backend = backend;
	m->options = ci->options;
	m->import_fd = -1;
	snprintf(m->name, sizeof(m->name), "%s", ci->name ? ci->name : "memory");
	pthread_mutex_init(&m->lock, NULL);

	struct llmem_pool_create_info pci = {
		.page_size = page_size,
		.granularity = s->props.limits.bufferImageGranularity,
		.spare_pages = ci->spare_pages,
		.page_create = page_create,
		.page_destroy = page_destroy,
		.user = m,
	};
	ret = llmem_pool_create(&pci, &m->pool);
	if (ret) {
		pthread_mutex_destroy(&m->lock);
		free(m);
		return ret;
	}
	atomic_fetch_add(&s->memories, 1);
	*out = m;
	return 0;
}

LLMEM_PUBLIC int llmem_memory_destroy(struct llmem_memory *m)
{
	if (!m)
		return 0;
	pthread_mutex_lock(&m->lock);
	if (m->object_count) {
		char list[400] = "";
		size_t len = 0;

		for (struct llmem_object *o = m->first; o && len < sizeof(list); o = o->next) {
			int n = snprintf(list + len, sizeof(list) - len, "%s %s #%llu%s%s%s",
					 o == m->first ? "" : ",", llmem_object_kind_name(o->kind),
					 (unsigned long long)o->id, o->name[0] ? " '" : "", o->name,
					 o->name[0] ? "'" : "");
			if (n < 0)
				break;
			len += (size_t)n;
		}
		pthread_mutex_unlock(&m->lock);
		return llmem_error(-EBUSY, "memory '%s' has %u live objects:%s", m->name,
				   m->object_count, list);
	}
	pthread_mutex_unlock(&m->lock);
	llmem_pool_destroy(m->pool);
	atomic_fetch_sub(&m->session->memories, 1);
	pthread_mutex_destroy(&m->lock);
	free(m->pages);
	free(m);
	return 0;
}

LLMEM_PUBLIC int llmem_memory_get_info(struct llmem_memory *m, struct llmem_memory_info *info)
{
	struct llmem_pool_stats st;

	if (!m || !info)
		return llmem_error(-EINVAL, "memory info: NULL argument");
	memset(info, 0, sizeof(*info));
	pthread_mutex_lock(&m->lock);
	llmem_pool_stats(m->pool, &st);
	info->flags = m->flags;
	info->memory_type_index = m->type_index;
	info->page_size = m->page_size;
	info->page_count = st.pages;
	info->bytes_reserved = st.bytes;
	info->bytes_in_use = st.used_bytes;
	info->object_count = m->object_count;
	info->mappable = !!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	info->sharing = m->sharing;
	info->backend = m->backend;
	info->coherent = !!(m->flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (info->mappable && !info->coherent)
		info->non_coherent_atom_size = m->session->props.limits.nonCoherentAtomSize;
	info->options = m->options;
	info->max_allocation_size = m->max_allocation;
	for (uint32_t i = 0; i < m->pages_cap; i++)
		info->mapped_pages += m->pages[i].map != NULL;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

LLMEM_PUBLIC int llmem_memory_page_mappable(struct llmem_memory *m, uint32_t page)
{
	int ret;

	if (!m)
		return llmem_error(-EINVAL, "memory: NULL");
	pthread_mutex_lock(&m->lock);
	if (page >= m->pages_cap || !m->pages[page].vk)
		ret = llmem_error(-ENOENT, "memory '%s': no page %u", m->name, page);
	else
		ret = !!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

LLMEM_PUBLIC uint32_t llmem_memory_page_limit(struct llmem_memory *m)
{
	uint32_t n;

	if (!m)
		return 0;
	pthread_mutex_lock(&m->lock);
	n = llmem_pool_page_limit(m->pool);
	pthread_mutex_unlock(&m->lock);
	return n;
}

uint64_t llmem_memory_page_size(struct llmem_memory *m, uint32_t page)
{
	uint64_t size;

	pthread_mutex_lock(&m->lock);
	size = m->pages[page].size;
	pthread_mutex_unlock(&m->lock);
	return size;
}

VkExternalMemoryHandleTypeFlags llmem_memory_handle_types(const struct llmem_memory *m)
{
	return m->sharing == LLMEM_SHARING_NONE ? 0 : llmem_backend_handle_type(m->backend);
}

/* Vulkan-exported pages get their fd on first need and keep it. */
static int page_fd_locked(struct llmem_memory *m, struct llmem_page *p, int *fd)
{
	struct llmem_page_backing b;
	int ret;

	if (p->fd < 0) {
		page_to_backing(p, &b);
		ret = llmem_backend_page_export(m->session, m->backend, &b, &p->fd);
		if (ret)
			return ret;
		if (m->backend == LLMEM_BACKEND_VULKAN_DMABUF)
			llmem_dmabuf_name(p->fd, m->name);
	}
	*fd = p->fd;
	return 0;
}

int llmem_memory_page_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	struct llmem_page *p;
	int ret;

	if (m->sharing == LLMEM_SHARING_NONE)
		return llmem_error(-ENOTSUP, "memory '%s' is not shared", m->name);
	pthread_mutex_lock(&m->lock);
	p = llmem_memory_live_page(m, page);
	ret = p ? page_fd_locked(m, p, fd)
		: llmem_error(-EINVAL, "memory '%s': no page %u", m->name, page);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

int llmem_memory_page_opaque_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	struct llmem_page_backing b;
	struct llmem_page *p;
	int ret;

	pthread_mutex_lock(&m->lock);
	p = llmem_memory_live_page(m, page);
	if (p) {
		page_to_backing(p, &b);
		ret = llmem_backend_page_export_opaque_fd(m->session, m->backend, &b, fd);
	} else {
		ret = llmem_error(-EINVAL, "export opaque fd: memory '%s' has no page %u", m->name,
				  page);
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

int llmem_memory_adopt_page(struct llmem_memory *m, int fd, void *ptr, uint64_t size,
			    uint32_t *page)
{
	int ret;

	pthread_mutex_lock(&m->lock);
	m->import_fd = fd;
	m->import_ptr = ptr;
	ret = llmem_pool_add_page(m->pool, size, page);
	m->import_fd = -1;
	m->import_ptr = NULL;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

void llmem_memory_drop_page(struct llmem_memory *m, uint32_t page)
{
	pthread_mutex_lock(&m->lock);
	llmem_pool_remove_page(m->pool, page);
	pthread_mutex_unlock(&m->lock);
}
