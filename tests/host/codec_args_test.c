// SPDX-License-Identifier: MIT
/*
 * The codec API's answers to bad arguments, on any machine: every call
 * refuses NULL, unknown queues and nodes that are no codec with a clear
 * error, never a crash.  The codecs themselves are tested in the VM
 * (tests/vm/codec_test.c).
 */
#include <errno.h>
#include <string.h>

#include <llmem/camera.h>
#include <llmem/codec.h>
#include <llmem/error.h>

#include "kselftest_harness.h"

/* Finding needs somewhere to write the path. */
TEST(find_checks_its_path)
{
	struct llmem_codec_find_info fi = { .kind = 99 };
	char path[64];

	EXPECT_EQ(llmem_codec_find(NULL, NULL, 64), -EINVAL);
	EXPECT_EQ(llmem_codec_find(NULL, path, 4), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "too short"), NULL);
	EXPECT_EQ(llmem_codec_find(&fi, path, sizeof(path)), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "unknown kind 99"), NULL);
}

/* A node that is missing, or no V4L2 device at all, is refused by name. */
TEST(open_refuses_what_is_no_codec)
{
	struct llmem_codec *c = (struct llmem_codec *)&c;

	EXPECT_EQ(llmem_codec_open(NULL, &c), -EINVAL);
	EXPECT_EQ(llmem_codec_open("/dev/null", NULL), -EINVAL);
	EXPECT_EQ(llmem_codec_open("/nonexistent/video0", &c), -ENOENT);
	EXPECT_NE(strstr(llmem_last_error(), "/nonexistent/video0"), NULL);
	EXPECT_EQ(llmem_codec_open("/dev/null", &c), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "/dev/null"), NULL);
	EXPECT_EQ(c, (struct llmem_codec *)&c);
}

/* Every call takes a NULL codec without crashing, and says so. */
TEST(null_codec)
{
	struct llmem_codec_format f = { .fourcc = 1, .width = 64, .height = 64 };
	struct llmem_codec_plane p = { .fd = -1 };
	struct llmem_codec_buffer b;
	struct llmem_codec_rect r;
	uint32_t ev;
	void *ptr;

	llmem_codec_close(NULL);
	EXPECT_EQ(llmem_codec_kind(NULL), 0);
	EXPECT_EQ(llmem_codec_state(NULL), 0);
	EXPECT_EQ(llmem_codec_multiplanar(NULL), 0);
	EXPECT_STREQ(llmem_codec_driver(NULL), "");
	EXPECT_EQ(llmem_codec_set_format(NULL, LLMEM_CODEC_OUTPUT, &f, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL codec"), NULL);
	EXPECT_EQ(llmem_codec_get_format(NULL, LLMEM_CODEC_CAPTURE, &f), -EINVAL);
	EXPECT_EQ(llmem_codec_set_picture(NULL, LLMEM_CODEC_OUTPUT, 1000, 562), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_codec_set_picture: NULL codec"), NULL);
	EXPECT_EQ(llmem_codec_get_picture(NULL, LLMEM_CODEC_CAPTURE, &r), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_codec_get_picture: NULL codec"), NULL);
	EXPECT_EQ(
		llmem_codec_request_buffers(NULL, LLMEM_CODEC_OUTPUT, LLMEM_V4L2_MEMORY_DMABUF, 1),
		-EINVAL);
	EXPECT_EQ(llmem_codec_queue(NULL, LLMEM_CODEC_OUTPUT, 0, &p, 1, 0), -EINVAL);
	EXPECT_EQ(llmem_codec_dequeue(NULL, LLMEM_CODEC_CAPTURE, 0, &b), -EINVAL);
	EXPECT_EQ(llmem_codec_map(NULL, LLMEM_CODEC_OUTPUT, 0, 0, &ptr, NULL), -EINVAL);
	EXPECT_EQ(llmem_codec_stream_on(NULL, LLMEM_CODEC_OUTPUT), -EINVAL);
	EXPECT_EQ(llmem_codec_stream_off(NULL, LLMEM_CODEC_CAPTURE), -EINVAL);
	EXPECT_EQ(llmem_codec_drain(NULL), -EINVAL);
	EXPECT_EQ(llmem_codec_resume(NULL), -EINVAL);
	EXPECT_EQ(llmem_codec_wait_event(NULL, 0, &ev), -EINVAL);
	EXPECT_EQ(llmem_codec_follow_source_change(NULL, &f), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL codec"), NULL);
}

/* The camera's late conversion (what `llmem encode` uses to work on a frame
 * in place first) refuses NULL the same way. */
TEST(camera_convert_null)
{
	struct llmem_camera_frame f = { 0 };

	EXPECT_EQ(llmem_camera_convert(NULL, &f), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL camera"), NULL);
	EXPECT_EQ(llmem_camera_convert((struct llmem_camera *)&f, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "NULL frame"), NULL);
}

TEST_HARNESS_MAIN
