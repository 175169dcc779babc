// SPDX-License-Identifier: GPL-2.0
/*
 * llmem_test_importer: a DMA-BUF importer for llmem's VM tests only.
 *
 * The test machines have no device that attaches dynamically or pins (RDMA
 * NICs, GPUs), and V4L2 and DRM PRIME import statically.  This module plays
 * one: /dev/llmem_test_importer takes a DMA-BUF fd and attaches it, static or
 * dynamic (importer ops with move_notify), pins and unpins it, maps and
 * unmaps the attachment in a direction the caller chooses, and detaches,
 * through the test-only ioctls of llmem_test_importer.h.  The DMA device is
 * a platform device of its own, named like the module, with a 64-bit mask
 * and no IOMMU (vgem does the same).
 *
 * Everything it holds belongs to an open file, which holds a reference on
 * the module (file_operations.owner): the file's release lets go of it all,
 * and module exit can never find any left.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "llmem_test_importer.h"

static struct platform_device *llmem_ti_pdev;

/**
 * struct llmem_ti_file - what one open /dev/llmem_test_importer holds
 * @lock: guards the rest; taken before the buffer's reservation lock
 * @dmabuf: the DMA-BUF attached, referenced, or NULL
 * @attach: its attachment, or NULL
 * @sgt: the attachment's mapping, or NULL
 * @dir: the direction of @sgt
 * @pinned: whether the file holds a dma_buf_pin() on @attach
 */
struct llmem_ti_file {
	struct mutex lock; /* see @lock above */
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	bool pinned;
};

/*
 * A dynamic importer must stop using its mapping when the exporter moves the
 * buffer.  llmem's pages never move: a call here is a bug in llmem, and the
 * warning makes the VM rig fail the run.
 */
static void llmem_ti_move_notify(struct dma_buf_attachment *attach)
{
	WARN_ONCE(1, "llmem_test_importer: move_notify on %s\n",
		  attach->dmabuf->exp_name);
}

static const struct dma_buf_attach_ops llmem_ti_importer_ops = {
	.move_notify = llmem_ti_move_notify,
};

static bool llmem_ti_dynamic(struct llmem_ti_file *f)
{
	return dma_buf_attachment_is_dynamic(f->attach);
}

/*
 * A dynamic importer holds the reservation lock around map and unmap, on
 * both kernels; a static one calls the _unlocked variants, which take it on
 * 6.12 and on 6.1 (where they exist too) alike.
 */
static int llmem_ti_map(struct llmem_ti_file *f, enum dma_data_direction dir)
{
	struct sg_table *sgt;

	if (llmem_ti_dynamic(f)) {
		dma_resv_lock(f->dmabuf->resv, NULL);
		sgt = dma_buf_map_attachment(f->attach, dir);
		dma_resv_unlock(f->dmabuf->resv);
	} else {
		sgt = dma_buf_map_attachment_unlocked(f->attach, dir);
	}
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);
	f->sgt = sgt;
	f->dir = dir;
	return 0;
}

static void llmem_ti_unmap(struct llmem_ti_file *f)
{
	if (llmem_ti_dynamic(f)) {
		dma_resv_lock(f->dmabuf->resv, NULL);
		dma_buf_unmap_attachment(f->attach, f->sgt, f->dir);
		dma_resv_unlock(f->dmabuf->resv);
	} else {
		dma_buf_unmap_attachment_unlocked(f->attach, f->sgt, f->dir);
	}
	f->sgt = NULL;
}

/* dma_buf_pin() and dma_buf_unpin() require the reservation lock held. */
static int llmem_ti_pin(struct llmem_ti_file *f)
{
	int ret;

	dma_resv_lock(f->dmabuf->resv, NULL);
	ret = dma_buf_pin(f->attach);
	dma_resv_unlock(f->dmabuf->resv);
	if (!ret)
		f->pinned = true;
	return ret;
}

static void llmem_ti_unpin(struct llmem_ti_file *f)
{
	dma_resv_lock(f->dmabuf->resv, NULL);
	dma_buf_unpin(f->attach);
	dma_resv_unlock(f->dmabuf->resv);
	f->pinned = false;
}

/* Undoes ATTACH, MAP and PIN, in reverse order, whichever were done. */
static void llmem_ti_detach(struct llmem_ti_file *f)
{
	if (f->sgt)
		llmem_ti_unmap(f);
	if (f->pinned)
		llmem_ti_unpin(f);
	dma_buf_detach(f->dmabuf, f->attach);
	f->attach = NULL;
	dma_buf_put(f->dmabuf);
	f->dmabuf = NULL;
}

static long llmem_ti_ioctl_attach(struct llmem_ti_file *f, void __user *uarg)
{
	struct llmem_ti_attach arg;
	struct dma_buf *dmabuf;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags & ~LLMEM_TI_ATTACH_VALID_FLAGS)
		return -EINVAL;
	if (f->attach)
		return -EBUSY;

	dmabuf = dma_buf_get(arg.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (arg.flags & LLMEM_TI_ATTACH_DYNAMIC)
		f->attach = dma_buf_dynamic_attach(dmabuf, &llmem_ti_pdev->dev,
						   &llmem_ti_importer_ops, f);
	else
		f->attach = dma_buf_attach(dmabuf, &llmem_ti_pdev->dev);
	if (IS_ERR(f->attach)) {
		ret = PTR_ERR(f->attach);
		f->attach = NULL;
		goto out_put_dmabuf;
	}
	f->dmabuf = dmabuf;
	return 0;

out_put_dmabuf:
	dma_buf_put(dmabuf);
	return ret;
}

static const enum dma_data_direction llmem_ti_dirs[] = {
	[LLMEM_TI_DIR_BIDIRECTIONAL] = DMA_BIDIRECTIONAL,
	[LLMEM_TI_DIR_TO_DEVICE] = DMA_TO_DEVICE,
	[LLMEM_TI_DIR_FROM_DEVICE] = DMA_FROM_DEVICE,
};

static long llmem_ti_ioctl_map(struct llmem_ti_file *f, void __user *uarg)
{
	struct llmem_ti_map arg;
	struct scatterlist *sg;
	unsigned int i;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!arg.dir || arg.dir >= ARRAY_SIZE(llmem_ti_dirs) || arg.flags ||
	    arg.size)
		return -EINVAL;
	if (!f->attach)
		return -ENOENT;
	if (f->sgt)
		return -EBUSY;

	i = array_index_nospec(arg.dir, ARRAY_SIZE(llmem_ti_dirs));
	ret = llmem_ti_map(f, llmem_ti_dirs[i]);
	if (ret)
		return ret;
	for_each_sgtable_dma_sg(f->sgt, sg, i)
		arg.size += sg_dma_len(sg);
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		llmem_ti_unmap(f);
		return -EFAULT;
	}
	return 0;
}

static long llmem_ti_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct llmem_ti_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	mutex_lock(&f->lock);
	switch (cmd) {
	case LLMEM_TI_IOC_ATTACH:
		ret = llmem_ti_ioctl_attach(f, uarg);
		break;
	case LLMEM_TI_IOC_PIN:
		if (!f->attach)
			ret = -ENOENT;
		else if (!llmem_ti_dynamic(f))
			ret = -EINVAL;
		else if (f->pinned)
			ret = -EBUSY;
		else
			ret = llmem_ti_pin(f);
		break;
	case LLMEM_TI_IOC_UNPIN:
		ret = !f->attach ? -ENOENT : !f->pinned ? -EINVAL : 0;
		if (!ret)
			llmem_ti_unpin(f);
		break;
	case LLMEM_TI_IOC_MAP:
		ret = llmem_ti_ioctl_map(f, uarg);
		break;
	case LLMEM_TI_IOC_UNMAP:
		ret = !f->attach ? -ENOENT : !f->sgt ? -EINVAL : 0;
		if (!ret)
			llmem_ti_unmap(f);
		break;
	case LLMEM_TI_IOC_DETACH:
		ret = f->attach ? 0 : -ENOENT;
		if (!ret)
			llmem_ti_detach(f);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&f->lock);
	return ret;
}

static int llmem_ti_open(struct inode *inode, struct file *file)
{
	struct llmem_ti_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int llmem_ti_release(struct inode *inode, struct file *file)
{
	struct llmem_ti_file *f = file->private_data;

	if (f->attach)
		llmem_ti_detach(f);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations llmem_ti_fops = {
	.owner = THIS_MODULE,
	.open = llmem_ti_open,
	.release = llmem_ti_release,
	.unlocked_ioctl = llmem_ti_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice llmem_ti_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "llmem_test_importer",
	.fops = &llmem_ti_fops,
	.mode = 0600,
};

static int __init llmem_ti_init(void)
{
	int ret;

	llmem_ti_pdev = platform_device_register_simple("llmem_test_importer",
							PLATFORM_DEVID_NONE,
							NULL, 0);
	if (IS_ERR(llmem_ti_pdev))
		return PTR_ERR(llmem_ti_pdev);
	ret = dma_coerce_mask_and_coherent(&llmem_ti_pdev->dev,
					   DMA_BIT_MASK(64));
	if (ret)
		goto out_unregister_pdev;

	llmem_ti_misc.parent = &llmem_ti_pdev->dev;
	ret = misc_register(&llmem_ti_misc);
	if (ret)
		goto out_unregister_pdev;
	return 0;

out_unregister_pdev:
	platform_device_unregister(llmem_ti_pdev);
	return ret;
}

static void __exit llmem_ti_exit(void)
{
	misc_deregister(&llmem_ti_misc);
	platform_device_unregister(llmem_ti_pdev);
}

module_init(llmem_ti_init);
module_exit(llmem_ti_exit);

MODULE_DESCRIPTION("llmem: a DMA-BUF importer for llmem's tests only");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
