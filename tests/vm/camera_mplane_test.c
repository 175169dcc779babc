// SPDX-License-Identifier: MIT
/*
 * Multi-planar capture inside the VM, on vivid's fourth instance, which the
 * rig loads with multiplanar=2: NV12M, a DMA-BUF per plane, through the
 * V4L2 helper and the camera object.  Each plane is an llmem buffer queued
 * as a DMA-BUF of its own (frames sharing a page on llmem.ko's pages), the
 * conversion reads both where vivid wrote them, and the RGBA frame matches
 * the CPU conversion of vivid's own MMAP buffers of the same picture,
 * captured with raw ioctls.  YUYV through the multi-planar API, the copy
 * path, and every refusal of a plane that cannot be queued.
 */
#include <fcntl.h>
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

#define MPLANE_NODE "vivid-003-vid-cap"
#define SPLANE_NODE "vivid-000-vid-cap"
#define NBUFS 4
#define FRAMES 3
#define TIMEOUT_MS 10000
#define ALWAYS_KNOWN (LLMEM_DMABUF_KNOWN_VMAPS | LLMEM_DMABUF_KNOWN_ATTACHMENTS)

static uint64_t pages_of(uint64_t size)
{
	return (size + 4095) / 4096 * 4096;
}

FIXTURE(mplane_v4l2)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_v4l2 *dev;
};

FIXTURE_SETUP(mplane_v4l2)
{
	struct llmem_memory_create_info mci = {
		.page_size = 4u << 20,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
		.name = "mplane test",
	};

	ASSERT_EQ(video_node_named(MPLANE_NODE, self->path, sizeof(self->path)), 0)
	TH_LOG("no %s: the rig loads vivid with n_devs=5 multiplanar=1,1,1,2,1", MPLANE_NODE);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_v4l2_open(self->path, &self->dev), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 0), 0);
}

FIXTURE_TEARDOWN(mplane_v4l2)
{
	llmem_v4l2_close(self->dev);
	llmem_memory_destroy(self->m);
	VK_TEST_SESSION_END(self->s);
}

/* The driver's own word on the multi-planar format, with raw ioctls. */
static int driver_format(const char *path, struct v4l2_pix_format_mplane *mp)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE };
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = xioctl(fd, VIDIOC_G_FMT, &f);
	close(fd);
	*mp = f.fmt.pix_mp;
	return ret;
}

/*
 * NV12M takes two memory planes, sized and pitched as the driver says;
 * YUYV and NV12 take one on the same node; a single-planar node refuses
 * NV12M with the reason.
 */
TEST_F_TIMEOUT(mplane_v4l2, formats, 120)
{
	struct v4l2_pix_format_mplane mp;
	struct llmem_v4l2_format f;
	struct llmem_frame_layout l;
	struct llmem_v4l2 *single;
	char path[32];

	EXPECT_EQ(llmem_v4l2_multiplanar(self->dev), 1);
	EXPECT_EQ(llmem_v4l2_has_format(self->dev, V4L2_PIX_FMT_NV12M), 1);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_NV12M, 640, 480, &f), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(driver_format(self->path, &mp), 0);
	ASSERT_EQ(mp.num_planes, 2);
	EXPECT_EQ(f.mem_planes, 2);
	EXPECT_EQ(f.num_planes, 2);
	for (uint32_t p = 0; p < 2; p++) {
		EXPECT_EQ(f.mem_plane_size[p], mp.plane_fmt[p].sizeimage);
		EXPECT_EQ(f.plane_pitch[p], mp.plane_fmt[p].bytesperline);
		EXPECT_EQ(f.plane_offset[p], 0);
	}
	EXPECT_EQ(f.bytesperline, mp.plane_fmt[0].bytesperline);
	EXPECT_EQ(f.sizeimage, mp.plane_fmt[0].sizeimage + mp.plane_fmt[1].sizeimage);
	EXPECT_GE(f.mem_plane_size[1], 640 * 240);
	ASSERT_EQ(llmem_v4l2_format_layout(&f, &l), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(l.fourcc, DRM_FORMAT_NV12);
	EXPECT_EQ(l.num_planes, 2);
	EXPECT_EQ(l.offset[0], 0);
	EXPECT_EQ(l.offset[1], 0);
	EXPECT_EQ(l.pitch[1], f.plane_pitch[1]);
	EXPECT_EQ(l.size, f.sizeimage);
	/* A description that does not hold the CbCr plane's rows is refused. */
	f.mem_plane_size[1] = f.plane_pitch[1] * 240 - 1;
	EXPECT_FAILS(llmem_v4l2_format_layout(&f, &l), -EINVAL);
	f.mem_planes = 1;
	EXPECT_FAILS(llmem_v4l2_format_layout(&f, &l), -EINVAL);

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, 640, 480, &f), 0);
	EXPECT_EQ(f.mem_planes, 1);
	EXPECT_EQ(f.mem_plane_size[0], f.sizeimage);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_NV12, 640, 480, &f), 0);
	EXPECT_EQ(f.mem_planes, 1);
	EXPECT_EQ(f.plane_offset[1], f.bytesperline * 480);

	ASSERT_EQ(video_node_named(SPLANE_NODE, path, sizeof(path)), 0);
	ASSERT_EQ(llmem_v4l2_open(path, &single), 0);
	EXPECT_EQ(llmem_v4l2_multiplanar(single), 0);
	EXPECT_FAILS(llmem_v4l2_set_format(single, V4L2_PIX_FMT_NV12M, 640, 480, &f), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "multi-planar node"), NULL);
	llmem_v4l2_close(single);
	EXPECT_EQ(llmem_v4l2_multiplanar(NULL), 0);
}

/* An llmem buffer of @size bytes as a DMA-BUF of its own. */
static int plane_fd(struct __test_metadata *_metadata, struct llmem_memory *m, uint64_t size,
		    struct llmem_buffer **b)
{
	struct llmem_dmabuf_region r;

	if (llmem_buffer_create(
		    m, &(struct llmem_buffer_create_info){ .size = size, .alignment = 4096 }, b) ||
	    llmem_buffer_export_range(*b, &r)) {
		TH_LOG("plane buffer: %s", llmem_last_error());
		return -1;
	}
	return r.fd;
}

/*
 * Each plane is checked before the kernel sees it: a DMA-BUF smaller than
 * its plane (its own size, or the length stated), an fd that is no DMA-BUF,
 * the wrong number of planes; the planes that fit are then held by vivid
 * while queued, and a frame comes back in them.
 */
TEST_F_TIMEOUT(mplane_v4l2, planes_checked_before_qbuf, 120)
{
	struct llmem_buffer *y, *c, *small;
	struct llmem_v4l2_format f;
	struct llmem_v4l2_frame frame;
	struct llmem_dmabuf_state st;
	int yfd, cfd, smallfd, pipefd[2], expfd;

	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_NV12M, 640, 480, &f), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 2), 2);
	yfd = plane_fd(_metadata, self->m, pages_of(f.mem_plane_size[0]), &y);
	cfd = plane_fd(_metadata, self->m, pages_of(f.mem_plane_size[1]), &c);
	smallfd = plane_fd(_metadata, self->m, f.mem_plane_size[1] / 4096 * 4096 - 4096, &small);
	ASSERT_GE(yfd, 0);
	ASSERT_GE(cfd, 0);
	ASSERT_GE(smallfd, 0);
	ASSERT_EQ(pipe2(pipefd, O_CLOEXEC), 0);

	EXPECT_FAILS(llmem_v4l2_queue_dmabuf(self->dev, 0, yfd, 0), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "takes 2"), NULL);
	EXPECT_FAILS(llmem_v4l2_queue_dmabuf_planes(
			     self->dev, 0,
			     (struct llmem_v4l2_plane[]){ { .fd = yfd }, { .fd = smallfd } }, 2),
		     -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "refused before VIDIOC_QBUF"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(
		llmem_v4l2_queue_dmabuf_planes(
			self->dev, 0,
			(struct llmem_v4l2_plane[]){
				{ .fd = yfd }, { .fd = cfd, .length = f.mem_plane_size[1] - 1 } },
			2),
		-EINVAL);
	EXPECT_FAILS(llmem_v4l2_queue_dmabuf_planes(
			     self->dev, 0,
			     (struct llmem_v4l2_plane[]){ { .fd = yfd }, { .fd = pipefd[0] } }, 2),
		     -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "is not a DMA-BUF"), NULL);
	EXPECT_FAILS(llmem_v4l2_queue_dmabuf_planes(self->dev, 0, NULL, 2), -EINVAL);
	EXPECT_FAILS(
		llmem_v4l2_queue_dmabuf_planes(
			self->dev, 0,
			(struct llmem_v4l2_plane[]){ { .fd = yfd }, { .fd = cfd }, { .fd = cfd } },
			3),
		-EINVAL);
	EXPECT_FAILS(llmem_v4l2_queue_dmabuf_planes(
			     self->dev, 2,
			     (struct llmem_v4l2_plane[]){ { .fd = yfd }, { .fd = cfd } }, 2),
		     -EINVAL);
	ASSERT_EQ(llmem_dmabuf_query(smallfd, &st), 0);
	EXPECT_EQ(st.vmaps + st.attachments, 0);

	ASSERT_EQ(llmem_v4l2_queue_dmabuf_planes(
			  self->dev, 0, (struct llmem_v4l2_plane[]){ { .fd = yfd }, { .fd = cfd } },
			  2),
		  0)
	TH_LOG("%s", llmem_last_error());
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(llmem_dmabuf_query(i ? cfd : yfd, &st), 0);
		ASSERT_EQ(st.known & ALWAYS_KNOWN, ALWAYS_KNOWN);
		EXPECT_GE(st.vmaps + st.attachments, 1) TH_LOG("vivid does not hold plane %d", i);
	}
	ASSERT_EQ(llmem_v4l2_stream_on(self->dev), 0);
	ASSERT_EQ(llmem_v4l2_dequeue(self->dev, TIMEOUT_MS, &frame), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(frame.index, 0);
	EXPECT_EQ(frame.bytesused, f.sizeimage);
	ASSERT_EQ(llmem_v4l2_stream_off(self->dev), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 0), 0);

	/* The driver's own buffers, a DMA-BUF per plane. */
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_MMAP, 2), 2);
	EXPECT_FAILS(llmem_v4l2_export_plane(self->dev, 0, 2, &expfd), -EINVAL);
	ASSERT_EQ(llmem_v4l2_export_plane(self->dev, 1, 1, &expfd), 0);
	EXPECT_EQ(lseek(expfd, 0, SEEK_END), pages_of(f.mem_plane_size[1]));
	close(expfd);

	close(pipefd[0]);
	close(pipefd[1]);
	close(yfd);
	close(cfd);
	close(smallfd);
	llmem_buffer_destroy(y);
	llmem_buffer_destroy(c);
	llmem_buffer_destroy(small);
}

FIXTURE(mplane_camera)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_v4l2_format vf;
	struct llmem_frame_layout rgba;
	uint8_t *ref;
	struct llmem_camera_create_info ci;
};

FIXTURE_VARIANT(mplane_camera)
{
	uint32_t fourcc;
	uint32_t flags;
	uint32_t backend;
};

/* Vulkan's exported pages on 6.12, llmem.ko's on 6.1. */
FIXTURE_VARIANT_ADD(mplane_camera, nv12m_zero_copy){
	.fourcc = V4L2_PIX_FMT_NV12M,
};

/* llmem.ko's pages: the Y planes share a page, the CbCr planes another. */
FIXTURE_VARIANT_ADD(mplane_camera, nv12m_frames_in_one_page){
	.fourcc = V4L2_PIX_FMT_NV12M,
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

FIXTURE_VARIANT_ADD(mplane_camera, nv12m_copy){
	.fourcc = V4L2_PIX_FMT_NV12M,
	.flags = LLMEM_CAMERA_COPY,
};

/* A format of one buffer through the multi-planar API. */
FIXTURE_VARIANT_ADD(mplane_camera, yuyv_zero_copy){
	.fourcc = V4L2_PIX_FMT_YUYV,
};

/* The reference: vivid's static pattern through its own buffers, converted by the CPU. */
FIXTURE_SETUP(mplane_camera)
{
	uint8_t *planes[VIDEO_MAX_PLANES] = { 0 };
	uint32_t sizes[VIDEO_MAX_PLANES];
	struct llmem_v4l2 *dev;
	int n;

	ASSERT_EQ(video_node_named(MPLANE_NODE, self->path, sizeof(self->path)), 0)
	TH_LOG("no %s: the rig loads vivid with n_devs=5 multiplanar=1,1,1,2,1", MPLANE_NODE);
	ASSERT_EQ(vivid_static_pattern(self->path), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_v4l2_open(self->path, &dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(dev, variant->fourcc, 640, 480, &self->vf), 0);
	llmem_v4l2_close(dev);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 640, 480, NULL, &self->rgba), 0);
	n = capture_mmap_mplane(self->path, NBUFS, planes, sizes);
	ASSERT_EQ(n, (int)self->vf.mem_planes) TH_LOG("MMAP capture: %d", n);
	for (int p = 0; p < n; p++)
		ASSERT_EQ(sizes[p], self->vf.mem_plane_size[p]);
	self->ref = malloc(self->rgba.size);
	ASSERT_NE(self->ref, NULL);
	if (variant->fourcc == V4L2_PIX_FMT_YUYV)
		ref_yuyv_to_rgba(planes[0], self->vf.bytesperline, 640, 480, self->vf.encoding,
				 self->vf.range, self->ref, self->rgba.pitch[0]);
	else
		ref_nv12_to_rgba(planes[0], self->vf.plane_pitch[0], planes[1],
				 self->vf.plane_pitch[1], 640, 480, self->vf.encoding,
				 self->vf.range, self->ref, self->rgba.pitch[0]);
	for (int p = 0; p < n; p++)
		free(planes[p]);
	self->ci = (struct llmem_camera_create_info){
		.device = self->path,
		.fourcc = variant->fourcc,
		.width = 640,
		.height = 480,
		.buffers = NBUFS,
		.flags = variant->flags | LLMEM_CAMERA_INPUT,
		.backend = variant->backend,
	};
}

FIXTURE_TEARDOWN(mplane_camera)
{
	free(self->ref);
	VK_TEST_SESSION_END(self->s);
}

/*
 * Every frame converts to the reference picture.  On the zero-copy path
 * each plane of each frame is an llmem buffer of its own, queued as its own
 * DMA-BUF, which vivid holds while queued and lets go of after close; on
 * llmem.ko's pages the frames' planes share pages.  The copy path copies
 * both planes.
 */
TEST_F_TIMEOUT(mplane_camera, frames_match_mmap_capture, 300)
{
	bool copy = variant->flags & LLMEM_CAMERA_COPY;
	int fds[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CAMERA_MAX_BUFFERS];
	struct llmem_camera_info info;
	struct llmem_dmabuf_state st;
	struct llmem_camera *cam;
	struct llmem_buffer *b;
	uint32_t planes;
	int fd;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	planes = info.format.mem_planes;
	EXPECT_EQ(planes, variant->fourcc == V4L2_PIX_FMT_NV12M ? 2 : 1);
	EXPECT_EQ(memcmp(&info.format, &self->vf, sizeof(info.format)), 0);
	EXPECT_EQ(info.layout.fourcc,
		  variant->fourcc == V4L2_PIX_FMT_YUYV ? DRM_FORMAT_YUYV : DRM_FORMAT_NV12);
	if (copy) {
		EXPECT_EQ(info.frames_per_page, 1);
	} else if (variant->backend) {
		EXPECT_EQ(info.frames_per_page, info.buffers);
	} else {
		EXPECT_EQ(info.frames_per_page,
			  info.backend == LLMEM_BACKEND_VULKAN_DMABUF ? 1 : info.buffers);
	}
	TH_LOG("backend %s, %u buffers of %u planes, %u frames a page",
	       llmem_backend_name(info.backend), info.buffers, planes, info.frames_per_page);
	for (uint32_t p = 0; p < planes; p++)
		for (uint32_t i = 0; i < info.buffers; i++)
			ASSERT_EQ(llmem_camera_export_plane(cam, i, p, &fds[p][i]), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_camera_export_plane(cam, 0, planes, &fd), -EINVAL);
	EXPECT_FAILS(llmem_camera_plane_buffer(cam, 0, planes, &b), -EINVAL);
	EXPECT_FAILS(llmem_camera_plane_buffer(cam, info.buffers, 0, &b), -EINVAL);
	EXPECT_FAILS(llmem_camera_plane_buffer(cam, 0, 0, NULL), -EINVAL);
	/* Each plane is a DMA-BUF of its own, of the plane's size in whole pages. */
	for (uint32_t p = 0; !copy && p < planes; p++) {
		struct llmem_allocation a0, a;

		ASSERT_EQ(llmem_camera_plane_buffer(cam, 0, p, &b), 0);
		ASSERT_EQ(llmem_buffer_get_allocation(b, &a0), 0);
		for (uint32_t i = 0; i < info.buffers; i++) {
			ASSERT_EQ(llmem_camera_plane_buffer(cam, i, p, &b), 0);
			ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
			EXPECT_EQ(llmem_buffer_size(b),
				  pages_of(planes > 1 ? self->vf.mem_plane_size[p]
						      : info.layout.size));
			EXPECT_EQ(lseek(fds[p][i], 0, SEEK_END), llmem_buffer_size(b));
			EXPECT_EQ(a.offset % 4096, 0);
			if (info.frames_per_page > 1)
				EXPECT_EQ(a.page, a0.page);
		}
	}
	if (copy)
		EXPECT_FAILS(llmem_camera_plane_buffer(cam, 0, 0, &b), -ENOENT);

	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	for (int n = 0; n < FRAMES; n++) {
		struct llmem_camera_frame f;

		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &f), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(f.corrupted, 0);
		EXPECT_EQ(ref_worst_channel(f.rgba_data, self->ref, &info.rgba_layout) <= 2, 1)
		TH_LOG("frame %d differs from the MMAP capture", n);
		EXPECT_EQ(f.bytes_copied, copy ? self->vf.sizeimage : 0);
		EXPECT_EQ(f.source_chroma != NULL, planes > 1);
		if (!copy && planes > 1) {
			ASSERT_EQ(llmem_camera_plane_buffer(cam, f.index, 1, &b), 0);
			EXPECT_EQ(b, f.source_chroma);
		}
		/* vivid holds every plane of every other buffer. */
		for (uint32_t i = 0; !copy && n == 0 && i < info.buffers; i++)
			for (uint32_t p = 0; i != f.index && p < planes; p++) {
				ASSERT_EQ(llmem_dmabuf_query(fds[p][i], &st), 0);
				ASSERT_EQ(st.known & ALWAYS_KNOWN, ALWAYS_KNOWN);
				EXPECT_GE(st.vmaps + st.attachments, 1)
				TH_LOG("llmem.ko sees no importer on buffer %u plane %u", i, p);
			}
		ASSERT_EQ(llmem_camera_release(cam, &f), 0) TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_camera_stop(cam), 0);
	llmem_camera_close(cam);
	for (uint32_t p = 0; p < planes; p++)
		for (uint32_t i = 0; i < info.buffers; i++) {
			if (!copy) {
				ASSERT_EQ(llmem_dmabuf_query(fds[p][i], &st), 0);
				EXPECT_EQ(st.vmaps + st.attachments, 0);
			}
			close(fds[p][i]);
		}
}

TEST_HARNESS_MAIN
