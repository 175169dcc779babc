// SPDX-License-Identifier: MIT
/*
 * llmem encode: one buffer across three drivers.  The camera captures into
 * llmem pages, the device mirrors each frame in place there
 * (shaders/mirror.comp), and the encoder takes those very pages as its
 * DMA-BUF input: it encodes what the device wrote, and the CPU copies no
 * byte of a frame.  Writes the bitstream, the frames as PNGs (converted on
 * the device from the same pages, after the mirror), summary.json and, with
 * --keep-raw, the frames as the encoder read them.  With --stream-from the
 * frames come from a file of raw frames instead, read into the encoder's
 * own llmem frames, as v4l2-ctl's --stream-from feeds an encoder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
#include "mapped_io.h"
#include "commands.h"
#include "emit.h"
#include "mirror.h"
#include "png_writer.h"
#include "progress.h"
#include "report.h"
#include "timing.h"

#define TIMEOUT_MS 10000

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
	const char *device, *encoder, *out, *stream_from;
	uint32_t format, backend, process;
	uint32_t size[2];
	uint64_t frames, input;
	bool input_given, frames_given, keep_raw, json, quiet;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.process = PROCESS_MIRROR,
	.size = { 640, 480 },
	.frames = 10,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE),
	{ .name = "stream-from",
	  .short_name = 'F',
	  .type = CLI_PATH,
	  .value = &args.stream_from,
	  .meta = "FILE",
	  .help = "encode the raw frames of FILE (of --format and --size, back to back) "
		  "instead of a camera's" },
	CLI_OPTION_ENCODER(&args.encoder),
	CLI_OPTION_FORMAT(&args.format, camera_formats, NULL,
			  "the pixel format captured and encoded (default YUYV)"),
	CLI_OPTION_SIZE(args.size, 64, 4096, NULL, "frame size in pixels (default 640x480)"),
	CLI_OPTION_FRAMES(&args.frames, 100000, &args.frames_given,
			  "frames to capture and encode (default 10; all of a file's)"),
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
	/* Where the frames come from: a camera, or with --stream-from a file
	 * read into the encoder's own frames. */
	struct llmem_camera *cam;
	struct llmem_camera_info info;
	int raw_in;
	uint32_t raw_frames;
	struct llmem_encoder *enc;
	struct llmem_encoder_info enc_info;
	struct llmem_frame_layout layout;
	/* With --keep-raw: each camera frame's DMA-BUF mapped, and raw.yuv. */
	void *frame_map[LLMEM_CAMERA_MAX_BUFFERS];
	FILE *raw_file;
	struct mirror mirror;
	FILE *stream;
	/* results */
	uint32_t frames, keyframes;
	/* Whole in the files so far: what a late error leaves there. */
	uint32_t coded_written, raw_written, pngs_written;
	uint64_t bitstream_bytes, bytes_copied;
	/* What llmem.ko saw of the first frame's DMA-BUF: before the encoder
	 * took it (its owner's own hold), while the encoder held it, and
	 * after the encoder let go of its buffers; -1 where it could not tell. */
	struct tracker_view {
		int64_t vmaps, attachments;
	} before, held, after;
	int first_fd; /* the first frame's, its owner's */
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem encode: %s: %s\n", what, llmem_last_error());
	return err;
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

/* The next frame: the camera's as it captured it, or the file's read into
 * one of the encoder's frames. */
static int next_frame(struct encode_run *r, uint32_t n, struct llmem_camera_frame *cf,
		      struct llmem_codec_frame *in)
{
	int ret;

	if (!r->cam) {
		uint32_t size = r->enc_info.raw.sizeimage[0];

		ret = llmem_encoder_get_frame(r->enc, in);
		if (ret)
			return fail(ret, "the encoder's frame");
		ret = mapped_pread(r->raw_in, in->data[0], size, (off_t)n * size);
		if (ret) {
			fprintf(stderr, "llmem encode: %s: frame %u: %s\n", args.stream_from, n,
				strerror(-ret));
			return ret;
		}
		llmem_buffer_flush(in->buffer[0], 0, LLMEM_WHOLE_SIZE);
		in->id = n;
		return 0;
	}
	ret = llmem_camera_next(r->cam, TIMEOUT_MS, cf);
	if (ret)
		return fail(ret, "next frame");
	*in = (struct llmem_codec_frame){
		.fd = { cf->fd[0], cf->fd[1] },
		.num_planes = r->info.format.mem_planes,
		.buffer = { cf->source, cf->source_chroma },
		.id = n,
	};
	r->bytes_copied += cf->bytes_copied;
	return 0;
}

/* The frame as it lies now, converted on the device from the same pages. */
static int write_png(struct encode_run *r, struct llmem_camera_frame *f, uint32_t n)
{
	const struct llmem_frame_layout *l = &r->info.rgba_layout;
	char path[4096];
	int ret;

	ret = llmem_camera_convert(r->cam, f);
	if (ret)
		return fail(ret, "convert on the device");
	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, n);
	ret = write_png_rgba(path, (const uint8_t *)f->rgba_data + l->offset[0], l->width,
			     l->height, l->pitch[0]);
	r->pngs_written += !ret;
	return ret;
}

/* The frame as the encoder read it, appended to raw.yuv: a camera's frame
 * through its DMA-BUF, mapped the first time it comes. */
static int write_raw(struct encode_run *r, const struct llmem_camera_frame *cf,
		     const struct llmem_codec_frame *in)
{
	uint32_t size = r->enc_info.raw.sizeimage[0];
	void *map = r->cam ? r->frame_map[cf->index] : in->data[0];
	int ret;

	if (!map) {
		ret = llmem_dmabuf_map(in->fd[0], 0, size, LLMEM_CPU_READ, &map);
		if (ret)
			return fail(ret, "map the frame");
		r->frame_map[cf->index] = map;
	}
	ret = llmem_dmabuf_begin_cpu_access(in->fd[0], LLMEM_CPU_READ);
	if (ret)
		return fail(ret, "read the frame");
	ret = mapped_fwrite(r->raw_file, map, size);
	llmem_dmabuf_end_cpu_access(in->fd[0], LLMEM_CPU_READ);
	if (ret) {
		fprintf(stderr, "llmem encode: writing raw.yuv: %s\n", strerror(-ret));
		return ret;
	}
	r->raw_written++;
	return 0;
}

/* A packet written out, and given back. */
static int take_packet(struct encode_run *r, const struct llmem_codec_packet *p)
{
	int ret = r->stream ? mapped_fwrite(r->stream, p->data, p->size) : 0;

	if (ret)
		fprintf(stderr, "llmem encode: writing the bitstream: %s\n", strerror(-ret));
	r->bitstream_bytes += p->size;
	r->coded_written += r->stream && !ret;
	r->keyframes += !!(p->flags & LLMEM_CODEC_BUF_KEYFRAME);
	llmem_encoder_release_packet(r->enc, p);
	return ret;
}

/* One frame: the device's work in place, the PNG, the encoder. */
static int encode_one(struct encode_run *r, struct llmem_camera_frame *cf,
		      struct llmem_codec_frame *in, uint32_t n)
{
	struct llmem_codec_packet p;
	int ret;

	if (args.process == PROCESS_MIRROR && (ret = mirror_run(&r->mirror, in->buffer[0])))
		return fail(ret, "mirror on the device");
	if (args.out && r->cam && (ret = write_png(r, cf, n)))
		return ret;
	if (n == 0) {
		r->first_fd = in->fd[0];
		query_tracker(in->fd[0], &r->before);
	}
	ret = llmem_encoder_push(r->enc, in);
	if (ret)
		return fail(ret, "queue frame to the encoder");
	if (n == 0)
		query_tracker(in->fd[0], &r->held);
	ret = llmem_encoder_pull(r->enc, TIMEOUT_MS, &p);
	if (ret)
		return fail(ret, "bitstream");
	ret = take_packet(r, &p);
	if (!ret && r->raw_file)
		ret = write_raw(r, cf, in);
	return ret;
}

static int encode_frames(struct encode_run *r)
{
	double start = timing_s(CLOCK_MONOTONIC);
	struct llmem_codec_packet p;
	struct progress pr;
	int ret;

	ret = r->cam ? llmem_camera_start(r->cam) : 0;
	if (ret)
		return fail(ret, "start camera");
	progress_start(&pr, "llmem encode", "frames", args.frames, args.quiet || args.json);
	for (uint32_t n = 0; n < args.frames; n++) {
		struct llmem_camera_frame cf;
		struct llmem_codec_frame in;

		ret = next_frame(r, n, &cf, &in);
		if (ret)
			break;
		ret = encode_one(r, &cf, &in, n);
		if (r->cam && !ret && (ret = llmem_camera_release(r->cam, &cf)))
			fail(ret, "release frame");
		if (ret)
			break;
		r->frames++;
		progress_step(&pr, n + 1);
	}
	progress_end(&pr);
	if (ret)
		return ret;
	ret = llmem_encoder_drain(r->enc);
	if (ret)
		return fail(ret, "drain");
	while ((ret = llmem_encoder_pull(r->enc, TIMEOUT_MS, &p)) != -ENODATA) {
		if (ret)
			return fail(ret, "drain");
		ret = take_packet(r, &p);
		if (ret)
			return ret;
	}
	ret = 0;
	r->seconds = timing_s(CLOCK_MONOTONIC) - start;
	/* The encoder lets go of the frames; their owner still holds them. */
	llmem_encoder_close(r->enc);
	r->enc = NULL;
	if (r->cam) {
		query_tracker(r->first_fd, &r->after);
		ret = llmem_camera_stop(r->cam);
	}
	return ret ? fail(ret, "stop camera") : 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct encode_run *r = run;
	const struct llmem_codec_format *raw = &r->enc_info.raw;
	struct emit e;

	emit_begin(&e, f, true);
	if (r->cam) {
		emit_string(&e, "camera", r->info.device);
		emit_string(&e, "camera_driver", r->info.driver);
	} else {
		emit_string(&e, "input", args.stream_from);
	}
	emit_string(&e, "encoder", r->enc_info.device);
	emit_string(&e, "encoder_driver", r->enc_info.driver);
	emit_fourcc(&e, "format", raw->fourcc);
	emit_string(&e, "codec", "FWHT");
	emit_uint(&e, "width", raw->width);
	emit_uint(&e, "height", raw->height);
	emit_string(&e, "backend",
		    llmem_backend_name(r->cam ? r->info.backend : r->enc_info.backend));
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

static FILE *open_out(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", args.out, name);
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_file(FILE **f, const char *what)
{
	int ret = *f && fclose(*f) ? -EIO : 0;

	if (ret)
		fprintf(stderr, "llmem encode: closing %s: %s\n", what, strerror(errno));
	*f = NULL;
	return ret;
}

/* The camera, and the frames' layout as it captures them. */
static int open_camera(struct encode_run *r)
{
	struct llmem_camera_create_info cci = {
		.device = args.device,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.backend = args.backend,
		.flags = LLMEM_CAMERA_CONVERT_LATER | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
	};
	int ret = llmem_camera_open(r->session, &cci, &r->cam);

	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(r->cam, &r->info);
	r->layout = r->info.layout;
	return 0;
}

/* --stream-from: the file, which must hold whole frames of the encoder's
 * size, and the frames' layout as the encoder reads them. */
static int open_raw_input(struct encode_run *r)
{
	uint32_t size = r->enc_info.raw.sizeimage[0];
	struct llmem_frame_constraints c = { .pitch = r->enc_info.raw.bytesperline[0],
					     .min_size = size };
	struct stat st;
	int ret;

	r->raw_in = open(args.stream_from, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->raw_in < 0 || fstat(r->raw_in, &st)) {
		fprintf(stderr, "llmem encode: %s: %s\n", args.stream_from, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size || st.st_size % size) {
		fprintf(stderr,
			"llmem encode: %s: not a regular file of whole %ux%u %.4s frames (%u "
			"bytes each)\n",
			args.stream_from, args.size[0], args.size[1], (const char *)&args.format,
			size);
		return -EINVAL;
	}
	r->raw_frames = (uint32_t)(st.st_size / size);
	if (!args.frames_given || args.frames > r->raw_frames)
		args.frames = r->raw_frames;
	ret = llmem_frame_layout_init(args.format, args.size[0], args.size[1], &c, &r->layout);
	return ret ? fail(ret, "frame layout") : 0;
}

/* The encoder reads the frames where they lie: a camera's with its pitch. */
static int open_encoder(struct encode_run *r)
{
	struct llmem_encoder_create_info eci = {
		.device = args.encoder,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.pitch = r->cam ? r->info.format.bytesperline : 0,
		.frames = r->cam ? r->info.buffers : 0,
		.backend = args.backend,
	};
	int ret = llmem_encoder_open(r->session, &eci, &r->enc);

	if (ret)
		return fail(ret, "open encoder");
	llmem_encoder_get_info(r->enc, &r->enc_info);
	return 0;
}

static int encode(struct encode_run *r)
{
	struct llmem_session_create_info sci = { .app_name = "llmem encode" };
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = args.stream_from ? 0 : open_camera(r);
	if (!ret)
		ret = open_encoder(r);
	if (!ret && args.stream_from)
		ret = open_raw_input(r);
	if (!ret && args.process == PROCESS_MIRROR)
		ret = mirror_init(&r->mirror, r->session, &r->layout, "llmem encode");
	if (ret)
		return ret;
	if (args.keep_raw && !(r->raw_file = open_out("raw.yuv")))
		return -EIO;
	if (args.out && !(r->stream = open_out("stream.fwht")))
		return -EIO;
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
	llmem_encoder_close(r->enc);
	for (uint32_t i = 0; i < LLMEM_CAMERA_MAX_BUFFERS; i++)
		llmem_dmabuf_unmap(r->frame_map[i], r->enc_info.raw.sizeimage[0]);
	if (r->raw_in >= 0)
		close(r->raw_in);
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
		cut_file("raw.yuv", (uint64_t)r->raw_written * r->enc_info.raw.sizeimage[0]);
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
	if (args.stream_from && (args.device || args.input_given))
		return cli_fail(
			cmd, CLI_USAGE,
			"--stream-from reads the frames from a file: no --device or --input");
	r.raw_in = -1;
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
		       "%llu bytes of FWHT in %.2f s, %llu bytes copied%s%s\n",
		       r.frames, cli_plural(r.frames), r.enc_info.raw.width, r.enc_info.raw.height,
		       (const char *)&r.enc_info.raw.fourcc,
		       r.cam ? r.info.device : args.stream_from,
		       r.cam ? r.info.driver : "raw frames", r.enc_info.device, r.enc_info.driver,
		       (unsigned long long)r.bitstream_bytes, r.seconds,
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
		"reference encoder to take.  With --stream-from, encodes the raw frames of\n"
		"a file instead (as v4l2-ctl --stream-from does), read into the encoder's\n"
		"own llmem frames.",
	.options = options,
	.run = run,
};
