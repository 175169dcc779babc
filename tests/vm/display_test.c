// SPDX-License-Identifier: MIT
/*
 * The display API on vkms inside the VM, on both kernels: llmem frames
 * imported by PRIME, scanned out with atomic commits and written back by
 * vkms's writeback connector into other llmem frames, which must match the
 * source in every pixel.  Fences: the writeback connector's out-fence says
 * when a frame is there, the CRTC's when it is shown; an in-fence (vgem's,
 * which signals when told to) and a writer's fence held in the buffer's own
 * reservation object (llmem.ko's exporter, or Vulkan's) hold the frame back
 * until they signal.  Small modes, few frames: TCG is slow.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <vgem_drm.h>
#include <drm_fourcc.h>
#include <xf86drm.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vkms.h"
#include "vk_test.h"

#define WIDTH 640
#define HEIGHT 480
#define FENCE_MS 10000
/* How long a held frame must stay held to count as held. */
#define HELD_MS 300

/* A frame of its own on the fixture's shared memory. */
struct frame {
	struct llmem_buffer *b;
	struct llmem_frame_layout l;
	uint32_t *px;
	struct llmem_display_fb *fb;
};

FIXTURE(display)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_display *d;
	struct llmem_display_info info;
	char path[LLMEM_DRM_PATH_LEN];
	/* The variant's fourcc where the primary plane takes it, else XRGB8888. */
	uint32_t fourcc;
	struct frame src[2], wb[2];
	int vgem;
	uint32_t vgem_bo, vgem_fence;
	bool vgem_busy;
};

FIXTURE_VARIANT(display)
{
	uint32_t backend;
	uint32_t fourcc;
};

/* llmem.ko's pages (both kernels' exporter), XRGB8888. */
FIXTURE_VARIANT_ADD(display, llmem_pages){
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	.fourcc = DRM_FORMAT_XRGB8888,
};

/* Each kernel's best backend (Vulkan's own DMA-BUF on 6.12), ARGB8888
 * where the primary plane takes it (6.12's vkms; 6.1's has XRGB8888 only). */
FIXTURE_VARIANT_ADD(display, best_pages){
	.backend = 0,
	.fourcc = DRM_FORMAT_ARGB8888,
};

static int make_frame(struct __test_metadata *_metadata, struct llmem_memory *m, uint32_t fourcc,
		      struct frame *f)
{
	const struct llmem_frame_constraints c = { .pitch_alignment = 64 };
	void *map;

	ASSERT_EQ(llmem_frame_layout_init(fourcc, WIDTH, HEIGHT, &c, &f->l), 0);
	ASSERT_EQ(llmem_buffer_create(m,
				      &(struct llmem_buffer_create_info){ .size = f->l.size,
									  .alignment = 4096,
									  .name = "display test" },
				      &f->b),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_map(f->b, &map), 0);
	f->px = map;
	return 0;
}

/* Opaque pixels that differ from frame to frame (@seed) and place to place. */
static void paint(struct frame *f, uint32_t seed)
{
	uint32_t stride = f->l.pitch[0] / 4;

	llmem_buffer_begin_cpu_access(f->b, LLMEM_CPU_WRITE);
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++)
			f->px[y * stride + x] = 0xff000000u | ((x * 7 + seed * 61) & 0xff) << 16 |
						((y * 5 + seed * 17) & 0xff) << 8 |
						((x + y + seed * 29) & 0xff);
	llmem_buffer_end_cpu_access(f->b, LLMEM_CPU_WRITE);
}

/* Pixels of @got that differ from @want in red, green or blue. */
static uint32_t mismatches(struct frame *got, struct frame *want)
{
	uint32_t gs = got->l.pitch[0] / 4, ws = want->l.pitch[0] / 4, bad = 0;

	llmem_buffer_begin_cpu_access(got->b, LLMEM_CPU_READ);
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++)
			bad += ((got->px[y * gs + x] ^ want->px[y * ws + x]) & 0xffffff) != 0;
	llmem_buffer_end_cpu_access(got->b, LLMEM_CPU_READ);
	return bad;
}

/* Whether the display's primary plane scans out @fourcc, linear. */
static bool plane_takes(struct llmem_display *d, uint32_t fourcc)
{
	struct llmem_drm_format f[64];
	int n = llmem_display_formats(d, f, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (f[i].fourcc == fourcc && f[i].modifier == DRM_FORMAT_MOD_LINEAR)
			return true;
	return false;
}

static int open_vgem(void)
{
	return drm_card_of("vgem");
}

/* A vgem fence as a sync_file that signals when the test says so. */
static int vgem_sync_file(struct __test_metadata *_metadata, FIXTURE_DATA(display) * self, int *fd)
{
	struct drm_mode_create_dumb dumb = { .width = 64, .height = 64, .bpp = 32 };
	struct drm_vgem_fence_attach attach = { .flags = VGEM_FENCE_WRITE };
	int bo_fd;

	self->vgem = open_vgem();
	ASSERT_GE(self->vgem, 0) TH_LOG("no vgem card: the rig loads vgem");
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_MODE_CREATE_DUMB, &dumb), 0);
	self->vgem_bo = attach.handle = dumb.handle;
	ASSERT_EQ(xioctl(self->vgem, DRM_IOCTL_VGEM_FENCE_ATTACH, &attach), 0);
	self->vgem_fence = attach.out_fence;
	self->vgem_busy = true;
	ASSERT_EQ(drmPrimeHandleToFD(self->vgem, self->vgem_bo, DRM_CLOEXEC | DRM_RDWR, &bo_fd), 0);
	ASSERT_EQ(llmem_dmabuf_export_sync_file(bo_fd, LLMEM_SYNC_WRITE, fd), 0);
	close(bo_fd);
	return 0;
}

static void vgem_signal(FIXTURE_DATA(display) * self)
{
	struct drm_vgem_fence_signal sig = { .fence = self->vgem_fence };

	if (self->vgem_busy)
		xioctl(self->vgem, DRM_IOCTL_VGEM_FENCE_SIGNAL, &sig);
	self->vgem_busy = false;
}

FIXTURE_SETUP(display)
{
	/*
	 * Pages smaller than a frame: each frame gets a page of its own and
	 * starts at its DMA-BUF's first byte.  vkms adds a plane framebuffer's
	 * offset twice on both kernels (its shadow plane's mapping already
	 * holds it), and would show the wrong bytes of a frame further in.
	 */
	struct llmem_memory_create_info mci = {
		.page_size = 1 << 20,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = variant->backend,
	};
	struct llmem_display_create_info dci = {
		.width = WIDTH,
		.height = HEIGHT,
		.flags = LLMEM_DISPLAY_WRITEBACK,
	};

	self->vgem = -1;
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(vkms_path(self->path, sizeof(self->path)), 0) TH_LOG("no vkms: the rig loads it");
	dci.device = self->path;
	ASSERT_EQ(llmem_display_open(&dci, &self->d), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_display_get_info(self->d, &self->info), 0);
	self->fourcc =
		plane_takes(self->d, variant->fourcc) ? variant->fourcc : DRM_FORMAT_XRGB8888;
	for (int i = 0; i < 2; i++) {
		make_frame(_metadata, self->m, self->fourcc, &self->src[i]);
		make_frame(_metadata, self->m, DRM_FORMAT_XRGB8888, &self->wb[i]);
		paint(&self->src[i], i + 1);
		ASSERT_EQ(llmem_display_fb_create_from_buffer(self->d, self->src[i].b,
							      &self->src[i].l, 0, &self->src[i].fb),
			  0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_display_fb_create_from_buffer(
				  self->d, self->wb[i].b, &self->wb[i].l,
				  LLMEM_DISPLAY_FB_WRITEBACK, &self->wb[i].fb),
			  0)
		TH_LOG("%s", llmem_last_error());
	}
}

FIXTURE_TEARDOWN(display)
{
	vgem_signal(self);
	if (self->vgem >= 0)
		close(self->vgem);
	/* Closing the display removes the framebuffers before the buffers go. */
	llmem_display_close(self->d);
	for (int i = 0; i < 2; i++) {
		llmem_buffer_destroy(self->src[i].b);
		llmem_buffer_destroy(self->wb[i].b);
	}
	EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
}

/* Shows @src with @wb written back; waits for the writeback, returns its
 * result's fences closed. */
static int show(struct __test_metadata *_metadata, struct llmem_display *d, struct frame *src,
		struct frame *wb, uint32_t flags, struct llmem_display_commit_result *r)
{
	struct llmem_display_commit_info ci = { .fb = src->fb,
						.writeback = wb->fb,
						.flags = flags };

	ASSERT_EQ(llmem_display_commit(d, &ci, r), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_GE(r->writeback_fence, 0);
	EXPECT_EQ(llmem_sync_file_wait(r->writeback_fence, FENCE_MS), 0);
	close(r->writeback_fence);
	if (r->out_fence >= 0) {
		EXPECT_EQ(llmem_sync_file_wait(r->out_fence, FENCE_MS), 0);
		close(r->out_fence);
	}
	return 0;
}

/* Render nodes are listed apart from cards, vgem's among them, and none
 * modesets. */
TEST(render_nodes)
{
	struct llmem_drm_device devs[16];
	int n = llmem_drm_list_render_nodes(devs, 16), vgem = 0;

	EXPECT_EQ(llmem_drm_list_render_nodes(NULL, 1), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem_drm_list_render_nodes: NULL devices"), NULL);
	EXPECT_EQ(llmem_drm_list_render_nodes(NULL, 0), n);
	ASSERT_GE(n, 1);
	for (int i = 0; i < n && i < 16; i++) {
		EXPECT_EQ(strncmp(devs[i].path, "/dev/dri/renderD", 16), 0);
		EXPECT_EQ(devs[i].error, 0);
		EXPECT_EQ(devs[i].caps & LLMEM_DRM_KMS, 0);
		if (strcmp(devs[i].driver, "vgem"))
			continue;
		vgem++;
		EXPECT_EQ(devs[i].caps & (LLMEM_DRM_PRIME_IMPORT | LLMEM_DRM_PRIME_EXPORT),
			  LLMEM_DRM_PRIME_IMPORT | LLMEM_DRM_PRIME_EXPORT);
	}
	EXPECT_EQ(vgem, 1) TH_LOG("the rig loads vgem");
	EXPECT_EQ(llmem_drm_list_devices(NULL, 1), -EINVAL);
}

/* vkms says what it is; the display chose its pipe and the mode asked for. */
TEST_F_TIMEOUT(display, vkms_is_a_display, 120)
{
	const uint32_t want =
		LLMEM_DRM_KMS | LLMEM_DRM_PRIME_IMPORT | LLMEM_DRM_ATOMIC | LLMEM_DRM_WRITEBACK;
	struct llmem_drm_format formats[64];
	struct llmem_drm_plane planes[16];
	struct llmem_drm_device dev;
	int n, primaries = 0, xrgb = 0, nv12 = 0;

	ASSERT_EQ(llmem_drm_get_device(self->path, &dev), 0);
	EXPECT_STREQ(dev.driver, "vkms");
	EXPECT_STRNE(dev.description, "");
	EXPECT_EQ(dev.caps & want, want);
	/* vkms's GEM is shmem, with dumb buffers. */
	EXPECT_NE(dev.caps & LLMEM_DRM_DUMB_BUFFERS, 0);
	EXPECT_GE(dev.crtcs, 1);
	EXPECT_GE(dev.writeback_connectors, 1);
	EXPECT_STREQ(self->info.driver, "vkms");
	EXPECT_EQ(self->info.width, WIDTH);
	EXPECT_EQ(self->info.height, HEIGHT);
	EXPECT_NE(self->info.writeback_id, 0);
	n = llmem_drm_list_planes(self->path, planes, 16);
	ASSERT_GE(n, 1);
	for (int i = 0; i < n && i < 16; i++)
		if (planes[i].type == LLMEM_DRM_PLANE_PRIMARY) {
			primaries++;
			EXPECT_GT(planes[i].format_count, 0);
		}
	EXPECT_GE(primaries, 1);
	n = llmem_display_formats(self->d, formats, 64);
	ASSERT_GT(n, 0);
	EXPECT_EQ(n, llmem_drm_plane_formats(self->path, self->info.plane_id, NULL, 0));
	for (int i = 0; i < n && i < 64; i++) {
		xrgb += formats[i].fourcc == DRM_FORMAT_XRGB8888 &&
			formats[i].modifier == DRM_FORMAT_MOD_LINEAR;
		nv12 += formats[i].fourcc == DRM_FORMAT_NV12;
	}
	EXPECT_EQ(xrgb, 1);
	/* vkms's planes are RGB only on both kernels. */
	EXPECT_EQ(nv12, 0);
	TH_LOG("the primary plane takes %d pairs, %s ARGB8888", n,
	       plane_takes(self->d, DRM_FORMAT_ARGB8888) ? "with" : "without");
}

/* An ARGB8888 frame is shown where the primary plane takes it (6.12), and
 * refused with -ENOTSUP where it does not (6.1): never shown as another. */
TEST_F_TIMEOUT(display, argb8888_where_the_plane_takes_it, 120)
{
	struct frame f = { 0 };
	int ret;

	make_frame(_metadata, self->m, DRM_FORMAT_ARGB8888, &f);
	ret = llmem_display_fb_create_from_buffer(self->d, f.b, &f.l, 0, &f.fb);
	if (plane_takes(self->d, DRM_FORMAT_ARGB8888)) {
		EXPECT_EQ(ret, 0) TH_LOG("%s", llmem_last_error());
	} else {
		EXPECT_EQ(ret, -ENOTSUP);
		EXPECT_NE(strstr(llmem_last_error(), "does not scan out AR24"), NULL)
		TH_LOG("%s", llmem_last_error());
	}
	if (f.fb)
		EXPECT_EQ(llmem_display_fb_destroy(f.fb), 0);
	llmem_buffer_destroy(f.b);
}

/* The frame written back is the source, pixel for pixel: the first, which
 * sets the mode, and each of the flips between two frames after it, with
 * the CRTC's out-fence signalling for each. */
TEST_F_TIMEOUT(display, flips_show_each_frame_queued, 120)
{
	struct llmem_display_commit_result r;

	for (int i = 0; i < 4; i++) {
		show(_metadata, self->d, &self->src[i % 2], &self->wb[i % 2],
		     LLMEM_DISPLAY_COMMIT_OUT_FENCE, &r);
		EXPECT_EQ(r.modeset, i == 0);
		EXPECT_EQ(mismatches(&self->wb[i % 2], &self->src[i % 2]), 0) TH_LOG("flip %d", i);
		/* A new picture in the frame not shown, for the next round. */
		paint(&self->src[(i + 1) % 2], 10 + i);
	}
	/* The frame on screen cannot go; the other can. */
	EXPECT_EQ(llmem_display_fb_destroy(self->src[1].fb), -EBUSY);
	EXPECT_EQ(llmem_display_fb_destroy(self->src[0].fb), 0);
	self->src[0].fb = NULL;
}

/* An NV12 frame is refused with the formats the plane does take: vkms
 * scans out RGB only, and nothing converts behind the caller's back. */
TEST_F_TIMEOUT(display, nv12_refused_with_the_plane_formats, 120)
{
	struct llmem_frame_layout l;
	struct llmem_buffer *b;
	struct llmem_display_fb *fb = NULL;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, WIDTH, HEIGHT, NULL, &l), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = l.size },
				      &b),
		  0);
	EXPECT_EQ(llmem_display_fb_create_from_buffer(self->d, b, &l, 0, &fb), -ENOTSUP);
	EXPECT_EQ(fb, NULL);
	TH_LOG("%s", llmem_last_error());
	EXPECT_NE(strstr(llmem_last_error(), "does not scan out NV12"), NULL);
	/* The formats it takes, by their fourcc codes. */
	EXPECT_NE(strstr(llmem_last_error(), "XR24"), NULL);
	llmem_buffer_destroy(b);
}

/* A sync_file given as IN_FENCE_FD holds the frame until it signals. */
TEST_F_TIMEOUT(display, in_fence_holds_the_frame, 120)
{
	struct llmem_display_commit_info ci = {
		.fb = self->src[0].fb,
		.writeback = self->wb[0].fb,
		.flags = LLMEM_DISPLAY_COMMIT_NONBLOCK | LLMEM_DISPLAY_COMMIT_IN_FENCE,
	};
	struct llmem_display_commit_result r;
	int busy;

	vgem_sync_file(_metadata, self, &busy);
	ci.in_fence = busy;
	ASSERT_EQ(llmem_display_commit(self->d, &ci, &r), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_sync_file_wait(r.writeback_fence, HELD_MS), -ETIMEDOUT);
	vgem_signal(self);
	EXPECT_EQ(llmem_sync_file_wait(r.writeback_fence, FENCE_MS), 0);
	EXPECT_EQ(mismatches(&self->wb[0], &self->src[0]), 0);
	close(r.writeback_fence);
	close(busy);
}

/*
 * Without an in-fence, KMS waits for the writers' fences in the buffer's
 * own reservation object: a fence imported into the llmem buffer (held by
 * llmem.ko's exporter, or Vulkan's) holds the frame until it signals.
 */
TEST_F_TIMEOUT(display, fence_in_the_buffer_holds_the_frame, 120)
{
	struct llmem_display_commit_info ci = {
		.fb = self->src[0].fb,
		.writeback = self->wb[0].fb,
		.flags = LLMEM_DISPLAY_COMMIT_NONBLOCK,
	};
	struct llmem_display_commit_result r;
	int busy;

	vgem_sync_file(_metadata, self, &busy);
	ASSERT_EQ(llmem_buffer_import_sync_file(self->src[0].b, LLMEM_SYNC_WRITE, busy), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_display_commit(self->d, &ci, &r), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_sync_file_wait(r.writeback_fence, HELD_MS), -ETIMEDOUT);
	vgem_signal(self);
	EXPECT_EQ(llmem_sync_file_wait(r.writeback_fence, FENCE_MS), 0);
	EXPECT_EQ(mismatches(&self->wb[0], &self->src[0]), 0);
	close(r.writeback_fence);
	close(busy);
}

/*
 * A frame a queue writes is shown once the queue is done: through the
 * queue's sync_file where the device exports them, waited for on the CPU
 * elsewhere (and the result says which).
 */
TEST_F_TIMEOUT(display, frame_written_by_a_queue, 120)
{
	struct llmem_display_commit_info ci = { .fb = self->src[0].fb,
						.writeback = self->wb[0].fb };
	struct llmem_display_commit_result r;
	struct llmem_session_info si;
	const uint32_t green = 0xff00ff00;
	struct llmem_event *ev;
	struct llmem_queue *q;
	uint32_t stride = self->wb[0].l.pitch[0] / 4, bad = 0;

	ASSERT_EQ(llmem_session_get_info(self->s, &si), 0);
	ASSERT_EQ(llmem_queue_create(self->s, NULL, &q), 0);
	ASSERT_EQ(llmem_enqueue_fill_buffer(q, self->src[0].b, 0, self->src[0].l.size, &green, 4,
					    NULL, &ev),
		  0)
	TH_LOG("%s", llmem_last_error());
	ci.after = q;
	ASSERT_EQ(llmem_display_commit(self->d, &ci, &r), 0) TH_LOG("%s", llmem_last_error());
	TH_LOG("%s: the display waits for the queue %s", si.device_name,
	       r.waited_on_cpu ? "on the CPU" : "through a sync_file");
	EXPECT_EQ(r.waited_on_cpu, !(si.caps & LLMEM_CAP_SYNC_FD_EXPORT));
	EXPECT_EQ(llmem_sync_file_wait(r.writeback_fence, FENCE_MS), 0);
	close(r.writeback_fence);
	llmem_buffer_begin_cpu_access(self->wb[0].b, LLMEM_CPU_READ);
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++)
			bad += (self->wb[0].px[y * stride + x] & 0xffffff) != (green & 0xffffff);
	llmem_buffer_end_cpu_access(self->wb[0].b, LLMEM_CPU_READ);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(llmem_event_wait(ev, 0), 0);
	llmem_event_release(ev);
	llmem_queue_destroy(q);
}

/* Every malformed request fails with its errno and a message, and changes
 * nothing; a render-only card is refused as a display. */
TEST_F_TIMEOUT(display, refusals, 120)
{
	struct llmem_display_commit_info ci = { .fb = self->src[0].fb };
	struct llmem_display_commit_result r;
	struct llmem_display *other;
	struct llmem_display_fb *fb;
	struct llmem_dmabuf_frame f;
	int pipefd[2];

	EXPECT_EQ(llmem_display_open(&(struct llmem_display_create_info){ .device = self->path,
									  .flags = 1u << 9 },
				     &other),
		  -EINVAL);
	EXPECT_EQ(llmem_display_open(
			  &(struct llmem_display_create_info){ .device = self->path, .width = 640 },
			  &other),
		  -EINVAL);
	EXPECT_EQ(llmem_display_open(&(struct llmem_display_create_info){ .device = self->path,
									  .width = 641,
									  .height = 479 },
				     &other),
		  -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "641x479"), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(
		llmem_display_open(
			&(struct llmem_display_create_info){ .device = "/dev/dri/card99" }, &other),
		-ENOENT);
	EXPECT_EQ(llmem_display_open(NULL, NULL), -EINVAL);

	/* Framebuffers: NULLs, flags, planes, a writeback frame of the wrong size. */
	ASSERT_EQ(llmem_buffer_export_frame(self->src[0].b, &self->src[0].l, 0, &f), 0);
	EXPECT_EQ(llmem_display_fb_create(self->d, &f, 1u << 7, &fb), -EINVAL);
	EXPECT_EQ(llmem_display_fb_create(self->d, NULL, 0, &fb), -EINVAL);
	f.num_planes = 0;
	EXPECT_EQ(llmem_display_fb_create(self->d, &f, 0, &fb), -EINVAL);
	f.num_planes = 1;
	f.width = WIDTH / 2;
	EXPECT_EQ(llmem_display_fb_create(self->d, &f, LLMEM_DISPLAY_FB_WRITEBACK, &fb), -EINVAL);
	f.width = WIDTH;
	f.modifier = I915_FORMAT_MOD_X_TILED;
	EXPECT_EQ(llmem_display_fb_create(self->d, &f, 0, &fb), -ENOTSUP);
	close(f.fd);
	EXPECT_EQ(llmem_display_fb_destroy(NULL), -EINVAL);

	/* Commits: nothing is shown by any of them. */
	EXPECT_EQ(llmem_display_commit(self->d, NULL, &r), -EINVAL);
	ci.flags = 1u << 8;
	EXPECT_EQ(llmem_display_commit(self->d, &ci, &r), -EINVAL);
	ci.flags = 0;
	ci.fb = self->wb[0].fb;
	EXPECT_EQ(llmem_display_commit(self->d, &ci, &r), -EINVAL);
	ci.fb = self->src[0].fb;
	ci.writeback = self->src[1].fb;
	EXPECT_EQ(llmem_display_commit(self->d, &ci, &r), -EINVAL);
	ci.writeback = self->wb[0].fb;
	EXPECT_EQ(llmem_display_commit(self->d, &ci, NULL), -EINVAL);
	ASSERT_EQ(pipe(pipefd), 0);
	ci.flags = LLMEM_DISPLAY_COMMIT_IN_FENCE;
	ci.in_fence = pipefd[0];
	EXPECT_EQ(llmem_display_commit(self->d, &ci, &r), -EINVAL);
	EXPECT_EQ(r.writeback_fence, -1);
	close(pipefd[0]);
	close(pipefd[1]);
	EXPECT_EQ(llmem_display_commit(self->d, &ci, &r), -EBADF);
	ci.flags = 0;
	/* A render-only card (vgem) is no display, and says why. */
	{
		struct llmem_drm_device devs[16];
		int n = llmem_drm_list_devices(devs, 16), found = 0;

		ASSERT_GE(n, 2);
		for (int i = 0; i < n && i < 16; i++) {
			if (strcmp(devs[i].driver, "vgem"))
				continue;
			found = 1;
			EXPECT_EQ(devs[i].caps & LLMEM_DRM_KMS, 0);
			EXPECT_EQ(llmem_display_open(
					  &(struct llmem_display_create_info){
						  .device = devs[i].path },
					  &other),
				  -ENODEV);
			EXPECT_NE(strstr(llmem_last_error(), "not a KMS device"), NULL)
			TH_LOG("%s", llmem_last_error());
		}
		EXPECT_EQ(found, 1) TH_LOG("the rig loads vgem");
	}
	/* Still the first commit after all of that: it sets the mode. */
	show(_metadata, self->d, &self->src[0], &self->wb[0], 0, &r);
	EXPECT_EQ(r.modeset, 1);
}

TEST_HARNESS_MAIN
