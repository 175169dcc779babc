// SPDX-License-Identifier: MIT
/*
 * Codec buffers for the tools: one llmem page each, so that every backend,
 * the Vulkan driver's own DMA-BUFs included, hands the codec an fd whose
 * first byte is the buffer's.  FWHT frames split by their headers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/share.h>

#include "codec_bufs.h"
#include "mapped_io.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t fwht_frame_bytes(const uint8_t *hdr)
{
	static const uint8_t magic[8] = { 0x4f, 0x4f, 0x4f, 0x4f, 0xff, 0xff, 0xff, 0xff };

	return memcmp(hdr, magic, sizeof(magic)) ? 0 : FWHT_HEADER + (size_t)be32(hdr + 40);
}

size_t fwht_frame_size(const uint8_t *data, size_t len)
{
	size_t size = len < FWHT_HEADER ? 0 : fwht_frame_bytes(data);

	return size <= len ? size : 0;
}

void fwht_frame_dims(const uint8_t *data, uint32_t *width, uint32_t *height)
{
	*width = be32(data + 12);
	*height = be32(data + 16);
}

uint32_t fwht_frame_flags(const uint8_t *data)
{
	return be32(data + 20);
}

int codec_buf_alloc(struct llmem_session *session, uint32_t backend, uint32_t size, const char *who,
		    struct codec_buf *out)
{
	uint32_t page = (size + 4095) & ~4095u;
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = page,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = backend,
		.name = who,
	};
	struct llmem_buffer_create_info bci = { .size = page, .name = who };
	struct llmem_dmabuf_region r;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	ret = llmem_memory_create(session, &mci, &out->memory);
	if (!ret)
		ret = llmem_buffer_create(out->memory, &bci, &out->buffer);
	if (!ret)
		ret = llmem_buffer_export(out->buffer, &r);
	if (!ret) {
		out->fd = r.fd;
		ret = llmem_buffer_map(out->buffer, (void **)&out->map);
	}
	if (ret) {
		fprintf(stderr, "llmem: %s buffer of %u bytes: %s\n", who, page,
			llmem_last_error());
		codec_buf_free(out);
		return ret;
	}
	out->size = page;
	return 0;
}

void codec_buf_free(struct codec_buf *b)
{
	if (b->map)
		llmem_buffer_unmap(b->buffer);
	if (b->buffer && b->fd >= 0)
		close(b->fd);
	llmem_buffer_destroy(b->buffer);
	if (b->memory)
		llmem_memory_destroy(b->memory);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

int dmabuf_append(FILE *f, int fd, const void *map, size_t size, const char *who)
{
	int ret = llmem_dmabuf_begin_cpu_access(fd, LLMEM_CPU_READ);

	if (ret) {
		fprintf(stderr, "%s: %s\n", who, llmem_last_error());
		return ret;
	}
	ret = mapped_fwrite(f, map, size);
	if (ret)
		fprintf(stderr, "%s: writing a raw frame: %s\n", who, strerror(-ret));
	llmem_dmabuf_end_cpu_access(fd, LLMEM_CPU_READ);
	return ret;
}
