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

/* Kr and Kb of the matrix: 0 = BT.601, 1 = BT.709. */
static void weights(int matrix, double *kr, double *kb)
{
	*kr = matrix ? 0.2126 : 0.299;
	*kb = matrix ? 0.0722 : 0.114;
}

static void yuv_pixel(int y, int u, int v, int matrix, int full_range, uint8_t *rgba)
{
	double kr, kb, luma;

	weights(matrix, &kr, &kb);
	luma = full_range ? y / 255.0 : (y - 16) / 219.0;
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

void ref_rgba_to_yuv(const uint8_t *rgba, uint32_t pitch, int bgra, uint32_t width, uint32_t height,
		     int matrix, int full_range, uint32_t sub_x, uint32_t sub_y, double *y,
		     double *cb, double *cr)
{
	uint32_t chroma_w = (width + sub_x - 1) / sub_x;
	double kr, kb, scale = full_range ? 255.0 : 224.0;

	weights(matrix, &kr, &kb);
	for (uint32_t row = 0; row < height; row += sub_y)
		for (uint32_t x = 0; x < width; x += sub_x) {
			size_t c = (size_t)(row / sub_y) * chroma_w + x / sub_x;
			double sum_cb = 0, sum_cr = 0;
			int n = 0;

			for (uint32_t r = row; r < row + sub_y && r < height; r++)
				for (uint32_t i = x; i < x + sub_x && i < width; i++) {
					const uint8_t *px = rgba + (size_t)r * pitch + 4 * i;
					double red = px[bgra ? 2 : 0] / 255.0,
					       green = px[1] / 255.0;
					double blue = px[bgra ? 0 : 2] / 255.0;
					double luma =
						kr * red + (1.0 - kr - kb) * green + kb * blue;

					y[(size_t)r * width + i] =
						full_range ? 255.0 * luma : 16.0 + 219.0 * luma;
					sum_cb +=
						128.0 + scale * (blue - luma) / (2.0 * (1.0 - kb));
					sum_cr += 128.0 + scale * (red - luma) / (2.0 * (1.0 - kr));
					n++;
				}
			cb[c] = sum_cb / n;
			cr[c] = sum_cr / n;
		}
}

uint8_t ref_code_byte(double code)
{
	double v = floor(code + 0.5);

	return (uint8_t)(v < 0.0 ? 0.0 : v > 255.0 ? 255.0 : v);
}

int ref_code_matches(uint8_t got, double code)
{
	double below = floor(code);

	if (got == ref_code_byte(code))
		return 1;
	return fabs(code - below - 0.5) < 1e-3 &&
	       (got == ref_code_byte(below) || got == ref_code_byte(below + 1.0));
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
