// SPDX-License-Identifier: MIT
/*
 * Mapped I/O (mapped_io.h): straight from the mapping while the kernel takes
 * it, through a bounce buffer on the stack from the first EFAULT on.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mapped_io.h"

/* Small enough for the stack, large enough that 9p moves it in a few calls. */
#define BOUNCE_BYTES (64 * 1024)

int mapped_fwrite(FILE *f, const void *map, size_t size)
{
	const uint8_t *p = map;
	uint8_t bounce[BOUNCE_BYTES];
	bool bouncing = false;
	int fd = fileno(f);

	if (fflush(f))
		return -errno;
	while (size) {
		size_t chunk = bouncing && size > sizeof(bounce) ? sizeof(bounce) : size;
		ssize_t n;

		if (bouncing)
			memcpy(bounce, p, chunk);
		n = write(fd, bouncing ? bounce : p, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EFAULT && !bouncing) {
			bouncing = true;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}

int mapped_pread(int fd, void *map, size_t size, off_t offset)
{
	uint8_t *p = map, bounce[BOUNCE_BYTES];
	bool bouncing = false;

	while (size) {
		size_t chunk = bouncing && size > sizeof(bounce) ? sizeof(bounce) : size;
		ssize_t n = pread(fd, bouncing ? bounce : p, chunk, offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EFAULT && !bouncing) {
			bouncing = true;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		if (bouncing)
			memcpy(p, bounce, (size_t)n);
		p += n;
		offset += n;
		size -= (size_t)n;
	}
	return 0;
}
