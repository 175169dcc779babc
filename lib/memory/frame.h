/* SPDX-License-Identifier: MIT */
/*
 * What lib/ checks of a frame layout a caller hands in (llmem/frame.h).
 */
#ifndef LLMEM_MEMORY_FRAME_H
#define LLMEM_MEMORY_FRAME_H

#include <stdint.h>

#include <llmem/frame.h>

/* The coded size of @l, where a layout made before frames had padding
 * leaves it 0. */
static inline uint32_t llmem_frame_coded_width(const struct llmem_frame_layout *l)
{
	return l->coded_width ? l->coded_width : l->width;
}

static inline uint32_t llmem_frame_coded_height(const struct llmem_frame_layout *l)
{
	return l->coded_height ? l->coded_height : l->height;
}

/*
 * Whether @l describes a frame of a format llmem_frame_layout_init() knows,
 * with that format's planes, the linear modifier, a size of at least one
 * pixel, a coded size (0: the picture's) not below it, pitches that hold a
 * coded row, and every plane's coded rows inside @l->size.
 * Return: 0, or -EINVAL naming what is wrong, prefixed with @what.
 */
int llmem_frame_layout_check(const struct llmem_frame_layout *l, const char *what);

/* What every pitch and plane offset of @fourcc must be a multiple of for
 * the shaders (4: they read 32-bit words), or 1; 0 for a fourcc the
 * library does not lay out. */
uint32_t llmem_frame_granule(uint32_t fourcc);

/* What the sides of a frame of @fourcc must be multiples of: 2 for
 * YUYV's and NV12's widths (a pair of pixels shares its chroma) and NV12's
 * height, else 1. */
void llmem_frame_side_granules(uint32_t fourcc, uint32_t *columns, uint32_t *rows);

#endif
