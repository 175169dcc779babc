// SPDX-License-Identifier: MIT
/*
 * The V4L2 helper against vivid: negotiation, every refusal it documents,
 * the MMAP+EXPBUF path and the DMABUF path (one vivid instance captures into
 * buffers exported by the other); the enumeration of its nodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/llmem.h>
#include <llmem/v4l2.h>

#include "kselftest_harness.h"
#include "test_util.h"

#define NBUFS 4
#define WIDTH 640
#define HEIGHT 480

/* Counts bytes that differ from the first: a test pattern has many. */
static size_t differing_bytes(const uint8_t *bytes, size_t len)
{
	size_t n = 0;

	for (size_t i = 1; i < len; i++)
		n += bytes[i] != bytes[0];
	return n;
}

FIXTURE(v4l2)
{
	char path[32];
	struct llmem_v4l2 *dev;
};

FIXTURE_SETUP(v4l2)
{
	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	ASSERT_EQ(llmem_v4l2_open(self->path, &self->dev), 0);
	/* vivid keeps its input across opens; every test starts on the webcam. */
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 0), 0);
}

FIXTURE_TEARDOWN(v4l2)
{
	llmem_v4l2_close(self->dev);
}

/* The negotiated YUYV format carries the driver's pitch and frame size. */
TEST_F(v4l2, set_format_yuyv)
{
	struct llmem_v4l2_format f;

	EXPECT_STREQ(llmem_v4l2_driver(self->dev), "vivid");
	ASSERT_EQ(llmem_v4l2_has_format(self->dev, V4L2_PIX_FMT_YUYV), 1);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, &f), 0);
	EXPECT_EQ(f.fourcc, V4L2_PIX_FMT_YUYV);
	EXPECT_EQ(f.bytesperline, WIDTH * 2);
	EXPECT_EQ(f.sizeimage, WIDTH * 2 * HEIGHT);
	EXPECT_EQ(f.num_planes, 1);
	EXPECT_EQ(f.plane_pitch[0], WIDTH * 2);
}

/* NV12's chroma plane follows the luma plane at the same pitch. */
TEST_F(v4l2, set_format_nv12_planes)
{
	struct llmem_v4l2_format f;

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_NV12, WIDTH, HEIGHT, &f), 0);
	EXPECT_EQ(f.num_planes, 2);
	EXPECT_EQ(f.plane_offset[1], f.bytesperline * HEIGHT);
	EXPECT_EQ(f.plane_pitch[1], f.bytesperline);
	EXPECT_GE(f.sizeimage, f.bytesperline * HEIGHT * 3 / 2);
}

/* A format the library cannot describe is refused before the driver sees it. */
TEST_F(v4l2, set_format_unknown_fourcc)
{
	EXPECT_EQ(llmem_v4l2_has_format(self->dev, v4l2_fourcc('Z', 'Z', 'Z', 'Z')), 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, v4l2_fourcc('Z', 'Z', 'Z', 'Z'), WIDTH, HEIGHT,
					NULL),
		  -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "ZZZZ"), NULL);
}

/* The HDMI input scales to any size, odd widths included; the webcam does not. */
TEST_F(v4l2, set_input_scales)
{
	struct llmem_v4l2_format f;

	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 99), -EINVAL);
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 3), 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, 1000, 562, &f), 0);
	EXPECT_EQ(f.bytesperline, 2000);
}

/* A size the driver replaces with another is an error naming what it offered. */
TEST_F(v4l2, set_format_substituted_size)
{
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, 100, 100, NULL), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "offers"), NULL);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, 0, HEIGHT, NULL), -EINVAL);
}

/* Bad arguments to open: NULL, a missing node, a node that does not capture. */
TEST(open_refusals)
{
	struct llmem_v4l2 *dev = NULL;

	ASSERT_EQ(llmem_v4l2_open(NULL, &dev), -EINVAL);
	ASSERT_EQ(llmem_v4l2_open("/dev/video0", NULL), -EINVAL);
	ASSERT_EQ(llmem_v4l2_open("/dev/no-such-video", &dev), -ENOENT);
	ASSERT_EQ(llmem_v4l2_open("/dev/null", &dev), -ENOTTY);
	EXPECT_NE(strstr(llmem_last_error(), "VIDIOC_QUERYCAP on /dev/null"), NULL);
	EXPECT_EQ(dev, NULL);
	llmem_v4l2_close(NULL);
}

/* Queueing is refused without buffers, outside the granted slots, or too short. */
TEST_F(v4l2, queue_refusals)
{
	struct llmem_v4l2_frame frame;
	int granted, pipefd[2];

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, 0, 0, WIDTH * HEIGHT * 2), -EINVAL);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, 0, NBUFS), -EINVAL);
	granted = llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, NBUFS);
	ASSERT_GE(granted, 1);
	ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, granted, 0, WIDTH * HEIGHT * 2), -EINVAL);
	ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, 0, 0, 16), -EINVAL);
	ASSERT_EQ(llmem_v4l2_queue(self->dev, 0), -EINVAL);
	/* An fd that is not a DMA-BUF is refused before the driver sees it,
	 * with the errno the driver gives it. */
	ASSERT_EQ(pipe2(pipefd, O_CLOEXEC), 0);
	ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, 0, pipefd[0], WIDTH * HEIGHT * 2), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "is not a DMA-BUF"), NULL);
	close(pipefd[0]);
	close(pipefd[1]);
	ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 10, &frame), -EINVAL);
}

/*
 * A stalled stream times out instead of hanging: at one frame a second, the
 * frame after the first is far off.  With no buffer queued nothing can ever
 * arrive, which is -EAGAIN at once.
 */
TEST_F(v4l2, dequeue_times_out)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct llmem_v4l2_frame frame;
	int fd = open(self->path, O_RDWR | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = 1;
	ASSERT_EQ(xioctl(fd, VIDIOC_S_PARM, &parm), 0);
	close(fd);
	ASSERT_EQ(parm.parm.capture.timeperframe.denominator, 1);

	ASSERT_GE(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, NBUFS), 2);
	ASSERT_EQ(llmem_v4l2_stream_on(self->dev), 0);
	ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 200, &frame), -EAGAIN);
	ASSERT_EQ(llmem_v4l2_queue(self->dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_queue(self->dev, 1), 0);
	ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 5000, &frame), 0);
	ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 100, &frame), -ETIMEDOUT);
	EXPECT_NE(strstr(llmem_last_error(), "no frame within 100 ms"), NULL);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, 0), -EBUSY);
	ASSERT_EQ(llmem_v4l2_stream_off(self->dev), 0);
	/* vivid keeps the rate across opens; later tests want frames fast. */
	fd = open(self->path, O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	parm.parm.capture.timeperframe.denominator = 30;
	ASSERT_EQ(xioctl(fd, VIDIOC_S_PARM, &parm), 0);
	close(fd);
}

/* The device's own buffers, exported, hold the frames it captured. */
TEST_F(v4l2, mmap_export_round_trip)
{
	size_t size = WIDTH * HEIGHT * 2;
	int fds[NBUFS];
	int granted;

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	granted = llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, NBUFS);
	ASSERT_EQ(granted, NBUFS);
	ASSERT_EQ(llmem_v4l2_export(self->dev, NBUFS, &fds[0]), -EINVAL);
	for (int i = 0; i < NBUFS; i++) {
		ASSERT_EQ(llmem_v4l2_export(self->dev, i, &fds[i]), 0);
		EXPECT_EQ(fcntl(fds[i], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		ASSERT_EQ(llmem_v4l2_queue(self->dev, i), 0);
	}
	ASSERT_EQ(llmem_v4l2_stream_on(self->dev), 0);
	for (int n = 0; n < 5; n++) {
		struct llmem_v4l2_frame frame;
		uint8_t *map;

		ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 10000, &frame), 0);
		ASSERT_LT(frame.index, NBUFS);
		ASSERT_EQ(frame.bytesused, size);
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, fds[frame.index], 0);
		ASSERT_NE(map, MAP_FAILED);
		EXPECT_GT(differing_bytes(map, size), size / 4);
		munmap(map, size);
		ASSERT_EQ(llmem_v4l2_queue(self->dev, frame.index), 0);
	}
	ASSERT_EQ(llmem_v4l2_stream_off(self->dev), 0);
	for (int i = 0; i < NBUFS; i++)
		close(fds[i]);
}

/*
 * DMABUF: the second vivid instance captures into buffers the first one
 * exported, and the frames are there when read through the exporter.
 */
TEST_F(v4l2, dmabuf_capture_into_foreign_buffers)
{
	size_t size = WIDTH * HEIGHT * 2;
	struct llmem_v4l2 *importer;
	char path[32];
	int fds[NBUFS];

	ASSERT_EQ(vivid_capture_path(1, path, sizeof(path)), 0)
	TH_LOG("the rig loads vivid with n_devs=5");
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, NBUFS), NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		ASSERT_EQ(llmem_v4l2_export(self->dev, i, &fds[i]), 0);
		/* The exporter's copy starts out blank so captured bytes stand out. */
		uint8_t *map = mmap(NULL, size, PROT_WRITE, MAP_SHARED, fds[i], 0);

		ASSERT_NE(map, MAP_FAILED);
		memset(map, 0, size);
		munmap(map, size);
	}

	ASSERT_EQ(llmem_v4l2_open(path, &importer), 0);
	ASSERT_EQ(llmem_v4l2_set_format(importer, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(importer, LLMEM_V4L2_MEMORY_DMABUF, NBUFS), NBUFS);
	for (int i = 0; i < NBUFS; i++)
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(importer, i, fds[i], size), 0);
	ASSERT_EQ(llmem_v4l2_stream_on(importer), 0);
	for (int n = 0; n < 6; n++) {
		struct llmem_v4l2_frame frame;
		uint8_t *map;

		ASSERT_EQ(llmem_v4l2_dequeue(importer, 10000, &frame), 0);
		ASSERT_LT(frame.index, NBUFS);
		ASSERT_EQ(frame.bytesused, size);
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, fds[frame.index], 0);
		ASSERT_NE(map, MAP_FAILED);
		EXPECT_GT(differing_bytes(map, size), size / 4);
		munmap(map, size);
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(importer, frame.index, fds[frame.index], size),
			  0);
	}
	llmem_v4l2_close(importer);
	for (int i = 0; i < NBUFS; i++)
		close(fds[i]);
}

/* Whether queue @q lists @fourcc. */
static bool lists(const struct llmem_v4l2_queue_info *q, uint32_t fourcc)
{
	for (uint32_t i = 0; i < q->num_formats; i++)
		if (q->formats[i].fourcc == fourcc)
			return true;
	return false;
}

/*
 * The enumeration lists every vivid node that VIDIOC_QUERYCAP finds; the
 * first capture node with YUYV and DMA-BUF import, as the finder takes it;
 * the multi-planar instance's capture queue with NV12M; and a node asked
 * alone as it stands in the whole list.
 */
TEST(list_nodes_vivid)
{
	char vivid[64][32], cam[32], found[32];
	int n = video_nodes_of("vivid", vivid, 64), seen = 0, mplane = 0;
	struct llmem_v4l2_node_list *list, *one;

	ASSERT_GT(n, 0);
	ASSERT_EQ(vivid_capture_path(0, cam, sizeof(cam)), 0);
	ASSERT_EQ(llmem_v4l2_find_capture(found, sizeof(found)), 0);
	EXPECT_STREQ(found, cam);
	ASSERT_EQ(llmem_v4l2_list_nodes(NULL, &list), 0);
	for (uint32_t i = 0; i < list->count; i++) {
		const struct llmem_v4l2_node *node = &list->nodes[i];
		const struct llmem_v4l2_queue_info *q = &node->queues[0];

		if (strcmp(node->driver, "vivid"))
			continue;
		seen++;
		EXPECT_EQ(node->error, 0);
		for (uint32_t k = 0; k < node->num_queues; k++)
			mplane += !node->queues[k].output && node->queues[k].multiplanar &&
				  lists(&node->queues[k], V4L2_PIX_FMT_NV12M);
		if (strcmp(node->path, cam))
			continue;
		EXPECT_EQ(node->role, LLMEM_V4L2_ROLE_CAPTURE);
		EXPECT_EQ(node->streaming, 1);
		ASSERT_EQ(node->num_queues, 1);
		EXPECT_EQ(q->type, V4L2_BUF_TYPE_VIDEO_CAPTURE);
		EXPECT_EQ(q->output, 0);
		EXPECT_TRUE(lists(q, V4L2_PIX_FMT_YUYV));
		EXPECT_EQ(q->formats_error, 0);
		EXPECT_EQ(q->memory_error, 0);
		EXPECT_EQ(q->memory & (LLMEM_V4L2_MEMCAP_MMAP | LLMEM_V4L2_MEMCAP_DMABUF),
			  LLMEM_V4L2_MEMCAP_MMAP | LLMEM_V4L2_MEMCAP_DMABUF);
		EXPECT_EQ(llmem_v4l2_node_captures_dmabuf(node), 1);
		ASSERT_EQ(llmem_v4l2_list_nodes(cam, &one), 0);
		ASSERT_EQ(one->count, 1);
		EXPECT_STREQ(one->nodes[0].card, node->card);
		ASSERT_EQ(one->nodes[0].queues[0].num_formats, q->num_formats);
		EXPECT_EQ(memcmp(one->nodes[0].queues[0].formats, q->formats,
				 q->num_formats * sizeof(q->formats[0])),
			  0);
		llmem_v4l2_node_list_free(one);
	}
	EXPECT_EQ(seen, n);
	EXPECT_EQ(mplane, 1) TH_LOG("the rig loads vivid with multiplanar=1,1,1,2,1");
	llmem_v4l2_node_list_free(list);
}

/* A queue with buffers of another open file answers EBUSY, and its node is
 * then no camera to take. */
TEST_F(v4l2, list_nodes_busy_queue)
{
	struct llmem_v4l2_node_list *list;

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, NULL), 0);
	ASSERT_GT(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, 2), 0);
	ASSERT_EQ(llmem_v4l2_list_nodes(self->path, &list), 0);
	ASSERT_EQ(list->count, 1);
	ASSERT_EQ(list->nodes[0].num_queues, 1);
	EXPECT_EQ(list->nodes[0].queues[0].memory_error, -EBUSY);
	EXPECT_EQ(list->nodes[0].queues[0].memory, 0);
	EXPECT_GT(list->nodes[0].queues[0].num_formats, 0);
	EXPECT_EQ(llmem_v4l2_node_captures_dmabuf(&list->nodes[0]), 0);
	llmem_v4l2_node_list_free(list);
}

TEST_HARNESS_MAIN
