// SPDX-License-Identifier: MIT
/*
 * Buffers sub-allocated in one page of llmem.ko's memory, each exported as
 * a DMA-BUF of its own (llmem_buffer_export_range()), and frames described
 * for importers with and without an offset (llmem_buffer_export_frame()),
 * inside the VM on both kernels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#define PAGE_SIZE (64u << 10)

FIXTURE(export_range)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	/* a: the page's first bytes; b: 4096-aligned after it, of an odd size. */
	struct llmem_buffer *a, *b;
};

FIXTURE_SETUP(export_range)
{
	struct llmem_memory_create_info mci = {
		.page_size = PAGE_SIZE,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
		.name = "ranges",
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){
					      .size = 8192, .alignment = 4096, .name = "a" },
				      &self->a),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m,
				      &(struct llmem_buffer_create_info){
					      .size = 5000, .alignment = 4096, .name = "b" },
				      &self->b),
		  0);
}

FIXTURE_TEARDOWN(export_range)
{
	llmem_buffer_destroy(self->a);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* A range is the buffer's bytes, whole pages, written and read both ways. */
TEST_F_TIMEOUT(export_range, range_is_the_buffers_bytes, 120)
{
	struct llmem_dmabuf_region r;
	struct llmem_allocation al;
	struct llmem_dmabuf_state st;
	uint8_t *map, *via_fd;

	ASSERT_EQ(llmem_buffer_get_allocation(self->b, &al), 0);
	ASSERT_EQ(al.page, 0);
	ASSERT_NE(al.offset, 0);
	ASSERT_EQ(al.offset % 4096, 0);
	ASSERT_EQ(llmem_buffer_export_range(self->b, &r), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(r.offset, 0);
	EXPECT_EQ(r.size, 8192);
	ASSERT_EQ(llmem_dmabuf_query(r.fd, &st), 0);
	EXPECT_EQ(st.size, 8192);
	EXPECT_NE(st.flags & LLMEM_DMABUF_EXPORTED_BY_LLMEM, 0);

	ASSERT_EQ(llmem_buffer_map(self->b, (void **)&map), 0);
	via_fd = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
	ASSERT_NE(via_fd, MAP_FAILED);
	for (int i = 0; i < 5000; i++)
		map[i] = (uint8_t)(i * 7 + 1);
	ASSERT_EQ(llmem_buffer_flush(self->b, 0, LLMEM_WHOLE_SIZE), 0);
	for (int i = 0; i < 5000; i++)
		ASSERT_EQ(via_fd[i], (uint8_t)(i * 7 + 1));
	memset(via_fd, 0x5a, 5000);
	ASSERT_EQ(llmem_buffer_invalidate(self->b, 0, LLMEM_WHOLE_SIZE), 0);
	for (int i = 0; i < 5000; i++)
		ASSERT_EQ(map[i], 0x5a);
	munmap(via_fd, r.size);
	llmem_buffer_unmap(self->b);
	close(r.fd);
}

/* Each buffer of a page gets its own DMA-BUF; the page's fd is another. */
TEST_F_TIMEOUT(export_range, ranges_of_one_page_are_apart, 120)
{
	struct llmem_dmabuf_region ra, rb, page;
	struct llmem_dmabuf_state st;

	ASSERT_EQ(llmem_buffer_export_range(self->a, &ra), 0);
	ASSERT_EQ(llmem_buffer_export_range(self->b, &rb), 0);
	ASSERT_EQ(llmem_buffer_export(self->b, &page), 0);
	EXPECT_NE(ra.fd, rb.fd);
	ASSERT_EQ(llmem_dmabuf_query(page.fd, &st), 0);
	EXPECT_EQ(st.size, PAGE_SIZE);
	EXPECT_EQ(page.offset, 8192);
	ASSERT_EQ(llmem_dmabuf_query(ra.fd, &st), 0);
	EXPECT_EQ(st.size, 8192);
	close(ra.fd);
	close(rb.fd);
	close(page.fd);
}

/* A buffer that does not start on a page, or memory that is not llmem.ko's,
 * has no range; the message says why. */
TEST_F_TIMEOUT(export_range, refused_where_it_cannot_be, 120)
{
	struct llmem_memory_create_info plain_ci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_buffer *odd, *after, *plain_buf;
	struct llmem_dmabuf_region r = { .fd = 99 };
	struct llmem_allocation al;
	struct llmem_memory *plain;

	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 100 },
				      &odd),
		  0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 100 },
				      &after),
		  0);
	ASSERT_EQ(llmem_buffer_get_allocation(after, &al), 0);
	ASSERT_NE(al.offset % 4096, 0);
	EXPECT_FAILS(llmem_buffer_export_range(after, &r), -EINVAL);
	EXPECT_EQ(r.fd, -1);
	EXPECT_NE(strstr(llmem_last_error(), "alignment"), NULL);
	EXPECT_FAILS(llmem_buffer_export_range(NULL, &r), -EINVAL);
	EXPECT_FAILS(llmem_buffer_export_range(self->a, NULL), -EINVAL);

	ASSERT_EQ(llmem_memory_create(self->s, &plain_ci, &plain), 0);
	ASSERT_EQ(llmem_buffer_create(plain, &(struct llmem_buffer_create_info){ .size = 4096 },
				      &plain_buf),
		  0);
	EXPECT_FAILS(llmem_buffer_export_range(plain_buf, &r), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "llmem-dmabuf"), NULL);
	llmem_buffer_destroy(plain_buf);
	llmem_memory_destroy(plain);
	llmem_buffer_destroy(odd);
	llmem_buffer_destroy(after);
}

/* Vulkan's own DMA-BUF pages cannot be cut: 6.12, where it exports them. */
TEST_F_TIMEOUT(export_range, vulkan_dmabuf_pages_have_no_range, 120)
{
	struct llmem_memory_create_info ci = {
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = LLMEM_BACKEND_VULKAN_DMABUF,
	};
	struct llmem_dmabuf_region r;
	struct llmem_memory *vk;
	struct llmem_buffer *buf;
	int ret = llmem_memory_create(self->s, &ci, &vk);

	/* 6.1 has no udmabuf: there the backend itself is refused. */
	if (ret == -ENOTSUP) {
		TH_LOG("no Vulkan DMA-BUF export on this kernel: %s", llmem_last_error());
		EXPECT_EQ(access("/dev/udmabuf", F_OK), -1);
		return;
	}
	ASSERT_EQ(ret, 0);
	ASSERT_EQ(llmem_buffer_create(vk, &(struct llmem_buffer_create_info){ .size = 4096 }, &buf),
		  0);
	EXPECT_FAILS(llmem_buffer_export_range(buf, &r), -ENOTSUP);
	llmem_buffer_destroy(buf);
	EXPECT_EQ(llmem_memory_destroy(vk), 0);
}

/* A frame for importers that take an offset, and for those that take none. */
TEST_F_TIMEOUT(export_range, frame_with_and_without_offset, 120)
{
	struct llmem_frame_layout l;
	struct llmem_dmabuf_frame f;
	struct llmem_dmabuf_state st;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 64, 32, NULL, &l), 0);
	ASSERT_LE(l.size, 5000);

	ASSERT_EQ(llmem_buffer_export_frame(self->b, &l, 0, &f), 0);
	EXPECT_EQ(f.offset[0], 8192);
	EXPECT_EQ(f.offset[1], 8192 + l.offset[1]);
	EXPECT_EQ(f.pitch[1], l.pitch[1]);
	EXPECT_EQ(f.num_planes, 2);
	ASSERT_EQ(llmem_dmabuf_query(f.fd, &st), 0);
	EXPECT_EQ(st.size, PAGE_SIZE);
	close(f.fd);

	ASSERT_EQ(llmem_buffer_export_frame(self->b, &l,
					    LLMEM_EXPORT_RANGE | LLMEM_EXPORT_NO_OFFSET, &f),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(f.offset[0], 0);
	EXPECT_EQ(f.offset[1], l.offset[1]);
	EXPECT_EQ(f.fourcc, DRM_FORMAT_NV12);
	EXPECT_EQ(f.modifier, DRM_FORMAT_MOD_LINEAR);
	ASSERT_EQ(llmem_dmabuf_query(f.fd, &st), 0);
	EXPECT_EQ(st.size, 8192);
	close(f.fd);

	f.fd = 99;
	EXPECT_FAILS(llmem_buffer_export_frame(self->b, &l, LLMEM_EXPORT_NO_OFFSET, &f), -EINVAL);
	EXPECT_EQ(f.fd, -1);
	EXPECT_NE(strstr(llmem_last_error(), "starts at byte 8192"), NULL);
	/* The page's first buffer starts at the fd's first byte either way. */
	ASSERT_EQ(llmem_buffer_export_frame(self->a, &l, LLMEM_EXPORT_NO_OFFSET, &f), 0);
	EXPECT_EQ(f.offset[0], 0);
	close(f.fd);
	EXPECT_FAILS(llmem_buffer_export_frame(self->b, &l, 1u << 7, &f), -EINVAL);
	l.size = 9000;
	EXPECT_FAILS(llmem_buffer_export_frame(self->b, &l, 0, &f), -EINVAL);
}

/* The "name:" line of /proc/self/fdinfo for @fd, in @out ("" without one). */
static void fdinfo_name(int fd, char *out, size_t size)
{
	char path[64], line[256];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "name:\t", 6)) {
			snprintf(out, size, "%s", line + 6);
			out[strcspn(out, "\n")] = '\0';
		}
	fclose(f);
}

/* The library names the DMA-BUFs it makes after what they are for: a page
 * after its memory, a range after its buffer. */
TEST_F_TIMEOUT(export_range, dmabufs_named_after_their_purpose, 120)
{
	struct llmem_dmabuf_region page, range;
	char name[64];

	ASSERT_EQ(llmem_buffer_export(self->a, &page), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_export_range(self->b, &range), 0) TH_LOG("%s", llmem_last_error());
	fdinfo_name(page.fd, name, sizeof(name));
	EXPECT_STREQ(name, "llmem:ranges");
	fdinfo_name(range.fd, name, sizeof(name));
	EXPECT_STREQ(name, "llmem:b");
	close(page.fd);
	close(range.fd);
}

TEST_HARNESS_MAIN
