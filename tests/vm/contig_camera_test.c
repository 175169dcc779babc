// SPDX-License-Identifier: MIT
/*
 * A camera that DMAs without an IOMMU: the third vivid instance of the rig
 * (allocators=1, videobuf2-dma-contig) captures 30 frames into llmem memory
 * created with LLMEM_MEMORY_CONTIGUOUS, and every frame matches a capture of
 * the same pattern through V4L2_MEMORY_MMAP.  Built with CONTIG_CAMERA_HEAP
 * (contig_camera_6_12_test.c) it instead shows what that adds: the same
 * capture from the system DMA heap fails at QBUF with EFAULT, then succeeds
 * from llmem contiguous memory.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/llmem.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "capture.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#define NBUFS 4
#define FRAMES 30
/* The rig loads vivid with allocators=0,0,1: instance 2 is dma-contig. */
#define DMA_CONTIG_VIVID 2

static int dmabuf_sync(int fd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return xioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
}

FIXTURE(contig)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_v4l2 *dev;
	struct llmem_v4l2_format vf;
	uint64_t page;
	uint8_t *mmap_frame;
};

FIXTURE_VARIANT(contig)
{
	uint32_t width, height;
};

FIXTURE_VARIANT_ADD(contig, yuyv_640x480){
	.width = 640,
	.height = 480,
};

/* 4147200 bytes: the largest frame one 4 MiB block holds. */
FIXTURE_VARIANT_ADD(contig, yuyv_1920x1080){
	.width = 1920,
	.height = 1080,
};

FIXTURE_SETUP(contig)
{
	ASSERT_EQ(vivid_capture_path(DMA_CONTIG_VIVID, self->path, sizeof(self->path)), 0)
	TH_LOG("the rig loads vivid with n_devs=5 allocators=0,0,1,0,0");
	ASSERT_EQ(vivid_static_pattern(self->path), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_v4l2_open(self->path, &self->dev), 0);
	/* The webcam input offers 1920x1080. */
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, variant->width,
					variant->height, &self->vf),
		  0)
	TH_LOG("%s", llmem_last_error());
	self->page = (self->vf.sizeimage + 4095) / 4096 * 4096;
	ASSERT_EQ(capture_mmap_frame(self->dev, self->vf.sizeimage, NBUFS, &self->mmap_frame), 0);
}

FIXTURE_TEARDOWN(contig)
{
	llmem_v4l2_close(self->dev);
	free(self->mmap_frame);
	VK_TEST_SESSION_END(self->s);
}

/*
 * 30 frames into contiguous llmem pages, each identical to the MMAP frame;
 * llmem.ko reports the pages contiguous and attached while queued.
 */
static void capture_contiguous(struct __test_metadata *_metadata, FIXTURE_DATA(contig) * self)
{
	struct llmem_memory_create_info ci = {
		.options = LLMEM_MEMORY_CONTIGUOUS,
		.page_size = self->page,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.name = "contiguous frames",
	};
	struct llmem_buffer *frames[NBUFS];
	struct llmem_memory *shared;
	struct llmem_memory_info mi;
	struct llmem_info info = { 0 };
	uint8_t *maps[NBUFS];
	int fds[NBUFS], dev;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &shared), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(shared, &mi), 0);
	EXPECT_EQ(mi.options & LLMEM_MEMORY_CONTIGUOUS, LLMEM_MEMORY_CONTIGUOUS);
	EXPECT_TRUE(mi.backend == LLMEM_BACKEND_LLMEM_DMABUF ||
		    mi.backend == LLMEM_BACKEND_LLMEM_HOST_POINTER)
	TH_LOG("backend %s", llmem_backend_name(mi.backend));

	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, NBUFS), NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		struct llmem_dmabuf_region r;

		ASSERT_EQ(llmem_buffer_create(
				  shared, &(struct llmem_buffer_create_info){ .size = self->page },
				  &frames[i]),
			  0);
		ASSERT_EQ(llmem_buffer_export(frames[i], &r), 0);
		ASSERT_EQ(r.offset, 0);
		fds[i] = r.fd;
		maps[i] = mmap(NULL, self->vf.sizeimage, PROT_READ, MAP_SHARED, fds[i], 0);
		ASSERT_NE(maps[i], MAP_FAILED);
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, i, fds[i], (uint32_t)self->page), 0)
		TH_LOG("%s", llmem_last_error());
	}

	dev = open("/dev/llmem", O_RDWR | O_CLOEXEC);
	ASSERT_GE(dev, 0);
	info.fd = (__u32)fds[0];
	ASSERT_EQ(xioctl(dev, LLMEM_IOC_INFO, &info), 0);
	EXPECT_EQ(info.state & LLMEM_STATE_CONTIGUOUS, LLMEM_STATE_CONTIGUOUS);
	EXPECT_EQ(info.attachments, 1);

	ASSERT_EQ(llmem_v4l2_stream_on(self->dev), 0);
	for (int n = 0; n < FRAMES; n++) {
		struct llmem_v4l2_frame frame;

		ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 10000, &frame), 0);
		ASSERT_EQ(frame.bytesused, self->vf.sizeimage);
		ASSERT_EQ(dmabuf_sync(fds[frame.index], DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ), 0);
		EXPECT_EQ(memcmp(maps[frame.index], self->mmap_frame, self->vf.sizeimage), 0)
		TH_LOG("frame %d differs from the MMAP capture", n);
		ASSERT_EQ(dmabuf_sync(fds[frame.index], DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ), 0);
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, frame.index, fds[frame.index],
						  (uint32_t)self->page),
			  0);
	}
	ASSERT_EQ(llmem_v4l2_stream_off(self->dev), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 0), 0);
	ASSERT_EQ(xioctl(dev, LLMEM_IOC_INFO, &info), 0);
	EXPECT_EQ(info.attachments, 0);
	close(dev);

	for (int i = 0; i < NBUFS; i++) {
		munmap(maps[i], self->vf.sizeimage);
		close(fds[i]);
		llmem_buffer_destroy(frames[i]);
	}
	EXPECT_EQ(llmem_memory_destroy(shared), 0);
}

#ifndef CONTIG_CAMERA_HEAP

/* vivid on dma-contig captures 30 frames into llmem contiguous memory (slow at 1080p). */
TEST_F_TIMEOUT(contig, capture_matches_mmap, 180)
{
	capture_contiguous(_metadata, self);
}

#else

/*
 * The system heap's scattered pages fail at QBUF with EFAULT, and the error
 * names the cure; llmem contiguous memory then captures the same frames.
 */
TEST_F_TIMEOUT(contig, system_heap_efault_llmem_captures, 180)
{
	struct dma_heap_allocation_data a = {
		.len = self->page,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);

	ASSERT_GE(heap, 0) TH_LOG("6.12 builds the system heap in");
	ASSERT_EQ(xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	close(heap);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, NBUFS), NBUFS);
	ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, 0, (int)a.fd, (uint32_t)self->page), -EFAULT);
	EXPECT_NE(strstr(llmem_last_error(), "LLMEM_MEMORY_CONTIGUOUS"), NULL)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 0), 0);
	close((int)a.fd);

	capture_contiguous(_metadata, self);
}

#endif

TEST_HARNESS_MAIN
