/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * llmem: the ioctl ABI of /dev/llmem.
 *
 * /dev/llmem allocates zeroed system pages and exports them as DMA-BUFs,
 * exports page ranges of those DMA-BUFs as DMA-BUFs of their own, and
 * reports, for a DMA-BUF fd the caller holds, who has it attached and mapped
 * and whether the CPU may map it now.  Every struct is naturally aligned and
 * made of fixed-size fields; every flag bit and field not defined here must
 * be zero.  A struct may grow at its end: the module copies as many bytes as
 * the caller's command encodes, treats the bytes it was not given as zero,
 * writes back no more than the caller passed, and rejects a longer struct
 * whose bytes past the known end are not all zero.
 */
#ifndef _UAPI_LINUX_LLMEM_H
#define _UAPI_LINUX_LLMEM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LLMEM_IOC_MAGIC 'L'

/* Length of the exporter, name and importer strings, NUL included. */
#define LLMEM_NAME_LEN 32

/* Most importer names one LLMEM_IOC_INFO call returns. */
#define LLMEM_MAX_IMPORTERS 64

/* The returned DMA-BUF fd is close-on-exec. */
#define LLMEM_ALLOC_CLOEXEC (1U << 0)
/*
 * The pages are physically contiguous, for importers that DMA without an
 * IOMMU (videobuf2-dma-contig).  A size above the kernel's largest
 * contiguous block (4 MiB on Debian's x86 kernels) is -E2BIG; a size that
 * fits but cannot be had now, memory being fragmented, is -ENOMEM.
 */
#define LLMEM_ALLOC_CONTIGUOUS (1U << 1)
/*
 * The DMA-BUF is dynamic: it has pin and unpin, for importers that map on
 * demand (dynamic importers, which may also pin it: RDMA NICs registering
 * DMA-BUF memory).  Its pages never move.  A static importer (V4L2, DRM
 * PRIME) of a dynamic buffer is pinned and mapped by the kernel when it
 * attaches, DMA_BIDIRECTIONAL, until it detaches: LLMEM_IOC_INFO counts that
 * as a device write mapping and the buffer is not mappable meanwhile.
 */
#define LLMEM_ALLOC_DYNAMIC (1U << 2)
#define LLMEM_ALLOC_VALID_FLAGS \
	(LLMEM_ALLOC_CLOEXEC | LLMEM_ALLOC_CONTIGUOUS | LLMEM_ALLOC_DYNAMIC)

/**
 * struct llmem_alloc - LLMEM_IOC_ALLOC argument
 * @size: (in/out) bytes wanted, rounded up to whole pages on return; 0 and a
 *        size whose rounding overflows are -EINVAL, more than the module's
 *        max_bytes parameter allows (with what is already allocated) is
 *        -ENOMEM; with LLMEM_ALLOC_CONTIGUOUS, more than the largest
 *        contiguous block is -E2BIG and a block that cannot be found is
 *        -ENOMEM
 * @flags: (in) LLMEM_ALLOC_* bits; any other bit is -EINVAL
 * @fd: (out) the new DMA-BUF, opened read-write; must be 0 on input
 *
 * The pages are zeroed before the fd is returned.
 */
struct llmem_alloc {
	__u64 size;
	__u32 flags;
	__u32 fd;
};

/**
 * struct llmem_importer - one device attached to a DMA-BUF
 * @dev_name: (out) the attached device's name, NUL-terminated, truncated to
 *            fit
 */
struct llmem_importer {
	char dev_name[LLMEM_NAME_LEN];
};

/* @state bits of struct llmem_info. */
/* The buffer was exported by llmem. */
#define LLMEM_STATE_EXPORTED (1U << 0)
/* The CPU may map it now (meaningful when LLMEM_KNOWN_MAPPABLE is set). */
#define LLMEM_STATE_MAPPABLE (1U << 1)
/* Its pages are physically contiguous (LLMEM_ALLOC_CONTIGUOUS). */
#define LLMEM_STATE_CONTIGUOUS (1U << 2)
/* The DMA-BUF is dynamic: its exporter has pin (LLMEM_ALLOC_DYNAMIC). */
#define LLMEM_STATE_DYNAMIC (1U << 3)
/*
 * A device holds a pin on one of its pages, through this DMA-BUF or another
 * over the same pages (LLMEM_IOC_EXPORT_RANGE); meaningful when
 * LLMEM_KNOWN_PINS is set.
 */
#define LLMEM_STATE_PINNED (1U << 4)

/* @known bits of struct llmem_info: which counts the module could see. */
#define LLMEM_KNOWN_ATTACHMENTS (1U << 0)
#define LLMEM_KNOWN_DEVICE_MAPS (1U << 1)
#define LLMEM_KNOWN_CPU_MMAPS (1U << 2)
#define LLMEM_KNOWN_VMAPS (1U << 3)
#define LLMEM_KNOWN_FENCES (1U << 4)
#define LLMEM_KNOWN_MAPPABLE (1U << 5)
#define LLMEM_KNOWN_PINS (1U << 6)
#define LLMEM_KNOWN_GUP_PINS (1U << 7)

/**
 * struct llmem_info - LLMEM_IOC_INFO argument
 * @fd: (in) a DMA-BUF fd the caller holds, exported by llmem or by anyone
 * @flags: (in) must be 0
 * @importers_ptr: (in) user address of an array of struct llmem_importer to
 *                 fill with the attached devices' names, or 0
 * @importers_len: (in) entries available at @importers_ptr; at most
 *                 LLMEM_MAX_IMPORTERS are filled
 * @known: (out) LLMEM_KNOWN_* bits: a count whose bit is clear could not be
 *         seen by the module and reads 0; it is unknown, not zero
 * @size: (out) the buffer's size in bytes
 * @state: (out) LLMEM_STATE_* bits
 * @attachments: (out) devices attached, all of them even when more than
 *               @importers_len
 * @device_maps: (out) mappings of attachments outstanding
 * @device_write_maps: (out) those of @device_maps that let the device write
 *                     (DMA_FROM_DEVICE or DMA_BIDIRECTIONAL)
 * @cpu_mmaps: (out) user-space mappings (VMAs) of the buffer
 * @vmaps: (out) kernel vmap references (an importer such as
 *         videobuf2-vmalloc shows up here, not in @attachments)
 * @fences: (out) unsignalled fences in the reservation object
 * @write_fences: (out) those of @fences a writer added
 * @exporter: (out) the exporter's name, NUL-terminated
 * @name: (out) the name given with DMA_BUF_SET_NAME, or empty
 * @pins: (out) attachments of this DMA-BUF holding a pin: one pinned with
 *        dma_buf_pin(), and, the kernel pinning a dynamic buffer for them,
 *        a static importer's and (without CONFIG_DMABUF_MOVE_NOTIFY, as in
 *        Debian's kernels) every mapped one
 * @pad: (out) 0
 * @gup_pinned_pages: (out) pages of this buffer that a GUP user (FOLL_PIN:
 *                    ibv_reg_mr() of a mapping, O_DIRECT in flight) holds
 *                    pinned for DMA, as folio_maybe_dma_pinned() tells:
 *                    exact for a high-order block, from the reference
 *                    count's bias for a single page; a block pinned anywhere
 *                    counts whole (LLMEM_KNOWN_GUP_PINS)
 *
 * A buffer exported by llmem is mappable when no device mapping in a write
 * direction is outstanding and no write fence is unsignalled; a pin alone
 * does not make it unmappable (the pages never move).  Callers built before
 * @exporter and @name existed pass the first 64 bytes; fewer is -EINVAL.
 * Callers built before @pins pass 128 and do not get it; callers built
 * before @gup_pinned_pages pass 136 and do not get that.
 */
struct llmem_info {
	__u32 fd;
	__u32 flags;
	__u64 importers_ptr;
	__u32 importers_len;
	__u32 known;
	__u64 size;
	__u32 state;
	__u32 attachments;
	__u32 device_maps;
	__u32 device_write_maps;
	__u32 cpu_mmaps;
	__u32 vmaps;
	__u32 fences;
	__u32 write_fences;
	char exporter[LLMEM_NAME_LEN];
	char name[LLMEM_NAME_LEN];
	__u32 pins;
	__u32 pad;
	__u64 gup_pinned_pages;
};

/* The size of struct llmem_info before @exporter and @name. */
#define LLMEM_INFO_SIZE_VER0 64

/**
 * struct llmem_track - LLMEM_IOC_TRACK and LLMEM_IOC_UNTRACK argument
 * @fd: (in) a DMA-BUF fd exported by another driver
 * @flags: (in) must be 0
 *
 * A tracked buffer is held, and listed in debugfs, until it is untracked or
 * the /dev/llmem file that tracked it is closed.  Tracking a buffer llmem
 * exported, or one this file already tracks, is -EINVAL; untracking one it
 * does not track is -ENOENT.
 */
struct llmem_track {
	__u32 fd;
	__u32 flags;
};

/* The returned DMA-BUF fd is close-on-exec. */
#define LLMEM_EXPORT_RANGE_CLOEXEC (1U << 0)
/* The returned DMA-BUF is dynamic, as with LLMEM_ALLOC_DYNAMIC. */
#define LLMEM_EXPORT_RANGE_DYNAMIC (1U << 1)
#define LLMEM_EXPORT_RANGE_VALID_FLAGS \
	(LLMEM_EXPORT_RANGE_CLOEXEC | LLMEM_EXPORT_RANGE_DYNAMIC)

/**
 * struct llmem_export_range - LLMEM_IOC_EXPORT_RANGE argument
 * @fd: (in) a DMA-BUF exported by llmem (by LLMEM_IOC_ALLOC or by this
 *      command); a bad fd is -EBADF, any other DMA-BUF or file -EINVAL
 * @flags: (in) LLMEM_EXPORT_RANGE_* bits; any other bit is -EINVAL
 * @offset: (in) where the range starts in @fd's buffer, in bytes: a multiple
 *          of the page size, else -EINVAL
 * @size: (in) bytes in the range: a non-zero multiple of the page size, else
 *        -EINVAL; an @offset + @size that overflows or passes the end of
 *        @fd's buffer is -EINVAL
 * @out_fd: (out) the new DMA-BUF, opened read-write; must be 0 on input
 * @pad: (in) must be 0
 *
 * The new DMA-BUF is a buffer of @size bytes whose first byte is byte
 * @offset of @fd's buffer: the same pages, not a copy, for importers that
 * take no offset into a DMA-BUF (a V4L2 capture buffer starts at its fd's
 * first byte).  It holds a reference on the buffer whose pages it shares,
 * so the pages live until the last fd and mapping of either is gone, and it
 * shares that buffer's reservation object (its fences).  It is an llmem
 * buffer like any other: mmap, vmap, device mappings and DMA_BUF_IOCTL_SYNC
 * cover its own range from its offset 0, LLMEM_IOC_INFO reports its own
 * attachments and mappings (and LLMEM_STATE_CONTIGUOUS when @fd's pages are
 * contiguous), and it has its own DMA_BUF_SET_NAME name, empty at first.  It
 * is dynamic with LLMEM_EXPORT_RANGE_DYNAMIC, whether @fd's buffer is or not.  It
 * takes no pages of its own and does not count against max_bytes.
 */
struct llmem_export_range {
	__u32 fd;
	__u32 flags;
	__u64 offset;
	__u64 size;
	__u32 out_fd;
	__u32 pad;
};

#define LLMEM_IOC_ALLOC _IOWR(LLMEM_IOC_MAGIC, 0x0, struct llmem_alloc)
#define LLMEM_IOC_INFO _IOWR(LLMEM_IOC_MAGIC, 0x1, struct llmem_info)
#define LLMEM_IOC_TRACK _IOW(LLMEM_IOC_MAGIC, 0x2, struct llmem_track)
#define LLMEM_IOC_UNTRACK _IOW(LLMEM_IOC_MAGIC, 0x3, struct llmem_track)
#define LLMEM_IOC_EXPORT_RANGE \
	_IOWR(LLMEM_IOC_MAGIC, 0x4, struct llmem_export_range)

#endif /* _UAPI_LINUX_LLMEM_H */
