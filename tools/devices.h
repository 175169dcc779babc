/* SPDX-License-Identifier: MIT */
/*
 * What `llmem devices` looks for, one kind of device per file: each writes
 * its section of the description to the emitter (emit.h), and an entry
 * that cannot be opened or asked is described with the reason instead of
 * being left out, so that a user sees why a device they expected is of no
 * use.
 */
#ifndef LLMEM_TOOLS_DEVICES_H
#define LLMEM_TOOLS_DEVICES_H

#include "emit.h"

/* "vulkan": every Vulkan device, with what it can share (devices_vulkan.c). */
void devices_vulkan(struct emit *e);
/* "v4l2": video nodes, their role, queues, formats and memory types, and
 * the node `llmem camera` takes by default (devices_v4l2.c). */
void devices_v4l2(struct emit *e);
/* "drm": DRM nodes, their driver, PRIME, modesetting and planes
 * (devices_drm.c); `llmem info` lists them too. */
void devices_drm(struct emit *e);
/* "libcamera": the cameras libcamera finds, or why there are none
 * (devices_libcamera.c). */
void devices_libcamera(struct emit *e);
/* "llmem", "dma_heaps", "udmabuf": the kernel's DMA-BUF providers
 * (devices_kernel.c). */
void devices_kernel(struct emit *e);

#endif
