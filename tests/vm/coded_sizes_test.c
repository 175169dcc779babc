// SPDX-License-Identifier: MIT
/*
 * Any camera size into any encoder (issue 42), with vivid's HDMI input and
 * vicodec in the VM: pictures of 1000x562 and 1366x768 in YUYV and NV12,
 * which vicodec codes in 16-pixel columns and 8- or 16-row blocks.
 *
 * The negotiation pads the frame to vicodec's coded size (stated by the
 * driver, its alignment probed) and every participant takes it; the camera
 * captures the picture into frames of the coded size (YUYV at the
 * picture's size with the coded pitch, NV12 at the coded height with the
 * picture as its compose rectangle), which the device converts reading
 * the picture alone; the encoder codes them with the picture as its crop
 * rectangle, giving the bitstream v4l2-ctl's MMAP streaming gives from the
 * same pictures at the same coded size and crop (v4l2-ctl reads pictures
 * and pads each into its coded buffer); the decoder's frames are the coded
 * size with the picture as their compose rectangle, and their picture is
 * v4l2-ctl's decode of the same stream (which writes the compose
 * rectangle's picture).  Where a participant cannot take a
 * picture smaller than its frame (vivid's output without its crop
 * rectangle shows the whole frame; vivid's capture without composing
 * cannot place NV12's CbCr plane after the coded rows), the negotiation
 * and the camera refuse it by name.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "capture.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "v4l2_ctl.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define NFRAMES 3
#define TIMEOUT_MS 30000
/* vivid's HDMI input: it scales to any size. */
#define HDMI_INPUT 3
#define VIVID_VMALLOC 0
#define FWHT_HEADER 44

static int find_codec(uint32_t kind, const char *driver, char *path, size_t len)
{
	struct llmem_codec_find_info fi = {
		.kind = kind,
		.coded_fourcc = kind == LLMEM_CODEC_CONVERTER ? 0 : V4L2_PIX_FMT_FWHT,
		.driver = driver,
	};

	return llmem_codec_find(&fi, path, len);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * @l's picture in @frame, its rows one after the other as v4l2-ctl reads
 * and writes the pictures of a queue with a crop or compose rectangle: into
 * @packed, or compared with it (the first row that differs, 1 up; 0).
 */
static size_t picture_rows(const struct llmem_frame_layout *l, uint8_t *frame, uint8_t *packed,
			   bool compare, int *differs)
{
	uint32_t row = l->fourcc == DRM_FORMAT_YUYV ? l->width * 2 : l->width;
	size_t at = 0;

	*differs = 0;
	for (uint32_t p = 0; p < l->num_planes; p++) {
		uint32_t rows = p ? l->height / 2 : l->height;

		for (uint32_t r = 0; r < rows; r++, at += row) {
			uint8_t *line = frame + l->offset[p] + (uint64_t)r * l->pitch[p];

			if (!compare)
				memcpy(packed + at, line, row);
			else if (!*differs && memcmp(packed + at, line, row))
				*differs = (int)(p * 100000 + r + 1);
		}
	}
	return at;
}

/*
 * @frame's padding (the columns right of the picture, the rows below it)
 * painted black (Y 16, Cb and Cr 128), as v4l2-ctl's black test pattern
 * leaves the padding of the buffers it reads pictures into: vicodec codes
 * whole 8x8 blocks, so the picture's last blocks read some of it.
 */
static void paint_padding(const struct llmem_frame_layout *l, uint8_t *frame)
{
	uint32_t row = l->fourcc == DRM_FORMAT_YUYV ? l->width * 2 : l->width;

	for (uint32_t p = 0; p < l->num_planes; p++) {
		uint32_t rows = p ? l->coded_height / 2 : l->coded_height;
		uint32_t vis = p ? l->height / 2 : l->height;

		for (uint32_t r = 0; r < rows; r++) {
			uint8_t *line = frame + l->offset[p] + (uint64_t)r * l->pitch[p];

			for (uint32_t c = r < vis ? row : 0; c < l->pitch[p]; c++)
				line[c] = p || (l->fourcc == DRM_FORMAT_YUYV && c % 2) ? 128 : 16;
		}
	}
}

/* The CPU's conversion of @src laid out as @l: its picture alone. */
static void ref_rgba(const struct llmem_frame_layout *l, const uint8_t *src, int matrix,
		     int full_range, uint8_t *dst, uint32_t dst_pitch)
{
	if (l->fourcc == DRM_FORMAT_YUYV)
		ref_yuyv_to_rgba(src + l->offset[0], l->pitch[0], l->width, l->height, matrix,
				 full_range, dst, dst_pitch);
	else
		ref_nv12_to_rgba(src + l->offset[0], l->pitch[0], src + l->offset[1], l->pitch[1],
				 l->width, l->height, matrix, full_range, dst, dst_pitch);
}

/* vivid's capture node at @path on @input: its HDMI input takes any size,
 * the other tests expect its first, the webcam. */
static int vivid_input(const char *path, uint32_t input)
{
	struct llmem_v4l2 *dev;
	int ret = llmem_v4l2_open(path, &dev);

	if (ret)
		return ret;
	ret = llmem_v4l2_set_input(dev, input);
	llmem_v4l2_close(dev);
	return ret;
}

/* vivid's output node at @path on @output: its second, HDMI, takes any
 * size; the rig leaves it on its first. */
static int vivid_output(const char *path, uint32_t output)
{
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = xioctl(fd, VIDIOC_S_OUTPUT, &output);
	close(fd);
	return ret;
}

FIXTURE(coded)
{
	struct llmem_session *s;
	char camera[64], output[64], encoder[64], decoder[64];
	struct scratch t;
};

FIXTURE_VARIANT(coded)
{
	uint32_t fourcc;
	uint32_t width, height;
	/* What vicodec codes the picture as, and its alignment. */
	uint32_t coded_width, coded_height;
	uint32_t row_alignment;
	const char *name;
};

FIXTURE_VARIANT_ADD(coded, yuyv_1000x562){
	.fourcc = V4L2_PIX_FMT_YUYV,
	.width = 1000,
	.height = 562,
	.coded_width = 1008,
	.coded_height = 568,
	.row_alignment = 8,
	.name = "YUYV",
};

FIXTURE_VARIANT_ADD(coded, nv12_1000x562){
	.fourcc = V4L2_PIX_FMT_NV12,
	.width = 1000,
	.height = 562,
	.coded_width = 1008,
	.coded_height = 576,
	.row_alignment = 16,
	.name = "NV12",
};

FIXTURE_VARIANT_ADD(coded, yuyv_1366x768){
	.fourcc = V4L2_PIX_FMT_YUYV,
	.width = 1366,
	.height = 768,
	.coded_width = 1376,
	.coded_height = 768,
	.row_alignment = 8,
	.name = "YUYV",
};

FIXTURE_VARIANT_ADD(coded, nv12_1366x768){
	.fourcc = V4L2_PIX_FMT_NV12,
	.width = 1366,
	.height = 768,
	.coded_width = 1376,
	.coded_height = 768,
	.row_alignment = 16,
	.name = "NV12",
};

FIXTURE_SETUP(coded)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(vivid_capture_path(VIVID_VMALLOC, self->camera, sizeof(self->camera)), 0);
	ASSERT_EQ(vivid_input(self->camera, HDMI_INPUT), 0)
	TH_LOG("%s input %d: %s", self->camera, HDMI_INPUT, llmem_last_error());
	ASSERT_EQ(video_node_named("vivid-000-vid-out", self->output, sizeof(self->output)), 0);
	ASSERT_EQ(find_codec(LLMEM_CODEC_ENCODER, "vicodec", self->encoder, sizeof(self->encoder)),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(find_codec(LLMEM_CODEC_DECODER, "vicodec", self->decoder, sizeof(self->decoder)),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(scratch_make(&self->t, "coded-sizes"), 0);
}

FIXTURE_TEARDOWN(coded)
{
	/* As the rig left vivid, whatever the test did. */
	vivid_set_control(self->camera, "Enable Capture Composing", 1);
	vivid_set_control(self->output, "Enable Output Cropping", 1);
	vivid_input(self->camera, 0);
	vivid_output(self->output, 0);
	VK_TEST_SESSION_END(self->s);
	scratch_remove(&self->t);
}

/*
 * vicodec states the coded size it takes for the picture and its
 * alignment; vivid takes the picture in any coded frame; the layout is the
 * coded frame with the picture at its top left, and frames of it are taken
 * by vivid, vicodec and the Vulkan device (llmem_frames_check()).
 */
TEST_F_TIMEOUT(coded, negotiation_pads_for_the_encoder, 300)
{
	uint32_t drm = variant->fourcc, bpp = drm == DRM_FORMAT_YUYV ? 2 : 1;
	struct llmem_negotiate_request req = { .width = variant->width,
					       .height = variant->height,
					       .fourccs = &drm,
					       .num_fourccs = 1 };
	struct llmem_participant ps[3];
	const struct llmem_format_caps *f = NULL;
	struct llmem_frames_create_info fci = { .participants = ps,
						.num_participants = 3,
						.count = 2,
						.flags = LLMEM_FRAMES_CHECK,
						.name = "coded frame" };
	struct llmem_frames *frames = NULL;
	struct llmem_negotiated n;
	const struct llmem_frame_layout *l = &n.layout;

	ASSERT_EQ(llmem_participant_v4l2(self->camera, 0, variant->width, variant->height, &ps[0]),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_participant_v4l2(self->encoder, 1, variant->width, variant->height, &ps[1]),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_STORAGE, &ps[2]), 0);
	for (uint32_t i = 0; i < ps[1].num_formats; i++)
		if (ps[1].formats[i].fourcc == drm)
			f = &ps[1].formats[i];
	ASSERT_NE(f, NULL);
	EXPECT_EQ(f->coded_width, variant->coded_width);
	EXPECT_EQ(f->coded_height, variant->coded_height);
	EXPECT_EQ(f->column_alignment, 16);
	EXPECT_EQ(f->row_alignment, variant->row_alignment);
	EXPECT_EQ(f->pitch, variant->coded_width * bpp);
	EXPECT_EQ(ps[1].constraints.probed & (LLMEM_C_COLUMN_ALIGNMENT | LLMEM_C_ROW_ALIGNMENT),
		  LLMEM_C_COLUMN_ALIGNMENT | LLMEM_C_ROW_ALIGNMENT);
	/* Its crop rectangle takes the picture; vivid takes it at its size, and
	 * NV12 by its compose rectangle. */
	EXPECT_EQ(ps[1].constraints.flags &
			  (LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT),
		  0);
	EXPECT_EQ(ps[0].constraints.flags &
			  (LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT),
		  0);
	for (uint32_t i = 0; i < ps[0].num_formats; i++) {
		EXPECT_EQ(ps[0].formats[i].coded_width, 0);
		EXPECT_EQ(ps[0].formats[i].flags, 0);
	}

	ASSERT_EQ(llmem_negotiate(ps, 3, &req, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(l->width, variant->width);
	EXPECT_EQ(l->height, variant->height);
	EXPECT_EQ(l->coded_width, variant->coded_width);
	EXPECT_EQ(l->coded_height, variant->coded_height);
	EXPECT_EQ(l->pitch[0], variant->coded_width * bpp);
	EXPECT_EQ(n.padding[0].right, (variant->coded_width - variant->width) * bpp);
	EXPECT_EQ(n.padding[0].bottom, variant->coded_height - variant->height);
	if (drm == DRM_FORMAT_NV12)
		EXPECT_EQ(l->offset[1], (uint64_t)variant->coded_width * variant->coded_height);
	TH_LOG("%s %ux%u coded %ux%u, pitch %u, %llu bytes", variant->name, l->width, l->height,
	       l->coded_width, l->coded_height, l->pitch[0], (unsigned long long)l->size);

	fci.negotiated = &n;
	ASSERT_EQ(llmem_frames_create(self->s, &fci, &frames), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_frames_count(frames), 2);
	llmem_frames_destroy(frames);
}

/*
 * Camera → encoder → decoder at the picture's size.  Each captured frame is
 * converted by the device as the CPU converts its picture; the bitstream is
 * v4l2-ctl's of the same pictures at the same coded size and crop, and its
 * headers carry the picture's size; the decoded pictures are v4l2-ctl's decode of
 * it, and their conversion the CPU's.
 */
TEST_F_TIMEOUT(coded, camera_encoder_decoder, 900)
{
	uint32_t drm = variant->fourcc;
	struct llmem_participant queue;
	struct llmem_camera_create_info cci = {
		.device = self->camera,
		.fourcc = variant->fourcc,
		.width = variant->width,
		.height = variant->height,
		.flags = LLMEM_CAMERA_INPUT,
		.input = HDMI_INPUT,
		.participants = &queue,
		.num_participants = 1,
	};
	struct llmem_encoder_create_info eci = { .device = self->encoder,
						 .fourcc = variant->fourcc,
						 .width = variant->width,
						 .height = variant->height,
						 .frames = 0 };
	struct llmem_decoder_create_info dci = { .fourcc = variant->fourcc,
						 .flags = LLMEM_DECODER_CONVERT };
	struct llmem_camera *cam = NULL;
	struct llmem_camera_info ci;
	struct llmem_encoder *enc = NULL;
	struct llmem_encoder_info ei;
	struct llmem_bitstream *bs = NULL;
	struct llmem_decoder *dec = NULL;
	struct llmem_decoder_info di;
	uint32_t size, rgba_pitch = variant->width * 4;
	/* Bytes of a picture, its rows one after the other. */
	const size_t pic = (size_t)variant->width * variant->height *
			   (drm == DRM_FORMAT_YUYV ? 2 : 3) / (drm == DRM_FORMAT_YUYV ? 1 : 2);
	size_t picture;
	int differs;
	uint8_t *raw, *stream, *want, *ref, *rgba;
	char path[300], fmt[96], crop[96];
	size_t len = 0;
	long n;

	ASSERT_EQ(llmem_participant_v4l2(self->encoder, 1, variant->width, variant->height, &queue),
		  0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_open(self->s, &cci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &ci), 0);
	EXPECT_EQ(ci.layout.width, variant->width);
	EXPECT_EQ(ci.layout.height, variant->height);
	EXPECT_EQ(ci.layout.coded_width, variant->coded_width);
	EXPECT_EQ(ci.layout.coded_height, variant->coded_height);
	/* The camera's own format: the picture's width with the coded pitch,
	 * and NV12's coded height where its CbCr plane follows more rows. */
	EXPECT_EQ(ci.format.width, variant->width);
	EXPECT_EQ(ci.format.height,
		  drm == DRM_FORMAT_NV12 ? variant->coded_height : variant->height);
	EXPECT_EQ(ci.format.bytesperline, ci.layout.pitch[0]);
	EXPECT_EQ(ci.rgba_layout.width, variant->width);
	EXPECT_EQ(ci.rgba_layout.height, variant->height);

	eci.pitch = ci.format.bytesperline;
	eci.coded_width = ci.layout.coded_width;
	eci.coded_height = ci.layout.coded_height;
	eci.frames = ci.buffers;
	ASSERT_EQ(llmem_encoder_open(self->s, &eci, &enc), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_get_info(enc, &ei), 0);
	EXPECT_EQ(ei.raw.width, variant->coded_width);
	EXPECT_EQ(ei.raw.height, variant->coded_height);
	EXPECT_EQ(ei.picture.width, variant->width);
	EXPECT_EQ(ei.picture.height, variant->height);
	size = ei.raw.sizeimage[0];
	ASSERT_LE(size, ci.layout.size);

	raw = malloc((size_t)NFRAMES * size);
	stream = malloc((size_t)NFRAMES * size);
	want = malloc((size_t)NFRAMES * size);
	ref = malloc((size_t)NFRAMES * size);
	rgba = malloc((size_t)rgba_pitch * variant->height);
	ASSERT_NE(raw, NULL);
	ASSERT_NE(stream, NULL);
	ASSERT_NE(want, NULL);
	ASSERT_NE(ref, NULL);
	ASSERT_NE(rgba, NULL);
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	for (int f = 0; f < NFRAMES; f++) {
		struct llmem_codec_frame frame = { .num_planes = 1, .id = f, .fd = { -1, -1 } };
		struct llmem_camera_frame cf;
		struct llmem_codec_packet p;
		void *map;

		ASSERT_EQ(llmem_camera_next(cam, TIMEOUT_MS, &cf), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(
			llmem_dmabuf_map(cf.fd[0], 0, size, LLMEM_CPU_READ | LLMEM_CPU_WRITE, &map),
			0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_dmabuf_begin_cpu_access(cf.fd[0], LLMEM_CPU_READ | LLMEM_CPU_WRITE),
			  0);
		paint_padding(&ci.layout, map);
		/* The picture, as v4l2-ctl reads a queue with a crop rectangle. */
		picture = picture_rows(&ci.layout, map, raw + (size_t)f * pic, false, &differs);
		/* The device read the picture of the coded frame. */
		ref_rgba(&ci.layout, map, ci.encoding == LLMEM_YCBCR_BT709,
			 ci.range == LLMEM_YCBCR_FULL_RANGE, rgba, ci.rgba_layout.pitch[0]);
		ASSERT_EQ(llmem_dmabuf_end_cpu_access(cf.fd[0], LLMEM_CPU_READ | LLMEM_CPU_WRITE),
			  0);
		ASSERT_EQ(llmem_dmabuf_unmap(map, size), 0);
		ASSERT_EQ(picture, pic);
		EXPECT_LE(ref_worst_channel(cf.rgba_data, rgba, &ci.rgba_layout), 2)
		TH_LOG("frame %d", f);

		frame.fd[0] = cf.fd[0];
		ASSERT_EQ(llmem_encoder_encode(enc, &frame, TIMEOUT_MS, &p), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_GE(p.size, FWHT_HEADER);
		EXPECT_EQ(be32((const uint8_t *)p.data + 12), variant->width);
		EXPECT_EQ(be32((const uint8_t *)p.data + 16), variant->height);
		ASSERT_LE(len + p.size, (size_t)NFRAMES * size);
		memcpy(stream + len, p.data, p.size);
		len += p.size;
		ASSERT_EQ(llmem_encoder_release_packet(enc, &p), 0);
		ASSERT_EQ(llmem_camera_release(cam, &cf), 0) TH_LOG("%s", llmem_last_error());
	}
	llmem_encoder_close(enc);
	llmem_camera_close(cam);

	/* v4l2-ctl: the same pictures in coded frames with the same crop,
	 * MMAP: it reads each picture from the file into a buffer it filled
	 * with its test pattern first, black here as our padding. */
	snprintf(path, sizeof(path), "%s/camera.raw", self->t.dir);
	ASSERT_EQ(write_file(path, raw, (size_t)NFRAMES * pic), 0);
	snprintf(fmt, sizeof(fmt), "width=%u,height=%u,pixelformat=%s", variant->coded_width,
		 variant->coded_height, variant->name);
	snprintf(crop, sizeof(crop), "target=crop,width=%u,height=%u", variant->width,
		 variant->height);
	n = v4l2_ctl_stream(&self->t, self->encoder, path, fmt, "FWHT",
			    (const char *const[]){ "--set-selection-output", crop,
						   "--stream-out-pattern", "5", NULL },
			    want, (size_t)NFRAMES * size);
	ASSERT_EQ(n, (long)len) TH_LOG("v4l2-ctl said: %s", scratch_said(&self->t));
	EXPECT_EQ(memcmp(want, stream, len), 0);
	TH_LOG("%d frames, %zu bytes of bitstream, equal to v4l2-ctl's with crop %ux%u", NFRAMES,
	       len, variant->width, variant->height);

	/* The decoder: v4l2-ctl's decode, and the library's. */
	snprintf(path, sizeof(path), "%s/stream.fwht", self->t.dir);
	ASSERT_EQ(write_file(path, stream, len), 0);
	snprintf(fmt, sizeof(fmt), "width=%u,height=%u,pixelformat=FWHT", variant->width,
		 variant->height);
	/* It writes each decoded frame's picture, its compose rectangle. */
	n = v4l2_ctl_stream(&self->t, self->decoder, path, fmt, variant->name, NULL, ref,
			    (size_t)NFRAMES * size);
	ASSERT_EQ(n, (long)NFRAMES * pic) TH_LOG("v4l2-ctl said: %s", scratch_said(&self->t));
	ASSERT_EQ(llmem_bitstream_open_fwht(path, &bs), 0) TH_LOG("%s", llmem_last_error());
	dci.source = bs;
	dci.device = self->decoder;
	ASSERT_EQ(llmem_decoder_open(self->s, &dci, &dec), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_decoder_start(dec, TIMEOUT_MS), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_decoder_get_info(dec, &di), 0);
	EXPECT_EQ(di.format.width, variant->coded_width);
	EXPECT_EQ(di.format.height, variant->coded_height);
	EXPECT_EQ(di.layout.width, variant->width);
	EXPECT_EQ(di.layout.height, variant->height);
	EXPECT_EQ(di.layout.coded_width, variant->coded_width);
	EXPECT_EQ(di.layout.coded_height, variant->coded_height);
	EXPECT_EQ(di.rgba_layout.width, variant->width);
	EXPECT_EQ(di.rgba_layout.height, variant->height);
	ASSERT_EQ(di.format.sizeimage[0], size);
	for (int f = 0; f < NFRAMES; f++) {
		struct llmem_codec_frame frame;

		ASSERT_EQ(llmem_decoder_next(dec, TIMEOUT_MS, &frame), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_NE(frame.data[0], NULL);
		picture_rows(&di.layout, frame.data[0], ref + (size_t)f * pic, true, &differs);
		EXPECT_EQ(differs, 0)
		TH_LOG("frame %d: the picture differs from v4l2-ctl's decode", f);
		ASSERT_NE(frame.rgba_data, NULL);
		ref_rgba(&di.layout, frame.data[0], 0, 0, rgba, di.rgba_layout.pitch[0]);
		EXPECT_LE(ref_worst_channel(frame.rgba_data, rgba, &di.rgba_layout), 2)
		TH_LOG("frame %d", f);
		ASSERT_EQ(llmem_decoder_release(dec, &frame), 0);
	}
	llmem_decoder_close(dec);
	llmem_bitstream_close(bs);
	free(raw);
	free(stream);
	free(want);
	free(ref);
	free(rgba);
}

/*
 * Where a participant cannot take a picture smaller than its frame, the
 * padding is refused by name: vivid's output without a crop rectangle, and
 * vivid's capture without composing, which places NV12's CbCr plane after
 * its own rows.
 */
TEST_F_TIMEOUT(coded, refusals, 300)
{
	uint32_t drm = variant->fourcc;
	struct llmem_negotiate_request req = { .width = variant->width,
					       .height = variant->height,
					       .fourccs = &drm,
					       .num_fourccs = 1 };
	struct llmem_participant ps[2];
	struct llmem_negotiated n;
	struct llmem_camera *cam;
	struct llmem_encoder *enc;
	struct llmem_camera_create_info cci = {
		.device = self->camera,
		.fourcc = variant->fourcc,
		.width = variant->width,
		.height = variant->height,
		.flags = LLMEM_CAMERA_INPUT,
		.input = HDMI_INPUT,
		.participants = &ps[1],
		.num_participants = 1,
	};
	struct llmem_encoder_create_info eci = {
		.device = self->encoder,
		.fourcc = variant->fourcc,
		.width = variant->width,
		.height = variant->height,
	};

	/* vivid's HDMI output without its crop rectangle shows the whole
	 * frame: it takes the picture as it is, vicodec codes it larger. */
	ASSERT_EQ(vivid_output(self->output, 1), 0) TH_LOG("%s", self->output);
	ASSERT_EQ(vivid_set_control(self->output, "Enable Output Cropping", 0), 0);
	ASSERT_EQ(llmem_participant_v4l2(self->output, 1, variant->width, variant->height, &ps[0]),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(ps[0].constraints.flags &
			  (LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT),
		  LLMEM_CONSTRAINT_NO_CROP_WIDTH | LLMEM_CONSTRAINT_NO_CROP_HEIGHT);
	ASSERT_EQ(llmem_participant_v4l2(self->encoder, 1, variant->width, variant->height, &ps[1]),
		  0);
	EXPECT_FAILS(llmem_negotiate(ps, 2, &req, &n), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(),
			 "output takes no picture narrower than its frame: vicodec"),
		  NULL)
	TH_LOG("%s", llmem_last_error());

	/* Frames coded at a size the encoder does not code, or below the
	 * picture. */
	eci.coded_width = variant->width;
	eci.coded_height = variant->height;
	EXPECT_FAILS(llmem_encoder_open(self->s, &eci, &enc), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "frames with pitch"), NULL)
	TH_LOG("%s", llmem_last_error());
	eci.coded_width = variant->width - 8;
	EXPECT_FAILS(llmem_encoder_open(self->s, &eci, &enc), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "coded frames"), NULL)
	TH_LOG("%s", llmem_last_error());

	/* vivid without composing: NV12's picture cannot be shorter than the
	 * frame, YUYV's still can. */
	ASSERT_EQ(vivid_set_control(self->camera, "Enable Capture Composing", 0), 0);
	ASSERT_EQ(llmem_participant_v4l2(self->camera, 0, variant->width, variant->height, &ps[0]),
		  0);
	ASSERT_EQ(llmem_participant_v4l2(self->encoder, 1, variant->width, variant->height, &ps[1]),
		  0);
	if (drm == DRM_FORMAT_NV12 && variant->coded_height != variant->height) {
		EXPECT_FAILS(llmem_negotiate(ps, 2, &req, &n), -ENOTSUP);
		EXPECT_NE(strstr(llmem_last_error(), "capture takes no picture shorter than its "
						     "frame: vicodec"),
			  NULL)
		TH_LOG("%s", llmem_last_error());
		EXPECT_FAILS(llmem_camera_open(self->s, &cci, &cam), -ENOTSUP);
		EXPECT_NE(strstr(llmem_last_error(), "takes no picture shorter"), NULL)
		TH_LOG("%s", llmem_last_error());
	} else {
		EXPECT_EQ(llmem_negotiate(ps, 2, &req, &n), 0) TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(n.layout.coded_width, variant->coded_width);
	}
}

TEST_HARNESS_MAIN
