// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a malicious peer on the page-sharing socket.  The input
 * is what the peer sends (any bytes, any length, in one or two writes, then
 * a hang-up) and the fds riding on it (none, one or three; a memfd standing
 * for a DMA-BUF, or a pipe, an eventfd, /dev/null that are not).
 * llmem_share_recv_page() (lib/share/socket.c, linked as it is) must answer
 * with a negative errno or the objects it laid out, hand the importer only
 * an open fd, create sub-regions only inside the page, and leave no fd, no
 * buffer and no heap block behind.
 *
 * What the parser calls below it (the memory's info, the import, buffers) is
 * replaced here: a session cannot import on a host without DMA-BUFs, and the
 * parser, not Vulkan, is under test.  These stand-ins check the calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/share.h>

#include "fuzz_input.h"
#include "memory/memory.h"

struct llmem_buffer {
	uint64_t size;
};

static int live_buffers, live_pages;
static uint64_t page_size;

int llmem_memory_get_info(struct llmem_memory *memory, struct llmem_memory_info *info)
{
	memset(info, 0, sizeof(*info));
	info->sharing = LLMEM_SHARING_IMPORT;
	return 0;
}

/* A memfd stands for a DMA-BUF; anything else is refused as the real import refuses it. */
int llmem_memory_import_dmabuf(struct llmem_memory *memory, int fd, uint64_t size, uint32_t *page)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (fcntl(fd, F_GETFD) < 0)
		abort();
	if (seals < 0)
		return -EINVAL;
	page_size = size;
	*page = 0;
	live_pages++;
	return 0;
}

/* A receive that fails after its import gives the page back. */
void llmem_memory_drop_page(struct llmem_memory *m, uint32_t page)
{
	if (page != 0 || live_pages != 1)
		abort();
	live_pages--;
}

int llmem_buffer_create(struct llmem_memory *memory, const struct llmem_buffer_create_info *info,
			struct llmem_buffer **out)
{
	struct llmem_buffer *b = malloc(sizeof(*b));

	if (!b)
		return -ENOMEM;
	if (info->size != page_size)
		abort();
	b->size = info->size;
	live_buffers++;
	*out = b;
	return 0;
}

int llmem_buffer_get_allocation(const struct llmem_buffer *buffer, struct llmem_allocation *a)
{
	*a = (struct llmem_allocation){ .size = buffer->size };
	return 0;
}

int llmem_buffer_create_sub(struct llmem_buffer *parent, uint64_t offset, uint64_t size,
			    const char *name, struct llmem_buffer **out)
{
	struct llmem_buffer *b;

	if (!size || offset > parent->size || size > parent->size - offset ||
	    strnlen(name, 64) == 64)
		abort();
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->size = size;
	live_buffers++;
	*out = b;
	return 0;
}

void llmem_buffer_destroy(struct llmem_buffer *buffer)
{
	if (!buffer)
		return;
	live_buffers--;
	free(buffer);
}

/* The sending side is not under test. */
int llmem_memory_list_objects(struct llmem_memory *memory, struct llmem_object_info *objects,
			      size_t capacity)
{
	abort();
}

int llmem_memory_page_fd(struct llmem_memory *m, uint32_t page, int *fd)
{
	abort();
}

uint64_t llmem_memory_page_size(struct llmem_memory *m, uint32_t page)
{
	abort();
}

static int make_fd(unsigned int kind)
{
	int p[2];

	switch (kind) {
	case 0:
		return memfd_create("fuzz-page", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	case 1:
		if (pipe2(p, O_CLOEXEC))
			return -1;
		close(p[1]);
		return p[0];
	case 2:
		return eventfd(0, EFD_CLOEXEC);
	default:
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
}

/* The fds in play here are small numbers: a leak shows among the first 64. */
static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 64; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	uint8_t flags = fuzz_u8(&in), capacity = fuzz_u8(&in) % 9;
	static const unsigned int nfds_of[] = { 0, 1, 1, 3 };
	unsigned int nfds = nfds_of[flags & 3], kind = flags >> 2 & 3;
	struct llmem_shared_object objects[8];
	struct llmem_buffer *buffers[8];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(3 * sizeof(int))];
	} control = { 0 };
	uint8_t payload[8192];
	size_t len = in.size < sizeof(payload) ? in.size : sizeof(payload);
	size_t first = flags & 0x10 ? len / 2 : len;
	struct iovec iov = { .iov_base = payload, .iov_len = first };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2], fds[3], before = count_fds(), ret;
	uint32_t page;

	memcpy(payload, in.data, len);
	/* Half the inputs carry a valid magic and version, to reach what follows. */
	if (flags & 0x20 && len >= 12) {
		memcpy(payload, "LLMEMPG1", 8);
		memcpy(payload + 8, &(uint32_t){ 1 }, 4);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = make_fd(kind);
	if (nfds) {
		struct cmsghdr *cmsg;

		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), fds, nfds * sizeof(int));
	}
	/* An empty write with fds still carries them. */
	if (first || nfds) {
		if (!first)
			iov.iov_len = 1;
		if (sendmsg(sv[1], &msg, MSG_NOSIGNAL) < 0)
			abort();
	}
	if (len > first && send(sv[1], payload + first, len - first, MSG_NOSIGNAL) < 0)
		abort();
	for (unsigned int i = 0; i < nfds; i++)
		close(fds[i]);
	shutdown(sv[1], SHUT_WR);

	ret = llmem_share_recv_page(sv[0], (struct llmem_memory *)sv, objects, buffers, capacity,
				    &page);
	if (ret > (int)capacity || (ret < 0 && ret < -4095))
		abort();
	/* A page stays only with a message received whole. */
	if (live_pages != (ret >= 0))
		abort();
	live_pages = 0;
	for (int i = 0; i < ret; i++)
		llmem_buffer_destroy(buffers[i]);
	close(sv[0]);
	close(sv[1]);
	if (live_buffers || count_fds() != before)
		abort();
	return 0;
}
