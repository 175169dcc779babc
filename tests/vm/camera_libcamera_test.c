// SPDX-License-Identifier: MIT
/*
 * A camera of libcamera's behind the camera object (LLMEM_CAMERA_LIBCAMERA),
 * on vimc's Sensor B with its information overlay off, run by
 * tests/vm/libcamera-check while vimc and udevd are up.  The frames libcamera
 * writes into llmem's pages are byte for byte those `cam --file` wrote of
 * the same configuration (the file is named by LLMEM_LIBCAMERA_REFERENCE),
 * the RGBA frames the conversion writes are them with an alpha byte, nothing
 * is copied, the completion fd polls readable when a frame waits, and
 * stopping, starting again and closing leave no fd behind; on the best
 * backend (Vulkan's exported pages, through udmabuf, on 6.12; llmem.ko's on
 * 6.1), on llmem.ko's pages, and on the copy path (libcamera's own buffers,
 * each frame copied), its peer.  The refusals
 * come with their reasons.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#define WIDTH 640
#define HEIGHT 480
#define FRAME_BYTES (WIDTH * HEIGHT * 3)

static const char *camera_id(void)
{
	const char *id = getenv("LLMEM_LIBCAMERA_CAMERA");

	return id ? id : "platform/vimc.0 Sensor B";
}

FIXTURE(libcamera)
{
	struct llmem_session *s;
	struct llmem_camera_create_info ci;
	uint8_t ref[FRAME_BYTES];
};

FIXTURE_VARIANT(libcamera)
{
	uint32_t backend;
	uint32_t flags;
};

FIXTURE_VARIANT_ADD(libcamera, best_backend){};

/* llmem.ko's pages: the frames share a page, each a range of its own. */
FIXTURE_VARIANT_ADD(libcamera, llmem_dmabuf){
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

/* libcamera's own buffers, each frame copied by the CPU to the device. */
FIXTURE_VARIANT_ADD(libcamera, copy){
	.flags = LLMEM_CAMERA_COPY,
};

static struct llmem_camera_create_info create_info(uint32_t backend, uint32_t flags)
{
	return (struct llmem_camera_create_info){
		.device = camera_id(),
		.fourcc = V4L2_PIX_FMT_RGB24,
		.width = WIDTH,
		.height = HEIGHT,
		.flags = LLMEM_CAMERA_LIBCAMERA | flags,
		.backend = backend,
	};
}

FIXTURE_SETUP(libcamera)
{
	const char *path = getenv("LLMEM_LIBCAMERA_REFERENCE");
	FILE *f;

	ASSERT_NE(path, NULL)
	TH_LOG("LLMEM_LIBCAMERA_REFERENCE names no frame of cam's");
	f = fopen(path, "rb");
	ASSERT_NE(f, NULL);
	ASSERT_EQ(fread(self->ref, 1, FRAME_BYTES, f), FRAME_BYTES);
	fclose(f);
	VK_TEST_SESSION(self->s);
	self->ci = create_info(variant->backend, variant->flags);
}

FIXTURE_TEARDOWN(libcamera)
{
	VK_TEST_SESSION_END(self->s);
}

/*
 * What does not depend on where the frames live, once: vimc's frames take
 * seconds each under emulation.
 */
FIXTURE(libcamera_opening)
{
	struct llmem_session *s;
	struct llmem_camera_create_info ci;
};

FIXTURE_SETUP(libcamera_opening)
{
	VK_TEST_SESSION(self->s);
	self->ci = create_info(0, 0);
}

FIXTURE_TEARDOWN(libcamera_opening)
{
	VK_TEST_SESSION_END(self->s);
}

/*
 * @frames frames, each libcamera's picture and its RGBA conversion; where
 * libcamera wrote into llmem's pages, read there too, with nothing copied.
 */
static void capture(struct __test_metadata *_metadata, struct llmem_camera *cam, const uint8_t *ref,
		    int frames, uint32_t *seen)
{
	struct llmem_camera_info info;
	bool copy;

	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	copy = info.flags & LLMEM_CAMERA_COPY;
	for (int n = 0; n < frames; n++) {
		struct pollfd pfd = { .fd = llmem_camera_fd(cam), .events = POLLIN };
		struct llmem_camera_frame fr;
		const uint8_t *rgba;
		void *src;

		ASSERT_GE(pfd.fd, 0);
		ASSERT_EQ(poll(&pfd, 1, 30000), 1);
		ASSERT_EQ(llmem_camera_next(cam, 0, &fr), 0)
		TH_LOG("next: %s", llmem_last_error());
		EXPECT_EQ(fr.corrupted, 0);
		EXPECT_EQ(fr.bytes_copied, copy ? FRAME_BYTES : 0);
		ASSERT_LT(fr.index, info.buffers);
		*seen |= 1u << fr.index;
		ASSERT_GE(fr.fd[0], 0);
		if (copy)
			goto rgba;
		ASSERT_EQ(llmem_buffer_map(fr.source, &src), 0);
		llmem_buffer_invalidate(fr.source, 0, LLMEM_WHOLE_SIZE);
		EXPECT_EQ(memcmp(src, ref, FRAME_BYTES), 0)
		TH_LOG("frame %d (buffer %u) differs from cam's", n, fr.index);
		/* Poisoned: the next frame in this buffer must be written anew. */
		memset(src, 0, FRAME_BYTES);
		llmem_buffer_flush(fr.source, 0, LLMEM_WHOLE_SIZE);
		llmem_buffer_unmap(fr.source);
	rgba:
		rgba = fr.rgba_data;
		ASSERT_NE(rgba, NULL);
		for (uint32_t y = 0; y < HEIGHT; y += 7) {
			for (uint32_t x = 0; x < WIDTH; x += 5) {
				const uint8_t *p = ref + y * WIDTH * 3 + x * 3;
				const uint8_t *q = rgba + y * info.rgba_layout.pitch[0] + x * 4;

				ASSERT_EQ(q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24,
					  p[0] | p[1] << 8 | p[2] << 16 | 0xffu << 24)
				TH_LOG("RGBA at %u,%u", x, y);
			}
		}
		ASSERT_EQ(llmem_camera_release(cam, &fr), 0);
	}
}

/*
 * The info is what libcamera's validate() said, and every frame is cam's, in
 * every buffer and in the first again (requeued), with nothing copied.
 */
TEST_F_TIMEOUT(libcamera, frames_equal_cams, 240)
{
	struct llmem_camera_info info;
	struct llmem_camera *cam;
	uint32_t seen = 0;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0)
	TH_LOG("open: %s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	EXPECT_STREQ(info.device, camera_id());
	EXPECT_STREQ(info.driver, "libcamera");
	EXPECT_EQ(info.format.fourcc, V4L2_PIX_FMT_RGB24);
	EXPECT_EQ(info.format.width, WIDTH);
	EXPECT_EQ(info.format.height, HEIGHT);
	EXPECT_EQ(info.format.bytesperline, WIDTH * 3);
	EXPECT_EQ(info.format.sizeimage, FRAME_BYTES);
	EXPECT_EQ(info.layout.fourcc, DRM_FORMAT_BGR888);
	EXPECT_EQ(info.layout.pitch[0], WIDTH * 3);
	EXPECT_GE(info.layout.size, FRAME_BYTES);
	EXPECT_GE(info.buffers, 2);
	if (variant->backend)
		EXPECT_EQ(info.backend, variant->backend);
	if (!(variant->flags & LLMEM_CAMERA_COPY)) {
		struct llmem_dmabuf_state st;
		int fd;

		/* Vulkan's exported pages: lavapipe exports through udmabuf,
		 * which 6.12 has and 6.1 lacks, where llmem.ko's are the best. */
		ASSERT_EQ(llmem_camera_export(cam, 0, &fd), 0);
		ASSERT_EQ(llmem_dmabuf_query(fd, &st), 0);
		close(fd);
		EXPECT_STREQ(st.exporter,
			     info.backend == LLMEM_BACKEND_VULKAN_DMABUF ? "udmabuf" : "llmem");
		TH_LOG("frames on %s, exported by %s", llmem_backend_name(info.backend),
		       st.exporter);
	}
	EXPECT_EQ(info.flags & LLMEM_CAMERA_COPY, variant->flags & LLMEM_CAMERA_COPY);
	EXPECT_EQ(info.rgba_layout.fourcc, DRM_FORMAT_ABGR8888);

	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("start: %s", llmem_last_error());
	capture(_metadata, cam, self->ref, info.buffers + 1, &seen);
	EXPECT_EQ(seen, (1u << info.buffers) - 1);
	llmem_camera_close(cam);
}

/* Stopped with a frame held, started again: the stream goes on, and
 * closing leaves no fd open but what libcamera keeps for the process (its
 * camera manager's, which the first camera started, and what its first
 * stream opened): a camera streamed and closed before the count. */
TEST_F_TIMEOUT(libcamera, stop_start_and_close_clean, 240)
{
	struct llmem_camera_frame fr;
	struct llmem_camera *cam;
	uint32_t seen = 0;
	int fds;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0);
	ASSERT_EQ(llmem_camera_start(cam), 0);
	capture(_metadata, cam, self->ref, 1, &seen);
	llmem_camera_close(cam);
	fds = count_open_fds();
	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0)
	TH_LOG("open: %s", llmem_last_error());
	ASSERT_EQ(llmem_camera_start(cam), 0);
	ASSERT_EQ(llmem_camera_next(cam, 30000, &fr), 0) TH_LOG("next: %s", llmem_last_error());
	EXPECT_EQ(llmem_camera_next(cam, 0, &fr), -EBUSY);
	ASSERT_EQ(llmem_camera_stop(cam), 0);
	EXPECT_EQ(llmem_camera_next(cam, 0, &fr), -EBUSY);
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("start again: %s", llmem_last_error());
	capture(_metadata, cam, self->ref, 2, &seen);
	llmem_camera_close(cam);
	EXPECT_EQ(count_open_fds(), fds);
}

/* One camera, one owner: libcamera's acquire() refuses a second. */
TEST_F_TIMEOUT(libcamera_opening, second_open_is_busy, 120)
{
	struct llmem_camera *cam, *again = (void *)1;

	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &cam), 0);
	EXPECT_EQ(llmem_camera_open(self->s, &self->ci, &again), -EBUSY);
	EXPECT_EQ(again, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "acquire"), NULL) TH_LOG("%s", llmem_last_error());
	llmem_camera_close(cam);
}

TEST_F_TIMEOUT(libcamera_opening, refusals, 120)
{
	struct llmem_camera_create_info ci = self->ci;
	struct llmem_camera *cam = (void *)1;
	char ids[4][LLMEM_CAMERA_ID_SIZE];
	uint32_t count;

	ci.device = "no such camera";
	EXPECT_EQ(llmem_camera_open(self->s, &ci, &cam), -ENODEV);
	EXPECT_EQ(cam, NULL);
	ci = self->ci;
	ci.fourcc = V4L2_PIX_FMT_NV12M;
	EXPECT_EQ(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	ci = self->ci;
	ci.flags |= LLMEM_CAMERA_INPUT;
	EXPECT_EQ(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	/* Larger than vimc's 4096x2160: libcamera's validate() adjusts it. */
	ci = self->ci;
	ci.width = 8192;
	ci.height = 4320;
	EXPECT_EQ(llmem_camera_open(self->s, &ci, &cam), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "offers"), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_camera_list_libcamera(ids, 4, &count), 0);
	ASSERT_EQ(count, 1);
	EXPECT_STREQ(ids[0], camera_id());
	EXPECT_EQ(llmem_camera_list_libcamera(NULL, 1, &count), -EINVAL);
}

TEST_HARNESS_MAIN
