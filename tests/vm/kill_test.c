// SPDX-License-Identifier: MIT
/*
 * Kill and limits (issue 20, item 6).  SIGKILL at the worst moment: a page
 * share (llmem_share_send_page() over a Unix socket) loses its sender
 * mid-message, and the receiver gets -ECONNRESET and keeps no page, object
 * or fd; or loses its receiver mid-receive, and the sender gets -EPIPE and
 * keeps its page.  A process holding buffers mapped, attached to vgem,
 * queued to vivid (VIDIOC_QBUF, streaming) and with work queued on an llmem
 * queue is killed: every llmem.ko page comes back and vivid captures again.
 * And with RLIMIT_NOFILE at the fds already open, export, export_range,
 * import and camera open give -EMFILE and leave no fd, object or page.
 * Shared pages come from llmem.ko here, so that its live-page counter sees
 * each of them go.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm.h>
#include <linux/videodev2.h>
#include <llmem/llmem.h>

#include "../module/llmem_test.h"
#include "kselftest_harness.h"
#include "test_util.h"

/* Enough objects that their layout outgrows the socket's small buffer. */
#define OBJECTS 512
#define SNDBUF 4096

/* Waits up to 60 s until @pid sleeps in one of the system calls @nrs. */
static int wait_in_syscall(pid_t pid, const long *nrs, int n)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (int tries = 0; tries < 600; tries++) {
		FILE *f = fopen(path, "re");
		long nr = -1;

		if (!f)
			return -errno;
		if (fgets(buf, sizeof(buf), f))
			nr = strtol(buf, NULL, 10);
		fclose(f);
		for (int i = 0; i < n; i++)
			if (nr == nrs[i])
				return 0;
		usleep(100 * 1000);
	}
	return -ETIMEDOUT;
}

static struct llmem_session *session(void)
{
	struct llmem_session_create_info ci = { .app_name = "kill" };
	struct llmem_session *s = NULL;

	llmem_session_create(&ci, &s);
	return s;
}

/* Pages from llmem.ko, which counts them. */
static struct llmem_memory *llmem_pages(struct llmem_session *s, uint64_t page_size)
{
	struct llmem_memory_create_info ci = {
		.page_size = page_size,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	};
	struct llmem_memory *m = NULL;

	llmem_memory_create(s, &ci, &m);
	return m;
}

/*
 * The sending process: a page of OBJECTS buffers sent through @sock, whose
 * buffer is small enough that the message cannot go at once.  Writes what
 * the send returned to @report and whether its page and objects survived;
 * exits 0, or 1 when it could not set up.
 */
static void sender_main(int sock, int report)
{
	struct llmem_buffer_create_info bci = { .size = 256 };
	struct llmem_buffer *b[OBJECTS];
	struct llmem_memory_info mi;
	struct llmem_session *s = session();
	struct llmem_memory *m = s ? llmem_pages(s, 1 << 20) : NULL;
	int sndbuf = SNDBUF, result[2];

	if (!m || setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)))
		_exit(1);
	for (int i = 0; i < OBJECTS; i++)
		if (llmem_buffer_create(m, &bci, &b[i]))
			_exit(1);
	result[0] = llmem_share_send_page(sock, m, 0);
	result[1] =
		!llmem_memory_get_info(m, &mi) && mi.page_count == 1 && mi.object_count == OBJECTS;
	if (report >= 0 && write(report, result, sizeof(result)) != sizeof(result))
		_exit(1);
	for (int i = 0; i < OBJECTS; i++)
		llmem_buffer_destroy(b[i]);
	llmem_memory_destroy(m);
	llmem_session_destroy(s);
	_exit(0);
}

static const long send_calls[] = { SYS_sendmsg, SYS_sendto };

FIXTURE(kill)
{
	long before;
};

FIXTURE_SETUP(kill)
{
	self->before = llmem_live_pages();
	ASSERT_GE(self->before, 0) TH_LOG("llmem.ko's debugfs counter");
}

FIXTURE_TEARDOWN(kill)
{
	EXPECT_EQ(llmem_live_pages_back_to(self->before), self->before)
	TH_LOG("llmem.ko pages still live");
}

/* The sender dies mid-message: the receiver gets -ECONNRESET, keeps nothing. */
TEST_F_TIMEOUT(kill, sender_mid_message, 300)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_shared_object objects[OBJECTS];
	struct llmem_buffer *buffers[OBJECTS];
	struct llmem_memory_info mi;
	struct llmem_session *s;
	struct llmem_memory *m;
	int sv[2], queued = 0, status, fds;
	uint32_t page;
	pid_t pid;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(sv[1]);
		sender_main(sv[0], -1);
	}
	close(sv[0]);
	/* Blocked in the send, part of the message with the fd already ours. */
	ASSERT_EQ(wait_in_syscall(pid, send_calls, 2), 0);
	ASSERT_EQ(ioctl(sv[1], FIONREAD, &queued), 0);
	ASSERT_GT(queued, 0);
	ASSERT_LT(queued, (int)(OBJECTS * sizeof(objects[0])));
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	s = session();
	ASSERT_NE(s, NULL) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_create(s, &ci, &m), 0);
	fds = count_open_fds();
	EXPECT_EQ(llmem_share_recv_page(sv[1], m, objects, buffers, OBJECTS, &page), -ECONNRESET)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(count_open_fds(), fds);
	ASSERT_EQ(llmem_memory_get_info(m, &mi), 0);
	EXPECT_EQ(mi.page_count, 0);
	EXPECT_EQ(mi.object_count, 0);
	close(sv[1]);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
	llmem_session_destroy(s);
}

/* The receiver dies mid-receive: the sender gets -EPIPE and keeps its page. */
TEST_F_TIMEOUT(kill, receiver_mid_receive, 300)
{
	static const long recv_call[] = { SYS_recvfrom };
	int sv[2], report[2], result[2] = { 0, 0 }, status;
	pid_t sender, receiver;

	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
	sender = fork();
	ASSERT_GE(sender, 0);
	if (sender == 0) {
		close(sv[1]);
		close(report[0]);
		sender_main(sv[0], report[1]);
	}
	close(report[1]);
	/* Stopped mid-message, so that the receiver waits for the rest. */
	ASSERT_EQ(wait_in_syscall(sender, send_calls, 2), 0);
	ASSERT_EQ(kill(sender, SIGSTOP), 0);
	receiver = fork();
	ASSERT_GE(receiver, 0);
	if (receiver == 0) {
		struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
		static struct llmem_shared_object objects[OBJECTS];
		static struct llmem_buffer *buffers[OBJECTS];
		struct llmem_session *s = session();
		struct llmem_memory *m = NULL;
		uint32_t page;

		close(sv[0]);
		if (!s || llmem_memory_create(s, &ci, &m))
			_exit(1);
		llmem_share_recv_page(sv[1], m, objects, buffers, OBJECTS, &page);
		_exit(2);
	}
	close(sv[0]);
	close(sv[1]);
	/* Past the header and its fd, waiting for the objects' layout. */
	ASSERT_EQ(wait_in_syscall(receiver, recv_call, 1), 0);
	ASSERT_EQ(kill(receiver, SIGKILL), 0);
	ASSERT_EQ(waitpid(receiver, &status, 0), receiver);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ASSERT_EQ(kill(sender, SIGCONT), 0);
	ASSERT_EQ(read(report[0], result, sizeof(result)), (ssize_t)sizeof(result));
	EXPECT_EQ(result[0], -EPIPE);
	EXPECT_EQ(result[1], 1) TH_LOG("the sender's page and objects are intact");
	ASSERT_EQ(waitpid(sender, &status, 0), sender);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(report[0]);
}

/*
 * The process that holds everything: two frames of an llmem.ko page queued
 * to vivid (streaming) and mapped, the page attached to vgem, a fill
 * submitted and a write recorded in an open batch on a queue.  Writes one
 * byte to @ready and waits to be killed; exits 1 when it could not set up.
 */
static void holder_main(int ready)
{
	struct llmem_buffer_create_info bci = { .alignment = 4096 };
	static const uint8_t data[4096] = { 1 };
	struct llmem_buffer *frames[2], *big;
	struct llmem_dmabuf_region r;
	struct llmem_event *ev;
	struct llmem_queue *q;
	struct llmem_session *s = session();
	struct llmem_memory *m = s ? llmem_pages(s, 4 << 20) : NULL;
	int video = open_vivid_capture(), vgem = drm_card_of("vgem"), type;
	uint32_t pattern = 0x5a5a5a5a;
	size_t sizeimage;
	void *map;

	if (!m || video < 0 || vgem < 0 || capture_set_yuyv(video, 640, 480, &sizeimage) ||
	    capture_reqbufs(video, V4L2_MEMORY_DMABUF, 2) != 2)
		_exit(1);
	bci.size = sizeimage;
	for (uint32_t i = 0; i < 2; i++) {
		struct v4l2_buffer buf = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_DMABUF,
			.index = i,
		};

		if (llmem_buffer_create(m, &bci, &frames[i]) ||
		    llmem_buffer_export_range(frames[i], &r))
			_exit(1);
		buf.m.fd = r.fd;
		buf.length = (uint32_t)r.size;
		if (xioctl(video, VIDIOC_QBUF, &buf) || llmem_buffer_map(frames[i], &map))
			_exit(1);
	}
	type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (xioctl(video, VIDIOC_STREAMON, &type) || llmem_buffer_export(frames[0], &r))
		_exit(1);
	struct drm_prime_handle prime = { .fd = r.fd };

	if (xioctl(vgem, DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime))
		_exit(1);
	bci = (struct llmem_buffer_create_info){ .size = 16 << 20 };
	if (llmem_buffer_create(m, &bci, &big) || llmem_queue_create(s, NULL, &q) ||
	    llmem_enqueue_fill_buffer(q, big, 0, bci.size, &pattern, 4, NULL, &ev) ||
	    llmem_queue_begin_batch(q) ||
	    llmem_enqueue_write_buffer(q, big, 0, data, sizeof(data), NULL, NULL))
		_exit(1);
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* SIGKILL with buffers mapped, attached, queued to a camera and on a queue. */
TEST_F_TIMEOUT(kill, holding_mapped_attached_queued, 300)
{
	struct v4l2_buffer buf;
	int ready[2], status, video, type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	pid_t pid;
	char c;

	ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(ready[0]);
		holder_main(ready[1]);
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1) TH_LOG("the holder could not set up");
	EXPECT_GT(llmem_live_pages(), self->before);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(ready[0]);
	EXPECT_EQ(llmem_live_pages_back_to(self->before), self->before);

	/* vivid let go of the dead process's queue: it captures a frame again. */
	video = open_vivid_capture();
	ASSERT_GE(video, 0);
	ASSERT_EQ(capture_set_yuyv(video, 640, 480, &(size_t){ 0 }), 0);
	ASSERT_EQ(capture_reqbufs(video, V4L2_MEMORY_MMAP, 2), 2);
	for (uint32_t i = 0; i < 2; i++) {
		buf = (struct v4l2_buffer){ .type = type, .memory = V4L2_MEMORY_MMAP, .index = i };
		ASSERT_EQ(xioctl(video, VIDIOC_QBUF, &buf), 0);
	}
	ASSERT_EQ(xioctl(video, VIDIOC_STREAMON, &type), 0);
	EXPECT_EQ(capture_dqbuf(video, &buf, V4L2_MEMORY_MMAP), 0);
	EXPECT_EQ(xioctl(video, VIDIOC_STREAMOFF, &type), 0);
	close(video);
}

FIXTURE(nofile)
{
	struct llmem_session *s;
	struct llmem_memory *m, *im;
	struct llmem_buffer *b;
	int fd;
	char path[32];
	struct rlimit old;
};

FIXTURE_SETUP(nofile)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_buffer_create_info bci = { .size = 64 << 10, .alignment = 4096 };
	struct llmem_dmabuf_region r;

	self->s = session();
	ASSERT_NE(self->s, NULL) TH_LOG("%s", llmem_last_error());
	self->m = llmem_pages(self->s, 1 << 20);
	ASSERT_NE(self->m, NULL) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->im), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &bci, &self->b), 0);
	ASSERT_EQ(llmem_buffer_export(self->b, &r), 0);
	self->fd = r.fd;
	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &self->old), 0);
}

FIXTURE_TEARDOWN(nofile)
{
	setrlimit(RLIMIT_NOFILE, &self->old);
	close(self->fd);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->im), 0);
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	llmem_session_destroy(self->s);
}

/* Objects and pages of both memories. */
static uint64_t nofile_state(FIXTURE_DATA(nofile) * f)
{
	struct llmem_memory_info a, b;

	if (llmem_memory_get_info(f->m, &a) || llmem_memory_get_info(f->im, &b))
		return UINT64_MAX;
	return (uint64_t)a.object_count << 48 | (uint64_t)a.page_count << 32 |
	       (uint64_t)b.object_count << 16 | b.page_count;
}

/* With no fd left to take, each call that makes one says so and keeps nothing. */
TEST_F_TIMEOUT(nofile, export_import_camera, 300)
{
	struct llmem_camera_create_info cci = { .device = self->path, .buffers = 2 };
	struct llmem_dmabuf_region r;
	struct llmem_camera *cam = NULL;
	uint64_t state = nofile_state(self);
	struct rlimit low = self->old;
	int fds = count_open_fds(), next;
	uint32_t page;

	/* Exactly the fds open now: the next one is refused. */
	next = fcntl(0, F_DUPFD_CLOEXEC, 0);
	ASSERT_GE(next, 0);
	close(next);
	low.rlim_cur = (rlim_t)next;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
	EXPECT_EQ(llmem_buffer_export(self->b, &r), -EMFILE) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(r.fd, -1);
	EXPECT_EQ(llmem_buffer_export_range(self->b, &r), -EMFILE)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(r.fd, -1);
	EXPECT_EQ(llmem_memory_import_dmabuf(self->im, self->fd, 0, &page), -EMFILE)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_camera_open(self->s, &cci, &cam), -EMFILE)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(cam, NULL);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &self->old), 0);
	EXPECT_EQ(count_open_fds(), fds);
	EXPECT_EQ(nofile_state(self), state);
	/* And each works again once fds are to be had. */
	ASSERT_EQ(llmem_buffer_export_range(self->b, &r), 0);
	close(r.fd);
	ASSERT_EQ(llmem_camera_open(self->s, &cci, &cam), 0) TH_LOG("%s", llmem_last_error());
	llmem_camera_close(cam);
}

TEST_HARNESS_MAIN
