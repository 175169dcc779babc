// SPDX-License-Identifier: MIT
/*
 * Host memory shared with the device, and raw pages: a caller's allocation
 * wrapped as a page (VK_EXT_external_memory_host), pages made, mapped,
 * flushed and exported as opaque fds without any object on them, and the
 * CUDA entry points on a machine without CUDA.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>

#include <llmem/cuda.h>
#include <llmem/llmem.h>
#include <llmem/transfer.h>

#include "kselftest_harness.h"
#include "vk_test.h"

#define WRAP_SIZE (1u << 20)
#define BUF_SIZE (64u << 10)

FIXTURE(hostptr)
{
	struct llmem_session *s;
	struct llmem_session_info info;
	struct llmem_queue *q;
	uint64_t align;
};

FIXTURE_SETUP(hostptr)
{
	/* Reads and writes go through the staging ring: the device does them. */
	struct llmem_queue_create_info qci = { .flags = LLMEM_QUEUE_NO_MAPPING };

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_session_get_info(self->s, &self->info), 0);
	ASSERT_TRUE(self->info.caps & LLMEM_CAP_HOST_POINTER_IMPORT);
	self->align = self->info.min_imported_host_pointer_alignment;
	ASSERT_NE(self->align, 0);
	ASSERT_EQ(llmem_queue_create(self->s, &qci, &self->q), 0);
}

FIXTURE_TEARDOWN(hostptr)
{
	llmem_queue_destroy(self->q);
	VK_TEST_SESSION_END(self->s);
}

static int host_memory(struct llmem_session *s, struct llmem_memory **m)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
		.name = "wrapped",
	};

	return llmem_memory_create(s, &ci, m);
}

/* The device writes the caller's allocation in place, and reads what the CPU wrote there. */
TEST_F(hostptr, wrap_device_reads_and_writes_in_place)
{
	struct llmem_buffer_create_info bci = { .size = BUF_SIZE, .name = "in-place" };
	struct llmem_allocation a;
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	uint8_t *host, *back, *at;
	uint32_t page, word = 0xa5c3e1f0;

	host = aligned_alloc(self->align, WRAP_SIZE);
	back = malloc(BUF_SIZE);
	ASSERT_NE(host, NULL);
	ASSERT_NE(back, NULL);
	memset(host, 0x11, WRAP_SIZE);
	ASSERT_EQ(host_memory(self->s, &m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE, &page), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.backend, LLMEM_BACKEND_IMPORT_HOST_POINTER);
	EXPECT_EQ(mi.page_count, 1);
	EXPECT_EQ(mi.bytes_reserved, WRAP_SIZE);
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
	EXPECT_EQ(a.page, page);
	ASSERT_LE(a.offset + BUF_SIZE, WRAP_SIZE);
	at = host + a.offset;

	/* Device → host: a fill lands in the caller's bytes, none around it. */
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, b, 0, BUF_SIZE, &word, 4, NULL, NULL), 0)
	TH_LOG("%s", llmem_last_error());
	for (uint32_t i = 0; i < BUF_SIZE; i += 4) {
		ASSERT_EQ(memcmp(at + i, &word, 4), 0) TH_LOG("offset %u", i);
	}
	if (a.offset) {
		EXPECT_EQ(at[-1], 0x11);
	}
	if (a.offset + BUF_SIZE < WRAP_SIZE) {
		EXPECT_EQ(at[BUF_SIZE], 0x11);
	}

	/* Host → device: the device copies out what the CPU wrote in place. */
	for (uint32_t i = 0; i < BUF_SIZE; i++)
		at[i] = (uint8_t)(i * 13 + 7);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, b, 0, back, BUF_SIZE, NULL, NULL), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(memcmp(back, at, BUF_SIZE), 0);

	/* Pages come from imports only, and the page is no DMA-BUF. */
	EXPECT_EQ(llmem_memory_add_page(m, 4096, &page), -EINVAL);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	/* The allocation is still the caller's, intact. */
	EXPECT_EQ(host[0], at == host ? (uint8_t)7 : 0x11);
	free(back);
	free(host);
}

/*
 * Coarse-grained SVM over @ptr: the device reads what the host wrote there
 * and writes there what the host then reads, touching no byte around.
 */
static void svm_round_trip(struct __test_metadata *_metadata, struct llmem_session *s,
			   struct llmem_queue *q, uint8_t *ptr, uint64_t size, uint64_t align)
{
	struct llmem_memory_info mi;
	struct llmem_memory *m, *dev;
	struct llmem_buffer *all, *copy;
	uint64_t offset, span;
	uint8_t before = ptr[-1], after = ptr[size], *back = malloc(size);

	ASSERT_NE(back, NULL);
	ASSERT_EQ(llmem_memory_create_from_host(s, ptr, size, "svm", &m, &offset), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(offset, (uintptr_t)ptr % align);
	span = (offset + size + align - 1) / align * align;
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 1);
	EXPECT_EQ(mi.bytes_reserved, span);
	EXPECT_EQ(mi.backend, LLMEM_BACKEND_IMPORT_HOST_POINTER);
	ASSERT_EQ(llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = span }, &all),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_create(s, NULL, &dev), 0);
	ASSERT_EQ(
		llmem_buffer_create(dev, &(struct llmem_buffer_create_info){ .size = size }, &copy),
		0);

	/* Host → device: a device copy out of the caller's bytes. */
	for (uint64_t i = 0; i < size; i++)
		ptr[i] = (uint8_t)(i * 11 + 3);
	ASSERT_EQ(llmem_enqueue_copy_buffer(q, all, offset, copy, 0, size, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(q, copy, 0, back, size, NULL, NULL), 0);
	EXPECT_EQ(memcmp(back, ptr, size), 0);

	/* Device → host: a fill of exactly the caller's range, seen in place. */
	ASSERT_EQ(
		llmem_enqueue_fill_buffer(q, all, offset, size, &(uint8_t){ 0x5a }, 1, NULL, NULL),
		0)
	TH_LOG("%s", llmem_last_error());
	for (uint64_t i = 0; i < size; i++) {
		ASSERT_EQ(ptr[i], 0x5a) TH_LOG("byte %llu", (unsigned long long)i);
	}
	EXPECT_EQ(ptr[-1], before);
	EXPECT_EQ(ptr[size], after);

	llmem_buffer_destroy(copy);
	llmem_buffer_destroy(all);
	EXPECT_EQ(llmem_memory_destroy(dev), 0);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	free(back);
}

/* Host memory of any alignment: malloc'ed, odd offsets, a mapping's middle. */
TEST_F(hostptr, svm_any_alignment)
{
	uint8_t *heap = malloc(3 * self->align + 100), *map;
	size_t map_size = 4 * self->align;

	ASSERT_NE(heap, NULL);
	memset(heap, 0xee, 3 * self->align + 100);
	svm_round_trip(_metadata, self->s, self->q, heap + 1, 1000, self->align);
	svm_round_trip(_metadata, self->s, self->q, heap + 17, 2 * self->align + 5, self->align);
	map = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(map, MAP_FAILED);
	svm_round_trip(_metadata, self->s, self->q, map + 1, map_size - 2, self->align);
	svm_round_trip(_metadata, self->s, self->q, map + self->align - 3, 6, self->align);
	munmap(map, map_size);
	free(heap);
}

/* Bad arguments, and a range that is not mapped, leave no memory behind. */
TEST_F(hostptr, svm_bad_arguments)
{
	struct llmem_memory *m = (void *)1;
	uint8_t byte;
	uint64_t off;
	void *hole;

	EXPECT_FAILS(llmem_memory_create_from_host(NULL, &byte, 1, NULL, &m, &off), -EINVAL);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, NULL, 1, NULL, &m, &off), -EINVAL);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, &byte, 0, NULL, &m, &off), -EINVAL);
	EXPECT_EQ(m, NULL);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, &byte, 1, NULL, NULL, &off), -EINVAL);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, &byte, 1, NULL, &m, NULL), -EINVAL);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, &byte, UINT64_MAX, NULL, &m, &off),
		     -EINVAL);
	/* A range running into a page that is not mapped. */
	hole = mmap(NULL, 2 * self->align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	ASSERT_NE(hole, MAP_FAILED);
	munmap((uint8_t *)hole + self->align, self->align);
	EXPECT_FAILS(llmem_memory_create_from_host(self->s, (uint8_t *)hole + 9, self->align, NULL,
						   &m, &off),
		     -EFAULT);
	EXPECT_EQ(m, NULL);
	munmap(hole, self->align);
}

/* Misaligned pointers and sizes are -EINVAL with a message naming the alignment. */
TEST_F(hostptr, wrap_misaligned)
{
	struct llmem_memory *m;
	char want[32];
	uint8_t *host;
	uint32_t page = 77;

	host = aligned_alloc(self->align, 2 * WRAP_SIZE);
	ASSERT_NE(host, NULL);
	snprintf(want, sizeof(want), "%llu bytes", (unsigned long long)self->align);
	ASSERT_EQ(host_memory(self->s, &m), 0);

	EXPECT_EQ(llmem_memory_import_host(m, host + 64, WRAP_SIZE, &page), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), want), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_NE(strstr(llmem_last_error(), "aligned"), NULL);
	EXPECT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE + 100, &page), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), want), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_memory_import_host(m, host, 0, &page), -EINVAL);
	EXPECT_EQ(llmem_memory_import_host(m, NULL, WRAP_SIZE, &page), -EINVAL);
	EXPECT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE, NULL), -EINVAL);
	EXPECT_EQ(llmem_memory_import_host(NULL, host, WRAP_SIZE, &page), -EINVAL);
	EXPECT_EQ(page, 77);

	/* Two wraps of one allocation's halves are two pages. */
	ASSERT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE, &page), 0);
	EXPECT_EQ(page, 0);
	ASSERT_EQ(llmem_memory_import_host(m, host + WRAP_SIZE, WRAP_SIZE, &page), 0);
	EXPECT_EQ(page, 1);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	free(host);
}

/* Only a memory made for host imports takes host memory. */
TEST_F(hostptr, wrap_needs_host_pointer_import_memory)
{
	struct llmem_memory_create_info plain = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_memory *m;
	uint8_t *host = aligned_alloc(self->align, WRAP_SIZE);
	uint32_t page;

	ASSERT_NE(host, NULL);
	ASSERT_EQ(llmem_memory_create(self->s, &plain, &m), 0);
	EXPECT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE, &page), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "LLMEM_BACKEND_IMPORT_HOST_POINTER"), NULL);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	if (self->info.caps & LLMEM_CAP_DMABUF_IMPORT) {
		struct llmem_memory_create_info dmabuf = {
			.sharing = LLMEM_SHARING_IMPORT,
			.backend = LLMEM_BACKEND_IMPORT_DMABUF,
		};

		ASSERT_EQ(llmem_memory_create(self->s, &dmabuf, &m), 0);
		EXPECT_EQ(llmem_memory_import_host(m, host, WRAP_SIZE, &page), -EINVAL);
		EXPECT_EQ(llmem_memory_destroy(m), 0);
	}
	free(host);
}

/* A raw page: made empty, mapped, written, flushed; objects then use it. */
TEST_F(hostptr, raw_page_map_flush)
{
	struct llmem_memory_create_info ci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_buffer_create_info bci = { .size = BUF_SIZE };
	struct llmem_allocation a;
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	uint8_t *p, *p2, *back;
	uint32_t page;

	back = malloc(BUF_SIZE);
	ASSERT_NE(back, NULL);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0);
	EXPECT_EQ(llmem_memory_add_page(m, 1000, &page), -EINVAL);
	EXPECT_EQ(llmem_memory_add_page(m, 0, &page), -EINVAL);
	ASSERT_EQ(llmem_memory_add_page(m, WRAP_SIZE, &page), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 1);
	EXPECT_EQ(mi.object_count, 0);
	EXPECT_EQ(mi.coherent, !!(mi.flags & LLMEM_MEMORY_HOST_COHERENT));
	EXPECT_EQ(mi.non_coherent_atom_size, mi.coherent ? 0 : self->info.non_coherent_atom_size);

	EXPECT_EQ(llmem_memory_flush_page(m, page, 0, 64), -EINVAL); /* not mapped */
	ASSERT_EQ(llmem_memory_map_page(m, page, (void **)&p), 0);
	ASSERT_EQ(llmem_memory_map_page(m, page, (void **)&p2), 0);
	EXPECT_EQ(p, p2);
	EXPECT_EQ(llmem_memory_map_page(m, page + 1, (void **)&p2), -EINVAL);
	for (uint32_t i = 0; i < WRAP_SIZE; i++)
		p[i] = (uint8_t)(i * 31 + 3);
	/* Odd ranges are widened to atoms, never past the page. */
	EXPECT_EQ(llmem_memory_flush_page(m, page, 3, 5), 0);
	EXPECT_EQ(llmem_memory_flush_page(m, page, WRAP_SIZE - 1, 1), 0);
	EXPECT_EQ(llmem_memory_flush_page(m, page, 0, LLMEM_WHOLE_SIZE), 0);
	EXPECT_EQ(llmem_memory_flush_page(m, page, WRAP_SIZE, 1), -EINVAL);
	EXPECT_EQ(llmem_memory_invalidate_page(m, page, 0, LLMEM_WHOLE_SIZE), 0);

	/* An object laid out in the page reads the bytes written raw. */
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0);
	ASSERT_EQ(llmem_buffer_get_allocation(b, &a), 0);
	EXPECT_EQ(a.page, page);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, b, 0, back, BUF_SIZE, NULL, NULL), 0);
	EXPECT_EQ(memcmp(back, p + a.offset, BUF_SIZE), 0);
	llmem_buffer_destroy(b);

	EXPECT_EQ(llmem_memory_unmap_page(m, page), 0);
	EXPECT_EQ(llmem_memory_unmap_page(m, page), 0);
	EXPECT_EQ(llmem_memory_unmap_page(m, page), -EINVAL);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.mapped_pages, 0);
	/* The page stays, empty, until the memory goes. */
	EXPECT_EQ(mi.page_count, 1);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	free(back);
}

/* Opaque-fd memory: pages export opaque fds, never DMA-BUFs. */
TEST_F(hostptr, opaque_fd_export)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.sharing = LLMEM_SHARING_OPAQUE_FD,
	};
	struct llmem_memory_create_info plain = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_buffer_create_info bci = { .size = BUF_SIZE };
	struct llmem_memory_info mi;
	struct llmem_memory *m, *pm;
	struct llmem_buffer *b;
	uint32_t word = 0x01020304, back[4];
	uint32_t page;
	int fd = -1, fd2 = -1;

	ASSERT_EQ(llmem_memory_create(self->s, &ci, &m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.sharing, LLMEM_SHARING_OPAQUE_FD);
	EXPECT_EQ(mi.backend, LLMEM_BACKEND_VULKAN_OPAQUE_FD);
	EXPECT_STREQ(llmem_backend_name(mi.backend), "vulkan-opaque-fd");
	ASSERT_EQ(llmem_memory_add_page(m, WRAP_SIZE, &page), 0);
	ASSERT_EQ(llmem_memory_export_page_opaque_fd(m, page, &fd), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_export_page_opaque_fd(m, page, &fd2), 0);
	EXPECT_GE(fd, 0);
	EXPECT_NE(fd, fd2);
	EXPECT_EQ(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	close(fd2);
	EXPECT_EQ(llmem_memory_export_page_opaque_fd(m, page + 1, &fd), -EINVAL);
	EXPECT_EQ(llmem_memory_export_page(m, page, &fd), -ENOTSUP);

	/* Buffers on it declare the handle type and work as usual. */
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_enqueue_fill_buffer(self->q, b, 0, BUF_SIZE, &word, 4, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(self->q, b, 64, back, sizeof(back), NULL, NULL), 0);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(back[i], word);
	}
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(m), 0);

	ASSERT_EQ(llmem_memory_create(self->s, &plain, &pm), 0);
	ASSERT_EQ(llmem_memory_add_page(pm, 4096, &page), 0);
	EXPECT_EQ(llmem_memory_export_page_opaque_fd(pm, page, &fd), -ENOTSUP);
	EXPECT_EQ(llmem_memory_destroy(pm), 0);
}

/*
 * Without libcuda, or with no CUDA device behind the session, CUDA calls fail
 * cleanly; only an NVIDIA session may get a context.
 */
TEST_F(hostptr, cuda_absent_or_matching)
{
	struct llmem_cuda *cu = (struct llmem_cuda *)1;
	int ret = llmem_cuda_create(self->s, &cu);

	if (self->info.vendor_id == 0x10de && ret == 0) {
		EXPECT_NE(cu, NULL);
		llmem_cuda_destroy(cu);
	} else {
		EXPECT_TRUE(ret == -ENOTSUP || ret == -ENODEV)
		TH_LOG("%d: %s", ret, llmem_last_error());
		EXPECT_EQ(cu, NULL);
		EXPECT_NE(strstr(llmem_last_error(), "CUDA"), NULL)
		TH_LOG("%s", llmem_last_error());
	}
	EXPECT_EQ(llmem_cuda_create(NULL, &cu), -EINVAL);
	EXPECT_EQ(llmem_cuda_memory_pointer(NULL), 0);
	llmem_cuda_destroy(NULL);
	llmem_cuda_memory_destroy(NULL);
}

TEST_HARNESS_MAIN
