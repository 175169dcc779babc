// SPDX-License-Identifier: MIT
/*
 * Migration: a buffer's bytes or an image's texels moved to another memory
 * in one call, the old object destroyed once the device has copied out of it.
 */
#include <errno.h>
#include <stdio.h>

#include "base/error.h"
#include "memory/image.h"
#include "transfer/queue.h"
#include "base/box.h"

LLMEM_PUBLIC int llmem_enqueue_migrate_buffer(struct llmem_queue *q, struct llmem_buffer **buffer,
					      struct llmem_memory *to,
					      const struct llmem_wait_list *wait_for,
					      struct llmem_event **event)
{
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_buffer *old, *fresh;
	struct llmem_lin all;
	VkCommandBuffer cmd;
	int ret;

	if (!q || !buffer || !*buffer || !to)
		return llmem_error(-EINVAL, "migrate buffer: NULL argument");
	old = *buffer;
	if (!llmem_queue_same_session(q, old) || llmem_memory_session(to) != q->session)
		return llmem_error(-EINVAL, "migrate buffer: objects of another session");
	if (atomic_load(&old->refs) > 1)
		return llmem_error(-EBUSY, "migrate buffer: sub-regions of it are alive");
	if (!(old->usage & LLMEM_BUFFER_TRANSFER_SRC) || !(old->usage & LLMEM_BUFFER_TRANSFER_DST))
		return llmem_error(-EPERM, "migrate buffer: needs TRANSFER_SRC and TRANSFER_DST");
	ci.size = old->size;
	ci.usage = old->usage;
	ci.name = old->obj.name;
	ret = llmem_buffer_create(to, &ci, &fresh);
	if (ret)
		return ret;
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		goto out_destroy;
	cmd = llmem_queue_begin_op(q);
	if (!cmd) {
		ret = q->record_error;
	} else {
		all = (struct llmem_lin){ 0, old->size, old->size };
		llmem_cmd_copy_rows(cmd, old->vk, &all, fresh->vk, &all, old->size, 1, 1);
		ret = llmem_queue_add_done(
			q, &(struct llmem_done){ .kind = LLMEM_DONE_MIGRATED, .buffer = old });
	}
	ret = llmem_queue_op_leave(q, ret, event);
	if (ret)
		goto out_destroy;
	*buffer = fresh;
	return 0;

out_destroy:
	llmem_buffer_destroy(fresh);
	return ret;
}

/* Both images from their tracked layouts to the copy's (@enter) or back. */
static void copy_layouts(VkCommandBuffer cmd, const struct llmem_image *src,
			 const struct llmem_image *dst, bool enter)
{
	const struct llmem_image *img[2] = { src, dst };
	const VkImageLayout copy[2] = { VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
					VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL };

	for (int i = 0; i < 2; i++)
		llmem_image_barrier(cmd, img[i], enter ? img[i]->layout : copy[i],
				    enter ? copy[i] : img[i]->layout);
}

static void record_image_copy(VkCommandBuffer cmd, const struct llmem_image *src,
			      const struct llmem_image *dst)
{
	VkImageCopy region = {
		.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.extent = { src->width, src->height, src->depth },
	};

	llmem_cmd_barrier(cmd);
	copy_layouts(cmd, src, dst, true);
	vkCmdCopyImage(cmd, src->vk, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst->vk,
		       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	copy_layouts(cmd, src, dst, false);
}

static int check_migrate_image(struct llmem_queue *q, struct llmem_image **image,
			       struct llmem_memory *to)
{
	const uint32_t both = LLMEM_IMAGE_TRANSFER_SRC | LLMEM_IMAGE_TRANSFER_DST;
	struct llmem_image *img;
	int views;

	if (!q || !image || !*image || !to)
		return llmem_error(-EINVAL, "migrate image: NULL %s",
				   !q		       ? "queue"
				   : !image || !*image ? "image"
						       : "memory");
	img = *image;
	if (llmem_memory_session(img->obj.memory) != q->session)
		return llmem_error(-EINVAL, "migrate image: the image is of another session");
	if (llmem_memory_session(to) != q->session)
		return llmem_error(-EINVAL, "migrate image: the memory is of another session");
	if (to == img->obj.memory)
		return llmem_error(-EINVAL, "migrate image: the image is in that memory already");
	views = atomic_load(&img->views);
	if (views)
		return llmem_error(-EBUSY, "migrate image: the image has %d live view%s", views,
				   views == 1 ? "" : "s");
	if ((img->usage & both) != both)
		return llmem_error(-EPERM, "migrate image: needs TRANSFER_SRC and TRANSFER_DST");
	return 0;
}

/*
 * The old image is destroyed here once a blocking copy is done; otherwise
 * (an event, or a batch, which never waits) by the queue when the copy
 * completes or its batch is discarded.  The queue is told so before the copy
 * is recorded: when that fails, nothing recorded names the new image, which
 * can go at once.
 */
LLMEM_PUBLIC int llmem_enqueue_migrate_image(struct llmem_queue *q, struct llmem_image **image,
					     struct llmem_memory *to,
					     const struct llmem_wait_list *wait_for,
					     struct llmem_event **event)
{
	struct llmem_image *old, *fresh;
	char why[448];
	bool deferred;
	int ret;

	ret = check_migrate_image(q, image, to);
	if (ret)
		return ret;
	old = *image;
	ret = llmem_image_create_like_image(to, old, NULL, &fresh);
	if (ret) {
		snprintf(why, sizeof(why), "%s", llmem_last_error());
		return llmem_error(ret, "migrate image: %s", why);
	}
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		goto out_destroy;
	deferred = event || q->batch;
	if (!llmem_queue_open_record(q))
		ret = q->record_error;
	else if (deferred)
		ret = llmem_queue_add_done(
			q, &(struct llmem_done){ .kind = LLMEM_DONE_MIGRATED, .image = old });
	if (!ret)
		record_image_copy(q->open->cmd, old, fresh);
	ret = llmem_queue_op_leave(q, ret, event);
	if (ret)
		goto out_destroy;
	if (!deferred)
		llmem_image_destroy(old);
	*image = fresh;
	return 0;

out_destroy:
	llmem_image_destroy(fresh);
	return ret;
}
