// SPDX-License-Identifier: MIT
/*
 * Buffers: a VkBuffer bound where the memory's pool placed it, or inside
 * another buffer's range.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/buffer.h>
#include <llmem/image.h>

#include "base/error.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/buffer.h"

#define USAGE_MASK 0x1ffu

static atomic_uint_fast64_t last_serial;

static struct llmem_buffer *buffer_alloc(const char *name)
{
	struct llmem_buffer *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->obj.kind = LLMEM_OBJECT_BUFFER;
	b->serial = atomic_fetch_add(&last_serial, 1) + 1;
	/* Unnamed stays "" from calloc: snprintf costs more than the rest. */
	if (name)
		snprintf(b->obj.name, sizeof(b->obj.name), "%s", name);
	atomic_init(&b->refs, 1);
	return b;
}

/* Buffers on shared pages declare the pages' external handle type. */
static int make_vk_buffer(struct llmem_memory *m, uint64_t size, uint32_t usage, VkBuffer *out)
{
	struct llmem_session *s = llmem_memory_session(m);
	VkExternalMemoryBufferCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = llmem_memory_handle_types(m),
	};
	VkBufferCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = external.handleTypes ? &external : NULL,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult r = vkCreateBuffer(s->device, &ci, NULL, out);

	if (r != VK_SUCCESS)
		return llmem_error(r == VK_ERROR_OUT_OF_HOST_MEMORY ? -ENOMEM : -EIO,
				   "vkCreateBuffer of %llu bytes: %s", (unsigned long long)size,
				   llmem_vk_result_name(r));
	return 0;
}

LLMEM_PUBLIC int llmem_buffer_create(struct llmem_memory *m,
				     const struct llmem_buffer_create_info *info,
				     struct llmem_buffer **out)
{
	struct llmem_session *s;
	struct llmem_buffer *b;
	VkMemoryRequirements req;
	VkDeviceMemory page;
	uint32_t usage;
	VkResult r;
	int ret;

	if (!m || !info || !out)
		return llmem_error(-EINVAL, "buffer create: NULL argument");
	*out = NULL;
	if (info->size == 0)
		return llmem_error(-EINVAL, "buffer: size is 0");
	usage = info->usage ? info->usage : LLMEM_BUFFER_DEFAULT_USAGE;
	if (usage & ~USAGE_MASK)
		return llmem_error(-EINVAL, "buffer: unknown usage bits 0x%x", usage & ~USAGE_MASK);
	if (info->alignment & (info->alignment - 1))
		return llmem_error(-EINVAL, "buffer: alignment %llu is not a power of two",
				   (unsigned long long)info->alignment);

	s = llmem_memory_session(m);
	if (info->size > s->max_buffer_size)
		return llmem_error(-ENOMEM, "buffer: %llu bytes is above maxBufferSize, %llu",
				   (unsigned long long)info->size,
				   (unsigned long long)s->max_buffer_size);
	ret = llmem_memory_check_size(m, "a buffer", info->size);
	if (ret)
		return ret;
	b = buffer_alloc(info->name);
	if (!b)
		return llmem_error(-ENOMEM, "buffer: out of memory");
	b->size = info->size;
	b->usage = usage;
	ret = make_vk_buffer(m, info->size, usage, &b->vk);
	if (ret)
		goto out_free;
	vkGetBufferMemoryRequirements(s->device, b->vk, &req);
	if (info->alignment > req.alignment)
		req.alignment = info->alignment;
	ret = llmem_memory_place(m, &b->obj, &req, false, &page);
	if (ret)
		goto out_destroy_buffer;
	r = llmem_memory_bind(m, b->obj.alloc.page, b->obj.alloc.offset, b->vk, VK_NULL_HANDLE);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkBindBufferMemory");
		goto out_release;
	}
	/* The pool records the size with the driver's rounding; callers see theirs. */
	b->obj.alloc.size = info->size;
	*out = b;
	return 0;

out_release:
	llmem_memory_release(m, &b->obj);
out_destroy_buffer:
	vkDestroyBuffer(s->device, b->vk, NULL);
out_free:
	free(b);
	return ret;
}

LLMEM_PUBLIC int llmem_buffer_create_from_host(struct llmem_memory *m,
					       const struct llmem_buffer_create_info *info,
					       const void *data, uint64_t size,
					       struct llmem_buffer **out)
{
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_memory_info mi;
	void *ptr;
	int ret;

	if (!m || !data || !out)
		return llmem_error(-EINVAL, "buffer from host: NULL argument");
	*out = NULL;
	if (info)
		ci = *info;
	if (ci.size && ci.size != size)
		return llmem_error(-EINVAL, "buffer from host: info size %llu, data size %llu",
				   (unsigned long long)ci.size, (unsigned long long)size);
	ci.size = size;
	if (!size)
		return llmem_error(-EINVAL, "buffer from host: size is 0");
	llmem_memory_get_info(m, &mi);
	if (!mi.mappable)
		return llmem_error(-EPERM, "buffer from host: the memory is not host visible");
	ret = llmem_buffer_create(m, &ci, out);
	if (ret)
		return ret;
	ret = llmem_buffer_map(*out, &ptr);
	if (ret)
		goto out_destroy;
	memcpy(ptr, data, size);
	ret = llmem_buffer_flush(*out, 0, LLMEM_WHOLE_SIZE);
	llmem_buffer_unmap(*out);
	if (ret)
		goto out_destroy;
	return 0;

out_destroy:
	llmem_buffer_destroy(*out);
	*out = NULL;
	return ret;
}

static int create_like(struct llmem_memory *m, uint64_t size, uint32_t usage,
		       const struct llmem_buffer_create_info *info, struct llmem_buffer **out)
{
	struct llmem_buffer_create_info ci = {
		.size = size,
		.usage = info && info->usage ? info->usage : usage,
		.name = info ? info->name : NULL,
		.alignment = info ? info->alignment : 0,
	};

	return llmem_buffer_create(m, &ci, out);
}

LLMEM_PUBLIC int llmem_buffer_create_like_buffer(struct llmem_memory *m,
						 const struct llmem_buffer *like,
						 const struct llmem_buffer_create_info *info,
						 struct llmem_buffer **out)
{
	if (!like)
		return llmem_error(-EINVAL, "buffer like buffer: NULL buffer");
	return create_like(m, like->size, like->usage, info, out);
}

LLMEM_PUBLIC int llmem_buffer_create_like_image(struct llmem_memory *m,
						const struct llmem_image *like,
						const struct llmem_buffer_create_info *info,
						struct llmem_buffer **out)
{
	if (!like)
		return llmem_error(-EINVAL, "buffer like image: NULL image");
	return create_like(m, llmem_image_size(like), 0, info, out);
}

LLMEM_PUBLIC int llmem_buffer_create_sub(struct llmem_buffer *parent, uint64_t offset,
					 uint64_t size, const char *name, struct llmem_buffer **out)
{
	struct llmem_memory *m;
	struct llmem_session *s;
	struct llmem_buffer *b;
	VkMemoryRequirements req;
	uint64_t at, page_size;
	VkResult r;
	int ret;

	if (!parent || !out)
		return llmem_error(-EINVAL, "sub-buffer: NULL %s", parent ? "out" : "parent");
	*out = NULL;
	if (size == 0)
		return llmem_error(-EINVAL, "sub-buffer: size is 0");
	if (offset > parent->size || size > parent->size - offset)
		return llmem_error(-EINVAL,
				   "sub-buffer: [%llu, +%llu) lies outside the parent's %llu bytes",
				   (unsigned long long)offset, (unsigned long long)size,
				   (unsigned long long)parent->size);
	m = parent->obj.memory;
	s = llmem_memory_session(m);
	b = buffer_alloc(name);
	if (!b)
		return llmem_error(-ENOMEM, "sub-buffer: out of memory");
	b->size = size;
	b->usage = parent->usage;
	ret = make_vk_buffer(m, size, parent->usage, &b->vk);
	if (ret)
		goto out_free;
	vkGetBufferMemoryRequirements(s->device, b->vk, &req);
	at = parent->obj.alloc.offset + offset;
	if (at % req.alignment) {
		ret = llmem_error(-EINVAL,
				  "sub-buffer: offset %llu is not a multiple of the %llu bytes "
				  "the device asks for",
				  (unsigned long long)offset, (unsigned long long)req.alignment);
		goto out_destroy_buffer;
	}
	page_size = llmem_memory_page_size(m, parent->obj.alloc.page);
	/* The driver may want more than size bytes; they must exist in the page. */
	if (at + req.size > page_size) {
		ret = llmem_error(-EINVAL, "sub-buffer: the device needs %llu bytes at %llu",
				  (unsigned long long)req.size, (unsigned long long)offset);
		goto out_destroy_buffer;
	}
	r = llmem_memory_bind(m, parent->obj.alloc.page, at, b->vk, VK_NULL_HANDLE);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkBindBufferMemory");
		goto out_destroy_buffer;
	}
	b->obj.alloc.page = parent->obj.alloc.page;
	b->obj.alloc.offset = at;
	b->obj.alloc.size = size;
	b->parent = parent;
	atomic_fetch_add(&parent->refs, 1);
	llmem_memory_attach(m, &b->obj);
	*out = b;
	return 0;

out_destroy_buffer:
	vkDestroyBuffer(s->device, b->vk, NULL);
out_free:
	free(b);
	return ret;
}

int llmem_buffer_whole_words(struct llmem_buffer *b, VkBuffer *out)
{
	struct llmem_memory *m = b->obj.memory;
	struct llmem_session *s = llmem_memory_session(m);
	uint64_t size = (b->size + 3) & ~(uint64_t)3;
	uint64_t at = b->obj.alloc.offset;
	VkMemoryRequirements req;
	VkResult r;
	int ret;

	ret = make_vk_buffer(m, size, b->usage, out);
	if (ret)
		return ret;
	vkGetBufferMemoryRequirements(s->device, *out, &req);
	if (at % req.alignment || at + req.size > llmem_memory_page_size(m, b->obj.alloc.page)) {
		ret = llmem_error(
			-EINVAL,
			"buffer #%llu as whole words: the device needs %llu bytes at %llu "
			"aligned to %llu, past its page or off that alignment",
			(unsigned long long)b->obj.id, (unsigned long long)req.size,
			(unsigned long long)at, (unsigned long long)req.alignment);
		goto out_destroy_buffer;
	}
	r = llmem_memory_bind(m, b->obj.alloc.page, at, *out, VK_NULL_HANDLE);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkBindBufferMemory");
		goto out_destroy_buffer;
	}
	return 0;

out_destroy_buffer:
	vkDestroyBuffer(s->device, *out, NULL);
	*out = VK_NULL_HANDLE;
	return ret;
}

LLMEM_PUBLIC void llmem_buffer_destroy(struct llmem_buffer *b)
{
	while (b && atomic_fetch_sub(&b->refs, 1) == 1) {
		struct llmem_buffer *parent = b->parent;
		struct llmem_memory *m = b->obj.memory;

		vkDestroyBuffer(llmem_memory_session(m)->device, b->vk, NULL);
		llmem_memory_release(m, &b->obj);
		free(b);
		b = parent;
	}
}

LLMEM_PUBLIC uint64_t llmem_buffer_size(const struct llmem_buffer *b)
{
	return b ? b->size : 0;
}

LLMEM_PUBLIC uint32_t llmem_buffer_usage(const struct llmem_buffer *b)
{
	return b ? b->usage : 0;
}

LLMEM_PUBLIC struct llmem_memory *llmem_buffer_memory(const struct llmem_buffer *b)
{
	return b ? b->obj.memory : NULL;
}

LLMEM_PUBLIC int llmem_buffer_get_allocation(const struct llmem_buffer *b,
					     struct llmem_allocation *a)
{
	if (!b || !a)
		return llmem_error(-EINVAL, "buffer allocation: NULL argument");
	*a = b->obj.alloc;
	return 0;
}

LLMEM_PUBLIC int llmem_buffer_map(struct llmem_buffer *b, void **ptr)
{
	if (!b || !ptr)
		return llmem_error(-EINVAL, "buffer map: NULL %s", b ? "ptr" : "buffer");
	return llmem_memory_map(b->obj.memory, &b->obj, ptr);
}

LLMEM_PUBLIC int llmem_buffer_unmap(struct llmem_buffer *b)
{
	if (!b)
		return llmem_error(-EINVAL, "buffer unmap: NULL buffer");
	return llmem_memory_unmap(b->obj.memory, &b->obj);
}

LLMEM_PUBLIC int llmem_buffer_flush(struct llmem_buffer *b, uint64_t offset, uint64_t size)
{
	if (!b)
		return llmem_error(-EINVAL, "buffer flush: NULL buffer");
	return llmem_memory_sync(b->obj.memory, &b->obj, offset, size, true);
}

LLMEM_PUBLIC int llmem_buffer_invalidate(struct llmem_buffer *b, uint64_t offset, uint64_t size)
{
	if (!b)
		return llmem_error(-EINVAL, "buffer invalidate: NULL buffer");
	return llmem_memory_sync(b->obj.memory, &b->obj, offset, size, false);
}
