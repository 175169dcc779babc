// SPDX-License-Identifier: MIT
/*
 * Migration: a buffer's bytes moved to another memory in one call, the old
 * buffer destroyed once the device has copied out of it.
 */
#include <errno.h>

#include "error.h"
#include "queue.h"
#include "xfer_box.h"

LLMEM_PUBLIC int llmem_enqueue_migrate_buffer(struct llmem_queue *q, struct llmem_buffer **buffer,
					      struct llmem_memory *to,
					      const struct llmem_wait_list *wait_for,
					      struct llmem_event **event)
{
	struct llmem_buffer_create_info ci = { 0 };
	struct llmem_buffer *old, *fresh;
	struct xfer_lin all;
	int ret;

	if (!q || !buffer || !*buffer || !to)
		return llmem_error(-EINVAL, "migrate buffer: NULL argument");
	old = *buffer;
	if (!xq_same_session(q, old) || llmem_memory_session(to) != q->session)
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
	ret = xq_enter(q, wait_for, false);
	if (ret)
		goto out_destroy;
	if (!xq_record(q)) {
		ret = -EIO;
	} else {
		all = (struct xfer_lin){ 0, old->size, old->size };
		xq_barrier(q->open->cmd);
		xfer_copy_rows(q->open->cmd, old->vk, &all, fresh->vk, &all, old->size, 1, 1);
		ret = xq_add_done(q, &(struct xq_done){ .kind = XQ_DONE_MIGRATED, .buffer = old });
	}
	ret = xq_leave(q, ret, event);
	if (ret)
		goto out_destroy;
	*buffer = fresh;
	return 0;

out_destroy:
	llmem_buffer_destroy(fresh);
	return ret;
}
