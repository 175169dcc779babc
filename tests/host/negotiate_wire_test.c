// SPDX-License-Identifier: MIT
/*
 * The negotiation messages (share.h): statements and results come back
 * from their bytes as they went, the bytes are the documented
 * little-endian fields, every malformed message a peer can send is refused
 * with -EPROTO and a message saying what is wrong, and two processes
 * negotiate over a socketpair: the consumer states a pitch alignment, the
 * producer merges it with its own and sends the layout back.
 *
 * The frames themselves do not cross here: the build machine's kernel has
 * no udmabuf and its lavapipe no DMA-BUF export, so a shared memory cannot
 * be made; tests/vm/share_test.c sends pages in the VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"

/* Where fields of the statement make_statement() encodes lie: the CPU and
 * the contiguous pages have no formats, 144 bytes each. */
#define HDR 24
#define P2 (HDR + 2 * 144)
#define P2_KIND (P2 + 64)
#define P2_NUM_FORMATS (P2 + 68)
#define P2_C (P2 + 72)
#define F0 (P2 + 144)
#define F1 (F0 + 24 + 2 * 8)

/* Fields of the result message. */
#define R_FOURCC HDR
#define R_NUM_PLANES (HDR + 12)
#define R_MODIFIER (HDR + 16)
#define R_OFFSET(i) (HDR + 24 + 8 * (i))
#define R_PITCH(i) (HDR + 56 + 4 * (i))
#define R_SIZE (HDR + 72)
#define R_C (HDR + 80)
#define R_FLAGS (HDR + 152)

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The CPU, llmem.ko's contiguous pages, and a stated participant with
 * every field of its constraints set, each to a value of its own. */
static void make_statement(struct llmem_participant ps[3])
{
	memset(ps, 0, 3 * sizeof(*ps));
	llmem_participant_cpu(&ps[0]);
	llmem_participant_llmem_contiguous(&ps[1]);
	strcpy(ps[2].name, "consumer");
	ps[2].kind = LLMEM_PARTICIPANT_OTHER;
	ps[2].num_formats = 2;
	ps[2].formats[0] = (struct llmem_format_caps){
		.fourcc = DRM_FORMAT_NV12,
		.num_modifiers = 2,
		.source = LLMEM_FACT_REPORTED,
		.modifiers = { DRM_FORMAT_MOD_LINEAR, 0x0100000000000002ull },
	};
	ps[2].formats[1] = (struct llmem_format_caps){
		.fourcc = DRM_FORMAT_XRGB8888,
		.source = LLMEM_FACT_PROBED,
	};
	ps[2].constraints = (struct llmem_constraints){
		.pitch_alignment = 256,
		.pitch = 4096,
		.plane_alignment = 512,
		.size_alignment = 4096,
		.min_size = 0x100000001ull,
		.max_size = 0x200000003ull,
		.min_width = 16,
		.max_width = 4096,
		.min_height = 8,
		.max_height = 2160,
		.max_pitch = 16384,
		.flags = LLMEM_CONSTRAINT_PLANES_IN_ONE_FD,
		.min_buffers = 3,
		.probed = LLMEM_C_PITCH,
		.assumed = LLMEM_C_BUFFERS,
	};
}

/* NV12 at 1000x500 for the CPU and a participant that wants pitches of 256. */
static void make_result(struct llmem_negotiated *r)
{
	struct llmem_participant ps[2] = { 0 };
	struct llmem_negotiate_request req = { .width = 1000, .height = 500 };
	uint32_t nv12 = DRM_FORMAT_NV12;

	llmem_participant_cpu(&ps[0]);
	strcpy(ps[1].name, "scanout");
	ps[1].kind = LLMEM_PARTICIPANT_OTHER;
	ps[1].constraints.pitch_alignment = 256;
	ps[1].constraints.min_buffers = 2;
	req.fourccs = &nv12;
	req.num_fourccs = 1;
	if (llmem_negotiate(ps, 2, &req, r))
		memset(r, 0, sizeof(*r));
}

/* Open fds among the first 256: a received fd that stays shows here. */
static int count_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

FIXTURE(statement)
{
	struct llmem_participant ps[3];
	struct llmem_participant out[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	uint8_t msg[LLMEM_NEGOTIATE_WIRE_MAX + 8];
	int len;
	uint32_t n;
};

FIXTURE_SETUP(statement)
{
	make_statement(self->ps);
	self->len = llmem_negotiate_encode_statement(self->ps, 3, self->msg, sizeof(self->msg));
	ASSERT_GT(self->len, 0) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(statement)
{
}

/* Decoding gives back every byte of every participant, and the size
 * asked for first is the size written. */
TEST_F(statement, round_trip)
{
	EXPECT_EQ(llmem_negotiate_encode_statement(self->ps, 3, NULL, 0), self->len);
	EXPECT_EQ(self->len, HDR + 3 * 144 + 24 + 2 * 8 + 24);
	memset(self->out, 0xa5, sizeof(self->out));
	ASSERT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len, self->out, 16,
						   &self->n),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(self->n, 3);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(memcmp(&self->out[i], &self->ps[i], sizeof(self->ps[i])), 0)
		TH_LOG("participant %d differs", i);
	}
}

/* The bytes are the documented fields, little-endian, whatever the host. */
TEST_F(statement, little_endian_fields)
{
	EXPECT_EQ(memcmp(self->msg, "LLMEMNEG", 8), 0);
	/* Nothing of padding in it: version 1, which readers of 1 read. */
	EXPECT_EQ(get_le32(self->msg + 8), 1);
	EXPECT_EQ(get_le32(self->msg + 12), 1);
	EXPECT_EQ(get_le32(self->msg + 16), 3);
	EXPECT_EQ(get_le32(self->msg + 20), self->len - HDR);
	EXPECT_STREQ((char *)self->msg + HDR, "the CPU");
	EXPECT_EQ(get_le32(self->msg + HDR + 64), LLMEM_PARTICIPANT_CPU);
	EXPECT_STREQ((char *)self->msg + P2, "consumer");
	EXPECT_TRUE(all_zero(self->msg + P2 + 9, 64 - 9));
	EXPECT_EQ(get_le32(self->msg + P2_KIND), LLMEM_PARTICIPANT_OTHER);
	EXPECT_EQ(get_le32(self->msg + P2_NUM_FORMATS), 2);
	/* pitch_alignment first; min_size's two halves, low first. */
	EXPECT_EQ(memcmp(self->msg + P2_C, "\x00\x01\x00\x00", 4), 0);
	EXPECT_EQ(get_le32(self->msg + P2_C + 16), 1);
	EXPECT_EQ(get_le32(self->msg + P2_C + 20), 1);
	EXPECT_EQ(get_le32(self->msg + P2_C + 52), LLMEM_CONSTRAINT_PLANES_IN_ONE_FD);
	EXPECT_EQ(get_le32(self->msg + F0), DRM_FORMAT_NV12);
	EXPECT_EQ(get_le32(self->msg + F0 + 4), 2);
	EXPECT_EQ(get_le32(self->msg + F0 + 8), LLMEM_FACT_REPORTED);
	EXPECT_EQ(memcmp(self->msg + F0 + 32, "\x02\x00\x00\x00\x00\x00\x00\x01", 8), 0);
	EXPECT_EQ(get_le32(self->msg + F1), DRM_FORMAT_XRGB8888);
}

/* Every length short of the whole message is refused, none read past. */
TEST_F(statement, truncated)
{
	for (int len = 0; len < self->len; len++) {
		uint8_t *copy = malloc((size_t)len + 1);

		ASSERT_NE(copy, NULL);
		memcpy(copy, self->msg, (size_t)len);
		EXPECT_EQ(llmem_negotiate_decode_statement(copy, (size_t)len, self->out, 16,
							   &self->n),
			  -EPROTO)
		TH_LOG("length %d", len);
		free(copy);
	}
	EXPECT_NE(strstr(llmem_last_error(), "its header says"), NULL)
	TH_LOG("%s", llmem_last_error());
}

/* A byte past the end, even one the header counts, is refused. */
TEST_F(statement, trailing_bytes)
{
	EXPECT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len + 1, self->out, 16,
						   &self->n),
		  -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "its header says"), NULL);
	put_le32(self->msg + 20, (uint32_t)self->len + 1 - HDR);
	EXPECT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len + 1, self->out, 16,
						   &self->n),
		  -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "1 bytes past its last participant"), NULL)
	TH_LOG("%s", llmem_last_error());
}

/* More participants than room: -ENOSPC, the count untouched. */
TEST_F(statement, no_room)
{
	self->n = 77;
	EXPECT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len, self->out, 2,
						   &self->n),
		  -ENOSPC);
	EXPECT_NE(strstr(llmem_last_error(), "3 participants, room for 2"), NULL);
	EXPECT_EQ(self->n, 77);
}

TEST_F(statement, null_arguments)
{
	EXPECT_EQ(llmem_negotiate_decode_statement(NULL, 64, self->out, 16, &self->n), -EINVAL);
	EXPECT_EQ(
		llmem_negotiate_decode_statement(self->msg, (size_t)self->len, NULL, 16, &self->n),
		-EINVAL);
	EXPECT_EQ(
		llmem_negotiate_decode_statement(self->msg, (size_t)self->len, self->out, 16, NULL),
		-EINVAL);
	EXPECT_EQ(llmem_negotiate_encode_statement(NULL, 1, self->msg, sizeof(self->msg)), -EINVAL);
	EXPECT_EQ(llmem_negotiate_encode_statement(self->ps, 3, NULL, 64), -EINVAL);
	EXPECT_EQ(llmem_negotiate_encode_statement(self->ps, 3, self->msg, (size_t)self->len - 1),
		  -ENOSPC);
	EXPECT_NE(strstr(llmem_last_error(), "room for"), NULL);
}

/* A message patched at one place: @width bytes at @offset set to @value
 * (64: the whole name set to that byte). */
FIXTURE(bad_statement)
{
	struct llmem_participant ps[3];
	struct llmem_participant out[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	uint8_t msg[LLMEM_NEGOTIATE_WIRE_MAX];
	int len;
	uint32_t n;
};

FIXTURE_VARIANT(bad_statement)
{
	int offset;
	int width;
	uint32_t value;
	const char *says;
};

#define STATEMENT_BAD(id, off, w, v, msg)                                   \
	FIXTURE_VARIANT_ADD(bad_statement, id)                              \
	{                                                                   \
		.offset = (off), .width = (w), .value = (v), .says = (msg), \
	}

STATEMENT_BAD(magic, 3, 1, 'X', "not a negotiation message");
STATEMENT_BAD(version_3, 8, 4, 3, "the peer speaks version 3, not 1 to 2");
STATEMENT_BAD(version_0, 8, 4, 0, "version 0, not 1 to 2");
STATEMENT_BAD(type_result, 12, 4, 2, "type 2 (a result)");
STATEMENT_BAD(type_unknown, 12, 4, 9, "type 9 (unknown)");
STATEMENT_BAD(no_participants, 16, 4, 0, "0 participants; 1 to 16");
STATEMENT_BAD(participants_17, 16, 4, 17, "17 participants; 1 to 16");
STATEMENT_BAD(participants_past_end, 16, 4, 4, "496 bytes cannot hold 4 participants");
STATEMENT_BAD(participants_fewer, 16, 4, 2, "208 bytes past its last participant");
STATEMENT_BAD(length_too_short, 20, 4, 100, "100 bytes cannot hold 3 participants");
STATEMENT_BAD(length_huge, 20, 4, 0xffffffff, "bytes cannot hold 3 participants");
STATEMENT_BAD(name_no_nul, P2, 64, 'a', "participant 2: name not NUL-terminated");
STATEMENT_BAD(name_empty, P2, 64, 0, "participant 2: empty name");
STATEMENT_BAD(name_padding, P2 + 63, 1, 'x', "participant 2: bytes past its name's NUL");
STATEMENT_BAD(name_control, P2 + 2, 1, 0x1b, "control character 0x1b");
STATEMENT_BAD(name_delete, P2, 1, 0x7f, "control character 0x7f");
STATEMENT_BAD(kind_0, P2_KIND, 4, 0, "consumer: unknown kind 0");
STATEMENT_BAD(kind_8, P2_KIND, 4, 8, "consumer: unknown kind 8");
STATEMENT_BAD(formats_33, P2_NUM_FORMATS, 4, 33, "participant 2: 33 formats; at most 32");
STATEMENT_BAD(formats_past_end, P2_NUM_FORMATS, 4, 3, "format 2 is truncated");
STATEMENT_BAD(flags, P2_C + 52, 4, 1u << 5, "unknown constraint flags 0x20");
/* Version 2's flags and marks in a version 1 message. */
STATEMENT_BAD(flags_of_v2, P2_C + 52, 4, LLMEM_CONSTRAINT_NO_CROP_WIDTH,
	      "version 1 for what version 2 holds");
STATEMENT_BAD(probed_of_v2, P2_C + 60, 4, LLMEM_C_CODED_SIZE, "version 1 for what version 2 holds");
STATEMENT_BAD(probed, P2_C + 60, 4, 1u << 14, "unknown constraint fields 0x4000");
STATEMENT_BAD(assumed, P2_C + 64, 4, 1u << 31, "unknown constraint fields 0x80000000");
STATEMENT_BAD(constraints_reserved, P2_C + 68, 4, 1, "reserved field of the constraints");
STATEMENT_BAD(modifiers_9, F0 + 4, 4, 9, "format 0 has 9 modifiers; at most 8");
STATEMENT_BAD(modifiers_past_end, F1 + 4, 4, 1, "modifiers of format 1 are truncated");
STATEMENT_BAD(source_0, F0 + 8, 4, 0, "format 0 has unknown fact source 0");
STATEMENT_BAD(source_4, F1 + 8, 4, 4, "format 1 has unknown fact source 4");
STATEMENT_BAD(format_pitch, F0 + 12, 4, 5,
	      "format 0's pitch 5 is not a multiple of its pitch alignment 256");

FIXTURE_SETUP(bad_statement)
{
	make_statement(self->ps);
	self->len = llmem_negotiate_encode_statement(self->ps, 3, self->msg, sizeof(self->msg));
	ASSERT_GT(self->len, 0) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(bad_statement)
{
}

/* Each malformed message is -EPROTO, and the message says why. */
TEST_F(bad_statement, refused)
{
	uint8_t *at = self->msg + variant->offset;

	if (variant->width == 64)
		memset(at, (int)variant->value, 64);
	else if (variant->width == 1)
		*at = (uint8_t)variant->value;
	else
		put_le32(at, variant->value);
	self->n = 77;
	EXPECT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len, self->out, 16,
						   &self->n),
		  -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), variant->says), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->n, 77);
}

/* What the wire cannot carry is refused before a byte is written. */
TEST(encode_refuses)
{
	static const struct {
		const char *says;
	} cases[] = {
		{ "0 participants; 1 to 16" },
		{ "17 participants; 1 to 16" },
		{ "participant 2: name not NUL-terminated" },
		{ "participant 2: empty name" },
		{ "control character 0x0a" },
		{ "unknown kind 0" },
		{ "unknown kind 8" },
		{ "33 formats; at most 32" },
		{ "format 0 has 9 modifiers; at most 8" },
		{ "format 1 has unknown fact source 0" },
		{ "format 0's pitch 5 is not a multiple of its pitch alignment 256" },
		{ "unknown constraint flags 0x80" },
		{ "unknown constraint fields 0x4000" },
		{ "reserved field of the constraints" },
	};
	struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1];
	uint8_t msg[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		uint32_t count = 3;

		make_statement(ps);
		switch (i) {
		case 0:
			count = 0;
			break;
		case 1:
			count = 17;
			for (int k = 3; k < 17; k++)
				ps[k] = ps[0];
			break;
		case 2:
			memset(ps[2].name, 'a', sizeof(ps[2].name));
			break;
		case 3:
			ps[2].name[0] = '\0';
			break;
		case 4:
			strcpy(ps[2].name, "two\nlines");
			break;
		case 5:
			ps[2].kind = 0;
			break;
		case 6:
			ps[2].kind = 8;
			break;
		case 7:
			ps[2].num_formats = 33;
			break;
		case 8:
			ps[2].formats[0].num_modifiers = 9;
			break;
		case 9:
			ps[2].formats[1].source = 0;
			break;
		case 10:
			ps[2].formats[0].pitch = 5;
			break;
		case 11:
			ps[2].constraints.flags |= 1u << 7;
			break;
		case 12:
			ps[2].constraints.assumed = 1u << 14;
			break;
		case 13:
			ps[2].constraints.reserved = 1;
			break;
		}
		memset(msg, 0xa5, sizeof(msg));
		EXPECT_EQ(llmem_negotiate_encode_statement(ps, count, msg, sizeof(msg)), -EINVAL)
		TH_LOG("case %zu", i);
		EXPECT_NE(strstr(llmem_last_error(), cases[i].says), NULL)
		TH_LOG("case %zu: %s", i, llmem_last_error());
		EXPECT_EQ(msg[0], 0xa5);
	}
}

FIXTURE(result)
{
	struct llmem_negotiated r, out;
	uint8_t msg[256];
	int len;
};

FIXTURE_SETUP(result)
{
	make_result(&self->r);
	ASSERT_EQ(self->r.layout.num_planes, 2);
	self->len = llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg));
	ASSERT_EQ(self->len, HDR + 160) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(result)
{
}

/* A two-plane layout with its merged constraints comes back as it went. */
TEST_F(result, round_trip)
{
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, NULL, 0), self->len);
	memset(&self->out, 0xa5, sizeof(self->out));
	ASSERT_EQ(llmem_negotiate_decode_result(self->msg, (size_t)self->len, &self->out), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(&self->out, &self->r, sizeof(self->r)), 0);
	EXPECT_EQ(self->out.layout.pitch[0] % 256, 0);
	EXPECT_EQ(self->out.min_buffers, 2);
	EXPECT_EQ(get_le32(self->msg + 12), 2);
	EXPECT_EQ(get_le32(self->msg + R_FOURCC), DRM_FORMAT_NV12);
	EXPECT_EQ(get_le32(self->msg + R_PITCH(0)), self->r.layout.pitch[0]);
	EXPECT_EQ(get_le32(self->msg + R_OFFSET(1)), self->r.layout.offset[1]);
	EXPECT_EQ(get_le32(self->msg + R_C), self->r.constraints.pitch_alignment);
}

TEST_F(result, truncated)
{
	for (int len = 0; len < self->len; len++) {
		EXPECT_EQ(llmem_negotiate_decode_result(self->msg, (size_t)len, &self->out),
			  -EPROTO)
		TH_LOG("length %d", len);
	}
}

/* Planes the layout does not have are sent as zero, whatever the struct holds. */
TEST_F(result, unused_planes_zero)
{
	self->r.layout.offset[3] = 99;
	self->r.layout.pitch[2] = 7;
	ASSERT_EQ(llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg)), self->len);
	EXPECT_TRUE(all_zero(self->msg + R_OFFSET(2), 16));
	EXPECT_TRUE(all_zero(self->msg + R_PITCH(2), 8));
}

TEST_F(result, encode_refuses)
{
	EXPECT_EQ(llmem_negotiate_encode_result(NULL, self->msg, sizeof(self->msg)), -EINVAL);
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, NULL, 8), -EINVAL);
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, self->msg, (size_t)self->len - 1),
		  -ENOSPC);
	self->r.layout.pitch[0] = 10;
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "encode result: plane 0"), NULL)
	TH_LOG("%s", llmem_last_error());
	make_result(&self->r);
	self->r.flags = 1u << 5;
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "unknown flags 0x20"), NULL);
	make_result(&self->r);
	self->r.constraints.reserved = 3;
	EXPECT_EQ(llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "reserved field of the constraints"), NULL);
	EXPECT_EQ(llmem_negotiate_decode_result(NULL, 64, &self->out), -EINVAL);
	EXPECT_EQ(llmem_negotiate_decode_result(self->msg, 64, NULL), -EINVAL);
}

FIXTURE(bad_result)
{
	struct llmem_negotiated r, out;
	uint8_t msg[256];
	int len;
};

FIXTURE_VARIANT(bad_result)
{
	int offset;
	uint32_t value;
	const char *says;
};

#define RESULT_BAD(id, off, v, msg)                           \
	FIXTURE_VARIANT_ADD(bad_result, id)                   \
	{                                                     \
		.offset = (off), .value = (v), .says = (msg), \
	}

RESULT_BAD(magic, 0, 0x504d454c, "not a negotiation message");
RESULT_BAD(version, 8, 3, "the peer speaks version 3, not 1 to 2");
/* A version 2 result is longer: read as one, this one is cut short. */
RESULT_BAD(version_2, 8, 2, "count 1 and length 160; 1 and 176 expected in version 2");
RESULT_BAD(type_statement, 12, 1, "type 1 (a statement)");
RESULT_BAD(count, 16, 2, "count 2 and length 160; 1 and 160 expected in version 1");
RESULT_BAD(length, 20, 161, "count 1 and length 161");
RESULT_BAD(fourcc, R_FOURCC, 0x20202020, "none of llmem's frame formats");
RESULT_BAD(planes_5, R_NUM_PLANES, 5, "5 planes; at most 4");
RESULT_BAD(planes_1, R_NUM_PLANES, 1, "plane 1 past the 1 planes not zero");
RESULT_BAD(planes_3, R_NUM_PLANES, 3, "of 3 planes");
RESULT_BAD(modifier, R_MODIFIER + 4, 1, "modifier 0x100000000");
RESULT_BAD(offset_unused, R_OFFSET(2), 1, "plane 2 past the 2 planes not zero");
RESULT_BAD(pitch_unused, R_PITCH(3), 64, "plane 3 past the 2 planes not zero");
RESULT_BAD(pitch_past_size, R_PITCH(0), 0xffffff00, "plane 0 (offset 0, pitch 4294967040");
RESULT_BAD(pitch_below_row, R_PITCH(1), 4, "plane 1 (offset");
RESULT_BAD(plane_past_size, R_OFFSET(1) + 4, 1, "does not lie in the frame");
RESULT_BAD(size_0, R_SIZE, 0, "does not lie in the frame's 0 bytes");
RESULT_BAD(constraint_flags, R_C + 52, 1u << 5, "unknown constraint flags 0x20");
RESULT_BAD(constraint_flags_of_v2, R_C + 52, LLMEM_CONSTRAINT_NO_CROP_HEIGHT,
	   "version 1 for what version 2 holds");
RESULT_BAD(constraints_reserved, R_C + 68, 1, "reserved field of the constraints");
RESULT_BAD(flags, R_FLAGS, 1u << 9, "unknown flags 0x200");

FIXTURE_SETUP(bad_result)
{
	make_result(&self->r);
	self->len = llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg));
	ASSERT_EQ(self->len, HDR + 160) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(bad_result)
{
}

/* Each malformed result is -EPROTO, naming what is wrong, and the caller's
 * struct is left as it was. */
TEST_F(bad_result, refused)
{
	put_le32(self->msg + variant->offset, variant->value);
	memset(&self->out, 0xa5, sizeof(self->out));
	EXPECT_EQ(llmem_negotiate_decode_result(self->msg, (size_t)self->len, &self->out), -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), variant->says), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->out.layout.fourcc, 0xa5a5a5a5);
}

FIXTURE(sock)
{
	int sv[2];
	struct llmem_participant ps[3];
	struct llmem_participant out[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	struct llmem_negotiated r, got;
	uint32_t n;
};

FIXTURE_SETUP(sock)
{
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, self->sv), 0);
	make_statement(self->ps);
	make_result(&self->r);
}

FIXTURE_TEARDOWN(sock)
{
	close(self->sv[0]);
	close(self->sv[1]);
}

/* A statement and a result in a row, each read to its end and no further. */
TEST_F(sock, statement_then_result)
{
	ASSERT_EQ(llmem_negotiate_send_statement(self->sv[0], self->ps, 3), 0);
	ASSERT_EQ(llmem_negotiate_send_result(self->sv[0], &self->r), 0);
	ASSERT_EQ(llmem_negotiate_recv_statement(self->sv[1], self->out, 16, &self->n), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(self->n, 3);
	EXPECT_EQ(memcmp(self->out, self->ps, sizeof(self->ps)), 0);
	ASSERT_EQ(llmem_negotiate_recv_result(self->sv[1], &self->got), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(&self->got, &self->r, sizeof(self->r)), 0);
}

/* -ENOSPC still reads the whole message: the next one is whole. */
TEST_F(sock, no_room_keeps_step)
{
	ASSERT_EQ(llmem_negotiate_send_statement(self->sv[0], self->ps, 3), 0);
	ASSERT_EQ(llmem_negotiate_send_result(self->sv[0], &self->r), 0);
	EXPECT_EQ(llmem_negotiate_recv_statement(self->sv[1], self->out, 1, &self->n), -ENOSPC);
	EXPECT_EQ(llmem_negotiate_recv_result(self->sv[1], &self->got), 0)
	TH_LOG("%s", llmem_last_error());
}

/* The wrong kind of message: a result where a statement is awaited, a
 * page message (llmem_share_send_page()'s header). */
TEST_F(sock, wrong_message)
{
	static const char page[24] = "LLMEMPG1\x01";

	ASSERT_EQ(llmem_negotiate_send_result(self->sv[0], &self->r), 0);
	EXPECT_EQ(llmem_negotiate_recv_statement(self->sv[1], self->out, 16, &self->n), -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "type 2 (a result)"), NULL);
	ASSERT_EQ(send(self->sv[0], page, sizeof(page), 0), (ssize_t)sizeof(page));
	EXPECT_EQ(llmem_negotiate_recv_result(self->sv[1], &self->got), -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "not a negotiation message"), NULL);
}

/* A peer that hangs up before, or in the middle of, a message. */
TEST_F(sock, peer_closed)
{
	uint8_t msg[LLMEM_NEGOTIATE_WIRE_MAX];
	int len = llmem_negotiate_encode_statement(self->ps, 3, msg, sizeof(msg));

	ASSERT_GT(len, HDR);
	ASSERT_EQ(send(self->sv[0], msg, (size_t)len - 1, 0), len - 1);
	shutdown(self->sv[0], SHUT_WR);
	EXPECT_EQ(llmem_negotiate_recv_statement(self->sv[1], self->out, 16, &self->n),
		  -ECONNRESET);
	EXPECT_NE(strstr(llmem_last_error(), "the peer closed the socket"), NULL);
	EXPECT_EQ(llmem_negotiate_recv_result(self->sv[1], &self->got), -ECONNRESET);
}

/* Sending to a peer that has gone is -EPIPE, not a SIGPIPE. */
TEST_F(sock, send_to_closed_peer)
{
	close(self->sv[1]);
	self->sv[1] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	EXPECT_EQ(llmem_negotiate_send_statement(self->sv[0], self->ps, 3), -EPIPE);
	EXPECT_EQ(llmem_negotiate_send_result(self->sv[0], &self->r), -EPIPE);
	EXPECT_EQ(llmem_negotiate_send_result(self->sv[0], NULL), -EINVAL);
	EXPECT_EQ(llmem_negotiate_recv_result(self->sv[0], NULL), -EINVAL);
	EXPECT_EQ(llmem_negotiate_recv_statement(self->sv[0], NULL, 1, &self->n), -EINVAL);
}

/* Fds a peer sends along with a statement never land in the receiver. */
TEST_F(sock, fds_along_are_dropped)
{
	uint8_t msg[LLMEM_NEGOTIATE_WIRE_MAX];
	int len = llmem_negotiate_encode_statement(self->ps, 3, msg, sizeof(msg));
	int fds[2] = { memfd_create("along", MFD_CLOEXEC), memfd_create("along", MFD_CLOEXEC) };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(fds))];
	} control = { 0 };
	struct iovec iov = { .iov_base = msg, .iov_len = 30 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	int before;

	ASSERT_GT(len, 30);
	ASSERT_GE(fds[0], 0);
	ASSERT_GE(fds[1], 0);
	mh.msg_control = control.buf;
	mh.msg_controllen = sizeof(control.buf);
	cmsg = CMSG_FIRSTHDR(&mh);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
	ASSERT_EQ(sendmsg(self->sv[0], &mh, 0), 30);
	ASSERT_EQ(send(self->sv[0], msg + 30, (size_t)len - 30, 0), len - 30);
	close(fds[0]);
	close(fds[1]);
	before = count_fds();
	ASSERT_EQ(llmem_negotiate_recv_statement(self->sv[1], self->out, 16, &self->n), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->n, 3);
	EXPECT_EQ(count_fds(), before);
}

/* The producer: its own statements (the CPU, a camera that writes YUYV or
 * XRGB8888 rows of 64 bytes), merged with the consumer's; the result goes
 * back.  Exit status 0, or which step failed. */
static int produce(int sock)
{
	struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS] = { 0 };
	struct llmem_negotiate_request req = { .width = 1000, .height = 600 };
	struct llmem_negotiated r;
	uint32_t n;

	llmem_participant_cpu(&ps[0]);
	strcpy(ps[1].name, "producer camera");
	ps[1].kind = LLMEM_PARTICIPANT_OTHER;
	ps[1].num_formats = 2;
	ps[1].formats[0] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_YUYV,
						       .source = LLMEM_FACT_REPORTED };
	ps[1].formats[1] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_XRGB8888,
						       .source = LLMEM_FACT_REPORTED };
	ps[1].constraints.pitch_alignment = 64;
	ps[1].constraints.min_buffers = 2;
	if (llmem_negotiate_recv_statement(sock, ps + 2, LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2, &n))
		return 1;
	if (llmem_negotiate(ps, n + 2, &req, &r))
		return 2;
	if (llmem_negotiate_send_result(sock, &r))
		return 3;
	return 0;
}

/* Two processes negotiate: the consumer (a display that scans out
 * XRGB8888 from pitches of 256) states, the producer merges and answers;
 * the layout the consumer receives honours its pitch, its format and its
 * buffer count as well as the producer's. */
TEST_F(sock, two_processes)
{
	struct llmem_participant consumer = { .name = "consumer display",
					      .kind = LLMEM_PARTICIPANT_OTHER,
					      .num_formats = 1 };
	int status;
	pid_t pid;

	consumer.formats[0] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_XRGB8888,
							  .source = LLMEM_FACT_PROBED };
	consumer.constraints.pitch_alignment = 256;
	consumer.constraints.min_buffers = 3;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(self->sv[1]);
		_exit(produce(self->sv[0]));
	}
	close(self->sv[0]);
	self->sv[0] = -1;
	ASSERT_EQ(llmem_negotiate_send_statement(self->sv[1], &consumer, 1), 0);
	ASSERT_EQ(llmem_negotiate_recv_result(self->sv[1], &self->got), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0)
	TH_LOG("the producer failed at step %d", WEXITSTATUS(status));
	EXPECT_EQ(self->got.layout.fourcc, DRM_FORMAT_XRGB8888);
	EXPECT_EQ(self->got.layout.width, 1000);
	EXPECT_EQ(self->got.layout.height, 600);
	EXPECT_EQ(self->got.layout.pitch[0] % 256, 0);
	EXPECT_GE(self->got.layout.pitch[0], 4000);
	EXPECT_GE(self->got.layout.size, (uint64_t)self->got.layout.pitch[0] * 600);
	EXPECT_EQ(self->got.constraints.pitch_alignment % 256, 0);
	EXPECT_EQ(self->got.min_buffers, 3);
}

/*
 * Version 2: coded sizes.  A statement of a participant that states a
 * coded size and alignments for its one format, and one that takes no
 * narrower picture, each 152 bytes and its format records of 48.
 */
#define V2_P1 (HDR + 152 + 48)
#define V2_F0 (HDR + 152)

static void make_statement_v2(struct llmem_participant ps[2])
{
	memset(ps, 0, 2 * sizeof(*ps));
	strcpy(ps[0].name, "encoder");
	ps[0].kind = LLMEM_PARTICIPANT_V4L2;
	ps[0].num_formats = 1;
	ps[0].formats[0] = (struct llmem_format_caps){
		.fourcc = DRM_FORMAT_NV12,
		.source = LLMEM_FACT_REPORTED,
		.pitch = 1008,
		.min_size = 1008 * 576 * 3 / 2,
		.coded_width = 1008,
		.coded_height = 576,
		.column_alignment = 16,
		.row_alignment = 16,
		.flags = LLMEM_CONSTRAINT_NO_CROP_HEIGHT,
	};
	ps[0].constraints.probed = LLMEM_C_COLUMN_ALIGNMENT | LLMEM_C_ROW_ALIGNMENT;
	strcpy(ps[1].name, "m2m");
	ps[1].kind = LLMEM_PARTICIPANT_OTHER;
	ps[1].constraints.flags = LLMEM_CONSTRAINT_NO_CROP_WIDTH;
	ps[1].constraints.column_alignment = 8;
	ps[1].constraints.row_alignment = 2;
}

FIXTURE(statement_v2)
{
	struct llmem_participant ps[2];
	struct llmem_participant out[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	uint8_t msg[1024];
	int len;
	uint32_t n;
};

FIXTURE_SETUP(statement_v2)
{
	make_statement_v2(self->ps);
	self->len = llmem_negotiate_encode_statement(self->ps, 2, self->msg, sizeof(self->msg));
	ASSERT_EQ(self->len, HDR + 152 + 48 + 152) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(statement_v2)
{
}

/* Coded sizes, alignments and crop flags make a version 2 message, its
 * fields where api.md says, and come back as they went. */
TEST_F(statement_v2, round_trip)
{
	EXPECT_EQ(get_le32(self->msg + 8), 2);
	EXPECT_EQ(get_le32(self->msg + HDR + 72 + 72), 0);
	EXPECT_EQ(get_le32(self->msg + HDR + 72 + 60),
		  LLMEM_C_COLUMN_ALIGNMENT | LLMEM_C_ROW_ALIGNMENT);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 12), 1008);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 24), 1008);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 28), 576);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 32), 16);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 36), 16);
	EXPECT_EQ(get_le32(self->msg + V2_F0 + 40), LLMEM_CONSTRAINT_NO_CROP_HEIGHT);
	EXPECT_EQ(get_le32(self->msg + V2_P1 + 72 + 52), LLMEM_CONSTRAINT_NO_CROP_WIDTH);
	EXPECT_EQ(get_le32(self->msg + V2_P1 + 72 + 72), 8);
	EXPECT_EQ(get_le32(self->msg + V2_P1 + 72 + 76), 2);
	memset(self->out, 0xa5, sizeof(self->out));
	ASSERT_EQ(llmem_negotiate_decode_statement(self->msg, (size_t)self->len, self->out, 16,
						   &self->n),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(self->n, 2);
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(memcmp(&self->out[i], &self->ps[i], sizeof(self->ps[i])), 0);
}

/* One version 2 participant makes the whole statement version 2, the
 * others' records the longer ones too. */
TEST_F(statement_v2, with_version_1_participants)
{
	struct llmem_participant ps[2];

	llmem_participant_cpu(&ps[0]);
	ps[1] = self->ps[1];
	ASSERT_EQ(llmem_negotiate_encode_statement(ps, 2, self->msg, sizeof(self->msg)),
		  HDR + 2 * 152);
	EXPECT_EQ(get_le32(self->msg + 8), 2);
	ASSERT_EQ(
		llmem_negotiate_decode_statement(self->msg, HDR + 2 * 152, self->out, 16, &self->n),
		0);
	EXPECT_EQ(memcmp(&self->out[0], &ps[0], sizeof(ps[0])), 0);
}

/* A version 2 statement that version 1 holds is not the canonical
 * encoding; a format record's reserved word and unknown flags; a coded
 * size of one side. */
TEST_F(statement_v2, refused)
{
	static const struct {
		int offset;
		uint32_t value;
		const char *says;
	} cases[] = {
		{ V2_F0 + 44, 1, "format 0's reserved field not zero" },
		{ V2_F0 + 40, 1u << 2, "format 0 has unknown flags 0x4" },
		{ V2_F0 + 28, 0, "format 0's coded size 1008x0 has one side only" },
		{ V2_P1 + 72 + 52, 1u << 5, "unknown constraint flags 0x20" },
	};
	uint8_t copy[1024];
	struct llmem_participant ps[2];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		memcpy(copy, self->msg, (size_t)self->len);
		put_le32(copy + cases[i].offset, cases[i].value);
		EXPECT_EQ(llmem_negotiate_decode_statement(copy, (size_t)self->len, self->out, 16,
							   &self->n),
			  -EPROTO);
		EXPECT_NE(strstr(llmem_last_error(), cases[i].says), NULL)
		TH_LOG("case %zu: %s", i, llmem_last_error());
	}
	/* Everything of version 2 cleared: version 1 would have held it. */
	memcpy(copy, self->msg, (size_t)self->len);
	memset(copy + V2_F0 + 24, 0, 20);
	memset(copy + HDR + 72 + 60, 0, 4);
	put_le32(copy + V2_P1 + 72 + 52, 0);
	memset(copy + V2_P1 + 72 + 72, 0, 8);
	EXPECT_EQ(
		llmem_negotiate_decode_statement(copy, (size_t)self->len, self->out, 16, &self->n),
		-EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "version 2 for what version 1 holds"), NULL)
	TH_LOG("%s", llmem_last_error());

	/* The encoder refuses the same of the caller's structs. */
	make_statement_v2(ps);
	ps[0].formats[0].reserved = 1;
	EXPECT_EQ(llmem_negotiate_encode_statement(ps, 2, copy, sizeof(copy)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "format 0's reserved field not zero"), NULL);
	make_statement_v2(ps);
	ps[0].formats[0].flags = LLMEM_CONSTRAINT_CONTIGUOUS;
	EXPECT_EQ(llmem_negotiate_encode_statement(ps, 2, copy, sizeof(copy)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "format 0 has unknown flags 0x1"), NULL);
	make_statement_v2(ps);
	ps[0].formats[0].coded_height = 0;
	EXPECT_EQ(llmem_negotiate_encode_statement(ps, 2, copy, sizeof(copy)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "has one side only"), NULL);
}

/* The largest statement fits LLMEM_NEGOTIATE_WIRE_MAX in version 2. */
TEST(largest_statement)
{
	static struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	static uint8_t msg[LLMEM_NEGOTIATE_WIRE_MAX];

	for (uint32_t i = 0; i < LLMEM_NEGOTIATE_MAX_PARTICIPANTS; i++) {
		snprintf(ps[i].name, sizeof(ps[i].name), "p%u", i);
		ps[i].kind = LLMEM_PARTICIPANT_OTHER;
		ps[i].num_formats = LLMEM_NEGOTIATE_MAX_FORMATS;
		for (uint32_t f = 0; f < LLMEM_NEGOTIATE_MAX_FORMATS; f++)
			ps[i].formats[f] = (struct llmem_format_caps){
				.fourcc = DRM_FORMAT_YUYV + f,
				.source = LLMEM_FACT_REPORTED,
				.num_modifiers = LLMEM_NEGOTIATE_MAX_MODIFIERS,
				.row_alignment = 16,
			};
	}
	EXPECT_EQ(llmem_negotiate_encode_statement(ps, LLMEM_NEGOTIATE_MAX_PARTICIPANTS, msg,
						   sizeof(msg)),
		  LLMEM_NEGOTIATE_WIRE_MAX);
}

/*
 * A version 1 statement and result as a library of before coded sizes
 * wrote them, byte by byte: they decode, with no coded facts and a coded
 * size that is the picture's, and the encoder writes the same bytes.
 */
TEST(version_1_from_an_old_writer)
{
	uint8_t msg[HDR + 144 + 24], again[HDR + 176];
	struct llmem_participant p;
	struct llmem_negotiated r;
	uint32_t n = 0;

	memset(msg, 0, sizeof(msg));
	memcpy(msg, "LLMEMNEG", 8);
	put_le32(msg + 8, 1);
	put_le32(msg + 12, 1);
	put_le32(msg + 16, 1);
	put_le32(msg + 20, 144 + 24);
	strcpy((char *)msg + HDR, "old vicodec");
	put_le32(msg + HDR + 64, LLMEM_PARTICIPANT_V4L2);
	put_le32(msg + HDR + 68, 1);
	put_le32(msg + HDR + 72 + 52, LLMEM_CONSTRAINT_PLANES_IN_ONE_FD);
	put_le32(msg + HDR + 72 + 56, 1);
	put_le32(msg + HDR + 144, DRM_FORMAT_YUYV);
	put_le32(msg + HDR + 144 + 8, LLMEM_FACT_REPORTED);
	put_le32(msg + HDR + 144 + 12, 1280);
	put_le32(msg + HDR + 144 + 16, 614400);
	ASSERT_EQ(llmem_negotiate_decode_statement(msg, sizeof(msg), &p, 1, &n), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n, 1);
	EXPECT_STREQ(p.name, "old vicodec");
	EXPECT_EQ(p.formats[0].pitch, 1280);
	EXPECT_EQ(p.formats[0].min_size, 614400);
	EXPECT_EQ(p.formats[0].coded_width, 0);
	EXPECT_EQ(p.formats[0].column_alignment, 0);
	EXPECT_EQ(p.constraints.column_alignment, 0);
	EXPECT_EQ(p.constraints.min_buffers, 1);
	ASSERT_EQ(llmem_negotiate_encode_statement(&p, 1, again, sizeof(again)), sizeof(msg));
	EXPECT_EQ(memcmp(again, msg, sizeof(msg)), 0);

	/* A result: YUYV 640x480, pitch 1280, as version 1 has it. */
	memset(msg, 0, sizeof(msg));
	memcpy(msg, "LLMEMNEG", 8);
	put_le32(msg + 8, 1);
	put_le32(msg + 12, 2);
	put_le32(msg + 16, 1);
	put_le32(msg + 20, 160);
	put_le32(msg + R_FOURCC, DRM_FORMAT_YUYV);
	put_le32(msg + HDR + 4, 640);
	put_le32(msg + HDR + 8, 480);
	put_le32(msg + R_NUM_PLANES, 1);
	put_le32(msg + R_PITCH(0), 1280);
	put_le32(msg + R_SIZE, 614400);
	put_le32(msg + R_C, 4);
	put_le32(msg + R_FLAGS + 4, 2);
	ASSERT_EQ(llmem_negotiate_decode_result(msg, HDR + 160, &r), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(r.layout.coded_width, 640);
	EXPECT_EQ(r.layout.coded_height, 480);
	EXPECT_EQ(r.padding[0].right, 0);
	EXPECT_EQ(r.min_buffers, 2);
	ASSERT_EQ(llmem_negotiate_encode_result(&r, again, sizeof(again)), HDR + 160);
	EXPECT_EQ(memcmp(again, msg, HDR + 160), 0);
}

/* A padded result: version 2, its coded size after the layout's size,
 * the padding per plane filled in again on the other side. */
FIXTURE(result_v2)
{
	struct llmem_negotiated r, out;
	uint8_t msg[256];
	int len;
};

FIXTURE_SETUP(result_v2)
{
	struct llmem_participant ps[2];
	struct llmem_negotiate_request req = { .width = 1000, .height = 562 };
	uint32_t nv12 = DRM_FORMAT_NV12;

	make_statement_v2(ps);
	ps[1].constraints.flags = 0;
	req.fourccs = &nv12;
	req.num_fourccs = 1;
	ps[0].formats[0].flags = 0;
	ASSERT_EQ(llmem_negotiate(ps, 2, &req, &self->r), 0) TH_LOG("%s", llmem_last_error());
	self->len = llmem_negotiate_encode_result(&self->r, self->msg, sizeof(self->msg));
	ASSERT_EQ(self->len, HDR + 176) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(result_v2)
{
}

TEST_F(result_v2, round_trip)
{
	EXPECT_EQ(get_le32(self->msg + 8), 2);
	EXPECT_EQ(get_le32(self->msg + HDR + 4), 1000);
	EXPECT_EQ(get_le32(self->msg + HDR + 8), 562);
	EXPECT_EQ(get_le32(self->msg + HDR + 80), 1008);
	EXPECT_EQ(get_le32(self->msg + HDR + 84), 576);
	/* The merged alignments, after version 1's constraints. */
	EXPECT_EQ(get_le32(self->msg + HDR + 88 + 72), 16);
	memset(&self->out, 0xa5, sizeof(self->out));
	ASSERT_EQ(llmem_negotiate_decode_result(self->msg, (size_t)self->len, &self->out), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(&self->out, &self->r, sizeof(self->r)), 0);
	EXPECT_EQ(self->out.padding[1].bottom, 7);
}

TEST_F(result_v2, refused)
{
	static const struct {
		int offset;
		uint32_t value;
		const char *says;
	} cases[] = {
		{ HDR + 80, 0, "a coded size of 0x576" },
		{ HDR + 84, 560, "a 1000x562 picture in a 1008x560 coded frame" },
		{ HDR + 84, 2000, "does not lie in the frame" },
	};
	uint8_t copy[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		memcpy(copy, self->msg, (size_t)self->len);
		put_le32(copy + cases[i].offset, cases[i].value);
		EXPECT_EQ(llmem_negotiate_decode_result(copy, (size_t)self->len, &self->out),
			  -EPROTO);
		EXPECT_NE(strstr(llmem_last_error(), cases[i].says), NULL)
		TH_LOG("case %zu: %s", i, llmem_last_error());
	}
	/* Coded as the picture and nothing else of version 2: not canonical. */
	memcpy(copy, self->msg, (size_t)self->len);
	put_le32(copy + HDR + 80, 1000);
	put_le32(copy + HDR + 84, 562);
	memset(copy + HDR + 88 + 72, 0, 8);
	EXPECT_EQ(llmem_negotiate_decode_result(copy, (size_t)self->len, &self->out), -EPROTO);
	EXPECT_NE(strstr(llmem_last_error(), "version 2 for what version 1 holds"), NULL)
	TH_LOG("%s", llmem_last_error());
}

TEST_HARNESS_MAIN
