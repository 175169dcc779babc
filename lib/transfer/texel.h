/* SPDX-License-Identifier: MIT */
/*
 * A colour (union llmem_color) as the bytes of one texel of an image, the
 * way the device converts a clear value: what a clear of part of an image
 * copies over it.
 */
#ifndef LLMEM_TRANSFER_TEXEL_H
#define LLMEM_TRANSFER_TEXEL_H

#include <stdint.h>

#include <llmem/image.h>
#include <llmem/transfer.h>

/*
 * llmem_texel_encode() - @c as one texel of @img into @out (16 bytes at
 * most), channels in the image's memory order.
 *
 * Return: 0; -EINVAL, with a message starting with @what, for an integer
 * its channel type cannot hold, or a normalised value outside [0, 1]
 * ([-1, 1] for SNORM) or NaN.
 */
int llmem_texel_encode(const char *what, const struct llmem_image *img, const union llmem_color *c,
		       uint8_t *out);

#endif
