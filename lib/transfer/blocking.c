// SPDX-License-Identifier: MIT
/*
 * The blocking transfer calls that take no queue (llmem/transfer.h): each is
 * its llmem_enqueue_* operation, blocking, on a queue kept in a slot of the
 * session.  The session destroys its slots first when it goes, so no tier
 * below this one needs to know what the queue is.
 */
#include <errno.h>

#include <llmem/transfer.h>

#include "base/error.h"
#include "device/session.h"
#include "memory/buffer.h"
#include "memory/image.h"

/* Enough to stage in pieces, small enough to keep for the session's life. */
#define BLOCKING_RING (8ull << 20)

static int create_queue(struct llmem_session *s, void **object)
{
	struct llmem_queue_create_info info = { .staging_size = BLOCKING_RING };

	return llmem_queue_create(s, &info, (struct llmem_queue **)object);
}

static void destroy_queue(void *object)
{
	llmem_queue_destroy(object);
}

static const struct llmem_session_slot_key queue_key = {
	.create = create_queue,
	.destroy = destroy_queue,
};

static int blocking_queue(struct llmem_memory *m, struct llmem_queue **q)
{
	void *object;
	int ret;

	ret = llmem_session_slot(llmem_memory_session(m), &queue_key, &object);
	*q = object;
	return ret;
}

LLMEM_PUBLIC int llmem_buffer_copy(struct llmem_buffer *src, uint64_t src_offset,
				   struct llmem_buffer *dst, uint64_t dst_offset, uint64_t size)
{
	struct llmem_queue *q;
	int ret;

	if (!src || !dst)
		return llmem_error(-EINVAL, "buffer copy: NULL %s", src ? "dst" : "src");
	ret = blocking_queue(src->obj.memory, &q);
	if (ret)
		return ret;
	return llmem_enqueue_copy_buffer(q, src, src_offset, dst, dst_offset, size, NULL, NULL);
}

/* The whole image against the whole buffer: a buffer too small for it is
 * the first thing to name. */
static int image_buffer_queue(struct llmem_image *img, struct llmem_buffer *buf,
			      struct llmem_queue **q)
{
	if (!img || !buf)
		return llmem_error(-EINVAL, "image copy: NULL %s", img ? "buffer" : "image");
	if (buf->size < llmem_image_size(img))
		return llmem_error(
			-EINVAL, "image copy: buffer of %llu bytes, the image needs %llu",
			(unsigned long long)buf->size, (unsigned long long)llmem_image_size(img));
	return blocking_queue(img->obj.memory, q);
}

LLMEM_PUBLIC int llmem_image_copy_from_buffer(struct llmem_image *img, struct llmem_buffer *buf)
{
	struct llmem_queue *q;
	int ret = image_buffer_queue(img, buf, &q);

	return ret ? ret : llmem_enqueue_copy_buffer_to_image(q, buf, NULL, img, NULL, NULL, NULL);
}

LLMEM_PUBLIC int llmem_image_copy_to_buffer(struct llmem_image *img, struct llmem_buffer *buf)
{
	struct llmem_queue *q;
	int ret = image_buffer_queue(img, buf, &q);

	return ret ? ret : llmem_enqueue_copy_image_to_buffer(q, img, NULL, buf, NULL, NULL, NULL);
}

/* The whole image, tightly packed: @size must be its size. */
static int host_queue(struct llmem_image *img, const void *data, uint64_t size,
		      struct llmem_queue **q)
{
	if (!img || !data)
		return llmem_error(-EINVAL, "image host copy: NULL %s", img ? "data" : "image");
	if (size != llmem_image_size(img))
		return llmem_error(-EINVAL, "image host copy: %llu bytes, the image has %llu",
				   (unsigned long long)size,
				   (unsigned long long)llmem_image_size(img));
	return blocking_queue(img->obj.memory, q);
}

LLMEM_PUBLIC int llmem_image_upload(struct llmem_image *img, const void *data, uint64_t size)
{
	struct llmem_queue *q;
	int ret = host_queue(img, data, size, &q);

	return ret ? ret : llmem_enqueue_write_image(q, img, NULL, data, NULL, NULL, NULL);
}

LLMEM_PUBLIC int llmem_image_download(struct llmem_image *img, void *data, uint64_t size)
{
	struct llmem_queue *q;
	int ret = host_queue(img, data, size, &q);

	return ret ? ret : llmem_enqueue_read_image(q, img, NULL, data, NULL, NULL, NULL);
}

LLMEM_PUBLIC int llmem_image_create_from_host(struct llmem_memory *m,
					      const struct llmem_image_create_info *info,
					      const void *data, uint64_t size,
					      struct llmem_image **out)
{
	int ret;

	if (!data)
		return llmem_error(-EINVAL, "image from host: NULL data");
	ret = llmem_image_create(m, info, out);
	if (ret)
		return ret;
	ret = llmem_image_upload(*out, data, size);
	if (ret) {
		llmem_image_destroy(*out);
		*out = NULL;
	}
	return ret;
}
