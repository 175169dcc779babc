// SPDX-License-Identifier: MIT
/*
 * The encoder and decoder objects' (codec.h) answers to bad arguments, on
 * any machine: what they refuse before they touch a device, and a device
 * that is missing or no codec.  Encoding and decoding are tested in the VM
 * (tests/vm/codec_objects_test.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/llmem.h>

#include "fwht_frame.h"
#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(codec_object_args)
{
	struct llmem_session *s;
	char path[256];
	struct llmem_bitstream *source;
};

/* A session, and a source of one frame for the decoder. */
FIXTURE_SETUP(codec_object_args)
{
	uint8_t frame[FWHT_FRAME_HEADER + 64];
	size_t len = fwht_frame(frame, 640, 480, 0, 64, 1);
	int fd;

	VK_TEST_SESSION(self->s);
	snprintf(self->path, sizeof(self->path), "%s/codec-args-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(self->path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, frame, len), (ssize_t)len);
	close(fd);
	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->source), 0)
	TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(codec_object_args)
{
	llmem_bitstream_close(self->source);
	unlink(self->path);
	VK_TEST_SESSION_END(self->s);
}

/* llmem_encoder_open() with @ci fails with @err, its message holding
 * @what, and leaves the handle alone. */
static void expect_encoder_refused(struct __test_metadata *_metadata, struct llmem_session *s,
				   const struct llmem_encoder_create_info *ci, int err,
				   const char *what)
{
	struct llmem_encoder *e = (struct llmem_encoder *)&e;

	EXPECT_FAILS(llmem_encoder_open(s, ci, &e), err);
	EXPECT_NE(strstr(llmem_last_error(), what), NULL)
	TH_LOG("wanted \"%s\" in \"%s\"", what, llmem_last_error());
	EXPECT_EQ(e, (struct llmem_encoder *)&e);
}

static void expect_decoder_refused(struct __test_metadata *_metadata, struct llmem_session *s,
				   const struct llmem_decoder_create_info *ci, int err,
				   const char *what)
{
	struct llmem_decoder *d = (struct llmem_decoder *)&d;

	EXPECT_FAILS(llmem_decoder_open(s, ci, &d), err);
	EXPECT_NE(strstr(llmem_last_error(), what), NULL)
	TH_LOG("wanted \"%s\" in \"%s\"", what, llmem_last_error());
	EXPECT_EQ(d, (struct llmem_decoder *)&d);
}

/* Choices out of range are refused by name before any device is looked for. */
TEST_F(codec_object_args, encoder_open_checks_its_choices)
{
	struct llmem_encoder *e;

	EXPECT_FAILS(llmem_encoder_open(NULL, NULL, &e), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL session"), NULL);
	EXPECT_FAILS(llmem_encoder_open(self->s, NULL, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL out"), NULL);
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .flags = 1u << 5 }, -EINVAL,
			       "unknown flags 0x20");
	expect_encoder_refused(
		_metadata, self->s,
		&(struct llmem_encoder_create_info){ .frames = LLMEM_CODEC_MAX_FRAMES + 1 },
		-EINVAL, "17 frames; at most 16");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){
				       .bitstream_buffers = LLMEM_CODEC_MAX_BITSTREAM_BUFFERS + 1 },
			       -EINVAL, "9 bitstream buffers; at most 8");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .width = 640 }, -EINVAL,
			       "give both sides or neither");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .height = 480 }, -EINVAL,
			       "give both sides or neither");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .coded_width = 1008 }, -EINVAL,
			       "coded size 1008x0: give both sides or neither");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .coded_height = 568 }, -EINVAL,
			       "coded size 0x568: give both sides or neither");
}

/* A device that is missing, or is no V4L2 node, is refused by its path. */
TEST_F(codec_object_args, encoder_open_refuses_what_is_no_encoder)
{
	expect_encoder_refused(
		_metadata, self->s,
		&(struct llmem_encoder_create_info){ .device = "/nonexistent/video7" }, -ENOENT,
		"/nonexistent/video7");
	expect_encoder_refused(_metadata, self->s,
			       &(struct llmem_encoder_create_info){ .device = "/dev/null" },
			       -ENODEV, "/dev/null");
}

/* Every call takes a NULL encoder, or a NULL out, without crashing. */
TEST_F(codec_object_args, encoder_null)
{
	struct llmem_codec_packet packet = { 0 };
	struct llmem_codec_frame frame = { 0 };
	struct llmem_encoder_info info;

	llmem_encoder_close(NULL);
	EXPECT_FAILS(llmem_encoder_get_info(NULL, &info), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL encoder"), NULL);
	EXPECT_FAILS(llmem_encoder_get_frame(NULL, &frame), -EINVAL);
	EXPECT_FAILS(llmem_encoder_push(NULL, &frame), -EINVAL);
	EXPECT_FAILS(llmem_encoder_pull(NULL, 0, &packet), -EINVAL);
	EXPECT_FAILS(llmem_encoder_release_packet(NULL, &packet), -EINVAL);
	EXPECT_FAILS(llmem_encoder_encode(NULL, &frame, 0, &packet), -EINVAL);
	EXPECT_FAILS(llmem_encoder_drain(NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL encoder"), NULL);
}

/* The decoder's choices, and its source, are checked before any device. */
TEST_F(codec_object_args, decoder_open_checks_its_choices)
{
	struct llmem_participant participants[LLMEM_NEGOTIATE_MAX_PARTICIPANTS] = {
		{ .name = "an XR24-only plane",
		  .kind = LLMEM_PARTICIPANT_OTHER,
		  .num_formats = 1,
		  .formats = { { .fourcc = DRM_FORMAT_XRGB8888, .source = LLMEM_FACT_REPORTED } } },
	};
	struct llmem_decoder_create_info ci = { .source = self->source };
	struct llmem_decoder *d;

	EXPECT_FAILS(llmem_decoder_open(NULL, &ci, &d), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL session"), NULL);
	EXPECT_FAILS(llmem_decoder_open(self->s, NULL, &d), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL info"), NULL);
	EXPECT_FAILS(llmem_decoder_open(self->s, &ci, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL out"), NULL);
	expect_decoder_refused(_metadata, self->s, &(struct llmem_decoder_create_info){ 0 },
			       -EINVAL, "no bitstream source");
	ci.flags = 1u << 7;
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL, "unknown flags 0x80");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .frames = LLMEM_CODEC_MAX_FRAMES + 1 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL, "17 frames; at most 16");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .bitstream_buffers =
							 LLMEM_CODEC_MAX_BITSTREAM_BUFFERS + 1 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL, "9 bitstream buffers; at most 8");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .rgba_buffers =
							 LLMEM_DECODER_MAX_RGBA_BUFFERS + 1 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL, "5 RGBA buffers; at most 4");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .flags = LLMEM_DECODER_CONVERT,
						 .rgba_fourcc = DRM_FORMAT_NV12 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL, "RGBA fourcc NV12");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .flags = LLMEM_DECODER_CONVERT,
						 .rgba_pitch_alignment = 48 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL,
			       "RGBA pitch alignment 48 is no power of two");
	ci = (struct llmem_decoder_create_info){ .source = self->source,
						 .flags = LLMEM_DECODER_CONVERT,
						 .num_rgba_participants = 1 };
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL,
			       "1 RGBA participants at NULL; at most 14");
	ci.rgba_participants = participants;
	ci.num_rgba_participants = LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 1;
	expect_decoder_refused(_metadata, self->s, &ci, -EINVAL,
			       "15 RGBA participants; at most 14");
	/* Before any device is asked: the RGBA frames' participants must share
	 * a layout with the conversion. */
	ci.num_rgba_participants = 1;
	expect_decoder_refused(_metadata, self->s, &ci, -ENOTSUP, "an XR24-only plane has no AB24");
}

/* A device that is missing or no decoder is refused by its path, and the
 * source is not read. */
TEST_F(codec_object_args, decoder_open_refuses_what_is_no_decoder)
{
	struct llmem_decoder_create_info ci = { .source = self->source,
						.device = "/nonexistent/video8" };
	struct llmem_bitstream_info info;

	expect_decoder_refused(_metadata, self->s, &ci, -ENOENT, "/nonexistent/video8");
	ci.device = "/dev/null";
	expect_decoder_refused(_metadata, self->s, &ci, -ENODEV, "/dev/null");
	ASSERT_EQ(llmem_bitstream_get_info(self->source, &info), 0);
	EXPECT_EQ(info.read, 0);
}

/* Every call takes a NULL decoder, or a NULL out, without crashing. */
TEST_F(codec_object_args, decoder_null)
{
	struct llmem_codec_frame frame = { 0 };
	struct llmem_decoder_info info;
	struct llmem_buffer *b;

	llmem_decoder_close(NULL);
	EXPECT_FAILS(llmem_decoder_get_info(NULL, &info), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL decoder"), NULL);
	EXPECT_FAILS(llmem_decoder_start(NULL, 0), -EINVAL);
	EXPECT_FAILS(llmem_decoder_frame_buffer(NULL, 0, &b), -EINVAL);
	EXPECT_FAILS(llmem_decoder_rgba_buffer(NULL, 0, &b), -EINVAL);
	EXPECT_FAILS(llmem_decoder_next(NULL, 0, &frame), -EINVAL);
	EXPECT_FAILS(llmem_decoder_release(NULL, &frame), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL decoder"), NULL);
}

TEST_HARNESS_MAIN
