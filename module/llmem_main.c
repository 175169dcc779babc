// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: exports zeroed system pages as DMA-BUFs and tracks who maps them.
 *
 * Every buffer llmem exports counts its attachments, device mappings and CPU
 * mappings, so that LLMEM_IOC_INFO can tell the holder of an fd whether the
 * CPU may map the pages now.  A DMA-BUF exported by another driver can be
 * asked about too; llmem then reports only what struct dma_buf shows.
 *
 * Locking: the dma-buf core calls map_dma_buf and vmap with the reservation
 * lock held since 6.2 and with dmabuf->lock (vmap) or nothing (map_dma_buf)
 * before, so the callbacks here take only buf->lock, innermost.  llmem_lock
 * guards the lists of buffers and tracked foreign buffers and is taken
 * before any reservation lock.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/iosys-map.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <linux/llmem.h>

static unsigned long max_bytes;
module_param(max_bytes, ulong, 0444);
MODULE_PARM_DESC(max_bytes,
		 "Most bytes all llmem buffers may hold together (default: a quarter of RAM)");

static atomic_long_t llmem_live_pages = ATOMIC_LONG_INIT(0);
static DEFINE_MUTEX(llmem_lock);
static LIST_HEAD(llmem_buffers);
static LIST_HEAD(llmem_tracked);
static struct dentry *llmem_debugfs;

/* The largest block the buddy allocator hands out: 4 MiB on x86. */
#define LLMEM_MAX_CONTIGUOUS ((u64)MAX_ORDER_NR_PAGES << PAGE_SHIFT)

/**
 * struct llmem_buffer - the pages behind one exported DMA-BUF
 * @dmabuf: the DMA-BUF exporting them
 * @node: entry in llmem_buffers, under llmem_lock
 * @lock: guards @attachments, @vaddr and the device mapping counts
 * @attachments: the struct llmem_attachment of every attached device
 * @pages: the pages, each zeroed at allocation
 * @pagecount: number of @pages
 * @vaddr: the kernel mapping while the core holds a vmap, else NULL
 * @device_maps: attachments currently mapped
 * @device_write_maps: those mapped in a direction that lets the device write
 * @cpu_mmaps: user-space VMAs of the buffer
 * @owner: thread group id of the process that allocated it
 * @contiguous: @pages are physically contiguous, in order
 */
struct llmem_buffer {
	struct dma_buf *dmabuf;
	struct list_head node;
	struct mutex lock; /* see @lock above */
	struct list_head attachments;
	struct page **pages;
	pgoff_t pagecount;
	void *vaddr;
	unsigned int device_maps;
	unsigned int device_write_maps;
	atomic_t cpu_mmaps;
	pid_t owner;
	bool contiguous;
};

/**
 * struct llmem_attachment - one device attached to a struct llmem_buffer
 * @node: entry in llmem_buffer.attachments
 * @dev: the attached device
 * @sgt: the pages as that device sees them, valid while @mapped
 * @dir: the direction of the current mapping
 * @mapped: whether the attachment is mapped
 */
struct llmem_attachment {
	struct list_head node;
	struct device *dev;
	struct sg_table sgt;
	enum dma_data_direction dir;
	bool mapped;
};

/**
 * struct llmem_tracked - a foreign DMA-BUF handed to llmem with TRACK
 * @node: entry in llmem_tracked, under llmem_lock
 * @file_node: entry in the tracking file's list, under llmem_lock
 * @dmabuf: the buffer, referenced while tracked
 * @owner: thread group id of the process that tracked it
 */
struct llmem_tracked {
	struct list_head node;
	struct list_head file_node;
	struct dma_buf *dmabuf;
	pid_t owner;
};

/**
 * struct llmem_file - one open /dev/llmem
 * @tracked: the struct llmem_tracked it holds, under llmem_lock
 */
struct llmem_file {
	struct list_head tracked;
};

static const struct dma_buf_ops llmem_dma_buf_ops;

static bool llmem_dir_writes(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

static void llmem_vm_open(struct vm_area_struct *vma)
{
	struct llmem_buffer *buf = vma->vm_private_data;

	atomic_inc(&buf->cpu_mmaps);
}

static void llmem_vm_close(struct vm_area_struct *vma)
{
	struct llmem_buffer *buf = vma->vm_private_data;

	atomic_dec(&buf->cpu_mmaps);
}

static const struct vm_operations_struct llmem_vm_ops = {
	.open = llmem_vm_open,
	.close = llmem_vm_close,
};

static int llmem_dma_buf_attach(struct dma_buf *dmabuf,
				struct dma_buf_attachment *attachment)
{
	struct llmem_buffer *buf = dmabuf->priv;
	struct llmem_attachment *a;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->dev = attachment->dev;
	attachment->priv = a;

	mutex_lock(&buf->lock);
	list_add(&a->node, &buf->attachments);
	mutex_unlock(&buf->lock);
	return 0;
}

static void llmem_dma_buf_detach(struct dma_buf *dmabuf,
				 struct dma_buf_attachment *attachment)
{
	struct llmem_buffer *buf = dmabuf->priv;
	struct llmem_attachment *a = attachment->priv;

	mutex_lock(&buf->lock);
	list_del(&a->node);
	mutex_unlock(&buf->lock);
	kfree(a);
}

/*
 * Each attachment gets its own sg_table, so that each device's DMA addresses
 * and the direction it mapped with are kept apart; dma_map_sgtable() does the
 * cache maintenance for the direction asked.
 */
static struct sg_table *
llmem_dma_buf_map_dma_buf(struct dma_buf_attachment *attachment,
			  enum dma_data_direction dir)
{
	struct llmem_buffer *buf = attachment->dmabuf->priv;
	struct llmem_attachment *a = attachment->priv;
	int ret;

	mutex_lock(&buf->lock);
	if (a->mapped) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = sg_alloc_table_from_pages(&a->sgt, buf->pages, buf->pagecount, 0,
					buf->pagecount << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		goto out_unlock;
	ret = dma_map_sgtable(a->dev, &a->sgt, dir, 0);
	if (ret)
		goto out_free_table;

	a->dir = dir;
	a->mapped = true;
	buf->device_maps++;
	if (llmem_dir_writes(dir))
		buf->device_write_maps++;
	mutex_unlock(&buf->lock);
	return &a->sgt;

out_free_table:
	sg_free_table(&a->sgt);
out_unlock:
	mutex_unlock(&buf->lock);
	return ERR_PTR(ret);
}

static void llmem_dma_buf_unmap_dma_buf(struct dma_buf_attachment *attachment,
					struct sg_table *sgt,
					enum dma_data_direction dir)
{
	struct llmem_buffer *buf = attachment->dmabuf->priv;
	struct llmem_attachment *a = attachment->priv;

	mutex_lock(&buf->lock);
	dma_unmap_sgtable(a->dev, sgt, dir, 0);
	sg_free_table(sgt);
	a->mapped = false;
	buf->device_maps--;
	if (llmem_dir_writes(a->dir))
		buf->device_write_maps--;
	mutex_unlock(&buf->lock);
}

static int llmem_dma_buf_begin_cpu_access(struct dma_buf *dmabuf,
					  enum dma_data_direction dir)
{
	struct llmem_buffer *buf = dmabuf->priv;
	struct llmem_attachment *a;

	mutex_lock(&buf->lock);
	if (buf->vaddr)
		invalidate_kernel_vmap_range(buf->vaddr,
					     buf->pagecount << PAGE_SHIFT);
	list_for_each_entry(a, &buf->attachments, node)
		if (a->mapped)
			dma_sync_sgtable_for_cpu(a->dev, &a->sgt, dir);
	mutex_unlock(&buf->lock);
	return 0;
}

static int llmem_dma_buf_end_cpu_access(struct dma_buf *dmabuf,
					enum dma_data_direction dir)
{
	struct llmem_buffer *buf = dmabuf->priv;
	struct llmem_attachment *a;

	mutex_lock(&buf->lock);
	if (buf->vaddr)
		flush_kernel_vmap_range(buf->vaddr,
					buf->pagecount << PAGE_SHIFT);
	list_for_each_entry(a, &buf->attachments, node)
		if (a->mapped)
			dma_sync_sgtable_for_device(a->dev, &a->sgt, dir);
	mutex_unlock(&buf->lock);
	return 0;
}

static void llmem_set_vm_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef LLMEM_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * The whole range is inserted at mmap time, so the first touch of a page
 * never faults.  Private mappings are refused: a copy-on-write view of
 * shared device memory would silently stop seeing the device's writes.
 */
static int llmem_dma_buf_mmap(struct dma_buf *dmabuf,
			      struct vm_area_struct *vma)
{
	struct llmem_buffer *buf = dmabuf->priv;
	unsigned long count = vma_pages(vma);
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff > buf->pagecount ||
	    count > buf->pagecount - vma->vm_pgoff)
		return -EINVAL;

	llmem_set_vm_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	ret = vm_insert_pages(vma, vma->vm_start, buf->pages + vma->vm_pgoff,
			      &count);
	if (ret)
		return ret;

	vma->vm_ops = &llmem_vm_ops;
	vma->vm_private_data = buf;
	atomic_inc(&buf->cpu_mmaps);
	return 0;
}

/*
 * The core counts vmap users and calls this only for the first, so one
 * kernel mapping serves them all.
 */
static int llmem_dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct llmem_buffer *buf = dmabuf->priv;
	void *vaddr;

	vaddr = vmap(buf->pages, buf->pagecount, VM_MAP, PAGE_KERNEL);
	if (!vaddr)
		return -ENOMEM;

	mutex_lock(&buf->lock);
	buf->vaddr = vaddr;
	mutex_unlock(&buf->lock);
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void llmem_dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct llmem_buffer *buf = dmabuf->priv;

	mutex_lock(&buf->lock);
	buf->vaddr = NULL;
	mutex_unlock(&buf->lock);
	vunmap(map->vaddr);
	iosys_map_clear(map);
}

static void llmem_free_pages(struct page **pages, pgoff_t count)
{
	pgoff_t i;

	for (i = 0; i < count; i++)
		if (pages[i])
			__free_page(pages[i]);
	kvfree(pages);
}

static void llmem_dma_buf_release(struct dma_buf *dmabuf)
{
	struct llmem_buffer *buf = dmabuf->priv;

	mutex_lock(&llmem_lock);
	list_del(&buf->node);
	mutex_unlock(&llmem_lock);

	llmem_free_pages(buf->pages, buf->pagecount);
	atomic_long_sub(buf->pagecount, &llmem_live_pages);
	mutex_destroy(&buf->lock);
	kfree(buf);
}

static const struct dma_buf_ops llmem_dma_buf_ops = {
	.attach = llmem_dma_buf_attach,
	.detach = llmem_dma_buf_detach,
	.map_dma_buf = llmem_dma_buf_map_dma_buf,
	.unmap_dma_buf = llmem_dma_buf_unmap_dma_buf,
	.begin_cpu_access = llmem_dma_buf_begin_cpu_access,
	.end_cpu_access = llmem_dma_buf_end_cpu_access,
	.mmap = llmem_dma_buf_mmap,
	.vmap = llmem_dma_buf_vmap,
	.vunmap = llmem_dma_buf_vunmap,
	.release = llmem_dma_buf_release,
};

/*
 * Zeroed order-0 pages in bulk: the buffer is mapped page by page anyway, and
 * only importers without an IOMMU need physically contiguous memory (see
 * llmem_alloc_contiguous()).
 */
static struct page **llmem_alloc_pages(pgoff_t count)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN;
	struct page **pages;
	pgoff_t done = 0;

	pages = kvcalloc(count, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;

	while (done < count) {
		unsigned long filled;

		/* avoid allocating more if the process has been killed */
		if (fatal_signal_pending(current))
			goto out_free_pages;
		filled = alloc_pages_bulk_array(gfp, count, pages);
		if (filled == done)
			goto out_free_pages;
		done = filled;
	}
	return pages;

out_free_pages:
	llmem_free_pages(pages, count);
	return NULL;
}

/*
 * One zeroed block of the buddy allocator, split into order-0 pages so that
 * mmap, vmap and the sg_table treat it like any other buffer (the sg_table
 * merges it into one entry); alloc_pages_exact() frees the pages past @count
 * at once.  Debian's x86 kernels have no CMA, so the largest block the buddy
 * allocator holds is the limit.  __GFP_NORETRY fails a fragmented request
 * at once rather than reclaiming hard or calling the OOM killer.
 */
static struct page **llmem_alloc_contiguous(pgoff_t count)
{
	gfp_t gfp = GFP_USER | __GFP_ZERO | __GFP_NOWARN | __GFP_NORETRY;
	struct page **pages;
	struct page *first;
	void *vaddr;
	pgoff_t i;

	pages = kvcalloc(count, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	vaddr = alloc_pages_exact(count << PAGE_SHIFT, gfp);
	if (!vaddr) {
		kvfree(pages);
		return NULL;
	}
	first = virt_to_page(vaddr);
	for (i = 0; i < count; i++)
		pages[i] = first + i;
	return pages;
}

/**
 * llmem_buffer_create() - allocate zeroed pages and export them
 * @size: bytes, already rounded to whole pages
 * @contiguous: whether the pages must be physically contiguous
 *
 * The pages count against max_bytes from the moment they are reserved, so
 * that concurrent callers cannot together exceed it.
 *
 * Return: the new DMA-BUF, or an ERR_PTR(): -ENOMEM past max_bytes or when
 * the pages (or, @contiguous, one block for them all) cannot be had.
 */
static struct dma_buf *llmem_buffer_create(u64 size, bool contiguous)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	pgoff_t count = size >> PAGE_SHIFT;
	struct llmem_buffer *buf;
	struct dma_buf *dmabuf;
	int ret;

	if (atomic_long_add_return(count, &llmem_live_pages) >
	    max_bytes >> PAGE_SHIFT) {
		ret = -ENOMEM;
		goto out_unreserve;
	}

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_unreserve;
	}
	mutex_init(&buf->lock);
	INIT_LIST_HEAD(&buf->attachments);
	INIT_LIST_HEAD(&buf->node);
	buf->pagecount = count;
	buf->owner = task_tgid_nr(current);
	buf->contiguous = contiguous;

	if (contiguous)
		buf->pages = llmem_alloc_contiguous(count);
	else
		buf->pages = llmem_alloc_pages(count);
	if (!buf->pages) {
		ret = -ENOMEM;
		goto out_free_buf;
	}

	exp_info.ops = &llmem_dma_buf_ops;
	exp_info.size = size;
	exp_info.flags = O_RDWR;
	exp_info.priv = buf;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_free_pages;
	}
	buf->dmabuf = dmabuf;

	mutex_lock(&llmem_lock);
	list_add_tail(&buf->node, &llmem_buffers);
	mutex_unlock(&llmem_lock);
	return dmabuf;

out_free_pages:
	llmem_free_pages(buf->pages, count);
out_free_buf:
	mutex_destroy(&buf->lock);
	kfree(buf);
out_unreserve:
	atomic_long_sub(count, &llmem_live_pages);
	return ERR_PTR(ret);
}

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
 * Context: process context; takes the reservation lock and, on kernels
 * where vmap is not yet called under it (before 6.2), dmabuf->lock.  Must not hold buf->lock.
 * Return: 0, or -EINTR when interrupted.
 */
static int llmem_describe(struct dma_buf *dmabuf, struct llmem_info *info,
			  struct llmem_importer *names, unsigned int max_names)
{
	struct llmem_buffer *buf = NULL;
	struct dma_buf_attachment *attach;
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	unsigned int n = 0;
	int ret;

	if (dmabuf->ops == &llmem_dma_buf_ops)
		buf = dmabuf->priv;

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
	if (!buf)
		return 0;

	mutex_lock(&buf->lock);
	info->device_maps = buf->device_maps;
	info->device_write_maps = buf->device_write_maps;
	mutex_unlock(&buf->lock);
	info->cpu_mmaps = atomic_read(&buf->cpu_mmaps);
	info->known |= LLMEM_KNOWN_DEVICE_MAPS | LLMEM_KNOWN_CPU_MMAPS |
		       LLMEM_KNOWN_MAPPABLE;
	info->state |= LLMEM_STATE_EXPORTED;
	if (buf->contiguous)
		info->state |= LLMEM_STATE_CONTIGUOUS;
	if (!info->device_write_maps && !info->write_fences)
		info->state |= LLMEM_STATE_MAPPABLE;
	return 0;
}

static int llmem_copy_out(void __user *uarg, const void *data,
			  unsigned int usize, unsigned int ksize)
{
	if (copy_to_user(uarg, data, min(usize, ksize)))
		return -EFAULT;
	return 0;
}

/*
 * The fd is reserved first and installed last, so that a failing copy to
 * user space leaves no descriptor behind in the caller's table.
 */
static long llmem_ioctl_alloc(struct file *file, void *data,
			      void __user *uarg, unsigned int usize)
{
	struct llmem_alloc *alloc = data;
	struct dma_buf *dmabuf;
	int fd, ret;

	if (alloc->flags & ~LLMEM_ALLOC_VALID_FLAGS || alloc->fd)
		return -EINVAL;
	if (!alloc->size || alloc->size > U64_MAX - PAGE_SIZE + 1)
		return -EINVAL;
	alloc->size = PAGE_ALIGN(alloc->size);
	if (alloc->flags & LLMEM_ALLOC_CONTIGUOUS &&
	    alloc->size > LLMEM_MAX_CONTIGUOUS)
		return -E2BIG;
	if (alloc->size > max_bytes)
		return -ENOMEM;

	dmabuf = llmem_buffer_create(alloc->size,
				     alloc->flags & LLMEM_ALLOC_CONTIGUOUS);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);

	fd = get_unused_fd_flags(O_RDWR | (alloc->flags & LLMEM_ALLOC_CLOEXEC ?
					   O_CLOEXEC : 0));
	if (fd < 0) {
		ret = fd;
		goto out_put_dmabuf;
	}
	alloc->fd = fd;
	ret = llmem_copy_out(uarg, alloc, usize, sizeof(*alloc));
	if (ret)
		goto out_put_fd;
	fd_install(fd, dmabuf->file);
	return 0;

out_put_fd:
	put_unused_fd(fd);
out_put_dmabuf:
	dma_buf_put(dmabuf);
	return ret;
}

static long llmem_ioctl_info(struct file *file, void *data,
			     void __user *uarg, unsigned int usize)
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

static long llmem_ioctl_track(struct file *file, void *data,
			      void __user *uarg, unsigned int usize)
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
	if (dmabuf->ops == &llmem_dma_buf_ops) {
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

static long llmem_ioctl_untrack(struct file *file, void *data,
				void __user *uarg, unsigned int usize)
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
 * struct llmem_ioctl_desc - one command of /dev/llmem
 * @cmd: the command as the current header defines it
 * @min_size: the shortest argument an older caller may pass
 * @func: the handler, given the argument already copied in and zero-extended
 */
struct llmem_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	long (*func)(struct file *file, void *data, void __user *uarg,
		     unsigned int usize);
};

static const struct llmem_ioctl_desc llmem_ioctls[] = {
	[_IOC_NR(LLMEM_IOC_ALLOC)] = {
		LLMEM_IOC_ALLOC, sizeof(struct llmem_alloc), llmem_ioctl_alloc,
	},
	[_IOC_NR(LLMEM_IOC_INFO)] = {
		LLMEM_IOC_INFO, LLMEM_INFO_SIZE_VER0, llmem_ioctl_info,
	},
	[_IOC_NR(LLMEM_IOC_TRACK)] = {
		LLMEM_IOC_TRACK, sizeof(struct llmem_track), llmem_ioctl_track,
	},
	[_IOC_NR(LLMEM_IOC_UNTRACK)] = {
		LLMEM_IOC_UNTRACK, sizeof(struct llmem_track),
		llmem_ioctl_untrack,
	},
};

/*
 * The size encoded in the caller's command is the size of the caller's
 * struct: bytes it did not pass read as zero, and bytes it passed beyond what
 * this module knows must be zero.
 */
static long llmem_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	union {
		struct llmem_alloc alloc;
		struct llmem_info info;
		struct llmem_track track;
	} data;
	const struct llmem_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd);
	void __user *uarg = (void __user *)arg;
	int ret;

	if (_IOC_TYPE(cmd) != LLMEM_IOC_MAGIC || nr >= ARRAY_SIZE(llmem_ioctls))
		return -ENOTTY;
	desc = &llmem_ioctls[nr];
	if (!desc->func || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;

	ret = copy_struct_from_user(&data, _IOC_SIZE(desc->cmd), uarg, usize);
	if (ret == -E2BIG)
		return -EINVAL;
	if (ret)
		return ret;
	return desc->func(file, &data, uarg, usize);
}

static int llmem_open(struct inode *inode, struct file *file)
{
	struct llmem_file *lf;

	lf = kzalloc(sizeof(*lf), GFP_KERNEL);
	if (!lf)
		return -ENOMEM;
	INIT_LIST_HEAD(&lf->tracked);
	file->private_data = lf;
	return 0;
}

static int llmem_release(struct inode *inode, struct file *file)
{
	struct llmem_file *lf = file->private_data;
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
	kfree(lf);
	return 0;
}

static const struct file_operations llmem_fops = {
	.owner = THIS_MODULE,
	.open = llmem_open,
	.release = llmem_release,
	.unlocked_ioctl = llmem_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice llmem_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "llmem",
	.fops = &llmem_fops,
	.mode = 0666,
};

static void llmem_show_one(struct seq_file *m, struct dma_buf *dmabuf,
			   pid_t owner, struct llmem_importer *names)
{
	struct llmem_info info = {};
	unsigned int i;

	if (llmem_describe(dmabuf, &info, names, LLMEM_MAX_IMPORTERS)) {
		seq_puts(m, "interrupted\n");
		return;
	}
	seq_printf(m, "%-12s %12llu %7d %6u ", info.exporter, info.size, owner,
		   info.attachments);
	if (info.known & LLMEM_KNOWN_DEVICE_MAPS)
		seq_printf(m, "%5u %5u %5u ", info.device_maps,
			   info.device_write_maps, info.cpu_mmaps);
	else
		seq_puts(m, "    ?     ?     ? ");
	seq_printf(m, "%5u %6u %8s %6s ", info.vmaps, info.fences,
		   !(info.known & LLMEM_KNOWN_MAPPABLE) ? "?" :
		   info.state & LLMEM_STATE_MAPPABLE ? "yes" : "no",
		   !(info.state & LLMEM_STATE_EXPORTED) ? "?" :
		   info.state & LLMEM_STATE_CONTIGUOUS ? "yes" : "no");
	if (!info.attachments)
		seq_putc(m, '-');
	for (i = 0; i < min_t(u32, info.attachments, LLMEM_MAX_IMPORTERS); i++)
		seq_printf(m, "%s%s", i ? "," : "", names[i].dev_name);
	seq_printf(m, " %s\n", info.name[0] ? info.name : "-");
}

/*
 * One line per buffer: llmem's own, then the foreign ones tracked.  A "?"
 * is a count llmem cannot see for a buffer it did not export.  Importers are
 * comma-separated; the name, which may hold spaces, comes last.
 */
static int llmem_buffers_show(struct seq_file *m, void *unused)
{
	struct llmem_importer *names;
	struct llmem_buffer *buf;
	struct llmem_tracked *t;

	names = kcalloc(LLMEM_MAX_IMPORTERS, sizeof(*names), GFP_KERNEL);
	if (!names)
		return -ENOMEM;

	seq_puts(m, "exporter             size     pid attach dmaps wmaps mmaps vmaps fences mappable contig importers name\n");
	mutex_lock(&llmem_lock);
	list_for_each_entry(buf, &llmem_buffers, node)
		llmem_show_one(m, buf->dmabuf, buf->owner, names);
	list_for_each_entry(t, &llmem_tracked, node)
		llmem_show_one(m, t->dmabuf, t->owner, names);
	mutex_unlock(&llmem_lock);

	kfree(names);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(llmem_buffers);

static int llmem_live_pages_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%ld\n", atomic_long_read(&llmem_live_pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(llmem_live_pages);

static int __init llmem_init(void)
{
	int ret;

	if (!max_bytes)
		max_bytes = (totalram_pages() / 4) << PAGE_SHIFT;

	llmem_debugfs = debugfs_create_dir("llmem", NULL);
	debugfs_create_file("buffers", 0400, llmem_debugfs, NULL,
			    &llmem_buffers_fops);
	debugfs_create_file("live_pages", 0400, llmem_debugfs, NULL,
			    &llmem_live_pages_fops);

	ret = misc_register(&llmem_misc);
	if (ret)
		goto out_remove_debugfs;
	return 0;

out_remove_debugfs:
	debugfs_remove_recursive(llmem_debugfs);
	return ret;
}

static void __exit llmem_exit(void)
{
	misc_deregister(&llmem_misc);
	debugfs_remove_recursive(llmem_debugfs);
}

module_init(llmem_init);
module_exit(llmem_exit);

MODULE_DESCRIPTION("llmem: DMA-BUF exporter and page-mappability tracker");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
