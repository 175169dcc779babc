// SPDX-License-Identifier: MIT
/*
 * codec_test.c on the Vulkan driver's own DMA-BUFs (lavapipe exports them
 * through udmabuf, which 6.12 has and 6.1 lacks): one page per buffer, the
 * page's fd queued as is.
 */
#define CODEC_BACKEND LLMEM_BACKEND_VULKAN_DMABUF
#include "codec_test.c"
