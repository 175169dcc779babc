/* SPDX-License-Identifier: MIT */
/*
 * What lib/ checks of a frame layout a caller hands in (llmem/frame.h).
 */
#ifndef LLMEM_MEMORY_FRAME_H
#define LLMEM_MEMORY_FRAME_H

#include <llmem/frame.h>

/*
 * Whether @l describes a frame of a format llmem_frame_layout_init() knows,
 * with that format's planes, the linear modifier, a size of at least one
 * pixel, pitches that hold a row, and every plane inside @l->size.
 * Return: 0, or -EINVAL naming what is wrong, prefixed with @what.
 */
int llmem_frame_layout_check(const struct llmem_frame_layout *l, const char *what);

/* What every pitch and plane offset of @fourcc must be a multiple of for
 * the shaders (4: they read 32-bit words), or 1; 0 for a fourcc the
 * library does not lay out. */
uint32_t llmem_frame_granule(uint32_t fourcc);

#endif
