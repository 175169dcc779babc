// SPDX-License-Identifier: MIT
/*
 * LLMEM_ALLOC_CONTIGUOUS: physically contiguous buffers up to the kernel's
 * largest block (4 MiB on Debian's x86 kernels), -E2BIG past it, -ENOMEM at
 * once when no block can be had, and the tracker's contiguous state bit.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define PAGE 4096UL
#define MiB (1024UL * 1024UL)
#define LARGEST_BLOCK (4 * MiB)
#define MAX_BUFS 4096

/* ALLOC with LLMEM_ALLOC_CONTIGUOUS; the fd or -errno. */
static int contig_alloc(int dev, uint64_t size)
{
	struct llmem_alloc a = {
		.size = size,
		.flags = LLMEM_ALLOC_CLOEXEC | LLMEM_ALLOC_CONTIGUOUS,
	};
	int ret = xioctl(dev, LLMEM_IOC_ALLOC, &a);

	return ret < 0 ? ret : (int)a.fd;
}

/* Whether the kernel log has a line containing @needle. */
static int klog_has(const char *needle)
{
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf;
	int n, found;

	if (len <= 0)
		return -errno;
	buf = calloc(1, (size_t)len + 1);
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	found = n > 0 && strstr(buf, needle) != NULL;
	free(buf);
	return found;
}

FIXTURE(contig)
{
	int dev;
};

FIXTURE_SETUP(contig)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
}

FIXTURE_TEARDOWN(contig)
{
	close(self->dev);
}

/* A contiguous buffer is zeroed, mmappable and reported contiguous. */
TEST_F(contig, alloc_info_mmap)
{
	struct llmem_info info;
	uint8_t *p;
	int fd = contig_alloc(self->dev, 614400);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, 614400);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE | LLMEM_STATE_CONTIGUOUS);
	p = mmap(NULL, 614400, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < 614400; i++)
		if (p[i]) {
			EXPECT_EQ(p[i], 0) TH_LOG("byte %zu not zeroed", i);
			break;
		}
	memset(p, 0xa5, 614400);
	EXPECT_EQ(p[614399], 0xa5);
	munmap(p, 614400);
	close(fd);
}

/* A buffer allocated without the flag is not reported contiguous. */
TEST_F(contig, plain_not_contiguous)
{
	struct llmem_info info;
	int fd = llmem_alloc(self->dev, MiB);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.state & LLMEM_STATE_CONTIGUOUS, 0);
	close(fd);
}

/* The largest block fits; one page more is -E2BIG, as is a huge size. */
TEST_F(contig, largest_block)
{
	int fd = contig_alloc(self->dev, LARGEST_BLOCK);

	ASSERT_GE(fd, 0);
	close(fd);
	EXPECT_EQ(contig_alloc(self->dev, LARGEST_BLOCK + 1), -E2BIG);
	EXPECT_EQ(contig_alloc(self->dev, LARGEST_BLOCK + PAGE), -E2BIG);
	EXPECT_EQ(contig_alloc(self->dev, 1ULL << 40), -E2BIG);
}

/* vgem attaches and maps a contiguous buffer like any other. */
TEST_F(contig, vgem_import)
{
	struct llmem_info info;
	uint32_t handle;
	int vgem = vgem_open(), fd;

	ASSERT_GE(vgem, 0) TH_LOG("vgem: %s", strerror(-vgem));
	fd = contig_alloc(self->dev, 2 * MiB);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(vgem_import(vgem, fd, &handle), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_EQ(info.device_maps, 1);
	ASSERT_EQ(vgem_close(vgem, handle), 0);
	close(fd);
	close(vgem);
}

/* debugfs lists the buffer with "yes" under contig (then dynamic, pins, pinned). */
TEST_F(contig, debugfs_column)
{
	const char *name = "llmem-contig-test";
	int fd = contig_alloc(self->dev, MiB);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(xioctl(fd, DMA_BUF_SET_NAME_B, (void *)name), 0);
	EXPECT_EQ(llmem_table_has("    yes    yes      no    0     no - llmem-contig-test"), 1);
	close(fd);
}

/*
 * Largest blocks until ALLOC fails, which must be -ENOMEM at once (the cap
 * or fragmentation, never the OOM killer nor an allocation-failure splat);
 * freeing them all brings the live pages back.
 */
TEST_F(contig, until_failure)
{
	static int fds[MAX_BUFS];
	long before = llmem_live_pages();
	int n = 0, ret;

	ASSERT_GE(before, 0);
	while (n < MAX_BUFS) {
		ret = contig_alloc(self->dev, LARGEST_BLOCK);
		if (ret < 0)
			break;
		fds[n++] = ret;
	}
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_GT(n, 0);
	TH_LOG("%d buffers of 4 MiB before -ENOMEM", n);
	EXPECT_EQ(llmem_live_pages(), before + (long)n * (LARGEST_BLOCK / PAGE));
	while (n)
		close(fds[--n]);
	EXPECT_EQ(llmem_live_pages(), before);
	EXPECT_EQ(klog_has("page allocation failure"), 0);
}

TEST_HARNESS_MAIN
