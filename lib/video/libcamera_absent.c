// SPDX-License-Identifier: MIT
/*
 * libcamera.h where llmem was built without libcamera: no camera opens, so
 * the calls on an open one are never reached.
 */
#include <errno.h>
#include <stddef.h>

#include "base/error.h"
#include "video/libcamera.h"

/* The stand-ins take the real calls' parameters and need none of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static int absent(void)
{
	return llmem_error(-ENOTSUP, "libcamera: this llmem was built without libcamera "
				     "(libcamera-dev 0.3 or later was not found)");
}

int llmem_libcamera_open(const char *id, char *id_out, uint32_t id_size,
			 struct llmem_libcamera **out)
{
	*out = NULL;
	return absent();
}

int llmem_libcamera_configure(struct llmem_libcamera *lc, uint32_t fourcc, const uint32_t *fourccs,
			      uint32_t num_fourccs, uint32_t width, uint32_t height,
			      uint32_t buffers, struct llmem_libcamera_stream *out)
{
	return absent();
}

int llmem_libcamera_add_buffer(struct llmem_libcamera *lc, uint32_t index, int fd,
			       const uint32_t *offsets, uint32_t num_planes, uint32_t length)
{
	return absent();
}

int llmem_libcamera_allocate(struct llmem_libcamera *lc, uint32_t *count)
{
	return absent();
}

int llmem_libcamera_export(struct llmem_libcamera *lc, uint32_t index, int *fd, uint32_t *offset,
			   uint32_t *length)
{
	return absent();
}

int llmem_libcamera_start(struct llmem_libcamera *lc)
{
	return absent();
}

int llmem_libcamera_stop(struct llmem_libcamera *lc)
{
	return absent();
}

int llmem_libcamera_fd(const struct llmem_libcamera *lc)
{
	return absent();
}

int llmem_libcamera_dequeue(struct llmem_libcamera *lc, int timeout_ms,
			    struct llmem_libcamera_frame *out)
{
	return absent();
}

int llmem_libcamera_queue(struct llmem_libcamera *lc, uint32_t index)
{
	return absent();
}

void llmem_libcamera_close(struct llmem_libcamera *lc)
{
}

int llmem_libcamera_list(char *ids, uint32_t size, uint32_t max, uint32_t *count)
{
	*count = 0;
	return absent();
}
