// SPDX-License-Identifier: MIT
/*
 * The encoder and decoder objects (codec.h) with vicodec in the VM: frames
 * pushed into an encoder, its own (zero-copy) or the caller's memory (the
 * copy path), give the bitstream v4l2-ctl's MMAP streaming gives from the
 * same raw file, byte for byte, with the key frame and the drain's end
 * flagged; that bitstream, as a file read by the FWHT bitstream source,
 * decodes into frames equal to v4l2-ctl's decode of it, converted to RGBA
 * as the CPU reference does, through a change of resolution; and every
 * misuse of a slot, a packet or a frame fails with its error.  The calls
 * below the objects are tested in codec_test.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "fwht_frame.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "v4l2_ctl.h"
#include "vk_test.h"
#include "yuv_ref.h"

#define WIDTH 640
#define HEIGHT 480
/* The second size of the stream that changes (vicodec takes nothing below
 * 640x360). */
#define WIDTH2 720
#define HEIGHT2 480
#define NFRAMES 4
#define TIMEOUT_MS 20000
/* Room for NFRAMES of the larger size in its larger format, coded. */
#define STREAM_MAX (NFRAMES * WIDTH2 * HEIGHT2 * 2 + 4096)
/* An RGBA frame of the larger size, rows padded to 1 KiB at most. */
#define RGBA_REF_SIZE ((WIDTH2 * 4 + 1024) * HEIGHT2)

/*
 * The harness forks a process for each of the 45 tests, and each test's
 * session loads lavapipe (with LLVM), the validation layer and Mesa's
 * device-select layer: loaded once here, in the parent, the children
 * inherit them and the Vulkan loader's dlopen() finds them in place (in
 * the 6.12 guest that cut the test from 215-228 s to 160-171 s; the 6.1
 * guest took 250 s and 256 s).  What each session creates is its own, as
 * before.
 */
__attribute__((constructor)) static void load_vulkan_libraries_once(void)
{
	static const char *const libraries[] = { "libvulkan_lvp.so",
						 "libVkLayer_khronos_validation.so",
						 "libVkLayer_MESA_device_select.so" };

	for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); i++)
		dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
}

static uint32_t raw_size(uint32_t fourcc, uint32_t w, uint32_t h)
{
	return fourcc == V4L2_PIX_FMT_YUYV ? w * h * 2 : w * h * 3 / 2;
}

/* A smooth @w x @h picture in YUYV or NV12 with a bright square that moves
 * with @frame. */
static void make_frame(uint8_t *dst, uint32_t fourcc, int frame, int w, int h)
{
	uint8_t *uv = dst + w * h;

	for (int r = 0; r < h; r++)
		for (int c = 0; c < w; c++) {
			int in_box =
				c >= 32 + frame * 16 && c < 96 + frame * 16 && r >= 48 && r < 112;
			uint8_t y = in_box ? 224 : 16 + c * 150 / w + r * 50 / h;
			uint8_t u = 64 + c * 128 / w, v = 64 + r * 128 / h;

			if (fourcc == V4L2_PIX_FMT_YUYV) {
				dst[r * w * 2 + c * 2] = y;
				dst[r * w * 2 + c * 2 + 1] = c % 2 ? v : u;
				continue;
			}
			dst[r * w + c] = y;
			if (r % 2 == 0)
				uv[r / 2 * w + c] = c % 2 ? v : u;
		}
}

/* v4l2-ctl's streaming of @in (v4l2_ctl.h), its words shown where it fails. */
static long ref_stream(struct __test_metadata *_metadata, const struct scratch *t, const char *node,
		       const char *in, const char *fmt_out, const char *capture_fourcc,
		       uint8_t *out, size_t max)
{
	long n = v4l2_ctl_stream(t, node, in, fmt_out, capture_fourcc, NULL, out, max);

	if (n < 0)
		TH_LOG("v4l2-ctl said: %s", scratch_said(t));
	return n;
}

/* ---- The encoder ---- */

FIXTURE(encoder)
{
	struct llmem_session *s;
	struct llmem_encoder *e;
	struct llmem_encoder_info info;
	struct scratch t;
	uint32_t size; /* of a raw frame */
	uint8_t *input;
	uint8_t *stream;
	size_t stream_len;
};

FIXTURE_VARIANT(encoder)
{
	uint32_t fourcc; /* 0: the default, YUYV */
	uint32_t flags;
	uint32_t backend;
};

FIXTURE_VARIANT_ADD(encoder, yuyv){
	.fourcc = 0,
};

/* On llmem.ko's pages, whose holders llmem_dmabuf_query() sees. */
FIXTURE_VARIANT_ADD(encoder, nv12_llmem_pages){
	.fourcc = V4L2_PIX_FMT_NV12,
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

/* The frames in the caller's memory, copied into the driver's buffers. */
FIXTURE_VARIANT_ADD(encoder, yuyv_copy){
	.fourcc = 0,
	.flags = LLMEM_ENCODER_COPY,
};

FIXTURE_SETUP(encoder)
{
	struct llmem_encoder_create_info ci = {
		.fourcc = variant->fourcc,
		.width = WIDTH,
		.height = HEIGHT,
		.frames = 2,
		.bitstream_buffers = 2,
		.flags = variant->flags,
		.backend = variant->backend,
	};
	uint32_t fourcc = variant->fourcc ? variant->fourcc : V4L2_PIX_FMT_YUYV;

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(scratch_make(&self->t, "codec-objects"), 0);
	self->size = raw_size(fourcc, WIDTH, HEIGHT);
	self->input = malloc(NFRAMES * self->size);
	self->stream = malloc(STREAM_MAX);
	ASSERT_NE(self->input, NULL);
	ASSERT_NE(self->stream, NULL);
	for (int f = 0; f < NFRAMES; f++)
		make_frame(self->input + f * self->size, fourcc, f, WIDTH, HEIGHT);
	ASSERT_EQ(llmem_encoder_open(self->s, &ci, &self->e), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_get_info(self->e, &self->info), 0);
}

FIXTURE_TEARDOWN(encoder)
{
	llmem_encoder_close(self->e);
	VK_TEST_SESSION_END(self->s);
	free(self->input);
	free(self->stream);
	scratch_remove(&self->t);
}

/*
 * Input frame @f as the encoder takes it: in one of its own frames on the
 * zero-copy path (written by the host, flushed), or where it lies on the
 * copy path.
 */
static int take_frame(FIXTURE_DATA(encoder) * self, int f, struct llmem_codec_frame *frame)
{
	const uint8_t *src = self->input + f * self->size;
	int ret;

	if (self->info.flags & LLMEM_ENCODER_COPY) {
		*frame = (struct llmem_codec_frame){ .fd = { -1, -1 },
						     .num_planes = 1,
						     .data = { (void *)src } };
	} else {
		ret = llmem_encoder_get_frame(self->e, frame);
		if (ret)
			return ret;
		memcpy(frame->data[0], src, self->size);
		ret = llmem_buffer_flush(frame->buffer[0], 0, LLMEM_WHOLE_SIZE);
		if (ret)
			return ret;
	}
	frame->id = 100 + f;
	return 0;
}

/* Packet @f is the frame's bitstream: its id, a whole FWHT frame, key for
 * the first only (vicodec's group of pictures is 10 long); appended to
 * self->stream, then given back. */
static void take_packet(struct __test_metadata *_metadata, FIXTURE_DATA(encoder) * self, int f,
			const struct llmem_codec_packet *p)
{
	const uint8_t *h = p->data;

	ASSERT_NE(p->data, NULL);
	ASSERT_NE(p->buffer, NULL);
	ASSERT_GE(p->fd, 0);
	ASSERT_LT(p->index, self->info.bitstream_buffers);
	EXPECT_EQ(p->id, 100 + f);
	ASSERT_GT(p->size, FWHT_FRAME_HEADER);
	/* The payload's size, the header's last big-endian word. */
	EXPECT_EQ(p->size,
		  FWHT_FRAME_HEADER + ((uint32_t)h[40] << 24 | h[41] << 16 | h[42] << 8 | h[43]));
	EXPECT_EQ(!!(p->flags & LLMEM_CODEC_BUF_KEYFRAME), f == 0) TH_LOG("frame %d", f);
	EXPECT_EQ(!!(h[22] & (V4L2_FWHT_FL_I_FRAME >> 8)), f == 0) TH_LOG("frame %d", f);
	ASSERT_LE(self->stream_len + p->size, STREAM_MAX);
	memcpy(self->stream + self->stream_len, p->data, p->size);
	self->stream_len += p->size;
	EXPECT_EQ(llmem_encoder_release_packet(self->e, p), 0);
}

/* What the encoder agreed to is what was asked for. */
TEST_F_TIMEOUT(encoder, info, 120)
{
	EXPECT_STREQ(self->info.driver, "vicodec");
	EXPECT_EQ(strncmp(self->info.device, "/dev/video", 10), 0);
	EXPECT_EQ(self->info.raw.fourcc, variant->fourcc ? variant->fourcc : V4L2_PIX_FMT_YUYV);
	EXPECT_EQ(self->info.raw.width, WIDTH);
	EXPECT_EQ(self->info.raw.height, HEIGHT);
	EXPECT_EQ(self->info.raw.num_planes, 1);
	EXPECT_EQ(self->info.raw.sizeimage[0], self->size);
	EXPECT_EQ(self->info.coded.fourcc, V4L2_PIX_FMT_FWHT);
	EXPECT_GE(self->info.coded.sizeimage[0], self->size);
	EXPECT_EQ(self->info.frames, 2);
	EXPECT_EQ(self->info.bitstream_buffers, 2);
	EXPECT_EQ(self->info.flags, variant->flags);
	EXPECT_EQ(self->info.backend == LLMEM_BACKEND_VULKAN, 0);
	if (variant->backend)
		EXPECT_EQ(self->info.backend, variant->backend);
	EXPECT_EQ(llmem_encoder_get_info(self->e, NULL), -EINVAL);
}

/*
 * Two frames through encode(), two pushed and then drained: the packets
 * come in order, the last flagged LAST, then -ENODATA, and no frame is
 * taken after the drain.  The bitstream is v4l2-ctl's from the same raw
 * file, byte for byte.
 */
TEST_F_TIMEOUT(encoder, encode_equals_v4l2_ctl, 300)
{
	struct llmem_codec_frame frame[NFRAMES];
	struct llmem_codec_packet p;
	char raw[300], fmt_out[80];
	uint8_t *want = malloc(STREAM_MAX);
	long n;

	ASSERT_NE(want, NULL);
	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(take_frame(self, f, &frame[f]), 0) TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_encoder_encode(self->e, &frame[f], TIMEOUT_MS, &p), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(p.flags & LLMEM_CODEC_BUF_LAST, 0);
		take_packet(_metadata, self, f, &p);
	}
	for (int f = 2; f < NFRAMES; f++) {
		ASSERT_EQ(take_frame(self, f, &frame[f]), 0) TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_encoder_push(self->e, &frame[f]), 0)
		TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_encoder_drain(self->e), 0) TH_LOG("%s", llmem_last_error());
	for (int f = 2; f < NFRAMES; f++) {
		ASSERT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(!!(p.flags & LLMEM_CODEC_BUF_LAST), f == NFRAMES - 1);
		take_packet(_metadata, self, f, &p);
	}
	EXPECT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p), -ENODATA);
	EXPECT_EQ(llmem_encoder_pull(self->e, 0, &p), -ENODATA);
	EXPECT_FAILS(llmem_encoder_push(self->e, &frame[0]), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "drained"), NULL);
	EXPECT_FAILS(llmem_encoder_drain(self->e), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "already"), NULL);

	snprintf(raw, sizeof(raw), "%s/in.raw", self->t.dir);
	snprintf(fmt_out, sizeof(fmt_out), "width=%d,height=%d,pixelformat=%.4s", WIDTH, HEIGHT,
		 (const char *)&self->info.raw.fourcc);
	ASSERT_EQ(write_file(raw, self->input, NFRAMES * self->size), 0);
	n = ref_stream(_metadata, &self->t, self->info.device, raw, fmt_out, "FWHT", want,
		       STREAM_MAX);
	ASSERT_EQ(n, (long)self->stream_len);
	EXPECT_EQ(memcmp(want, self->stream, self->stream_len), 0);
	TH_LOG("%d frames, %zu bytes of bitstream, equal to v4l2-ctl's", NFRAMES, self->stream_len);
	free(want);
}

/* A drain with nothing pushed ends at once: the next pull is -ENODATA. */
TEST_F_TIMEOUT(encoder, drain_of_nothing, 120)
{
	struct llmem_codec_frame frame;
	struct llmem_codec_packet p;

	ASSERT_EQ(take_frame(self, 0, &frame), 0);
	ASSERT_EQ(llmem_encoder_encode(self->e, &frame, TIMEOUT_MS, &p), 0)
	TH_LOG("%s", llmem_last_error());
	take_packet(_metadata, self, 0, &p);
	ASSERT_EQ(llmem_encoder_drain(self->e), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p), -ENODATA);
	EXPECT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p), -ENODATA);
}

/*
 * Slots and packets: a pull with nothing pushed, a frame of the wrong
 * planes, a push while both frame slots are busy, a pull while both
 * bitstream buffers are held, a packet given back twice or never held,
 * and an fd that is no DMA-BUF.
 */
TEST_F_TIMEOUT(encoder, refusals, 120)
{
	struct llmem_codec_packet p[3], never = { .index = 0 };
	struct llmem_codec_frame frame[3], bad;
	int pipefd[2];

	EXPECT_FAILS(llmem_encoder_pull(self->e, 0, &p[0]), -EAGAIN);
	EXPECT_NE(strstr(llmem_last_error(), "no frame was pushed"), NULL);
	EXPECT_FAILS(llmem_encoder_release_packet(self->e, &never), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "bitstream buffer 0 is not held"), NULL);
	never.index = LLMEM_CODEC_MAX_BITSTREAM_BUFFERS + 1;
	EXPECT_FAILS(llmem_encoder_release_packet(self->e, &never), -EINVAL);

	ASSERT_EQ(take_frame(self, 0, &frame[0]), 0);
	ASSERT_EQ(take_frame(self, 1, &frame[1]), 0);
	if (variant->flags & LLMEM_ENCODER_COPY) {
		EXPECT_FAILS(llmem_encoder_get_frame(self->e, &bad), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "copy path"), NULL);
		bad = frame[0];
		bad.data[0] = NULL;
		EXPECT_FAILS(llmem_encoder_push(self->e, &bad), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "plane 0 has none"), NULL);
	} else {
		/* Both frames are out: no third. */
		EXPECT_FAILS(llmem_encoder_get_frame(self->e, &bad), -EBUSY);
		EXPECT_NE(strstr(llmem_last_error(), "all 2 are out"), NULL);
	}
	bad = frame[0];
	bad.num_planes = 2;
	EXPECT_FAILS(llmem_encoder_push(self->e, &bad), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "a frame of 2 planes"), NULL)
	TH_LOG("%s", llmem_last_error());
	bad.num_planes = 0;
	EXPECT_FAILS(llmem_encoder_push(self->e, &bad), -EINVAL);

	ASSERT_EQ(llmem_encoder_push(self->e, &frame[0]), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_push(self->e, &frame[1]), 0) TH_LOG("%s", llmem_last_error());
	/* Both slots are in the encoder until a packet is pulled. */
	EXPECT_FAILS(llmem_encoder_push(self->e, &frame[0]), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "all 2 frame slots"), NULL);
	if (!(variant->flags & LLMEM_ENCODER_COPY))
		EXPECT_FAILS(llmem_encoder_get_frame(self->e, &bad), -EBUSY);
	ASSERT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p[0]), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p[1]), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(p[0].id, 100);
	EXPECT_EQ(p[1].id, 101);
	EXPECT_NE(p[0].index, p[1].index);

	/* Both bitstream buffers are the caller's: the frame waits. */
	ASSERT_EQ(take_frame(self, 2, &frame[2]), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_push(self->e, &frame[2]), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_encoder_pull(self->e, 0, &p[2]), -EAGAIN);
	EXPECT_NE(strstr(llmem_last_error(), "every bitstream buffer is held"), NULL);
	ASSERT_EQ(llmem_encoder_release_packet(self->e, &p[0]), 0);
	EXPECT_FAILS(llmem_encoder_release_packet(self->e, &p[0]), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "is not held"), NULL);
	ASSERT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p[2]), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(p[2].id, 102);
	EXPECT_EQ(p[2].index, p[0].index);
	EXPECT_EQ(llmem_encoder_release_packet(self->e, &p[1]), 0);
	EXPECT_EQ(llmem_encoder_release_packet(self->e, &p[2]), 0);

	if (variant->flags & LLMEM_ENCODER_COPY)
		return;
	/* On the zero-copy path the fd is queued as it is. */
	ASSERT_EQ(pipe(pipefd), 0);
	bad = frame[0];
	bad.fd[0] = pipefd[0];
	EXPECT_FAILS(llmem_encoder_push(self->e, &bad), -EBADF);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* The vmaps and attachments of the DMA-BUF @fd, where llmem.ko exported it
 * (-1 otherwise), and @fd closed. */
static int holders_then_close(int fd)
{
	struct llmem_dmabuf_state st;
	int ret = llmem_dmabuf_query(fd, &st);

	close(fd);
	return ret || !(st.flags & LLMEM_DMABUF_EXPORTED_BY_LLMEM)
		       ? -1
		       : (int)(st.vmaps + st.attachments);
}

/*
 * Closed with frames in the encoder and a packet held, the encoder lets
 * go of every DMA-BUF: vicodec held the packet's buffer (its slot keeps it
 * mapped) and no longer does.
 */
TEST_F_TIMEOUT(encoder, close_lets_go, 120)
{
	struct llmem_codec_frame frame[2];
	struct llmem_codec_packet p;
	int kept[2];

	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(take_frame(self, f, &frame[f]), 0) TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_encoder_push(self->e, &frame[f]), 0);
	}
	ASSERT_EQ(llmem_encoder_pull(self->e, TIMEOUT_MS, &p), 0) TH_LOG("%s", llmem_last_error());
	kept[0] = fcntl(p.fd, F_DUPFD_CLOEXEC, 0);
	kept[1] = fcntl(frame[1].fd[0] >= 0 ? frame[1].fd[0] : p.fd, F_DUPFD_CLOEXEC, 0);
	ASSERT_GE(kept[0], 0);
	ASSERT_GE(kept[1], 0);
	if (self->info.backend == LLMEM_BACKEND_LLMEM_DMABUF) {
		struct llmem_dmabuf_state st;

		ASSERT_EQ(llmem_dmabuf_query(p.fd, &st), 0);
		EXPECT_EQ(st.vmaps, 1);
	}
	llmem_encoder_close(self->e);
	self->e = NULL;
	for (int i = 0; i < 2; i++) {
		int holders = holders_then_close(kept[i]);

		if (self->info.backend == LLMEM_BACKEND_LLMEM_DMABUF)
			EXPECT_EQ(holders, 0) TH_LOG("buffer %d", i);
	}
}

/* The node of vicodec's encoder or stateful decoder. */
static int vicodec_node(uint32_t kind, char *path, size_t len)
{
	struct llmem_codec_find_info fi = { .kind = kind,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .driver = "vicodec" };

	return llmem_codec_find(&fi, path, len);
}

/*
 * What a device refuses at open: a node of the other kind, a raw format or
 * a pitch the encoder will not take, a coded format no node has; each by
 * name, the handle left alone.
 */
TEST(open_refusals)
{
	struct llmem_encoder *e = (struct llmem_encoder *)&e;
	struct llmem_decoder *d = (struct llmem_decoder *)&d;
	struct llmem_encoder_create_info eci = { .width = WIDTH, .height = HEIGHT };
	struct llmem_decoder_create_info dci = { 0 };
	char enc[64], dec[64], file[300];
	uint8_t frame[FWHT_FRAME_HEADER + 16];
	struct llmem_session *s;
	struct scratch t;

	VK_TEST_SESSION(s);
	ASSERT_EQ(scratch_make(&t, "codec-objects"), 0);
	ASSERT_EQ(vicodec_node(LLMEM_CODEC_ENCODER, enc, sizeof(enc)), 0);
	ASSERT_EQ(vicodec_node(LLMEM_CODEC_DECODER, dec, sizeof(dec)), 0);

	eci.device = dec;
	EXPECT_FAILS(llmem_encoder_open(s, &eci, &e), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "is no encoder"), NULL);
	eci.device = enc;
	eci.pitch = WIDTH * 2 + 20;
	EXPECT_FAILS(llmem_encoder_open(s, &eci, &e), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "pitch 1280; these are 640x480 with pitch 1300"), NULL)
	TH_LOG("%s", llmem_last_error());
	eci.pitch = 0;
	eci.fourcc = V4L2_PIX_FMT_SRGGB8;
	EXPECT_FAILS(llmem_encoder_open(s, &eci, &e), -EINVAL);
	TH_LOG("%s", llmem_last_error());
	eci.device = NULL;
	EXPECT_FAILS(llmem_encoder_open(s, &eci, &e), -ENODEV);
	eci.fourcc = 0;
	eci.coded_fourcc = V4L2_PIX_FMT_H264;
	EXPECT_FAILS(llmem_encoder_open(s, &eci, &e), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "H264"), NULL) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(e, (struct llmem_encoder *)&e);

	/* A one-frame stream, for the decoder to be opened on. */
	snprintf(file, sizeof(file), "%s/one.fwht", t.dir);
	ASSERT_EQ(write_file(file, frame, fwht_frame(frame, WIDTH, HEIGHT, 0, 16, 1)), 0);
	ASSERT_EQ(llmem_bitstream_open_fwht(file, &dci.source), 0) TH_LOG("%s", llmem_last_error());
	dci.device = enc;
	EXPECT_FAILS(llmem_decoder_open(s, &dci, &d), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "is no stateful decoder"), NULL);
	EXPECT_EQ(d, (struct llmem_decoder *)&d);
	llmem_bitstream_close(dci.source);
	scratch_remove(&t);
	VK_TEST_SESSION_END(s);
}

/* ---- A camera's frames into the encoder ---- */

FIXTURE(camera_encoder)
{
	struct llmem_session *s;
	struct llmem_camera *cam;
	struct llmem_camera_info cinfo;
	struct llmem_encoder *e;
	struct llmem_encoder_info info;
	struct scratch t;
};

FIXTURE_VARIANT(camera_encoder)
{
	uint32_t camera_flags;
};

/* The camera captures into llmem memory. */
FIXTURE_VARIANT_ADD(camera_encoder, zero_copy){
	.camera_flags = 0,
};

/* The camera captures into its driver's buffers, exported. */
FIXTURE_VARIANT_ADD(camera_encoder, camera_copy){
	.camera_flags = LLMEM_CAMERA_COPY,
};

/* vivid's YUYV camera, streaming, and an encoder of its frames as they lie. */
FIXTURE_SETUP(camera_encoder)
{
	struct llmem_camera_create_info cci = {
		.fourcc = V4L2_PIX_FMT_YUYV,
		.width = WIDTH,
		.height = HEIGHT,
		.buffers = 4,
		.flags = variant->camera_flags | LLMEM_CAMERA_INPUT,
		.input = 0,
	};
	struct llmem_encoder_create_info eci = { .width = WIDTH, .height = HEIGHT };
	char path[32];

	ASSERT_EQ(vivid_capture_path(0, path, sizeof(path)), 0);
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(scratch_make(&self->t, "codec-objects"), 0);
	cci.device = path;
	ASSERT_EQ(llmem_camera_open(self->s, &cci, &self->cam), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(self->cam, &self->cinfo), 0);
	eci.pitch = self->cinfo.format.bytesperline;
	ASSERT_EQ(llmem_encoder_open(self->s, &eci, &self->e), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_encoder_get_info(self->e, &self->info), 0);
	ASSERT_EQ(llmem_camera_start(self->cam), 0) TH_LOG("%s", llmem_last_error());
}

FIXTURE_TEARDOWN(camera_encoder)
{
	llmem_encoder_close(self->e);
	llmem_camera_close(self->cam);
	VK_TEST_SESSION_END(self->s);
	scratch_remove(&self->t);
}

/*
 * Each camera frame goes to the encoder by the DMA-BUF it carries, and the
 * bitstream is v4l2-ctl's of the same frames, read through those DMA-BUFs.
 */
TEST_F_TIMEOUT(camera_encoder, frames_by_their_dmabufs, 300)
{
	const uint32_t size = self->info.raw.sizeimage[0];
	uint8_t *raw = malloc(NFRAMES * size), *stream = malloc(STREAM_MAX);
	uint8_t *want = malloc(STREAM_MAX);
	char path[300], fmt_out[80];
	size_t len = 0;
	long n;

	ASSERT_NE(raw, NULL);
	ASSERT_NE(stream, NULL);
	ASSERT_NE(want, NULL);
	ASSERT_EQ(self->info.raw.bytesperline[0], self->cinfo.format.bytesperline);
	ASSERT_EQ(size, self->cinfo.format.sizeimage);
	for (int f = 0; f < NFRAMES; f++) {
		struct llmem_codec_frame frame = { .num_planes = 1, .id = f };
		struct llmem_camera_frame cf;
		struct llmem_codec_packet p;
		void *map;

		ASSERT_EQ(llmem_camera_next(self->cam, TIMEOUT_MS, &cf), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_GE(cf.fd[0], 0);
		EXPECT_EQ(cf.fd[1], -1);
		ASSERT_EQ(llmem_dmabuf_map(cf.fd[0], 0, size, LLMEM_CPU_READ, &map), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_dmabuf_begin_cpu_access(cf.fd[0], LLMEM_CPU_READ), 0);
		memcpy(raw + f * size, map, size);
		ASSERT_EQ(llmem_dmabuf_end_cpu_access(cf.fd[0], LLMEM_CPU_READ), 0);
		ASSERT_EQ(llmem_dmabuf_unmap(map, size), 0);
		frame.fd[0] = cf.fd[0];
		frame.fd[1] = -1;
		ASSERT_EQ(llmem_encoder_encode(self->e, &frame, TIMEOUT_MS, &p), 0)
		TH_LOG("%s", llmem_last_error());
		EXPECT_EQ(p.id, f);
		/* The first frame is intra; vicodec codes a later one intra too when
		 * every block chose to, which depends on how far vivid's picture
		 * moved between the frames. */
		if (f == 0)
			EXPECT_TRUE(p.flags & LLMEM_CODEC_BUF_KEYFRAME);
		ASSERT_LE(len + p.size, STREAM_MAX);
		memcpy(stream + len, p.data, p.size);
		len += p.size;
		ASSERT_EQ(llmem_encoder_release_packet(self->e, &p), 0);
		ASSERT_EQ(llmem_camera_release(self->cam, &cf), 0) TH_LOG("%s", llmem_last_error());
	}
	snprintf(path, sizeof(path), "%s/camera.yuyv", self->t.dir);
	snprintf(fmt_out, sizeof(fmt_out), "width=%d,height=%d,pixelformat=YUYV", WIDTH, HEIGHT);
	ASSERT_EQ(write_file(path, raw, NFRAMES * size), 0);
	n = ref_stream(_metadata, &self->t, self->info.device, path, fmt_out, "FWHT", want,
		       STREAM_MAX);
	ASSERT_EQ(n, (long)len);
	EXPECT_EQ(memcmp(want, stream, len), 0);
	free(raw);
	free(stream);
	free(want);
}

/* A DMA-BUF smaller than the encoder's plane is refused before the driver
 * sees it, by both sizes. */
TEST_F_TIMEOUT(camera_encoder, small_dmabuf_refused, 120)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE,
						.page_size = 4096,
						.sharing = LLMEM_SHARING_DMABUF };
	struct llmem_buffer_create_info bci = { .size = 4096 };
	struct llmem_codec_frame frame = { .num_planes = 1, .fd = { -1, -1 } };
	struct llmem_codec_packet p;
	struct llmem_dmabuf_region r;
	struct llmem_memory *m;
	struct llmem_buffer *b;
	char want[32];

	ASSERT_EQ(llmem_memory_create(self->s, &mci, &m), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_buffer_create(m, &bci, &b), 0);
	ASSERT_EQ(llmem_buffer_export(b, &r), 0) TH_LOG("%s", llmem_last_error());
	frame.fd[0] = r.fd;
	EXPECT_FAILS(llmem_encoder_push(self->e, &frame), -EINVAL);
	snprintf(want, sizeof(want), "needs %u", self->info.raw.sizeimage[0]);
	EXPECT_NE(strstr(llmem_last_error(), want), NULL) TH_LOG("%s", llmem_last_error());
	/* Nothing was taken: there is no packet to wait for. */
	EXPECT_FAILS(llmem_encoder_pull(self->e, 0, &p), -EAGAIN);
	close(r.fd);
	llmem_buffer_destroy(b);
	EXPECT_EQ(llmem_memory_destroy(m), 0);
}

/* ---- The decoder ---- */

FIXTURE(decoder)
{
	struct llmem_session *s;
	struct scratch t;
	uint8_t *input, *input2; /* NV12 frames of both sizes */
	uint8_t *stream;
	size_t stream_len;
	char path[300];
	struct llmem_bitstream *source;
	struct llmem_decoder *d;
	uint8_t *ref; /* v4l2-ctl's decode of the stream, YUV420 */
	long ref_len;
	uint8_t *got, *rgba_ref;
};

FIXTURE_VARIANT(decoder)
{
	uint32_t fourcc;
	uint32_t flags;
	uint32_t rgba_buffers;
	uint32_t rgba_pitch_alignment;
	/* An engine that takes the RGBA frames with rows of a multiple of
	 * this many bytes, given as a participant; 0 for none. */
	uint32_t rgba_engine_alignment;
	uint32_t backend;
};

/* NV12, the decoder's choice for a 4:2:0 stream, converted to RGBA. */
FIXTURE_VARIANT_ADD(decoder, nv12_convert){
	.flags = LLMEM_DECODER_CONVERT,
};

/* Two RGBA buffers in shared pages, written in turn, rows padded to 1 KiB. */
FIXTURE_VARIANT_ADD(decoder, nv12_convert_two_shared_padded){
	.flags = LLMEM_DECODER_CONVERT | LLMEM_DECODER_SHARED_RGBA,
	.rgba_buffers = 2,
	.rgba_pitch_alignment = 1024,
};

/* RGBA frames laid out for an engine that reads rows of 768 bytes at a
 * time: negotiated with the conversion, which keeps 32-bit words. */
FIXTURE_VARIANT_ADD(decoder, nv12_convert_for_an_engine){
	.flags = LLMEM_DECODER_CONVERT | LLMEM_DECODER_SHARED_RGBA,
	.rgba_engine_alignment = 768,
};

/* On llmem.ko's pages, whose holders llmem_dmabuf_query() sees. */
FIXTURE_VARIANT_ADD(decoder, nv12_llmem_pages){
	.flags = 0,
	.backend = LLMEM_BACKEND_LLMEM_DMABUF,
};

/* A format the shaders do not read: the conversion asked for is dropped. */
FIXTURE_VARIANT_ADD(decoder, yuv420_convert_dropped){
	.fourcc = V4L2_PIX_FMT_YUV420,
	.flags = LLMEM_DECODER_CONVERT,
};

/* @n NV12 frames of @w x @h at @input through an encoder object, appended
 * to self->stream. */
static void encode_nv12(struct __test_metadata *_metadata, FIXTURE_DATA(decoder) * self,
			const uint8_t *input, int w, int h, int n)
{
	struct llmem_encoder_create_info ci = {
		.fourcc = V4L2_PIX_FMT_NV12,
		.width = w,
		.height = h,
	};
	uint32_t size = raw_size(V4L2_PIX_FMT_NV12, w, h);
	struct llmem_codec_packet p;
	struct llmem_encoder *e;

	ASSERT_EQ(llmem_encoder_open(self->s, &ci, &e), 0) TH_LOG("%s", llmem_last_error());
	for (int f = 0; f < n; f++) {
		struct llmem_codec_frame frame;

		ASSERT_EQ(llmem_encoder_get_frame(e, &frame), 0);
		memcpy(frame.data[0], input + f * size, size);
		ASSERT_EQ(llmem_buffer_flush(frame.buffer[0], 0, LLMEM_WHOLE_SIZE), 0);
		ASSERT_EQ(llmem_encoder_encode(e, &frame, TIMEOUT_MS, &p), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_LE(self->stream_len + p.size, STREAM_MAX);
		memcpy(self->stream + self->stream_len, p.data, p.size);
		self->stream_len += p.size;
		ASSERT_EQ(llmem_encoder_release_packet(e, &p), 0);
	}
	ASSERT_EQ(llmem_encoder_drain(e), 0);
	EXPECT_EQ(llmem_encoder_pull(e, TIMEOUT_MS, &p), -ENODATA);
	llmem_encoder_close(e);
}

FIXTURE_SETUP(decoder)
{
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(scratch_make(&self->t, "codec-objects"), 0);
	snprintf(self->path, sizeof(self->path), "%s/in.fwht", self->t.dir);
	self->input = malloc(NFRAMES * raw_size(V4L2_PIX_FMT_NV12, WIDTH, HEIGHT));
	self->input2 = malloc(NFRAMES * raw_size(V4L2_PIX_FMT_NV12, WIDTH2, HEIGHT2));
	self->stream = malloc(STREAM_MAX);
	self->ref = malloc(STREAM_MAX);
	self->got = malloc(WIDTH2 * HEIGHT2 * 3 / 2);
	self->rgba_ref = malloc(RGBA_REF_SIZE);
	ASSERT_NE(self->input, NULL);
	ASSERT_NE(self->input2, NULL);
	ASSERT_NE(self->stream, NULL);
	ASSERT_NE(self->ref, NULL);
	ASSERT_NE(self->got, NULL);
	ASSERT_NE(self->rgba_ref, NULL);
	for (int f = 0; f < NFRAMES; f++) {
		make_frame(self->input + f * WIDTH * HEIGHT * 3 / 2, V4L2_PIX_FMT_NV12, f, WIDTH,
			   HEIGHT);
		make_frame(self->input2 + f * WIDTH2 * HEIGHT2 * 3 / 2, V4L2_PIX_FMT_NV12, f,
			   WIDTH2, HEIGHT2);
	}
}

FIXTURE_TEARDOWN(decoder)
{
	llmem_decoder_close(self->d);
	llmem_bitstream_close(self->source);
	VK_TEST_SESSION_END(self->s);
	free(self->input);
	free(self->input2);
	free(self->stream);
	free(self->ref);
	free(self->got);
	free(self->rgba_ref);
	scratch_remove(&self->t);
}

/*
 * self->stream as a file, v4l2-ctl's decode of it as the reference, and
 * the decoder of the variant open on it.
 */
static void open_decoder(struct __test_metadata *_metadata, FIXTURE_DATA(decoder) * self,
			 const FIXTURE_VARIANT(decoder) * variant, uint32_t frames)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_DECODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .driver = "vicodec" };
	struct llmem_participant engine = { .name = "a 768-byte engine",
					    .kind = LLMEM_PARTICIPANT_OTHER };
	struct llmem_decoder_create_info ci = {
		.fourcc = variant->fourcc,
		.frames = frames,
		.flags = variant->flags,
		.rgba_buffers = variant->rgba_buffers,
		.rgba_pitch_alignment = variant->rgba_pitch_alignment,
		.backend = variant->backend,
		.rgba_participants = &engine,
		.num_rgba_participants = variant->rgba_engine_alignment ? 1 : 0,
	};
	char node[64], fmt_out[80];

	ASSERT_EQ(write_file(self->path, self->stream, self->stream_len), 0);
	ASSERT_EQ(llmem_codec_find(&fi, node, sizeof(node)), 0) TH_LOG("%s", llmem_last_error());
	snprintf(fmt_out, sizeof(fmt_out), "width=%d,height=%d,pixelformat=FWHT", WIDTH, HEIGHT);
	self->ref_len = ref_stream(_metadata, &self->t, node, self->path, fmt_out, NULL, self->ref,
				   STREAM_MAX);
	ASSERT_GT(self->ref_len, 0);
	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->source), 0)
	TH_LOG("%s", llmem_last_error());
	ci.source = self->source;
	engine.constraints.pitch_alignment = variant->rgba_engine_alignment;
	ASSERT_EQ(llmem_decoder_open(self->s, &ci, &self->d), 0) TH_LOG("%s", llmem_last_error());
}

/*
 * A decoded frame is v4l2-ctl's (YUV420, at byte @at of the reference)
 * byte for byte, NV12's chroma taken apart first; with @rgba (the frame
 * converted last: the RGBA buffers are written in turn), its RGBA is the
 * CPU's conversion of it (BT.601, limited range).
 */
static void expect_frame(struct __test_metadata *_metadata, FIXTURE_DATA(decoder) * self,
			 const struct llmem_codec_frame *frame, size_t at, bool rgba)
{
	struct llmem_decoder_info info;
	uint32_t w, h, luma;
	const uint8_t *px = frame->data[0];

	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	w = info.format.width;
	h = info.format.height;
	luma = w * h;
	ASSERT_EQ(frame->num_planes, 1);
	ASSERT_NE(px, NULL);
	ASSERT_EQ(info.format.bytesperline[0], w);
	ASSERT_EQ(frame->bytesused[0], luma * 3 / 2);
	ASSERT_LE(at + luma * 3 / 2, (size_t)self->ref_len);
	memcpy(self->got, px, luma);
	if (info.format.fourcc == V4L2_PIX_FMT_NV12) {
		for (uint32_t i = 0; i < luma / 4; i++) {
			self->got[luma + i] = px[luma + 2 * i];
			self->got[luma + luma / 4 + i] = px[luma + 2 * i + 1];
		}
	} else {
		ASSERT_EQ(info.format.fourcc, V4L2_PIX_FMT_YUV420);
		memcpy(self->got + luma, px + luma, luma / 2);
	}
	EXPECT_EQ(memcmp(self->got, self->ref + at, luma * 3 / 2), 0)
	TH_LOG("frame %lu", frame->id);
	if (!(info.flags & LLMEM_DECODER_CONVERT)) {
		EXPECT_EQ(frame->rgba, NULL);
		EXPECT_EQ(frame->rgba_data, NULL);
		return;
	}
	if (!rgba)
		return;
	ASSERT_NE(frame->rgba, NULL);
	ASSERT_NE(frame->rgba_data, NULL);
	EXPECT_LT(frame->rgba_index, info.rgba_buffers);
	ASSERT_EQ(info.rgba_layout.width, w);
	ASSERT_EQ(info.rgba_layout.height, h);
	ASSERT_LE(info.rgba_layout.size, RGBA_REF_SIZE);
	ref_nv12_to_rgba(px, w, px + luma, w, w, h, 0, 0, self->rgba_ref,
			 info.rgba_layout.pitch[0]);
	EXPECT_LE(ref_worst_channel(frame->rgba_data, self->rgba_ref, &info.rgba_layout), 2)
	TH_LOG("frame %lu", frame->id);
}

/*
 * The stream of NFRAMES decodes in order into the frames v4l2-ctl gives,
 * ids counting the units, then -ENODATA; the info tells the format, the
 * layouts and the counts.
 */
TEST_F_TIMEOUT(decoder, decode_equals_v4l2_ctl, 300)
{
	const uint32_t size = WIDTH * HEIGHT * 3 / 2;
	const uint32_t rgba_buffers = variant->rgba_buffers ? variant->rgba_buffers : 1;
	bool convert = variant->flags & LLMEM_DECODER_CONVERT;
	struct llmem_codec_frame frame;
	struct llmem_decoder_info info;
	struct llmem_buffer *b;

	encode_nv12(_metadata, self, self->input, WIDTH, HEIGHT, NFRAMES);
	open_decoder(_metadata, self, variant, 0);
	ASSERT_EQ(self->ref_len, NFRAMES * size);
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	EXPECT_STREQ(info.driver, "vicodec");
	EXPECT_EQ(info.source_changes, 0);
	EXPECT_EQ(info.format.fourcc, 0);
	EXPECT_FAILS(llmem_decoder_frame_buffer(self->d, 0, &b), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "not started"), NULL);

	ASSERT_EQ(llmem_decoder_start(self->d, TIMEOUT_MS), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_decoder_start(self->d, TIMEOUT_MS), 0);
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	EXPECT_EQ(info.source_changes, 1);
	EXPECT_EQ(info.format.fourcc, variant->fourcc ? variant->fourcc : V4L2_PIX_FMT_NV12);
	EXPECT_EQ(info.format.width, WIDTH);
	EXPECT_EQ(info.format.height, HEIGHT);
	EXPECT_EQ(info.format.sizeimage[0], size);
	EXPECT_EQ(info.frames, 3);
	EXPECT_EQ(info.backend == LLMEM_BACKEND_VULKAN, 0);
	if (variant->backend)
		EXPECT_EQ(info.backend, variant->backend);
	if (variant->fourcc == V4L2_PIX_FMT_YUV420) {
		/* frame.h lays no YUV420 out: nothing to convert. */
		EXPECT_EQ(info.layout.num_planes, 0);
		EXPECT_EQ(info.flags, 0);
		EXPECT_EQ(info.rgba_buffers, 0);
	} else {
		EXPECT_EQ(info.layout.fourcc, DRM_FORMAT_NV12);
		EXPECT_EQ(info.layout.num_planes, 2);
		EXPECT_EQ(info.layout.pitch[0], WIDTH);
		EXPECT_EQ(info.layout.offset[1], WIDTH * HEIGHT);
		EXPECT_EQ(info.flags, variant->flags);
		EXPECT_EQ(info.rgba_buffers, convert ? rgba_buffers : 0);
	}
	if (info.flags & LLMEM_DECODER_CONVERT) {
		uint32_t align = variant->rgba_pitch_alignment	  ? variant->rgba_pitch_alignment
				 : variant->rgba_engine_alignment ? variant->rgba_engine_alignment
								  : 1;
		struct llmem_dmabuf_region r;

		EXPECT_EQ(info.rgba_layout.fourcc, DRM_FORMAT_ABGR8888);
		EXPECT_EQ(info.rgba_layout.pitch[0], (WIDTH * 4 + align - 1) / align * align);
		for (uint32_t i = 0; i < rgba_buffers; i++) {
			ASSERT_EQ(llmem_decoder_rgba_buffer(self->d, i, &b), 0);
			ASSERT_NE(b, NULL);
			/* Shared RGBA buffers export; the others need not. */
			if (variant->flags & LLMEM_DECODER_SHARED_RGBA) {
				ASSERT_EQ(llmem_buffer_export(b, &r), 0)
				TH_LOG("%s", llmem_last_error());
				close(r.fd);
			}
		}
		EXPECT_FAILS(llmem_decoder_rgba_buffer(self->d, rgba_buffers, &b), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "past them"), NULL);
	} else {
		EXPECT_EQ(info.rgba_layout.num_planes, 0);
		EXPECT_FAILS(llmem_decoder_rgba_buffer(self->d, 0, &b), -EINVAL);
		EXPECT_NE(strstr(llmem_last_error(), "no conversion"), NULL);
	}
	for (uint32_t i = 0; i < info.frames; i++) {
		ASSERT_EQ(llmem_decoder_frame_buffer(self->d, i, &b), 0);
		EXPECT_NE(b, NULL);
	}
	EXPECT_FAILS(llmem_decoder_frame_buffer(self->d, info.frames, &b), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "past the frames"), NULL);

	for (int f = 0; f < NFRAMES; f++) {
		ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame), 0)
		TH_LOG("frame %d: %s", f, llmem_last_error());
		EXPECT_EQ(frame.id, f);
		EXPECT_EQ(frame.generation, 1);
		if (info.flags & LLMEM_DECODER_CONVERT)
			EXPECT_EQ(frame.rgba_index, f % rgba_buffers);
		EXPECT_LT(frame.index, info.frames);
		EXPECT_EQ(frame.fd[1], -1);
		EXPECT_GE(frame.fd[0], 0);
		EXPECT_NE(frame.buffer[0], NULL);
		/* The last may be flagged LAST, or an empty buffer after it,
		 * as the drain and the decoding meet. */
		if (f < NFRAMES - 1)
			EXPECT_EQ(frame.flags & LLMEM_CODEC_BUF_LAST, 0);
		expect_frame(_metadata, self, &frame, f * size, true);
		ASSERT_EQ(llmem_decoder_release(self->d, &frame), 0)
		TH_LOG("%s", llmem_last_error());
	}
	EXPECT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame), -ENODATA);
	EXPECT_EQ(llmem_decoder_next(self->d, 0, &frame), -ENODATA);
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	EXPECT_EQ(info.units_fed, NFRAMES);
	EXPECT_EQ(info.frames_decoded, NFRAMES);
	EXPECT_EQ(info.source_changes, 1);
}

/*
 * Frames held: with all three the caller's, the next is -EBUSY until one
 * comes back; a frame given back twice, or one the decoder never had, is
 * refused.
 */
TEST_F_TIMEOUT(decoder, frames_held, 300)
{
	struct llmem_codec_frame frame[NFRAMES], never;
	const uint32_t size = WIDTH * HEIGHT * 3 / 2;

	encode_nv12(_metadata, self, self->input, WIDTH, HEIGHT, NFRAMES);
	open_decoder(_metadata, self, variant, 3);
	for (int f = 0; f < 3; f++) {
		ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[f]), 0)
		TH_LOG("frame %d: %s", f, llmem_last_error());
		EXPECT_EQ(frame[f].id, f);
		expect_frame(_metadata, self, &frame[f], f * size, true);
	}
	EXPECT_NE(frame[0].index, frame[1].index);
	EXPECT_NE(frame[1].index, frame[2].index);
	EXPECT_NE(frame[0].index, frame[2].index);
	EXPECT_FAILS(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[3]), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "all 3 frames are held"), NULL)
	TH_LOG("%s", llmem_last_error());
	/* Held frames keep their pixels while the decoder waits (their RGBA
	 * is the latest frame's: there is one RGBA buffer). */
	expect_frame(_metadata, self, &frame[0], 0, false);
	ASSERT_EQ(llmem_decoder_release(self->d, &frame[0]), 0);
	EXPECT_FAILS(llmem_decoder_release(self->d, &frame[0]), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "is not held"), NULL);
	never = frame[1];
	never.index = LLMEM_CODEC_MAX_FRAMES;
	EXPECT_FAILS(llmem_decoder_release(self->d, &never), -EINVAL);
	never.index = frame[1].index;
	never.generation = 2;
	EXPECT_FAILS(llmem_decoder_release(self->d, &never), -EINVAL);

	ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[3]), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(frame[3].id, 3);
	EXPECT_EQ(frame[3].index, frame[0].index);
	expect_frame(_metadata, self, &frame[3], 3 * size, true);
	expect_frame(_metadata, self, &frame[1], 1 * size, false);
	expect_frame(_metadata, self, &frame[2], 2 * size, false);
	EXPECT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[0]), -ENODATA);
	for (int f = 1; f < NFRAMES; f++) {
		EXPECT_EQ(llmem_decoder_release(self->d, &frame[f]), 0)
		TH_LOG("frame %d: %s", f, llmem_last_error());
	}
}

/*
 * Two frames of 640x480 then two of 720x480: the first two are of
 * generation 1; while one is held, the change is -EBUSY; once both are
 * back the decoder reallocates, and the rest are of generation 2 and the
 * new size (the info says so), equal to v4l2-ctl's decode of the stream.
 */
TEST_F_TIMEOUT(decoder, follows_resolution_change, 300)
{
	const uint32_t size = WIDTH * HEIGHT * 3 / 2, size2 = WIDTH2 * HEIGHT2 * 3 / 2;
	struct llmem_codec_frame frame[NFRAMES];
	struct llmem_decoder_info info;

	encode_nv12(_metadata, self, self->input, WIDTH, HEIGHT, 2);
	encode_nv12(_metadata, self, self->input2, WIDTH2, HEIGHT2, 2);
	open_decoder(_metadata, self, variant, 0);
	ASSERT_EQ(self->ref_len, 2 * size + 2 * size2);
	for (int f = 0; f < 2; f++) {
		ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[f]), 0)
		TH_LOG("frame %d: %s", f, llmem_last_error());
		EXPECT_EQ(frame[f].id, f);
		EXPECT_EQ(frame[f].generation, 1);
		expect_frame(_metadata, self, &frame[f], f * size, true);
	}
	ASSERT_EQ(llmem_decoder_release(self->d, &frame[0]), 0);
	EXPECT_FAILS(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[2]), -EBUSY);
	EXPECT_NE(strstr(llmem_last_error(), "changes format; release the 1 frame held"), NULL)
	TH_LOG("%s", llmem_last_error());
	/* Still the old format, and the held frame still its pixels. */
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	EXPECT_EQ(info.source_changes, 1);
	EXPECT_EQ(info.format.width, WIDTH);
	expect_frame(_metadata, self, &frame[1], size, true);
	ASSERT_EQ(llmem_decoder_release(self->d, &frame[1]), 0) TH_LOG("%s", llmem_last_error());

	for (int f = 2; f < NFRAMES; f++) {
		ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[f]), 0)
		TH_LOG("frame %d: %s", f, llmem_last_error());
		EXPECT_EQ(frame[f].id, f);
		EXPECT_EQ(frame[f].generation, 2);
		expect_frame(_metadata, self, &frame[f], 2 * size + (f - 2) * size2, true);
		if (f == 2) {
			/* A frame of the first format is no longer the caller's. */
			EXPECT_FAILS(llmem_decoder_release(self->d, &frame[1]), -EINVAL);
		}
		ASSERT_EQ(llmem_decoder_release(self->d, &frame[f]), 0);
	}
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	EXPECT_EQ(info.source_changes, 2);
	EXPECT_EQ(info.format.width, WIDTH2);
	EXPECT_EQ(info.format.height, HEIGHT2);
	EXPECT_EQ(info.format.sizeimage[0], size2);
	if (info.flags & LLMEM_DECODER_CONVERT)
		EXPECT_EQ(info.rgba_layout.width, WIDTH2);
	EXPECT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame[0]), -ENODATA);
	EXPECT_EQ(info.frames_decoded, NFRAMES);
	EXPECT_EQ(info.units_fed, NFRAMES);
}

/*
 * Closed with a frame held and the stream half decoded, the decoder lets
 * go of every DMA-BUF: vicodec held the frames' buffers and no longer does.
 */
TEST_F_TIMEOUT(decoder, close_lets_go, 300)
{
	struct llmem_codec_frame frame;
	struct llmem_decoder_info info;
	int kept;

	encode_nv12(_metadata, self, self->input, WIDTH, HEIGHT, NFRAMES);
	open_decoder(_metadata, self, variant, 0);
	ASSERT_EQ(llmem_decoder_next(self->d, TIMEOUT_MS, &frame), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_decoder_get_info(self->d, &info), 0);
	kept = fcntl(frame.fd[0], F_DUPFD_CLOEXEC, 0);
	ASSERT_GE(kept, 0);
	if (info.backend == LLMEM_BACKEND_LLMEM_DMABUF) {
		struct llmem_dmabuf_state st;

		ASSERT_EQ(llmem_dmabuf_query(frame.fd[0], &st), 0);
		EXPECT_EQ(st.vmaps, 1);
	}
	llmem_decoder_close(self->d);
	self->d = NULL;
	if (info.backend == LLMEM_BACKEND_LLMEM_DMABUF) {
		EXPECT_EQ(holders_then_close(kept), 0);
	} else {
		close(kept);
	}
}

/*
 * Asked to decode a 4:2:0 stream into YUYV (4:2:2), the decoder says the
 * stream does not decode into it, instead of following the same source
 * change again and again.
 */
TEST_F_TIMEOUT(decoder, other_subsampling_refused, 120)
{
	struct llmem_decoder_create_info ci = { .fourcc = V4L2_PIX_FMT_YUYV,
						.flags = variant->flags };
	struct llmem_codec_frame frame;

	encode_nv12(_metadata, self, self->input, WIDTH, HEIGHT, 2);
	ASSERT_EQ(write_file(self->path, self->stream, self->stream_len), 0);
	ASSERT_EQ(llmem_bitstream_open_fwht(self->path, &self->source), 0);
	ci.source = self->source;
	ASSERT_EQ(llmem_decoder_open(self->s, &ci, &self->d), 0) TH_LOG("%s", llmem_last_error());
	/* The first format is followed: the decoder answers with the change. */
	ASSERT_EQ(llmem_decoder_start(self->d, TIMEOUT_MS), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_decoder_next(self->d, TIMEOUT_MS, &frame), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "does not decode into YUYV"), NULL)
	TH_LOG("%s", llmem_last_error());
}

TEST_HARNESS_MAIN
