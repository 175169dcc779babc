// SPDX-License-Identifier: MIT
/*
 * Explicit sync inside the VM on both kernels, with vgem as the other
 * device: vgem attaches a fence it signals when told to, so a sync_file of
 * unsignalled work can be made on demand.  Its fence travels into an llmem
 * buffer's reservation object (llmem.ko's on one variant, Vulkan's on
 * 6.12's other), llmem.ko's tracker sees it, readers and writers wait for
 * it, and a queue waits for it before its next operation.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <vgem_drm.h>
#include <xf86drm.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

/* vgem signals its fences by itself after 10 s; tests signal long before. */
#define SIGNAL_DELAY_MS 300

/*
 * Whether the device takes sync_files in semaphores, both ways, as
 * docs/sync.md says of the guests the VM suites run in (`llmem info` there
 * shows sync_fd_export and sync_fd_import).  A device or kernel without an
 * entry fails: a capability lost or gained must not pass unnoticed.
 */
static const struct {
	const char *driver;
	const char *kernel; /* uname's release starts with it */
	bool sync_fd;
} documented_sync_fd[] = {
	{ "llvmpipe", "6.1.", false },
	{ "llvmpipe", "6.12.", true },
};

static int expected_sync_fd(const struct llmem_session_info *info, bool *sync_fd)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	for (size_t i = 0; i < sizeof(documented_sync_fd) / sizeof(documented_sync_fd[0]); i++)
		if (!strcmp(info->driver_name, documented_sync_fd[i].driver) &&
		    !strncmp(u.release, documented_sync_fd[i].kernel,
			     strlen(documented_sync_fd[i].kernel))) {
			*sync_fd = documented_sync_fd[i].sync_fd;
			return 0;
		}
	return -1;
}

/* The vgem card, by its driver's name, or -1. */
static int open_vgem(void)
{
	for (int i = 0; i < 16; i++) {
		char path[32];
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strcmp(v->name, "vgem")) {
			drmFreeVersion(v);
			return fd;
		}
		drmFreeVersion(v);
		close(fd);
	}
	return -1;
}

FIXTURE(sync)
{
	struct llmem_session *s;
	struct llmem_session_info info;
	/* Whether docs/sync.md says the device takes sync_files here. */
	bool sync_fd;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	int vgem;
	uint32_t bo, fence;
	/* The vgem buffer as a DMA-BUF, and its unsignalled fence as a sync_file. */
	int bo_fd, busy;
	bool signalled;
};

FIXTURE_VARIANT(sync)
{
	uint32_t backend;
};

FIXTURE_VARIANT_ADD(sync, llmem_pages){
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

FIXTURE_VARIANT_ADD(sync, best_pages){
	.backend = 0,
};

FIXTURE_SETUP(sync)
{
	struct llmem_memory_create_info mci = {
		.page_size = 1 << 20,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = variant->backend,
	};
	struct drm_mode_create_dumb dumb = { .width = 64, .height = 64, .bpp = 32 };
	struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };

	self->busy = self->bo_fd = -1;
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_session_get_info(self->s, &self->info), 0);
	ASSERT_EQ(expected_sync_fd(&self->info, &self->sync_fd), 0)
	TH_LOG("docs/sync.md says nothing of %s on this kernel: add it to documented_sync_fd",
	       self->info.driver_name);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = 65536 },
				      &self->b),
		  0);
	self->vgem = open_vgem();
	ASSERT_GE(self->vgem, 0) TH_LOG("no vgem card: the rig loads vgem");
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb), 0);
	self->bo = dumb.handle;
	ASSERT_EQ(drmPrimeHandleToFD(self->vgem, self->bo, DRM_CLOEXEC | DRM_RDWR, &self->bo_fd),
		  0);
	attach.handle = self->bo;
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach), 0);
	self->fence = attach.out_fence;
	ASSERT_EQ(llmem_dmabuf_export_sync_file(self->bo_fd, LLMEM_SYNC_WRITE, &self->busy), 0)
	TH_LOG("%s", llmem_last_error());
}

static void signal_vgem(int vgem, uint32_t fence)
{
	struct drm_vgem_fence_signal sig = { .fence = fence };

	xioctl(vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig);
}

FIXTURE_TEARDOWN(sync)
{
	/* An unsignalled fence would hold the buffers for 10 s. */
	if (!self->signalled)
		signal_vgem(self->vgem, self->fence);
	if (self->busy >= 0)
		close(self->busy);
	if (self->bo_fd >= 0)
		close(self->bo_fd);
	if (self->vgem >= 0)
		close(self->vgem);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* A buffer nobody works on has nothing to wait for: its sync_file is
 * signalled already. */
TEST_F_TIMEOUT(sync, idle_buffer_exports_a_signalled_file, 120)
{
	int fd;

	ASSERT_EQ(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_READ | LLMEM_SYNC_WRITE, &fd),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_sync_file_wait(fd, 0), 0);
	close(fd);
	/* vgem's busy one is not, until vgem signals it. */
	EXPECT_EQ(llmem_sync_file_wait(self->busy, 0), -ETIMEDOUT);
}

/* A writer's fence imported into the buffer: readers and writers wait for
 * it, the tracker counts it, and it goes when vgem signals. */
TEST_F_TIMEOUT(sync, writer_fence_travels_with_the_buffer, 120)
{
	struct llmem_dmabuf_state st;
	struct llmem_dmabuf_region r;
	int for_readers, for_writers;

	ASSERT_EQ(llmem_buffer_import_sync_file(self->b, LLMEM_SYNC_WRITE, self->busy), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_READ, &for_readers), 0);
	ASSERT_EQ(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_WRITE, &for_writers), 0);
	EXPECT_EQ(llmem_sync_file_wait(for_readers, 0), -ETIMEDOUT);
	EXPECT_EQ(llmem_sync_file_wait(for_writers, 50), -ETIMEDOUT);

	ASSERT_EQ(llmem_buffer_export(self->b, &r), 0);
	ASSERT_EQ(llmem_dmabuf_query(r.fd, &st), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_NE(st.known & LLMEM_DMABUF_KNOWN_FENCES, 0);
	EXPECT_GE(st.fences, 1);
	EXPECT_GE(st.write_fences, 1);
	if (st.known & LLMEM_DMABUF_KNOWN_MAPPABLE)
		EXPECT_EQ(st.flags & LLMEM_DMABUF_CPU_MAPPABLE, 0);

	signal_vgem(self->vgem, self->fence);
	self->signalled = true;
	EXPECT_EQ(llmem_sync_file_wait(for_readers, 5000), 0);
	EXPECT_EQ(llmem_sync_file_wait(for_writers, 5000), 0);
	ASSERT_EQ(llmem_dmabuf_query(r.fd, &st), 0);
	EXPECT_EQ(st.fences, 0);
	EXPECT_EQ(st.write_fences, 0);
	if (st.known & LLMEM_DMABUF_KNOWN_MAPPABLE)
		EXPECT_NE(st.flags & LLMEM_DMABUF_CPU_MAPPABLE, 0);
	close(r.fd);
	close(for_readers);
	close(for_writers);
}

/* Any DMA-BUF mapped and bracketed by its fd alone: bytes written through
 * the mapping of the page's DMA-BUF are the buffer's, and the bracket
 * refuses an fd that is no DMA-BUF. */
TEST_F_TIMEOUT(sync, dmabuf_fd_cpu_access, 120)
{
	struct llmem_dmabuf_region r;
	uint8_t *map, *seen;
	uint64_t size, wrong = 0;

	ASSERT_EQ(llmem_buffer_export(self->b, &r), 0) TH_LOG("%s", llmem_last_error());
	size = r.offset + r.size;
	ASSERT_EQ(llmem_dmabuf_map(r.fd, 0, size, LLMEM_CPU_READ | LLMEM_CPU_WRITE, (void **)&map),
		  0)
	TH_LOG("%s", llmem_last_error());
	/* The mapping holds the buffer: the fd may go first. */
	close(r.fd);
	ASSERT_EQ(llmem_dmabuf_begin_cpu_access(self->bo_fd, LLMEM_CPU_READ), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_dmabuf_end_cpu_access(self->bo_fd, LLMEM_CPU_READ), 0);

	ASSERT_EQ(llmem_buffer_export(self->b, &r), 0);
	ASSERT_EQ(llmem_dmabuf_begin_cpu_access(r.fd, LLMEM_CPU_WRITE), 0)
	TH_LOG("%s", llmem_last_error());
	for (uint64_t i = 0; i < r.size; i++)
		map[r.offset + i] = (uint8_t)(i * 7 + 1);
	ASSERT_EQ(llmem_dmabuf_end_cpu_access(r.fd, LLMEM_CPU_WRITE), 0);
	close(r.fd);

	ASSERT_EQ(llmem_buffer_begin_cpu_access(self->b, LLMEM_CPU_READ), 0);
	ASSERT_EQ(llmem_buffer_map(self->b, (void **)&seen), 0);
	for (uint64_t i = 0; i < r.size; i++)
		wrong += seen[i] != (uint8_t)(i * 7 + 1);
	EXPECT_EQ(wrong, 0);
	llmem_buffer_unmap(self->b);
	ASSERT_EQ(llmem_buffer_end_cpu_access(self->b, LLMEM_CPU_READ), 0);
	EXPECT_EQ(llmem_dmabuf_unmap(map, size), 0);
}

/* A reader's fence holds writers back, not other readers. */
TEST_F_TIMEOUT(sync, reader_fence_holds_writers_only, 120)
{
	int for_readers, for_writers;

	ASSERT_EQ(llmem_buffer_import_sync_file(self->b, LLMEM_SYNC_READ, self->busy), 0);
	ASSERT_EQ(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_READ, &for_readers), 0);
	ASSERT_EQ(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_WRITE, &for_writers), 0);
	EXPECT_EQ(llmem_sync_file_wait(for_readers, 0), 0);
	EXPECT_EQ(llmem_sync_file_wait(for_writers, 0), -ETIMEDOUT);
	signal_vgem(self->vgem, self->fence);
	self->signalled = true;
	EXPECT_EQ(llmem_sync_file_wait(for_writers, 5000), 0);
	close(for_readers);
	close(for_writers);
}

struct delayed_signal {
	int vgem;
	uint32_t fence;
};

static void *signal_later(void *arg)
{
	struct delayed_signal *d = arg;

	usleep(SIGNAL_DELAY_MS * 1000);
	signal_vgem(d->vgem, d->fence);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The device takes sync_files, both ways, where docs/sync.md says it does,
 * and nowhere else. */
TEST_F_TIMEOUT(sync, sync_fd_where_the_docs_say, 120)
{
	struct utsname u;

	ASSERT_EQ(uname(&u), 0);
	TH_LOG("%s on %s: sync_files %s", self->info.driver_name, u.release,
	       self->sync_fd ? "on the device" : "on the CPU");
	EXPECT_EQ(!!(self->info.caps & LLMEM_CAP_SYNC_FD_EXPORT), self->sync_fd);
	EXPECT_EQ(!!(self->info.caps & LLMEM_CAP_SYNC_FD_IMPORT), self->sync_fd);
}

/*
 * A queue's next operation starts after the sync_file signals: on the
 * device where it imports sync_files, and then the call returns with the
 * fence still pending, nobody having signalled it; else the call waits on
 * the CPU.  The buffer is host visible, so the operations would go through
 * a mapping if the queue let the host run ahead of the fence.
 */
TEST_F_TIMEOUT(sync, queue_waits_for_a_sync_file, 120)
{
	struct delayed_signal d = { self->vgem, self->fence };
	struct llmem_queue *q;
	uint32_t value = 0x12345678, back = 0;
	pthread_t t;
	double t0;

	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	if (self->sync_fd) {
		ASSERT_EQ(llmem_queue_wait_sync_file(q, self->busy), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(llmem_sync_file_wait(self->busy, 0), -ETIMEDOUT);
	}
	ASSERT_EQ(pthread_create(&t, NULL, signal_later, &d), 0);
	t0 = now_ms();
	if (!self->sync_fd) {
		ASSERT_EQ(llmem_queue_wait_sync_file(q, self->busy), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_GE(now_ms() - t0, SIGNAL_DELAY_MS - 50);
	}
	/* Blocking: done, so after the fence, whoever waited for it. */
	ASSERT_EQ(llmem_enqueue_write_buffer(q, self->b, 0, &value, 4, NULL, NULL), 0);
	ASSERT_EQ(llmem_enqueue_read_buffer(q, self->b, 0, &back, 4, NULL, NULL), 0);
	EXPECT_GE(now_ms() - t0, SIGNAL_DELAY_MS - 50);
	EXPECT_EQ(back, value);
	pthread_join(t, NULL);
	self->signalled = true;
	llmem_queue_destroy(q);
}

/* A queue signals a sync_file where docs/sync.md says the device exports
 * them; elsewhere it says it cannot. */
TEST_F_TIMEOUT(sync, queue_signals_a_sync_file_where_it_can, 120)
{
	struct llmem_queue *q;
	uint32_t value = 7;
	int fd = 99;

	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	if (!self->sync_fd) {
		EXPECT_FAILS(llmem_queue_signal_sync_file(q, &fd), -ENOTSUP);
		EXPECT_EQ(fd, -1);
		TH_LOG("%s: %s", self->info.device_name, llmem_last_error());
	} else {
		struct llmem_event *ev;

		ASSERT_EQ(llmem_enqueue_write_buffer(q, self->b, 0, &value, 4, NULL, &ev), 0);
		ASSERT_EQ(llmem_queue_signal_sync_file(q, &fd), 0) TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(llmem_sync_file_wait(fd, 10000), 0);
		EXPECT_EQ(llmem_event_wait(ev, 0), 0);
		llmem_event_release(ev);
		close(fd);
	}
	ASSERT_EQ(llmem_queue_begin_batch(q), 0);
	EXPECT_FAILS(llmem_queue_signal_sync_file(q, &fd), self->sync_fd ? -EBUSY : -ENOTSUP);
	llmem_queue_discard_batch(q);
	llmem_queue_destroy(q);
}

/* Every bad argument fails with its errno and a message of its own. */
TEST_F_TIMEOUT(sync, bad_arguments, 120)
{
	struct llmem_memory_create_info plain_ci = { .flags = LLMEM_MEMORY_HOST_VISIBLE };
	struct llmem_memory *plain;
	struct llmem_buffer *pb;
	struct llmem_queue *q;
	int pipefd[2], fd;
	void *map;

	ASSERT_EQ(pipe2(pipefd, O_CLOEXEC), 0);
	EXPECT_FAILS(llmem_buffer_export_sync_file(self->b, 0, &fd), -EINVAL);
	EXPECT_FAILS(llmem_buffer_export_sync_file(self->b, 4, &fd), -EINVAL);
	EXPECT_FAILS(llmem_buffer_export_sync_file(self->b, LLMEM_SYNC_READ, NULL), -EINVAL);
	EXPECT_FAILS(llmem_buffer_export_sync_file(NULL, LLMEM_SYNC_READ, &fd), -EINVAL);
	EXPECT_FAILS(llmem_buffer_import_sync_file(self->b, LLMEM_SYNC_READ | LLMEM_SYNC_WRITE,
						   self->busy),
		     -EINVAL);
	EXPECT_FAILS(llmem_buffer_import_sync_file(self->b, LLMEM_SYNC_WRITE, pipefd[0]), -EINVAL);
	EXPECT_FAILS(llmem_buffer_import_sync_file(self->b, LLMEM_SYNC_WRITE, 999), -EBADF);
	EXPECT_FAILS(llmem_dmabuf_export_sync_file(pipefd[0], LLMEM_SYNC_READ, &fd), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_export_sync_file(-1, LLMEM_SYNC_READ, &fd), -EBADF);
	EXPECT_FAILS(llmem_dmabuf_import_sync_file(pipefd[0], LLMEM_SYNC_READ, self->busy),
		     -EINVAL);
	EXPECT_FAILS(llmem_sync_file_wait(pipefd[0], 0), -EINVAL);
	EXPECT_FAILS(llmem_sync_file_wait(-3, 0), -EBADF);

	EXPECT_FAILS(llmem_dmabuf_begin_cpu_access(self->bo_fd, 0), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_end_cpu_access(self->bo_fd, 4), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_begin_cpu_access(pipefd[0], LLMEM_CPU_READ), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_end_cpu_access(-1, LLMEM_CPU_READ), -EBADF);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 0, 4096, LLMEM_CPU_READ, NULL), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 0, 0, LLMEM_CPU_READ, &map), -EINVAL);
	EXPECT_EQ(map, NULL);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 1, 4096, LLMEM_CPU_READ, &map), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 4096, UINT64_MAX, LLMEM_CPU_READ, &map),
		     -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 0, 4096, 0, &map), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_map(self->bo_fd, 0, 4096, 8, &map), -EINVAL);
	EXPECT_FAILS(llmem_dmabuf_map(-1, 0, 4096, LLMEM_CPU_READ, &map), -EBADF);
	EXPECT_FAILS(llmem_dmabuf_map(pipefd[0], 0, 4096, LLMEM_CPU_READ, &map), -ENODEV);
	EXPECT_FAILS(llmem_dmabuf_unmap(&fd, 0), -EINVAL);
	EXPECT_EQ(llmem_dmabuf_unmap(NULL, 4096), 0);

	ASSERT_EQ(llmem_memory_create(self->s, &plain_ci, &plain), 0);
	ASSERT_EQ(llmem_buffer_create(plain, &(struct llmem_buffer_create_info){ .size = 64 }, &pb),
		  0);
	EXPECT_FAILS(llmem_buffer_export_sync_file(pb, LLMEM_SYNC_READ, &fd), -ENOTSUP);
	EXPECT_FAILS(llmem_buffer_import_sync_file(pb, LLMEM_SYNC_READ, self->busy), -ENOTSUP);
	llmem_buffer_destroy(pb);
	llmem_memory_destroy(plain);

	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	EXPECT_FAILS(llmem_queue_wait_sync_file(NULL, self->busy), -EINVAL);
	EXPECT_FAILS(llmem_queue_wait_sync_file(q, pipefd[1]), -EINVAL);
	EXPECT_FAILS(llmem_queue_wait_sync_file(q, 999), -EBADF);
	EXPECT_FAILS(llmem_queue_signal_sync_file(NULL, &fd), -EINVAL);
	EXPECT_FAILS(llmem_queue_signal_sync_file(q, NULL), -EINVAL);
	llmem_queue_destroy(q);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_HARNESS_MAIN
