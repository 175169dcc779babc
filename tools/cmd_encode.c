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
#include <stdio.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "camera.h"
#include "commands.h"
#include "emit.h"
#include "encode_files.h"
#include "encode_source.h"
#include "encoder_queue.h"
#include "mirror.h"
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
	struct encode_source src;
	char encoder[64];
	struct llmem_encoder *enc;
	struct llmem_encoder_info enc_info;
	struct mirror mirror;
	struct encode_files files;
	/* results */
	uint32_t frames, keyframes;
	uint64_t bytes_copied;
	/* What llmem.ko saw of the first frame's DMA-BUF: before the encoder
	 * took it (its owner's own hold), while the encoder held it, and
	 * after the encoder let go of its buffers (known 0 where it could not
	 * tell). */
	struct llmem_dmabuf_state before, held, after;
	int first_fd; /* the first frame's, its owner's */
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem encode: %s: %s\n", what, llmem_last_error());
	return err;
}

/* The change of a count of llmem.ko's between two views, -1 where either
 * could not tell it. */
static int64_t count_diff(const struct llmem_dmabuf_state *b, const struct llmem_dmabuf_state *a,
			  uint32_t known, uint32_t count_b, uint32_t count_a)
{
	return (a->known & b->known & known) ? (int64_t)count_b - count_a : -1;
}

/* A packet written out, and given back. */
static int take_packet(struct encode_run *r, const struct llmem_codec_packet *p)
{
	int ret = encode_files_packet(&r->files, p);

	r->keyframes += !!(p->flags & LLMEM_CODEC_BUF_KEYFRAME);
	llmem_encoder_release_packet(r->enc, p);
	return ret;
}

/* One frame: the device's work in place, the files, then the encoder. */
static int encode_one(struct encode_run *r, struct llmem_camera_frame *cf,
		      struct llmem_codec_frame *frame, uint32_t n)
{
	struct llmem_codec_packet p;
	int ret;

	if (args.process == PROCESS_MIRROR && (ret = mirror_run(&r->mirror, frame->buffer[0])))
		return fail(ret, "mirror on the device");
	if (r->files.raw && (ret = encode_files_raw(&r->files, cf, r->enc_info.raw.sizeimage[0])))
		return ret;
	if (args.out && r->src.cam && (ret = encode_files_png(&r->files, r->src.cam, cf, n)))
		return ret;
	if (n == 0) {
		r->first_fd = frame->fd[0];
		llmem_dmabuf_query(frame->fd[0], &r->before);
	}
	ret = llmem_encoder_push(r->enc, frame);
	if (ret)
		return fail(ret, "queue frame to the encoder");
	if (n == 0)
		llmem_dmabuf_query(frame->fd[0], &r->held);
	ret = llmem_encoder_pull(r->enc, TIMEOUT_MS, &p);
	return ret ? fail(ret, "bitstream") : take_packet(r, &p);
}

static int encode_frames(struct encode_run *r)
{
	double start = timing_s(CLOCK_MONOTONIC);
	struct llmem_codec_packet p;
	struct progress pr;
	int ret;

	ret = r->src.cam ? llmem_camera_start(r->src.cam) : 0;
	if (ret)
		return fail(ret, "start camera");
	progress_start(&pr, "llmem encode", "frames", args.frames, args.quiet || args.json);
	for (uint32_t n = 0; n < args.frames; n++) {
		struct llmem_camera_frame cf;
		struct llmem_codec_frame frame;

		ret = encode_source_next(&r->src, r->enc, n, &cf, &frame);
		if (ret)
			break;
		r->bytes_copied += cf.bytes_copied;
		ret = encode_one(r, &cf, &frame, n);
		if (r->src.cam && !ret && (ret = llmem_camera_release(r->src.cam, &cf)))
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
	if (r->src.cam) {
		llmem_dmabuf_query(r->first_fd, &r->after);
		ret = llmem_camera_stop(r->src.cam);
	}
	return ret ? fail(ret, "stop camera") : 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct encode_run *r = run;
	const struct llmem_codec_format *raw = &r->enc_info.raw;
	struct emit e;

	emit_begin(&e, f, true);
	if (r->src.cam) {
		emit_string(&e, "camera", r->src.info.device);
		emit_string(&e, "camera_driver", r->src.info.driver);
	} else {
		emit_string(&e, "input", args.stream_from);
	}
	emit_string(&e, "encoder", r->enc_info.device);
	emit_string(&e, "encoder_driver", r->enc_info.driver);
	emit_fourcc(&e, "format", raw->fourcc);
	emit_string(&e, "codec", "FWHT");
	emit_uint(&e, "width", r->enc_info.picture.width);
	emit_uint(&e, "height", r->enc_info.picture.height);
	emit_uint(&e, "coded_width", raw->width);
	emit_uint(&e, "coded_height", raw->height);
	emit_string(&e, "backend",
		    llmem_backend_name(r->src.cam ? r->src.info.backend : r->enc_info.backend));
	emit_string(&e, "process", args.process == PROCESS_MIRROR ? "mirror" : "none");
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "keyframes", r->keyframes);
	emit_uint(&e, "bitstream_bytes", r->files.bitstream_bytes);
	emit_uint(&e, "bytes_copied", r->bytes_copied);
	emit_int(&e, "codec_vmaps",
		 count_diff(&r->held, &r->before, LLMEM_DMABUF_KNOWN_VMAPS, r->held.vmaps,
			    r->before.vmaps));
	emit_int(&e, "codec_attachments",
		 count_diff(&r->held, &r->before, LLMEM_DMABUF_KNOWN_ATTACHMENTS,
			    r->held.attachments, r->before.attachments));
	emit_int(&e, "codec_vmaps_after_stop",
		 count_diff(&r->after, &r->before, LLMEM_DMABUF_KNOWN_VMAPS, r->after.vmaps,
			    r->before.vmaps));
	emit_double(&e, "seconds", r->seconds, 3);
	emit_int(&e, "validation_messages", llmem_session_validation_messages(r->session));
	emit_finish(&e);
}

/* The encoder reads the frames where they lie: a camera's with its pitch. */
static int open_encoder(struct encode_run *r)
{
	struct llmem_encoder_create_info eci = {
		.device = r->encoder,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.pitch = r->src.cam ? r->src.info.format.bytesperline : 0,
		.coded_width = r->src.cam ? r->src.layout.coded_width : 0,
		.coded_height = r->src.cam ? r->src.layout.coded_height : 0,
		.frames = r->src.cam ? r->src.info.buffers : 0,
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
	struct llmem_participant queue;
	struct llmem_camera_create_info cci = {
		.device = args.device,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.backend = args.backend,
		.flags = LLMEM_CAMERA_CONVERT_LATER | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
		.participants = &queue,
		.num_participants = 1,
	};
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = encoder_queue(args.encoder, args.format, args.size[0], args.size[1], r->encoder,
			    sizeof(r->encoder), &queue);
	if (ret)
		ret = fail(ret, "the encoder and what it takes");
	if (!ret && !args.stream_from)
		ret = encode_source_camera(&r->src, r->session, &cci);
	if (!ret)
		ret = open_encoder(r);
	if (!ret && args.stream_from) {
		ret = encode_source_file(&r->src, args.stream_from, &r->enc_info);
		if (!args.frames_given || args.frames > r->src.frames)
			args.frames = r->src.frames;
	}
	if (!ret && args.process == PROCESS_MIRROR)
		ret = mirror_init(&r->mirror, r->session, &r->src.layout, "llmem encode");
	if (!ret)
		ret = encode_frames(r);
	if (encode_files_close(&r->files) && !ret)
		ret = -EIO;
	return ret;
}

static void release(struct encode_run *r)
{
	mirror_fini(&r->mirror);
	llmem_encoder_close(r->enc);
	encode_files_release(&r->files);
	encode_source_close(&r->src);
	llmem_session_destroy(r->session);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct encode_run r = { 0 };
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (args.keep_raw && !args.out)
		return cli_fail(cmd, CLI_USAGE,
				"--keep-raw writes into the --out folder: give one");
	if (args.stream_from && (args.device || args.input_given || args.keep_raw))
		return cli_fail(cmd, CLI_USAGE,
				"--stream-from reads the frames from a file: no --device, --input "
				"or --keep-raw (raw.yuv would be the file)");
	r.src.fd = -1;
	ret = encode_files_open(&r.files, args.out, args.keep_raw);
	if (!ret)
		ret = encode(&r);
	if (!ret && args.out)
		ret = report_write_summary("encode", args.out, print_summary, &r);
	if (!ret && args.json)
		print_summary(stdout, &r);
	else if (!ret && !args.quiet)
		printf("llmem encode: %u frame%s %ux%u %.4s from %s (%s) encoded by %s (%s) to "
		       "%llu bytes of FWHT in %.2f s, %llu bytes copied%s%s\n",
		       r.frames, cli_plural(r.frames), r.enc_info.picture.width,
		       r.enc_info.picture.height, (const char *)&r.enc_info.raw.fourcc,
		       r.src.cam ? r.src.info.device : args.stream_from,
		       r.src.cam ? r.src.info.driver : "raw frames", r.enc_info.device,
		       r.enc_info.driver, (unsigned long long)r.files.bitstream_bytes, r.seconds,
		       (unsigned long long)r.bytes_copied, args.out ? "; files in " : "",
		       args.out ? args.out : "");
	release(&r);
	if (ret)
		encode_files_keep(&r.files);
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
