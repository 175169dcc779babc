// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/share.h>

#include "base/error.h"
#include "video/codec_memory.h"

int llmem_codec_memory_alloc(struct llmem_session *session, uint32_t backend, uint64_t size,
			     bool shared, const char *name, struct codec_memory *out)
{
	uint64_t page = (size + 4095) & ~(uint64_t)4095;
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = page,
		.sharing = shared ? LLMEM_SHARING_DMABUF : LLMEM_SHARING_NONE,
		.backend = shared ? backend : 0,
		.name = name,
	};
	struct llmem_buffer_create_info bci = { .size = page, .name = name };
	struct llmem_dmabuf_region r;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!size || page > UINT32_MAX)
		return llmem_error(-EINVAL,
				   "%s buffer of %llu bytes: a codec's buffers hold 1 "
				   "byte to 4 GiB",
				   name, (unsigned long long)size);
	ret = llmem_memory_create(session, &mci, &out->memory);
	if (!ret)
		ret = llmem_buffer_create(out->memory, &bci, &out->buffer);
	if (!ret && shared) {
		ret = llmem_buffer_export(out->buffer, &r);
		out->fd = ret ? -1 : r.fd;
	}
	if (!ret)
		ret = llmem_buffer_map(out->buffer, &out->map);
	if (ret) {
		char why[256];

		snprintf(why, sizeof(why), "%s", llmem_last_error());
		llmem_codec_memory_free(out);
		return llmem_error(ret, "%s buffer of %llu bytes: %s", name,
				   (unsigned long long)page, why);
	}
	out->size = (uint32_t)page;
	return 0;
}

void llmem_codec_memory_free(struct codec_memory *m)
{
	if (m->map)
		llmem_buffer_unmap(m->buffer);
	if (m->fd >= 0 && m->buffer)
		close(m->fd);
	llmem_buffer_destroy(m->buffer);
	if (m->memory)
		llmem_memory_destroy(m->memory);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

int llmem_codec_request_exactly(struct llmem_codec *c, uint32_t queue, uint32_t memory,
				uint32_t count, const char *what)
{
	int ret = llmem_codec_request_buffers(c, queue, memory, count);

	if (ret < 0)
		return ret;
	if ((uint32_t)ret < count)
		return llmem_error(-ENOBUFS, "%s on %s: asked for %u, the driver granted %d", what,
				   llmem_codec_driver(c), count, ret);
	return 0;
}
