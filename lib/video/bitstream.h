/* SPDX-License-Identifier: MIT */
/*
 * The FWHT frame header, as the bitstream source splits a file with it and
 * the encoder reads a packet's frame type from it: struct fwht_cframe_hdr
 * of the kernel's codec-fwht.h, eleven big-endian words after an 8-byte
 * magic, the payload's size last.
 */
#ifndef LLMEM_VIDEO_BITSTREAM_H
#define LLMEM_VIDEO_BITSTREAM_H

#include <stddef.h>
#include <stdint.h>

#define FWHT_HEADER_BYTES 44

/* The bytes of the FWHT frame at @data, header included, or 0 where @len
 * holds no whole one. */
size_t llmem_fwht_frame_size(const uint8_t *data, size_t len);

/* The header's width, height and flags (V4L2_FWHT_FL_*); @data holds one. */
void llmem_fwht_frame_header(const uint8_t *data, uint32_t *width, uint32_t *height,
			     uint32_t *flags);

#endif
