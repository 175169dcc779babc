// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: the page-mappability tracker.
 *
 * Describes any DMA-BUF a caller holds an fd for (LLMEM_IOC_INFO): what
 * struct dma_buf shows of every buffer, and for llmem's own the counts its
 * exporter keeps, from which it says whether the CPU may map the pages now.
 * Owns the foreign buffers handed over with LLMEM_IOC_TRACK, listed globally
 * for debugfs and per /dev/llmem file until UNTRACK or the file's release.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "llmem.h"

LIST_HEAD(llmem_tracked);

/**
 * llmem_describe() - what llmem can see of a DMA-BUF
 * @dmabuf: any DMA-BUF, kept alive by the caller
 * @info: filled from @size on; the input fields are left alone
 * @names: room for @max_names importer names
 * @max_names: at most this many names are written
 *
 * The reservation lock is taken to walk the attachments and fences, which
 * both kernels guard with it; the vmap count is read under the lock that
 * guards it on the running kernel.
 *
 * An llmem buffer is mappable when no write fence is unsignalled and no
 * device may write any of its pages, through whichever buffer over them it
 * attached (llmem_buffer_device_writes()); it is pinned, likewise, when a
 * device holds a pin on any of its pages (llmem_buffer_pinned()).
 *
 * Context: process context; takes the reservation lock, then (before 6.2,
 * where vmap is not yet called under it) dmabuf->lock, then the llmem
 * buffer's lock, then its root's spans_lock.  The caller holds none of them.
 * Return: 0, or -EINTR when interrupted.
 */
int llmem_describe(struct dma_buf *dmabuf, struct llmem_info *info,
		   struct llmem_importer *names, unsigned int max_names)
{
	struct llmem_buffer *buf = llmem_buffer_of(dmabuf);
	struct dma_buf_attachment *attach;
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	unsigned int n = 0;
	int ret;

	info->size = dmabuf->size;
	strscpy(info->exporter, dmabuf->exp_name ?: "", sizeof(info->exporter));
	spin_lock(&dmabuf->name_lock);
	strscpy(info->name, dmabuf->name ?: "", sizeof(info->name));
	spin_unlock(&dmabuf->name_lock);

	ret = dma_resv_lock_interruptible(dmabuf->resv, NULL);
	if (ret)
		return ret;
	list_for_each_entry(attach, &dmabuf->attachments, node) {
		if (n < max_names)
			strscpy(names[n].dev_name, dev_name(attach->dev),
				sizeof(names[n].dev_name));
		n++;
	}
	info->attachments = n;
	dma_resv_for_each_fence(&cursor, dmabuf->resv, DMA_RESV_USAGE_BOOKKEEP,
				fence) {
		if (dma_fence_is_signaled(fence))
			continue;
		info->fences++;
		if (dma_resv_iter_usage(&cursor) <= DMA_RESV_USAGE_WRITE)
			info->write_fences++;
	}
#ifdef LLMEM_VMAP_UNDER_RESV
	info->vmaps = dmabuf->vmapping_counter;
	dma_resv_unlock(dmabuf->resv);
#else
	dma_resv_unlock(dmabuf->resv);
	mutex_lock(&dmabuf->lock);
	info->vmaps = dmabuf->vmapping_counter;
	mutex_unlock(&dmabuf->lock);
#endif
	info->known = LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_VMAPS |
		      LLMEM_KNOWN_FENCES;
	if (dma_buf_is_dynamic(dmabuf))
		info->state |= LLMEM_STATE_DYNAMIC;
	if (!buf)
		return 0;

	mutex_lock(&buf->lock);
	info->device_maps = buf->device_maps;
	info->device_write_maps = buf->device_write_maps;
	info->pins = buf->pinned;
	mutex_unlock(&buf->lock);
	info->cpu_mmaps = atomic_read(&buf->cpu_mmaps);
	info->gup_pinned_pages = llmem_buffer_gup_pinned(buf);
	info->known |= LLMEM_KNOWN_DEVICE_MAPS | LLMEM_KNOWN_CPU_MMAPS |
		       LLMEM_KNOWN_MAPPABLE | LLMEM_KNOWN_PINS |
		       LLMEM_KNOWN_GUP_PINS;
	info->state |= LLMEM_STATE_EXPORTED;
	if (buf->contiguous)
		info->state |= LLMEM_STATE_CONTIGUOUS;
	if (!info->write_fences && !llmem_buffer_device_writes(buf))
		info->state |= LLMEM_STATE_MAPPABLE;
	if (llmem_buffer_pinned(buf))
		info->state |= LLMEM_STATE_PINNED;
	return 0;
}

/**
 * llmem_ioctl_info() - LLMEM_IOC_INFO: describe a DMA-BUF the caller holds
 * @file: the open /dev/llmem
 * @data: the caller's struct llmem_info, copied in and zero-extended
 * @uarg: where it came from, for the copy back
 * @usize: the size of the caller's struct
 *
 * Output fields are cleared first, so that what the caller passed in them
 * never comes back.
 *
 * Context: process context; takes the locks llmem_describe() takes.
 * Return: 0; -EINVAL for non-zero flags, importers_len without
 * importers_ptr, or an fd that is not a DMA-BUF; -EBADF for a bad fd;
 * -ENOMEM, -EINTR, or -EFAULT from the copies back.
 */
long llmem_ioctl_info(struct file *file, void *data, void __user *uarg,
		      unsigned int usize)
{
	struct llmem_info *info = data;
	struct llmem_importer *names = NULL;
	unsigned int max_names;
	struct dma_buf *dmabuf;
	int ret;

	if (info->flags || (!info->importers_ptr && info->importers_len))
		return -EINVAL;
	*info = (struct llmem_info){
		.fd = info->fd,
		.importers_ptr = info->importers_ptr,
		.importers_len = info->importers_len,
	};

	dmabuf = dma_buf_get(info->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);

	max_names = min_t(u32, info->importers_len, LLMEM_MAX_IMPORTERS);
	if (max_names) {
		names = kcalloc(max_names, sizeof(*names), GFP_KERNEL);
		if (!names) {
			ret = -ENOMEM;
			goto out_put_dmabuf;
		}
	}

	ret = llmem_describe(dmabuf, info, names, max_names);
	if (ret)
		goto out_free_names;

	max_names = min(max_names, info->attachments);
	if (max_names &&
	    copy_to_user(u64_to_user_ptr(info->importers_ptr), names,
			 max_names * sizeof(*names))) {
		ret = -EFAULT;
		goto out_free_names;
	}
	ret = llmem_copy_out(uarg, info, usize, sizeof(*info));

out_free_names:
	kfree(names);
out_put_dmabuf:
	dma_buf_put(dmabuf);
	return ret;
}

/**
 * llmem_ioctl_track() - LLMEM_IOC_TRACK: hold and list a foreign DMA-BUF
 * @file: the open /dev/llmem, whose list will hold the buffer
 * @data: the caller's struct llmem_track, copied in and zero-extended
 * @uarg: unused: nothing is copied back
 * @usize: unused
 *
 * Context: process context; takes llmem_lock.
 * Return: 0; -EINVAL for non-zero flags, an fd that is not a DMA-BUF, a
 * buffer llmem exported or one this file already tracks; -EBADF for a bad
 * fd; -ENOMEM.
 */
long llmem_ioctl_track(struct file *file, void *data, void __user *uarg,
		       unsigned int usize)
{
	struct llmem_file *lf = file->private_data;
	struct llmem_track *track = data;
	struct llmem_tracked *t, *entry;
	struct dma_buf *dmabuf;
	int ret;

	if (track->flags)
		return -EINVAL;
	dmabuf = dma_buf_get(track->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (llmem_buffer_of(dmabuf)) {
		ret = -EINVAL;
		goto out_put_dmabuf;
	}

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		ret = -ENOMEM;
		goto out_put_dmabuf;
	}
	t->dmabuf = dmabuf;
	t->owner = task_tgid_nr(current);

	mutex_lock(&llmem_lock);
	list_for_each_entry(entry, &lf->tracked, file_node) {
		if (entry->dmabuf == dmabuf) {
			ret = -EINVAL;
			goto out_unlock;
		}
	}
	list_add_tail(&t->node, &llmem_tracked);
	list_add_tail(&t->file_node, &lf->tracked);
	mutex_unlock(&llmem_lock);
	return 0;

out_unlock:
	mutex_unlock(&llmem_lock);
	kfree(t);
out_put_dmabuf:
	dma_buf_put(dmabuf);
	return ret;
}

/**
 * llmem_ioctl_untrack() - LLMEM_IOC_UNTRACK: let a tracked buffer go
 * @file: the open /dev/llmem that tracked it
 * @data: the caller's struct llmem_track, copied in and zero-extended
 * @uarg: unused: nothing is copied back
 * @usize: unused
 *
 * Context: process context; takes llmem_lock.
 * Return: 0; -EINVAL for non-zero flags or an fd that is not a DMA-BUF;
 * -EBADF for a bad fd; -ENOENT when this file does not track the buffer.
 */
long llmem_ioctl_untrack(struct file *file, void *data, void __user *uarg,
			 unsigned int usize)
{
	struct llmem_file *lf = file->private_data;
	struct llmem_track *track = data;
	struct llmem_tracked *entry, *found = NULL;
	struct dma_buf *dmabuf;

	if (track->flags)
		return -EINVAL;
	dmabuf = dma_buf_get(track->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);

	mutex_lock(&llmem_lock);
	list_for_each_entry(entry, &lf->tracked, file_node) {
		if (entry->dmabuf == dmabuf) {
			found = entry;
			list_del(&found->node);
			list_del(&found->file_node);
			break;
		}
	}
	mutex_unlock(&llmem_lock);

	dma_buf_put(dmabuf);
	if (!found)
		return -ENOENT;
	dma_buf_put(found->dmabuf);
	kfree(found);
	return 0;
}

/**
 * llmem_untrack_all() - let go of every buffer a /dev/llmem file tracks
 * @lf: the file being released
 *
 * The entries are unlinked under llmem_lock and their references dropped
 * after it.
 *
 * Context: process context; takes llmem_lock.
 */
void llmem_untrack_all(struct llmem_file *lf)
{
	struct llmem_tracked *entry, *tmp;
	LIST_HEAD(dropped);

	mutex_lock(&llmem_lock);
	list_for_each_entry_safe(entry, tmp, &lf->tracked, file_node) {
		list_del(&entry->node);
		list_move(&entry->file_node, &dropped);
	}
	mutex_unlock(&llmem_lock);

	list_for_each_entry_safe(entry, tmp, &dropped, file_node) {
		dma_buf_put(entry->dmabuf);
		kfree(entry);
	}
}
