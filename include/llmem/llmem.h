/* SPDX-License-Identifier: MIT */
/*
 * libllmem: device memory in pages, shared with cameras, codecs, displays
 * and other processes through DMA-BUF.  This header includes every public
 * header, tier by tier (docs/architecture.md): the Vulkan-free base (errors,
 * the virtual pool), the device (sessions), memories and their objects,
 * sharing, transfers, video (V4L2, conversion, the camera pipeline) and
 * displays (KMS scanout, writeback).
 */
#ifndef LLMEM_LLMEM_H
#define LLMEM_LLMEM_H

#include "error.h"
#include "pool.h"
#include "session.h"
#include "memory.h"
#include "buffer.h"
#include "image.h"
#include "frame.h"
#include "negotiate.h"
#include "share.h"
#include "cuda.h"
#include "rdma.h"
#include "transfer.h"
#include "kernel.h"
#include "v4l2.h"
#include "convert.h"
#include "camera.h"
#include "codec.h"
#include "display.h"
#include "pipeline.h"
#include "pipewire.h"

#endif /* LLMEM_LLMEM_H */
