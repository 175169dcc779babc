/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_YUV_REF_H
#define LLMEM_TEST_YUV_REF_H

#include <stdint.h>

struct llmem_frame_layout;

/*
 * CPU reference conversions the shaders are checked against, in double
 * precision.  matrix: 0 = BT.601, 1 = BT.709; full_range: 0 = limited.
 * Output is RGBA8 with alpha 255, rows of dst_pitch bytes.
 */
void ref_yuyv_to_rgba(const uint8_t *src, uint32_t pitch, uint32_t width, uint32_t height,
		      int matrix, int full_range, uint8_t *dst, uint32_t dst_pitch);
void ref_nv12_to_rgba(const uint8_t *luma, uint32_t luma_pitch, const uint8_t *chroma,
		      uint32_t chroma_pitch, uint32_t width, uint32_t height, int matrix,
		      int full_range, uint8_t *dst, uint32_t dst_pitch);
/*
 * The largest difference of any channel between the RGBA frame @rgba laid
 * out as @l (plane 0) and the reference @ref, whose rows have @l's pitch.
 */
int ref_worst_channel(const uint8_t *rgba, const uint8_t *ref, const struct llmem_frame_layout *l);

#endif
