// SPDX-License-Identifier: MIT
/*
 * A page crosses to another process as one AF_UNIX message: its DMA-BUF in
 * SCM_RIGHTS, and a header with the page's size and its objects' layout.
 * The receiver imports the DMA-BUF and lays a buffer over the whole page,
 * then a sub-region per object, so both processes address the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/share.h>

#include "base/error.h"
#include "memory/memory.h"

#define WIRE_MAGIC "LLMEMPG1"
#define WIRE_MAX_OBJECTS 4096

struct wire_header {
	char magic[8];
	uint32_t version;
	uint32_t count;
	uint64_t page_size;
};

static int send_all(int sock, struct msghdr *msg)
{
	ssize_t n;

	do {
		n = sendmsg(sock, msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return llmem_error(-errno, "send page: sendmsg: %s", strerror(errno));
	/* A stream socket may take part of it; the fd went with the first byte. */
	for (size_t i = 0; i < msg->msg_iovlen && n > 0; i++) {
		size_t take =
			(size_t)n < msg->msg_iov[i].iov_len ? (size_t)n : msg->msg_iov[i].iov_len;

		n -= (ssize_t)take;
		msg->msg_iov[i].iov_base = (char *)msg->msg_iov[i].iov_base + take;
		msg->msg_iov[i].iov_len -= take;
	}
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		while (msg->msg_iov[i].iov_len) {
			n = send(sock, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len,
				 MSG_NOSIGNAL);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return llmem_error(-errno, "send page: %s", strerror(errno));
			msg->msg_iov[i].iov_base = (char *)msg->msg_iov[i].iov_base + n;
			msg->msg_iov[i].iov_len -= (size_t)n;
		}
	}
	return 0;
}

LLMEM_PUBLIC int llmem_share_send_page(int sock, struct llmem_memory *memory, uint32_t page)
{
	struct wire_header hdr = { .magic = WIRE_MAGIC, .version = 1 };
	struct llmem_shared_object *wire = NULL;
	struct llmem_object_info *all = NULL;
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = { 0 };
	struct iovec iov[2];
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	int fd, n, ret;

	if (!memory)
		return llmem_error(-EINVAL, "send page: NULL memory");
	ret = llmem_memory_page_fd(memory, page, &fd);
	if (ret)
		return ret;
	hdr.page_size = llmem_memory_page_size(memory, page);
	n = llmem_memory_list_objects(memory, NULL, 0);
	if (n > 0) {
		all = calloc((size_t)n, sizeof(*all));
		wire = calloc((size_t)n, sizeof(*wire));
		if (!all || !wire) {
			ret = llmem_error(-ENOMEM, "send page: out of memory");
			goto out_free;
		}
		n = llmem_memory_list_objects(memory, all, (size_t)n);
	}
	for (int i = 0; i < n; i++) {
		if (all[i].allocation.page != page)
			continue;
		if (hdr.count == WIRE_MAX_OBJECTS) {
			ret = llmem_error(-E2BIG, "send page: more than %d objects",
					  WIRE_MAX_OBJECTS);
			goto out_free;
		}
		wire[hdr.count] = (struct llmem_shared_object){
			.offset = all[i].allocation.offset,
			.size = all[i].allocation.size,
			.kind = all[i].kind,
		};
		memcpy(wire[hdr.count].name, all[i].name, sizeof(wire[0].name));
		hdr.count++;
	}

	iov[0] = (struct iovec){ .iov_base = &hdr, .iov_len = sizeof(hdr) };
	iov[1] = (struct iovec){ .iov_base = wire, .iov_len = hdr.count * sizeof(*wire) };
	msg.msg_iov = iov;
	msg.msg_iovlen = hdr.count ? 2 : 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	ret = send_all(sock, &msg);

out_free:
	free(all);
	free(wire);
	return ret;
}

static int recv_exact(int sock, void *buf, size_t len)
{
	while (len) {
		ssize_t n = recv(sock, buf, len, MSG_WAITALL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return llmem_error(-errno, "receive page: %s", strerror(errno));
		if (n == 0)
			return llmem_error(-ECONNRESET, "receive page: the peer closed the socket");
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

/* The header and the DMA-BUF that rides on its first byte. */
static int recv_header(int sock, struct wire_header *hdr, int *fd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = hdr, .iov_len = sizeof(*hdr) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct cmsghdr *cmsg;
	size_t fds = 0;
	ssize_t n;
	int ret;

	*fd = -1;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return llmem_error(-errno, "receive page: recvmsg: %s", strerror(errno));
	if (n == 0)
		return llmem_error(-ECONNRESET, "receive page: the peer closed the socket");
	/*
	 * The control buffer has room for two fds: a peer that sends more than
	 * one still has them installed in our table, and each must be closed.
	 */
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		size_t count;

		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int got;

			memcpy(&got, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
			fds++;
		}
	}
	if (fds > 1 || msg.msg_flags & MSG_CTRUNC)
		return llmem_error(-EPROTO, "receive page: more than one fd in the message");
	if ((size_t)n < sizeof(*hdr)) {
		ret = recv_exact(sock, (char *)hdr + n, sizeof(*hdr) - (size_t)n);
		if (ret)
			return ret;
	}
	if (*fd < 0 || memcmp(hdr->magic, WIRE_MAGIC, sizeof(hdr->magic)) || hdr->version != 1 ||
	    hdr->count > WIRE_MAX_OBJECTS || !hdr->page_size)
		return llmem_error(-EPROTO, "receive page: not an llmem page message");
	return 0;
}

LLMEM_PUBLIC int llmem_share_recv_page(int sock, struct llmem_memory *memory,
				       struct llmem_shared_object *objects,
				       struct llmem_buffer **buffers, uint32_t capacity,
				       uint32_t *page)
{
	struct llmem_buffer_create_info whole_ci = { .name = "received page" };
	struct llmem_shared_object *wire = NULL;
	struct llmem_buffer *whole = NULL;
	struct llmem_allocation whole_alloc;
	struct llmem_memory_info mi;
	struct wire_header hdr;
	bool imported = false;
	int fd, ret;

	if (!memory || !page || (capacity && (!objects || !buffers)))
		return llmem_error(-EINVAL, "receive page: NULL argument");
	if (llmem_memory_get_info(memory, &mi) || mi.sharing != LLMEM_SHARING_IMPORT)
		return llmem_error(-EINVAL, "receive page: the memory is not an import memory");
	ret = recv_header(sock, &hdr, &fd);
	if (ret)
		goto out_close;
	if (hdr.count) {
		wire = calloc(hdr.count, sizeof(*wire));
		if (!wire) {
			ret = llmem_error(-ENOMEM, "receive page: out of memory");
			goto out_close;
		}
		ret = recv_exact(sock, wire, hdr.count * sizeof(*wire));
		if (ret)
			goto out_free;
	}
	if (hdr.count > capacity) {
		ret = llmem_error(-ENOSPC, "receive page: %u objects, room for %u", hdr.count,
				  capacity);
		goto out_free;
	}
	for (uint32_t i = 0; i < hdr.count; i++) {
		if (wire[i].offset > hdr.page_size ||
		    wire[i].size > hdr.page_size - wire[i].offset || !wire[i].size) {
			ret = llmem_error(-EPROTO, "receive page: object %u lies outside the page",
					  i);
			goto out_free;
		}
		wire[i].name[sizeof(wire[i].name) - 1] = '\0';
	}

	ret = llmem_memory_import_dmabuf(memory, fd, hdr.page_size, page);
	if (ret)
		goto out_free;
	imported = true;
	whole_ci.size = hdr.page_size;
	ret = llmem_buffer_create(memory, &whole_ci, &whole);
	if (ret)
		goto out_destroy;
	llmem_buffer_get_allocation(whole, &whole_alloc);
	if (whole_alloc.page != *page || whole_alloc.offset != 0) {
		ret = llmem_error(-EBUSY, "receive page: another imported page of the memory had "
					  "room for it; receive into a fresh import memory");
		goto out_destroy;
	}
	for (uint32_t i = 0; i < hdr.count; i++) {
		objects[i] = wire[i];
		buffers[i] = NULL;
		if (wire[i].kind != LLMEM_OBJECT_BUFFER)
			continue;
		ret = llmem_buffer_create_sub(whole, wire[i].offset, wire[i].size, wire[i].name,
					      &buffers[i]);
		if (ret) {
			while (i--)
				llmem_buffer_destroy(buffers[i]);
			goto out_destroy;
		}
	}
	ret = (int)hdr.count;

out_destroy:
	/* The sub-regions keep the page-wide buffer alive. */
	llmem_buffer_destroy(whole);
	/* A failure keeps no page the caller was not told of. */
	if (ret < 0 && imported)
		llmem_memory_drop_page(memory, *page);
out_free:
	free(wire);
out_close:
	if (fd >= 0)
		close(fd);
	return ret;
}
