// SPDX-License-Identifier: MIT
/*
 * Colours as texels: integers checked against their channel type, floats
 * to binary16, normalised values scaled and rounded to nearest, and sRGB's
 * curve, as Vulkan's conversion rules (Fixed-Point Data Conversions) state
 * them for clear values.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "transfer/texel.h"

static const struct {
	uint32_t bytes;
	int64_t min, max;
} channel_types[] = {
	[LLMEM_CHANNEL_U8] = { 1, 0, UINT8_MAX },
	[LLMEM_CHANNEL_I8] = { 1, INT8_MIN, INT8_MAX },
	[LLMEM_CHANNEL_U16] = { 2, 0, UINT16_MAX },
	[LLMEM_CHANNEL_I16] = { 2, INT16_MIN, INT16_MAX },
	[LLMEM_CHANNEL_U32] = { 4, 0, UINT32_MAX },
	[LLMEM_CHANNEL_I32] = { 4, INT32_MIN, INT32_MAX },
	[LLMEM_CHANNEL_F16] = { 2, 0, 0 },
	[LLMEM_CHANNEL_F32] = { 4, 0, 0 },
	/* Normalised: max is the integer 1.0 (or -1.0 negated) maps to. */
	[LLMEM_CHANNEL_UNORM8] = { 1, 0, UINT8_MAX },
	[LLMEM_CHANNEL_SNORM8] = { 1, -1, INT8_MAX },
	[LLMEM_CHANNEL_UNORM16] = { 2, 0, UINT16_MAX },
	[LLMEM_CHANNEL_SNORM16] = { 2, -1, INT16_MAX },
	[LLMEM_CHANNEL_SRGB8] = { 1, 0, UINT8_MAX },
};

/* IEEE binary16 from binary32, rounding to nearest even as GPUs convert. */
static uint16_t to_half(float f)
{
	uint32_t x, mant, h, rem, half, shift;
	uint16_t sign;
	int32_t exp;

	memcpy(&x, &f, sizeof(x));
	sign = (uint16_t)((x >> 16) & 0x8000);
	mant = x & 0x7fffff;
	if (((x >> 23) & 0xff) == 0xff)
		return sign | 0x7c00 | (mant ? 0x200 : 0);
	exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
	if (exp >= 31)
		return sign | 0x7c00;
	if (exp <= 0) {
		if (exp < -10)
			return sign;
		mant |= 0x800000;
		shift = (uint32_t)(14 - exp);
	} else {
		mant |= (uint32_t)exp << 23;
		shift = 13;
	}
	h = mant >> shift;
	rem = mant & ((1u << shift) - 1);
	half = 1u << (shift - 1);
	if (rem > half || (rem == half && (h & 1)))
		h++;
	return sign | (uint16_t)h;
}

/* The sRGB encoding of a linear value in [0, 1]. */
static double srgb_encode(double l)
{
	return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

static bool is_normalised(uint32_t type)
{
	return type >= LLMEM_CHANNEL_UNORM8;
}

/* Channel @i (R, G, B, A) of a colour sits here in a texel of @img. */
static uint32_t position(const struct llmem_image *img, uint32_t i)
{
	if (llmem_image_channel_order(img) == LLMEM_ORDER_BGRA && (i == 0 || i == 2))
		return 2 - i;
	return i;
}

static int normalised(const char *what, uint32_t type, uint32_t i, float f, int64_t *v)
{
	int64_t max = channel_types[type].max;
	double lo = channel_types[type].min < 0 ? -1.0 : 0.0;
	double x = f;

	if (!(x >= lo && x <= 1.0))
		return llmem_error(-EINVAL, "%s: channel %u value %g is outside [%g, 1]", what, i,
				   x, lo);
	if (type == LLMEM_CHANNEL_SRGB8 && i < 3)
		x = srgb_encode(x);
	*v = (int64_t)round(x * (double)max);
	return 0;
}

int llmem_texel_encode(const char *what, const struct llmem_image *img, const union llmem_color *c,
		       uint8_t *out)
{
	uint32_t type = llmem_image_channel_type(img), n = llmem_image_channels(img);
	uint32_t bytes = channel_types[type].bytes;
	bool is_signed =
		type == LLMEM_CHANNEL_I8 || type == LLMEM_CHANNEL_I16 || type == LLMEM_CHANNEL_I32;
	int ret;

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *p = out + position(img, i) * bytes;
		int64_t v = is_signed ? c->i32[i] : (int64_t)c->u32[i];

		if (type == LLMEM_CHANNEL_F32) {
			memcpy(p, &c->f32[i], 4);
			continue;
		}
		if (type == LLMEM_CHANNEL_F16) {
			uint16_t h = to_half(c->f32[i]);

			memcpy(p, &h, 2);
			continue;
		}
		if (is_normalised(type)) {
			ret = normalised(what, type, i, c->f32[i], &v);
			if (ret)
				return ret;
		} else if (v < channel_types[type].min || v > channel_types[type].max) {
			return llmem_error(-EINVAL, "%s: channel %u value %lld does not fit", what,
					   i, (long long)v);
		}
		/* Little-endian, two's complement: the low bytes are the value. */
		memcpy(p, &v, bytes);
	}
	return 0;
}
