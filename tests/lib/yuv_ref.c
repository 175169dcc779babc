// SPDX-License-Identifier: MIT
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include <llmem/frame.h>

#include "yuv_ref.h"

static uint8_t to_byte(double v)
{
	if (v < 0.0)
		v = 0.0;
	if (v > 1.0)
		v = 1.0;
	return (uint8_t)lround(v * 255.0);
}

static void yuv_pixel(int y, int u, int v, int matrix, int full_range, uint8_t *rgba)
{
	double kr = matrix ? 0.2126 : 0.299;
	double kb = matrix ? 0.0722 : 0.114;
	double luma = full_range ? y / 255.0 : (y - 16) / 219.0;
	double cb = (u - 128) / (full_range ? 255.0 : 224.0);
	double cr = (v - 128) / (full_range ? 255.0 : 224.0);
	double r = luma + 2.0 * (1.0 - kr) * cr;
	double b = luma + 2.0 * (1.0 - kb) * cb;
	double g = (luma - kr * r - kb * b) / (1.0 - kr - kb);

	rgba[0] = to_byte(r);
	rgba[1] = to_byte(g);
	rgba[2] = to_byte(b);
	rgba[3] = 255;
}

void ref_yuyv_to_rgba(const uint8_t *src, uint32_t pitch, uint32_t width, uint32_t height,
		      int matrix, int full_range, uint8_t *dst, uint32_t dst_pitch)
{
	for (uint32_t row = 0; row < height; row++) {
		const uint8_t *s = src + (size_t)row * pitch;
		uint8_t *d = dst + (size_t)row * dst_pitch;

		for (uint32_t x = 0; x < width; x += 2) {
			yuv_pixel(s[2 * x], s[2 * x + 1], s[2 * x + 3], matrix, full_range,
				  d + 4 * x);
			yuv_pixel(s[2 * x + 2], s[2 * x + 1], s[2 * x + 3], matrix, full_range,
				  d + 4 * x + 4);
		}
	}
}

void ref_nv12_to_rgba(const uint8_t *luma, uint32_t luma_pitch, const uint8_t *chroma,
		      uint32_t chroma_pitch, uint32_t width, uint32_t height, int matrix,
		      int full_range, uint8_t *dst, uint32_t dst_pitch)
{
	for (uint32_t row = 0; row < height; row++) {
		const uint8_t *y = luma + (size_t)row * luma_pitch;
		const uint8_t *c = chroma + (size_t)(row / 2) * chroma_pitch;
		uint8_t *d = dst + (size_t)row * dst_pitch;

		for (uint32_t x = 0; x < width; x++)
			yuv_pixel(y[x], c[x / 2 * 2], c[x / 2 * 2 + 1], matrix, full_range,
				  d + 4 * x);
	}
}

int ref_worst_channel(const uint8_t *rgba, const uint8_t *ref, const struct llmem_frame_layout *l)
{
	int worst = 0;

	for (uint32_t row = 0; row < l->height; row++)
		for (uint32_t b = 0; b < l->width * 4; b++) {
			size_t i = (size_t)row * l->pitch[0] + b;
			int d = abs((int)rgba[l->offset[0] + i] - (int)ref[i]);

			worst = d > worst ? d : worst;
		}
	return worst;
}
