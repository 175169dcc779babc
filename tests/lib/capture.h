/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_CAPTURE_H
#define LLMEM_TEST_CAPTURE_H

#include <stdint.h>

#include <llmem/v4l2.h>

/*
 * One frame through the camera's own buffers (V4L2_MEMORY_MMAP), the
 * reference picture the zero-copy paths are compared with: streams @nbufs
 * buffers, lets the first frames pass, copies the next into a malloc'ed
 * *@frame of @sizeimage bytes, and leaves the device stopped with no
 * buffers.  Return: 0 or a negative errno.
 */
int capture_mmap_frame(struct llmem_v4l2 *dev, uint32_t sizeimage, uint32_t nbufs, uint8_t **frame);

#endif
