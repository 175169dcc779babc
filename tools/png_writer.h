/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TOOLS_PNG_WRITER_H
#define LLMEM_TOOLS_PNG_WRITER_H

#include <stdint.h>

/*
 * Writes an RGBA8 frame (rows of pitch bytes) as a PNG file.
 * Return: 0, or a negative errno with a message on stderr.
 */
int write_png_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height,
		   uint32_t pitch);

#endif
