// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: what one process may allocate.
 *
 * max_bytes bounds all buffers together, so one process could take all of
 * it from the others; max_bytes_per_process bounds the buffers each process
 * allocated.  A buffer stays charged to the process that allocated it, to
 * whichever process it is handed and after its allocator exits, as its pages
 * stay charged to the allocator's memory cgroup: handing buffers on makes no
 * room.  A process is its thread group, known by its struct pid rather than
 * its number, so that a number reused after an exit inherits no charge.
 */
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "llmem.h"

/*
 * Writable at run time, so that an administrator can tighten it without
 * unloading the module; a lower value refuses new buffers and takes none
 * away.
 */
static unsigned long llmem_max_bytes_per_process;
module_param_named(max_bytes_per_process, llmem_max_bytes_per_process, ulong,
		   0644);
MODULE_PARM_DESC(max_bytes_per_process,
		 "Most bytes the buffers one process allocated may hold together (default 0: max_bytes)");

/**
 * struct llmem_quota - the buffers one process allocated
 * @node: entry in llmem_quotas, under llmem_quotas_lock
 * @pid: the process's thread group, referenced while the entry lives
 * @pages: pages of its buffers alive, reserved before they are allocated
 *
 * The entry goes when @pages drops to zero.
 */
struct llmem_quota {
	struct hlist_node node;
	struct pid *pid;
	unsigned long pages;
};

static DEFINE_HASHTABLE(llmem_quotas, 6);
static DEFINE_SPINLOCK(llmem_quotas_lock);

static struct llmem_quota *llmem_quota_find(struct pid *pid)
{
	struct llmem_quota *quota;

	hash_for_each_possible(llmem_quotas, quota, node, (unsigned long)pid)
		if (quota->pid == pid)
			return quota;
	return NULL;
}

/* Adds @count pages to @quota unless that passes the limit; 0 or -ENOMEM. */
static int llmem_quota_add(struct llmem_quota *quota, pgoff_t count)
{
	unsigned long limit = READ_ONCE(llmem_max_bytes_per_process);

	if (!limit)
		limit = llmem_max_bytes;
	if (count > limit >> PAGE_SHIFT ||
	    quota->pages > (limit >> PAGE_SHIFT) - count)
		return -ENOMEM;
	quota->pages += count;
	return 0;
}

/**
 * llmem_quota_charge() - count pages against the calling process's limit
 * @count: pages about to be allocated for it
 *
 * Context: process context; takes llmem_quotas_lock.
 * Return: the calling process's entry, for llmem_quota_uncharge() with
 * @count once the pages are gone; ERR_PTR(-ENOMEM) when its buffers would
 * pass max_bytes_per_process, or without memory for a new entry.
 */
struct llmem_quota *llmem_quota_charge(pgoff_t count)
{
	struct pid *pid = task_tgid(current);
	struct llmem_quota *quota, *fresh;
	int ret;

	spin_lock(&llmem_quotas_lock);
	quota = llmem_quota_find(pid);
	if (quota) {
		ret = llmem_quota_add(quota, count);
		spin_unlock(&llmem_quotas_lock);
		return ret ? ERR_PTR(ret) : quota;
	}
	spin_unlock(&llmem_quotas_lock);

	/* The process's first buffer: another thread of it may race here. */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	spin_lock(&llmem_quotas_lock);
	quota = llmem_quota_find(pid);
	if (!quota) {
		quota = fresh;
		quota->pid = get_pid(pid);
		hash_add(llmem_quotas, &quota->node, (unsigned long)pid);
		fresh = NULL;
	}
	ret = llmem_quota_add(quota, count);
	if (ret && !quota->pages) {
		hash_del(&quota->node);
		put_pid(quota->pid);
		fresh = quota;
	}
	spin_unlock(&llmem_quotas_lock);
	kfree(fresh);
	return ret ? ERR_PTR(ret) : quota;
}

/**
 * llmem_quota_uncharge() - give back pages llmem_quota_charge() counted
 * @quota: what llmem_quota_charge() returned
 * @count: the pages it was given
 *
 * Context: any context a DMA-BUF is released in; takes llmem_quotas_lock.
 */
void llmem_quota_uncharge(struct llmem_quota *quota, pgoff_t count)
{
	bool last;

	spin_lock(&llmem_quotas_lock);
	quota->pages -= count;
	last = !quota->pages;
	if (last)
		hash_del(&quota->node);
	spin_unlock(&llmem_quotas_lock);
	if (last) {
		put_pid(quota->pid);
		kfree(quota);
	}
}
