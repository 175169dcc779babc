// SPDX-License-Identifier: MIT
/*
 * The pages behind llmem buffers: taken in blocks of 1 MiB, 64 KiB and 4 KiB
 * (every size here needs all three), zeroed, counted page by page, and mapped
 * as ordinary pages that get_user_pages() takes: process_vm_readv() and
 * process_vm_writev() pin them, vmsplice() references them, as O_DIRECT and
 * RDMA registration would.  A VM_PFNMAP mapping (remap_pfn_range) fails all
 * of these with EFAULT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define PAGE 4096UL
#define MiB (1024UL * 1024UL)
/* One block of each order and some: 1 MiB + 2 x 64 KiB + 3 pages. */
#define MIXED_SIZE (MiB + 128 * 1024 + 3 * PAGE)

FIXTURE(pages)
{
	int dev;
};

FIXTURE_SETUP(pages)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
}

FIXTURE_TEARDOWN(pages)
{
	close(self->dev);
}

static void fill(uint8_t *p, size_t size, uint8_t seed)
{
	for (size_t i = 0; i < size; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 12));
}

static void *map(int fd, size_t size)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

/* Every size live_pages sees is the buffer's page count, exactly. */
TEST_F(pages, live_pages_exact)
{
	static const size_t sizes[] = { PAGE, 17 * PAGE, MIXED_SIZE, 4 * MiB + PAGE };
	long before = llmem_live_pages();

	ASSERT_GE(before, 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int fd = llmem_alloc(self->dev, sizes[i]);

		ASSERT_GE(fd, 0);
		EXPECT_EQ(llmem_live_pages() - before, (long)(sizes[i] / PAGE))
		TH_LOG("%zu bytes", sizes[i]);
		close(fd);
		EXPECT_EQ(llmem_live_pages(), before);
	}
}

/* Every page of a buffer of all three orders reads zero, then keeps data. */
TEST_F(pages, mixed_orders_zeroed)
{
	uint8_t *p, *ref = malloc(MIXED_SIZE);
	uint64_t acc = 0;
	int fd;

	ASSERT_NE(ref, NULL);
	fd = llmem_alloc(self->dev, MIXED_SIZE);
	ASSERT_GE(fd, 0);
	p = map(fd, MIXED_SIZE);
	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < MIXED_SIZE; i++)
		acc |= p[i];
	EXPECT_EQ(acc, 0);
	fill(ref, MIXED_SIZE, 3);
	memcpy(p, ref, MIXED_SIZE);
	munmap(p, MIXED_SIZE);
	p = map(fd, MIXED_SIZE);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(memcmp(p, ref, MIXED_SIZE), 0);
	munmap(p, MIXED_SIZE);
	close(fd);
	free(ref);
}

/* process_vm_readv() and process_vm_writev() pin the mapping's pages. */
TEST_F(pages, pinned_by_process_vm)
{
	uint8_t *p, *q, *ref = malloc(MIXED_SIZE), *got = malloc(MIXED_SIZE);
	struct iovec local, remote;
	int fd;

	ASSERT_NE(ref, NULL);
	ASSERT_NE(got, NULL);
	fd = llmem_alloc(self->dev, MIXED_SIZE);
	ASSERT_GE(fd, 0);
	p = map(fd, MIXED_SIZE);
	ASSERT_NE(p, MAP_FAILED);

	fill(p, MIXED_SIZE, 11);
	memcpy(ref, p, MIXED_SIZE);
	local = (struct iovec){ got, MIXED_SIZE };
	remote = (struct iovec){ p, MIXED_SIZE };
	ASSERT_EQ(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), (ssize_t)MIXED_SIZE)
	TH_LOG("process_vm_readv from the mapping: %s", strerror(errno));
	EXPECT_EQ(memcmp(got, ref, MIXED_SIZE), 0);

	fill(ref, MIXED_SIZE, 29);
	local = (struct iovec){ ref, MIXED_SIZE };
	ASSERT_EQ(process_vm_writev(getpid(), &local, 1, &remote, 1, 0), (ssize_t)MIXED_SIZE)
	TH_LOG("process_vm_writev into the mapping: %s", strerror(errno));
	/* A second mapping sees the pages the first one's pin wrote. */
	q = map(fd, MIXED_SIZE);
	ASSERT_NE(q, MAP_FAILED);
	EXPECT_EQ(memcmp(q, ref, MIXED_SIZE), 0);

	munmap(q, MIXED_SIZE);
	munmap(p, MIXED_SIZE);
	close(fd);
	free(got);
	free(ref);
}

/* vmsplice() takes references on the mapping's pages into a pipe. */
TEST_F(pages, vmspliced)
{
	size_t chunk = 16 * PAGE, size = 4 * MiB;
	uint8_t *p, *got = malloc(chunk);
	int pipes[2], fd;

	ASSERT_NE(got, NULL);
	ASSERT_EQ(pipe2(pipes, O_CLOEXEC), 0);
	fd = llmem_alloc(self->dev, size);
	ASSERT_GE(fd, 0);
	p = map(fd, size);
	ASSERT_NE(p, MAP_FAILED);
	fill(p, size, 5);

	/* Across the first 1 MiB block's end, into the next. */
	for (size_t off = MiB - chunk / 2; off < MiB + 4 * chunk; off += chunk) {
		struct iovec iov = { p + off, chunk };

		ASSERT_EQ(vmsplice(pipes[1], &iov, 1, 0), (ssize_t)chunk)
		TH_LOG("vmsplice at %zu: %s", off, strerror(errno));
		ASSERT_EQ(read(pipes[0], got, chunk), (ssize_t)chunk);
		EXPECT_EQ(memcmp(got, p + off, chunk), 0) TH_LOG("at %zu", off);
	}

	munmap(p, size);
	close(fd);
	close(pipes[0]);
	close(pipes[1]);
	free(got);
}

/*
 * A range that starts and ends inside blocks maps exactly its own pages, and
 * those pin like the parent's.
 */
TEST_F(pages, range_across_blocks)
{
	size_t size = 2 * MiB, off = MiB - 3 * PAGE, len = 7 * PAGE;
	uint8_t *p, *r, *got = malloc(len);
	struct iovec local = { got, len }, remote;
	long before = llmem_live_pages();
	int fd, rfd;

	ASSERT_NE(got, NULL);
	fd = llmem_alloc(self->dev, size);
	ASSERT_GE(fd, 0);
	rfd = llmem_range_export(self->dev, fd, off, len);
	ASSERT_GE(rfd, 0) TH_LOG("EXPORT_RANGE: %s", strerror(-rfd));
	EXPECT_EQ(llmem_live_pages() - before, (long)(size / PAGE));
	p = map(fd, size);
	ASSERT_NE(p, MAP_FAILED);
	r = map(rfd, len);
	ASSERT_NE(r, MAP_FAILED);

	fill(p, size, 17);
	EXPECT_EQ(memcmp(r, p + off, len), 0);
	remote = (struct iovec){ r, len };
	ASSERT_EQ(process_vm_readv(getpid(), &local, 1, &remote, 1, 0), (ssize_t)len)
	TH_LOG("process_vm_readv from the range: %s", strerror(errno));
	EXPECT_EQ(memcmp(got, p + off, len), 0);

	munmap(r, len);
	munmap(p, size);
	close(rfd);
	close(fd);
	EXPECT_EQ(llmem_live_pages(), before);
	free(got);
}

TEST_HARNESS_MAIN
