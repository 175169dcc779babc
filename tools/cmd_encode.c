// SPDX-License-Identifier: MIT
/*
 * llmem encode: one buffer across three drivers.  The camera captures into
 * llmem pages, the device converts each frame to RGBA where it lies, and the
 * encoder takes the very pages the camera wrote as its DMA-BUF input: no
 * byte of a frame is copied by the CPU.  Writes the bitstream, the frames as
 * PNGs and summary.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "camera.h"
#include "codec_bufs.h"
#include "commands.h"
#include "png_writer.h"
#include "report.h"

#define TIMEOUT_MS 10000
#define BITSTREAM_BUFS 2

static struct {
	const char *device, *encoder, *out;
	uint32_t format, backend;
	uint32_t size[2];
	uint64_t frames, input;
	bool input_given, json, quiet;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 640, 480 },
	.frames = 10,
};

static const struct cli_option options[] = {
	{ .name = "device",
	  .short_name = 'd',
	  .type = CLI_PATH,
	  .value = &args.device,
	  .meta = "PATH",
	  .help = "the capture node; default: the first that imports DMA-BUFs" },
	{ .name = "encoder",
	  .short_name = 'e',
	  .type = CLI_PATH,
	  .value = &args.encoder,
	  .meta = "PATH",
	  .help = "the encoder node; default: the first FWHT encoder that imports DMA-BUFs" },
	{ .name = "format",
	  .short_name = 'f',
	  .type = CLI_CHOICE,
	  .value = &args.format,
	  .meta = "FOURCC",
	  .choices = camera_formats,
	  .help = "the pixel format captured and encoded (default YUYV)" },
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_WXH,
	  .value = args.size,
	  .meta = "WxH",
	  .min = 64,
	  .max = 4096,
	  .help = "frame size in pixels (default 640x480)" },
	{ .name = "frames",
	  .short_name = 'n',
	  .type = CLI_UINT,
	  .value = &args.frames,
	  .meta = "N",
	  .min = 1,
	  .max = 100000,
	  .help = "frames to capture and encode (default 10)" },
	{ .name = "input",
	  .short_name = 'i',
	  .type = CLI_UINT,
	  .value = &args.input,
	  .meta = "N",
	  .max = 255,
	  .given = &args.input_given,
	  .help = "select video input N (default: leave the device's)" },
	{ .name = "backend",
	  .short_name = 'B',
	  .type = CLI_CHOICE,
	  .value = &args.backend,
	  .meta = "NAME",
	  .choices = camera_backends,
	  .help = "where the frames' pages come from (default: the best that works)" },
	{ .name = "out",
	  .short_name = 'o',
	  .type = CLI_PATH,
	  .value = &args.out,
	  .meta = "DIR",
	  .help = "write stream.fwht, frame-NNN.png and summary.json into DIR" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct encode_run {
	struct llmem_session *session;
	struct llmem_camera *cam;
	struct llmem_codec *enc;
	struct llmem_camera_info info;
	struct llmem_codec_format raw, coded;
	char encoder[64];
	int frame_fd[LLMEM_CAMERA_MAX_BUFFERS];
	struct codec_buf bits[BITSTREAM_BUFS];
	FILE *stream;
	/* results */
	uint32_t frames, keyframes;
	uint64_t bitstream_bytes, bytes_copied;
	int64_t codec_vmaps, codec_attachments;
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem encode: %s: %s\n", what, llmem_last_error());
	return err;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The encoder's formats: the camera's frame as it lies, FWHT out. */
static int setup_encoder(struct encode_run *r)
{
	struct llmem_codec_find_info fi = {
		.kind = LLMEM_CODEC_ENCODER,
		.coded_fourcc = V4L2_PIX_FMT_FWHT,
		.raw_fourcc = args.format,
	};
	struct llmem_codec_format coded = { .fourcc = V4L2_PIX_FMT_FWHT,
					    .width = args.size[0],
					    .height = args.size[1] };
	struct llmem_codec_format raw = coded;
	int ret;

	if (args.encoder)
		snprintf(r->encoder, sizeof(r->encoder), "%s", args.encoder);
	else if ((ret = llmem_codec_find(&fi, r->encoder, sizeof(r->encoder))))
		return fail(ret, "find an encoder");
	ret = llmem_codec_open(r->encoder, &r->enc);
	if (ret)
		return fail(ret, "open encoder");
	if (llmem_codec_kind(r->enc) != LLMEM_CODEC_ENCODER) {
		fprintf(stderr, "llmem encode: %s is no encoder\n", r->encoder);
		return -ENODEV;
	}
	raw.fourcc = args.format;
	ret = llmem_codec_set_format(r->enc, LLMEM_CODEC_CAPTURE, &coded, &r->coded);
	if (!ret)
		ret = llmem_codec_set_format(r->enc, LLMEM_CODEC_OUTPUT, &raw, &r->raw);
	if (ret)
		return fail(ret, "encoder format");
	/* The encoder reads the camera's buffer as it is: same pitch, and it
	 * must not need more bytes than the camera's frame spans. */
	if (r->raw.num_planes != 1 || r->raw.bytesperline[0] != r->info.format.bytesperline ||
	    r->raw.width != args.size[0] || r->raw.height != args.size[1]) {
		fprintf(stderr,
			"llmem encode: %s wants %ux%u with pitch %u in %u plane(s); the camera "
			"gives %ux%u with pitch %u in one\n",
			r->encoder, r->raw.width, r->raw.height, r->raw.bytesperline[0],
			r->raw.num_planes, args.size[0], args.size[1], r->info.format.bytesperline);
		return -EINVAL;
	}
	ret = llmem_codec_request_buffers(r->enc, LLMEM_CODEC_OUTPUT, LLMEM_V4L2_MEMORY_DMABUF,
					  r->info.buffers);
	if (ret >= 0 && (uint32_t)ret < r->info.buffers)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "encoder input slots");
	ret = llmem_codec_request_buffers(r->enc, LLMEM_CODEC_CAPTURE, LLMEM_V4L2_MEMORY_DMABUF,
					  BITSTREAM_BUFS);
	if (ret >= 0 && ret < BITSTREAM_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "encoder bitstream slots");
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++) {
		struct llmem_codec_plane p;

		ret = codec_buf_alloc(r->session, 0, r->coded.sizeimage[0], "bitstream",
				      &r->bits[i]);
		if (ret)
			return ret;
		p = (struct llmem_codec_plane){ .fd = r->bits[i].fd };
		ret = llmem_codec_queue(r->enc, LLMEM_CODEC_CAPTURE, i, &p, 1, 0);
		if (ret)
			return fail(ret, "queue bitstream buffer");
	}
	for (uint32_t i = 0; i < r->info.buffers; i++) {
		ret = llmem_camera_export(r->cam, i, &r->frame_fd[i]);
		if (ret)
			return fail(ret, "camera frame's DMA-BUF");
	}
	ret = llmem_codec_stream_on(r->enc, LLMEM_CODEC_OUTPUT);
	if (!ret)
		ret = llmem_codec_stream_on(r->enc, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start encoder") : 0;
}

/* A bitstream buffer written out and handed back; LAST ends the drain. */
static int take_bitstream(struct encode_run *r, bool *last)
{
	struct llmem_codec_buffer b;
	struct llmem_codec_plane p;
	struct codec_buf *bits;
	int ret;

	ret = llmem_codec_dequeue(r->enc, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b);
	if (ret)
		return fail(ret, "bitstream");
	*last = b.flags & LLMEM_CODEC_BUF_LAST;
	bits = &r->bits[b.index];
	if (b.bytesused[0]) {
		llmem_buffer_invalidate(bits->buffer, 0, LLMEM_WHOLE_SIZE);
		if (r->stream &&
		    fwrite(bits->map, 1, b.bytesused[0], r->stream) != b.bytesused[0]) {
			fprintf(stderr, "llmem encode: writing the bitstream: %s\n",
				strerror(errno));
			return -EIO;
		}
		r->bitstream_bytes += b.bytesused[0];
		/* vicodec flags no buffer KEYFRAME; the FWHT header says it. */
		r->keyframes += (b.flags & LLMEM_CODEC_BUF_KEYFRAME) ||
				(fwht_frame_size(bits->map, b.bytesused[0]) &&
				 (fwht_frame_flags(bits->map) & V4L2_FWHT_FL_I_FRAME));
	}
	if (*last)
		return 0;
	p = (struct llmem_codec_plane){ .fd = bits->fd };
	ret = llmem_codec_queue(r->enc, LLMEM_CODEC_CAPTURE, b.index, &p, 1, 0);
	return ret ? fail(ret, "requeue bitstream buffer") : 0;
}

/* What llmem.ko sees of a frame while the encoder holds it. */
static void query_tracker(struct encode_run *r, int fd)
{
	struct llmem_dmabuf_state st = { 0 };

	r->codec_vmaps = r->codec_attachments = -1;
	if (llmem_dmabuf_query(fd, &st))
		return;
	if (st.known & LLMEM_DMABUF_KNOWN_VMAPS)
		r->codec_vmaps = st.vmaps;
	if (st.known & LLMEM_DMABUF_KNOWN_ATTACHMENTS)
		r->codec_attachments = st.attachments;
}

static int write_frame(const struct encode_run *r, const struct llmem_camera_frame *f, uint32_t n)
{
	const struct llmem_frame_layout *l = &r->info.rgba_layout;
	char path[4096];

	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, n);
	return write_png_rgba(path, (const uint8_t *)f->rgba_data + l->offset[0], l->width,
			      l->height, l->pitch[0]);
}

static int encode_frames(struct encode_run *r)
{
	double start = wall_s();
	bool last = false;
	int ret;

	ret = llmem_camera_start(r->cam);
	if (ret)
		return fail(ret, "start camera");
	for (uint32_t n = 0; n < args.frames; n++) {
		struct llmem_camera_frame f;
		struct llmem_codec_plane p;
		struct llmem_codec_buffer done;

		ret = llmem_camera_next(r->cam, TIMEOUT_MS, &f);
		if (ret)
			return fail(ret, "next frame");
		r->bytes_copied += f.bytes_copied;
		p = (struct llmem_codec_plane){ .fd = r->frame_fd[f.index],
						.bytesused = r->raw.sizeimage[0] };
		ret = llmem_codec_queue(r->enc, LLMEM_CODEC_OUTPUT, f.index, &p, 1, n);
		if (ret)
			return fail(ret, "queue frame to the encoder");
		if (n == 0)
			query_tracker(r, r->frame_fd[f.index]);
		if (args.out && (ret = write_frame(r, &f, n)))
			return ret;
		ret = take_bitstream(r, &last);
		if (ret)
			return ret;
		ret = llmem_codec_dequeue(r->enc, LLMEM_CODEC_OUTPUT, TIMEOUT_MS, &done);
		if (ret)
			return fail(ret, "frame back from the encoder");
		ret = llmem_camera_release(r->cam, &f);
		if (ret)
			return fail(ret, "release frame");
		r->frames++;
	}
	ret = llmem_codec_drain(r->enc);
	if (ret)
		return fail(ret, "drain");
	while (!last) {
		ret = take_bitstream(r, &last);
		if (ret)
			return ret;
	}
	r->seconds = wall_s() - start;
	ret = llmem_camera_stop(r->cam);
	return ret ? fail(ret, "stop camera") : 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct encode_run *r = run;

	fprintf(f,
		"{\n  \"camera\": \"%s\",\n  \"camera_driver\": \"%s\",\n  \"encoder\": \"%s\",\n"
		"  \"encoder_driver\": \"%s\",\n  \"format\": \"%.4s\",\n  \"codec\": \"FWHT\",\n"
		"  \"width\": %u,\n  \"height\": %u,\n  \"backend\": \"%s\",\n"
		"  \"frames\": %u,\n  \"keyframes\": %u,\n  \"bitstream_bytes\": %llu,\n"
		"  \"bytes_copied\": %llu,\n  \"codec_vmaps\": %lld,\n"
		"  \"codec_attachments\": %lld,\n  \"seconds\": %.3f,\n"
		"  \"validation_messages\": %lld\n}\n",
		r->info.device, r->info.driver, r->encoder, llmem_codec_driver(r->enc),
		(const char *)&r->info.format.fourcc, r->info.format.width, r->info.format.height,
		llmem_backend_name(r->info.backend), r->frames, r->keyframes,
		(unsigned long long)r->bitstream_bytes, (unsigned long long)r->bytes_copied,
		(long long)r->codec_vmaps, (long long)r->codec_attachments, r->seconds,
		(long long)llmem_session_validation_messages(r->session));
}

static int encode(struct encode_run *r)
{
	struct llmem_session_create_info sci = { .app_name = "llmem encode" };
	struct llmem_camera_create_info cci = {
		.device = args.device,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.backend = args.backend,
		.flags = args.input_given ? LLMEM_CAMERA_INPUT : 0,
	};
	char path[4096];
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = llmem_camera_open(r->session, &cci, &r->cam);
	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(r->cam, &r->info);
	ret = setup_encoder(r);
	if (ret)
		return ret;
	if (args.out) {
		snprintf(path, sizeof(path), "%s/stream.fwht", args.out);
		r->stream = fopen(path, "we");
		if (!r->stream) {
			fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
			return -errno;
		}
	}
	ret = encode_frames(r);
	if (r->stream && fclose(r->stream) && !ret) {
		fprintf(stderr, "llmem encode: closing the bitstream: %s\n", strerror(errno));
		ret = -EIO;
	}
	r->stream = NULL;
	return ret;
}

static void release(struct encode_run *r)
{
	if (r->stream)
		fclose(r->stream);
	llmem_codec_close(r->enc);
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++)
		codec_buf_free(&r->bits[i]);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		if (r->frame_fd[i] > 0)
			close(r->frame_fd[i]);
	llmem_camera_close(r->cam);
	llmem_session_destroy(r->session);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct encode_run r = { 0 };
	bool made_dir = false;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++)
		r.bits[i].fd = -1;
	if (args.out) {
		made_dir = mkdir(args.out, 0755) == 0;
		if (!made_dir && errno != EEXIST)
			return cli_fail(cmd, CLI_FAILED, "%s: %s", args.out, strerror(errno));
	}
	ret = encode(&r);
	if (!ret && args.out)
		ret = report_write_summary("encode", args.out, print_summary, &r);
	if (!ret && args.json)
		print_summary(stdout, &r);
	else if (!ret && !args.quiet)
		printf("llmem encode: %u frames %ux%u %.4s from %s (%s) encoded by %s (%s) to %llu "
		       "bytes of FWHT in %.2f s, %llu bytes copied%s%s\n",
		       r.frames, r.info.format.width, r.info.format.height,
		       (const char *)&r.info.format.fourcc, r.info.device, r.info.driver, r.encoder,
		       llmem_codec_driver(r.enc), (unsigned long long)r.bitstream_bytes, r.seconds,
		       (unsigned long long)r.bytes_copied, args.out ? "; files in " : "",
		       args.out ? args.out : "");
	release(&r);
	/* A run that failed leaves no folder it made. */
	if (ret && made_dir) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/stream.fwht", args.out);
		unlink(path);
		rmdir(args.out);
	}
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_encode = {
	.name = "encode",
	.summary = "capture, process on the device, encode from the same pages",
	.description =
		"Captures frames from a V4L2 camera into llmem pages shared as DMA-BUFs,\n"
		"converts each to RGBA on the device where it lies, and hands the very pages\n"
		"the camera wrote to a V4L2 memory-to-memory encoder (FWHT, vicodec) as its\n"
		"input: the CPU copies no byte of a frame.  With --out, writes stream.fwht,\n"
		"each frame as a PNG and summary.json.",
	.options = options,
	.run = run,
};
