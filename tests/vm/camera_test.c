// SPDX-License-Identifier: MIT
/*
 * The zero-copy camera path end to end inside the VM: vivid captures into
 * llmem pages exported as DMA-BUFs, the shader converts them in place, and
 * the result matches a CPU conversion of the same picture captured through
 * V4L2_MEMORY_MMAP.  llmem.ko's tracker sees vivid holding the pages while
 * they are queued and not after.  Runs on 6.12 with Vulkan's own DMA-BUF
 * export and on 6.1 with llmem.ko's pages.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "capture.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define NBUFS 4
#define FRAMES 5
/* The counts llmem.ko sees of any DMA-BUF, its own or Vulkan's. */
#define ALWAYS_KNOWN (LLMEM_DMABUF_KNOWN_VMAPS | LLMEM_DMABUF_KNOWN_ATTACHMENTS)

FIXTURE(camera)
{
	char path[32];
	struct llmem_session *s;
	struct llmem_v4l2 *dev;
	struct llmem_v4l2_format vf;
	struct llmem_frame_layout src, rgba;
	uint8_t *mmap_frame;
};

FIXTURE_VARIANT(camera)
{
	uint32_t fourcc;
	uint32_t width, height;
	uint32_t input;
};

FIXTURE_VARIANT_ADD(camera, yuyv_640x480){
	.fourcc = V4L2_PIX_FMT_YUYV,
	.width = 640,
	.height = 480,
	.input = 0,
};

/* 1000 pixels: not a multiple of 64; vivid's HDMI input scales to it. */
FIXTURE_VARIANT_ADD(camera, yuyv_1000x562){
	.fourcc = V4L2_PIX_FMT_YUYV,
	.width = 1000,
	.height = 562,
	.input = 3,
};

FIXTURE_VARIANT_ADD(camera, nv12_640x480){
	.fourcc = V4L2_PIX_FMT_NV12,
	.width = 640,
	.height = 480,
	.input = 0,
};

FIXTURE_VARIANT_ADD(camera, nv12_1000x562){
	.fourcc = V4L2_PIX_FMT_NV12,
	.width = 1000,
	.height = 562,
	.input = 3,
};

FIXTURE_SETUP(camera)
{
	struct llmem_frame_constraints c;

	ASSERT_EQ(vivid_capture_path(0, self->path, sizeof(self->path)), 0);
	ASSERT_EQ(vivid_static_pattern(self->path), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_v4l2_open(self->path, &self->dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(self->dev, variant->input), 0);
	ASSERT_EQ(llmem_v4l2_set_format(self->dev, variant->fourcc, variant->width, variant->height,
					&self->vf),
		  0);
	c = (struct llmem_frame_constraints){
		.pitch = self->vf.bytesperline,
		.min_size = self->vf.sizeimage,
	};
	ASSERT_EQ(llmem_frame_layout_init(variant->fourcc, variant->width, variant->height, &c,
					  &self->src),
		  0);
	ASSERT_EQ(self->src.offset[1], self->vf.plane_offset[1]);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, variant->width, variant->height,
					  NULL, &self->rgba),
		  0);
	ASSERT_EQ(capture_mmap_frame(self->dev, self->vf.sizeimage, NBUFS, &self->mmap_frame), 0);
}

FIXTURE_TEARDOWN(camera)
{
	llmem_v4l2_close(self->dev);
	free(self->mmap_frame);
	VK_TEST_SESSION_END(self->s);
	/* Leave vivid as other tests expect it. */
	if (vivid_static_pattern(self->path) == 0) {
		struct llmem_v4l2 *dev;

		if (!llmem_v4l2_open(self->path, &dev)) {
			llmem_v4l2_set_input(dev, 0);
			llmem_v4l2_close(dev);
		}
	}
}

/*
 * Frames land in exported llmem pages, convert on the device, and match the
 * CPU conversion of the MMAP capture within 2 in every channel.
 */
TEST_F_TIMEOUT(camera, zero_copy_matches_mmap_capture, 240)
{
	uint64_t page = (self->src.size + 4095) / 4096 * 4096;
	struct llmem_memory_create_info shared_ci = {
		.page_size = page,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
	};
	struct llmem_memory_create_info host_ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
	};
	struct llmem_memory *shared, *host;
	struct llmem_buffer *frames[NBUFS], *rgba;
	struct llmem_memory_info mi;
	uint8_t *rgba_map, *ref;
	int fds[NBUFS];
	struct llmem_dmabuf_state st;

	ASSERT_EQ(llmem_memory_create(self->s, &shared_ci, &shared), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_memory_get_info(shared, &mi), 0);
	TH_LOG("backend %s", llmem_backend_name(mi.backend));
	ASSERT_EQ(llmem_memory_create(self->s, &host_ci, &host), 0);
	ASSERT_EQ(llmem_buffer_create(host,
				      &(struct llmem_buffer_create_info){ .size = self->rgba.size },
				      &rgba),
		  0);
	ASSERT_EQ(llmem_buffer_map(rgba, (void **)&rgba_map), 0);

	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, NBUFS), NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		struct llmem_dmabuf_region r;

		ASSERT_EQ(llmem_buffer_create(shared,
					      &(struct llmem_buffer_create_info){ .size = page },
					      &frames[i]),
			  0);
		ASSERT_EQ(llmem_buffer_export(frames[i], &r), 0);
		ASSERT_EQ(r.offset, 0);
		fds[i] = r.fd;
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, i, fds[i], page), 0);
	}

	ref = malloc(self->rgba.size);
	if (variant->fourcc == V4L2_PIX_FMT_YUYV)
		ref_yuyv_to_rgba(self->mmap_frame, self->src.pitch[0], variant->width,
				 variant->height, self->vf.encoding, self->vf.range, ref,
				 self->rgba.pitch[0]);
	else
		ref_nv12_to_rgba(self->mmap_frame, self->src.pitch[0],
				 self->mmap_frame + self->src.offset[1], self->src.pitch[1],
				 variant->width, variant->height, self->vf.encoding, self->vf.range,
				 ref, self->rgba.pitch[0]);

	ASSERT_EQ(llmem_v4l2_stream_on(self->dev), 0);
	for (int n = 0; n < FRAMES; n++) {
		struct llmem_v4l2_frame frame;
		int worst = 0;

		ASSERT_EQ(llmem_v4l2_dequeue(self->dev, 10000, &frame), 0);
		ASSERT_EQ(frame.bytesused, self->vf.sizeimage);
		ASSERT_EQ(llmem_convert_to_rgba(&(struct llmem_convert_info){
				  .src = frames[frame.index],
				  .src_layout = &self->src,
				  .dst = rgba,
				  .dst_layout = &self->rgba,
				  .encoding = self->vf.encoding,
				  .range = self->vf.range,
			  }),
			  0);
		for (uint32_t row = 0; row < variant->height; row++)
			for (uint32_t b = 0; b < variant->width * 4; b++) {
				size_t i = (size_t)row * self->rgba.pitch[0] + b;
				int d = abs((int)rgba_map[i] - (int)ref[i]);

				worst = d > worst ? d : worst;
			}
		EXPECT_LE(worst, 2) TH_LOG("frame %d differs by %d", n, worst);
		/* vivid holds every other buffer while this one is ours. */
		if (n == 0) {
			ASSERT_EQ(llmem_dmabuf_query(fds[(frame.index + 1) % NBUFS], &st), 0)
			TH_LOG("%s", llmem_last_error());
			ASSERT_EQ(st.known & ALWAYS_KNOWN, ALWAYS_KNOWN);
			EXPECT_GE(st.vmaps + st.attachments, 1)
			TH_LOG("llmem.ko sees no importer on a queued page");
		}
		ASSERT_EQ(llmem_v4l2_queue_dmabuf(self->dev, frame.index, fds[frame.index], page),
			  0);
	}
	ASSERT_EQ(llmem_v4l2_stream_off(self->dev), 0);
	ASSERT_EQ(llmem_v4l2_request_buffers(self->dev, LLMEM_V4L2_MEMORY_DMABUF, 0), 0);
	ASSERT_EQ(llmem_dmabuf_query(fds[0], &st), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(st.known & ALWAYS_KNOWN, ALWAYS_KNOWN);
	EXPECT_EQ(st.vmaps, 0);
	EXPECT_EQ(st.attachments, 0);

	free(ref);
	for (int i = 0; i < NBUFS; i++) {
		close(fds[i]);
		llmem_buffer_destroy(frames[i]);
	}
	llmem_buffer_unmap(rgba);
	llmem_buffer_destroy(rgba);
	EXPECT_EQ(llmem_memory_destroy(host), 0);
	EXPECT_EQ(llmem_memory_destroy(shared), 0);
}

TEST_HARNESS_MAIN
