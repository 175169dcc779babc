// SPDX-License-Identifier: MIT
/*
 * The FWHT bitstream source (llmem_bitstream_*, codec.h) on files made by
 * hand: what it says of a stream, its units read in order and whole, and
 * its refusals of what is no stream, each with its error and a message
 * that says where.  No device is needed: the decoder that reads a source
 * is tested in the VM (tests/vm/codec_objects_test.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>
#include <llmem/error.h>

#include "fwht_frame.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#define NUNITS 3
#define WIDTH 640
#define HEIGHT 480
/* A key frame of three components (Y, Cb, Cr) in YUV. */
#define FLAGS                                                                              \
	(V4L2_FWHT_FL_I_FRAME | V4L2_FWHT_FL_CHROMA_FULL_WIDTH | V4L2_FWHT_FL_PIXENC_YUV | \
	 3u << V4L2_FWHT_FL_COMPONENTS_NUM_OFFSET)

static const uint32_t payloads[NUNITS] = { 100, 300, 200 };

FIXTURE(bitstream)
{
	char dir[256];
	char path[300];
	uint8_t data[4096];
	size_t len;
	size_t at[NUNITS + 1]; /* where each unit starts; the last, the end */
	struct llmem_bitstream *b;
};

/* NUNITS frames in self->data, the first a key frame, written to self->path. */
FIXTURE_SETUP(bitstream)
{
	snprintf(self->dir, sizeof(self->dir), "%s/bitstream-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ASSERT_NE(mkdtemp(self->dir), NULL);
	snprintf(self->path, sizeof(self->path), "%s/in.fwht", self->dir);
	self->len = 0;
	for (int i = 0; i < NUNITS; i++) {
		self->at[i] = self->len;
		self->len +=
			fwht_frame(self->data + self->len, WIDTH, HEIGHT,
				   i ? FLAGS & ~V4L2_FWHT_FL_I_FRAME : FLAGS, payloads[i], i + 1);
	}
	self->at[NUNITS] = self->len;
	ASSERT_EQ(write_file(self->path, self->data, self->len), 0);
	self->b = NULL;
}

FIXTURE_TEARDOWN(bitstream)
{
	char cmd[300];

	llmem_bitstream_close(self->b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0])
		EXPECT_EQ(system(cmd), 0);
}

/* The open of @path fails with @err and a message holding @what; the
 * handle is left as it was. */
static void expect_refused(struct __test_metadata *_metadata, const char *path, int err,
			   const char *what)
{
	struct llmem_bitstream *b = (struct llmem_bitstream *)&b;

	EXPECT_FAILS(llmem_bitstream_open_fwht(path, &b), err);
	EXPECT_NE(strstr(llmem_last_error(), what), NULL)
	TH_LOG("wanted \"%s\" in \"%s\"", what, llmem_last_error());
	EXPECT_EQ(b, (struct llmem_bitstream *)&b);
}

/* The first unit's header tells the stream's size and flags; the walk at
 * open counts the units, the bytes and the largest. */
TEST_F(bitstream, info)
{
	struct llmem_bitstream_info info;

	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->b), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_bitstream_get_info(self->b, &info), 0);
	EXPECT_EQ(info.coded_fourcc, V4L2_PIX_FMT_FWHT);
	EXPECT_EQ(info.width, WIDTH);
	EXPECT_EQ(info.height, HEIGHT);
	EXPECT_EQ(info.flags, FLAGS);
	EXPECT_EQ(info.units, NUNITS);
	EXPECT_EQ(info.read, 0);
	EXPECT_EQ(info.bytes, self->len);
	EXPECT_EQ(info.max_unit, FWHT_FRAME_HEADER + 300);
}

/* Each read gives the next unit whole, header and payload, then -ENODATA
 * for good. */
TEST_F(bitstream, reads_units_in_order)
{
	struct llmem_bitstream_info info;
	uint8_t unit[1024];
	size_t len;

	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->b), 0);
	for (int i = 0; i < NUNITS; i++) {
		memset(unit, 0, sizeof(unit));
		ASSERT_EQ(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), 0)
		TH_LOG("unit %d: %s", i, llmem_last_error());
		ASSERT_EQ(len, self->at[i + 1] - self->at[i]);
		EXPECT_EQ(memcmp(unit, self->data + self->at[i], len), 0) TH_LOG("unit %d", i);
		/* Not a byte past the unit is written. */
		EXPECT_EQ(unit[len], 0);
		ASSERT_EQ(llmem_bitstream_get_info(self->b, &info), 0);
		EXPECT_EQ(info.read, i + 1);
	}
	EXPECT_EQ(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), -ENODATA);
	EXPECT_EQ(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), -ENODATA);
	ASSERT_EQ(llmem_bitstream_get_info(self->b, &info), 0);
	EXPECT_EQ(info.read, NUNITS);
}

/* A buffer one byte short is refused with both sizes, and the unit stays
 * next for a buffer that holds it. */
TEST_F(bitstream, small_buffer_keeps_the_unit)
{
	size_t first = self->at[1], len = 0;
	struct llmem_bitstream_info info;
	uint8_t unit[1024];
	char want[64];

	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->b), 0);
	EXPECT_FAILS(llmem_bitstream_read(self->b, unit, first - 1, &len), -ENOSPC);
	snprintf(want, sizeof(want), "frame 0 has %zu bytes, more than the %zu", first, first - 1);
	EXPECT_NE(strstr(llmem_last_error(), want), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(len, 0);
	ASSERT_EQ(llmem_bitstream_get_info(self->b, &info), 0);
	EXPECT_EQ(info.read, 0);
	ASSERT_EQ(llmem_bitstream_read(self->b, unit, first, &len), 0);
	EXPECT_EQ(len, first);
	EXPECT_EQ(memcmp(unit, self->data, first), 0);
}

/* Every call names the NULL it was given; close takes NULL. */
TEST_F(bitstream, null_arguments)
{
	struct llmem_bitstream_info info;
	uint8_t unit[16];
	size_t len;

	EXPECT_FAILS(llmem_bitstream_open_fwht(NULL, &self->b), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL path"), NULL);
	EXPECT_FAILS(llmem_bitstream_open_fwht(self->path, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL out"), NULL);
	EXPECT_EQ(self->b, NULL);
	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->b), 0);
	EXPECT_FAILS(llmem_bitstream_get_info(NULL, &info), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL source"), NULL);
	EXPECT_FAILS(llmem_bitstream_get_info(self->b, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL info"), NULL);
	EXPECT_FAILS(llmem_bitstream_read(NULL, unit, sizeof(unit), &len), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL source"), NULL);
	EXPECT_FAILS(llmem_bitstream_read(self->b, NULL, sizeof(unit), &len), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL destination"), NULL);
	EXPECT_FAILS(llmem_bitstream_read(self->b, unit, sizeof(unit), NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL length"), NULL);
	/* None of them took a unit. */
	ASSERT_EQ(llmem_bitstream_get_info(self->b, &info), 0);
	EXPECT_EQ(info.read, 0);
	llmem_bitstream_close(NULL);
}

/* What is no regular file is refused at open, a fifo without waiting for
 * a writer, and a /proc file that says it is empty yet has bytes too. */
TEST_F_TIMEOUT(bitstream, refuses_what_is_no_file, 20)
{
	char fifo[300], missing[300];

	expect_refused(_metadata, self->dir, -EISDIR, "is a directory");
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	expect_refused(_metadata, fifo, -EINVAL, "not a regular file");
	expect_refused(_metadata, "/proc/self/status", -EINVAL, "not a regular file");
	snprintf(missing, sizeof(missing), "%s/missing.fwht", self->dir);
	expect_refused(_metadata, missing, -ENOENT, missing);
}

/* A file of no frame at all, or of bytes that start none. */
TEST_F(bitstream, refuses_what_is_no_stream)
{
	static const uint8_t junk[FWHT_FRAME_HEADER * 2] = { 0x4f, 0x4f, 0x4f, 0x4f };

	ASSERT_EQ(write_file(self->path, "", 0), 0);
	expect_refused(_metadata, self->path, -EINVAL, "empty");
	ASSERT_EQ(write_file(self->path, junk, sizeof(junk)), 0);
	expect_refused(_metadata, self->path, -EINVAL,
		       "byte 0 starts no whole FWHT frame (after 0 frames)");
	/* A header alone, shorter than a header. */
	ASSERT_EQ(write_file(self->path, self->data, FWHT_FRAME_HEADER - 1), 0);
	expect_refused(_metadata, self->path, -EINVAL, "byte 0 starts no whole FWHT frame");
}

/* Whole frames then bytes that are none: the message names the first
 * such byte and the frames before it. */
TEST_F(bitstream, refuses_trailing_bytes)
{
	char want[80];

	memcpy(self->data + self->len, "\x4f\x4f\x4f", 3);
	ASSERT_EQ(write_file(self->path, self->data, self->len + 3), 0);
	snprintf(want, sizeof(want), "byte %zu starts no whole FWHT frame (after 3 frames)",
		 self->len);
	expect_refused(_metadata, self->path, -EINVAL, want);
}

/* A last frame cut short by a byte, its header whole. */
TEST_F(bitstream, refuses_truncated_frame)
{
	char want[80];

	ASSERT_EQ(write_file(self->path, self->data, self->len - 1), 0);
	snprintf(want, sizeof(want), "byte %zu starts no whole FWHT frame (after 2 frames)",
		 self->at[2]);
	expect_refused(_metadata, self->path, -EINVAL, want);
	/* A frame cut right after its header, the frames before it whole. */
	ASSERT_EQ(write_file(self->path, self->data, self->at[1] + FWHT_FRAME_HEADER), 0);
	snprintf(want, sizeof(want), "byte %zu starts no whole FWHT frame (after 1 frame)",
		 self->at[1]);
	expect_refused(_metadata, self->path, -EINVAL, want);
}

/* A file rewritten after the walk at open: a unit that no longer starts
 * where it did, or that ends early, is an I/O error, not a short unit. */
TEST_F(bitstream, file_changed_after_open)
{
	uint8_t unit[1024];
	size_t len;
	int fd;

	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->b), 0);
	ASSERT_EQ(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), 0);
	/* The second unit's magic overwritten. */
	fd = open(self->path, O_WRONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(pwrite(fd, "\0", 1, (off_t)self->at[1]), 1);
	EXPECT_FAILS(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), -EIO);
	EXPECT_NE(strstr(llmem_last_error(), "no longer starts the FWHT frame"), NULL)
	TH_LOG("%s", llmem_last_error());
	/* Put back, then cut inside the second unit's payload. */
	ASSERT_EQ(pwrite(fd, self->data + self->at[1], 1, (off_t)self->at[1]), 1);
	ASSERT_EQ(ftruncate(fd, (off_t)(self->at[1] + FWHT_FRAME_HEADER + 10)), 0);
	close(fd);
	EXPECT_FAILS(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), -EIO);
	EXPECT_NE(strstr(llmem_last_error(), "ends inside frame 1: the file changed"), NULL)
	TH_LOG("%s", llmem_last_error());
	/* Cut before the second unit's header ends. */
	ASSERT_EQ(truncate(self->path, (off_t)self->at[1] + 4), 0);
	EXPECT_FAILS(llmem_bitstream_read(self->b, unit, sizeof(unit), &len), -EIO);
	EXPECT_NE(strstr(llmem_last_error(), "no longer starts"), NULL);
}

TEST_HARNESS_MAIN
