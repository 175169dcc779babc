// SPDX-License-Identifier: MIT
/* The PipeWire consumers' line per frame (frame_line.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "frame_line.h"

uint64_t frame_checksum(const uint8_t *p, uint32_t stride, uint32_t row, uint32_t rows)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t y = 0; y < rows; y++)
		for (uint32_t x = 0; x < row; x++)
			h = (h ^ p[(size_t)y * stride + x]) * 0x100000001b3ull;
	return h;
}

static const char *exporter(int fd, char *name, size_t size)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(name, size, "-");
	f = fopen(path, "re");
	if (!f)
		return name;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "exp_name: %63s", name) == 1)
			break;
	fclose(f);
	return name;
}

int frame_line_print(const char *type, int fd, uint32_t offset, int32_t stride, uint32_t size,
		     const uint8_t *pixels, uint32_t row, uint32_t rows, int64_t seq)
{
	struct stat st;
	char name[64];

	if (fstat(fd, &st))
		return -errno;
	printf("frame %s %lu %s %u %d %u %016" PRIx64 " %" PRId64 "\n", type,
	       (unsigned long)st.st_ino, exporter(fd, name, sizeof(name)), offset, stride, size,
	       frame_checksum(pixels, (uint32_t)stride, row, rows), seq);
	fflush(stdout);
	return 0;
}
