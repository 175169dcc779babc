// SPDX-License-Identifier: MIT
/*
 * llmem_dmabuf_query() against llmem.ko: a buffer from LLMEM_IOC_ALLOC before
 * and after user-space mappings, vivid's vmap (videobuf2-vmalloc) and vgem's
 * attachment; a foreign buffer (vivid's EXPBUF) with its unknowns, and not
 * left tracked; fds that are not DMA-BUFs or not open.  The host suite's
 * tests/host/dmabuf_state_test.c covers what needs no module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define SIZE (64 * 1024)
#define ALL_KNOWN                                                                              \
	(LLMEM_DMABUF_KNOWN_ATTACHMENTS | LLMEM_DMABUF_KNOWN_DEVICE_MAPS |                     \
	 LLMEM_DMABUF_KNOWN_CPU_MMAPS | LLMEM_DMABUF_KNOWN_VMAPS | LLMEM_DMABUF_KNOWN_FENCES | \
	 LLMEM_DMABUF_KNOWN_MAPPABLE | LLMEM_DMABUF_KNOWN_PINS)
#define FOREIGN_KNOWN \
	(LLMEM_DMABUF_KNOWN_ATTACHMENTS | LLMEM_DMABUF_KNOWN_VMAPS | LLMEM_DMABUF_KNOWN_FENCES)

FIXTURE(query)
{
	int dev;
	int fd;
	struct llmem_dmabuf_state st;
};

FIXTURE_SETUP(query)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
	self->fd = llmem_alloc(self->dev, SIZE);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(query)
{
	close(self->fd);
	close(self->dev);
}

/* A fresh llmem buffer: everything known, nobody holding it, mappable. */
TEST_F(query, fresh)
{
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->st.known, ALL_KNOWN);
	EXPECT_EQ(self->st.flags, LLMEM_DMABUF_EXPORTED_BY_LLMEM | LLMEM_DMABUF_CPU_MAPPABLE);
	EXPECT_EQ(self->st.size, SIZE);
	EXPECT_EQ(self->st.attachments, 0);
	EXPECT_EQ(self->st.device_maps, 0);
	EXPECT_EQ(self->st.device_write_maps, 0);
	EXPECT_EQ(self->st.cpu_mmaps, 0);
	EXPECT_EQ(self->st.vmaps, 0);
	EXPECT_EQ(self->st.fences, 0);
	EXPECT_EQ(self->st.write_fences, 0);
	EXPECT_EQ(self->st.pins, 0);
	EXPECT_STREQ(self->st.exporter, "llmem");
	EXPECT_STREQ(self->st.name, "");
	/* the fd stays the caller's */
	EXPECT_NE(fcntl(self->fd, F_GETFD), -1);
}

/* Each user-space mapping counts until it is unmapped; the name is reported. */
TEST_F(query, mmap_counts)
{
	void *a, *b;

	a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(a, MAP_FAILED);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.cpu_mmaps, 1);
	b = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 4096);
	ASSERT_NE(b, MAP_FAILED);
	ASSERT_EQ(xioctl(self->fd, DMA_BUF_SET_NAME_B, "frames"), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.cpu_mmaps, 2);
	EXPECT_EQ(self->st.vmaps, 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CPU_MAPPABLE, LLMEM_DMABUF_CPU_MAPPABLE);
	EXPECT_STREQ(self->st.name, "frames");

	ASSERT_EQ(munmap(a, SIZE), 0);
	ASSERT_EQ(munmap(b, 4096), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.cpu_mmaps, 0);
}

/* The counts are LLMEM_IOC_INFO's, field by field. */
TEST_F(query, agrees_with_info)
{
	void *a = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, self->fd, 0);
	struct llmem_info info;

	ASSERT_NE(a, MAP_FAILED);
	ASSERT_EQ(llmem_info(self->dev, self->fd, &info, NULL, 0), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	/* The library reports the bits it defines; GUP pins are INFO's alone. */
	EXPECT_EQ(self->st.known, info.known & ALL_KNOWN);
	EXPECT_EQ(info.known & ~ALL_KNOWN, LLMEM_KNOWN_GUP_PINS);
	EXPECT_EQ(self->st.flags, info.state);
	EXPECT_EQ(self->st.size, info.size);
	EXPECT_EQ(self->st.attachments, info.attachments);
	EXPECT_EQ(self->st.device_maps, info.device_maps);
	EXPECT_EQ(self->st.device_write_maps, info.device_write_maps);
	EXPECT_EQ(self->st.cpu_mmaps, info.cpu_mmaps);
	EXPECT_EQ(self->st.vmaps, info.vmaps);
	EXPECT_EQ(self->st.fences, info.fences);
	EXPECT_EQ(self->st.write_fences, info.write_fences);
	EXPECT_EQ(self->st.pins, info.pins);
	EXPECT_STREQ(self->st.exporter, info.exporter);
	EXPECT_STREQ(self->st.name, info.name);
	munmap(a, SIZE);
}

/*
 * vivid (videobuf2-vmalloc) vmaps a buffer queued to it and attaches
 * nothing: one vmap while queued, none once its queue is released.
 */
TEST_F(query, vmap_by_vivid)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_buffer buf = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	int video = open_vivid_capture();
	int fd;

	ASSERT_GE(video, 0) TH_LOG("no vivid capture node: the rig must load vivid");
	ASSERT_EQ(xioctl(video, VIDIOC_G_FMT, &fmt), 0);
	fd = llmem_alloc(self->dev, fmt.fmt.pix.sizeimage);
	ASSERT_GE(fd, 0);
	ASSERT_GE(capture_reqbufs(video, V4L2_MEMORY_DMABUF, 1), 1);
	buf.m.fd = fd;
	buf.length = fmt.fmt.pix.sizeimage;
	ASSERT_EQ(xioctl(video, VIDIOC_QBUF, &buf), 0);

	ASSERT_EQ(llmem_dmabuf_query(fd, &self->st), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->st.known, ALL_KNOWN);
	EXPECT_EQ(self->st.vmaps, 1);
	EXPECT_EQ(self->st.attachments, 0);
	EXPECT_EQ(self->st.device_maps, 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CPU_MAPPABLE, LLMEM_DMABUF_CPU_MAPPABLE);

	ASSERT_EQ(capture_reqbufs(video, V4L2_MEMORY_DMABUF, 0), 0);
	ASSERT_EQ(llmem_dmabuf_query(fd, &self->st), 0);
	EXPECT_EQ(self->st.vmaps, 0);
	EXPECT_EQ(self->st.attachments, 0);
	close(fd);
	close(video);
}

/* vgem attaches and maps for writing: counted, and no longer CPU-mappable. */
TEST_F(query, vgem_attachment)
{
	int vgem = vgem_open();
	uint32_t handle;

	ASSERT_GE(vgem, 0) TH_LOG("vgem is built on both kernels; it must load");
	ASSERT_EQ(vgem_import(vgem, self->fd, &handle), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.attachments, 1);
	EXPECT_EQ(self->st.device_maps, 1);
	EXPECT_EQ(self->st.device_write_maps, 1);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CPU_MAPPABLE, 0);

	ASSERT_EQ(vgem_close(vgem, handle), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.attachments, 0);
	EXPECT_EQ(self->st.device_maps, 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CPU_MAPPABLE, LLMEM_DMABUF_CPU_MAPPABLE);
	close(vgem);
}

/*
 * A buffer exported with pin and unpin, imported by vgem (a static
 * importer): the kernel pins it for vgem, which the query shows, and lets
 * go when vgem does; the pages never move, so the pin alone leaves it
 * mappable once vgem's write mapping is gone.
 */
TEST_F(query, pinned_by_static_importer)
{
	struct llmem_alloc a = { .size = SIZE, .flags = LLMEM_ALLOC_CLOEXEC | LLMEM_ALLOC_DYNAMIC };
	int vgem = vgem_open();
	uint32_t handle;

	ASSERT_GE(vgem, 0) TH_LOG("vgem is built on both kernels; it must load");
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	ASSERT_EQ(llmem_dmabuf_query((int)a.fd, &self->st), 0);
	EXPECT_EQ(self->st.pins, 0);
	ASSERT_EQ(vgem_import(vgem, (int)a.fd, &handle), 0);
	ASSERT_EQ(llmem_dmabuf_query((int)a.fd, &self->st), 0);
	EXPECT_EQ(self->st.known & LLMEM_DMABUF_KNOWN_PINS, LLMEM_DMABUF_KNOWN_PINS);
	EXPECT_EQ(self->st.attachments, 1);
	EXPECT_EQ(self->st.pins, 1);
	ASSERT_EQ(vgem_close(vgem, handle), 0);
	ASSERT_EQ(llmem_dmabuf_query((int)a.fd, &self->st), 0);
	EXPECT_EQ(self->st.pins, 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CPU_MAPPABLE, LLMEM_DMABUF_CPU_MAPPABLE);
	close(vgem);
	close((int)a.fd);
}

/* Contiguous pages are reported as such. */
TEST_F(query, contiguous)
{
	struct llmem_alloc a = {
		.size = SIZE,
		.flags = LLMEM_ALLOC_CLOEXEC | LLMEM_ALLOC_CONTIGUOUS,
	};

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	ASSERT_EQ(llmem_dmabuf_query(a.fd, &self->st), 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CONTIGUOUS, LLMEM_DMABUF_CONTIGUOUS);
	ASSERT_EQ(llmem_dmabuf_query(self->fd, &self->st), 0);
	EXPECT_EQ(self->st.flags & LLMEM_DMABUF_CONTIGUOUS, 0);
	close(a.fd);
}

/*
 * A buffer vivid exports: only what struct dma_buf shows is known, nothing
 * llmem-only is claimed, and the query leaves it untracked.
 */
TEST_F(query, foreign)
{
	struct v4l2_exportbuffer exp = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.flags = O_RDWR | O_CLOEXEC,
	};
	int video = open_vivid_capture();

	ASSERT_GE(video, 0);
	ASSERT_GE(capture_reqbufs(video, V4L2_MEMORY_MMAP, 1), 1);
	ASSERT_EQ(xioctl(video, VIDIOC_EXPBUF, &exp), 0);

	ASSERT_EQ(llmem_dmabuf_query(exp.fd, &self->st), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(self->st.known, FOREIGN_KNOWN);
	EXPECT_EQ(self->st.flags, 0);
	EXPECT_STREQ(self->st.exporter, "videobuf2_vmalloc");
	EXPECT_GT(self->st.size, 0);
	EXPECT_EQ(self->st.attachments, 0);
	EXPECT_EQ(self->st.vmaps, 0);
	EXPECT_EQ(self->st.cpu_mmaps, 0);
	EXPECT_EQ(llmem_table_has("videobuf2_vmalloc"), 0);

	close(exp.fd);
	ASSERT_EQ(capture_reqbufs(video, V4L2_MEMORY_MMAP, 0), 0);
	close(video);
}

/* Open fds that are not DMA-BUFs are -EINVAL, and stay open. */
TEST_F(query, not_dmabuf)
{
	int memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);

	ASSERT_GE(memfd, 0);
	memset(&self->st, 0xa5, sizeof(self->st));
	EXPECT_EQ(llmem_dmabuf_query(memfd, &self->st), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "not a DMA-BUF"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_TRUE(all_zero(&self->st, sizeof(self->st)));
	EXPECT_NE(fcntl(memfd, F_GETFD), -1);
	/* /dev/llmem itself is no DMA-BUF either */
	EXPECT_EQ(llmem_dmabuf_query(self->dev, &self->st), -EINVAL);
	close(memfd);
}

/* A DMA-BUF fd closed before the call is -EBADF; so is -1. */
TEST_F(query, closed_fd)
{
	int fd = llmem_alloc(self->dev, 4096);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(close(fd), 0);
	EXPECT_EQ(llmem_dmabuf_query(fd, &self->st), -EBADF);
	EXPECT_EQ(llmem_dmabuf_query(-1, &self->st), -EBADF);
	EXPECT_EQ(llmem_dmabuf_query(self->fd, NULL), -EINVAL);
}

TEST_HARNESS_MAIN
