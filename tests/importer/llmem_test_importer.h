/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * llmem_test_importer: the test-only ioctls of /dev/llmem_test_importer.
 *
 * A DMA-BUF importer for llmem's VM tests, standing in for the devices that
 * attach dynamically or pin (RDMA NICs, GPUs), which the test machines have
 * none of.  Each open file holds at most one attachment, made by ATTACH from
 * a DMA-BUF fd, and releases it, its mapping and its pin at DETACH or close.
 * Every flag bit and field not defined here must be zero (-EINVAL).  A
 * command that needs an attachment when the file has none is -ENOENT.
 */
#ifndef _UAPI_LLMEM_TEST_IMPORTER_H
#define _UAPI_LLMEM_TEST_IMPORTER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LLMEM_TI_IOC_MAGIC 'T'

/* Attach with importer ops that have move_notify (dma_buf_dynamic_attach). */
#define LLMEM_TI_ATTACH_DYNAMIC 0x1U
#define LLMEM_TI_ATTACH_VALID_FLAGS (LLMEM_TI_ATTACH_DYNAMIC)

/**
 * struct llmem_ti_attach - LLMEM_TI_IOC_ATTACH argument
 * @fd: (in) a DMA-BUF: a bad fd is -EBADF, any other file -EINVAL
 * @flags: (in) LLMEM_TI_ATTACH_* bits
 *
 * -EBUSY when the file already holds an attachment.
 */
struct llmem_ti_attach {
	__u32 fd;
	__u32 flags;
};

/* @dir of struct llmem_ti_map, as enum dma_data_direction; 0 is -EINVAL. */
#define LLMEM_TI_DIR_BIDIRECTIONAL 1
#define LLMEM_TI_DIR_TO_DEVICE 2
#define LLMEM_TI_DIR_FROM_DEVICE 3

/**
 * struct llmem_ti_map - LLMEM_TI_IOC_MAP argument
 * @dir: (in) LLMEM_TI_DIR_*
 * @flags: (in) must be 0
 * @size: (out) bytes the mapping's DMA segments cover; must be 0 on input
 *
 * -EBUSY when the attachment is mapped already.
 */
struct llmem_ti_map {
	__u32 dir;
	__u32 flags;
	__u64 size;
};

#define LLMEM_TI_IOC_ATTACH _IOW(LLMEM_TI_IOC_MAGIC, 0x0, struct llmem_ti_attach)
/* dma_buf_pin(): -EINVAL for a static attachment, -EBUSY if pinned. */
#define LLMEM_TI_IOC_PIN _IO(LLMEM_TI_IOC_MAGIC, 0x1)
/* dma_buf_unpin(): -EINVAL when not pinned. */
#define LLMEM_TI_IOC_UNPIN _IO(LLMEM_TI_IOC_MAGIC, 0x2)
#define LLMEM_TI_IOC_MAP _IOWR(LLMEM_TI_IOC_MAGIC, 0x3, struct llmem_ti_map)
/* Unmaps the attachment: -EINVAL when not mapped. */
#define LLMEM_TI_IOC_UNMAP _IO(LLMEM_TI_IOC_MAGIC, 0x4)
/* Unmaps, unpins, detaches and lets the DMA-BUF go. */
#define LLMEM_TI_IOC_DETACH _IO(LLMEM_TI_IOC_MAGIC, 0x5)

#endif /* _UAPI_LLMEM_TEST_IMPORTER_H */
