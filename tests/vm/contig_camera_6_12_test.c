// SPDX-License-Identifier: MIT
/*
 * On 6.12, which has the system DMA heap: the same dma-contig capture from
 * the heap fails with EFAULT and from llmem contiguous memory succeeds.
 */
#define CONTIG_CAMERA_HEAP 1
#include "contig_camera_test.c"
