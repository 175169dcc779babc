// SPDX-License-Identifier: MIT
/*
 * The camera object (llmem/camera.h) against vivid's error injection, on
 * vivid's fifth instance, which no other test uses (the rig loads
 * n_devs=5): REQBUFS, QBUF and STREAMON failing once, buffers dropped, a
 * frame flagged corrupt, the stream broken by the driver, the device
 * disconnected.  Each failure comes back as its errno with a message that
 * names the call and the node and gives the errno's text once; what can go
 * on goes on; after close no llmem page is left live.  The controls and
 * their semantics are vivid-ctrls.c's, the same on 6.1 and 6.12.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "../module/llmem_test.h"
#include "capture.h"
#include "kselftest_harness.h"
#include "vk_test.h"

#define FAULT_NODE "vivid-004-vid-cap"
#define TIMEOUT_MS 10000

/* How many times @needle occurs in @s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

FIXTURE(faults)
{
	char path[32];
	char prefix[64];
	struct llmem_session *s;
	struct llmem_camera_create_info ci;
};

FIXTURE_SETUP(faults)
{
	ASSERT_EQ(video_node_named(FAULT_NODE, self->path, sizeof(self->path)), 0)
	TH_LOG("no %s: the rig loads vivid with n_devs=5", FAULT_NODE);
	ASSERT_EQ(llmem_live_pages(), 0) TH_LOG("llmem.ko's pages live before the test");
	VK_TEST_SESSION(self->s);
	/* llmem.ko's pages on both kernels, so that the live-page count sees them. */
	self->ci = (struct llmem_camera_create_info){
		.device = self->path,
		.width = 320,
		.height = 180,
		.buffers = 3,
		.flags = LLMEM_CAMERA_INPUT,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	};
}

/* Every page went with the camera; vivid is as the next test expects it. */
FIXTURE_TEARDOWN(faults)
{
	VK_TEST_SESSION_END(self->s);
	EXPECT_EQ(llmem_live_pages(), 0);
	EXPECT_EQ(vivid_set_control(self->path, "Percentage of Dropped Buffers", 0), 0);
}

/* The message names @call on the node and gives @text once. */
#define EXPECT_MESSAGE(call, text)                                                      \
	do {                                                                            \
		char _want[128];                                                        \
		snprintf(_want, sizeof(_want), "%s on %s: %s", call, self->path, text); \
		EXPECT_NE(strstr(llmem_last_error(), _want), NULL)                      \
		TH_LOG("message: %s", llmem_last_error());                              \
		EXPECT_EQ(count(llmem_last_error(), text), 1)                           \
		TH_LOG("message: %s", llmem_last_error());                              \
	} while (0)

/* One frame, dequeued, converted and given back. */
static int one_frame(struct llmem_camera *cam)
{
	struct llmem_camera_frame f;
	int ret = llmem_camera_next(cam, TIMEOUT_MS, &f);

	return ret ? ret : llmem_camera_release(cam, &f);
}

/*
 * REQBUFS, then QBUF, fail once as the camera opens: each open fails,
 * leaving no page behind; STREAMON fails once: the camera stays stopped
 * with its frames, and starts at the next try.
 */
TEST_F_TIMEOUT(faults, setup_errors, 180)
{
	struct llmem_camera *cam = (struct llmem_camera *)1;

	ASSERT_EQ(vivid_set_control(self->path, "Inject VIDIOC_REQBUFS Error", 1), 0);
	EXPECT_FAILS(llmem_camera_open(self->s, &self->ci, &cam), -EINVAL);
	EXPECT_MESSAGE("VIDIOC_REQBUFS", "Invalid argument");
	EXPECT_EQ(cam, NULL);
	EXPECT_EQ(llmem_live_pages(), 0);
	ASSERT_EQ(vivid_set_control(self->path, "Inject VIDIOC_QBUF Error", 1), 0);
	EXPECT_FAILS(llmem_camera_open(self->s, &self->ci, &cam), -EINVAL);
	EXPECT_MESSAGE("VIDIOC_QBUF", "Invalid argument");
	EXPECT_EQ(llmem_live_pages(), 0);

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(vivid_set_control(self->path, "Inject VIDIOC_STREAMON Error", 1), 0);
	EXPECT_FAILS(llmem_camera_start(cam), -EINVAL);
	EXPECT_MESSAGE("VIDIOC_STREAMON", "Invalid argument");
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(one_frame(cam), 0) TH_LOG("%s", llmem_last_error());
	llmem_camera_close(cam);
}

/*
 * While streaming: a QBUF that fails once leaves the frame held, and
 * releasing it again goes on; a frame flagged V4L2_BUF_FLAG_ERROR comes as
 * corrupted, and the stream goes on; vb2_queue_error() makes the next frame
 * fail with EIO, saying the stream is broken, and stopping and starting
 * again gives frames once more.
 */
TEST_F_TIMEOUT(faults, streaming_errors, 180)
{
	struct llmem_camera_frame f;
	struct llmem_camera *cam;
	int corrupted = 0;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0);
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(vivid_set_control(self->path, "Inject VIDIOC_QBUF Error", 1), 0);
	EXPECT_FAILS(llmem_camera_release(cam, &f), -EINVAL);
	EXPECT_MESSAGE("VIDIOC_QBUF", "Invalid argument");
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &f), -EBUSY);
	ASSERT_EQ(llmem_camera_release(cam, &f), 0) TH_LOG("%s", llmem_last_error());

	/* Up to all three buffers may be filled already: the flag is on one of the next four. */
	ASSERT_EQ(vivid_set_control(self->path, "Inject V4L2_BUF_FLAG_ERROR", 1), 0);
	for (int n = 0; n < 5; n++) {
		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0)
		TH_LOG("%s", llmem_last_error());
		corrupted += f.corrupted;
		ASSERT_EQ(llmem_camera_release(cam, &f), 0);
	}
	EXPECT_EQ(corrupted, 1);

	ASSERT_EQ(vivid_set_control(self->path, "Inject Fatal Streaming Error", 1), 0);
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &f), -EIO);
	EXPECT_MESSAGE("VIDIOC_DQBUF", "Input/output error");
	EXPECT_NE(strstr(llmem_last_error(), "fatal streaming error"), NULL);
	ASSERT_EQ(llmem_camera_stop(cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(one_frame(cam), 0) TH_LOG("%s", llmem_last_error());
	llmem_camera_close(cam);
}

/*
 * Half the buffers dropped: every frame still comes, and the frames
 * skipped are counted, the gaps in vivid's frame counter.
 */
TEST_F_TIMEOUT(faults, dropped_buffers_counted, 180)
{
	uint32_t first = 0, last = 0, dropped = 0;
	struct llmem_camera *cam;
	const int frames = 8;

	ASSERT_EQ(vivid_set_control(self->path, "Percentage of Dropped Buffers", 50), 0);
	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0);
	for (int n = 0; n < frames; n++) {
		struct llmem_camera_frame f;

		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0)
		TH_LOG("%s", llmem_last_error());
		if (n == 0) {
			EXPECT_EQ(f.dropped, 0);
			first = f.sequence;
		}
		dropped += f.dropped;
		last = f.sequence;
		ASSERT_EQ(llmem_camera_release(cam, &f), 0);
	}
	TH_LOG("%d frames, %u dropped, sequence %u to %u", frames, dropped, first, last);
	EXPECT_GE(dropped, 1);
	EXPECT_EQ(last - first + 1, frames + dropped);
	llmem_camera_close(cam);
}

/*
 * Disconnected while streaming: the next frame fails with ENODEV and says
 * so, stopping fails the same way, and closing releases every frame; vivid
 * comes back once its last user has closed it.
 */
TEST_F_TIMEOUT(faults, disconnect, 120)
{
	struct llmem_camera_frame f;
	struct llmem_camera *cam;
	int fd;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0);
	ASSERT_EQ(one_frame(cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(vivid_set_control(self->path, "Disconnect", 1), 0);
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &f), -ENODEV);
	EXPECT_MESSAGE("VIDIOC_DQBUF", "No such device");
	EXPECT_NE(strstr(llmem_last_error(), "disconnected"), NULL);
	EXPECT_FAILS(llmem_camera_stop(cam), -ENODEV);
	EXPECT_EQ(open(self->path, O_RDWR | O_CLOEXEC), -1);
	llmem_camera_close(cam);
	EXPECT_EQ(llmem_live_pages(), 0);
	fd = open(self->path, O_RDWR | O_CLOEXEC);
	EXPECT_GE(fd, 0) TH_LOG("vivid did not come back after the last close");
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
