// SPDX-License-Identifier: MIT
/*
 * Pages shared between processes and with other drivers: a page and its
 * objects sent over a Unix socket and rebuilt in a child process that writes
 * back through them, the refusals of send and receive, and a DMA-BUF that a
 * camera exported imported as a page the shader converts from.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"
#include "yuv_ref.h"

static const uint64_t sizes[] = { 4096, 10000, 65536 };

static uint8_t pattern(int object, uint64_t i)
{
	return (uint8_t)(object * 61 + i * 7);
}

/* The child: rebuild the page's buffers, check them, write into the second. */
static int child_receive(int sock)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_shared_object objs[8];
	struct llmem_buffer *bufs[8];
	struct llmem_session *s;
	struct llmem_memory *m;
	uint32_t page;
	int n, bad = 0;
	char done = 'd';

	if (vk_test_session(&s) || llmem_memory_create(s, &ci, &m))
		return 10;
	n = llmem_share_recv_page(sock, m, objs, bufs, 8, &page);
	if (n != 3)
		return 11;
	for (int o = 0; o < n; o++) {
		uint8_t *p;

		if (!bufs[o] || objs[o].size != sizes[o] || llmem_buffer_map(bufs[o], (void **)&p))
			return 12;
		llmem_buffer_begin_cpu_access(bufs[o], LLMEM_CPU_READ | LLMEM_CPU_WRITE);
		for (uint64_t i = 0; i < sizes[o]; i++)
			bad += p[i] != pattern(o, i);
		if (o == 1)
			memset(p, 0x5a, sizes[o]);
		llmem_buffer_end_cpu_access(bufs[o], LLMEM_CPU_READ | LLMEM_CPU_WRITE);
		llmem_buffer_unmap(bufs[o]);
	}
	if (bad)
		return 13;
	if (write(sock, &done, 1) != 1)
		return 14;
	for (int o = 0; o < n; o++)
		llmem_buffer_destroy(bufs[o]);
	if (llmem_memory_destroy(m) || llmem_session_validation_messages(s))
		return 15;
	llmem_session_destroy(s);
	return 0;
}

FIXTURE(share)
{
	struct llmem_session *s;
	struct llmem_memory *shared;
};

FIXTURE_SETUP(share)
{
	struct llmem_memory_create_info ci = {
		.page_size = 1 << 20,
		.sharing = LLMEM_SHARING_DMABUF,
	};

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->shared), 0)
	TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(share)
{
	EXPECT_EQ(llmem_memory_destroy(self->shared), 0);
	VK_TEST_SESSION_END(self->s);
}

/* A child process sees the sender's bytes, and the sender sees the child's. */
TEST_F_TIMEOUT(share, page_to_another_process, 180)
{
	struct llmem_buffer *bufs[3];
	int sv[2], status, bad = 0;
	uint8_t *back;
	pid_t pid;
	char done;

	for (int o = 0; o < 3; o++) {
		struct llmem_buffer_create_info bci = { .size = sizes[o], .name = "shared" };
		struct llmem_allocation a;
		uint8_t *p;

		ASSERT_EQ(llmem_buffer_create(self->shared, &bci, &bufs[o]), 0);
		ASSERT_EQ(llmem_buffer_get_allocation(bufs[o], &a), 0);
		ASSERT_EQ(a.page, 0);
		ASSERT_EQ(llmem_buffer_map(bufs[o], (void **)&p), 0);
		for (uint64_t i = 0; i < sizes[o]; i++)
			p[i] = pattern(o, i);
		ASSERT_EQ(llmem_buffer_unmap(bufs[o]), 0);
	}
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(child_receive(sv[1]));
	}
	close(sv[1]);
	ASSERT_EQ(llmem_share_send_page(sv[0], self->shared, 0), 0);
	ASSERT_EQ(read(sv[0], &done, 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);

	ASSERT_EQ(llmem_buffer_map(bufs[1], (void **)&back), 0);
	ASSERT_EQ(llmem_buffer_begin_cpu_access(bufs[1], LLMEM_CPU_READ), 0);
	for (uint64_t i = 0; i < sizes[1]; i++)
		bad += back[i] != 0x5a;
	ASSERT_EQ(llmem_buffer_end_cpu_access(bufs[1], LLMEM_CPU_READ), 0);
	EXPECT_EQ(bad, 0);
	llmem_buffer_unmap(bufs[1]);
	close(sv[0]);
	for (int o = 0; o < 3; o++)
		llmem_buffer_destroy(bufs[o]);
}

/* Send refuses memory that is not shared and pages that do not exist. */
TEST_F_TIMEOUT(share, send_refusals, 120)
{
	struct llmem_memory_create_info plain_ci = { 0 };
	struct llmem_buffer_create_info bci = { .size = 4096 };
	struct llmem_memory *plain;
	struct llmem_buffer *b;
	int sv[2];

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &plain_ci, &plain), 0);
	ASSERT_EQ(llmem_buffer_create(plain, &bci, &b), 0);
	ASSERT_EQ(llmem_share_send_page(sv[0], plain, 0), -ENOTSUP);
	ASSERT_EQ(llmem_share_send_page(sv[0], self->shared, 7), -EINVAL);
	ASSERT_EQ(llmem_share_send_page(sv[0], NULL, 0), -EINVAL);
	llmem_buffer_destroy(b);
	ASSERT_EQ(llmem_memory_destroy(plain), 0);
	close(sv[0]);
	close(sv[1]);
}

/* Receive refuses a plain memory, garbage, a closed peer and too little room. */
TEST_F_TIMEOUT(share, recv_refusals, 120)
{
	struct llmem_memory_create_info import_ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_buffer_create_info bci = { .size = 4096 };
	struct llmem_shared_object objs[1];
	struct llmem_buffer *bufs[1], *b1, *b2;
	struct llmem_memory *import;
	uint32_t page;
	int sv[2];

	ASSERT_EQ(llmem_memory_create(self->s, &import_ci, &import), 0);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_EQ(llmem_share_recv_page(sv[1], self->shared, objs, bufs, 1, &page), -EINVAL);
	ASSERT_EQ(write(sv[0], "not a page message, not at all", 30), 30);
	ASSERT_EQ(llmem_share_recv_page(sv[1], import, objs, bufs, 1, &page), -EPROTO);
	/* What is left of the garbage would spoil the next message. */
	close(sv[0]);
	close(sv[1]);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);

	ASSERT_EQ(llmem_buffer_create(self->shared, &bci, &b1), 0);
	ASSERT_EQ(llmem_buffer_create(self->shared, &bci, &b2), 0);
	ASSERT_EQ(llmem_share_send_page(sv[0], self->shared, 0), 0);
	ASSERT_EQ(llmem_share_recv_page(sv[1], import, objs, bufs, 1, &page), -ENOSPC);
	close(sv[0]);
	ASSERT_EQ(llmem_share_recv_page(sv[1], import, objs, bufs, 1, &page), -ECONNRESET);
	close(sv[1]);
	llmem_buffer_destroy(b1);
	llmem_buffer_destroy(b2);
	ASSERT_EQ(llmem_memory_destroy(import), 0);
}

/* Import refuses plain memories, closed fds, files that are not DMA-BUFs. */
TEST_F_TIMEOUT(share, import_refusals, 120)
{
	struct llmem_memory_create_info import_ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_memory *import;
	uint32_t page;
	int fd;

	ASSERT_EQ(llmem_memory_create(self->s, &import_ci, &import), 0);
	ASSERT_EQ(llmem_memory_export_page(self->shared, 0, &fd), -EINVAL);
	ASSERT_EQ(llmem_memory_import_dmabuf(self->shared, 0, 0, &page), -EINVAL);
	ASSERT_EQ(llmem_memory_import_dmabuf(import, 1000, 0, &page), -EBADF);
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_LT(llmem_memory_import_dmabuf(import, fd, 0, &page), 0);
	close(fd);
	ASSERT_EQ(llmem_memory_destroy(import), 0);
}

/*
 * The reverse path: a frame vivid captured into its own buffer, exported with
 * VIDIOC_EXPBUF and imported as a page, converts like a frame in our pages.
 */
TEST_F_TIMEOUT(share, import_camera_buffer, 180)
{
	struct llmem_memory_create_info import_ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_memory_create_info host_ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
	};
	struct llmem_frame_layout src, dst;
	struct llmem_frame_constraints c;
	struct llmem_memory *import, *host;
	struct llmem_buffer *frame, *rgba;
	struct llmem_v4l2_format vf;
	struct llmem_v4l2_frame f;
	struct llmem_v4l2 *dev;
	uint8_t *rgba_map, *cam, *ref;
	char path[32];
	uint32_t page;
	int fd, worst = 0;

	ASSERT_EQ(vivid_capture_path(0, path, sizeof(path)), 0);
	ASSERT_EQ(llmem_v4l2_open(path, &dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(dev, V4L2_PIX_FMT_YUYV, 640, 480, &vf), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(dev, LLMEM_V4L2_MEMORY_MMAP, 2), 2);
	ASSERT_EQ(llmem_v4l2_queue(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_queue(dev, 1), 0);
	ASSERT_EQ(llmem_v4l2_stream_on(dev), 0);
	ASSERT_EQ(llmem_v4l2_dequeue(dev, 10000, &f), 0);
	ASSERT_EQ(llmem_v4l2_export(dev, f.index, &fd), 0);

	ASSERT_EQ(llmem_memory_create(self->s, &import_ci, &import), 0);
	ASSERT_EQ(llmem_memory_import_dmabuf(import, fd, 0, &page), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(import,
				      &(struct llmem_buffer_create_info){ .size = vf.sizeimage },
				      &frame),
		  0);
	c = (struct llmem_frame_constraints){ .pitch = vf.bytesperline, .min_size = vf.sizeimage };
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_YUYV, 640, 480, &c, &src), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 640, 480, NULL, &dst), 0);
	ASSERT_EQ(llmem_memory_create(self->s, &host_ci, &host), 0);
	ASSERT_EQ(llmem_buffer_create(host, &(struct llmem_buffer_create_info){ .size = dst.size },
				      &rgba),
		  0);
	ASSERT_EQ(llmem_buffer_map(rgba, (void **)&rgba_map), 0);
	ASSERT_EQ(llmem_convert_to_rgba(&(struct llmem_convert_info){
			  .src = frame, .src_layout = &src, .dst = rgba, .dst_layout = &dst }),
		  0);

	cam = mmap(NULL, vf.sizeimage, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(cam, MAP_FAILED);
	ref = malloc(dst.size);
	ref_yuyv_to_rgba(cam, src.pitch[0], 640, 480, 0, 0, ref, dst.pitch[0]);
	for (uint64_t i = 0; i < dst.size; i++) {
		int d = abs((int)rgba_map[i] - (int)ref[i]);

		worst = d > worst ? d : worst;
	}
	EXPECT_LE(worst, 2);
	munmap(cam, vf.sizeimage);
	free(ref);

	llmem_buffer_unmap(rgba);
	llmem_buffer_destroy(rgba);
	llmem_buffer_destroy(frame);
	EXPECT_EQ(llmem_memory_destroy(host), 0);
	EXPECT_EQ(llmem_memory_destroy(import), 0);
	close(fd);
	llmem_v4l2_close(dev);
}

TEST_HARNESS_MAIN
