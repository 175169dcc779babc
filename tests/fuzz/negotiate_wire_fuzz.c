// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a peer's negotiation messages (lib/share/negotiate_wire.c).
 * The input is a flags byte, a request for llmem_negotiate() and the bytes
 * the peer sent.  The decoders must answer 0, -EPROTO or -ENOSPC and read
 * nothing past the bytes given; what they accept must encode to the very
 * same bytes (the encoding is canonical), and a statement they accept is
 * merged by llmem_negotiate() (lib/memory/negotiate.c), with the CPU, as
 * the allocating side would: whatever it answers, a layout it gives must
 * pass the checks a received result passes.  Some inputs go through a
 * socketpair instead (lib/share/negotiate_socket.c), the peer hanging up
 * after its bytes: the receive must read no more than one message and
 * answer as the decoder does, or -ECONNRESET for a message cut short.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/negotiate.h>
#include <llmem/share.h>

#include "fuzz_input.h"
#include "share/negotiate_wire.h"

/* Flags: which message, whether to make its header valid so that the
 * fuzzer spends its time past it, and in which version. */
#define FUZZ_RESULT 0x01
#define FUZZ_FIX_HEADER 0x02
#define FUZZ_SOCKET 0x04
#define FUZZ_VERSION_1 0x08

static const uint32_t fourccs[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12, DRM_FORMAT_XRGB8888,
				    DRM_FORMAT_ARGB8888, DRM_FORMAT_ABGR8888 };

static void fix_header(uint8_t *msg, size_t len, uint32_t type, uint32_t version)
{
	uint32_t length = (uint32_t)(len - 24);

	memcpy(msg, "LLMEMNEG", 8);
	msg[8] = (uint8_t)version;
	memset(msg + 9, 0, 3);
	msg[12] = (uint8_t)type;
	memset(msg + 13, 0, 3);
	msg[16] = type == 2 ? 1 : msg[16] % (LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1);
	memset(msg + 17, 0, 3);
	for (int i = 0; i < 4; i++)
		msg[20 + i] = (uint8_t)(length >> 8 * i);
}

/* The same bytes again from what was decoded. */
static void check_canonical(const uint8_t *msg, size_t len, int encoded, const uint8_t *again)
{
	if (encoded < 0 || (size_t)encoded != len || memcmp(again, msg, len))
		abort();
}

static void statement(const uint8_t *msg, size_t len, uint32_t capacity,
		      const struct llmem_negotiate_request *req)
{
	static struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1];
	static uint8_t again[LLMEM_NEGOTIATE_WIRE_MAX];
	struct llmem_negotiated r;
	uint8_t result[256];
	uint32_t n = 0;
	int ret;

	ret = llmem_negotiate_decode_statement(msg, len, ps + 1, capacity, &n);
	if (ret == -EPROTO || ret == -ENOSPC)
		return;
	if (ret || !n || n > capacity)
		abort();
	check_canonical(msg, len, llmem_negotiate_encode_statement(ps + 1, n, again, sizeof(again)),
			again);
	/* The allocating side adds itself (the CPU, as llmem_participant_cpu()
	 * states it); a 16th peer leaves it no room. */
	memset(&ps[0], 0, sizeof(ps[0]));
	strcpy(ps[0].name, "the CPU");
	ps[0].kind = LLMEM_PARTICIPANT_CPU;
	if (n == LLMEM_NEGOTIATE_MAX_PARTICIPANTS)
		n--;
	ret = llmem_negotiate(ps, n + 1, req, &r);
	if (ret == -EINVAL || ret == -ENOTSUP || ret == -EOVERFLOW)
		return;
	if (ret)
		abort();
	/* What it lays out, the peer must be able to receive. */
	ret = llmem_negotiate_encode_result(&r, result, sizeof(result));
	if (ret < 0 || llmem_negotiate_decode_result(result, (size_t)ret, &r))
		abort();
}

static void result(const uint8_t *msg, size_t len)
{
	struct llmem_negotiated r;
	uint8_t again[256];
	int ret;

	ret = llmem_negotiate_decode_result(msg, len, &r);
	if (ret == -EPROTO)
		return;
	if (ret)
		abort();
	check_canonical(msg, len, llmem_negotiate_encode_result(&r, again, sizeof(again)), again);
}

/*
 * The bytes, and one byte more, through a socket: the receive reads the
 * header, then as many bytes as it says and no more, and answers what the
 * decoder answers for those, -EPROTO for a bad header, -ECONNRESET for
 * bytes that end early.
 */
static void through_socket(const uint8_t *msg, size_t len, uint32_t capacity, bool is_result)
{
	static struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	uint32_t type = is_result ? LLMEM_NEGOTIATE_WIRE_RESULT : LLMEM_NEGOTIATE_WIRE_STATEMENT;
	uint8_t *stream = malloc(len + 1), next;
	struct llmem_negotiated r;
	uint32_t n, version, count, length;
	size_t end = 0;
	int sv[2], ret, want;

	if (!stream || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	memcpy(stream, msg, len);
	stream[len] = '!';
	if (send(sv[1], stream, len + 1, MSG_NOSIGNAL) != (ssize_t)len + 1)
		abort();
	shutdown(sv[1], SHUT_WR);
	if (len + 1 < LLMEM_NEGOTIATE_WIRE_HEADER)
		want = -ECONNRESET;
	else if (llmem_negotiate_wire_header(stream, type, &version, &count, &length))
		want = -EPROTO;
	else if ((end = LLMEM_NEGOTIATE_WIRE_HEADER + (size_t)length) > len + 1)
		want = -ECONNRESET;
	else if (is_result)
		want = llmem_negotiate_decode_result(stream, end, &r);
	else
		want = llmem_negotiate_decode_statement(stream, end, ps, capacity, &n);
	ret = is_result ? llmem_negotiate_recv_result(sv[0], &r)
			: llmem_negotiate_recv_statement(sv[0], ps, capacity, &n);
	if (ret != want)
		abort();
	/* After a whole message the stream stands at the byte that follows it. */
	if (end && end <= len + 1 && recv(sv[0], &next, 1, 0) != (end < len + 1 ? 1 : 0))
		abort();
	if (end && end < len + 1 && next != stream[end])
		abort();
	close(sv[0]);
	close(sv[1]);
	free(stream);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	uint8_t flags = fuzz_u8(&in), capacity = fuzz_u8(&in) % 18, pick = fuzz_u8(&in);
	struct llmem_negotiate_request req = {
		.width = fuzz_u8(&in) * 16u + fuzz_u8(&in) % 16,
		.height = fuzz_u8(&in) * 16u + fuzz_u8(&in) % 16,
	};
	uint8_t *msg;
	size_t len = in.size;

	/* Half the requests name one fourcc, the others take the library's order. */
	if (pick & 0x80) {
		req.fourccs = &fourccs[pick % 5];
		req.num_fourccs = 1;
	}
	/* A copy of exactly the peer's bytes, so that ASan sees a read past them. */
	msg = malloc(len ? len : 1);
	if (!msg)
		return 0;
	memcpy(msg, in.data, len);
	if (flags & FUZZ_FIX_HEADER && len >= 24)
		fix_header(msg, len, flags & FUZZ_RESULT ? 2 : 1,
			   flags & FUZZ_VERSION_1 ? 1 : LLMEM_NEGOTIATE_WIRE_VERSION);
	if (flags & FUZZ_SOCKET)
		through_socket(msg, len, capacity, flags & FUZZ_RESULT);
	else if (flags & FUZZ_RESULT)
		result(msg, len);
	else
		statement(msg, len, capacity, &req);
	free(msg);
	return 0;
}
