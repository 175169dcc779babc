// SPDX-License-Identifier: MIT
/*
 * A file of FWHT frames as a bitstream source.  The frames are walked by
 * their headers once, at open, so that a file that is not a stream fails
 * there and not halfway through a decode; each read is one pread() into
 * the caller's buffer, the decoder's bitstream buffer, which the CPU then
 * never touches again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>

#include "base/error.h"
#include "base/export.h"
#include "video/bitstream.h"

struct llmem_bitstream {
	int fd;
	struct llmem_bitstream_info info;
	uint64_t next; /* the byte the next unit starts at */
	char path[]; /* for the messages */
};

static const uint8_t fwht_magic[8] = { 0x4f, 0x4f, 0x4f, 0x4f, 0xff, 0xff, 0xff, 0xff };

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t llmem_fwht_frame_size(const uint8_t *data, size_t len)
{
	size_t size;

	if (len < FWHT_HEADER_BYTES || memcmp(data, fwht_magic, sizeof(fwht_magic)))
		return 0;
	size = FWHT_HEADER_BYTES + (size_t)be32(data + 40);
	return size <= len ? size : 0;
}

void llmem_fwht_frame_header(const uint8_t *data, uint32_t *width, uint32_t *height,
			     uint32_t *flags)
{
	*width = be32(data + 12);
	*height = be32(data + 16);
	*flags = be32(data + 20);
}

/* The size of the frame at byte @at, header included, or 0 where none
 * starts or it runs past the end; its header in @hdr. */
static uint64_t frame_at(const struct llmem_bitstream *b, uint64_t at,
			 uint8_t hdr[FWHT_HEADER_BYTES])
{
	uint64_t left = b->info.bytes - at;

	if (left < FWHT_HEADER_BYTES ||
	    pread(b->fd, hdr, FWHT_HEADER_BYTES, (off_t)at) != FWHT_HEADER_BYTES)
		return 0;
	return llmem_fwht_frame_size(hdr, left > SIZE_MAX ? SIZE_MAX : (size_t)left);
}

static int walk(struct llmem_bitstream *b)
{
	uint8_t hdr[FWHT_HEADER_BYTES];
	uint64_t size;

	for (uint64_t at = 0; at < b->info.bytes; at += size) {
		size = frame_at(b, at, hdr);
		if (!size)
			return llmem_error(-EINVAL,
					   "%s: byte %llu starts no whole FWHT frame (after %u "
					   "frame%s)",
					   b->path, (unsigned long long)at, b->info.units,
					   b->info.units == 1 ? "" : "s");
		if (!at)
			llmem_fwht_frame_header(hdr, &b->info.width, &b->info.height,
						&b->info.flags);
		if (size > b->info.max_unit)
			b->info.max_unit = size;
		b->info.units++;
	}
	return b->info.units ? 0 : llmem_error(-EINVAL, "%s: empty", b->path);
}

static int open_file(struct llmem_bitstream *b, const char *path)
{
	struct stat st;
	uint8_t byte;

	/* O_NONBLOCK: a fifo is refused below instead of waiting for a writer. */
	b->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (b->fd < 0 || fstat(b->fd, &st))
		return llmem_error(-errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return llmem_error(-EISDIR, "%s: is a directory", path);
	/* The frames are walked by size: only a regular file has one, and
	 * /proc's files say they are regular and empty, yet have bytes. */
	if (!S_ISREG(st.st_mode) || (!st.st_size && pread(b->fd, &byte, 1, 0) == 1))
		return llmem_error(-EINVAL, "%s: not a regular file", path);
	b->info.bytes = (uint64_t)st.st_size;
	return 0;
}

LLMEM_PUBLIC int llmem_bitstream_open_fwht(const char *path, struct llmem_bitstream **out)
{
	struct llmem_bitstream *b;
	int ret;

	if (!path || !out)
		return llmem_error(-EINVAL, "bitstream open: NULL %s", path ? "out" : "path");
	b = calloc(1, sizeof(*b) + strlen(path) + 1);
	if (!b)
		return llmem_error(-ENOMEM, "bitstream open: out of memory");
	b->fd = -1;
	b->info.coded_fourcc = V4L2_PIX_FMT_FWHT;
	strcpy(b->path, path);
	ret = open_file(b, path);
	if (!ret)
		ret = walk(b);
	if (ret) {
		llmem_bitstream_close(b);
		return ret;
	}
	*out = b;
	return 0;
}

LLMEM_PUBLIC void llmem_bitstream_close(struct llmem_bitstream *b)
{
	if (!b)
		return;
	if (b->fd >= 0)
		close(b->fd);
	free(b);
}

LLMEM_PUBLIC int llmem_bitstream_get_info(const struct llmem_bitstream *b,
					  struct llmem_bitstream_info *info)
{
	if (!b || !info)
		return llmem_error(-EINVAL, "bitstream info: NULL %s", b ? "info" : "source");
	*info = b->info;
	return 0;
}

/*
 * The unit at b->next into @dst, which is a mapping of shared memory.  Some
 * are VM_PFNMAP (udmabuf's since Linux 6.12): without struct pages behind
 * them, a file system that pins the reader's pages (9p, FUSE, O_DIRECT)
 * refuses them with EFAULT where a copy into them works, so from the first
 * EFAULT on the bytes come through a small buffer on the stack.
 */
static int read_mapped(const struct llmem_bitstream *b, uint8_t *dst, size_t size)
{
	uint8_t bounce[64 * 1024];
	uint64_t at = b->next;
	bool bouncing = false;

	while (size) {
		size_t chunk = bouncing && size > sizeof(bounce) ? sizeof(bounce) : size;
		ssize_t n = pread(b->fd, bouncing ? bounce : dst, chunk, (off_t)at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EFAULT && !bouncing) {
			bouncing = true;
			continue;
		}
		if (n < 0)
			return llmem_error(-errno, "%s: %s", b->path, strerror(errno));
		if (!n)
			return llmem_error(-EIO, "%s: ends inside frame %u: the file changed",
					   b->path, b->info.read);
		if (bouncing)
			memcpy(dst, bounce, (size_t)n);
		dst += n;
		at += (uint64_t)n;
		size -= (size_t)n;
	}
	return 0;
}

LLMEM_PUBLIC int llmem_bitstream_read(struct llmem_bitstream *b, void *dst, size_t size,
				      size_t *len)
{
	uint8_t hdr[FWHT_HEADER_BYTES];
	uint64_t unit;
	int ret;

	if (!b || !dst || !len)
		return llmem_error(-EINVAL, "bitstream read: NULL %s",
				   !b	  ? "source"
				   : !dst ? "destination"
					  : "length");
	if (b->info.read == b->info.units)
		return -ENODATA;
	unit = frame_at(b, b->next, hdr);
	if (!unit)
		return llmem_error(-EIO,
				   "%s: byte %llu no longer starts the FWHT frame it did "
				   "at open: the file changed",
				   b->path, (unsigned long long)b->next);
	if (unit > size)
		return llmem_error(-ENOSPC,
				   "%s: frame %u has %llu bytes, more than the %zu of "
				   "the buffer",
				   b->path, b->info.read, (unsigned long long)unit, size);
	ret = read_mapped(b, dst, (size_t)unit);
	if (ret)
		return ret;
	b->next += unit;
	b->info.read++;
	*len = unit;
	return 0;
}
