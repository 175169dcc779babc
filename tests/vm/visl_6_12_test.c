// SPDX-License-Identifier: MIT
/*
 * visl, the stateless test decoder the rig builds out of tree for 6.12
 * (scripts/build-test-drivers; Linux 6.1 has no visl), is loaded and looks
 * like a stateless decoder: one multi-planar m2m node, found by its driver
 * name, whose bitstream queue takes the stateless codecs and requests, and
 * whose picture queue gives NV12 or YUV420.  A missing visl fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "test_util.h"

FIXTURE(visl)
{
	int fd;
	char path[32];
};

FIXTURE_SETUP(visl)
{
	char paths[4][32];
	int n = video_nodes_of("visl", paths, 4);

	self->fd = -1;
	ASSERT_EQ(n, 1) TH_LOG("%d visl nodes: the rig must load visl on 6.12", n);
	strcpy(self->path, paths[0]);
	self->fd = open(self->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(visl)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The first @max formats that @type lists; how many there are. */
static int formats(int fd, enum v4l2_buf_type type, uint32_t *out, int max)
{
	struct v4l2_fmtdesc d = { .type = type };

	for (d.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++)
		if ((int)d.index < max)
			out[d.index] = d.pixelformat;
	return d.index;
}

static int listed(const uint32_t *list, int n, uint32_t fourcc)
{
	for (int i = 0; i < n; i++)
		if (list[i] == fourcc)
			return 1;
	return 0;
}

/*
 * The node is a streaming multi-planar m2m device (the V4L2 core adds
 * V4L2_CAP_EXT_PIX_FORMAT to every node).
 */
TEST_F(visl, m2m_mplane_node)
{
	struct v4l2_capability cap = { 0 };

	ASSERT_EQ(xioctl(self->fd, VIDIOC_QUERYCAP, &cap), 0);
	EXPECT_STREQ((const char *)cap.card, "visl");
	EXPECT_EQ(cap.device_caps & ~V4L2_CAP_EXT_PIX_FORMAT,
		  V4L2_CAP_VIDEO_M2M_MPLANE | V4L2_CAP_STREAMING);
}

/*
 * AV1's stateless format came with 6.2's uapi; Debian 12's linux-libc-dev
 * carries 6.1's, so the value is the kernel's own (videodev2.h).
 */
#ifndef V4L2_PIX_FMT_AV1_FRAME
#define V4L2_PIX_FMT_AV1_FRAME v4l2_fourcc('A', 'V', '1', 'F')
#endif

/* The bitstream queue lists the stateless codecs, FWHT's first. */
TEST_F(visl, stateless_coded_formats)
{
	static const uint32_t want[] = {
		V4L2_PIX_FMT_FWHT_STATELESS, V4L2_PIX_FMT_MPEG2_SLICE, V4L2_PIX_FMT_VP8_FRAME,
		V4L2_PIX_FMT_VP9_FRAME,	     V4L2_PIX_FMT_H264_SLICE,  V4L2_PIX_FMT_HEVC_SLICE,
		V4L2_PIX_FMT_AV1_FRAME,
	};
	uint32_t got[16];
	int n = formats(self->fd, V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE, got, 16);

	ASSERT_EQ(n, (int)(sizeof(want) / sizeof(want[0])));
	EXPECT_EQ(got[0], V4L2_PIX_FMT_FWHT_STATELESS);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		EXPECT_TRUE(listed(got, n, want[i])) TH_LOG("fourcc %08x", want[i]);
	}
}

/* Bitstream buffers go in through requests, and capture buffers may be held. */
TEST_F(visl, bitstream_queue_takes_requests)
{
	struct v4l2_requestbuffers req = {
		.count = 0,
		.type = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE,
		.memory = V4L2_MEMORY_MMAP,
	};

	ASSERT_EQ(xioctl(self->fd, VIDIOC_REQBUFS, &req), 0);
	EXPECT_NE(req.capabilities & V4L2_BUF_CAP_SUPPORTS_MMAP, 0);
	EXPECT_NE(req.capabilities & V4L2_BUF_CAP_SUPPORTS_DMABUF, 0);
	EXPECT_NE(req.capabilities & V4L2_BUF_CAP_SUPPORTS_REQUESTS, 0);
	EXPECT_NE(req.capabilities & V4L2_BUF_CAP_SUPPORTS_M2M_HOLD_CAPTURE_BUF, 0);
}

/* With H.264 slices coming in, pictures of that size come out, NV12 unless asked for YUV420. */
TEST_F(visl, h264_decodes_to_nv12_or_yuv420)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE };
	uint32_t got[8];
	int n;

	fmt.fmt.pix_mp.width = 1280;
	fmt.fmt.pix_mp.height = 720;
	fmt.fmt.pix_mp.pixelformat = V4L2_PIX_FMT_H264_SLICE;
	fmt.fmt.pix_mp.num_planes = 1;
	ASSERT_EQ(xioctl(self->fd, VIDIOC_S_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix_mp.pixelformat, V4L2_PIX_FMT_H264_SLICE);

	n = formats(self->fd, V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, got, 8);
	ASSERT_EQ(n, 2);
	EXPECT_TRUE(listed(got, n, V4L2_PIX_FMT_NV12));
	EXPECT_TRUE(listed(got, n, V4L2_PIX_FMT_YUV420));

	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	ASSERT_EQ(xioctl(self->fd, VIDIOC_G_FMT, &fmt), 0);
	EXPECT_EQ(fmt.fmt.pix_mp.pixelformat, V4L2_PIX_FMT_NV12);
	EXPECT_EQ(fmt.fmt.pix_mp.width, 1280);
	EXPECT_EQ(fmt.fmt.pix_mp.height, 720);
}

TEST_HARNESS_MAIN
