// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: exports zeroed system pages as DMA-BUFs and tracks who maps them.
 *
 * Every buffer llmem exports counts its attachments, device mappings and CPU
 * mappings, so that LLMEM_IOC_INFO can tell the holder of an fd whether the
 * CPU may map the pages now.  A DMA-BUF exported by another driver can be
 * asked about too; llmem then reports only what struct dma_buf shows.
 *
 * This file owns the module: init and exit, the misc device /dev/llmem, its
 * file operations and the ioctl dispatch, which copies each command's struct
 * in and hands it to the handler in llmem_exporter.c or llmem_tracker.c.
 * llmem.h says what the files share and how they lock.
 */
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "llmem.h"

/* Guards llmem_buffers, llmem_tracked and the files' lists (llmem.h). */
DEFINE_MUTEX(llmem_lock);

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
	[_IOC_NR(LLMEM_IOC_EXPORT_RANGE)] = {
		LLMEM_IOC_EXPORT_RANGE, sizeof(struct llmem_export_range),
		llmem_ioctl_export_range,
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
		struct llmem_export_range range;
	} data;
	const struct llmem_ioctl_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int usize = _IOC_SIZE(cmd);
	void __user *uarg = (void __user *)arg;
	int ret;

	if (_IOC_TYPE(cmd) != LLMEM_IOC_MAGIC || nr >= ARRAY_SIZE(llmem_ioctls))
		return -ENOTTY;
	/* nr indexes a table with a function pointer: no speculation past the bound. */
	desc = &llmem_ioctls[array_index_nospec(nr, ARRAY_SIZE(llmem_ioctls))];
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

	llmem_untrack_all(lf);
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

/*
 * No mode: the node is the kernel's default, root's alone, as the DMA heaps'
 * are on Debian; module/70-llmem.rules, installed with the module, gives it
 * to the video group while the pages are charged to memory cgroups.
 */
static struct miscdevice llmem_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "llmem",
	.fops = &llmem_fops,
};

static int __init llmem_init(void)
{
	int ret;

	if (!llmem_max_bytes)
		llmem_max_bytes = (totalram_pages() / 4) << PAGE_SHIFT;

	llmem_debugfs_init();
	ret = misc_register(&llmem_misc);
	if (ret)
		goto out_remove_debugfs;
	return 0;

out_remove_debugfs:
	llmem_debugfs_exit();
	return ret;
}

static void __exit llmem_exit(void)
{
	misc_deregister(&llmem_misc);
	llmem_debugfs_exit();
}

module_init(llmem_init);
module_exit(llmem_exit);

MODULE_DESCRIPTION("llmem: DMA-BUF exporter and page-mappability tracker");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
