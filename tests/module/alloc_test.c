// SPDX-License-Identifier: MIT
/*
 * LLMEM_IOC_ALLOC, LLMEM_IOC_INFO and LLMEM_IOC_TRACK: every success path and
 * every validation failure, struct-size extensibility, the byte cap, zeroed
 * pages, and the DMA-BUF ops user space reaches (mmap, SYNC, SET_NAME).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define PAGE 4096UL
#define MiB (1024UL * 1024UL)

/* The same commands with the size field set to what the caller passed. */
#define ALLOC_SIZED(n) _IOC(_IOC_READ | _IOC_WRITE, 'L', 0x0, (n))
#define INFO_SIZED(n) _IOC(_IOC_READ | _IOC_WRITE, 'L', 0x1, (n))
#define TRACK_SIZED(n) _IOC(_IOC_WRITE, 'L', 0x2, (n))

static uint64_t llmem_max_bytes(void)
{
	FILE *f = fopen("/sys/module/llmem/parameters/max_bytes", "re");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

FIXTURE(alloc)
{
	int dev;
};

FIXTURE_SETUP(alloc)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
}

FIXTURE_TEARDOWN(alloc)
{
	close(self->dev);
}

/* One byte gives one zeroed page, a close-on-exec fd and a fresh INFO. */
TEST_F(alloc, success)
{
	struct llmem_alloc a = { .size = 1, .flags = LLMEM_ALLOC_CLOEXEC };
	struct llmem_info info;

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	ASSERT_EQ(a.size, PAGE);
	ASSERT_EQ(fcntl(a.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ASSERT_EQ(fcntl(a.fd, F_GETFL) & O_ACCMODE, O_RDWR);

	ASSERT_EQ(llmem_info(self->dev, a.fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.size, PAGE);
	EXPECT_STREQ(info.exporter, "llmem");
	EXPECT_EQ(info.known, LLMEM_KNOWN_ATTACHMENTS | LLMEM_KNOWN_DEVICE_MAPS |
				      LLMEM_KNOWN_CPU_MMAPS | LLMEM_KNOWN_VMAPS |
				      LLMEM_KNOWN_FENCES | LLMEM_KNOWN_MAPPABLE | LLMEM_KNOWN_PINS |
				      LLMEM_KNOWN_GUP_PINS);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.cpu_mmaps, 0);
	EXPECT_EQ(info.gup_pinned_pages, 0);
	EXPECT_EQ(info.vmaps, 0);
	EXPECT_EQ(info.fences, 0);
	close(a.fd);
}

/* Without LLMEM_ALLOC_CLOEXEC the fd survives exec. */
TEST_F(alloc, no_cloexec)
{
	struct llmem_alloc a = { .size = PAGE };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	ASSERT_EQ(fcntl(a.fd, F_GETFD) & FD_CLOEXEC, 0);
	close(a.fd);
}

/* Sizes round up to whole pages. */
TEST_F(alloc, rounds_to_pages)
{
	struct llmem_alloc a = { .size = 3 * PAGE + 1 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
	ASSERT_EQ(a.size, 4 * PAGE);
	close(a.fd);
}

/* Undefined flag bits are -EINVAL. */
TEST_F(alloc, reserved_flags)
{
	struct llmem_alloc a = { .size = PAGE, .flags = 1U << 3 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
	a.flags = 1U << 31;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
}

/* The out field fd must come in as zero. */
TEST_F(alloc, nonzero_fd_in)
{
	struct llmem_alloc a = { .size = PAGE, .fd = 3 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
}

/* Size 0 is -EINVAL. */
TEST_F(alloc, size_zero)
{
	struct llmem_alloc a = { .size = 0 };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
}

/* A size whose page rounding overflows is -EINVAL; a huge one is -ENOMEM. */
TEST_F(alloc, size_overflow)
{
	struct llmem_alloc a = { .size = UINT64_MAX };

	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
	a.size = UINT64_MAX - PAGE + 2;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EINVAL);
	a.size = UINT64_MAX - PAGE + 1;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -ENOMEM);
}

/* One byte past max_bytes is -ENOMEM. */
TEST_F(alloc, size_over_cap)
{
	uint64_t cap = llmem_max_bytes();
	struct llmem_alloc a = { .size = cap + 1 };

	ASSERT_GT(cap, 0);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -ENOMEM);
}

/* Buffers that together pass max_bytes hit -ENOMEM; freeing makes room. */
TEST_F(alloc, cumulative_cap)
{
	uint64_t cap = llmem_max_bytes();
	uint64_t chunk = (cap / 6 + PAGE - 1) & ~(PAGE - 1);
	long before = llmem_live_pages();
	int fds[16], n = 0, ret;

	ASSERT_GT(cap, 0);
	ASSERT_GE(before, 0);
	for (;;) {
		ret = llmem_alloc(self->dev, chunk);
		if (ret < 0)
			break;
		ASSERT_LT(n, 16);
		fds[n++] = ret;
	}
	EXPECT_EQ(ret, -ENOMEM);
	EXPECT_LE(n * chunk + before * PAGE, cap);
	EXPECT_GT((n + 1) * chunk + before * PAGE, cap);
	EXPECT_EQ(llmem_live_pages(), before + n * (long)(chunk / PAGE));
	while (n)
		close(fds[--n]);
	EXPECT_EQ(llmem_live_pages(), before);
	ret = llmem_alloc(self->dev, chunk);
	ASSERT_GE(ret, 0);
	close(ret);
}

/* A struct shorter than the oldest ALLOC layout is -EINVAL. */
TEST_F(alloc, short_struct)
{
	struct llmem_alloc a = { .size = PAGE };

	ASSERT_EQ(xioctl(self->dev, ALLOC_SIZED(8), &a), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, ALLOC_SIZED(0), &a), -EINVAL);
}

/* A longer struct works while its extra bytes are zero, else -EINVAL. */
TEST_F(alloc, long_struct)
{
	struct {
		struct llmem_alloc a;
		uint64_t extra;
	} big = { .a.size = PAGE };

	ASSERT_EQ(xioctl(self->dev, ALLOC_SIZED(sizeof(big)), &big), 0);
	ASSERT_GE((int)big.a.fd, 0);
	ASSERT_EQ(big.extra, 0);
	close(big.a.fd);

	big.a.fd = 0;
	big.extra = 1;
	ASSERT_EQ(xioctl(self->dev, ALLOC_SIZED(sizeof(big)), &big), -EINVAL);
}

/* A command with the right number but the wrong direction is -ENOTTY. */
TEST_F(alloc, wrong_direction)
{
	struct llmem_alloc a = { .size = PAGE };

	ASSERT_EQ(xioctl(self->dev, _IOR('L', 0x0, struct llmem_alloc), &a), -ENOTTY);
	ASSERT_EQ(xioctl(self->dev, _IOWR('M', 0x0, struct llmem_alloc), &a), -ENOTTY);
	ASSERT_EQ(xioctl(self->dev, _IOWR('L', 0x5, struct llmem_alloc), &a), -ENOTTY);
}

/*
 * An INFO request for @fd with every output byte 0xa5, so that a test of an
 * older, shorter layout sees which bytes the module wrote.
 */
static void poison_info(struct llmem_info *info, int fd)
{
	memset(info, 0xa5, sizeof(*info));
	info->fd = fd;
	info->flags = 0;
	info->importers_ptr = 0;
	info->importers_len = 0;
}

/* INFO with the pre-name layout (64 bytes) fills what fits and no more. */
TEST_F(alloc, info_short_struct)
{
	struct llmem_info info;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	poison_info(&info, fd);
	ASSERT_EQ(xioctl(self->dev, INFO_SIZED(LLMEM_INFO_SIZE_VER0), &info), 0);
	EXPECT_EQ(info.size, PAGE);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	EXPECT_EQ((unsigned char)info.exporter[0], 0xa5);
	ASSERT_EQ(xioctl(self->dev, INFO_SIZED(LLMEM_INFO_SIZE_VER0 - 4), &info), -EINVAL);
	close(fd);
}

/* INFO with the pre-pins layout (128 bytes) fills the names and leaves pins alone. */
TEST_F(alloc, info_struct_before_pins)
{
	struct llmem_info info;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, DMA_BUF_SET_NAME_B, "before-pins"), 0);
	poison_info(&info, fd);
	ASSERT_EQ(xioctl(self->dev, INFO_SIZED(offsetof(struct llmem_info, pins)), &info), 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	EXPECT_STREQ(info.name, "before-pins");
	EXPECT_EQ(info.pins, 0xa5a5a5a5);
	close(fd);
}

/* INFO with the pre-GUP layout (136 bytes) fills pins and leaves gup_pinned_pages alone. */
TEST_F(alloc, info_struct_before_gup_pins)
{
	struct llmem_info info;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	poison_info(&info, fd);
	ASSERT_EQ(
		xioctl(self->dev, INFO_SIZED(offsetof(struct llmem_info, gup_pinned_pages)), &info),
		0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.pad, 0);
	EXPECT_TRUE(info.known & LLMEM_KNOWN_GUP_PINS);
	EXPECT_EQ(info.gup_pinned_pages, 0xa5a5a5a5a5a5a5a5ull);
	close(fd);
}

/*
 * LLMEM_ALLOC_DYNAMIC, alone or with CONTIGUOUS: the DMA-BUF has pin and
 * unpin, INFO says dynamic, and nothing pins it yet.
 */
TEST_F(alloc, dynamic)
{
	uint32_t flags[] = { LLMEM_ALLOC_DYNAMIC, LLMEM_ALLOC_DYNAMIC | LLMEM_ALLOC_CONTIGUOUS };

	for (unsigned int i = 0; i < 2; i++) {
		struct llmem_alloc a = { .size = 2 * PAGE, .flags = flags[i] };
		struct llmem_info info;

		ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), 0);
		ASSERT_EQ(llmem_info(self->dev, a.fd, &info, NULL, 0), 0);
		EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE |
					      LLMEM_STATE_DYNAMIC |
					      (i ? LLMEM_STATE_CONTIGUOUS : 0));
		EXPECT_TRUE(info.known & LLMEM_KNOWN_PINS);
		EXPECT_EQ(info.pins, 0);
		close(a.fd);
	}
}

/* INFO with a longer struct: zero tail accepted, non-zero tail -EINVAL. */
TEST_F(alloc, info_long_struct)
{
	struct {
		struct llmem_info info;
		uint32_t extra[2];
	} big;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	memset(&big, 0, sizeof(big));
	big.info.fd = fd;
	ASSERT_EQ(xioctl(self->dev, INFO_SIZED(sizeof(big)), &big), 0);
	EXPECT_STREQ(big.info.exporter, "llmem");
	EXPECT_EQ(big.extra[0], 0);
	big.extra[1] = 1;
	ASSERT_EQ(xioctl(self->dev, INFO_SIZED(sizeof(big)), &big), -EINVAL);
	close(fd);
}

/* INFO on a closed or never-opened fd is -EBADF. */
TEST_F(alloc, info_bad_fd)
{
	struct llmem_info info;

	ASSERT_EQ(llmem_info(self->dev, 1000, &info, NULL, 0), -EBADF);
	ASSERT_EQ(llmem_info(self->dev, -1, &info, NULL, 0), -EBADF);
}

/* INFO on an fd that is not a DMA-BUF is -EINVAL. */
TEST_F(alloc, info_not_dmabuf)
{
	struct llmem_info info;
	int p[2];

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(llmem_info(self->dev, p[0], &info, NULL, 0), -EINVAL);
	ASSERT_EQ(llmem_info(self->dev, self->dev, &info, NULL, 0), -EINVAL);
	close(p[0]);
	close(p[1]);
}

/* INFO's reserved flags and a name count without an array are -EINVAL. */
TEST_F(alloc, info_reserved)
{
	struct llmem_info info = { .flags = 1 };
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	info.fd = fd;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_INFO, &info), -EINVAL);
	info.flags = 0;
	info.importers_len = 2;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_INFO, &info), -EINVAL);
	close(fd);
}

/* TRACK refuses llmem's own buffers, bad fds, non-DMA-BUFs and flags. */
TEST_F(alloc, track_errors)
{
	struct llmem_track t = { 0 };
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	t.fd = fd;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_UNTRACK, &t), -ENOENT);
	t.flags = 1;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_UNTRACK, &t), -EINVAL);
	t.flags = 0;
	t.fd = 1000;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), -EBADF);
	t.fd = self->dev;
	ASSERT_EQ(xioctl(self->dev, LLMEM_IOC_TRACK, &t), -EINVAL);
	ASSERT_EQ(xioctl(self->dev, TRACK_SIZED(4), &t), -EINVAL);
	close(fd);
}

/* TRACK with a longer struct: a non-zero tail is -EINVAL before the fd is looked at. */
TEST_F(alloc, track_long_struct)
{
	struct {
		struct llmem_track t;
		uint32_t extra[2];
	} big = { .t.fd = 1000, .extra = { 0, 7 } };

	ASSERT_EQ(xioctl(self->dev, TRACK_SIZED(sizeof(big)), &big), -EINVAL);
	big.extra[1] = 0;
	ASSERT_EQ(xioctl(self->dev, TRACK_SIZED(sizeof(big)), &big), -EBADF);
}

/* Bytes written through one mapping read back through another. */
TEST_F(alloc, mmap_round_trip)
{
	size_t size = 1 * MiB;
	struct llmem_info info;
	uint32_t *p;
	int fd = llmem_alloc(self->dev, size);

	ASSERT_GE(fd, 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.cpu_mmaps, 1);
	for (size_t i = 0; i < size / 4; i++)
		p[i] = i * 2654435761u;
	ASSERT_EQ(munmap(p, size), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.cpu_mmaps, 0);

	p = mmap(NULL, size - PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	ASSERT_NE(p, MAP_FAILED);
	for (size_t i = 0; i < (size - PAGE) / 4; i++)
		ASSERT_EQ(p[i], (uint32_t)((i + PAGE / 4) * 2654435761u));
	ASSERT_EQ(munmap(p, size - PAGE), 0);
	close(fd);
}

/* Private mappings and mappings past the end are -EINVAL. */
TEST_F(alloc, mmap_refused)
{
	int fd = llmem_alloc(self->dev, 2 * PAGE);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	ASSERT_EQ(mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, PAGE), MAP_FAILED);
	ASSERT_EQ(errno, EINVAL);
	close(fd);
}

/* DMA_BUF_IOCTL_SYNC start and end succeed around CPU access. */
TEST_F(alloc, sync_start_end)
{
	struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint8_t *p;
	int fd = llmem_alloc(self->dev, 16 * PAGE);

	ASSERT_GE(fd, 0);
	p = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	memset(p, 0x5a, 16 * PAGE);
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	s.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	EXPECT_EQ(p[16 * PAGE - 1], 0x5a);
	s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), 0);
	s.flags = 0x100;
	ASSERT_EQ(xioctl(fd, DMA_BUF_IOCTL_SYNC, &s), -EINVAL);
	munmap(p, 16 * PAGE);
	close(fd);
}

/* The "name:" line of /proc/self/fdinfo/@fd into @name; 0, or -1 without one. */
static int fdinfo_name(int fd, char *name, size_t len)
{
	char path[64], line[256];
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "name:\t", 6))
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(name, len, "%s", line + 6);
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* DMA_BUF_SET_NAME shows in INFO, in the debugfs table and in fdinfo. */
TEST_F(alloc, set_name)
{
	char name[] = "llmem-test-name", shown[64];
	struct llmem_info info;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(fdinfo_name(fd, shown, sizeof(shown)), -1);
	ASSERT_EQ(ioctl(fd, DMA_BUF_SET_NAME_B, name), 0);
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_STREQ(info.name, name);
	EXPECT_EQ(llmem_table_has(name), 1);
	ASSERT_EQ(fdinfo_name(fd, shown, sizeof(shown)), 0);
	EXPECT_STREQ(shown, name);
	close(fd);
	EXPECT_EQ(llmem_table_has(name), 0);
}

/* Pages dirtied by one buffer never show through in the next ones. */
TEST_F(alloc, zero_fill)
{
	static const size_t sizes[] = { PAGE, 64 * 1024, 1 * MiB, 4 * MiB };

	for (int round = 0; round < 48; round++) {
		size_t size = sizes[round % 4];
		uint64_t *p, acc = 0;
		int fd = llmem_alloc(self->dev, size);

		ASSERT_GE(fd, 0);
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ASSERT_NE(p, MAP_FAILED);
		for (size_t i = 0; i < size / 8; i++)
			acc |= p[i];
		ASSERT_EQ(acc, 0) TH_LOG("round %d: non-zero byte", round);
		memset(p, 0xff, size);
		munmap(p, size);
		close(fd);
	}
}

/* Closing the fd while mapped keeps the pages until munmap. */
TEST_F(alloc, close_while_mapped)
{
	long before = llmem_live_pages();
	size_t size = 8 * PAGE;
	uint8_t *p;
	int fd = llmem_alloc(self->dev, size);

	ASSERT_GE(before, 0);
	ASSERT_GE(fd, 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	close(fd);
	memset(p, 0x33, size);
	EXPECT_EQ(p[size - 1], 0x33);
	EXPECT_EQ(llmem_live_pages(), before + 8);
	ASSERT_EQ(munmap(p, size), 0);
	EXPECT_EQ(llmem_live_pages(), before);
}

/* Buffers outlive the /dev/llmem file that allocated them. */
TEST_F(alloc, outlives_device_file)
{
	struct llmem_info info;
	uint8_t *p;
	int fd = llmem_alloc(self->dev, PAGE);

	ASSERT_GE(fd, 0);
	close(self->dev);
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	p[0] = 9;
	ASSERT_EQ(llmem_info(self->dev, fd, &info, NULL, 0), 0);
	EXPECT_EQ(info.cpu_mmaps, 1);
	munmap(p, PAGE);
	close(fd);
}

/* munmap after the last fd is gone, and of a partial range, frees it all. */
TEST_F(alloc, munmap_after_close)
{
	long before = llmem_live_pages();
	size_t size = 8 * PAGE;
	uint8_t *p;
	int fd = llmem_alloc(self->dev, size);

	ASSERT_GE(fd, 0);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	close(fd);
	ASSERT_EQ(munmap(p + 2 * PAGE, 2 * PAGE), 0);
	EXPECT_EQ(llmem_live_pages(), before + 8);
	ASSERT_EQ(munmap(p, size), 0);
	EXPECT_EQ(llmem_live_pages(), before);
}

TEST_HARNESS_MAIN
