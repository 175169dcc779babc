/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * llmem: the ioctl ABI of /dev/llmem.
 */
#ifndef _UAPI_LINUX_LLMEM_H
#define _UAPI_LINUX_LLMEM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LLMEM_IOC_MAGIC 'L'

#endif /* _UAPI_LINUX_LLMEM_H */
