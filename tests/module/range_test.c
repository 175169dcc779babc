// SPDX-License-Identifier: MIT
/*
 * LLMEM_IOC_EXPORT_RANGE: a page range of an llmem buffer exported as a
 * DMA-BUF of its own over the same pages.  What a range sees and shares with
 * its parent, how long the pages live, what INFO and debugfs say of it, every
 * validation failure, and vivid capturing four frames into four ranges of one
 * buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "llmem_test.h"
#include "pattern.h"

#define PAGE 4096UL
#define PARENT_PAGES 16
#define PARENT_SIZE (PARENT_PAGES * PAGE)

/* The command with the size field set to what the caller passed. */
#define RANGE_SIZED(n) _IOC(_IOC_READ | _IOC_WRITE, 'L', 0x4, (n))

static void *map_shared(int fd, size_t size, off_t offset)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
}

/* Lines of debugfs's buffer table that are llmem buffers, or -errno. */
static int llmem_table_buffers(void)
{
	FILE *f = fopen(LLMEM_BUFFERS, "re");
	char line[512];
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "llmem ", 6) == 0;
	fclose(f);
	return n;
}

/* The lowest fd number free now: what the next fd would get. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

FIXTURE(range)
{
	int dev;
	int parent;
	uint8_t *pmap;
};

FIXTURE_SETUP(range)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
	self->parent = llmem_alloc(self->dev, PARENT_SIZE);
	ASSERT_GE(self->parent, 0);
	self->pmap = map_shared(self->parent, PARENT_SIZE, 0);
	ASSERT_NE(self->pmap, MAP_FAILED);
}

FIXTURE_TEARDOWN(range)
{
	munmap(self->pmap, PARENT_SIZE);
	close(self->parent);
	close(self->dev);
}

/* A range is an llmem buffer of its own size, close-on-exec, read-write, untouched. */
TEST_F(range, info_of_fresh_range)
{
	struct llmem_info info;
	int fd = llmem_range_export(self->dev, self->parent, 4 * PAGE, 8 * PAGE);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ASSERT_EQ(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, 8 * PAGE);
	EXPECT_STREQ(info.exporter, "llmem");
	EXPECT_STREQ(info.name, "");
	EXPECT_EQ(info.known, LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_DEVICE_MAPS |
				      LLMEM_KNOWN_CPU_MMAPS | LLMEM_KNOWN_VMAPS |
				      LLMEM_KNOWN_FENCES | LLMEM_KNOWN_MAPPABLE | LLMEM_KNOWN_PINS |
				      LLMEM_KNOWN_GUP_PINS);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.cpu_mmaps, 0);
	EXPECT_EQ(info.vmaps, 0);
	EXPECT_EQ(info.fences, 0);
	close(fd);
}

/* Without LLMEM_EXPORT_RANGE_CLOEXEC the fd survives exec. */
TEST_F(range, no_cloexec)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), 0);
	ASSERT_EQ(fcntl(r.out_fd, F_GETFD) & FD_CLOEXEC, 0);
	close(r.out_fd);
}

/* A range of a fresh buffer reads zeros. */
TEST_F(range, fresh_reads_zero)
{
	uint8_t *p;
	int fd = llmem_range_export(self->dev, self->parent, 4 * PAGE, 8 * PAGE);

	ASSERT_GE(fd, 0);
	p = map_shared(fd, 8 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_TRUE(all_zero(p, 8 * PAGE));
	munmap(p, 8 * PAGE);
	close(fd);
}

/* Bytes written through the parent's mapping show at the range's offset 0. */
TEST_F(range, sees_parent_writes)
{
	uint8_t *p;
	int fd;

	test_pattern(self->pmap, PARENT_SIZE, 1);
	fd = llmem_range_export(self->dev, self->parent, 5 * PAGE, 3 * PAGE);
	ASSERT_GE(fd, 0);
	p = map_shared(fd, 3 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(memcmp(p, self->pmap + 5 * PAGE, 3 * PAGE), 0);
	self->pmap[6 * PAGE] ^= 0xff;
	EXPECT_EQ(p[PAGE], self->pmap[6 * PAGE]);
	munmap(p, 3 * PAGE);
	close(fd);
}

/* Bytes written through the range's mapping show in the parent, there and nowhere else. */
TEST_F(range, parent_sees_range_writes)
{
	uint8_t *p;
	int fd = llmem_range_export(self->dev, self->parent, 2 * PAGE, 4 * PAGE);

	ASSERT_GE(fd, 0);
	p = map_shared(fd, 4 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	test_pattern(p, 4 * PAGE, 2);
	EXPECT_EQ(memcmp(self->pmap + 2 * PAGE, p, 4 * PAGE), 0);
	EXPECT_TRUE(all_zero(self->pmap, 2 * PAGE));
	EXPECT_TRUE(all_zero(self->pmap + 6 * PAGE, PARENT_SIZE - 6 * PAGE));
	munmap(p, 4 * PAGE);
	close(fd);
}

/* mmap at an offset maps the range's pages from there; its end bounds the mapping. */
TEST_F(range, mmap_at_offset)
{
	uint8_t *p;
	int fd;

	test_pattern(self->pmap, PARENT_SIZE, 3);
	fd = llmem_range_export(self->dev, self->parent, 8 * PAGE, 8 * PAGE);
	ASSERT_GE(fd, 0);
	p = map_shared(fd, 2 * PAGE, 3 * PAGE);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(memcmp(p, self->pmap + 11 * PAGE, 2 * PAGE), 0);
	munmap(p, 2 * PAGE);

	ASSERT_EQ(map_shared(fd, 8 * PAGE, PAGE), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(map_shared(fd, 9 * PAGE, 0), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
}

/*
 * Four ranges tile one buffer and a fifth overlaps two of them: each sees its
 * own slice, the overlap sees both neighbours' writes, and none takes pages.
 */
TEST_F(range, several_ranges)
{
	long before = llmem_live_pages();
	uint8_t *maps[5];
	int fds[5];

	ASSERT_GE(before, 0);
	for (int i = 0; i < 4; i++)
		fds[i] = llmem_range_export(self->dev, self->parent, i * 4 * PAGE, 4 * PAGE);
	fds[4] = llmem_range_export(self->dev, self->parent, 2 * PAGE, 4 * PAGE);
	for (int i = 0; i < 5; i++) {
		ASSERT_GE(fds[i], 0);
		maps[i] = map_shared(fds[i], 4 * PAGE, 0);
		ASSERT_NE(maps[i], MAP_FAILED);
	}
	EXPECT_EQ(llmem_live_pages(), before);

	for (int i = 0; i < 4; i++)
		memset(maps[i], 0x10 + i, 4 * PAGE);
	for (int i = 0; i < 4; i++)
		for (size_t b = 0; b < 4 * PAGE; b += PAGE / 2)
			ASSERT_EQ(self->pmap[i * 4 * PAGE + b], 0x10 + i);
	EXPECT_EQ(maps[4][0], 0x10);
	EXPECT_EQ(maps[4][2 * PAGE - 1], 0x10);
	EXPECT_EQ(maps[4][2 * PAGE], 0x11);
	EXPECT_EQ(maps[4][4 * PAGE - 1], 0x11);

	for (int i = 0; i < 5; i++) {
		munmap(maps[i], 4 * PAGE);
		close(fds[i]);
	}
	EXPECT_EQ(llmem_live_pages(), before);
}

/* The whole buffer is a range too, and the last page alone. */
TEST_F(range, whole_and_last_page)
{
	struct llmem_info info;
	int whole = llmem_range_export(self->dev, self->parent, 0, PARENT_SIZE);
	int last = llmem_range_export(self->dev, self->parent, PARENT_SIZE - PAGE, PAGE);

	ASSERT_GE(whole, 0);
	ASSERT_GE(last, 0);
	ASSERT_EQ(llmem_info(self->dev, whole, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, PARENT_SIZE);
	ASSERT_EQ(llmem_info(self->dev, last, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, PAGE);
	close(whole);
	close(last);
}

/*
 * With the parent's fd and mapping gone, ranges keep reading and writing the
 * same pages; the pages are freed with the last range.
 */
TEST_F(range, parent_closed_first)
{
	long before = llmem_live_pages();
	uint8_t *parent_map, *a_map, *b_map, expect[8 * PAGE];
	struct llmem_info info;
	int parent, a, b;

	ASSERT_GE(before, 0);
	parent = llmem_alloc(self->dev, 8 * PAGE);
	ASSERT_GE(parent, 0);
	parent_map = map_shared(parent, 8 * PAGE, 0);
	ASSERT_NE(parent_map, MAP_FAILED);
	test_pattern(parent_map, 8 * PAGE, 4);
	memcpy(expect, parent_map, sizeof(expect));
	a = llmem_range_export(self->dev, parent, 0, 4 * PAGE);
	b = llmem_range_export(self->dev, parent, 4 * PAGE, 4 * PAGE);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	munmap(parent_map, 8 * PAGE);
	close(parent);
	EXPECT_EQ(llmem_live_pages(), before + 8);

	a_map = map_shared(a, 4 * PAGE, 0);
	b_map = map_shared(b, 4 * PAGE, 0);
	ASSERT_NE(a_map, MAP_FAILED);
	ASSERT_NE(b_map, MAP_FAILED);
	EXPECT_EQ(memcmp(a_map, expect, 4 * PAGE), 0);
	EXPECT_EQ(memcmp(b_map, expect + 4 * PAGE, 4 * PAGE), 0);
	ASSERT_EQ(llmem_info(self->dev, a, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, 4 * PAGE);
	EXPECT_EQ(info.cpu_mmaps, 1);

	munmap(a_map, 4 * PAGE);
	close(a);
	EXPECT_EQ(llmem_live_pages(), before + 8);
	close(b);
	b_map[0] = 1;
	EXPECT_EQ(llmem_live_pages(), before + 8);
	munmap(b_map, 4 * PAGE);
	EXPECT_EQ(llmem_live_pages(), before);
}

/* A range of a range starts at the sum of the offsets, ends within the middle one, outlives it. */
TEST_F(range, range_of_range)
{
	struct llmem_info info;
	uint8_t *p;
	int mid, inner;

	test_pattern(self->pmap, PARENT_SIZE, 5);
	mid = llmem_range_export(self->dev, self->parent, 4 * PAGE, 8 * PAGE);
	ASSERT_GE(mid, 0);
	inner = llmem_range_export(self->dev, mid, 2 * PAGE, 4 * PAGE);
	ASSERT_GE(inner, 0);
	EXPECT_EQ(llmem_range_export(self->dev, mid, 6 * PAGE, 4 * PAGE), -EINVAL);
	close(mid);

	p = map_shared(inner, 4 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	EXPECT_EQ(memcmp(p, self->pmap + 6 * PAGE, 4 * PAGE), 0);
	ASSERT_EQ(llmem_info(self->dev, inner, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, 4 * PAGE);
	munmap(p, 4 * PAGE);
	close(inner);
}

/* A range of a contiguous buffer is contiguous; a range of a scattered one is not. */
TEST_F(range, contiguous_flag)
{
	struct llmem_alloc a = {
		.size = 8 * PAGE,
		.flags = LLMEM_ALLOC_CLOEXEC | LLMEM_ALLOC_CONTIGUOUS,
	};
	struct llmem_info info;
	int fd;

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	fd = llmem_range_export(self->dev, a.fd, 2 * PAGE, 4 * PAGE);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE | LLMEM_STATE_CONTIGUOUS);
	close(fd);
	close(a.fd);

	fd = llmem_range_export(self->dev, self->parent, 2 * PAGE, 4 * PAGE);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.state & LLMEM_STATE_CONTIGUOUS, 0);
	close(fd);
}

/*
 * INFO counts a range's own mappings and importers, and its parent's its own;
 * mappability is the pages': a device writing the range's pages makes the
 * parent unmappable too.
 */
TEST_F(range, own_counts)
{
	struct llmem_importer names[2];
	struct llmem_info info;
	uint32_t handle;
	uint8_t *p;
	int vgem = vgem_open();
	int fd = llmem_range_export(self->dev, self->parent, 0, 4 * PAGE);

	ASSERT_GE(vgem, 0);
	ASSERT_GE(fd, 0);
	p = map_shared(fd, 4 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(vgem_import(vgem, fd, &handle), 0);

	ASSERT_EQ(llmem_info(self->dev, fd, &info, names, 2), 0);
	EXPECT_EQ(info.cpu_mmaps, 1);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(names[0].dev_name, "vgem");
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, names, 2), 0);
	EXPECT_EQ(info.cpu_mmaps, 1);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.device_write_maps, 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);

	ASSERT_EQ(vgem_close(vgem, handle), 0);
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	munmap(p, 4 * PAGE);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.cpu_mmaps, 0);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	close(fd);
	close(vgem);
}

/* Whether the buffer behind @fd is mappable, or -1 when INFO fails. */
static int mappable(int dev, int fd)
{
	struct llmem_info info;

	if (llmem_info(dev, fd, &info, NULL, 0))
		return -1;
	return !!(info.state & LLMEM_STATE_MAPPABLE);
}

/*
 * A device writing some pages makes every buffer over any of them
 * unmappable, parent, range or range of a range, and no buffer over none of
 * them; a device that only reads makes none unmappable.
 */
TEST_F(range, mappable_per_page)
{
	uint32_t handle;
	int vgem = vgem_open();
	/* Pages [2, 4) written by vgem; [0, 2) and [4, 8) not. */
	int written = llmem_range_export(self->dev, self->parent, 2 * PAGE, 2 * PAGE);
	int below = llmem_range_export(self->dev, self->parent, 0, 2 * PAGE);
	int above = llmem_range_export(self->dev, self->parent, 4 * PAGE, 4 * PAGE);
	int across = llmem_range_export(self->dev, self->parent, PAGE, 2 * PAGE);
	int wide = llmem_range_export(self->dev, self->parent, 0, 8 * PAGE);
	int inner, outer;

	ASSERT_GE(vgem, 0);
	ASSERT_GE(written, 0);
	ASSERT_GE(below, 0);
	ASSERT_GE(above, 0);
	ASSERT_GE(across, 0);
	ASSERT_GE(wide, 0);
	/* Ranges of a range: page 3 of the parent, and page 5. */
	inner = llmem_range_export(self->dev, wide, 3 * PAGE, PAGE);
	outer = llmem_range_export(self->dev, wide, 5 * PAGE, PAGE);
	ASSERT_GE(inner, 0);
	ASSERT_GE(outer, 0);

	ASSERT_EQ(vgem_import(vgem, written, &handle), 0);
	EXPECT_EQ(mappable(self->dev, written), 0);
	EXPECT_EQ(mappable(self->dev, self->parent), 0);
	EXPECT_EQ(mappable(self->dev, across), 0);
	EXPECT_EQ(mappable(self->dev, wide), 0);
	EXPECT_EQ(mappable(self->dev, inner), 0);
	EXPECT_EQ(mappable(self->dev, below), 1);
	EXPECT_EQ(mappable(self->dev, above), 1);
	EXPECT_EQ(mappable(self->dev, outer), 1);
	ASSERT_EQ(vgem_close(vgem, handle), 0);

	/* The other way round: the parent written, the pages of every range. */
	ASSERT_EQ(vgem_import(vgem, inner, &handle), 0);
	EXPECT_EQ(mappable(self->dev, written), 0);
	EXPECT_EQ(mappable(self->dev, self->parent), 0);
	EXPECT_EQ(mappable(self->dev, below), 1);
	EXPECT_EQ(mappable(self->dev, outer), 1);
	ASSERT_EQ(vgem_close(vgem, handle), 0);
	ASSERT_EQ(vgem_import(vgem, self->parent, &handle), 0);
	EXPECT_EQ(mappable(self->dev, below), 0);
	EXPECT_EQ(mappable(self->dev, outer), 0);
	ASSERT_EQ(vgem_close(vgem, handle), 0);

	EXPECT_EQ(mappable(self->dev, self->parent), 1);
	EXPECT_EQ(mappable(self->dev, written), 1);
	EXPECT_EQ(mappable(self->dev, inner), 1);
	close(inner);
	close(outer);
	close(wide);
	close(across);
	close(above);
	close(below);
	close(written);
	close(vgem);
}

/* A range shares its parent's reservation object: a write fence on one holds both. */
TEST_F(range, shared_fences)
{
	struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
	struct drm_vgem_fence_signal signal = { 0 };
	struct llmem_info info;
	uint32_t handle;
	int vgem = vgem_open();
	int fd = llmem_range_export(self->dev, self->parent, 0, 4 * PAGE);

	ASSERT_GE(vgem, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(vgem_import(vgem, fd, &handle), 0);
	attach.handle = handle;
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach), 0);
	ASSERT_EQ(vgem_close(vgem, handle), 0);

	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.fences, 1);
	EXPECT_EQ(info.write_fences, 1);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.write_fences, 1);

	signal.fence = attach.out_fence;
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &signal), 0);
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.fences, 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	close(fd);
	close(vgem);
}

/* DMA_BUF_SET_NAME names the range alone; debugfs lists it while it lives. */
TEST_F(range, set_name)
{
	char parent_name[] = "range-test-parent";
	char name[] = "range-test-child";
	struct llmem_info info;
	int fd;

	ASSERT_EQ(ioctl(self->parent, DMA_BUF_SET_NAME_B, parent_name), 0);
	fd = llmem_range_export(self->dev, self->parent, PAGE, PAGE);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_STREQ(info.name, "");
	ASSERT_EQ(ioctl(fd, DMA_BUF_SET_NAME_B, name), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_STREQ(info.name, name);
	EXPECT_STREQ(info.exporter, "llmem");
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_STREQ(info.name, parent_name);
	EXPECT_EQ(llmem_table_has(name), 1);
	close(fd);
	EXPECT_EQ(llmem_table_has(name), 0);
	EXPECT_EQ(llmem_table_has(parent_name), 1);
}

/* DMA_BUF_IOCTL_SYNC brackets CPU access to a range and refuses bad flags. */
TEST_F(range, sync_start_end)
{
	struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint8_t *p;
	int fd = llmem_range_export(self->dev, self->parent, 8 * PAGE, 8 * PAGE);

	ASSERT_GE(fd, 0);
	p = map_shared(fd, 8 * PAGE, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	memset(p, 0x5a, 8 * PAGE);
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	EXPECT_EQ(self->pmap[PARENT_SIZE - 1], 0x5a);
	s.flags = 0x100;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), -EINVAL);
	munmap(p, 8 * PAGE);
	close(fd);
}

/* A closed or never-opened fd is -EBADF. */
TEST_F(range, bad_fd)
{
	ASSERT_EQ(llmem_range_export(self->dev, 1000, 0, PAGE), -EBADF);
	ASSERT_EQ(llmem_range_export(self->dev, -1, 0, PAGE), -EBADF);
}

/* An fd that is not a DMA-BUF, /dev/llmem's included, is -EINVAL. */
TEST_F(range, not_dmabuf)
{
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(llmem_range_export(self->dev, p[0], 0, PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->dev, 0, PAGE), -EINVAL);
	close(p[0]);
	close(p[1]);
}

/* A DMA-BUF another driver exported (a vgem dumb buffer) is -EINVAL. */
TEST_F(range, foreign_dmabuf)
{
	struct drm_mode_create_dumb create = { .width = 64, .height = 64, .bpp = 32 };
	struct drm_prime_handle prime = { .flags = DRM_CLOEXEC | DRM_RDWR };
	struct llmem_info info;
	int vgem = vgem_open();

	ASSERT_GE(vgem, 0);
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_MODE_CREATE_DUMB, &create), 0);
	prime.handle = create.handle;
	ASSERT_EQ(xioctl(vgem, DRM_IOCTL_PRIME_HANDLE_TO_FD, &prime), 0);
	ASSERT_EQ(llmem_info(self->dev, prime.fd, &info, NULL, 0), 0);
	ASSERT_STREQ(info.exporter, "drm");
	ASSERT_EQ(llmem_range_export(self->dev, prime.fd, 0, PAGE), -EINVAL);
	close(prime.fd);
	close(vgem);
}

/* An offset that is not a multiple of the page size is -EINVAL. */
TEST_F(range, misaligned_offset)
{
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 1, PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PAGE - 1, PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PAGE + PAGE / 2, PAGE), -EINVAL);
}

/* A size that is not a multiple of the page size is -EINVAL. */
TEST_F(range, misaligned_size)
{
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 0, 1), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 0, PAGE + 1), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PAGE, PAGE - 1), -EINVAL);
}

/* Size 0 is -EINVAL, at the start and at the end of the buffer. */
TEST_F(range, zero_size)
{
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 0, 0), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PARENT_SIZE, 0), -EINVAL);
}

/* An offset + size that overflows 64 bits is -EINVAL. */
TEST_F(range, offset_size_overflow)
{
	uint64_t top = UINT64_MAX & ~(PAGE - 1);

	ASSERT_EQ(llmem_range_export(self->dev, self->parent, top, PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PAGE, top), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, top, top), -EINVAL);
}

/* A range that passes the end of the buffer is -EINVAL. */
TEST_F(range, past_end)
{
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 0, PARENT_SIZE + PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PARENT_SIZE, PAGE), -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, PARENT_SIZE - PAGE, 2 * PAGE),
		  -EINVAL);
	ASSERT_EQ(llmem_range_export(self->dev, self->parent, 1UL << 40, PAGE), -EINVAL);
}

/* LLMEM_EXPORT_RANGE_DYNAMIC makes the range dynamic, not its parent. */
TEST_F(range, dynamic)
{
	struct llmem_export_range r = {
		.fd = self->parent,
		.size = PAGE,
		.flags = LLMEM_EXPORT_RANGE_DYNAMIC | LLMEM_EXPORT_RANGE_CLOEXEC,
	};
	struct llmem_info info;

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), 0);
	ASSERT_EQ(llmem_info(self->dev, r.out_fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE | LLMEM_STATE_DYNAMIC);
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	close(r.out_fd);
}

/* Undefined flag bits are -EINVAL. */
TEST_F(range, reserved_flags)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE, .flags = 1U << 2 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
	r.flags = 1U << 31;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
	r.flags = O_CLOEXEC;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
}

/* A non-zero pad is -EINVAL. */
TEST_F(range, nonzero_pad)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE, .pad = 1 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
}

/* The out field out_fd must come in as zero. */
TEST_F(range, nonzero_out_fd)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE, .out_fd = 3 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EINVAL);
}

/* A struct shorter than the command's first layout is -EINVAL. */
TEST_F(range, short_struct)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE };

	ASSERT_EQ(sizeof(r), 32);
	ASSERT_EQ(xioctl(self->dev, RANGE_SIZED(24), &r), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, RANGE_SIZED(8), &r), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, RANGE_SIZED(0), &r), -EINVAL);
}

/* A longer struct works while its extra bytes are zero, and is -EINVAL otherwise. */
TEST_F(range, long_struct)
{
	struct {
		struct llmem_export_range r;
		uint64_t extra;
	} big = { .r.fd = self->parent, .r.size = PAGE };

	ASSERT_EQ(xioctl(self->dev, RANGE_SIZED(sizeof(big)), &big), 0);
	ASSERT_GE((int)big.r.out_fd, 0);
	ASSERT_EQ(big.extra, 0);
	close(big.r.out_fd);

	big.r.out_fd = 0;
	big.extra = 1;
	ASSERT_EQ(xioctl(self->dev, RANGE_SIZED(sizeof(big)), &big), -EINVAL);
}

/* The command's number with the wrong direction is -ENOTTY. */
TEST_F(range, wrong_direction)
{
	struct llmem_export_range r = { .fd = self->parent, .size = PAGE };

	ASSERT_EQ(xioctl(self->dev, _IOW('L', 0x4, struct llmem_export_range), &r), -ENOTTY);
	ASSERT_EQ(xioctl(self->dev, _IOR('L', 0x4, struct llmem_export_range), &r), -ENOTTY);
}

/* When the result cannot be copied back, no fd is left behind and no range lives on. */
TEST_F(range, efault_leaves_no_fd)
{
	struct llmem_export_range *r;
	int free_fd = lowest_free_fd();
	int buffers = llmem_table_buffers();

	ASSERT_GE(free_fd, 0);
	ASSERT_GT(buffers, 0);
	r = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(r, MAP_FAILED);
	*r = (struct llmem_export_range){ .fd = self->parent, .size = PAGE };
	ASSERT_EQ(mprotect(r, PAGE, PROT_READ), 0);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, r), -EFAULT);
	EXPECT_EQ(lowest_free_fd(), free_fd);
	EXPECT_EQ(llmem_table_buffers(), buffers);
	munmap(r, PAGE);
}

#define CAMERA_BUFS 4
#define CAMERA_FRAMES 16
#define WIDTH 640
#define HEIGHT 480

FIXTURE(camera)
{
	int dev;
	int video;
	int parent;
	int fds[CAMERA_BUFS];
	uint8_t *maps[CAMERA_BUFS];
	uint8_t *pmap;
	size_t sizeimage;
};

FIXTURE_VARIANT(camera)
{
	int vivid;
	int contiguous;
};

/* vivid instance 0: videobuf2-vmalloc, which vmaps each queued buffer. */
FIXTURE_VARIANT_ADD(camera, vmalloc){
	.vivid = 0,
	.contiguous = 0,
};

/* vivid instance 2: videobuf2-dma-contig, which attaches and maps each buffer. */
FIXTURE_VARIANT_ADD(camera, dma_contig){
	.vivid = 2,
	.contiguous = 1,
};

FIXTURE_SETUP(camera)
{
	char path[32];
	int input = 0;

	for (int i = 0; i < CAMERA_BUFS; i++)
		self->fds[i] = -1;
	self->parent = -1;
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	ASSERT_EQ(vivid_capture_path(variant->vivid, path, sizeof(path)), 0)
	TH_LOG("the rig loads vivid with n_devs=5 allocators=0,0,1,0,0");
	self->video = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_GE(self->video, 0);
	ASSERT_EQ(xioctl(self->video, VIDIOC_S_INPUT, &input), 0);
	ASSERT_EQ(capture_set_yuyv(self->video, WIDTH, HEIGHT, &self->sizeimage), 0);
	ASSERT_EQ(capture_set_30fps(self->video), 0);
	/* 614400 bytes: 150 pages, so the frames tile one buffer page-aligned. */
	ASSERT_EQ(self->sizeimage % PAGE, 0);
}

FIXTURE_TEARDOWN(camera)
{
	for (int i = 0; i < CAMERA_BUFS; i++) {
		if (self->maps[i])
			munmap(self->maps[i], self->sizeimage);
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	}
	if (self->pmap)
		munmap(self->pmap, CAMERA_BUFS * self->sizeimage);
	if (self->parent >= 0)
		close(self->parent);
	close(self->video);
	close(self->dev);
}

static int queue_range(int video, unsigned int index, int fd, size_t length)
{
	struct v4l2_buffer buf = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
		.index = index,
		.length = length,
	};

	buf.m.fd = fd;
	return xioctl(video, VIDIOC_QBUF, &buf);
}

/*
 * Four frames are four ranges of one llmem buffer queued as DMABUF: every
 * captured frame is vivid's picture (the lower half equals an MMAP capture's)
 * in its range's pages, seen through the range and the parent alike, with
 * sequence numbers advancing.  The importer holds each range (vmalloc: a
 * vmap; dma-contig: a mapped attachment) while queued, never the parent, and
 * nothing once the queue is released.
 */
TEST_F_TIMEOUT(camera, four_frames_in_one_buffer, 180)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	size_t size = self->sizeimage, half = size / 2;
	struct llmem_alloc a = {
		.size = CAMERA_BUFS * size,
		.flags = LLMEM_ALLOC_CLOEXEC | (variant->contiguous ? LLMEM_ALLOC_CONTIGUOUS : 0),
	};
	unsigned int seen = 0;
	int64_t last_sequence = -1;
	struct llmem_info info;
	struct v4l2_buffer buf;
	uint8_t *ref;

	ref = capture_mmap_lower_half(self->video, size, CAMERA_BUFS);
	ASSERT_NE(ref, NULL);
	ASSERT_FALSE(all_zero(ref, half));

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	self->parent = a.fd;
	self->pmap = mmap(NULL, a.size, PROT_READ, MAP_SHARED, self->parent, 0);
	ASSERT_NE(self->pmap, MAP_FAILED);
	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, CAMERA_BUFS), CAMERA_BUFS);
	for (int i = 0; i < CAMERA_BUFS; i++) {
		self->fds[i] = llmem_range_export(self->dev, self->parent, i * size, size);
		ASSERT_GE(self->fds[i], 0);
		self->maps[i] = mmap(NULL, size, PROT_READ, MAP_SHARED, self->fds[i], 0);
		ASSERT_NE(self->maps[i], MAP_FAILED);
		ASSERT_EQ(queue_range(self->video, i, self->fds[i], size), 0);
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		if (variant->contiguous) {
			EXPECT_EQ(info.attachments, 1);
			EXPECT_EQ(info.device_write_maps, 1);
			EXPECT_EQ(info.state & LLMEM_STATE_CONTIGUOUS, LLMEM_STATE_CONTIGUOUS);
		} else {
			EXPECT_EQ(info.vmaps, 1);
			EXPECT_EQ(info.attachments, 0);
		}
	}
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.vmaps, 0);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.cpu_mmaps, 1);
	/* dma-contig maps each range for the device to write: its pages are the parent's. */
	if (variant->contiguous)
		EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, 0);

	ASSERT_EQ(xioctl(self->video, VIDIOC_STREAMON, &type), 0);
	for (int frame = 0; frame < CAMERA_FRAMES; frame++) {
		struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
		const uint8_t *bytes;

		ASSERT_EQ(capture_dqbuf(self->video, &buf, V4L2_MEMORY_DMABUF), 0);
		ASSERT_LT(buf.index, CAMERA_BUFS);
		ASSERT_EQ(buf.bytesused, size);
		EXPECT_GT((int64_t)buf.sequence, last_sequence);
		last_sequence = buf.sequence;
		seen |= 1U << buf.index;
		ASSERT_EQ(xioctl(self->fds[buf.index], DMA_BUF_IOCTL_SYNC, &s), 0);
		bytes = self->maps[buf.index];
		EXPECT_EQ(memcmp(bytes + half, ref, half), 0)
		TH_LOG("frame %d (range %u) differs from the MMAP capture", frame, buf.index);
		EXPECT_EQ(memcmp(self->pmap + buf.index * size, bytes, size), 0)
		TH_LOG("frame %d: the parent does not show range %u", frame, buf.index);
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		ASSERT_EQ(xioctl(self->fds[buf.index], DMA_BUF_IOCTL_SYNC, &s), 0);
		ASSERT_EQ(queue_range(self->video, buf.index, self->fds[buf.index], size), 0);
	}
	EXPECT_EQ(seen, (1U << CAMERA_BUFS) - 1);
	for (int i = 0; i < CAMERA_BUFS; i++) {
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		if (variant->contiguous) {
			EXPECT_EQ(info.device_maps, 1);
		} else {
			EXPECT_EQ(info.vmaps, 1);
		}
	}

	ASSERT_EQ(xioctl(self->video, VIDIOC_STREAMOFF, &type), 0);
	ASSERT_EQ(capture_reqbufs(self->video, V4L2_MEMORY_DMABUF, 0), 0);
	for (int i = 0; i < CAMERA_BUFS; i++) {
		ASSERT_EQ(llmem_info(self->dev, self->fds[i], &info, NULL, 0), 0);
		EXPECT_EQ(info.vmaps, 0);
		EXPECT_EQ(info.attachments, 0);
		EXPECT_EQ(info.device_maps, 0);
		EXPECT_EQ(info.cpu_mmaps, 1);
	}
	ASSERT_EQ(llmem_info(self->dev, self->parent, &info, NULL, 0), 0);
	EXPECT_EQ(info.state & LLMEM_STATE_MAPPABLE, LLMEM_STATE_MAPPABLE);
	free(ref);
}

TEST_HARNESS_MAIN
