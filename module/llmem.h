/* SPDX-License-Identifier: GPL-2.0 */
/*
 * llmem: what the files of llmem.ko share.
 *
 * llmem_main.c owns the misc device, its file operations and the ioctl
 * dispatch; llmem_exporter.c the DMA-BUFs llmem exports and their pages;
 * llmem_quota.c what each process may allocate; llmem_tracker.c what llmem
 * reports about any DMA-BUF and the foreign ones handed to it;
 * llmem_debugfs.c the debugfs files.
 */
#ifndef LLMEM_H
#define LLMEM_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include <linux/llmem.h>

/**
 * DOC: llmem locking
 *
 * Outermost first: llmem_lock, then a buffer's reservation lock (then, on
 * kernels before 6.2, dmabuf->lock, never taken inside the reservation lock),
 * then llmem_buffer.lock, then the spans_lock of the buffer that allocated
 * its pages (a spinlock, taken alone by INFO too).
 *
 * The dma-buf core calls map_dma_buf, vmap, pin and unpin with the
 * reservation lock held since 6.2; 6.1 holds it around pin and unpin, around
 * map_dma_buf only for a dynamic exporter, and calls vmap under dmabuf->lock.
 * So the dma_buf_ops callbacks take only the buffer's own lock, innermost,
 * and are correct under both.
 */

/* Most bytes all llmem buffers may hold together (module parameter). */
extern unsigned long llmem_max_bytes;
/* Guards llmem_buffers, llmem_tracked and each struct llmem_file's list. */
extern struct mutex llmem_lock;
/* Every struct llmem_buffer alive, under llmem_lock. */
extern struct list_head llmem_buffers;
/* Every struct llmem_tracked, under llmem_lock. */
extern struct list_head llmem_tracked;
/* Pages held by llmem buffers, reserved before they are allocated. */
extern atomic_long_t llmem_live_pages;

struct llmem_quota;
struct llmem_quota *llmem_quota_charge(pgoff_t count);
void llmem_quota_uncharge(struct llmem_quota *quota, pgoff_t count);

/**
 * struct llmem_buffer - the pages behind one exported DMA-BUF
 * @dmabuf: the DMA-BUF exporting them
 * @node: entry in llmem_buffers, under llmem_lock
 * @lock: guards @attachments, @vaddr and the device mapping counts
 * @attachments: the struct llmem_attachment of every attached device
 * @pages: the pages, each zeroed at allocation; for a range, a slice of
 *         @parent's array
 * @pagecount: number of @pages
 * @parent: for a range (LLMEM_IOC_EXPORT_RANGE), the buffer that allocated
 *          @pages, whose DMA-BUF it holds a reference on (a range of a range
 *          points at the same); NULL for a buffer that allocated its own
 * @vaddr: the kernel mapping while the core holds a vmap, else NULL
 * @device_maps: attachments currently mapped
 * @device_write_maps: those mapped in a direction that lets the device write
 * @pinned: attachments holding at least one pin (a dynamic buffer's only)
 * @cpu_mmaps: user-space VMAs of the buffer
 * @owner: thread group id of the process that allocated or exported it
 * @quota: for a buffer that allocated its pages, the allocating process's
 *         count, which the pages are charged to until they go; NULL for a
 *         range
 * @contiguous: @pages are physically contiguous, in order
 * @first: for a range, the index of its first page in the pages of the
 *         buffer that allocated them; 0 for that buffer
 * @spans_lock: in the buffer that allocated the pages, guards @write_spans
 * @write_spans: in the buffer that allocated the pages, the attachments of it
 *               and of all its ranges mapped so that the device may write,
 *               each with the pages it covers, so that any of them can tell
 *               whether a device writes any of its pages
 * @pin_spans: in the buffer that allocated the pages, the attachments of it
 *             and of all its ranges holding a pin, each with the pages it
 *             covers, so that any of them can tell whether a page is pinned
 */
struct llmem_buffer {
	struct dma_buf *dmabuf;
	struct list_head node;
	struct mutex lock; /* see @lock above */
	struct list_head attachments;
	struct page **pages;
	pgoff_t pagecount;
	struct llmem_buffer *parent;
	void *vaddr;
	unsigned int device_maps;
	unsigned int device_write_maps;
	unsigned int pinned;
	atomic_t cpu_mmaps;
	pid_t owner;
	struct llmem_quota *quota;
	bool contiguous;
	pgoff_t first;
	spinlock_t spans_lock; /* see @spans_lock above */
	struct list_head write_spans;
	struct list_head pin_spans;
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

/**
 * llmem_assert_vmap_locked() - assert the lock the core holds around vmap
 * @dmabuf: the buffer being vmapped, or whose vmap count is read
 *
 * The core counts vmaps and calls the vmap and vunmap callbacks under the
 * reservation lock since 6.2 and under dmabuf->lock before; that lock also
 * guards dmabuf->vmapping_counter.
 */
static inline void llmem_assert_vmap_locked(struct dma_buf *dmabuf)
{
#ifdef LLMEM_VMAP_UNDER_RESV
	dma_resv_assert_held(dmabuf->resv);
#else
	lockdep_assert_held(&dmabuf->lock);
#endif
}

/**
 * llmem_assert_map_locked() - assert the lock the core holds around mapping
 * @dmabuf: the buffer whose attachment is being mapped or unmapped
 *
 * Since 6.2 the core maps and unmaps attachments under the reservation lock.
 * 6.1 does so for a dynamic exporter only (a buffer exported with
 * LLMEM_ALLOC_DYNAMIC): dma_buf_map_attachment() and
 * dma_buf_unmap_attachment() assert it, dma_buf_dynamic_attach() and
 * dma_buf_detach() take it around a static importer's cached mapping.  For a
 * static exporter 6.1's importers call map_dma_buf holding whatever they hold
 * (nothing for DRM PRIME import), and there is nothing to assert.
 */
static inline void llmem_assert_map_locked(struct dma_buf *dmabuf)
{
#ifdef LLMEM_VMAP_UNDER_RESV
	dma_resv_assert_held(dmabuf->resv);
#else
	if (dma_buf_is_dynamic(dmabuf))
		dma_resv_assert_held(dmabuf->resv);
#endif
}

/**
 * llmem_assert_unreserved() - assert the reservation lock is not held
 * @dmabuf: the buffer whose callback is running
 *
 * Both kernels call attach, detach, begin_cpu_access and end_cpu_access
 * without the reservation lock, and take it (or might_lock() it) themselves
 * around them, so a caller holding it would deadlock; 6.2+'s locking
 * convention (drivers/dma-buf/dma-buf.c, "Convention for exporters") lists
 * them, with mmap, among the callbacks an exporter may take the lock in.
 */
static inline void llmem_assert_unreserved(struct dma_buf *dmabuf)
{
	lockdep_assert_not_held(&dmabuf->resv->lock.base);
}

/**
 * llmem_copy_out() - copy a command's struct back to the caller
 * @uarg: the caller's struct
 * @data: the module's copy, holding the results
 * @usize: the size of the caller's struct
 * @ksize: the size of the module's struct
 *
 * No more than the caller passed is written: an older caller's shorter
 * struct gets the fields it knows.
 *
 * Context: process context.
 * Return: 0, or -EFAULT.
 */
static inline int llmem_copy_out(void __user *uarg, const void *data,
				 unsigned int usize, unsigned int ksize)
{
	if (copy_to_user(uarg, data, min(usize, ksize)))
		return -EFAULT;
	return 0;
}

/* llmem_exporter.c */
struct llmem_buffer *llmem_buffer_of(struct dma_buf *dmabuf);
bool llmem_buffer_device_writes(struct llmem_buffer *buf);
bool llmem_buffer_pinned(struct llmem_buffer *buf);
pgoff_t llmem_buffer_gup_pinned(struct llmem_buffer *buf);
long llmem_ioctl_alloc(struct file *file, void *data, void __user *uarg,
		       unsigned int usize);
long llmem_ioctl_export_range(struct file *file, void *data,
			      void __user *uarg, unsigned int usize);

/* llmem_tracker.c */
int llmem_describe(struct dma_buf *dmabuf, struct llmem_info *info,
		   struct llmem_importer *names, unsigned int max_names);
long llmem_ioctl_info(struct file *file, void *data, void __user *uarg,
		      unsigned int usize);
long llmem_ioctl_track(struct file *file, void *data, void __user *uarg,
		       unsigned int usize);
long llmem_ioctl_untrack(struct file *file, void *data, void __user *uarg,
			 unsigned int usize);
void llmem_untrack_all(struct llmem_file *lf);

/* llmem_debugfs.c */
void llmem_debugfs_init(void);
void llmem_debugfs_exit(void);

#endif /* LLMEM_H */
