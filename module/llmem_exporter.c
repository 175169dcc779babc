// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: the DMA-BUF exporter.
 *
 * Owns struct llmem_buffer and its pages: their allocation (scattered or
 * physically contiguous) against the module's byte cap (its max_bytes
 * parameter) and the allocating process's (llmem_quota.c), the dma_buf_ops
 * an importer calls and the vm_ops of user mappings, which count
 * attachments, device mappings, pins and CPU mappings for the tracker,
 * LLMEM_IOC_ALLOC, and LLMEM_IOC_EXPORT_RANGE, which exports a page range of
 * a buffer as a buffer of its own over the same pages.
 */
#include <linux/atomic.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "llmem.h"

unsigned long llmem_max_bytes;
module_param_named(max_bytes, llmem_max_bytes, ulong, 0444);
MODULE_PARM_DESC(max_bytes,
		 "Most bytes all llmem buffers may hold together (default: a quarter of RAM)");

/*
 * On by default: the udev rule installed with the module opens /dev/llmem to
 * the video group only while this is on, since without a charge to the
 * allocating process's memory cgroup nothing but the module's own caps bound
 * what a user may pin, whatever memory.max says.
 */
static bool llmem_mem_accounting = true;
module_param_named(mem_accounting, llmem_mem_accounting, bool, 0444);
MODULE_PARM_DESC(mem_accounting,
		 "Charge buffers' pages to the allocating process's memory cgroup (default: on)");

/* The page array is charged with the pages, so that it leaks no charge. */
static gfp_t llmem_array_gfp(void)
{
	return llmem_mem_accounting ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
}

atomic_long_t llmem_live_pages = ATOMIC_LONG_INIT(0);
LIST_HEAD(llmem_buffers);

/* The largest block the buddy allocator hands out: 4 MiB on x86. */
#define LLMEM_MAX_CONTIGUOUS ((u64)MAX_ORDER_NR_PAGES << PAGE_SHIFT)

/**
 * struct llmem_attachment - one device attached to a struct llmem_buffer
 * @node: entry in llmem_buffer.attachments
 * @dev: the attached device
 * @sgt: the pages as that device sees them, valid while @mapped
 * @dir: the direction of the current mapping
 * @mapped: whether the attachment is mapped
 * @pins: pins held, by the importer (dma_buf_pin()) and by the core for it
 * @span_node: while mapped so that the device may write, entry in the
 *             write_spans of the buffer that allocated the pages
 * @pin_node: while @pins is not 0, entry in the pin_spans of that buffer
 * @first: the first of the pages the attachment covers, in that buffer
 * @count: how many
 */
struct llmem_attachment {
	struct list_head node;
	struct device *dev;
	struct sg_table sgt;
	enum dma_data_direction dir;
	bool mapped;
	unsigned int pins;
	struct list_head span_node;
	struct list_head pin_node;
	pgoff_t first;
	pgoff_t count;
};

static bool llmem_dir_writes(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

/* The buffer that allocated @buf's pages: @buf itself, or a range's parent. */
static struct llmem_buffer *llmem_root(struct llmem_buffer *buf)
{
	return buf->parent ?: buf;
}

static bool llmem_overlaps(struct llmem_buffer *buf, struct llmem_attachment *a)
{
	return a->first < buf->first + buf->pagecount &&
	       buf->first < a->first + a->count;
}

/*
 * Whether an attachment on the root's write_spans (@pins false) or
 * pin_spans (@pins true) covers a page of @buf, whichever buffer over the
 * same pages the device attached to.
 */
static bool llmem_spans_cover(struct llmem_buffer *buf, bool pins)
{
	struct llmem_buffer *root = llmem_root(buf);
	struct list_head *spans = pins ? &root->pin_spans : &root->write_spans;
	struct llmem_attachment *a;
	struct list_head *pos;
	bool found = false;

	spin_lock(&root->spans_lock);
	list_for_each(pos, spans) {
		a = pins ? list_entry(pos, struct llmem_attachment, pin_node) :
			   list_entry(pos, struct llmem_attachment, span_node);
		if (llmem_overlaps(buf, a)) {
			found = true;
			break;
		}
	}
	spin_unlock(&root->spans_lock);
	return found;
}

/**
 * llmem_buffer_device_writes() - whether a device may write any of the pages
 * @buf: an llmem buffer or range
 *
 * Any attachment mapped for writing counts, of @buf, of the buffer that
 * allocated its pages or of any other range of it, as long as its pages and
 * @buf's overlap: a page a device writes is not the CPU's to map, whichever
 * fd is asked about it.
 *
 * Context: any context; takes the spans_lock of @buf's root.
 * Return: true when such a mapping exists.
 */
bool llmem_buffer_device_writes(struct llmem_buffer *buf)
{
	return llmem_spans_cover(buf, false);
}

/**
 * llmem_buffer_pinned() - whether a device holds a pin on any of the pages
 * @buf: an llmem buffer or range
 *
 * As for writes, a pin counts through whichever buffer over the same pages
 * the device attached to: the pin is on the pages, not on the fd.
 *
 * Context: any context; takes the spans_lock of @buf's root.
 * Return: true when such a pin exists.
 */
bool llmem_buffer_pinned(struct llmem_buffer *buf)
{
	return llmem_spans_cover(buf, true);
}

/**
 * llmem_buffer_gup_pinned() - pages a GUP user holds pinned for DMA
 * @buf: an llmem buffer or range
 *
 * FOLL_PIN (ibv_reg_mr() of a mapping, O_DIRECT in flight) pins the folio:
 * folio_maybe_dma_pinned() is exact for a high-order block, whose pins the
 * folio counts, and reads the reference count's bias for a single page,
 * hence "maybe".  A block pinned anywhere counts whole.
 *
 * Context: process context; the caller keeps @buf alive.
 * Return: the number of @buf's pages in pinned folios.
 */
pgoff_t llmem_buffer_gup_pinned(struct llmem_buffer *buf)
{
	pgoff_t i, pinned = 0;

	for (i = 0; i < buf->pagecount; i++)
		if (folio_maybe_dma_pinned(page_folio(buf->pages[i])))
			pinned++;
	return pinned;
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

	llmem_assert_unreserved(dmabuf);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->dev = attachment->dev;
	a->first = buf->first;
	a->count = buf->pagecount;
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

	llmem_assert_unreserved(dmabuf);
	mutex_lock(&buf->lock);
	list_del(&a->node);
	mutex_unlock(&buf->lock);
	kfree(a);
}

/*
 * Each attachment gets its own sg_table, so that each device's DMA addresses
 * and the direction it mapped with are kept apart; dma_map_sgtable() does the
 * cache maintenance for the direction asked.  Physically contiguous pages
 * (a block of llmem_alloc_pages() or a contiguous buffer) share one entry, up
 * to the longest segment the device takes.
 */
static struct sg_table *
llmem_dma_buf_map_dma_buf(struct dma_buf_attachment *attachment,
			  enum dma_data_direction dir)
{
	struct llmem_buffer *buf = attachment->dmabuf->priv;
	struct llmem_attachment *a = attachment->priv;
	int ret;

	llmem_assert_map_locked(attachment->dmabuf);
	mutex_lock(&buf->lock);
	if (a->mapped) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = sg_alloc_table_from_pages_segment(&a->sgt, buf->pages,
						buf->pagecount, 0,
						buf->pagecount << PAGE_SHIFT,
						dma_get_max_seg_size(a->dev),
						GFP_KERNEL);
	if (ret)
		goto out_unlock;
	ret = dma_map_sgtable(a->dev, &a->sgt, dir, 0);
	if (ret)
		goto out_free_table;

	a->dir = dir;
	a->mapped = true;
	buf->device_maps++;
	if (llmem_dir_writes(dir)) {
		buf->device_write_maps++;
		spin_lock(&llmem_root(buf)->spans_lock);
		list_add(&a->span_node, &llmem_root(buf)->write_spans);
		spin_unlock(&llmem_root(buf)->spans_lock);
	}
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

	llmem_assert_map_locked(attachment->dmabuf);
	mutex_lock(&buf->lock);
	dma_unmap_sgtable(a->dev, sgt, dir, 0);
	sg_free_table(sgt);
	a->mapped = false;
	buf->device_maps--;
	if (llmem_dir_writes(a->dir)) {
		buf->device_write_maps--;
		spin_lock(&llmem_root(buf)->spans_lock);
		list_del(&a->span_node);
		spin_unlock(&llmem_root(buf)->spans_lock);
	}
	mutex_unlock(&buf->lock);
}

static int llmem_dma_buf_begin_cpu_access(struct dma_buf *dmabuf,
					  enum dma_data_direction dir)
{
	struct llmem_buffer *buf = dmabuf->priv;
	struct llmem_attachment *a;

	llmem_assert_unreserved(dmabuf);
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

	llmem_assert_unreserved(dmabuf);
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
 * The whole range is inserted at mmap time with one vm_insert_pages(), which
 * fills a page table per lock taken, so the first touch of a page never
 * faults.  The pages are inserted as ordinary refcounted pages, not with
 * remap_pfn_range(): a VM_PFNMAP mapping is refused by get_user_pages(), and
 * so by O_DIRECT, vmsplice(), process_vm_readv() and RDMA registration of
 * the address range, which take these pages like any other.  Private
 * mappings are refused: a copy-on-write view of shared device memory would
 * silently stop seeing the device's writes.
 *
 * Neither kernel holds the reservation lock around mmap: not for the fd's
 * own mmap (dma_buf_mmap_internal()) nor for an importer's dma_buf_mmap().
 * 6.2+'s locking convention makes that a rule (mmap is among the callbacks
 * "invoked with unlocked dma-buf reservation"), asserted there; 6.1 states
 * no rule for dma_buf_mmap()'s callers, so nothing is asserted on it.
 */
static int llmem_dma_buf_mmap(struct dma_buf *dmabuf,
			      struct vm_area_struct *vma)
{
	struct llmem_buffer *buf = dmabuf->priv;
	unsigned long count = vma_pages(vma);
	int ret;

#ifdef LLMEM_VMAP_UNDER_RESV
	llmem_assert_unreserved(dmabuf);
#endif
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
 * Only a dynamic buffer (LLMEM_ALLOC_DYNAMIC, LLMEM_EXPORT_RANGE_DYNAMIC)
 * has pin and unpin.  llmem's pages never move: they are allocated at export
 * and freed with the last buffer over them, so there is nothing for a pin to
 * hold in place, and dma_buf_move_notify() is never called.  A pin is
 * counted, per attachment and on the pages the attachment covers, so that
 * INFO and debugfs show who holds one.  Both kernels call pin and unpin with
 * the reservation lock held: from dma_buf_pin() and dma_buf_unpin(), which
 * assert it, and where the core pins for an importer (a static importer's
 * mapping at attach, every mapping when CONFIG_DMABUF_MOVE_NOTIFY is off, as
 * in Debian's kernels), under it.
 */
static int llmem_dma_buf_pin(struct dma_buf_attachment *attachment)
{
	struct llmem_buffer *buf = attachment->dmabuf->priv;
	struct llmem_buffer *root = llmem_root(buf);
	struct llmem_attachment *a = attachment->priv;

	dma_resv_assert_held(attachment->dmabuf->resv);
	mutex_lock(&buf->lock);
	if (!a->pins++) {
		buf->pinned++;
		spin_lock(&root->spans_lock);
		list_add(&a->pin_node, &root->pin_spans);
		spin_unlock(&root->spans_lock);
	}
	mutex_unlock(&buf->lock);
	return 0;
}

static void llmem_dma_buf_unpin(struct dma_buf_attachment *attachment)
{
	struct llmem_buffer *buf = attachment->dmabuf->priv;
	struct llmem_buffer *root = llmem_root(buf);
	struct llmem_attachment *a = attachment->priv;

	dma_resv_assert_held(attachment->dmabuf->resv);
	mutex_lock(&buf->lock);
	if (WARN_ON_ONCE(!a->pins))
		goto out_unlock;
	if (!--a->pins) {
		buf->pinned--;
		spin_lock(&root->spans_lock);
		list_del(&a->pin_node);
		spin_unlock(&root->spans_lock);
	}
out_unlock:
	mutex_unlock(&buf->lock);
}

/*
 * The core counts vmap users and calls this only for the first, so one
 * kernel mapping serves them all.
 */
static int llmem_dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct llmem_buffer *buf = dmabuf->priv;
	void *vaddr;

	llmem_assert_vmap_locked(dmabuf);
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

	llmem_assert_vmap_locked(dmabuf);
	mutex_lock(&buf->lock);
	buf->vaddr = NULL;
	mutex_unlock(&buf->lock);
	vunmap(map->vaddr);
	iosys_map_clear(map);
}

/*
 * A block goes back whole, one reference on its head, so that the buddy
 * allocator has it at once for the next high-order request; pages freed one
 * by one would wait in the per-CPU lists before they could merge again.  The
 * array is filled from its start, block after block.
 */
static void llmem_free_pages(struct page **pages, pgoff_t count)
{
	struct folio *folio;
	pgoff_t i = 0;

	while (i < count && pages[i]) {
		folio = page_folio(pages[i]);
		i += folio_nr_pages(folio);
		folio_put(folio);
	}
	kvfree(pages);
}

static void llmem_buffer_free(struct llmem_buffer *buf)
{
	mutex_destroy(&buf->lock);
	kfree(buf);
}

/*
 * A range gives back its reference on the buffer whose pages it shares; the
 * pages go with the last buffer over them.
 */
static void llmem_dma_buf_release(struct dma_buf *dmabuf)
{
	struct llmem_buffer *buf = dmabuf->priv;

	mutex_lock(&llmem_lock);
	list_del(&buf->node);
	mutex_unlock(&llmem_lock);

	if (buf->parent) {
		dma_buf_put(buf->parent->dmabuf);
	} else {
		llmem_free_pages(buf->pages, buf->pagecount);
		llmem_quota_uncharge(buf->quota, buf->pagecount);
		atomic_long_sub(buf->pagecount, &llmem_live_pages);
	}
	llmem_buffer_free(buf);
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
 * With pin, the core treats the buffer as dynamic (dma_buf_is_dynamic()): a
 * dynamic importer maps and unmaps it when it likes, with the direction it
 * asks for, and may pin it; a static importer (V4L2, DRM PRIME on these
 * kernels) is pinned and mapped by the core at attach, DMA_BIDIRECTIONAL,
 * until it detaches.  Hence a flag of its own rather than every buffer.
 */
static const struct dma_buf_ops llmem_dma_buf_dynamic_ops = {
	.attach = llmem_dma_buf_attach,
	.detach = llmem_dma_buf_detach,
	.pin = llmem_dma_buf_pin,
	.unpin = llmem_dma_buf_unpin,
	.map_dma_buf = llmem_dma_buf_map_dma_buf,
	.unmap_dma_buf = llmem_dma_buf_unmap_dma_buf,
	.begin_cpu_access = llmem_dma_buf_begin_cpu_access,
	.end_cpu_access = llmem_dma_buf_end_cpu_access,
	.mmap = llmem_dma_buf_mmap,
	.vmap = llmem_dma_buf_vmap,
	.vunmap = llmem_dma_buf_vunmap,
	.release = llmem_dma_buf_release,
};

/**
 * llmem_buffer_of() - the llmem buffer behind a DMA-BUF
 * @dmabuf: any DMA-BUF, kept alive by the caller
 *
 * Context: any context.
 * Return: the struct llmem_buffer that @dmabuf exports, or NULL when another
 * driver exported @dmabuf.
 */
struct llmem_buffer *llmem_buffer_of(struct dma_buf *dmabuf)
{
	if (dmabuf->ops != &llmem_dma_buf_ops &&
	    dmabuf->ops != &llmem_dma_buf_dynamic_ops)
		return NULL;
	return dmabuf->priv;
}

/*
 * The orders tried, largest first, as the system DMA heap does: 1 MiB blocks
 * fill most of a large buffer with a few calls, merge into few scatterlist
 * entries and free back whole; 64 KiB blocks are the next best thing once
 * memory is fragmented, and single pages never fail for fragmentation.
 */
static const unsigned int llmem_orders[] = { 8, 4, 0 };

/*
 * A high order is an optimisation: it must neither reclaim nor compact
 * (taking a smaller block is cheaper) nor warn.  Order 0 reclaims as hard as
 * it must but never calls the OOM killer, globally or in the caller's memory
 * cgroup (__GFP_RETRY_MAYFAIL): past what it may have, ALLOC is -ENOMEM.
 */
static gfp_t llmem_gfp(unsigned int order)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN;

	if (llmem_mem_accounting)
		gfp |= __GFP_ACCOUNT;
	if (order)
		return (gfp | __GFP_COMP | __GFP_NORETRY) & ~__GFP_RECLAIM;
	return gfp | __GFP_RETRY_MAYFAIL;
}

/*
 * Zeroed pages, in the largest blocks that fit what is left and that the
 * buddy allocator has.  A block is a compound page, as the system heap's
 * are: a reference on any of its pages (vm_insert_pages(), get_user_pages())
 * is a reference on the block, and it is freed whole.  @pages still has one
 * entry per page, so that mmap, vmap, ranges and the tracker work page by
 * page whatever block a page came from.  An order that fails is not tried
 * again for this buffer.
 */
static struct page **llmem_alloc_pages(pgoff_t count)
{
	unsigned int i = 0, order, n;
	struct page **pages;
	struct page *page;
	pgoff_t done = 0;

	pages = kvcalloc(count, sizeof(*pages), llmem_array_gfp());
	if (!pages)
		return NULL;

	while (done < count) {
		/* avoid allocating more if the process has been killed */
		if (fatal_signal_pending(current))
			goto out_free_pages;
		order = llmem_orders[i];
		if (count - done < 1UL << order) {
			i++;
			continue;
		}
		page = alloc_pages(llmem_gfp(order), order);
		if (!page) {
			if (!order)
				goto out_free_pages;
			i++;
			continue;
		}
		for (n = 0; n < 1U << order; n++)
			pages[done++] = page + n;
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

	if (llmem_mem_accounting)
		gfp |= __GFP_ACCOUNT;
	pages = kvcalloc(count, sizeof(*pages), llmem_array_gfp());
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

static struct llmem_buffer *llmem_buffer_alloc(pgoff_t count, bool contiguous)
{
	struct llmem_buffer *buf;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	mutex_init(&buf->lock);
	spin_lock_init(&buf->spans_lock);
	INIT_LIST_HEAD(&buf->write_spans);
	INIT_LIST_HEAD(&buf->pin_spans);
	INIT_LIST_HEAD(&buf->attachments);
	INIT_LIST_HEAD(&buf->node);
	buf->pagecount = count;
	buf->owner = task_tgid_nr(current);
	buf->contiguous = contiguous;
	return buf;
}

/*
 * Exports @buf, its pages in place, with the reservation object @resv (NULL:
 * one of its own), dynamic (with pin and unpin) or not, and lists it for
 * debugfs.
 */
static struct dma_buf *llmem_buffer_export(struct llmem_buffer *buf,
					   struct dma_resv *resv, bool dynamic)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;

	exp_info.ops = dynamic ? &llmem_dma_buf_dynamic_ops : &llmem_dma_buf_ops;
	exp_info.size = buf->pagecount << PAGE_SHIFT;
	exp_info.flags = O_RDWR;
	exp_info.priv = buf;
	exp_info.resv = resv;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf))
		return dmabuf;
	buf->dmabuf = dmabuf;

	mutex_lock(&llmem_lock);
	list_add_tail(&buf->node, &llmem_buffers);
	mutex_unlock(&llmem_lock);
	return dmabuf;
}

/**
 * llmem_buffer_create() - allocate zeroed pages and export them
 * @size: bytes, already rounded to whole pages
 * @contiguous: whether the pages must be physically contiguous
 * @dynamic: whether to export it with pin and unpin
 *
 * The pages count against max_bytes and max_bytes_per_process from the
 * moment they are reserved, so that concurrent callers cannot together
 * exceed either.
 *
 * Context: process context; takes llmem_lock.
 * Return: the new DMA-BUF, or an ERR_PTR(): -ENOMEM past either cap or when
 * the pages (or, @contiguous, one block for them all) cannot be had.
 */
static struct dma_buf *llmem_buffer_create(u64 size, bool contiguous,
					   bool dynamic)
{
	pgoff_t count = size >> PAGE_SHIFT;
	struct llmem_buffer *buf;
	struct dma_buf *dmabuf;
	int ret;

	if (atomic_long_add_return(count, &llmem_live_pages) >
	    llmem_max_bytes >> PAGE_SHIFT) {
		ret = -ENOMEM;
		goto out_unreserve;
	}

	buf = llmem_buffer_alloc(count, contiguous);
	if (!buf) {
		ret = -ENOMEM;
		goto out_unreserve;
	}
	buf->quota = llmem_quota_charge(count);
	if (IS_ERR(buf->quota)) {
		ret = PTR_ERR(buf->quota);
		goto out_free_buf;
	}
	if (contiguous)
		buf->pages = llmem_alloc_contiguous(count);
	else
		buf->pages = llmem_alloc_pages(count);
	if (!buf->pages) {
		ret = -ENOMEM;
		goto out_uncharge;
	}

	dmabuf = llmem_buffer_export(buf, NULL, dynamic);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_free_pages;
	}
	return dmabuf;

out_free_pages:
	llmem_free_pages(buf->pages, count);
out_uncharge:
	llmem_quota_uncharge(buf->quota, count);
out_free_buf:
	llmem_buffer_free(buf);
out_unreserve:
	atomic_long_sub(count, &llmem_live_pages);
	return ERR_PTR(ret);
}

/**
 * llmem_range_create() - export a page range of an llmem buffer
 * @src: the buffer the range is taken from, kept alive by the caller
 * @first: the range's first page in @src
 * @count: pages in the range, within @src
 * @dynamic: whether to export it with pin and unpin, whatever @src is
 *
 * The range shares the pages and the reservation object of the buffer that
 * allocated them and holds a reference on that buffer's DMA-BUF, so the
 * pages outlive whichever of them is released first.  A range of a range
 * refers to that buffer directly.  No page is allocated, so nothing counts
 * against max_bytes.
 *
 * Context: process context; takes llmem_lock.
 * Return: the new DMA-BUF, or an ERR_PTR(): -ENOMEM, or what
 * dma_buf_export() returns.
 */
static struct dma_buf *llmem_range_create(struct llmem_buffer *src,
					  pgoff_t first, pgoff_t count,
					  bool dynamic)
{
	struct llmem_buffer *parent = src->parent ?: src;
	struct llmem_buffer *buf;
	struct dma_buf *dmabuf;

	buf = llmem_buffer_alloc(count, src->contiguous);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	buf->pages = src->pages + first;
	buf->parent = parent;
	buf->first = src->first + first;

	get_dma_buf(parent->dmabuf);
	dmabuf = llmem_buffer_export(buf, parent->dmabuf->resv, dynamic);
	if (IS_ERR(dmabuf))
		goto out_put_parent;
	return dmabuf;

out_put_parent:
	dma_buf_put(parent->dmabuf);
	llmem_buffer_free(buf);
	return dmabuf;
}

/**
 * llmem_ioctl_alloc() - LLMEM_IOC_ALLOC: export zeroed pages as a DMA-BUF
 * @file: the open /dev/llmem
 * @data: the caller's struct llmem_alloc, copied in and zero-extended
 * @uarg: where it came from, for the copy back
 * @usize: the size of the caller's struct
 *
 * The fd is reserved first and installed last, so that a failing copy to
 * user space leaves no descriptor behind in the caller's table.
 *
 * Context: process context; takes llmem_lock.
 * Return: 0; -EINVAL for unknown flags, a non-zero @fd on input, size 0 or a
 * size whose rounding overflows; -E2BIG for a contiguous size above the
 * largest block; -ENOMEM past max_bytes or max_bytes_per_process or when
 * the pages cannot be had; -EMFILE or -EFAULT from the fd table and the copy
 * back.
 */
long llmem_ioctl_alloc(struct file *file, void *data, void __user *uarg,
		       unsigned int usize)
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
	if (alloc->size > llmem_max_bytes)
		return -ENOMEM;

	dmabuf = llmem_buffer_create(alloc->size,
				     alloc->flags & LLMEM_ALLOC_CONTIGUOUS,
				     alloc->flags & LLMEM_ALLOC_DYNAMIC);
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

/**
 * llmem_ioctl_export_range() - LLMEM_IOC_EXPORT_RANGE: a range as a DMA-BUF
 * @file: the open /dev/llmem
 * @data: the caller's struct llmem_export_range, copied in and zero-extended
 * @uarg: where it came from, for the copy back
 * @usize: the size of the caller's struct
 *
 * Every input is checked before anything is created.  The fd is reserved
 * first and installed last, so that a failing copy to user space leaves no
 * descriptor behind in the caller's table.
 *
 * Context: process context; takes llmem_lock.
 * Return: 0; -EINVAL for unknown flags, a non-zero @out_fd or @pad on input,
 * an offset or size that is not a multiple of the page size, size 0, a range
 * that overflows or passes the end of the buffer, or an fd that is not a
 * DMA-BUF llmem exported; -EBADF for a bad fd; -ENOMEM; -EMFILE or -EFAULT
 * from the fd table and the copy back.
 */
long llmem_ioctl_export_range(struct file *file, void *data,
			      void __user *uarg, unsigned int usize)
{
	struct llmem_export_range *range = data;
	struct dma_buf *src_dmabuf, *dmabuf;
	struct llmem_buffer *src;
	u64 end;
	int fd, ret;

	if (range->flags & ~LLMEM_EXPORT_RANGE_VALID_FLAGS || range->out_fd ||
	    range->pad)
		return -EINVAL;
	if (!range->size || !PAGE_ALIGNED(range->offset) ||
	    !PAGE_ALIGNED(range->size) ||
	    check_add_overflow(range->offset, range->size, &end))
		return -EINVAL;

	src_dmabuf = dma_buf_get(range->fd);
	if (IS_ERR(src_dmabuf))
		return PTR_ERR(src_dmabuf);
	src = llmem_buffer_of(src_dmabuf);
	if (!src || end > src_dmabuf->size) {
		ret = -EINVAL;
		goto out_put_src;
	}

	fd = get_unused_fd_flags(O_RDWR |
				 (range->flags & LLMEM_EXPORT_RANGE_CLOEXEC ?
				  O_CLOEXEC : 0));
	if (fd < 0) {
		ret = fd;
		goto out_put_src;
	}
	dmabuf = llmem_range_create(src, range->offset >> PAGE_SHIFT,
				    range->size >> PAGE_SHIFT,
				    range->flags & LLMEM_EXPORT_RANGE_DYNAMIC);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto out_put_fd;
	}
	range->out_fd = fd;
	ret = llmem_copy_out(uarg, range, usize, sizeof(*range));
	if (ret)
		goto out_put_dmabuf;
	fd_install(fd, dmabuf->file);
	dma_buf_put(src_dmabuf);
	return 0;

out_put_dmabuf:
	dma_buf_put(dmabuf);
out_put_fd:
	put_unused_fd(fd);
out_put_src:
	dma_buf_put(src_dmabuf);
	return ret;
}
