// SPDX-License-Identifier: MIT
/*
 * Objects in a memory: placing a buffer's or image's range in a page,
 * binding it, listing it, and mapping it through its page's one mapping.
 */
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "device/session.h"
#include "memory/memory.h"

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
		return llmem_error(-ENOTSUP,
				   "memory '%s': type %u cannot hold this %s (allowed types 0x%x)",
				   m->name, m->type_index, llmem_object_kind_name(obj->kind),
				   req->memoryTypeBits);
	/* A larger object gets a page of its own, which must be allocatable too. */
	ret = llmem_memory_check_size(m, obj->kind == LLMEM_OBJECT_IMAGE ? "an image" : "a buffer",
				      req->size);
	if (ret)
		return ret;
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

void llmem_memory_release(struct llmem_memory *m, struct llmem_object *obj)
{
	pthread_mutex_lock(&m->lock);
	for (; obj->map_count; obj->map_count--)
		llmem_memory_page_unmap_locked(m, obj->alloc.page);
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

int llmem_memory_map(struct llmem_memory *m, struct llmem_object *obj, void **ptr)
{
	void *page;
	int ret;

	ret = llmem_memory_check_mappable(m);
	if (ret)
		return ret;
	pthread_mutex_lock(&m->lock);
	ret = llmem_memory_page_map_locked(m, obj->alloc.page, &page);
	if (!ret) {
		obj->map_count++;
		*ptr = (char *)page + obj->alloc.offset;
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static int not_mapped(const struct llmem_object *obj)
{
	return llmem_error(-EINVAL, "%s #%llu is not mapped", llmem_object_kind_name(obj->kind),
			   (unsigned long long)obj->id);
}

int llmem_memory_unmap(struct llmem_memory *m, struct llmem_object *obj)
{
	int ret = 0;

	pthread_mutex_lock(&m->lock);
	if (obj->map_count) {
		obj->map_count--;
		llmem_memory_page_unmap_locked(m, obj->alloc.page);
	} else {
		ret = not_mapped(obj);
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

int llmem_memory_sync(struct llmem_memory *m, struct llmem_object *obj, uint64_t offset,
		      uint64_t size, bool flush)
{
	int ret;

	if (size == LLMEM_WHOLE_SIZE && offset <= obj->alloc.size)
		size = obj->alloc.size - offset;
	if (offset > obj->alloc.size || size > obj->alloc.size - offset)
		return llmem_error(-EINVAL,
				   "%s #%llu: range [%llu, +%llu) lies outside its %llu bytes",
				   llmem_object_kind_name(obj->kind), (unsigned long long)obj->id,
				   (unsigned long long)offset, (unsigned long long)size,
				   (unsigned long long)obj->alloc.size);
	pthread_mutex_lock(&m->lock);
	if (obj->map_count)
		ret = llmem_memory_page_sync_locked(m, obj->alloc.page, obj->alloc.offset + offset,
						    size, flush);
	else
		ret = not_mapped(obj);
	pthread_mutex_unlock(&m->lock);
	return ret;
}
