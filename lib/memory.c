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
	/* The DMA-BUF llmem_memory_import_dmabuf() is turning into a page. */
	int import_fd;

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

	if (m->sharing == LLMEM_SHARING_IMPORT && m->import_fd < 0)
		return llmem_error(
			-ENOMEM,
			"memory '%s' has no imported page with room; it takes pages only "
			"from llmem_memory_import_dmabuf()",
			m->name);
	if (m->sharing == LLMEM_SHARING_IMPORT)
		ret = llmem_share_page_import(m->session, m->backend, m->type_index, m->import_fd,
					      size, &b);
	else
		ret = llmem_share_page_alloc(m->session, m->backend, m->type_index, size, &b);
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
	uint64_t page_size = ci->page_size ? ci->page_size : LLMEM_MEMORY_DEFAULT_PAGE_SIZE;
	uint32_t backend = LLMEM_BACKEND_VULKAN;
	struct llmem_memory *m;
	int type, ret;

	if (!s || !out)
		return llmem_error(-EINVAL, "memory: NULL %s", s ? "out" : "session");
	*out = NULL;
	if (want & ~FLAG_MASK)
		return llmem_error(-EINVAL, "memory: unknown flags 0x%x", want & ~FLAG_MASK);
	if (ci->options & ~(uint32_t)LLMEM_MEMORY_EXACT_MATCH)
		return llmem_error(-EINVAL, "memory: unknown options 0x%x", ci->options);
	if (page_size % 4096)
		return llmem_error(-EINVAL, "memory: page size %llu is not a multiple of 4096",
				   (unsigned long long)page_size);
	if (ci->sharing > LLMEM_SHARING_IMPORT)
		return llmem_error(-EINVAL, "memory: unknown sharing %u", ci->sharing);
	if (ci->backend > LLMEM_BACKEND_IMPORT_HOST_POINTER ||
	    (ci->backend && ci->sharing == LLMEM_SHARING_NONE))
		return llmem_error(-EINVAL, "memory: backend %u with sharing %u", ci->backend,
				   ci->sharing);
	type = choose_type(s, want, ci->options & LLMEM_MEMORY_EXACT_MATCH);
	if (type < 0)
		return llmem_error(-ENOTSUP, "memory: no memory type has %sflags 0x%x",
				   ci->options & LLMEM_MEMORY_EXACT_MATCH ? "exactly the " : "",
				   want);
	if (ci->sharing == LLMEM_SHARING_DMABUF) {
		ret = llmem_share_choose(s, (uint32_t)type, ci->backend, &backend);
		if (ret)
			return ret;
	} else if (ci->sharing == LLMEM_SHARING_IMPORT) {
		ret = llmem_share_choose_import(s, ci->backend, &backend);
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
