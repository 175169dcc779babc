// SPDX-License-Identifier: MIT
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "png_writer.h"

/* libpng reports errors by longjmp to here; nothing here outlives it. */
static int write_image(png_structp png, png_infop info, FILE *f, const uint8_t *rgba,
		       uint32_t width, uint32_t height, uint32_t pitch)
{
	if (setjmp(png_jmpbuf(png)))
		return -EIO;
	png_init_io(png, f);
	png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, 1);
	png_write_info(png, info);
	for (uint32_t row = 0; row < height; row++)
		png_write_row(png, rgba + (size_t)row * pitch);
	png_write_end(png, NULL);
	return 0;
}

int write_png_rgba(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height,
		   uint32_t pitch)
{
	png_structp png;
	png_infop info = NULL;
	FILE *f;
	int ret;

	f = fopen(path, "wbe");
	if (!f) {
		ret = -errno;
		fprintf(stderr, "llmem: %s: %s\n", path, strerror(errno));
		return ret;
	}
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (png)
		info = png_create_info_struct(png);
	ret = png && info ? write_image(png, info, f, rgba, width, height, pitch) : -ENOMEM;
	png_destroy_write_struct(&png, &info);
	if (fclose(f) && !ret)
		ret = -errno;
	if (ret) {
		fprintf(stderr, "llmem: %s: cannot write the PNG (%s)\n", path, strerror(-ret));
		/* Half a PNG is no picture: a folder kept after an error holds whole ones. */
		unlink(path);
	}
	return ret;
}
