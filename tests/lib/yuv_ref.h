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
 * RGB to YUV as convert.h states it, in double precision, the codes left
 * unrounded: @rgba has rows of @pitch bytes R, G, B, A (@bgra: B, G, R, A);
 * @y receives @width x @height luma codes, row by row; @cb and @cr one
 * chroma code per @sub_x x @sub_y pixels (2x1 for YUYV, 2x2 for NV12),
 * ceil(width / sub_x) a row: the mean of the covered pixels' codes, a last
 * odd column or row covering a sample by itself.
 */
void ref_rgba_to_yuv(const uint8_t *rgba, uint32_t pitch, int bgra, uint32_t width, uint32_t height,
		     int matrix, int full_range, uint32_t sub_x, uint32_t sub_y, double *y,
		     double *cb, double *cr);
/* The byte a code rounds to: to nearest, halves up, within 0-255. */
uint8_t ref_code_byte(double code);
/*
 * Whether the device's byte @got is @code's: its rounding, or within 1e-3
 * of a half, the other one (single-precision arithmetic on the device can
 * tip a half either way; nothing else can move a result by a whole code).
 */
int ref_code_matches(uint8_t got, double code);

/*
 * The largest difference of any channel between the RGBA frame @rgba laid
 * out as @l (plane 0) and the reference @ref, whose rows have @l's pitch.
 */
int ref_worst_channel(const uint8_t *rgba, const uint8_t *ref, const struct llmem_frame_layout *l);

#endif
