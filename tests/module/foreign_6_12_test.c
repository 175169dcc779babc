// SPDX-License-Identifier: MIT
/*
 * Foreign DMA-BUFs from exporters only 6.12 has (the system DMA heap and
 * udmabuf): llmem reports their exporter, size and importers, marks what it
 * cannot see as unknown, lists them in debugfs once tracked, and refuses to
 * export a range of them.  Suite 'vm-6.12': run only on kernels that have
 * both.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define SIZE (1024 * 1024)

static int heap_alloc(void)
{
	struct dma_heap_allocation_data d = {
		.len = SIZE,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	int ret;

	if (heap < 0)
		return -errno;
	ret = xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &d);
	close(heap);
	return ret ? ret : (int)d.fd;
}

static int udmabuf_alloc(void)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = SIZE };
	int dev, memfd, ret;

	memfd = memfd_create("llmem-test", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (memfd < 0)
		return -errno;
	if (ftruncate(memfd, SIZE) || fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(memfd);
		return -errno;
	}
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		ret = -errno;
		close(memfd);
		return ret;
	}
	c.memfd = memfd;
	ret = xioctl(dev, UDMABUF_CREATE, &c);
	close(dev);
	close(memfd);
	return ret;
}

FIXTURE(foreign)
{
	int dev;
	int vgem;
	int buf;
};

FIXTURE_VARIANT(foreign)
{
	int (*alloc)(void);
	const char *exporter;
};

FIXTURE_VARIANT_ADD(foreign, system_heap){
	.alloc = heap_alloc,
	.exporter = "system",
};

FIXTURE_VARIANT_ADD(foreign, udmabuf){
	.alloc = udmabuf_alloc,
	.exporter = "udmabuf",
};

FIXTURE_SETUP(foreign)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	self->vgem = vgem_open();
	ASSERT_GE(self->vgem, 0);
	self->buf = variant->alloc();
	ASSERT_GE(self->buf, 0) TH_LOG("%s: %s", variant->exporter, strerror(-self->buf));
}

FIXTURE_TEARDOWN(foreign)
{
	close(self->buf);
	close(self->vgem);
	close(self->dev);
}

/* Exporter, size and importers are reported; the rest is unknown. */
TEST_F(foreign, info_reports_exporter_and_importers)
{
	struct llmem_importer names[2];
	struct llmem_info info;
	uint32_t handle;

	ASSERT_EQ(llmem_info(self->dev, self->buf, &info, names, 2), 0);
	EXPECT_STREQ(info.exporter, variant->exporter);
	EXPECT_EQ(info.size, SIZE);
	EXPECT_EQ(info.state, 0);
	EXPECT_EQ(info.known, LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_VMAPS | LLMEM_KNOWN_FENCES);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.cpu_mmaps, 0);

	ASSERT_EQ(vgem_import(self->vgem, self->buf, &handle), 0);
	ASSERT_EQ(llmem_info(self->dev, self->buf, &info, names, 2), 0);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(names[0].dev_name, "vgem");
	ASSERT_EQ(vgem_close(self->vgem, handle), 0);
	ASSERT_EQ(llmem_info(self->dev, self->buf, &info, names, 2), 0);
	EXPECT_EQ(info.attachments, 0);
}

/* LLMEM_IOC_EXPORT_RANGE refuses a buffer another driver exported. */
TEST_F(foreign, export_range_refused)
{
	struct llmem_export_range r = {
		.fd = self->buf,
		.flags = LLMEM_EXPORT_RANGE_CLOEXEC,
		.size = 4096,
	};

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
	ASSERT_EQ(r.out_fd, 0);
}

/* TRACK lists the buffer in debugfs until UNTRACK. */
TEST_F(foreign, track_untrack)
{
	struct llmem_track t = { .fd = self->buf };
	char needle[64];

	snprintf(needle, sizeof(needle), "%-12s %12d", variant->exporter, SIZE);
	EXPECT_EQ(llmem_table_has(needle), 0);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), 0);
	EXPECT_EQ(llmem_table_has(needle), 1);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_UNTRACK, &t), 0);
	EXPECT_EQ(llmem_table_has(needle), 0);
}

TEST_HARNESS_MAIN
