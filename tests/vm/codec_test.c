// SPDX-License-Identifier: MIT
/*
 * The codec API (codec.h) with vicodec in the VM: llmem buffers queued as
 * DMA-BUFs on both queues of the stateful FWHT encoder and decoder give the
 * bitstream and the frames that v4l2-ctl's MMAP streaming gives from the
 * same input, byte for byte; the decoder's source change, at the start and
 * when the stream changes resolution in the middle of a drain, the drain
 * with the LAST flag, the tracker's view of the codec's hold (the page
 * query and debugfs), and the refusal of a DMA-BUF smaller than the plane.
 *
 * Built twice: on llmem.ko's pages (frames sub-allocated in shared pages,
 * each its own DMA-BUF) on both kernels, and with CODEC_BACKEND set to the
 * Vulkan driver's own DMA-BUFs (codec_vulkan_6_12_test.c) where the kernel
 * has udmabuf.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/llmem.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#ifndef CODEC_BACKEND
#define CODEC_BACKEND LLMEM_BACKEND_LLMEM_DMABUF
#endif

#define WIDTH 640
#define HEIGHT 480
#define RAW_SIZE (WIDTH * HEIGHT * 3 / 2)
/* The second resolution of the stream that changes (vicodec takes nothing
 * below 640x360). */
#define WIDTH2 720
#define HEIGHT2 480
#define RAW_SIZE2 (WIDTH2 * HEIGHT2 * 3 / 2)
#define NFRAMES 4
#define NBUFS (NFRAMES + 1)
#define TIMEOUT_MS 20000
#define STREAM_MAX (NFRAMES * RAW_SIZE)
#define DEBUGFS_BUFFERS "/sys/kernel/debug/llmem/buffers"

/* A buffer of llmem memory as one DMA-BUF whose first byte is its own. */
struct dbuf {
	struct llmem_memory *own; /* its own memory, when the backend needs one */
	struct llmem_buffer *b;
	uint8_t *map;
	int fd;
	uint32_t size;
};

FIXTURE(codec)
{
	struct llmem_session *s;
	struct llmem_memory *m;
	struct llmem_codec *enc, *dec;
	struct dbuf out[NBUFS], cap[NBUFS];
	uint8_t *input;
	uint8_t *stream;
	size_t stream_len;
	uint8_t *decoded;
	size_t decoded_len;
	char tmp[256];
};

static int dbuf_alloc(FIXTURE_DATA(codec) * self, uint32_t size, struct dbuf *d)
{
	struct llmem_buffer_create_info bci = { .alignment = 4096, .name = "codec" };
	struct llmem_memory *m = self->m;
	struct llmem_dmabuf_region r;
	int ret;

	size = (size + 4095) & ~4095u;
	bci.size = size;
	if (CODEC_BACKEND != LLMEM_BACKEND_LLMEM_DMABUF) {
		/* The driver's DMA-BUF is a whole page: one page per buffer. */
		struct llmem_memory_create_info mci = {
			.flags = LLMEM_MEMORY_HOST_VISIBLE,
			.page_size = size,
			.sharing = LLMEM_SHARING_DMABUF,
			.backend = CODEC_BACKEND,
			.name = "codec",
		};

		ret = llmem_memory_create(self->s, &mci, &d->own);
		if (ret)
			return ret;
		m = d->own;
	}
	ret = llmem_buffer_create(m, &bci, &d->b);
	if (ret)
		return ret;
	ret = CODEC_BACKEND == LLMEM_BACKEND_LLMEM_DMABUF ? llmem_buffer_export_range(d->b, &r)
							  : llmem_buffer_export(d->b, &r);
	if (ret)
		return ret;
	if (r.offset)
		return -EINVAL;
	d->fd = r.fd;
	d->size = size;
	return llmem_buffer_map(d->b, (void **)&d->map);
}

static void dbuf_free(struct dbuf *d)
{
	if (d->map)
		llmem_buffer_unmap(d->b);
	if (d->fd > 0)
		close(d->fd);
	llmem_buffer_destroy(d->b);
	if (d->own)
		llmem_memory_destroy(d->own);
	memset(d, 0, sizeof(*d));
}

/* A smooth @w x @h picture with a bright square that moves with @frame. */
static void make_frame(uint8_t *yuv, int frame, int w, int h)
{
	uint8_t *y = yuv, *u = yuv + w * h, *v = u + w * h / 4;

	for (int r = 0; r < h; r++)
		for (int c = 0; c < w; c++) {
			int in_box =
				c >= 32 + frame * 16 && c < 96 + frame * 16 && r >= 48 && r < 112;

			y[r * w + c] = in_box ? 224 : 16 + c * 150 / w + r * 50 / h;
		}
	for (int r = 0; r < h / 2; r++)
		for (int c = 0; c < w / 2; c++) {
			u[r * w / 2 + c] = 64 + c * 128 / (w / 2);
			v[r * w / 2 + c] = 64 + r * 128 / (h / 2);
		}
}

static int codec_of(uint32_t kind, struct llmem_codec **out)
{
	struct llmem_codec_find_info fi = {
		.kind = kind,
		.coded_fourcc = V4L2_PIX_FMT_FWHT,
		.raw_fourcc = V4L2_PIX_FMT_YUV420,
		.driver = "vicodec",
	};
	char path[64];
	int ret = llmem_codec_find(&fi, path, sizeof(path));

	return ret ? ret : llmem_codec_open(path, out);
}

FIXTURE_SETUP(codec)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.page_size = 1u << 20,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
		.name = "codec frames",
	};

	VK_TEST_SESSION(self->s);
	if (CODEC_BACKEND == LLMEM_BACKEND_LLMEM_DMABUF) {
		ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0)
		TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(codec_of(LLMEM_CODEC_ENCODER, &self->enc), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(codec_of(LLMEM_CODEC_DECODER, &self->dec), 0) TH_LOG("%s", llmem_last_error());
	self->input = malloc(NFRAMES * RAW_SIZE);
	self->stream = malloc(STREAM_MAX);
	self->decoded = malloc(NFRAMES * RAW_SIZE2);
	ASSERT_NE(self->input, NULL);
	ASSERT_NE(self->stream, NULL);
	ASSERT_NE(self->decoded, NULL);
	for (int f = 0; f < NFRAMES; f++)
		make_frame(self->input + f * RAW_SIZE, f, WIDTH, HEIGHT);
	snprintf(self->tmp, sizeof(self->tmp), "%s/codec-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ASSERT_NE(mkdtemp(self->tmp), NULL);
}

FIXTURE_TEARDOWN(codec)
{
	char cmd[300];

	llmem_codec_close(self->enc);
	llmem_codec_close(self->dec);
	for (int i = 0; i < NBUFS; i++) {
		dbuf_free(&self->out[i]);
		dbuf_free(&self->cap[i]);
	}
	if (self->m)
		EXPECT_EQ(llmem_memory_destroy(self->m), 0);
	VK_TEST_SESSION_END(self->s);
	free(self->input);
	free(self->stream);
	free(self->decoded);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->tmp);
	if (self->tmp[0])
		EXPECT_EQ(system(cmd), 0);
}

static void show_log(struct __test_metadata *_metadata, const char *log)
{
	char text[2048];
	long n = read_file(log, text, sizeof(text) - 1);

	text[n > 0 ? n : 0] = '\0';
	TH_LOG("v4l2-ctl said: %s", text);
}

/* v4l2-ctl with @args, its output in @log and, on failure, the test's; its
 * exit status. */
static int v4l2_ctl(struct __test_metadata *_metadata, const char *log, char *const args[])
{
	int status = run_logged(log, args);

	if (status)
		show_log(_metadata, log);
	return status;
}

/* The codec's path, for v4l2-ctl. */
static void node_of(uint32_t kind, char *path, size_t len)
{
	struct llmem_codec_find_info fi = { .kind = kind,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .driver = "vicodec" };

	if (llmem_codec_find(&fi, path, len))
		path[0] = '\0';
}

/*
 * Encodes @n frames of @w x @h YUV420 at @input through llmem buffers on
 * both queues: formats, buffers, start, drain until the LAST buffer, stop;
 * appends the bitstream to self->stream.
 */
static void encode_frames(struct __test_metadata *_metadata, FIXTURE_DATA(codec) * self,
			  const uint8_t *input, int w, int h, int n)
{
	uint32_t raw_size = w * h * 3 / 2;
	struct llmem_codec_format raw = { .fourcc = V4L2_PIX_FMT_YUV420, .width = w, .height = h };
	struct llmem_codec_format coded = { .fourcc = V4L2_PIX_FMT_FWHT, .width = w, .height = h };
	struct llmem_codec_format got_raw, got_coded;
	struct llmem_codec_buffer b;
	struct llmem_dmabuf_state st;
	int frames = 0, last = 0;

	ASSERT_EQ(llmem_codec_kind(self->enc), LLMEM_CODEC_ENCODER);
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_INITIAL);
	ASSERT_EQ(llmem_codec_set_format(self->enc, LLMEM_CODEC_CAPTURE, &coded, &got_coded), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_codec_set_format(self->enc, LLMEM_CODEC_OUTPUT, &raw, &got_raw), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(got_raw.num_planes, 1);
	ASSERT_EQ(got_raw.sizeimage[0], raw_size);
	ASSERT_EQ(got_raw.bytesperline[0], w);
	ASSERT_GE(got_coded.sizeimage[0], raw_size);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, n),
		  n);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_CAPTURE,
					      LLMEM_V4L2_MEMORY_DMABUF, NBUFS),
		  NBUFS);
	for (int f = 0; f < n; f++) {
		struct llmem_codec_plane p;

		ASSERT_EQ(dbuf_alloc(self, raw_size, &self->out[f]), 0)
		TH_LOG("%s", llmem_last_error());
		memcpy(self->out[f].map, input + f * raw_size, raw_size);
		ASSERT_EQ(llmem_buffer_flush(self->out[f].b, 0, LLMEM_WHOLE_SIZE), 0);
		p = (struct llmem_codec_plane){ .fd = self->out[f].fd, .bytesused = raw_size };
		ASSERT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, f, &p, 1, 1000 + f), 0)
		TH_LOG("%s", llmem_last_error());
	}
	for (int i = 0; i < NBUFS; i++) {
		struct llmem_codec_plane p;

		ASSERT_EQ(dbuf_alloc(self, got_coded.sizeimage[0], &self->cap[i]), 0);
		p = (struct llmem_codec_plane){ .fd = self->cap[i].fd };
		ASSERT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_CAPTURE, i, &p, 1, 0), 0)
		TH_LOG("%s", llmem_last_error());
	}
	/* vicodec's videobuf2-vmalloc maps a queued DMA-BUF into the kernel. */
	ASSERT_EQ(llmem_dmabuf_query(self->out[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps, 1);
	ASSERT_EQ(llmem_dmabuf_query(self->cap[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps, 1);
	ASSERT_EQ(llmem_codec_stream_on(self->enc, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_INITIAL);
	ASSERT_EQ(llmem_codec_stream_on(self->enc, LLMEM_CODEC_CAPTURE), 0);
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_STREAMING);
	ASSERT_EQ(llmem_codec_drain(self->enc), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_DRAINING);

	while (!last) {
		ASSERT_EQ(llmem_codec_dequeue(self->enc, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b), 0)
		TH_LOG("%s", llmem_last_error());
		last = !!(b.flags & LLMEM_CODEC_BUF_LAST);
		if (!b.bytesused[0])
			continue;
		ASSERT_LT(frames, n);
		ASSERT_EQ(b.timestamp_us, 1000 + frames);
		ASSERT_EQ(llmem_buffer_invalidate(self->cap[b.index].b, 0, LLMEM_WHOLE_SIZE), 0);
		/* The group of pictures opens with an intra frame (the FWHT
		 * header's flags, big-endian at byte 20). */
		EXPECT_EQ(!!(ntohl(*(const uint32_t *)(self->cap[b.index].map + 20)) &
			     V4L2_FWHT_FL_I_FRAME),
			  frames == 0);
		ASSERT_LE(self->stream_len + b.bytesused[0], STREAM_MAX);
		memcpy(self->stream + self->stream_len, self->cap[b.index].map, b.bytesused[0]);
		self->stream_len += b.bytesused[0];
		frames++;
	}
	ASSERT_EQ(frames, n);
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_STOPPED);
	EXPECT_EQ(llmem_codec_dequeue(self->enc, LLMEM_CODEC_CAPTURE, 0, &b), -EPIPE);
	for (int f = 0; f < n; f++) {
		ASSERT_EQ(llmem_codec_dequeue(self->enc, LLMEM_CODEC_OUTPUT, TIMEOUT_MS, &b), 0);
		EXPECT_EQ(b.flags & LLMEM_CODEC_BUF_ERROR, 0);
	}
	ASSERT_EQ(llmem_codec_stream_off(self->enc, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_codec_stream_off(self->enc, LLMEM_CODEC_CAPTURE), 0);
	ASSERT_EQ(llmem_codec_state(self->enc), LLMEM_CODEC_INITIAL);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, 0),
		  0);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_CAPTURE,
					      LLMEM_V4L2_MEMORY_DMABUF, 0),
		  0);
	/* Released, the codec holds none of the pages. */
	ASSERT_EQ(llmem_dmabuf_query(self->out[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps + st.attachments, 0);
	ASSERT_EQ(llmem_dmabuf_query(self->cap[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps + st.attachments, 0);
	for (int i = 0; i < NBUFS; i++) {
		dbuf_free(&self->out[i]);
		dbuf_free(&self->cap[i]);
	}
}

/* The fixture's input, NFRAMES of WIDTH x HEIGHT, as the only bitstream. */
static void encode(struct __test_metadata *_metadata, FIXTURE_DATA(codec) * self)
{
	self->stream_len = 0;
	encode_frames(_metadata, self, self->input, WIDTH, HEIGHT, NFRAMES);
}

/*
 * The stream (self->stream) decoded by v4l2-ctl's MMAP streaming in this
 * guest is what the test decoded into llmem buffers (self->decoded), byte
 * for byte.
 */
static void expect_v4l2_ctl_decodes_the_same(struct __test_metadata *_metadata,
					     FIXTURE_DATA(codec) * self)
{
	char node[64], in[300], ref[300], log[300], fmt_out[80];
	uint8_t *want;
	long n;

	node_of(LLMEM_CODEC_DECODER, node, sizeof(node));
	snprintf(in, sizeof(in), "%s/in.fwht", self->tmp);
	snprintf(ref, sizeof(ref), "%s/ref.yuv", self->tmp);
	snprintf(log, sizeof(log), "%s/v4l2-ctl.log", self->tmp);
	snprintf(fmt_out, sizeof(fmt_out), "width=%d,height=%d,pixelformat=FWHT", WIDTH, HEIGHT);
	ASSERT_EQ(write_file(in, self->stream, self->stream_len), 0);
	ASSERT_EQ(v4l2_ctl(_metadata, log,
			   (char *[]){ "v4l2-ctl", "-d", node, "--set-fmt-video-out", fmt_out,
				       "--stream-mmap", "--stream-out-mmap", "--stream-from", in,
				       "--stream-to", ref, NULL }),
		  0);
	want = malloc(self->decoded_len + 1);
	ASSERT_NE(want, NULL);
	n = read_file(ref, want, self->decoded_len + 1);
	ASSERT_EQ(n, (long)self->decoded_len);
	EXPECT_EQ(memcmp(want, self->decoded, self->decoded_len), 0);
	free(want);
}

/* The bitstream of llmem buffers is v4l2-ctl's MMAP bitstream, byte for byte. */
TEST_F_TIMEOUT(codec, encode_equals_v4l2_ctl_mmap, 300)
{
	char node[64], raw[300], ref[300], log[300], fmt_out[64];
	uint8_t *want = malloc(STREAM_MAX);
	long n;

	ASSERT_NE(want, NULL);
	encode(_metadata, self);
	node_of(LLMEM_CODEC_ENCODER, node, sizeof(node));
	snprintf(raw, sizeof(raw), "%s/in.yuv", self->tmp);
	snprintf(ref, sizeof(ref), "%s/ref.fwht", self->tmp);
	snprintf(log, sizeof(log), "%s/v4l2-ctl.log", self->tmp);
	snprintf(fmt_out, sizeof(fmt_out), "width=%d,height=%d,pixelformat=YU12", WIDTH, HEIGHT);
	ASSERT_EQ(write_file(raw, self->input, NFRAMES * RAW_SIZE), 0);
	ASSERT_EQ(v4l2_ctl(_metadata, log,
			   (char *[]){ "v4l2-ctl", "-d", node, "--set-fmt-video-out", fmt_out,
				       "--set-fmt-video", "pixelformat=FWHT", "--stream-mmap",
				       "--stream-out-mmap", "--stream-from", raw, "--stream-to",
				       ref, NULL }),
		  0);
	n = read_file(ref, want, STREAM_MAX);
	ASSERT_EQ(n, (long)self->stream_len);
	EXPECT_EQ(memcmp(want, self->stream, self->stream_len), 0);
	TH_LOG("%d frames, %zu bytes of bitstream, equal to v4l2-ctl's", NFRAMES, self->stream_len);
	free(want);
}

/*
 * Decodes the bitstream into llmem buffers: the source change sets up
 * CAPTURE, the drain ends with LAST, and the frames are v4l2-ctl's MMAP
 * decode byte for byte, and the input within FWHT's loss.
 */
TEST_F_TIMEOUT(codec, decode_equals_v4l2_ctl_mmap, 300)
{
	struct llmem_codec_format coded = { .fourcc = V4L2_PIX_FMT_FWHT,
					    .width = WIDTH,
					    .height = HEIGHT };
	struct llmem_codec_format got, capf;
	struct llmem_codec_buffer b;
	size_t off = 0, lens[NFRAMES];
	int frames = 0, last = 0, slots;
	uint32_t ev;

	encode(_metadata, self);
	/* Split the stream into frames by each header's size field (big-endian,
	 * the 11th word), as a demuxer would. */
	for (int f = 0; f < NFRAMES; f++) {
		const uint8_t *h = self->stream + off;
		uint32_t size = (uint32_t)h[40] << 24 | h[41] << 16 | h[42] << 8 | h[43];

		lens[f] = 44 + size;
		off += lens[f];
		ASSERT_LE(off, self->stream_len);
	}
	ASSERT_EQ(off, self->stream_len);

	ASSERT_EQ(llmem_codec_kind(self->dec), LLMEM_CODEC_DECODER);
	ASSERT_EQ(llmem_codec_set_format(self->dec, LLMEM_CODEC_OUTPUT, &coded, &got), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_codec_request_buffers(self->dec, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, NFRAMES),
		  NFRAMES);
	off = 0;
	for (int f = 0; f < NFRAMES; f++) {
		struct llmem_codec_plane p;

		ASSERT_EQ(dbuf_alloc(self, got.sizeimage[0], &self->out[f]), 0);
		memcpy(self->out[f].map, self->stream + off, lens[f]);
		off += lens[f];
		ASSERT_EQ(llmem_buffer_flush(self->out[f].b, 0, LLMEM_WHOLE_SIZE), 0);
		p = (struct llmem_codec_plane){ .fd = self->out[f].fd, .bytesused = lens[f] };
		ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_OUTPUT, f, &p, 1, 2000 + f), 0)
		TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_codec_stream_on(self->dec, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_codec_wait_event(self->dec, TIMEOUT_MS, &ev), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(ev, LLMEM_CODEC_EVENT_SOURCE_CHANGE);
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_SOURCE_CHANGE);
	ASSERT_EQ(llmem_codec_get_format(self->dec, LLMEM_CODEC_CAPTURE, &capf), 0);
	ASSERT_EQ(capf.fourcc, V4L2_PIX_FMT_YUV420);
	ASSERT_EQ(capf.width, WIDTH);
	ASSERT_EQ(capf.height, HEIGHT);
	ASSERT_EQ(capf.sizeimage[0], RAW_SIZE);
	slots = llmem_codec_request_buffers(self->dec, LLMEM_CODEC_CAPTURE,
					    LLMEM_V4L2_MEMORY_DMABUF, NBUFS);
	ASSERT_EQ(slots, NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		struct llmem_codec_plane p;

		ASSERT_EQ(dbuf_alloc(self, capf.sizeimage[0], &self->cap[i]), 0);
		p = (struct llmem_codec_plane){ .fd = self->cap[i].fd };
		ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_CAPTURE, i, &p, 1, 0), 0)
		TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_codec_stream_on(self->dec, LLMEM_CODEC_CAPTURE), 0);
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_STREAMING);
	ASSERT_EQ(llmem_codec_drain(self->dec), 0) TH_LOG("%s", llmem_last_error());

	self->decoded_len = 0;
	while (!last) {
		const uint8_t *got_px, *want_px;
		uint64_t error = 0;
		int worst = 0;

		ASSERT_EQ(llmem_codec_dequeue(self->dec, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b), 0)
		TH_LOG("%s", llmem_last_error());
		last = !!(b.flags & LLMEM_CODEC_BUF_LAST);
		if (!b.bytesused[0])
			continue;
		ASSERT_LT(frames, NFRAMES);
		ASSERT_EQ(b.bytesused[0], RAW_SIZE);
		ASSERT_EQ(b.timestamp_us, 2000 + frames);
		ASSERT_EQ(llmem_buffer_invalidate(self->cap[b.index].b, 0, LLMEM_WHOLE_SIZE), 0);
		got_px = self->cap[b.index].map;
		want_px = self->input + frames * RAW_SIZE;
		memcpy(self->decoded + self->decoded_len, got_px, RAW_SIZE);
		self->decoded_len += RAW_SIZE;
		for (int i = 0; i < RAW_SIZE; i++) {
			int d = abs(got_px[i] - want_px[i]);

			error += d;
			worst = d > worst ? d : worst;
		}
		/* FWHT's loss: close to the input, never the input itself. */
		EXPECT_LE(error * 100 / RAW_SIZE, 100) TH_LOG("frame %d", frames);
		EXPECT_GT(error, 0);
		EXPECT_LE(worst, 8);
		if (!last) {
			struct llmem_codec_plane p = { .fd = self->cap[b.index].fd };

			ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_CAPTURE, b.index, &p, 1,
						    0),
				  0);
		}
		frames++;
	}
	ASSERT_EQ(frames, NFRAMES);
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_STOPPED);
	ASSERT_EQ(llmem_codec_stream_off(self->dec, LLMEM_CODEC_CAPTURE), 0);
	ASSERT_EQ(llmem_codec_stream_off(self->dec, LLMEM_CODEC_OUTPUT), 0);

	expect_v4l2_ctl_decodes_the_same(_metadata, self);
}

/* The FWHT frames of @stream (@len bytes): their sizes in @lens, at most
 * @max of them; the count. */
static int split_frames(const uint8_t *stream, size_t len, size_t *lens, int max)
{
	size_t off = 0;
	int n = 0;

	while (off + 44 <= len && n < max) {
		const uint8_t *h = stream + off;

		lens[n] = 44 + ((uint32_t)h[40] << 24 | h[41] << 16 | h[42] << 8 | h[43]);
		off += lens[n++];
	}
	return off == len ? n : -1;
}

/* CAPTURE of the decoder after a source change: NBUFS llmem buffers of the
 * format the decoder gives, queued and streaming. */
static void decode_capture(struct __test_metadata *_metadata, FIXTURE_DATA(codec) * self,
			   struct llmem_codec_format *capf)
{
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_SOURCE_CHANGE);
	ASSERT_EQ(llmem_codec_follow_source_change(self->dec, capf), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_codec_request_buffers(self->dec, LLMEM_CODEC_CAPTURE,
					      LLMEM_V4L2_MEMORY_DMABUF, NBUFS),
		  NBUFS);
	for (int i = 0; i < NBUFS; i++) {
		struct llmem_dmabuf_state st;
		struct llmem_codec_plane p;

		/* The last size's buffers: the decoder let go of them. */
		if (self->cap[i].b) {
			ASSERT_EQ(llmem_dmabuf_query(self->cap[i].fd, &st), 0);
			EXPECT_EQ(st.vmaps + st.attachments, 0);
			dbuf_free(&self->cap[i]);
		}
		ASSERT_EQ(dbuf_alloc(self, capf->sizeimage[0], &self->cap[i]), 0);
		p = (struct llmem_codec_plane){ .fd = self->cap[i].fd };
		ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_CAPTURE, i, &p, 1, 0), 0)
		TH_LOG("%s", llmem_last_error());
	}
	ASSERT_EQ(llmem_codec_stream_on(self->dec, LLMEM_CODEC_CAPTURE), 0);
}

/*
 * Two encodes of two sizes back to back: the decoder flags the last frame
 * of the first size LAST and announces the second in the middle of the
 * drain; the library stops CAPTURE and releases its buffers (the tracker
 * sees the old frames let go), the new ones are of the second size, the
 * drain goes on, and the frames of both sizes are the input's within
 * FWHT's loss and v4l2-ctl's MMAP decode of the same stream byte for byte.
 */
TEST_F_TIMEOUT(codec, decode_follows_resolution_change, 300)
{
	struct llmem_codec_format coded = { .fourcc = V4L2_PIX_FMT_FWHT,
					    .width = WIDTH,
					    .height = HEIGHT };
	const int sizes[2][2] = { { WIDTH, HEIGHT }, { WIDTH2, HEIGHT2 } };
	uint8_t *input2 = malloc(2 * RAW_SIZE2);
	struct llmem_codec_format got, capf;
	struct llmem_dmabuf_state st;
	struct llmem_codec_buffer b;
	size_t off = 0, lens[NFRAMES];
	int frames = 0, part = 0, last = 0;
	uint32_t ev;

	ASSERT_NE(input2, NULL);
	for (int f = 0; f < 2; f++)
		make_frame(input2 + f * RAW_SIZE2, f, WIDTH2, HEIGHT2);
	self->stream_len = 0;
	encode_frames(_metadata, self, self->input, WIDTH, HEIGHT, 2);
	encode_frames(_metadata, self, input2, WIDTH2, HEIGHT2, 2);
	ASSERT_EQ(split_frames(self->stream, self->stream_len, lens, NFRAMES), NFRAMES);

	ASSERT_EQ(llmem_codec_set_format(self->dec, LLMEM_CODEC_OUTPUT, &coded, &got), 0);
	ASSERT_EQ(llmem_codec_request_buffers(self->dec, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, NFRAMES),
		  NFRAMES);
	for (int f = 0; f < NFRAMES; f++) {
		struct llmem_codec_plane p;

		ASSERT_EQ(dbuf_alloc(self, got.sizeimage[0], &self->out[f]), 0);
		memcpy(self->out[f].map, self->stream + off, lens[f]);
		off += lens[f];
		ASSERT_EQ(llmem_buffer_flush(self->out[f].b, 0, LLMEM_WHOLE_SIZE), 0);
		p = (struct llmem_codec_plane){ .fd = self->out[f].fd, .bytesused = lens[f] };
		ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_OUTPUT, f, &p, 1, 3000 + f), 0);
	}
	ASSERT_EQ(llmem_codec_stream_on(self->dec, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_codec_wait_event(self->dec, TIMEOUT_MS, &ev), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(ev, LLMEM_CODEC_EVENT_SOURCE_CHANGE);
	decode_capture(_metadata, self, &capf);
	ASSERT_EQ(capf.width, WIDTH);
	ASSERT_EQ(capf.height, HEIGHT);
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_STREAMING);
	/* Every frame is queued: drain now, before the change is met. */
	ASSERT_EQ(llmem_codec_drain(self->dec), 0) TH_LOG("%s", llmem_last_error());

	self->decoded_len = 0;
	while (!last) {
		const int w = sizes[part][0], h = sizes[part][1], size = w * h * 3 / 2;
		const uint8_t *px, *ref_px;
		uint64_t error = 0;
		int worst = 0;

		ASSERT_EQ(llmem_codec_dequeue(self->dec, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b), 0)
		TH_LOG("%s", llmem_last_error());
		if (b.bytesused[0]) {
			ASSERT_EQ(b.bytesused[0], size);
			ASSERT_EQ(b.timestamp_us, 3000 + frames);
			ASSERT_EQ(
				llmem_buffer_invalidate(self->cap[b.index].b, 0, LLMEM_WHOLE_SIZE),
				0);
			px = self->cap[b.index].map;
			ref_px = part ? input2 + (frames - 2) * RAW_SIZE2
				      : self->input + frames * RAW_SIZE;
			for (int i = 0; i < size; i++) {
				int d = abs(px[i] - ref_px[i]);

				error += d;
				worst = d > worst ? d : worst;
			}
			EXPECT_LE(error * 100 / size, 100) TH_LOG("frame %d", frames);
			EXPECT_LE(worst, 8) TH_LOG("frame %d", frames);
			ASSERT_LE(self->decoded_len + size, NFRAMES * RAW_SIZE2);
			memcpy(self->decoded + self->decoded_len, px, size);
			self->decoded_len += size;
			frames++;
		}
		if (!(b.flags & LLMEM_CODEC_BUF_LAST)) {
			struct llmem_codec_plane p = { .fd = self->cap[b.index].fd };

			ASSERT_EQ(llmem_codec_queue(self->dec, LLMEM_CODEC_CAPTURE, b.index, &p, 1,
						    0),
				  0);
			continue;
		}
		if (part == 1) {
			last = 1;
			continue;
		}
		/* The first size's LAST buffer: a new resolution, mid-drain. */
		ASSERT_EQ(frames, 2);
		ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_SOURCE_CHANGE);
		decode_capture(_metadata, self, &capf);
		ASSERT_EQ(capf.width, WIDTH2);
		ASSERT_EQ(capf.height, HEIGHT2);
		ASSERT_EQ(capf.sizeimage[0], RAW_SIZE2);
		/* The drain the change interrupted goes on. */
		ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_DRAINING);
		part = 1;
	}
	ASSERT_EQ(frames, NFRAMES);
	ASSERT_EQ(llmem_codec_state(self->dec), LLMEM_CODEC_STOPPED);
	/* The change's event was taken to read the LAST buffer and is not
	 * handed out again; the drain's end is. */
	ASSERT_EQ(llmem_codec_wait_event(self->dec, 0, &ev), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(ev, LLMEM_CODEC_EVENT_EOS);
	ASSERT_EQ(llmem_codec_stream_off(self->dec, LLMEM_CODEC_CAPTURE), 0);
	ASSERT_EQ(llmem_codec_stream_off(self->dec, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_dmabuf_query(self->cap[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps, 1);

	free(input2);
	expect_v4l2_ctl_decodes_the_same(_metadata, self);
}

/* A line of debugfs's buffer table: its vmaps and attachments columns, for
 * the buffer named @name; -1 when none is. */
static int debugfs_counts(const char *name, int *vmaps, int *attachments)
{
	char line[512], exporter[64], last[128];
	FILE *f = fopen(DEBUGFS_BUFFERS, "re");
	int found = -1;

	if (!f)
		return -errno;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		unsigned long long size;
		char pid[16], dmaps[8], wmaps[8], mmaps[8];
		int v, a, fences;

		if (sscanf(line,
			   "%63s %llu %15s %d %7s %7s %7s %d %d %*s %*s %*s %*s %*s %*s %127s",
			   exporter, &size, pid, &a, dmaps, wmaps, mmaps, &v, &fences,
			   last) == 10 &&
		    !strcmp(last, name)) {
			*vmaps = v;
			*attachments = a;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * What a videobuf2-vmalloc codec looks like to llmem.ko's debugfs table: a
 * buffer queued to vicodec shows one vmap and no attachment (no importer
 * listed); the vmap stays while the queue keeps the buffer in its slot, after
 * it streamed off too, and is gone once the buffers are released.  The same
 * through the page query.  A foreign DMA-BUF (lavapipe's) is tracked with
 * LLMEM_IOC_TRACK to be listed.
 */
TEST_F_TIMEOUT(codec, tracker_sees_vmalloc_codec, 120)
{
	struct llmem_codec_format raw = { .fourcc = V4L2_PIX_FMT_YUV420,
					  .width = WIDTH,
					  .height = HEIGHT };
	char name[DMA_BUF_NAME_LEN];
	struct llmem_dmabuf_state st;
	struct llmem_codec_plane p;
	int vmaps = -1, attachments = -1, dev = -1;

	snprintf(name, sizeof(name), "codec-test-%d", getpid());
	ASSERT_EQ(llmem_codec_set_format(self->enc, LLMEM_CODEC_OUTPUT, &raw, NULL), 0);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, 1),
		  1);
	ASSERT_EQ(dbuf_alloc(self, RAW_SIZE, &self->out[0]), 0);
	ASSERT_EQ(ioctl(self->out[0].fd, DMA_BUF_SET_NAME_B, name), 0);
	if (CODEC_BACKEND != LLMEM_BACKEND_LLMEM_DMABUF) {
		struct llmem_track t = { .fd = (uint32_t)self->out[0].fd };

		dev = open("/dev/llmem", O_RDWR | O_CLOEXEC);
		ASSERT_GE(dev, 0);
		ASSERT_EQ(ioctl(dev, LLMEM_IOC_TRACK, &t), 0);
	}
	ASSERT_EQ(debugfs_counts(name, &vmaps, &attachments), 0) TH_LOG("no %s", name);
	EXPECT_EQ(vmaps, 0);
	EXPECT_EQ(attachments, 0);
	p = (struct llmem_codec_plane){ .fd = self->out[0].fd, .bytesused = RAW_SIZE };
	ASSERT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 0, &p, 1, 0), 0);
	ASSERT_EQ(debugfs_counts(name, &vmaps, &attachments), 0);
	EXPECT_EQ(vmaps, 1);
	EXPECT_EQ(attachments, 0);
	ASSERT_EQ(llmem_dmabuf_query(self->out[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps, 1);
	EXPECT_EQ(st.attachments, 0);
	ASSERT_EQ(llmem_codec_stream_on(self->enc, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(llmem_codec_stream_off(self->enc, LLMEM_CODEC_OUTPUT), 0);
	ASSERT_EQ(debugfs_counts(name, &vmaps, &attachments), 0);
	EXPECT_EQ(vmaps, 1);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, 0),
		  0);
	ASSERT_EQ(debugfs_counts(name, &vmaps, &attachments), 0);
	EXPECT_EQ(vmaps, 0);
	EXPECT_EQ(attachments, 0);
	ASSERT_EQ(llmem_dmabuf_query(self->out[0].fd, &st), 0);
	EXPECT_EQ(st.vmaps + st.attachments, 0);
	if (dev >= 0)
		close(dev);
}

/* A DMA-BUF smaller than the plane never reaches VIDIOC_QBUF, and nothing
 * of it stays held; a wrong plane count or an fd that is no DMA-BUF is
 * refused too. */
TEST_F_TIMEOUT(codec, small_dmabuf_refused, 120)
{
	struct llmem_codec_format raw = { .fourcc = V4L2_PIX_FMT_YUV420,
					  .width = WIDTH,
					  .height = HEIGHT };
	struct llmem_codec_plane p;
	struct llmem_dmabuf_state st;
	struct dbuf small = { 0 };
	int pipefd[2];

	ASSERT_EQ(llmem_codec_set_format(self->enc, LLMEM_CODEC_OUTPUT, &raw, NULL), 0);
	ASSERT_EQ(llmem_codec_request_buffers(self->enc, LLMEM_CODEC_OUTPUT,
					      LLMEM_V4L2_MEMORY_DMABUF, 1),
		  1);
	ASSERT_EQ(dbuf_alloc(self, 4096, &small), 0);
	p = (struct llmem_codec_plane){ .fd = small.fd, .bytesused = 4096 };
	EXPECT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 0, &p, 1, 0), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "needs 460800"), NULL)
	TH_LOG("%s", llmem_last_error());
	/* A length larger than the fd does not get past either. */
	p.length = RAW_SIZE;
	EXPECT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 0, &p, 1, 0), -EINVAL);
	if (CODEC_BACKEND == LLMEM_BACKEND_LLMEM_DMABUF) {
		ASSERT_EQ(llmem_dmabuf_query(small.fd, &st), 0);
		EXPECT_EQ(st.vmaps + st.attachments, 0);
	}
	EXPECT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 0, &p, 2, 0), -EINVAL);
	EXPECT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 1, &p, 1, 0), -EINVAL);
	EXPECT_EQ(llmem_codec_queue(self->enc, 7, 0, &p, 1, 0), -EINVAL);
	ASSERT_EQ(pipe(pipefd), 0);
	p.fd = pipefd[0];
	EXPECT_EQ(llmem_codec_queue(self->enc, LLMEM_CODEC_OUTPUT, 0, &p, 1, 0), -EBADF);
	close(pipefd[0]);
	close(pipefd[1]);
	/* Draining and resuming are for a streaming codec. */
	EXPECT_EQ(llmem_codec_drain(self->enc), -EINVAL);
	EXPECT_EQ(llmem_codec_resume(self->enc), -EINVAL);
	dbuf_free(&small);
}

/* Nodes are found by what their queues take, never by number. */
TEST_F_TIMEOUT(codec, found_by_capability, 120)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_CONVERTER, .driver = "vim2m" };
	struct llmem_codec *c;
	char path[64], vivid[64], visl[4][32];
	int n;

	/* codec-mplane-check reloads vicodec multi-planar and says so. */
	EXPECT_EQ(llmem_codec_multiplanar(self->enc), !!getenv("LLMEM_TEST_MULTIPLANAR"));
	EXPECT_EQ(llmem_codec_multiplanar(self->dec), !!getenv("LLMEM_TEST_MULTIPLANAR"));
	EXPECT_STREQ(llmem_codec_driver(self->enc), "vicodec");
	EXPECT_STREQ(llmem_codec_driver(self->dec), "vicodec");
	ASSERT_EQ(llmem_codec_find(&fi, path, sizeof(path)), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_codec_open(path, &c), 0);
	EXPECT_EQ(llmem_codec_kind(c), LLMEM_CODEC_CONVERTER);
	EXPECT_EQ(llmem_codec_drain(c), -ENOTSUP);
	EXPECT_EQ(llmem_codec_wait_event(c, 0, &(uint32_t){ 0 }), -EINVAL);
	llmem_codec_close(c);
	/* No H.264 codec here, and a converter has no coded format. */
	fi = (struct llmem_codec_find_info){ .coded_fourcc = V4L2_PIX_FMT_H264 };
	EXPECT_EQ(llmem_codec_find(&fi, path, sizeof(path)), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "H264"), NULL);
	fi = (struct llmem_codec_find_info){ .kind = LLMEM_CODEC_CONVERTER,
					     .coded_fourcc = V4L2_PIX_FMT_FWHT };
	EXPECT_EQ(llmem_codec_find(&fi, path, sizeof(path)), -ENODEV);
	/* vicodec's stateless decoder wants media requests: never a decoder here. */
	fi = (struct llmem_codec_find_info){ .coded_fourcc = V4L2_PIX_FMT_FWHT_STATELESS };
	EXPECT_EQ(llmem_codec_find(&fi, path, sizeof(path)), -ENODEV);
	fi = (struct llmem_codec_find_info){ .kind = 9 };
	EXPECT_EQ(llmem_codec_find(&fi, path, sizeof(path)), -EINVAL);
	EXPECT_EQ(llmem_codec_find(NULL, path, 4), -EINVAL);
	/* Nor is visl (6.12), a stateless decoder that demands requests. */
	n = video_nodes_of("visl", visl, 4);
	for (int i = 0; i < n; i++)
		EXPECT_EQ(llmem_codec_open(visl[i], &c), -ENODEV);
	/* A camera is no codec. */
	ASSERT_EQ(vivid_capture_path(0, vivid, sizeof(vivid)), 0);
	EXPECT_EQ(llmem_codec_open(vivid, &c), -ENODEV);
	EXPECT_EQ(llmem_codec_open("/nonexistent", &c), -ENOENT);
}

TEST_HARNESS_MAIN
