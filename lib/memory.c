// SPDX-License-Identifier: MIT
/*
 * Memories: a memory type, a pool of pages laid out by pool.c, one
 * VkDeviceMemory per page, shared mappings, and the list of live objects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "error.h"
#include "memory_internal.h"
#include "pool.h"
#include "session_internal.h"

#define FLAG_MASK                                                                             \
	(LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT | \
	 LLMEM_MEMORY_HOST_CACHED)

struct llmem_page {
	VkDeviceMemory vk;
	uint64_t size;
	void *map;
	uint32_t map_count;
	/* Shared pages: see struct llmem_page_backing. */
	int fd;
	void *host_ptr;
	uint64_t host_len;
	/* llmem_memory_map_page() calls not yet unmapped. */
	uint32_t raw_maps;
};

struct llmem_memory {
	struct llmem_session *session;
	pthread_mutex_t lock;
	struct llmem_pool *pool;
	char name[64];
	uint32_t type_index;
	uint32_t flags;
	uint64_t page_size;
	/* Set by page_create on failure: its message is the one to keep. */
	bool page_failed;

	uint32_t sharing;
	uint32_t backend;
	uint32_t options;
	/* The DMA-BUF llmem_memory_import_dmabuf() is turning into a page. */
	int import_fd;
	/* The host memory llmem_memory_import_host() is turning into a page. */
	void *import_ptr;

	/* Indexed by the pool's page index; vk is NULL where no page lives. */
	struct llmem_page *pages;
	uint32_t pages_cap;

	struct llmem_object *first, *last;
	uint32_t object_count;
	uint64_t next_id;
};

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
		ret = llmem_share_page_import_host(m->session, m->type_index, m->import_ptr, size,
						   &b);
	else if (m->sharing == LLMEM_SHARING_IMPORT)
		ret = llmem_share_page_import(m->session, m->backend, m->type_index, m->import_fd,
					      size, &b);
	else
		ret = llmem_share_page_alloc(m->session, m->backend, m->type_index, size,
					     m->options & LLMEM_MEMORY_CONTIGUOUS, &b);
	if (ret)
		return ret;
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

	m->page_failed = true;
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
		llmem_share_page_free(m->session, &b);
	} else {
		vkFreeMemory(m->session->device, p->vk, NULL);
	}
	memset(p, 0, sizeof(*p));
}

/* The type with the fewest flags beyond those asked for; ties to the lower index. */
static int choose_type(const struct llmem_session *s, uint32_t want, bool exact)
{
	const VkMemoryPropertyFlags unusable =
		VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT;
	int best = -1, best_extra = 33;

	for (uint32_t i = 0; i < s->mem_props.memoryTypeCount; i++) {
		uint32_t f = s->mem_props.memoryTypes[i].propertyFlags;
		int extra = __builtin_popcount((f & FLAG_MASK) & ~want);

		if (f & unusable)
			continue;
		if ((f & want) != want || (exact && extra))
			continue;
		if (extra < best_extra) {
			best = (int)i;
			best_extra = extra;
		}
	}
	return best;
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
	type = choose_type(s, want, ci->options & LLMEM_MEMORY_EXACT_MATCH);
	if (type < 0)
		return llmem_error(-ENOTSUP, "memory: no memory type has %sflags 0x%x",
				   ci->options & LLMEM_MEMORY_EXACT_MATCH ? "exactly the " : "",
				   want);
	if (ci->sharing == LLMEM_SHARING_DMABUF) {
		ret = llmem_share_choose(s, (uint32_t)type, ci->backend, contiguous, &backend);
		if (ret)
			return ret;
	} else if (ci->sharing == LLMEM_SHARING_IMPORT) {
		ret = llmem_share_choose_import(s, ci->backend, &backend);
		if (ret)
			return ret;
	} else if (ci->sharing == LLMEM_SHARING_OPAQUE_FD) {
		ret = llmem_share_choose_opaque_fd(s, (uint32_t)type, ci->backend, &backend);
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

static const char *kind_name(uint32_t kind)
{
	return kind == LLMEM_OBJECT_IMAGE ? "image" : "buffer";
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
					 o == m->first ? "" : ",", kind_name(o->kind),
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

LLMEM_PUBLIC int llmem_memory_list_objects(struct llmem_memory *m,
					   struct llmem_object_info *objects, size_t capacity)
{
	size_t i = 0;
	int n;

	if (!m || (!objects && capacity))
		return llmem_error(-EINVAL, "memory objects: NULL argument");
	pthread_mutex_lock(&m->lock);
	for (struct llmem_object *o = m->first; o && i < capacity; o = o->next, i++) {
		objects[i].kind = o->kind;
		objects[i].id = o->id;
		memcpy(objects[i].name, o->name, sizeof(objects[i].name));
		objects[i].allocation = o->alloc;
	}
	n = (int)m->object_count;
	pthread_mutex_unlock(&m->lock);
	return n;
}

static void list_add(struct llmem_memory *m, struct llmem_object *obj)
{
	obj->memory = m;
	obj->id = m->next_id++;
	obj->prev = m->last;
	obj->next = NULL;
	if (m->last)
		m->last->next = obj;
	else
		m->first = obj;
	m->last = obj;
	m->object_count++;
}

int llmem_memory_place(struct llmem_memory *m, struct llmem_object *obj,
		       const VkMemoryRequirements *req, bool optimal, VkDeviceMemory *page_memory)
{
	struct llmem_pool_alloc_info ai;
	int ret;

	if (!(req->memoryTypeBits & (1u << m->type_index)))
		return llmem_error(
			-ENOTSUP, "memory '%s': type %u cannot hold this %s (allowed types 0x%x)",
			m->name, m->type_index, kind_name(obj->kind), req->memoryTypeBits);
	pthread_mutex_lock(&m->lock);
	m->page_failed = false;
	ret = llmem_pool_alloc(m->pool, req->size, req->alignment,
			       optimal ? LLMEM_BLOCK_OPTIMAL : LLMEM_BLOCK_LINEAR, &ai,
			       &obj->handle);
	if (ret) {
		pthread_mutex_unlock(&m->lock);
		if (!m->page_failed)
			llmem_error(ret, "memory '%s': no room for %llu bytes", m->name,
				    (unsigned long long)req->size);
		return ret;
	}
	obj->alloc.page = ai.page;
	obj->alloc.offset = ai.offset;
	obj->alloc.left_padding = ai.left_padding;
	obj->alloc.size = ai.size;
	*page_memory = m->pages[ai.page].vk;
	list_add(m, obj);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

void llmem_memory_attach(struct llmem_memory *m, struct llmem_object *obj)
{
	pthread_mutex_lock(&m->lock);
	list_add(m, obj);
	pthread_mutex_unlock(&m->lock);
}

static void unmap_locked(struct llmem_memory *m, struct llmem_object *obj)
{
	struct llmem_page *p = &m->pages[obj->alloc.page];

	obj->map_count--;
	if (--p->map_count == 0) {
		vkUnmapMemory(m->session->device, p->vk);
		p->map = NULL;
	}
}

void llmem_memory_release(struct llmem_memory *m, struct llmem_object *obj)
{
	pthread_mutex_lock(&m->lock);
	while (obj->map_count)
		unmap_locked(m, obj);
	if (obj->prev)
		obj->prev->next = obj->next;
	else
		m->first = obj->next;
	if (obj->next)
		obj->next->prev = obj->prev;
	else
		m->last = obj->prev;
	m->object_count--;
	if (obj->handle)
		llmem_pool_free(m->pool, obj->handle);
	pthread_mutex_unlock(&m->lock);
}

uint64_t llmem_memory_page_size(struct llmem_memory *m, uint32_t page)
{
	uint64_t size;

	pthread_mutex_lock(&m->lock);
	size = m->pages[page].size;
	pthread_mutex_unlock(&m->lock);
	return size;
}

int llmem_memory_map(struct llmem_memory *m, struct llmem_object *obj, void **ptr)
{
	struct llmem_page *p;
	VkResult r;

	if (!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return llmem_error(-EPERM, "memory '%s' is not host visible: it cannot be mapped",
				   m->name);
	pthread_mutex_lock(&m->lock);
	p = &m->pages[obj->alloc.page];
	if (!p->map) {
		r = vkMapMemory(m->session->device, p->vk, 0, VK_WHOLE_SIZE, 0, &p->map);
		if (r != VK_SUCCESS) {
			p->map = NULL;
			pthread_mutex_unlock(&m->lock);
			return llmem_error(-EIO, "memory '%s': vkMapMemory of page %u: %s", m->name,
					   obj->alloc.page, llmem_vk_result_name(r));
		}
	}
	p->map_count++;
	obj->map_count++;
	*ptr = (char *)p->map + obj->alloc.offset;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int llmem_memory_unmap(struct llmem_memory *m, struct llmem_object *obj)
{
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (obj->map_count)
		unmap_locked(m, obj);
	else
		ret = llmem_error(-EINVAL, "%s #%llu is not mapped", kind_name(obj->kind),
				  (unsigned long long)obj->id);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

int llmem_memory_sync(struct llmem_memory *m, struct llmem_object *obj, uint64_t offset,
		      uint64_t size, bool flush)
{
	uint64_t atom = m->session->props.limits.nonCoherentAtomSize;
	uint64_t start, end, page_size;
	VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };
	VkResult r = VK_SUCCESS;
	int ret = 0;

	if (size == LLMEM_WHOLE_SIZE && offset <= obj->alloc.size)
		size = obj->alloc.size - offset;
	if (offset > obj->alloc.size || size > obj->alloc.size - offset)
		return llmem_error(-EINVAL,
				   "%s #%llu: range [%llu, +%llu) lies outside its %llu bytes",
				   kind_name(obj->kind), (unsigned long long)obj->id,
				   (unsigned long long)offset, (unsigned long long)size,
				   (unsigned long long)obj->alloc.size);
	pthread_mutex_lock(&m->lock);
	if (!obj->map_count) {
		ret = llmem_error(-EINVAL, "%s #%llu is not mapped", kind_name(obj->kind),
				  (unsigned long long)obj->id);
		goto out_unlock;
	}
	/*
	 * Coherent memory needs no flush, but Vulkan allows one; doing it
	 * anyway lets the validation layer check the rounding on every device.
	 */
	if (size == 0)
		goto out_unlock;
	/* Widen to whole atoms, but never past the page: its end is always valid. */
	page_size = m->pages[obj->alloc.page].size;
	start = (obj->alloc.offset + offset) / atom * atom;
	end = (obj->alloc.offset + offset + size + atom - 1) / atom * atom;
	if (end > page_size)
		end = page_size;
	range.memory = m->pages[obj->alloc.page].vk;
	range.offset = start;
	range.size = end - start;
	if (flush)
		r = vkFlushMappedMemoryRanges(m->session->device, 1, &range);
	else
		r = vkInvalidateMappedMemoryRanges(m->session->device, 1, &range);
	if (r != VK_SUCCESS)
		ret = llmem_error(-EIO, "%s: %s",
				  flush ? "vkFlushMappedMemoryRanges"
					: "vkInvalidateMappedMemoryRanges",
				  llmem_vk_result_name(r));
out_unlock:
	pthread_mutex_unlock(&m->lock);
	return ret;
}

VkExternalMemoryHandleTypeFlags llmem_memory_handle_types(const struct llmem_memory *m)
{
	return m->sharing == LLMEM_SHARING_NONE ? 0 : llmem_share_handle_type(m->backend);
}

static struct llmem_page *live_page(struct llmem_memory *m, uint32_t page)
{
	return page < m->pages_cap && m->pages[page].vk ? &m->pages[page] : NULL;
}

/* Vulkan-exported pages get their fd on first need and keep it. */
static int page_fd_locked(struct llmem_memory *m, struct llmem_page *p, int *fd)
{
	struct llmem_page_backing b;
	int ret;

	if (p->fd < 0) {
		page_to_backing(p, &b);
		ret = llmem_share_page_export(m->session, m->backend, &b, &p->fd);
		if (ret)
			return ret;
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
	p = live_page(m, page);
	ret = p ? page_fd_locked(m, p, fd)
		: llmem_error(-EINVAL, "memory '%s': no page %u", m->name, page);
	pthread_mutex_unlock(&m->lock);
	return ret;
}

LLMEM_PUBLIC int llmem_memory_export_page(struct llmem_memory *m, uint32_t page, int *fd)
{
	int own, ret;

	if (!m || !fd)
		return llmem_error(-EINVAL, "export page: NULL argument");
	ret = llmem_memory_page_fd(m, page, &own);
	if (ret)
		return ret;
	*fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
	if (*fd < 0)
		return llmem_error(-errno, "export page: dup: %s", strerror(errno));
	return 0;
}

LLMEM_PUBLIC int llmem_memory_import_dmabuf(struct llmem_memory *m, int fd, uint64_t size,
					    uint32_t *page)
{
	off_t end;
	int ret;

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
	pthread_mutex_lock(&m->lock);
	m->import_fd = fd;
	ret = llmem_pool_add_page(m->pool, size, page);
	m->import_fd = -1;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

VkResult llmem_memory_bind(struct llmem_memory *m, uint32_t page, uint64_t offset, VkBuffer buffer,
			   VkImage image)
{
	VkDevice dev = m->session->device;
	VkResult r;

	pthread_mutex_lock(&m->lock);
	if (buffer)
		r = vkBindBufferMemory(dev, buffer, m->pages[page].vk, offset);
	else
		r = vkBindImageMemory(dev, image, m->pages[page].vk, offset);
	pthread_mutex_unlock(&m->lock);
	return r;
}

LLMEM_PUBLIC int llmem_memory_get_page_stats(struct llmem_memory *m, uint32_t page,
					     struct llmem_page_stats *stats)
{
	struct llmem_block_stats bs;
	struct llmem_pool_stats ps;
	int ret = 0;

	if (!m || !stats)
		return llmem_error(-EINVAL, "memory page stats: NULL argument");
	memset(stats, 0, sizeof(*stats));
	pthread_mutex_lock(&m->lock);
	if (page == LLMEM_ALL_PAGES) {
		llmem_pool_stats(m->pool, &ps);
		stats->pages = ps.pages;
		stats->dedicated_pages = ps.dedicated_pages;
		stats->bytes = ps.bytes;
		stats->used_bytes = ps.used_bytes;
		stats->free_bytes = ps.free_bytes;
		stats->free_ranges = ps.free_ranges;
		stats->largest_free = ps.largest_free;
		stats->objects = ps.allocations;
	} else if (llmem_pool_page_stats(m->pool, page, &bs)) {
		ret = llmem_error(-ENOENT, "memory '%s': no page %u", m->name, page);
	} else {
		stats->pages = 1;
		stats->dedicated_pages = llmem_pool_page_dedicated(m->pool, page) == 1;
		stats->bytes = bs.size;
		stats->used_bytes = bs.used_bytes;
		stats->free_bytes = bs.free_bytes;
		stats->free_ranges = bs.free_ranges;
		stats->largest_free = bs.largest_free;
		stats->objects = bs.allocations;
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

LLMEM_PUBLIC int llmem_memory_dump_json(struct llmem_memory *m, FILE *out)
{
	int ret;

	if (!m || !out)
		return llmem_error(-EINVAL, "memory dump: NULL argument");
	pthread_mutex_lock(&m->lock);
	fprintf(out, "{\"name\": ");
	json_string(out, m->name);
	fprintf(out, ", \"memory_type_index\": %u, \"flags\": %u, \"pool\": ", m->type_index,
		m->flags);
	ret = llmem_pool_dump_json(m->pool, out);
	fprintf(out, ", \"objects\": [");
	for (struct llmem_object *o = m->first; o; o = o->next) {
		fprintf(out, "%s\n  {\"kind\": \"%s\", \"id\": %llu, \"name\": ",
			o == m->first ? "" : ",", kind_name(o->kind), (unsigned long long)o->id);
		json_string(out, o->name);
		fprintf(out,
			", \"page\": %u, \"offset\": %llu, \"left_padding\": %llu, "
			"\"size\": %llu}",
			o->alloc.page, (unsigned long long)o->alloc.offset,
			(unsigned long long)o->alloc.left_padding,
			(unsigned long long)o->alloc.size);
	}
	fprintf(out, "]}\n");
	pthread_mutex_unlock(&m->lock);
	if (ret || ferror(out))
		return llmem_error(-EIO, "memory '%s': writing the JSON dump failed", m->name);
	return 0;
}

/*
 * Raw pages (vkgdr's raw memory) and wrapped host memory: pages used
 * without, or before, any object.
 */
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
	struct llmem_page *p;
	VkResult r;
	int ret = 0;

	if (!m || !ptr)
		return llmem_error(-EINVAL, "map page: NULL argument");
	if (!(m->flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		return llmem_error(-EPERM, "memory '%s' is not host visible: it cannot be mapped",
				   m->name);
	pthread_mutex_lock(&m->lock);
	p = live_page(m, page);
	if (!p) {
		ret = llmem_error(-EINVAL, "map page: memory '%s' has no page %u", m->name, page);
		goto out_unlock;
	}
	if (!p->map) {
		r = vkMapMemory(m->session->device, p->vk, 0, VK_WHOLE_SIZE, 0, &p->map);
		if (r != VK_SUCCESS) {
			p->map = NULL;
			ret = llmem_error(-EIO, "memory '%s': vkMapMemory of page %u: %s", m->name,
					  page, llmem_vk_result_name(r));
			goto out_unlock;
		}
	}
	p->map_count++;
	p->raw_maps++;
	*ptr = p->map;
out_unlock:
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
	p = live_page(m, page);
	if (!p || !p->raw_maps) {
		ret = llmem_error(-EINVAL, "unmap page: page %u of memory '%s' is not mapped", page,
				  m->name);
	} else {
		p->raw_maps--;
		if (--p->map_count == 0) {
			vkUnmapMemory(m->session->device, p->vk);
			p->map = NULL;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int sync_page(struct llmem_memory *m, uint32_t page, uint64_t offset, uint64_t size,
		     bool flush)
{
	const char *what = flush ? "flush page" : "invalidate page";
	uint64_t atom = m->session->props.limits.nonCoherentAtomSize;
	VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE };
	struct llmem_page *p;
	VkResult r;
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	p = live_page(m, page);
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
	if (!size)
		goto out_unlock;
	/* Write-combined stores (the BAR) reach the device in order after this. */
	if (flush)
		atomic_thread_fence(memory_order_seq_cst);
	range.memory = p->vk;
	range.offset = offset / atom * atom;
	range.size = (offset + size + atom - 1) / atom * atom;
	if (range.size > p->size)
		range.size = p->size;
	range.size -= range.offset;
	if (flush)
		r = vkFlushMappedMemoryRanges(m->session->device, 1, &range);
	else
		r = vkInvalidateMappedMemoryRanges(m->session->device, 1, &range);
	if (r != VK_SUCCESS)
		ret = llmem_error(-EIO, "%s: %s", what, llmem_vk_result_name(r));
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

LLMEM_PUBLIC int llmem_memory_import_host(struct llmem_memory *m, void *ptr, uint64_t size,
					  uint32_t *page)
{
	uint64_t align;
	int ret;

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
	pthread_mutex_lock(&m->lock);
	m->import_ptr = ptr;
	ret = llmem_pool_add_page(m->pool, size, page);
	m->import_ptr = NULL;
	pthread_mutex_unlock(&m->lock);
	return ret;
}

LLMEM_PUBLIC int llmem_memory_export_page_opaque_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	struct llmem_page_backing b;
	struct llmem_page *p;
	int ret;

	if (!m || !fd)
		return llmem_error(-EINVAL, "export opaque fd: NULL argument");
	if (m->sharing != LLMEM_SHARING_OPAQUE_FD)
		return llmem_error(-ENOTSUP,
				   "export opaque fd: memory '%s' was not created with "
				   "LLMEM_SHARING_OPAQUE_FD",
				   m->name);
	pthread_mutex_lock(&m->lock);
	p = live_page(m, page);
	if (p) {
		page_to_backing(p, &b);
		ret = llmem_share_page_export_opaque_fd(m->session, m->backend, &b, fd);
	} else {
		ret = llmem_error(-EINVAL, "export opaque fd: memory '%s' has no page %u", m->name,
				  page);
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}
