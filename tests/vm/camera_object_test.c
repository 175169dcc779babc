// SPDX-License-Identifier: MIT
/*
 * The camera pipeline as a library object (llmem/camera.h) inside the VM:
 * vivid's frames through llmem_camera_next() match the CPU conversion of an
 * MMAP capture of the same picture on the zero-copy and the copy path, the
 * frames' pages are held by vivid while queued and by nobody after close,
 * and every misuse fails with its error.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "capture.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define NBUFS 4
#define FRAMES 3
#define TIMEOUT_MS 10000
#define ALWAYS_KNOWN (LLMEM_DMABUF_KNOWN_VMAPS | LLMEM_DMABUF_KNOWN_ATTACHMENTS)

FIXTURE(camera_object)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_v4l2_format vf;
	struct llmem_frame_layout src, rgba;
	uint8_t *ref;
	struct llmem_camera_create_info ci;
};

FIXTURE_VARIANT(camera_object)
{
	uint32_t fourcc;
	uint32_t flags;
	uint32_t backend;
};

FIXTURE_VARIANT_ADD(camera_object, yuyv_zero_copy){
	.fourcc = V4L2_PIX_FMT_YUYV,
};

FIXTURE_VARIANT_ADD(camera_object, nv12_zero_copy){
	.fourcc = V4L2_PIX_FMT_NV12,
};

/* llmem.ko's pages: the frames share one page, each a range of its own. */
FIXTURE_VARIANT_ADD(camera_object, nv12_frames_in_one_page){
	.fourcc = V4L2_PIX_FMT_NV12,
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

FIXTURE_VARIANT_ADD(camera_object, yuyv_copy){
	.fourcc = V4L2_PIX_FMT_YUYV,
	.flags = LLMEM_CAMERA_COPY,
};

/* The reference: one MMAP frame of vivid's static pattern, converted by the CPU. */
FIXTURE_SETUP(camera_object)
{
	struct llmem_v4l2 *dev;
	uint8_t *frame;

	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	ASSERT_EQ(vivid_static_pattern(self->path), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_v4l2_open(self->path, &dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(dev, variant->fourcc, 640, 480, &self->vf), 0);
	ASSERT_EQ(llmem_v4l2_format_layout(&self->vf, &self->src), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 640, 480, NULL, &self->rgba), 0);
	ASSERT_EQ(capture_mmap_frame(dev, self->vf.sizeimage, NBUFS, &frame), 0);
	llmem_v4l2_close(dev);
	self->ref = malloc(self->rgba.size);
	ASSERT_NE(self->ref, NULL);
	if (variant->fourcc == V4L2_PIX_FMT_YUYV)
		ref_yuyv_to_rgba(frame, self->src.pitch[0], 640, 480, self->vf.encoding,
				 self->vf.range, self->ref, self->rgba.pitch[0]);
	else
		ref_nv12_to_rgba(frame, self->src.pitch[0], frame + self->src.offset[1],
				 self->src.pitch[1], 640, 480, self->vf.encoding, self->vf.range,
				 self->ref, self->rgba.pitch[0]);
	free(frame);
	self->ci = (struct llmem_camera_create_info){
		.device = self->path,
		.fourcc = variant->fourcc,
		.width = 640,
		.height = 480,
		.buffers = NBUFS,
		.flags = variant->flags | LLMEM_CAMERA_INPUT,
		.input = 0,
		.backend = variant->backend,
	};
}

FIXTURE_TEARDOWN(camera_object)
{
	free(self->ref);
	VK_TEST_SESSION_END(self->s);
}

/* What the info reports is what the driver agreed to and the path chose. */
TEST_F_TIMEOUT(camera_object, info_describes_the_stream, 240)
{
	struct llmem_camera_info info;
	struct llmem_camera *cam;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	EXPECT_STREQ(info.device, self->path);
	EXPECT_STREQ(info.driver, "vivid");
	EXPECT_EQ(info.format.fourcc, variant->fourcc);
	EXPECT_EQ(info.format.bytesperline, self->vf.bytesperline);
	EXPECT_EQ(info.format.sizeimage, self->vf.sizeimage);
	EXPECT_EQ(memcmp(&info.layout, &self->src, sizeof(info.layout)), 0);
	EXPECT_EQ(memcmp(&info.rgba_layout, &self->rgba, sizeof(info.rgba_layout)), 0);
	EXPECT_EQ(info.encoding, self->vf.encoding);
	EXPECT_EQ(info.range, self->vf.range);
	EXPECT_GE(info.buffers, NBUFS);
	if (variant->flags & LLMEM_CAMERA_COPY) {
		EXPECT_EQ(info.backend, LLMEM_BACKEND_VULKAN);
		EXPECT_EQ(info.frames_per_page, 1);
	} else if (variant->backend) {
		EXPECT_EQ(info.backend, variant->backend);
		EXPECT_EQ(info.frames_per_page, NBUFS);
	} else {
		EXPECT_NE(info.backend, LLMEM_BACKEND_VULKAN);
		EXPECT_EQ(info.frames_per_page,
			  info.backend == LLMEM_BACKEND_VULKAN_DMABUF ? 1 : NBUFS);
	}
	TH_LOG("backend %s, %u buffers, %u frames a page", llmem_backend_name(info.backend),
	       info.buffers, info.frames_per_page);
	EXPECT_EQ(llmem_camera_get_info(NULL, &info), -EINVAL);
	EXPECT_EQ(llmem_camera_get_info(cam, NULL), -EINVAL);
	llmem_camera_close(cam);
}

/*
 * Every frame converts to the reference picture; the zero-copy path copies
 * no byte and vivid holds every queued frame's DMA-BUF, also where frames
 * share a page; the copy path copies a frame.
 */
TEST_F_TIMEOUT(camera_object, frames_match_mmap_capture, 240)
{
	struct llmem_camera_info info;
	struct llmem_dmabuf_state st;
	struct llmem_camera *cam;
	int fds[LLMEM_CAMERA_MAX_BUFFERS];

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	for (uint32_t i = 0; i < info.buffers; i++)
		ASSERT_EQ(llmem_camera_export(cam, i, &fds[i]), 0) TH_LOG("%s", llmem_last_error());
	/* Frames of one page are each a DMA-BUF of their own, of one frame. */
	if (info.frames_per_page > 1) {
		struct llmem_allocation a0, a;
		struct llmem_buffer *b;

		ASSERT_EQ(llmem_camera_buffer(cam, 0, &b), 0);
		ASSERT_EQ(llmem_buffer_get_allocation(b, &a0), 0);
		for (uint32_t i = 0; i < info.buffers; i++) {
			ASSERT_EQ(llmem_camera_buffer(cam, i, &b), 0);
			ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
			EXPECT_EQ(a.page, a0.page);
			EXPECT_EQ(a.offset % 4096, 0);
			ASSERT_EQ(llmem_dmabuf_query(fds[i], &st), 0);
			EXPECT_EQ(st.size, llmem_buffer_size(b));
			EXPECT_NE(st.flags & LLMEM_DMABUF_EXPORTED_BY_LLMEM, 0);
		}
	}
	ASSERT_EQ(llmem_camera_start(cam), 0);
	for (int n = 0; n < FRAMES; n++) {
		struct llmem_camera_frame f;
		struct llmem_buffer *b;

		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_LT(f.index, info.buffers);
		EXPECT_EQ(f.corrupted, 0);
		EXPECT_NE(f.rgba, NULL);
		EXPECT_EQ(ref_worst_channel(f.rgba_data, self->ref, &info.rgba_layout) <= 2, 1);
		if (variant->flags & LLMEM_CAMERA_COPY) {
			EXPECT_EQ(f.bytes_copied, self->vf.sizeimage);
			EXPECT_EQ(llmem_camera_buffer(cam, f.index, &b), -ENOENT);
		} else {
			EXPECT_EQ(f.bytes_copied, 0);
			ASSERT_EQ(llmem_camera_buffer(cam, f.index, &b), 0);
			EXPECT_EQ(b, f.source);
		}
		/* vivid holds every other buffer while this one is ours. */
		for (uint32_t i = 0;
		     !(variant->flags & LLMEM_CAMERA_COPY) && n == 0 && i < info.buffers; i++) {
			if (i == f.index)
				continue;
			ASSERT_EQ(llmem_dmabuf_query(fds[i], &st), 0)
			TH_LOG("%s", llmem_last_error());
			ASSERT_EQ(st.known & ALWAYS_KNOWN, ALWAYS_KNOWN);
			EXPECT_GE(st.vmaps + st.attachments, 1)
			TH_LOG("llmem.ko sees no importer on queued frame %u", i);
		}
		ASSERT_EQ(llmem_camera_release(cam, &f), 0) TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_camera_stop(cam), 0);
	llmem_camera_close(cam);
	/* Closed, the camera has let go of its frames, and so has vivid. */
	for (uint32_t i = 0; i < info.buffers; i++) {
		ASSERT_EQ(llmem_dmabuf_query(fds[i], &st), 0);
		EXPECT_EQ(st.vmaps, 0);
		EXPECT_EQ(st.attachments, 0);
		close(fds[i]);
	}
}

/*
 * With max_held, that many frames out at once, each in a buffer of its own,
 * released in any order; one more waits for a release.
 */
TEST_F_TIMEOUT(camera_object, frames_held_many, 240)
{
	struct llmem_camera_frame f[NBUFS - 1], g;
	struct llmem_camera *cam;
	uint32_t seen = 0;

	self->ci.max_held = NBUFS - 1;
	if (variant->flags & LLMEM_CAMERA_COPY) {
		/* One device buffer takes each copy: one frame at a time. */
		EXPECT_FAILS(llmem_camera_open(self->s, &self->ci, &cam), -EINVAL);
		return;
	}
	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0);
	for (int i = 0; i < NBUFS - 1; i++) {
		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f[i]), 0)
		TH_LOG("frame %d: %s", i, llmem_last_error());
		EXPECT_EQ(seen & (1u << f[i].index), 0)
		TH_LOG("buffer %u handed out twice", f[i].index);
		seen |= 1u << f[i].index;
	}
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &g), -EBUSY);
	/* The middle one first: the others stay held. */
	ASSERT_EQ(llmem_camera_release(cam, &f[1]), 0);
	EXPECT_FAILS(llmem_camera_release(cam, &f[1]), -EINVAL);
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &g), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_NE(g.index, f[0].index);
	EXPECT_NE(g.index, f[2].index);
	EXPECT_EQ(ref_worst_channel(g.rgba_data, self->ref, &self->rgba) <= 2, 1);
	ASSERT_EQ(llmem_camera_release(cam, &f[0]), 0);
	ASSERT_EQ(llmem_camera_release(cam, &g), 0);
	ASSERT_EQ(llmem_camera_release(cam, &f[2]), 0);
	/* Stopping with frames held hands them back. */
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f[0]), 0);
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f[1]), 0);
	ASSERT_EQ(llmem_camera_stop(cam), 0);
	EXPECT_FAILS(llmem_camera_release(cam, &f[0]), -EINVAL);
	ASSERT_EQ(llmem_camera_start(cam), 0);
	for (int i = 0; i < NBUFS - 1; i++)
		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f[i]), 0)
	TH_LOG("%s", llmem_last_error());
	llmem_camera_close(cam);
}

/* Frames come one at a time, only while streaming, and streaming restarts. */
TEST_F_TIMEOUT(camera_object, frames_one_at_a_time, 240)
{
	struct llmem_camera_frame f, g;
	struct llmem_camera *cam;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &f), -EBUSY);
	ASSERT_EQ(llmem_camera_start(cam), 0);
	EXPECT_EQ(llmem_camera_start(cam), 0);
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &g), -EBUSY);
	g = f;
	g.index = (f.index + 1) % NBUFS;
	EXPECT_FAILS(llmem_camera_release(cam, &g), -EINVAL);
	ASSERT_EQ(llmem_camera_release(cam, &f), 0);
	EXPECT_FAILS(llmem_camera_release(cam, &f), -EINVAL);
	/* Stopping with a frame held hands it back too. */
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0);
	ASSERT_EQ(llmem_camera_stop(cam), 0);
	EXPECT_EQ(llmem_camera_stop(cam), 0);
	EXPECT_FAILS(llmem_camera_next(cam, TIMEOUT_MS, &f), -EBUSY);
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(ref_worst_channel(f.rgba_data, self->ref, &self->rgba) <= 2, 1);
	ASSERT_EQ(llmem_camera_release(cam, &f), 0);
	/* Closing while streaming stops first. */
	llmem_camera_close(cam);
	llmem_camera_close(NULL);
}

/*
 * What needs no frames: arguments, finding the device, the layout of a
 * format.  The same camera setup without the reference capture.
 */
FIXTURE(camera_args)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_v4l2_format vf;
	struct llmem_camera_create_info ci;
	/* Never read: the count is refused first. */
	struct llmem_participant other;
};

FIXTURE_VARIANT(camera_args)
{
	uint32_t fourcc;
};

FIXTURE_VARIANT_ADD(camera_args, yuyv){
	.fourcc = V4L2_PIX_FMT_YUYV,
};

FIXTURE_VARIANT_ADD(camera_args, nv12){
	.fourcc = V4L2_PIX_FMT_NV12,
};

FIXTURE_SETUP(camera_args)
{
	struct llmem_v4l2 *dev;

	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_v4l2_open(self->path, &dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(dev, variant->fourcc, 640, 480, &self->vf), 0);
	llmem_v4l2_close(dev);
	self->ci = (struct llmem_camera_create_info){
		.device = self->path,
		.fourcc = variant->fourcc,
		.width = 640,
		.height = 480,
		.buffers = NBUFS,
		.flags = LLMEM_CAMERA_INPUT,
	};
}

FIXTURE_TEARDOWN(camera_args)
{
	VK_TEST_SESSION_END(self->s);
}

/* Bad choices fail before the device is touched, each with its message. */
TEST_F_TIMEOUT(camera_args, bad_create_info, 120)
{
	struct llmem_camera_create_info ci = self->ci;
	struct llmem_camera *cam = (struct llmem_camera *)1;
	struct llmem_camera_frame f = { 0 };
	struct llmem_buffer *b;
	int fd;

	EXPECT_FAILS(llmem_camera_open(NULL, &ci, &cam), -EINVAL);
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, NULL), -EINVAL);
	ci.flags = 1u << 30;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	EXPECT_EQ(cam, NULL);
	ci = self->ci;
	ci.buffers = LLMEM_CAMERA_MAX_BUFFERS + 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.height = 0;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.flags |= LLMEM_CAMERA_ENCODING;
	ci.encoding = LLMEM_YCBCR_BT709 + 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.flags |= LLMEM_CAMERA_RANGE;
	ci.range = LLMEM_YCBCR_FULL_RANGE + 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.fourcc = V4L2_PIX_FMT_RGB24;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.num_participants = 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "not NULL"), NULL) TH_LOG("%s", llmem_last_error());
	ci = self->ci;
	ci.num_rgba_participants = 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.participants = &self->other;
	ci.num_participants = LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "at most 14"), NULL) TH_LOG("%s", llmem_last_error());
	ci = self->ci;
	ci.max_held = LLMEM_CAMERA_MAX_BUFFERS + 1;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.flags |= LLMEM_CAMERA_COPY;
	ci.max_held = 2;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "copy path"), NULL) TH_LOG("%s", llmem_last_error());
	ci = self->ci;
	ci.device = "/dev/video-none";
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -ENOENT);
	EXPECT_EQ(cam, NULL);

	EXPECT_FAILS(llmem_camera_start(NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_stop(NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_next(NULL, 0, &f), -EINVAL);
	EXPECT_FAILS(llmem_camera_release(NULL, &f), -EINVAL);
	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0);
	EXPECT_FAILS(llmem_camera_next(cam, 0, NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_release(cam, NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_buffer(cam, LLMEM_CAMERA_MAX_BUFFERS, &b), -EINVAL);
	EXPECT_FAILS(llmem_camera_buffer(cam, 0, NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_export(cam, LLMEM_CAMERA_MAX_BUFFERS, &fd), -EINVAL);
	EXPECT_FAILS(llmem_camera_export(cam, 0, NULL), -EINVAL);
	EXPECT_FAILS(llmem_camera_export(NULL, 0, &fd), -EINVAL);
	llmem_camera_close(cam);
}

/* With no device named, the camera takes the first capture node that
 * imports DMA-BUFs: vivid's first instance in the rig. */
TEST_F_TIMEOUT(camera_args, finds_a_capture_device, 120)
{
	struct llmem_camera_create_info ci = self->ci;
	struct llmem_camera_info info;
	struct llmem_camera *cam;
	char path[64];

	ASSERT_EQ(llmem_v4l2_find_capture(path, sizeof(path)), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_STREQ(path, self->path);
	EXPECT_FAILS(llmem_v4l2_find_capture(NULL, sizeof(path)), -EINVAL);
	EXPECT_FAILS(llmem_v4l2_find_capture(path, 4), -EINVAL);
	ci.device = NULL;
	ASSERT_EQ(llmem_camera_open(self->s, &ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	EXPECT_STREQ(info.device, path);
	llmem_camera_close(cam);
}

/* The layout of a V4L2 format follows the driver's pitch and frame size. */
TEST_F_TIMEOUT(camera_args, format_layout, 120)
{
	struct llmem_frame_layout l;

	ASSERT_EQ(llmem_v4l2_format_layout(&self->vf, &l), 0);
	EXPECT_EQ(l.fourcc, variant->fourcc);
	EXPECT_EQ(l.pitch[0], self->vf.bytesperline);
	EXPECT_GE(l.size, self->vf.sizeimage);
	EXPECT_EQ(l.num_planes, self->vf.num_planes);
	for (uint32_t p = 0; p < l.num_planes; p++)
		EXPECT_EQ(l.offset[p], self->vf.plane_offset[p]);
	EXPECT_FAILS(llmem_v4l2_format_layout(NULL, &l), -EINVAL);
	EXPECT_FAILS(llmem_v4l2_format_layout(&self->vf, NULL), -EINVAL);
}

TEST_HARNESS_MAIN
