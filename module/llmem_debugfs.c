// SPDX-License-Identifier: GPL-2.0
/*
 * llmem: the debugfs files, root only, in /sys/kernel/debug/llmem/.
 *
 * "buffers" is the table of every buffer llmem exported and every foreign
 * one tracked, as LLMEM_IOC_INFO describes them; "live_pages" is the count
 * of pages llmem buffers hold, 0 once every fd and mapping is gone;
 * "gup_pinned_pages" how many of them a GUP user holds pinned for DMA.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "llmem.h"

static struct dentry *llmem_debugfs;

/* Context: llmem_lock held, which keeps @dmabuf listed and so alive. */
static void llmem_show_one(struct seq_file *m, struct dma_buf *dmabuf,
			   pid_t owner, struct llmem_importer *names)
{
	struct llmem_info info = {};
	unsigned int i;

	lockdep_assert_held(&llmem_lock);
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
	seq_printf(m, "%5u %6u %8s %6s %7s ", info.vmaps, info.fences,
		   !(info.known & LLMEM_KNOWN_MAPPABLE) ? "?" :
		   info.state & LLMEM_STATE_MAPPABLE ? "yes" : "no",
		   !(info.state & LLMEM_STATE_EXPORTED) ? "?" :
		   info.state & LLMEM_STATE_CONTIGUOUS ? "yes" : "no",
		   info.state & LLMEM_STATE_DYNAMIC ? "yes" : "no");
	if (info.known & LLMEM_KNOWN_PINS)
		seq_printf(m, "%4u %6s ", info.pins,
			   info.state & LLMEM_STATE_PINNED ? "yes" : "no");
	else
		seq_puts(m, "   ?      ? ");
	if (!info.attachments)
		seq_putc(m, '-');
	for (i = 0; i < min_t(u32, info.attachments, LLMEM_MAX_IMPORTERS); i++)
		seq_printf(m, "%s%s", i ? "," : "", names[i].dev_name);
	seq_printf(m, " %s\n", info.name[0] ? info.name : "-");
}

/*
 * One line per buffer: llmem's own, then the foreign ones tracked.  A "?"
 * is a count llmem cannot see for a buffer it did not export.  "pins" are
 * this buffer's attachments holding a pin, "pinned" whether any device pins
 * one of its pages, through whichever buffer over them.  Importers are
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

	seq_puts(m, "exporter             size     pid attach dmaps wmaps mmaps vmaps fences mappable contig dynamic pins pinned importers name\n");
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

/*
 * Pages of llmem's own buffers that a GUP user holds pinned for DMA
 * (llmem_buffer_gup_pinned()), ranges left out: their pages are their
 * parent's.  A pin outlives the buffer when the mapping goes first: those
 * pages are no longer llmem's, and no longer counted.
 */
static int llmem_gup_pinned_pages_show(struct seq_file *m, void *unused)
{
	struct llmem_buffer *buf;
	unsigned long pinned = 0;

	mutex_lock(&llmem_lock);
	list_for_each_entry(buf, &llmem_buffers, node) {
		if (!buf->parent)
			pinned += llmem_buffer_gup_pinned(buf);
		cond_resched();
	}
	mutex_unlock(&llmem_lock);
	seq_printf(m, "%lu\n", pinned);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(llmem_gup_pinned_pages);

/**
 * llmem_debugfs_init() - create /sys/kernel/debug/llmem/ and its files
 *
 * debugfs failures are not errors: the module works without the files.
 *
 * Context: module init.
 */
void llmem_debugfs_init(void)
{
	llmem_debugfs = debugfs_create_dir("llmem", NULL);
	debugfs_create_file("buffers", 0400, llmem_debugfs, NULL,
			    &llmem_buffers_fops);
	debugfs_create_file("live_pages", 0400, llmem_debugfs, NULL,
			    &llmem_live_pages_fops);
	debugfs_create_file("gup_pinned_pages", 0400, llmem_debugfs, NULL,
			    &llmem_gup_pinned_pages_fops);
}

/**
 * llmem_debugfs_exit() - remove what llmem_debugfs_init() created
 *
 * Context: module init (on its failure) or exit.
 */
void llmem_debugfs_exit(void)
{
	debugfs_remove_recursive(llmem_debugfs);
}
