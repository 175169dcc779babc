// SPDX-License-Identifier: MIT
/*
 * tools/mapped_io.c against the mappings the tools hand to read and write,
 * with a file on 9p (the VM's results share, $LLMEM_RESULTS), whose
 * zero-copy I/O pins the caller's pages: a DMA-BUF mmap'ed from the Vulkan
 * driver's udmabuf and from the system heap (VM_PFNMAP on 6.12, where 9p
 * refuses them with EFAULT) and from llmem.ko (pinnable, on both kernels).
 * Each is written to the file and read back from it, byte for byte.
 * Built twice: mapped_io with llmem.ko's mapping, on both kernels, and
 * mapped_io_6_12 (MAPPED_IO_PFNMAP) with the two 6.1 has not (no udmabuf,
 * no DMA heaps).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <mntent.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include <llmem/llmem.h>

#include "../../tools/mapped_io.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

/* A 1280x720 YUYV frame: more than one bounce buffer, not a page multiple. */
#define FRAME_BYTES (1280u * 720 * 2)

FIXTURE(mapped_io)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	int fd;
	size_t size;
	uint8_t *map;
	char path[4096];
};

FIXTURE_VARIANT(mapped_io)
{
	/* An llmem backend, or 0 for a buffer of the system DMA heap. */
	uint32_t backend;
	/* Whether the mapping is VM_PFNMAP, which 9p's zero-copy refuses. */
	bool pfnmap;
};

#ifdef MAPPED_IO_PFNMAP
FIXTURE_VARIANT_ADD(mapped_io, vulkan_dmabuf){
	.backend = LLMEM_BACKEND_VULKAN_DMABUF,
	.pfnmap = true,
};

FIXTURE_VARIANT_ADD(mapped_io, system_heap){
	.backend = 0,
	.pfnmap = true,
};
#else
FIXTURE_VARIANT_ADD(mapped_io, llmem_dmabuf){
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	.pfnmap = false,
};
#endif

static int heap_buffer(size_t size)
{
	struct dma_heap_allocation_data a = { .len = size, .fd_flags = O_RDWR | O_CLOEXEC };
	int heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC), ret;

	if (heap < 0)
		return -errno;
	ret = xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a) ? -errno : (int)a.fd;
	close(heap);
	return ret;
}

/*
 * The type of the file system @path lies in: its longest mount point in
 * /proc/mounts (statfs cannot tell, 9P2000.L passes the host's f_type on).
 */
static void fs_type(const char *path, char *type, size_t size)
{
	FILE *f = setmntent("/proc/mounts", "re");
	size_t best = 0;
	struct mntent *m;

	snprintf(type, size, "?");
	while (f && (m = getmntent(f))) {
		size_t len = strlen(m->mnt_dir);

		if (!strncmp(path, m->mnt_dir, len) && (path[len] == '/' || !path[len]) &&
		    len >= best) {
			best = len;
			snprintf(type, size, "%s", m->mnt_type);
		}
	}
	if (f)
		endmntent(f);
}

FIXTURE_SETUP(mapped_io)
{
	const char *results = getenv("LLMEM_RESULTS");
	char type[32];

	self->fd = -1;
	self->size = (FRAME_BYTES + 4095) & ~(size_t)4095;
	ASSERT_NE(results, NULL) TH_LOG("the VM's results share is the 9p folder to write");
	fs_type(results, type, sizeof(type));
	ASSERT_STREQ(type, "9p") TH_LOG("%s is not 9p", results);
	snprintf(self->path, sizeof(self->path), "%s/mapped-io-%d.bin", results, getpid());
	VK_TEST_SESSION(self->s);
	if (!variant->backend) {
		self->fd = heap_buffer(self->size);
		ASSERT_GE(self->fd, 0) TH_LOG("system heap: %s", strerror(-self->fd));
	} else {
		struct llmem_memory_create_info mci = { .page_size = self->size,
							.sharing = LLMEM_SHARING_DMABUF,
							.backend = variant->backend,
							.name = "mapped-io" };
		struct llmem_dmabuf_region r;
		int ret;

		ret = llmem_memory_create(self->s, &mci, &self->m);
		if (!ret)
			ret = llmem_buffer_create(self->m,
						  &(struct llmem_buffer_create_info){
							  .size = self->size, .name = "mapped-io" },
						  &self->b);
		ASSERT_EQ(ret, 0) TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_buffer_export(self->b, &r), 0) TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(r.offset, 0);
		self->fd = r.fd;
	}
	self->map = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(self->map, MAP_FAILED) TH_LOG("mmap: %s", strerror(errno));
}

FIXTURE_TEARDOWN(mapped_io)
{
	unlink(self->path);
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->size);
	if (self->fd >= 0)
		close(self->fd);
	llmem_buffer_destroy(self->b);
	if (self->m)
		EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

static void sync_cpu(int fd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags | DMA_BUF_SYNC_RW };

	xioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 131 + (i >> 12));
}

/* The index of the first non-zero byte of @p, or @size: where two differed. */
static size_t first_set(const uint8_t *p, size_t size)
{
	size_t i = 0;

	while (i < size && !p[i])
		i++;
	return i;
}

/* A frame in the mapping goes whole into a file on 9p. */
TEST_F_TIMEOUT(mapped_io, write_to_9p, 120)
{
	uint8_t *back;
	FILE *f;
	int fd;

	back = malloc(FRAME_BYTES);
	ASSERT_NE(back, NULL);
	sync_cpu(self->fd, DMA_BUF_SYNC_START);
	for (size_t i = 0; i < FRAME_BYTES; i++)
		self->map[i] = pattern(i);
	sync_cpu(self->fd, DMA_BUF_SYNC_END);

	f = fopen(self->path, "we");
	ASSERT_NE(f, NULL);
	/* The case: 9p refuses a VM_PFNMAP mapping, and takes llmem.ko's. */
	errno = 0;
	EXPECT_EQ(write(fileno(f), self->map, FRAME_BYTES) < 0 ? -errno : 0,
		  variant->pfnmap ? -EFAULT : 0);
	ASSERT_EQ(ftruncate(fileno(f), 0), 0);
	ASSERT_EQ(lseek(fileno(f), 0, SEEK_SET), 0);
	/* Through stdio, as the tools do, with a byte in its buffer first. */
	ASSERT_EQ(fputc(0x5a, f), 0x5a);
	sync_cpu(self->fd, DMA_BUF_SYNC_START);
	ASSERT_EQ(mapped_fwrite(f, self->map, FRAME_BYTES), 0);
	sync_cpu(self->fd, DMA_BUF_SYNC_END);
	ASSERT_EQ(fclose(f), 0);

	fd = open(self->path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(lseek(fd, 0, SEEK_END), FRAME_BYTES + 1);
	ASSERT_EQ(pread(fd, back, 1, 0), 1);
	EXPECT_EQ(back[0], 0x5a);
	ASSERT_EQ(pread(fd, back, FRAME_BYTES, 1), FRAME_BYTES);
	close(fd);
	for (size_t i = 0; i < FRAME_BYTES; i++)
		back[i] ^= pattern(i);
	EXPECT_EQ(first_set(back, FRAME_BYTES), FRAME_BYTES);
	free(back);
}

/* A file on 9p read into the mapping, as a decoder's input is fed. */
TEST_F_TIMEOUT(mapped_io, read_from_9p, 120)
{
	uint8_t *data;
	int fd;

	data = malloc(FRAME_BYTES + 7);
	ASSERT_NE(data, NULL);
	for (size_t i = 0; i < FRAME_BYTES + 7; i++)
		data[i] = pattern(i + 3);
	fd = open(self->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, data, FRAME_BYTES + 7), FRAME_BYTES + 7);

	sync_cpu(self->fd, DMA_BUF_SYNC_START);
	memset(self->map, 0, self->size);
	errno = 0;
	EXPECT_EQ(pread(fd, self->map, FRAME_BYTES, 7) < 0 ? -errno : 0,
		  variant->pfnmap ? -EFAULT : 0);
	memset(self->map, 0, self->size);
	ASSERT_EQ(mapped_pread(fd, self->map, FRAME_BYTES, 7), 0);
	for (size_t i = 0; i < FRAME_BYTES; i++)
		data[i] = self->map[i] ^ data[i + 7];
	EXPECT_EQ(first_set(data, FRAME_BYTES), FRAME_BYTES);
	/* Past the end: what there is, then -ENODATA. */
	EXPECT_EQ(mapped_pread(fd, self->map, FRAME_BYTES, 8), -ENODATA);
	sync_cpu(self->fd, DMA_BUF_SYNC_END);
	close(fd);
	free(data);
}

TEST_HARNESS_MAIN
