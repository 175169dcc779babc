// SPDX-License-Identifier: MIT
/*
 * Real importers of llmem buffers and llmem's view of foreign ones: vgem
 * attaches, maps the attachment and fences it; vivid (videobuf2-vmalloc)
 * captures into llmem pages through vmap; a buffer vivid exports is tracked.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define NBUFS 4
#define WIDTH 640
#define HEIGHT 480

FIXTURE(vgem)
{
	int dev;
	int vgem;
};

FIXTURE_SETUP(vgem)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	self->vgem = vgem_open();
	ASSERT_GE(self->vgem, 0) TH_LOG("vgem is built on both kernels; it must load");
}

FIXTURE_TEARDOWN(vgem)
{
	close(self->vgem);
	close(self->dev);
}

/* vgem's import shows as one attachment, named, mapped for writing. */
TEST_F(vgem, attach_and_map)
{
	struct llmem_importer names[4];
	struct llmem_info info;
	uint32_t handle;
	int fd = llmem_alloc(self->dev, 64 * 1024);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(vgem_import(self->vgem, fd, &handle), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, names, 4), 0);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(names[0].dev_name, "vgem");
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);
	EXPECT_EQ(llmem_table_has(" vgem"), 1);

	ASSERT_EQ(vgem_close(self->vgem, handle), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, names, 4), 0);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.device_write_maps, 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	close(fd);
}

/* Two importers are both counted; names fill only the room given. */
TEST_F(vgem, two_importers_names_truncated)
{
	struct llmem_importer names[2];
	struct llmem_info info;
	uint32_t h1, h2;
	int vgem2 = vgem_open();
	int fd = llmem_alloc(self->dev, 4096);

	ASSERT_GE(vgem2, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(vgem_import(self->vgem, fd, &h1), 0);
	ASSERT_EQ(vgem_import(vgem2, fd, &h2), 0);
	memset(names, 0x7f, sizeof(names));
	ASSERT_EQ(llmem_info(self->dev, fd, &info, names, 1), 0);
	EXPECT_EQ(info.attachments, 2);
	EXPECT_EQ(info.device_maps, 2);
	EXPECT_STREQ(names[0].dev_name, "vgem");
	EXPECT_EQ(names[1].dev_name[0], 0x7f);
	ASSERT_EQ(vgem_close(vgem2, h2), 0);
	close(vgem2);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, names, 2), 0);
	EXPECT_EQ(info.attachments, 1);
	ASSERT_EQ(vgem_close(self->vgem, h1), 0);
	close(fd);
}

/* An unsignalled write fence makes the buffer unmappable until signalled. */
TEST_F(vgem, write_fence)
{
	struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
	struct drm_vgem_fence_signal signal = { 0 };
	struct llmem_info info;
	uint32_t handle;
	int fd = llmem_alloc(self->dev, 4096);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(vgem_import(self->vgem, fd, &handle), 0);
	attach.handle = handle;
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach), 0);
	ASSERT_EQ(vgem_close(self->vgem, handle), 0);

	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.device_write_maps, 0);
	EXPECT_EQ(info.fences, 1);
	EXPECT_EQ(info.write_fences, 1);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);

	signal.fence = attach.out_fence;
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &signal), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.fences, 0);
	EXPECT_EQ(info.write_fences, 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	close(fd);
}

FIXTURE(vivid)
{
	int dev;
	int video;
	int fds[NBUFS];
	void *maps[NBUFS];
	size_t sizeimage;
};

FIXTURE_SETUP(vivid)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	self->video = open_vivid_capture();
	ASSERT_GE(self->video, 0) TH_LOG("no vivid capture node: the rig must load vivid");
	ASSERT_EQ(capture_set_yuyv(self->video, WIDTH, HEIGHT, &self->sizeimage), 0);
	ASSERT_EQ(capture_set_30fps(self->video), 0);
	for (int i = 0; i < NBUFS; i++)
		self->fds[i] = -1;
}

FIXTURE_TEARDOWN(vivid)
{
	for (int i = 0; i < NBUFS; i++) {
		if (self->maps[i])
			munmap(self->maps[i], self->sizeimage);
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	}
	close(self->video);
	close(self->dev);
}

/*
 * Thirty frames land in llmem pages queued as DMABUF, matching the MMAP
 * capture of the same pattern; vivid holds a vmap of each queued buffer and
 * none once the queue is released.
 */
TEST_F_TIMEOUT(vivid, capture_into_llmem, 180)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	size_t half = self->sizeimage / 2;
	struct llmem_info info;
	struct timespec t0, t1;
	struct v4l2_buffer buf;
	uint8_t *ref;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ref = capture_mmap_lower_half(self->video, self->sizeimage, NBUFS);
	ASSERT_NE(ref, NULL);

	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, NBUFS), NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		self->fds[i] = llmem_alloc(self->dev, self->sizeimage);
		ASSERT_GE(self->fds[i], 0);
		self->maps[i] = mmap(NULL, self->sizeimage, PROT_READ, MAP_SHARED, self->fds[i], 0);
		ASSERT_NE(self->maps[i], MAP_FAILED);
		memset(&buf, 0, sizeof(buf));
		buf.type = type;
		buf.memory = V4L2_MEMORY_DMABUF;
		buf.index = i;
		buf.m.fd = self->fds[i];
		buf.length = self->sizeimage;
		ASSERT_EQ(xioctl(self->video, VIDIOC_QBUF, &buf), 0);
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		EXPECT_EQ(info.vmaps, 1);
		EXPECT_EQ(info.attachments, 0);
	}
	ASSERT_EQ(xioctl(self->video, VIDIOC_STREAMON, &type), 0);

	for (int frame = 0; frame < 30; frame++) {
		struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
		const uint8_t *bytes;

		ASSERT_EQ(capture_dqbuf(self->video, &buf, V4L2_MEMORY_DMABUF), 0);
		ASSERT_LT(buf.index, NBUFS);
		ASSERT_EQ(buf.bytesused, self->sizeimage);
		ASSERT_EQ(xioctl(self->fds[buf.index], DMA_BUF_IOCTL_SYNC, &s), 0);
		bytes = self->maps[buf.index];
		EXPECT_EQ(memcmp(bytes + half, ref, half), 0)
		TH_LOG("frame %d differs from the MMAP capture", frame);
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		ASSERT_EQ(xioctl(self->fds[buf.index], DMA_BUF_IOCTL_SYNC, &s), 0);
		buf.m.fd = self->fds[buf.index];
		buf.length = self->sizeimage;
		ASSERT_EQ(xioctl(self->video, VIDIOC_QBUF, &buf), 0);
	}
	for (int i = 0; i < NBUFS; i++) {
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		EXPECT_EQ(info.vmaps, 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("33 frames in %.1f s", t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ASSERT_EQ(xioctl(self->video, VIDIOC_STREAMOFF, &type), 0);
	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, 0), 0);
	for (int i = 0; i < NBUFS; i++) {
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		EXPECT_EQ(info.vmaps, 0);
		EXPECT_EQ(info.cpu_mmaps, 1);
	}
	free(ref);
}

/*
 * A buffer vivid exports is reported by exporter, with its importers, and
 * with what llmem cannot see marked unknown; TRACK lists it in debugfs.
 */
TEST_F(vivid, track_expbuf)
{
	struct v4l2_exportbuffer exp = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.index = 0,
		.flags = O_RDWR | O_CLOEXEC,
	};
	struct llmem_importer names[2];
	struct llmem_track t = { 0 };
	struct llmem_info info;
	uint32_t handle;
	int vgem;

	ASSERT_GE(capture_reqbufs(self->video, V4L2_MEMORY_MMAP, 1), 1);
	ASSERT_EQ(xioctl(self->video, VIDIOC_EXPBUF, &exp), 0);
	self->fds[0] = exp.fd;

	ASSERT_EQ(llmem_info(self->dev, exp.fd, &info, names, 2), 0);
	EXPECT_STREQ(info.exporter, "videobuf2_vmalloc");
	EXPECT_EQ(info.size, (self->sizeimage + 4095) & ~4095UL);
	EXPECT_EQ(info.state, 0);
	EXPECT_EQ(info.known, LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_VMAPS | LLMEM_KNOWN_FENCES);
	EXPECT_EQ(info.attachments, 0);

	vgem = vgem_open();
	ASSERT_GE(vgem, 0);
	ASSERT_EQ(vgem_import(vgem, exp.fd, &handle), 0);
	ASSERT_EQ(llmem_info(self->dev, exp.fd, &info, names, 2), 0);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(names[0].dev_name, "vgem");

	t.fd = exp.fd;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), 0);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), -EINVAL);
	EXPECT_EQ(llmem_table_has("videobuf2_vmalloc"), 1);
	ASSERT_EQ(vgem_close(vgem, handle), 0);
	close(vgem);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_UNTRACK, &t), 0);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_UNTRACK, &t), -ENOENT);
	EXPECT_EQ(llmem_table_has("videobuf2_vmalloc"), 0);

	/* a tracked buffer is let go when the llmem file closes */
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), 0);
	close(self->dev);
	self->dev = -1;
	EXPECT_EQ(llmem_table_has("videobuf2_vmalloc"), 0);
	close(self->fds[0]);
	self->fds[0] = -1;
	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_MMAP, 0), 0);
}

/*
 * A buffer a GPU driver exports (a vgem dumb buffer, exporter "drm") is
 * reported with its unknowns, and vivid's vmap of it while queued is seen.
 */
TEST_F(vivid, foreign_gpu_buffer)
{
	struct drm_mode_create_dumb create = { .width = WIDTH, .height = HEIGHT, .bpp = 16 };
	struct drm_prime_handle prime = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct llmem_info info;
	struct v4l2_buffer buf = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	int vgem = vgem_open();

	ASSERT_GE(vgem, 0);
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create), 0);
	ASSERT_GE(create.size, self->sizeimage);
	prime.handle = create.handle;
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime), 0);
	self->fds[0] = prime.fd;

	ASSERT_EQ(llmem_info(self->dev, prime.fd, &info, NULL, 0), 0);
	EXPECT_STREQ(info.exporter, "drm");
	EXPECT_EQ(info.size, create.size);
	EXPECT_EQ(info.state, 0);
	EXPECT_EQ(info.known, LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_VMAPS | LLMEM_KNOWN_FENCES);
	EXPECT_EQ(info.vmaps, 0);

	ASSERT_GE(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, 1), 1);
	buf.m.fd = prime.fd;
	buf.length = self->sizeimage;
	ASSERT_EQ(xioctl(self->video, VIDIOC_QBUF, &buf), 0);
	ASSERT_EQ(llmem_info(self->dev, prime.fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.vmaps, 1);
	EXPECT_EQ(info.attachments, 0);
	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, 0), 0);
	ASSERT_EQ(llmem_info(self->dev, prime.fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.vmaps, 0);
	close(vgem);
}

TEST_HARNESS_MAIN
