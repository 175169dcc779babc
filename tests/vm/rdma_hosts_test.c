// SPDX-License-Identifier: MIT
/*
 * Two llmem hosts over software RoCE, in one guest: host A (this process)
 * captures a vivid frame into llmem.ko's pages and writes it by RDMA WRITE
 * WITH IMMEDIATE into llmem.ko's pages of host B (a child process with its
 * own rxe device on the veth's other end), which converts it on the GPU
 * (lavapipe) and checks it; A reads B's copy back by RDMA READ, byte for
 * byte.  The hosts exchange their queue pairs, keys and the frame's layout
 * and checksum over a socket, as two machines would over TCP.
 *
 * Nothing is copied by the CPU on either host: vivid writes the frame into
 * A's pages, rxe (a software NIC) reads and writes both hosts' pages, the
 * GPU reads B's.  The two devices share the initial network namespace,
 * the only one Debian's rxe receives in (docs/rdma.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "../../tools/bench_rdma_verbs.h"
#include "kselftest_harness.h"
#include "rxe.h"
#include "test_util.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define WIDTH 640
#define HEIGHT 480
#define NBUFS 2
#define SEQUENCE 7
/* rxe under TCG moves a few MB/s. */
#define OP_TIMEOUT_MS 60000
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* Host B to A: where to write. */
struct hello_b {
	struct rdma_end_addr end;
	uint64_t addr;
	uint32_t rkey;
	uint32_t size;
};

/* Host A to B: its end, and the frame it will write. */
struct hello_a {
	struct rdma_end_addr end;
	uint32_t fourcc, width, height, pitch, size, encoding, range;
	uint64_t checksum;
};

/* Host B to A once the frame is checked. */
struct verdict {
	int32_t status;
	int32_t worst;
	uint64_t checksum;
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Bytes a veth end sent: the frames leave by the veth, not by lo. */
static uint64_t tx_bytes(const char *ifname)
{
	char path[96];
	unsigned long long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_bytes", ifname);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

static int send_all(int fd, const void *p, size_t n)
{
	return send(fd, p, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -EPIPE;
}

static int recv_all(int fd, void *p, size_t n)
{
	return recv(fd, p, n, MSG_WAITALL) == (ssize_t)n ? 0 : -EPIPE;
}

#define B_FAIL(...)                               \
	do {                                      \
		printf("# host B: " __VA_ARGS__); \
		printf("\n");                     \
		fflush(stdout);                   \
		goto out;                         \
	} while (0)

/* Host B: its own session, pages, device; the frame it receives checked. */
static int host_b(int sock)
{
	struct llmem_memory_create_info shared_ci = { .sharing = LLMEM_SHARING_DMABUF,
						      .backend = LLMEM_BACKEND_LLMEM_DMABUF,
						      .page_size = 1u << 20,
						      .name = "rdma host B" };
	struct llmem_memory_create_info host_ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
	};
	struct llmem_session *s = NULL;
	struct llmem_memory *shared = NULL, *host = NULL;
	struct llmem_buffer *frame = NULL, *rgba = NULL;
	struct llmem_rdma_mr *mr = NULL;
	struct llmem_rdma_mr_info info;
	struct llmem_frame_layout src, dst;
	struct rdma_end e = { 0 };
	struct hello_a a;
	struct hello_b b;
	struct verdict v = { .status = 1, .worst = -1 };
	uint8_t *map = NULL, *rgba_map = NULL, *ref = NULL;
	uint32_t imm = 0;
	bool arrived = false;
	char done;
	int ret;

	if (vk_test_session(&s))
		B_FAIL("session: %s", llmem_last_error());
	if (llmem_memory_create(s, &shared_ci, &shared) || llmem_memory_create(s, &host_ci, &host))
		B_FAIL("memory: %s", llmem_last_error());
	/* The frame's size is A's to say; a megabyte holds any frame here. */
	if (llmem_buffer_create(
		    shared,
		    &(struct llmem_buffer_create_info){ .size = 1u << 20, .alignment = 4096 },
		    &frame))
		B_FAIL("buffer: %s", llmem_last_error());
	ret = rdma_end_open(&e, RXE_DEVICE_B);
	if (ret)
		B_FAIL("%s: %s", RXE_DEVICE_B, e.why);
	if (llmem_rdma_register_buffer(e.pd, frame, ACCESS, 0, &mr) ||
	    llmem_rdma_mr_get_info(mr, &info) || llmem_buffer_map(frame, (void **)&map))
		B_FAIL("register: %s", llmem_last_error());
	b = (struct hello_b){
		.end = e.addr, .addr = info.addr, .rkey = info.rkey, .size = (uint32_t)info.size
	};
	if (send_all(sock, &b, sizeof(b)) || recv_all(sock, &a, sizeof(a)))
		B_FAIL("exchange: A ended");
	/* A queue pair takes receives once it left RESET. */
	if (rdma_end_connect(&e, &a.end) || rdma_end_post_recv(&e) || send_all(sock, "R", 1))
		B_FAIL("connect: %s", e.why);
	if (rdma_end_wait_recv(&e, OP_TIMEOUT_MS, &imm))
		B_FAIL("the frame's WRITE WITH IMMEDIATE: %s", e.why);
	/* From here A waits for a verdict, not for the socket to close. */
	arrived = true;
	if (imm != SEQUENCE)
		B_FAIL("immediate %u, not %u", imm, SEQUENCE);
	v.checksum = fnv1a(map, a.size);
	if (v.checksum != a.checksum)
		B_FAIL("checksum %016llx, A sent %016llx", (unsigned long long)v.checksum,
		       (unsigned long long)a.checksum);
	/* The frame converted where it landed, against the CPU's conversion. */
	if (llmem_frame_layout_init(
		    a.fourcc, a.width, a.height,
		    &(struct llmem_frame_constraints){ .pitch = a.pitch, .min_size = a.size },
		    &src) ||
	    llmem_frame_layout_init(DRM_FORMAT_ABGR8888, a.width, a.height, NULL, &dst) ||
	    llmem_buffer_create(host, &(struct llmem_buffer_create_info){ .size = dst.size },
				&rgba) ||
	    llmem_buffer_map(rgba, (void **)&rgba_map))
		B_FAIL("RGBA frame: %s", llmem_last_error());
	if (llmem_convert_to_rgba(&(struct llmem_convert_info){ .src = frame,
								.src_layout = &src,
								.dst = rgba,
								.dst_layout = &dst,
								.encoding = a.encoding,
								.range = a.range }))
		B_FAIL("convert: %s", llmem_last_error());
	ref = malloc(dst.size);
	if (!ref)
		B_FAIL("out of memory");
	ref_yuyv_to_rgba(map, a.pitch, a.width, a.height, (int)a.encoding, (int)a.range, ref,
			 dst.pitch[0]);
	v.worst = ref_worst_channel(rgba_map, ref, &dst);
	v.status = v.worst <= 2 ? 0 : 1;
	if (llmem_session_validation_messages(s))
		B_FAIL("validation messages");
out:
	/* A reads the frame back before B lets its pages go; before the
	 * frame came, B's end (the socket closing) is A's answer. */
	if (arrived && !send_all(sock, &v, sizeof(v)))
		recv_all(sock, &done, 1);
	free(ref);
	if (rgba_map)
		llmem_buffer_unmap(rgba);
	llmem_buffer_destroy(rgba);
	if (map)
		llmem_buffer_unmap(frame);
	llmem_rdma_deregister(mr);
	rdma_end_close(&e);
	llmem_buffer_destroy(frame);
	llmem_memory_destroy(host);
	llmem_memory_destroy(shared);
	llmem_session_destroy(s);
	return v.status;
}

FIXTURE(hosts)
{
	int sock;
	pid_t b;
	char path[32];
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_v4l2 *dev;
	struct llmem_v4l2_format vf;
	struct llmem_buffer *frames[NBUFS], *back;
	struct llmem_rdma_mr *frame_mr, *back_mr;
	struct rdma_end e;
};

FIXTURE_SETUP(hosts)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .page_size = 1u << 20,
					       .spare_pages = LLMEM_MEMORY_SPARE_NONE,
					       .name = "rdma host A" };
	int sv[2];

	self->sock = -1;
	ASSERT_EQ(rxe_two_devices(), 0) TH_LOG("rdma_rxe, " RXE_DEVICE " and " RXE_DEVICE_B);
	ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	/* Before any Vulkan or verbs state exists, which a fork would share. */
	self->b = fork();
	ASSERT_GE(self->b, 0);
	if (!self->b) {
		close(sv[0]);
		_exit(host_b(sv[1]));
	}
	close(sv[1]);
	self->sock = sv[0];
	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	ASSERT_EQ(vivid_static_pattern(self->path), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_v4l2_open(self->path, &self->dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, &self->vf), 0);
}

FIXTURE_TEARDOWN(hosts)
{
	int status;

	if (self->sock >= 0)
		close(self->sock);
	if (self->b > 0 && waitpid(self->b, &status, WNOHANG) == 0) {
		kill(self->b, SIGKILL);
		waitpid(self->b, &status, 0);
	}
	rdma_end_close(&self->e);
	llmem_rdma_deregister(self->frame_mr);
	llmem_rdma_deregister(self->back_mr);
	llmem_v4l2_close(self->dev);
	for (int i = 0; i < NBUFS; i++)
		llmem_buffer_destroy(self->frames[i]);
	llmem_buffer_destroy(self->back);
	if (self->m)
		EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* One frame from vivid into A's pages, the device stopped after. */
static int capture(FIXTURE_DATA(hosts) * self, uint32_t page, struct llmem_v4l2_frame *frame)
{
	int ret = llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, NBUFS);

	if (ret != NBUFS)
		return ret < 0 ? ret : -ENOMEM;
	ret = 0;
	for (int i = 0; i < NBUFS && !ret; i++) {
		struct llmem_dmabuf_region r;

		ret = llmem_buffer_create(self->m,
					  &(struct llmem_buffer_create_info){ .size = page },
					  &self->frames[i]);
		if (!ret)
			ret = llmem_buffer_export(self->frames[i], &r);
		if (!ret) {
			ret = r.offset ? -EINVAL
				       : llmem_v4l2_queue_dmabuf(self->dev, i, r.fd, page);
			close(r.fd);
		}
	}
	if (!ret)
		ret = llmem_v4l2_stream_on(self->dev);
	if (!ret)
		ret = llmem_v4l2_dequeue(self->dev, 10000, frame);
	if (!ret)
		ret = llmem_v4l2_stream_off(self->dev);
	if (!ret)
		ret = llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 0);
	return ret;
}

TEST_F_TIMEOUT(hosts, camera_frame_write_convert_read, 600)
{
	uint32_t page = (self->vf.sizeimage + 4095) / 4096 * 4096;
	struct llmem_rdma_mr_info fi, bi;
	struct llmem_v4l2_frame frame;
	struct hello_a a;
	struct hello_b b;
	struct verdict v;
	uint8_t *src, *back;
	uint64_t tx_a, tx_b;
	char ready;
	int status;

	ASSERT_EQ(self->vf.fourcc, V4L2_PIX_FMT_YUYV);
	ASSERT_EQ(capture(self, page, &frame), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(frame.bytesused, self->vf.sizeimage);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = page },
				      &self->back),
		  0);
	ASSERT_EQ(rdma_end_open(&self->e, RXE_DEVICE), 0) TH_LOG("%s", self->e.why);
	ASSERT_EQ(llmem_rdma_register_buffer(self->e.pd, self->frames[frame.index], ACCESS, 0,
					     &self->frame_mr),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_rdma_register_buffer(self->e.pd, self->back, ACCESS, 0, &self->back_mr), 0);
	ASSERT_EQ(llmem_rdma_mr_get_info(self->frame_mr, &fi), 0);
	ASSERT_EQ(llmem_rdma_mr_get_info(self->back_mr, &bi), 0);
	EXPECT_EQ(fi.path, LLMEM_RDMA_PATH_MAPPING);
	src = (uint8_t *)(uintptr_t)fi.addr;
	back = (uint8_t *)(uintptr_t)bi.addr;
	memset(back, 0, page);

	ASSERT_EQ(recv_all(self->sock, &b, sizeof(b)), 0) TH_LOG("host B ended before its hello");
	ASSERT_GE(b.size, self->vf.sizeimage);
	a = (struct hello_a){ .end = self->e.addr,
			      .fourcc = self->vf.fourcc,
			      .width = self->vf.width,
			      .height = self->vf.height,
			      .pitch = self->vf.bytesperline,
			      .size = self->vf.sizeimage,
			      .encoding = self->vf.encoding,
			      .range = self->vf.range,
			      .checksum = fnv1a(src, self->vf.sizeimage) };
	ASSERT_EQ(send_all(self->sock, &a, sizeof(a)), 0);
	ASSERT_EQ(rdma_end_connect(&self->e, &b.end), 0) TH_LOG("%s", self->e.why);
	ASSERT_EQ(recv_all(self->sock, &ready, 1), 0) TH_LOG("host B did not connect");

	tx_a = tx_bytes(RXE_NETDEV);
	tx_b = tx_bytes(RXE_NETDEV_B);
	ASSERT_EQ(rdma_end_op(&self->e, IBV_WR_RDMA_WRITE_WITH_IMM, fi.addr, fi.lkey,
			      self->vf.sizeimage, b.addr, b.rkey, SEQUENCE, OP_TIMEOUT_MS),
		  0)
	TH_LOG("WRITE: %s", self->e.why);
	ASSERT_EQ(recv_all(self->sock, &v, sizeof(v)), 0) TH_LOG("host B ended before its verdict");
	EXPECT_GE(tx_bytes(RXE_NETDEV) - tx_a, self->vf.sizeimage);
	EXPECT_EQ(v.checksum, a.checksum);
	EXPECT_EQ(v.status, 0) TH_LOG("host B: worst channel %d", v.worst);
	EXPECT_LE(v.worst, 2);
	EXPECT_GE(v.worst, 0);
	TH_LOG("%u bytes, %s: B's conversion within %d of the CPU's", self->vf.sizeimage,
	       fi.dmabuf_refusal, v.worst);

	ASSERT_EQ(rdma_end_op(&self->e, IBV_WR_RDMA_READ, bi.addr, bi.lkey, self->vf.sizeimage,
			      b.addr, b.rkey, 0, OP_TIMEOUT_MS),
		  0)
	TH_LOG("READ: %s", self->e.why);
	EXPECT_EQ(memcmp(back, src, self->vf.sizeimage), 0);
	/* The READ's responses came from B's end of the veth. */
	EXPECT_GE(tx_bytes(RXE_NETDEV_B) - tx_b, self->vf.sizeimage);
	ASSERT_EQ(send_all(self->sock, "D", 1), 0);
	ASSERT_EQ(waitpid(self->b, &status, 0), self->b);
	self->b = 0;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_HARNESS_MAIN
