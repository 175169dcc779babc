// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: exports zeroed system pages as DMA-BUFs and tracks who maps them.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include <linux/llmem.h>

static long llmem_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations llmem_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = llmem_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice llmem_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "llmem",
	.fops = &llmem_fops,
	.mode = 0666,
};

module_misc_device(llmem_misc);

MODULE_DESCRIPTION("llmem: DMA-BUF exporter and page-mappability tracker");
MODULE_LICENSE("GPL");
