// SPDX-License-Identifier: MIT
/*
 * The fault-injection loop (loop.h) on the public calls that need what only
 * the VM has: DMA-BUFs (llmem.ko on both kernels, Vulkan's own export on
 * 6.12), vivid, vicodec and vkms.  Exports (a buffer, a range of its own, a
 * frame both ways, a page, a sync_file), imports (a DMA-BUF, a page from
 * another process's socket, and the send that gives it), and the opening
 * of a V4L2 node, a camera (and its start), a codec and a display, and
 * frames of a negotiated layout tried on the Vulkan device.  Each
 * failure must give the injected errno, no handle, and leave no object,
 * page, mapped page, fd or mapping behind.  The calls that need none of
 * this are looped on the host (tests/vulkan/fault_test.c) and not again
 * here: under TCG each try costs a hundred times more.
 */
#include <sys/socket.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "loop.h"

FIXTURE(fault_vm)
{
	struct llmem_session *s;
	/* Pages from the best backend here, and from llmem.ko for ranges. */
	struct llmem_memory *shared, *ranged;
	struct llmem_buffer *b, *rb;
	struct llmem_frame_layout layout;
	/* What an operation makes fresh for each try, in setup. */
	struct llmem_memory *scratch;
	struct llmem_camera *camera;
	int sock[2];
	int fd;
	char path[64];
};

FIXTURE_SETUP(fault_vm)
{
	struct llmem_session_create_info sci = { .app_name = "fault_vm" };
	struct llmem_memory_create_info ci = {
		.page_size = 1 << 20,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.name = "fault-shared",
	};
	struct llmem_memory_create_info rci = ci;
	struct llmem_buffer_create_info bci = { .size = 256 << 10, .alignment = 4096 };
	struct llmem_dmabuf_region r;

	rci.backend = LLMEM_BACKEND_LLMEM_DMABUF;
	rci.name = "fault-ranged";
	self->sock[0] = self->sock[1] = self->fd = -1;
	ASSERT_EQ(llmem_session_create(&sci, &self->s), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_create(self->s, &ci, &self->shared), 0)
	TH_LOG("the VM shares DMA-BUFs: %s", llmem_last_error());
	ASSERT_EQ(llmem_memory_create(self->s, &rci, &self->ranged), 0)
	TH_LOG("llmem.ko is loaded: %s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(self->shared, &bci, &self->b), 0);
	ASSERT_EQ(llmem_buffer_create(self->ranged, &bci, &self->rb), 0);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_XRGB8888, 64, 64, NULL, &self->layout), 0);
	/* The first page fd is the memory's own: later tries compare against it. */
	ASSERT_EQ(llmem_buffer_export(self->b, &r), 0);
	close(r.fd);
}

FIXTURE_TEARDOWN(fault_vm)
{
	llmem_buffer_destroy(self->rb);
	llmem_buffer_destroy(self->b);
	EXPECT_EQ(llmem_memory_destroy(self->ranged), 0);
	EXPECT_EQ(llmem_memory_destroy(self->shared), 0);
	llmem_session_destroy(self->s);
	EXPECT_EQ(fault_leak_check(), 0);
}

typedef FIXTURE_DATA(fault_vm) fault_t;

static uint64_t state(void *ctx)
{
	fault_t *f = ctx;

	return fault_memories_state(f->shared, f->ranged, f->scratch);
}

/* An exported fd is the handle: fd + 1, never NULL. */
static void *fd_handle(int fd)
{
	return (void *)(intptr_t)(fd + 1);
}

static void undo_fd(void *ctx, void *obj)
{
	close((int)(intptr_t)obj - 1);
}

static int run_export(void *ctx, void **out)
{
	struct llmem_dmabuf_region r;
	fault_t *f = ctx;
	int ret = llmem_buffer_export(f->b, &r);

	if (!ret)
		*out = fd_handle(r.fd);
	return ret;
}

static int run_export_range(void *ctx, void **out)
{
	struct llmem_dmabuf_region r;
	fault_t *f = ctx;
	int ret = llmem_buffer_export_range(f->rb, &r);

	if (!ret)
		*out = fd_handle(r.fd);
	return ret;
}

static int export_frame(fault_t *f, struct llmem_buffer *b, uint32_t flags, void **out)
{
	struct llmem_dmabuf_frame fr;
	int ret = llmem_buffer_export_frame(b, &f->layout, flags, &fr);

	if (!ret)
		*out = fd_handle(fr.fd);
	return ret;
}

static int run_export_frame(void *ctx, void **out)
{
	return export_frame(ctx, ((fault_t *)ctx)->b, 0, out);
}

static int run_export_frame_range(void *ctx, void **out)
{
	return export_frame(ctx, ((fault_t *)ctx)->rb, LLMEM_EXPORT_RANGE, out);
}

static int run_export_page(void *ctx, void **out)
{
	struct llmem_allocation a;
	fault_t *f = ctx;
	int fd, ret;

	llmem_buffer_get_allocation(f->b, &a);
	ret = llmem_memory_export_page(f->shared, a.page, &fd);
	if (!ret)
		*out = fd_handle(fd);
	return ret;
}

static int run_export_sync_file(void *ctx, void **out)
{
	fault_t *f = ctx;
	int fd, ret = llmem_buffer_export_sync_file(f->b, LLMEM_SYNC_WRITE, &fd);

	if (!ret)
		*out = fd_handle(fd);
	return ret;
}

static void teardown_scratch(void *ctx)
{
	fault_t *f = ctx;

	llmem_memory_destroy(f->scratch);
	f->scratch = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	for (int i = 0; i < 2; i++) {
		if (f->sock[i] >= 0)
			close(f->sock[i]);
		f->sock[i] = -1;
	}
}

static int setup_import(void *ctx)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	struct llmem_dmabuf_region r;
	fault_t *f = ctx;
	int ret = llmem_buffer_export(f->b, &r);

	if (ret)
		return ret;
	f->fd = r.fd;
	return llmem_memory_create(f->s, &ci, &f->scratch);
}

static int run_import(void *ctx, void **out)
{
	fault_t *f = ctx;
	uint32_t page;
	int ret = llmem_memory_import_dmabuf(f->scratch, f->fd, 0, &page);

	if (!ret)
		*out = (void *)(uintptr_t)(page + 1);
	return ret;
}

static void undo_nothing(void *ctx, void *obj)
{
}

/* A socket pair for each try; a page sent through it, for the receiver. */
static int setup_socket(void *ctx)
{
	fault_t *f = ctx;

	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, f->sock) ? -errno : 0;
}

/* Success: the handle is the socket; the message is dropped with it. */
static int run_send(void *ctx, void **out)
{
	fault_t *f = ctx;
	int ret = llmem_share_send_page(f->sock[0], f->shared, fault_page_of(f->b));

	if (!ret)
		*out = fd_handle(f->sock[0]);
	return ret;
}

static int setup_recv(void *ctx)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_IMPORT };
	fault_t *f = ctx;
	int ret = setup_socket(ctx);

	if (!ret)
		ret = llmem_share_send_page(f->sock[0], f->shared, fault_page_of(f->b));
	if (!ret)
		ret = llmem_memory_create(f->s, &ci, &f->scratch);
	return ret;
}

static struct llmem_buffer *received[4];

static int run_recv(void *ctx, void **out)
{
	struct llmem_shared_object objects[4];
	fault_t *f = ctx;
	uint32_t page;
	int ret = llmem_share_recv_page(f->sock[1], f->scratch, objects, received, 4, &page);

	if (ret < 0)
		return ret;
	*out = received;
	return 0;
}

static void undo_recv(void *ctx, void *obj)
{
	for (int i = 0; i < 4; i++) {
		llmem_buffer_destroy(received[i]);
		received[i] = NULL;
	}
}

static const struct fault_op sharing[] = {
	FAULT_OP("llmem_buffer_export", run_export, undo_fd),
	FAULT_OP("llmem_buffer_export_range", run_export_range, undo_fd),
	FAULT_OP("llmem_buffer_export_frame", run_export_frame, undo_fd),
	FAULT_OP("llmem_buffer_export_frame (LLMEM_EXPORT_RANGE)", run_export_frame_range, undo_fd),
	FAULT_OP("llmem_memory_export_page", run_export_page, undo_fd),
	FAULT_OP("llmem_buffer_export_sync_file", run_export_sync_file, undo_fd),
	FAULT_OP_FRESH("llmem_memory_import_dmabuf", setup_import, run_import, undo_nothing,
		       teardown_scratch),
	FAULT_OP_FRESH("llmem_share_send_page", setup_socket, run_send, undo_nothing,
		       teardown_scratch),
	FAULT_OP_FRESH("llmem_share_recv_page", setup_recv, run_recv, undo_recv, teardown_scratch),
};

/* Every export and import, every failure point of each kind. */
TEST_F_TIMEOUT(fault_vm, export_and_import, 600)
{
	for (size_t i = 0; i < sizeof(sharing) / sizeof(sharing[0]); i++) {
		struct fault_op op = sharing[i];

		op.state = state;
		EXPECT_GT(fault_loop(_metadata, &op, self), 0)
		TH_LOG("%s reached no call that can fail", op.name);
	}
}

static int run_v4l2(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_v4l2_open(f->path, (struct llmem_v4l2 **)out);
}

static void undo_v4l2(void *ctx, void *obj)
{
	llmem_v4l2_close(obj);
}

/* Two buffers, the fewest a camera takes: each try costs less. */
static int run_camera(void *ctx, void **out)
{
	struct llmem_camera_create_info ci = { .device = ((fault_t *)ctx)->path, .buffers = 2 };
	fault_t *f = ctx;

	return llmem_camera_open(f->s, &ci, (struct llmem_camera **)out);
}

static void undo_camera(void *ctx, void *obj)
{
	llmem_camera_close(obj);
}

static int setup_camera(void *ctx)
{
	fault_t *f = ctx;

	return run_camera(ctx, (void **)&f->camera);
}

static int run_camera_start(void *ctx, void **out)
{
	fault_t *f = ctx;
	int ret = llmem_camera_start(f->camera);

	if (!ret)
		*out = f->camera;
	return ret;
}

static void undo_camera_start(void *ctx, void *obj)
{
	llmem_camera_stop(obj);
}

static void teardown_camera(void *ctx)
{
	fault_t *f = ctx;

	llmem_camera_close(f->camera);
	f->camera = NULL;
}

/*
 * vivid's first capture node: a V4L2 handle, a camera, its start.  The
 * camera's memory picks its backend by allocating a page of each and
 * exporting it, and reads any failure there, out of memory included, as
 * "this backend cannot share": Vulkan's DMA-BUF allocation fails with
 * VK_ERROR_OUT_OF_DEVICE_MEMORY on a kernel without udmabuf.  A failure
 * injected into that probe gives -ENOTSUP, which camera_open documents.
 */
TEST_F_TIMEOUT(fault_vm, capture, 600)
{
	static const struct fault_op ops[] = {
		FAULT_OP("llmem_v4l2_open", run_v4l2, undo_v4l2),
		{ .name = "llmem_camera_open",
		  .run = run_camera,
		  .undo = undo_camera,
		  .also = -ENOTSUP },
		FAULT_OP_FRESH("llmem_camera_start", setup_camera, run_camera_start,
			       undo_camera_start, teardown_camera),
	};

	ASSERT_EQ(llmem_v4l2_find_capture(self->path, sizeof(self->path)), 0)
	TH_LOG("vivid is loaded: %s", llmem_last_error());
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct fault_op op = ops[i];

		op.state = state;
		EXPECT_GT(fault_loop(_metadata, &op, self), 0)
		TH_LOG("%s reached no call that can fail", op.name);
	}
}

static int run_codec(void *ctx, void **out)
{
	fault_t *f = ctx;

	return llmem_codec_open(f->path, (struct llmem_codec **)out);
}

static void undo_codec(void *ctx, void *obj)
{
	llmem_codec_close(obj);
}

static int run_display(void *ctx, void **out)
{
	return llmem_display_open(NULL, (struct llmem_display **)out);
}

static void undo_display(void *ctx, void *obj)
{
	llmem_display_close(obj);
}

/* vicodec's stateful encoder, and the first KMS device (vkms). */
TEST_F_TIMEOUT(fault_vm, codec_and_display, 600)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_ENCODER, .driver = "vicodec" };
	struct fault_op codec = {
		.name = "llmem_codec_open", .run = run_codec, .undo = undo_codec, .state = state
	};
	struct fault_op display = { .name = "llmem_display_open",
				    .run = run_display,
				    .undo = undo_display,
				    .state = state };

	ASSERT_EQ(llmem_codec_find(&fi, self->path, sizeof(self->path)), 0)
	TH_LOG("the rig loads vicodec: %s", llmem_last_error());
	EXPECT_GT(fault_loop(_metadata, &codec, self), 0);
	EXPECT_GT(fault_loop(_metadata, &display, self), 0);
}

static int run_frames(void *ctx, void **out)
{
	struct llmem_participant vulkan;
	struct llmem_negotiate_request r = { .width = 64, .height = 64 };
	struct llmem_negotiated n;
	fault_t *f = ctx;
	int ret = llmem_participant_vulkan(f->s, LLMEM_VULKAN_USAGE_STORAGE, &vulkan);

	if (!ret)
		ret = llmem_negotiate(&vulkan, 1, &r, &n);
	if (!ret)
		ret = llmem_frames_create(f->s,
					  &(struct llmem_frames_create_info){
						  .negotiated = &n,
						  .participants = &vulkan,
						  .num_participants = 1,
						  .flags = LLMEM_FRAMES_CHECK,
						  .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					  },
					  (struct llmem_frames **)out);
	return ret;
}

static void undo_frames(void *ctx, void *obj)
{
	llmem_frames_destroy(obj);
}

/*
 * Frames of a negotiated layout on llmem.ko's pages, each range exported
 * and imported again by the Vulkan device that checks them.  Their memory
 * probes its backend as the camera's does (above): a failure there is
 * -ENOTSUP, which llmem_memory_create() documents.
 */
TEST_F_TIMEOUT(fault_vm, frames, 600)
{
	struct fault_op op = { .name = "llmem_frames_create",
			       .run = run_frames,
			       .undo = undo_frames,
			       .state = state,
			       .also = -ENOTSUP };

	EXPECT_GT(fault_loop(_metadata, &op, self), 0);
}

TEST_HARNESS_MAIN
