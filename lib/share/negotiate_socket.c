// SPDX-License-Identifier: MIT
/*
 * Negotiation messages over a stream socket (share.h): one message a
 * call, its header read first so that the rest is read to its length and
 * no further, which keeps the stream in step for the page messages that
 * follow on the same socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"
#include "share/negotiate_wire.h"

static int send_message(int sock, const uint8_t *buf, size_t len, const char *what)
{
	while (len) {
		ssize_t n = send(sock, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return llmem_error(-errno, "send %s: %s", what, strerror(errno));
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* With no control buffer, fds that ride on the bytes are closed by the
 * kernel, never installed here. */
static int recv_exact(int sock, uint8_t *buf, size_t len, const char *what)
{
	while (len) {
		ssize_t n = recv(sock, buf, len, MSG_WAITALL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return llmem_error(-errno, "receive %s: %s", what, strerror(errno));
		if (n == 0)
			return llmem_error(-ECONNRESET, "receive %s: the peer closed the socket",
					   what);
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One whole message of @type into a new buffer of *@len bytes. */
static int recv_message(int sock, uint32_t type, uint8_t **out, size_t *len, const char *what)
{
	uint8_t header[LLMEM_NEGOTIATE_WIRE_HEADER];
	uint32_t version, count, length;
	uint8_t *buf;
	int ret;

	ret = recv_exact(sock, header, sizeof(header), what);
	if (!ret)
		ret = llmem_negotiate_wire_header(header, type, &version, &count, &length);
	if (ret)
		return ret;
	buf = malloc(sizeof(header) + length);
	if (!buf)
		return llmem_error(-ENOMEM, "receive %s: out of memory", what);
	memcpy(buf, header, sizeof(header));
	ret = recv_exact(sock, buf + sizeof(header), length, what);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = sizeof(header) + length;
	return 0;
}

LLMEM_PUBLIC int llmem_negotiate_send_statement(int sock, const struct llmem_participant *ps,
						uint32_t count)
{
	uint8_t *buf;
	int len, ret;

	len = llmem_negotiate_encode_statement(ps, count, NULL, 0);
	if (len < 0)
		return len;
	buf = malloc((size_t)len);
	if (!buf)
		return llmem_error(-ENOMEM, "send statement: out of memory");
	len = llmem_negotiate_encode_statement(ps, count, buf, (size_t)len);
	ret = len < 0 ? len : send_message(sock, buf, (size_t)len, "statement");
	free(buf);
	return ret;
}

LLMEM_PUBLIC int llmem_negotiate_recv_statement(int sock, struct llmem_participant *ps,
						uint32_t capacity, uint32_t *count)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (!ps || !count)
		return llmem_error(-EINVAL, "receive statement: NULL %s",
				   ps ? "count" : "participants");
	ret = recv_message(sock, LLMEM_NEGOTIATE_WIRE_STATEMENT, &buf, &len, "statement");
	if (ret)
		return ret;
	ret = llmem_negotiate_decode_statement(buf, len, ps, capacity, count);
	free(buf);
	return ret;
}

LLMEM_PUBLIC int llmem_negotiate_send_result(int sock, const struct llmem_negotiated *result)
{
	uint8_t *buf;
	int len, ret;

	len = llmem_negotiate_encode_result(result, NULL, 0);
	if (len < 0)
		return len;
	buf = malloc((size_t)len);
	if (!buf)
		return llmem_error(-ENOMEM, "send result: out of memory");
	len = llmem_negotiate_encode_result(result, buf, (size_t)len);
	ret = len < 0 ? len : send_message(sock, buf, (size_t)len, "result");
	free(buf);
	return ret;
}

LLMEM_PUBLIC int llmem_negotiate_recv_result(int sock, struct llmem_negotiated *result)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (!result)
		return llmem_error(-EINVAL, "receive result: NULL result");
	ret = recv_message(sock, LLMEM_NEGOTIATE_WIRE_RESULT, &buf, &len, "result");
	if (ret)
		return ret;
	ret = llmem_negotiate_decode_result(buf, len, result);
	free(buf);
	return ret;
}
