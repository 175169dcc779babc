/* SPDX-License-Identifier: MIT */
/*
 * The line the PipeWire checks' consumers print for each frame they took
 * (tests/vm/pw_consumer.c, tests/vm/gst_pw_consumer.c), which
 * tests/vm/pipewire_test.c reads:
 *
 *   frame TYPE INODE EXPORTER OFFSET STRIDE SIZE CHECKSUM SEQ
 *
 * INODE is the fd's inode (a DMA-BUF's file is one inode however many fds
 * point at it), EXPORTER the exp_name of its fdinfo ("-" for none),
 * CHECKSUM frame_checksum() of the picture's rows, SEQ the producer's
 * frame counter (-1 without one).
 */
#ifndef LLMEM_TESTS_FRAME_LINE_H
#define LLMEM_TESTS_FRAME_LINE_H

#include <stdint.h>

/* FNV-1a over @rows rows of @row bytes, @stride apart. */
uint64_t frame_checksum(const uint8_t *p, uint32_t stride, uint32_t row, uint32_t rows);

/* The line for a frame in @fd, @pixels its first row; 0, or -errno when
 * @fd cannot be read. */
int frame_line_print(const char *type, int fd, uint32_t offset, int32_t stride, uint32_t size,
		     const uint8_t *pixels, uint32_t row, uint32_t rows, int64_t seq);

#endif
