// SPDX-License-Identifier: MIT
/*
 * llmem encode: one buffer across three drivers.  The camera captures into
 * llmem pages, the device mirrors each frame in place there
 * (shaders/mirror.comp), and the encoder takes those very pages as its
 * DMA-BUF input: it encodes what the device wrote, and the CPU copies no
 * byte of a frame.  Writes the bitstream, the frames as PNGs (converted on
 * the device from the same pages, after the mirror), summary.json and, with
 * --keep-raw, the frames as the encoder read them.
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
#include "mapped_io.h"
#include "commands.h"
#include "emit.h"
#include "mirror.h"
#include "png_writer.h"
#include "progress.h"
#include "report.h"

#define TIMEOUT_MS 10000
#define BITSTREAM_BUFS 2

/* What the device does to each frame in place before the encoder takes it. */
enum process {
	PROCESS_MIRROR = 1,
	PROCESS_NONE = 2
};

static const struct cli_choice processes[] = {
	{ "mirror", PROCESS_MIRROR },
	{ "none", PROCESS_NONE },
	{ 0 },
};

static struct {
	const char *device, *encoder, *out;
	uint32_t format, backend, process;
	uint32_t size[2];
	uint64_t frames, input;
	bool input_given, keep_raw, json, quiet;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.process = PROCESS_MIRROR,
	.size = { 640, 480 },
	.frames = 10,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE),
	CLI_OPTION_ENCODER(&args.encoder),
	CLI_OPTION_FORMAT(&args.format, camera_formats, NULL,
			  "the pixel format captured and encoded (default YUYV)"),
	CLI_OPTION_SIZE(args.size, 64, 4096, NULL, "frame size in pixels (default 640x480)"),
	CLI_OPTION_FRAMES(&args.frames, 100000, NULL, "frames to capture and encode (default 10)"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	CLI_OPTION_BACKEND(&args.backend,
			   "where the frames' pages come from (default: the best that works)"),
	{ .name = "process",
	  .short_name = 'p',
	  .type = CLI_CHOICE,
	  .value = &args.process,
	  .meta = "NAME",
	  .choices = processes,
	  .help = "what the device does to each frame in place before it is encoded "
		  "(default mirror)" },
	CLI_OPTION_OUT(&args.out, "write stream.fwht, frame-NNN.png and summary.json into DIR"),
	CLI_OPTION_KEEP_RAW(&args.keep_raw,
			    "with --out, also write raw.yuv: the frames as the encoder read them"),
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
	char encoder[64], encoder_driver[16];
	int frame_fd[LLMEM_CAMERA_MAX_BUFFERS];
	/* With --keep-raw: each frame's DMA-BUF mapped, and raw.yuv. */
	void *frame_map[LLMEM_CAMERA_MAX_BUFFERS];
	FILE *raw_file;
	struct codec_buf bits[BITSTREAM_BUFS];
	struct mirror mirror;
	FILE *stream;
	/* results */
	uint32_t frames, keyframes;
	/* Whole in the files so far: what a late error leaves there. */
	uint32_t coded_written, raw_written, pngs_written;
	uint64_t bitstream_bytes, bytes_copied;
	/* What llmem.ko saw of the first frame's DMA-BUF: before the encoder
	 * took it (the camera's own hold), while the encoder held it, and
	 * after the encoder let go of its buffers; -1 where it could not tell. */
	struct tracker_view {
		int64_t vmaps, attachments;
	} before, held, after;
	uint32_t first;
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
	snprintf(r->encoder_driver, sizeof(r->encoder_driver), "%s", llmem_codec_driver(r->enc));
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
		if (r->stream && (ret = mapped_fwrite(r->stream, bits->map, b.bytesused[0]))) {
			fprintf(stderr, "llmem encode: writing the bitstream: %s\n",
				strerror(-ret));
			return ret;
		}
		r->bitstream_bytes += b.bytesused[0];
		r->coded_written += r->stream != NULL;
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

/* What llmem.ko sees of a frame's DMA-BUF now. */
static void query_tracker(int fd, struct tracker_view *v)
{
	struct llmem_dmabuf_state st = { 0 };

	v->vmaps = v->attachments = -1;
	if (llmem_dmabuf_query(fd, &st))
		return;
	if (st.known & LLMEM_DMABUF_KNOWN_VMAPS)
		v->vmaps = st.vmaps;
	if (st.known & LLMEM_DMABUF_KNOWN_ATTACHMENTS)
		v->attachments = st.attachments;
}

/* @b less @a, or -1 where either is unknown. */
static int64_t count_diff(int64_t b, int64_t a)
{
	return a < 0 || b < 0 ? -1 : b - a;
}

/* The frame as it lies now, converted on the device from the same pages. */
static int write_frame(struct encode_run *r, struct llmem_camera_frame *f, uint32_t n)
{
	const struct llmem_frame_layout *l = &r->info.rgba_layout;
	char path[4096];
	int ret;

	ret = llmem_camera_convert(r->cam, f);
	if (ret)
		return fail(ret, "convert on the device");
	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, n);
	return write_png_rgba(path, (const uint8_t *)f->rgba_data + l->offset[0], l->width,
			      l->height, l->pitch[0]);
}

/* One frame: the device's work in place, the PNG, the encoder. */
static int encode_one(struct encode_run *r, struct llmem_camera_frame *f, uint32_t n, bool *last)
{
	struct llmem_codec_plane p = { .fd = r->frame_fd[f->index],
				       .bytesused = r->raw.sizeimage[0] };
	struct llmem_codec_buffer done;
	int ret;

	r->bytes_copied += f->bytes_copied;
	if (args.process == PROCESS_MIRROR && (ret = mirror_run(&r->mirror, f->source)))
		return fail(ret, "mirror on the device");
	if (args.out && (ret = write_frame(r, f, n)))
		return ret;
	r->pngs_written += args.out != NULL;
	if (n == 0) {
		r->first = f->index;
		query_tracker(p.fd, &r->before);
	}
	ret = llmem_codec_queue(r->enc, LLMEM_CODEC_OUTPUT, f->index, &p, 1, n);
	if (ret)
		return fail(ret, "queue frame to the encoder");
	if (n == 0)
		query_tracker(p.fd, &r->held);
	ret = take_bitstream(r, last);
	if (ret)
		return ret;
	ret = llmem_codec_dequeue(r->enc, LLMEM_CODEC_OUTPUT, TIMEOUT_MS, &done);
	if (ret)
		return fail(ret, "frame back from the encoder");
	if (r->raw_file) {
		ret = dmabuf_append(r->raw_file, p.fd, r->frame_map[f->index], p.bytesused,
				    "llmem encode");
		r->raw_written += !ret;
	}
	return ret;
}

static int encode_frames(struct encode_run *r)
{
	double start = wall_s();
	struct progress pr;
	bool last = false;
	int ret;

	ret = llmem_camera_start(r->cam);
	if (ret)
		return fail(ret, "start camera");
	progress_start(&pr, "llmem encode", "frames", args.frames, args.quiet || args.json);
	for (uint32_t n = 0; n < args.frames; n++) {
		struct llmem_camera_frame f;

		ret = llmem_camera_next(r->cam, TIMEOUT_MS, &f);
		if (ret) {
			fail(ret, "next frame");
			break;
		}
		ret = encode_one(r, &f, n, &last);
		if (!ret && (ret = llmem_camera_release(r->cam, &f)))
			fail(ret, "release frame");
		if (ret)
			break;
		r->frames++;
		progress_step(&pr, n + 1);
	}
	progress_end(&pr);
	if (ret)
		return ret;
	ret = llmem_codec_drain(r->enc);
	if (ret)
		return fail(ret, "drain");
	while (!last) {
		ret = take_bitstream(r, &last);
		if (ret)
			return ret;
	}
	r->seconds = wall_s() - start;
	/* The encoder lets go of the frames; the camera still holds them. */
	llmem_codec_close(r->enc);
	r->enc = NULL;
	query_tracker(r->frame_fd[r->first], &r->after);
	ret = llmem_camera_stop(r->cam);
	return ret ? fail(ret, "stop camera") : 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct encode_run *r = run;

	struct emit e;

	emit_begin(&e, f, true);
	emit_string(&e, "camera", r->info.device);
	emit_string(&e, "camera_driver", r->info.driver);
	emit_string(&e, "encoder", r->encoder);
	emit_string(&e, "encoder_driver", r->encoder_driver);
	emit_fourcc(&e, "format", r->info.format.fourcc);
	emit_string(&e, "codec", "FWHT");
	emit_uint(&e, "width", r->info.format.width);
	emit_uint(&e, "height", r->info.format.height);
	emit_string(&e, "backend", llmem_backend_name(r->info.backend));
	emit_string(&e, "process", args.process == PROCESS_MIRROR ? "mirror" : "none");
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "keyframes", r->keyframes);
	emit_uint(&e, "bitstream_bytes", r->bitstream_bytes);
	emit_uint(&e, "bytes_copied", r->bytes_copied);
	emit_int(&e, "codec_vmaps", count_diff(r->held.vmaps, r->before.vmaps));
	emit_int(&e, "codec_attachments", count_diff(r->held.attachments, r->before.attachments));
	emit_int(&e, "codec_vmaps_after_stop", count_diff(r->after.vmaps, r->before.vmaps));
	emit_double(&e, "seconds", r->seconds, 3);
	emit_int(&e, "validation_messages", llmem_session_validation_messages(r->session));
	emit_finish(&e);
}

/* Each frame's DMA-BUF mapped, and raw.yuv open, for --keep-raw. */
static int open_raw(struct encode_run *r)
{
	char path[4096];

	for (uint32_t i = 0; i < r->info.buffers; i++) {
		int ret = llmem_dmabuf_map(r->frame_fd[i], 0, r->raw.sizeimage[0], LLMEM_CPU_READ,
					   &r->frame_map[i]);

		if (ret) {
			fprintf(stderr, "llmem encode: %s\n", llmem_last_error());
			return ret;
		}
	}
	snprintf(path, sizeof(path), "%s/raw.yuv", args.out);
	r->raw_file = fopen(path, "we");
	if (!r->raw_file) {
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int close_file(FILE **f, const char *what)
{
	int ret = *f && fclose(*f) ? -EIO : 0;

	if (ret)
		fprintf(stderr, "llmem encode: closing %s: %s\n", what, strerror(errno));
	*f = NULL;
	return ret;
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
		.flags = LLMEM_CAMERA_CONVERT_LATER | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
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
	if (args.process == PROCESS_MIRROR &&
	    (ret = mirror_init(&r->mirror, r->session, &r->info.layout, "llmem encode")))
		return ret;
	ret = setup_encoder(r);
	if (ret)
		return ret;
	if (args.keep_raw && (ret = open_raw(r)))
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
	if (close_file(&r->stream, "the bitstream") && !ret)
		ret = -EIO;
	if (close_file(&r->raw_file, "raw.yuv") && !ret)
		ret = -EIO;
	return ret;
}

static void release(struct encode_run *r)
{
	if (r->stream)
		fclose(r->stream);
	if (r->raw_file)
		fclose(r->raw_file);
	mirror_fini(&r->mirror);
	llmem_codec_close(r->enc);
	for (uint32_t i = 0; i < BITSTREAM_BUFS; i++)
		codec_buf_free(&r->bits[i]);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++) {
		llmem_dmabuf_unmap(r->frame_map[i], r->raw.sizeimage[0]);
		if (r->frame_fd[i] > 0)
			close(r->frame_fd[i]);
	}
	llmem_camera_close(r->cam);
	llmem_session_destroy(r->session);
}

/* @name in the --out folder, if there, cut to its first @size bytes or
 * removed when 0. */
static void cut_file(const char *name, uint64_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", args.out, name);
	if ((size ? truncate(path, (off_t)size) : unlink(path)) && errno != ENOENT)
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
}

/*
 * After an error: the whole frames written stay, cut where the last whole
 * one ends, and a line says what they are; a run that wrote none leaves
 * neither its empty files nor a folder it made.
 */
static void keep_written(const struct encode_run *r, bool made_dir)
{
	cut_file("stream.fwht", r->bitstream_bytes);
	if (args.keep_raw)
		cut_file("raw.yuv", (uint64_t)r->raw_written * r->raw.sizeimage[0]);
	if (!r->coded_written && !r->raw_written && !r->pngs_written) {
		if (made_dir)
			rmdir(args.out);
		return;
	}
	fprintf(stderr,
		"llmem encode: kept in %s what was written before the error: stream.fwht with "
		"%u frame%s (%llu bytes), %u PNG%s",
		args.out, r->coded_written, r->coded_written == 1 ? "" : "s",
		(unsigned long long)r->bitstream_bytes, r->pngs_written,
		r->pngs_written == 1 ? "" : "s");
	if (args.keep_raw)
		fprintf(stderr, ", raw.yuv with %u frame%s", r->raw_written,
			r->raw_written == 1 ? "" : "s");
	fputs("; no summary.json\n", stderr);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct encode_run r = { 0 };
	bool made_dir = false;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (args.keep_raw && !args.out)
		return cli_fail(cmd, CLI_USAGE,
				"--keep-raw writes into the --out folder: give one");
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
		printf("llmem encode: %u frame%s %ux%u %.4s from %s (%s) encoded by %s (%s) to "
		       "%llu "
		       "bytes of FWHT in %.2f s, %llu bytes copied%s%s\n",
		       r.frames, cli_plural(r.frames), r.info.format.width, r.info.format.height,
		       (const char *)&r.info.format.fourcc, r.info.device, r.info.driver, r.encoder,
		       r.encoder_driver, (unsigned long long)r.bitstream_bytes, r.seconds,
		       (unsigned long long)r.bytes_copied, args.out ? "; files in " : "",
		       args.out ? args.out : "");
	release(&r);
	if (ret && args.out)
		keep_written(&r, made_dir);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_encode = {
	.name = "encode",
	.summary = "capture, process on the device, encode from the same pages",
	.description =
		"Captures frames from a V4L2 camera into llmem pages shared as DMA-BUFs,\n"
		"mirrors each on the device in place, where the camera wrote it, and hands\n"
		"those very pages to a V4L2 memory-to-memory encoder (FWHT, vicodec) as its\n"
		"input: the encoder encodes what the device wrote, and the CPU copies no\n"
		"byte of a frame.  With --out, writes stream.fwht, summary.json and each\n"
		"frame as a PNG, converted on the device from the same pages; with\n"
		"--keep-raw also raw.yuv, the frames as the encoder read them, for a\n"
		"reference encoder to take.",
	.options = options,
	.run = run,
};
