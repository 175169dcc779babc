// SPDX-License-Identifier: MIT
/*
 * Proves the VM rig is real: vivid streams through V4L2_MEMORY_MMAP inside
 * the guest and its frames carry a test pattern, not a constant.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "test_util.h"

#define NBUFS 4

FIXTURE(vivid)
{
	int fd;
	void *maps[NBUFS];
	size_t lengths[NBUFS];
};

FIXTURE_SETUP(vivid)
{
	self->fd = open_vivid_capture();
	ASSERT_GE(self->fd, 0)
	TH_LOG("no vivid capture node: the rig must load vivid");
}

FIXTURE_TEARDOWN(vivid)
{
	for (int i = 0; i < NBUFS; i++)
		if (self->maps[i])
			munmap(self->maps[i], self->lengths[i]);
	if (self->fd >= 0)
		close(self->fd);
}

/* Ten frames stream through MMAP buffers and none of them is uniform. */
TEST_F(vivid, mmap_streams_test_pattern)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_format fmt = { .type = type };
	struct v4l2_requestbuffers req = {
		.count = NBUFS,
		.type = type,
		.memory = V4L2_MEMORY_MMAP,
	};

	fmt.fmt.pix.width = 640;
	fmt.fmt.pix.height = 480;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ASSERT_EQ(xioctl(self->fd, VIDIOC_S_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ASSERT_EQ(xioctl(self->fd, VIDIOC_REQBUFS, &req), 0);
	ASSERT_EQ(req.count, NBUFS);

	for (unsigned int i = 0; i < NBUFS; i++) {
		struct v4l2_buffer buf = {
			.type = type,
			.memory = V4L2_MEMORY_MMAP,
			.index = i,
		};

		ASSERT_EQ(xioctl(self->fd, VIDIOC_QUERYBUF, &buf), 0);
		self->lengths[i] = buf.length;
		self->maps[i] =
			mmap(NULL, buf.length, PROT_READ, MAP_SHARED, self->fd, buf.m.offset);
		ASSERT_NE(self->maps[i], MAP_FAILED);
		ASSERT_EQ(xioctl(self->fd, VIDIOC_QBUF, &buf), 0);
	}
	ASSERT_EQ(xioctl(self->fd, VIDIOC_STREAMON, &type), 0);

	for (int frame = 0; frame < 10; frame++) {
		struct v4l2_buffer buf = {
			.type = type,
			.memory = V4L2_MEMORY_MMAP,
		};
		struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
		const uint8_t *bytes;
		size_t differing = 0;

		ASSERT_EQ(poll(&pfd, 1, 10000), 1) TH_LOG("no frame in 10 s");
		ASSERT_EQ(xioctl(self->fd, VIDIOC_DQBUF, &buf), 0);
		ASSERT_LT(buf.index, NBUFS);
		ASSERT_EQ(buf.bytesused, fmt.fmt.pix.sizeimage);
		bytes = self->maps[buf.index];
		for (size_t b = 1; b < buf.bytesused; b++)
			differing += bytes[b] != bytes[0];
		EXPECT_GT(differing, buf.bytesused / 4)
		TH_LOG("frame %d is nearly uniform", frame);
		ASSERT_EQ(xioctl(self->fd, VIDIOC_QBUF, &buf), 0);
	}
	ASSERT_EQ(xioctl(self->fd, VIDIOC_STREAMOFF, &type), 0);
}

TEST_HARNESS_MAIN
