// SPDX-License-Identifier: MIT
/*
 * llmem decode: an FWHT bitstream read from its file straight into llmem
 * buffers, decoded into llmem buffers that the decoder takes as DMA-BUFs,
 * each frame read there by a conversion shader on the device; the CPU
 * copies no byte.  Follows the stream's changes of resolution.  Writes the
 * frames as PNGs and summary.json and, with --keep-raw, the frames as the
 * decoder wrote them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/session.h>

#include "camera.h"
#include "commands.h"
#include "emit.h"
#include "mapped_io.h"
#include "png_writer.h"
#include "progress.h"
#include "report.h"
#include "timing.h"

#define TIMEOUT_MS 10000
#define FRAME_BUFS 3

/* What vicodec's decoder writes: any of them, of the stream's chroma. */
static const struct cli_choice decode_formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV },
	{ "YVYU", V4L2_PIX_FMT_YVYU },
	{ "UYVY", V4L2_PIX_FMT_UYVY },
	{ "VYUY", V4L2_PIX_FMT_VYUY },
	{ "NV12", V4L2_PIX_FMT_NV12 },
	{ "NV21", V4L2_PIX_FMT_NV21 },
	{ "NV16", V4L2_PIX_FMT_NV16 },
	{ "NV61", V4L2_PIX_FMT_NV61 },
	{ "YU12", V4L2_PIX_FMT_YUV420 },
	{ "YV12", V4L2_PIX_FMT_YVU420 },
	{ "422P", V4L2_PIX_FMT_YUV422P },
	{ "XR24", V4L2_PIX_FMT_XBGR32 },
	{ 0 },
};

static struct {
	const char *decoder, *out;
	uint32_t backend, format;
	bool keep_raw, json, quiet;
} args;

static const struct cli_option options[] = {
	{ .name = "decoder",
	  .short_name = 'D',
	  .type = CLI_PATH,
	  .value = &args.decoder,
	  .meta = "PATH",
	  .help = "the decoder node; default: the first FWHT decoder that imports DMA-BUFs" },
	CLI_OPTION_FORMAT(&args.format, decode_formats, NULL,
			  "the pixel format to decode into, of the stream's chroma subsampling "
			  "(default: YUYV for 4:2:2, NV12 for 4:2:0, which the shaders read); "
			  "PNGs only for those"),
	CLI_OPTION_BACKEND(&args.backend,
			   "where the buffers' pages come from (default: the best that works)"),
	CLI_OPTION_OUT(&args.out, "write frame-NNN.png and summary.json into DIR"),
	CLI_OPTION_KEEP_RAW(&args.keep_raw,
			    "with --out, also write raw.yuv: the frames as the decoder wrote them"),
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct decode_run {
	const char *path;
	struct llmem_session *session;
	struct llmem_bitstream *source;
	struct llmem_decoder *dec;
	struct llmem_decoder_info info;
	FILE *raw_file;
	struct progress progress;
	/* results */
	uint32_t frames;
	/* Whole in the files so far: what a late error leaves there. */
	uint32_t raw_written, pngs_written;
	uint64_t raw_bytes;
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem decode: %s: %s\n", what, llmem_last_error());
	return err;
}

/* The frame as the decoder wrote it, and as the shader read it there. */
static int use_frame(struct decode_run *r, const struct llmem_codec_frame *f)
{
	const struct llmem_frame_layout *l = &r->info.rgba_layout;
	char path[4096];
	int ret;

	for (uint32_t p = 0; r->raw_file && p < f->num_planes; p++) {
		ret = mapped_fwrite(r->raw_file, f->data[p], f->bytesused[p]);
		if (ret) {
			fprintf(stderr, "llmem decode: writing raw.yuv: %s\n", strerror(-ret));
			return ret;
		}
		r->raw_bytes += f->bytesused[p];
	}
	r->raw_written += r->raw_file != NULL;
	if (!args.out || !f->rgba)
		return 0;
	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, r->frames);
	ret = write_png_rgba(path, (const uint8_t *)f->rgba_data + l->offset[0], l->width,
			     l->height, l->pitch[0]);
	r->pngs_written += !ret;
	return ret;
}

/* The decoded frames, until the stream ends; the decoder follows its
 * changes of resolution. */
static int decode_frames(struct decode_run *r)
{
	struct llmem_bitstream_info src;
	double start = timing_s(CLOCK_MONOTONIC);
	int ret;

	ret = llmem_decoder_start(r->dec, TIMEOUT_MS);
	if (ret)
		return fail(ret, "the stream's format");
	llmem_decoder_get_info(r->dec, &r->info);
	if (args.out && !(r->info.flags & LLMEM_DECODER_CONVERT))
		fprintf(stderr,
			"llmem decode: %s decodes into %.4s, which the shaders do not "
			"read: no PNGs\n",
			r->info.device, (const char *)&r->info.format.fourcc);
	llmem_bitstream_get_info(r->source, &src);
	progress_start(&r->progress, "llmem decode", "frames", src.units, args.quiet || args.json);
	for (;;) {
		struct llmem_codec_frame f;
		int rel;

		ret = llmem_decoder_next(r->dec, TIMEOUT_MS, &f);
		if (ret == -ENODATA) {
			ret = 0;
			break;
		}
		if (ret) {
			fail(ret, "decoded frame");
			break;
		}
		llmem_decoder_get_info(r->dec, &r->info);
		ret = use_frame(r, &f);
		rel = llmem_decoder_release(r->dec, &f);
		if (!ret && rel)
			ret = fail(rel, "give the frame back");
		if (ret)
			break;
		r->frames++;
		progress_step(&r->progress, r->frames);
	}
	progress_end(&r->progress);
	llmem_decoder_get_info(r->dec, &r->info);
	r->seconds = timing_s(CLOCK_MONOTONIC) - start;
	return ret;
}

static int open_decoder(struct decode_run *r)
{
	struct llmem_session_create_info sci = { .app_name = "llmem decode" };
	struct llmem_decoder_create_info dci = {
		.source = r->source,
		.device = args.decoder,
		.fourcc = args.format,
		.frames = FRAME_BUFS,
		.flags = LLMEM_DECODER_CONVERT,
		.backend = args.backend,
	};
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = llmem_decoder_open(r->session, &dci, &r->dec);
	if (ret)
		return fail(ret, "open decoder");
	llmem_decoder_get_info(r->dec, &r->info);
	return 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct decode_run *r = run;
	struct llmem_bitstream_info src;
	struct emit e;

	llmem_bitstream_get_info(r->source, &src);
	emit_begin(&e, f, true);
	emit_string(&e, "input", r->path);
	emit_string(&e, "decoder", r->info.device);
	emit_string(&e, "decoder_driver", r->info.driver);
	emit_string(&e, "codec", "FWHT");
	emit_fourcc(&e, "format", r->info.format.fourcc);
	emit_uint(&e, "width", r->info.format.width);
	emit_uint(&e, "height", r->info.format.height);
	emit_bool(&e, "converted", r->info.flags & LLMEM_DECODER_CONVERT);
	emit_uint(&e, "input_frames", r->info.units_fed);
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "source_changes", r->info.source_changes);
	emit_uint(&e, "bitstream_bytes", src.bytes);
	emit_uint(&e, "bytes_copied", 0);
	emit_double(&e, "seconds", r->seconds, 3);
	emit_int(&e, "validation_messages", llmem_session_validation_messages(r->session));
	emit_finish(&e);
}

static void release(struct decode_run *r)
{
	llmem_decoder_close(r->dec);
	llmem_bitstream_close(r->source);
	llmem_session_destroy(r->session);
	if (r->raw_file)
		fclose(r->raw_file);
}

static int open_raw(struct decode_run *r)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/raw.yuv", args.out);
	r->raw_file = fopen(path, "we");
	if (r->raw_file)
		return 0;
	fprintf(stderr, "llmem decode: %s: %s\n", path, strerror(errno));
	return -errno;
}

static int decode(struct decode_run *r, const char *path)
{
	int ret = llmem_bitstream_open_fwht(path, &r->source);

	r->path = path;
	if (ret) {
		fprintf(stderr, "llmem decode: %s\n", llmem_last_error());
		return ret;
	}
	if (args.keep_raw)
		ret = open_raw(r);
	if (!ret)
		ret = open_decoder(r);
	if (!ret)
		ret = decode_frames(r);
	if (r->raw_file && fclose(r->raw_file) && !ret) {
		fprintf(stderr, "llmem decode: closing raw.yuv: %s\n", strerror(errno));
		ret = -EIO;
	}
	r->raw_file = NULL;
	return ret;
}

/*
 * After an error: raw.yuv cut where its last whole frame ends and kept with
 * the PNGs, and a line says what they are; a run that wrote none leaves
 * neither an empty raw.yuv nor a folder it made.
 */
static void keep_written(const struct decode_run *r, bool made_dir)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/raw.yuv", args.out);
	if (args.keep_raw && (r->raw_bytes ? truncate(path, (off_t)r->raw_bytes) : unlink(path)) &&
	    errno != ENOENT)
		fprintf(stderr, "llmem decode: %s: %s\n", path, strerror(errno));
	if (!r->raw_written && !r->pngs_written) {
		if (made_dir)
			rmdir(args.out);
		return;
	}
	fprintf(stderr, "llmem decode: kept in %s what was written before the error: %u PNG%s",
		args.out, r->pngs_written, r->pngs_written == 1 ? "" : "s");
	if (args.keep_raw)
		fprintf(stderr, ", raw.yuv with %u frame%s (%llu bytes)", r->raw_written,
			r->raw_written == 1 ? "" : "s", (unsigned long long)r->raw_bytes);
	fputs("; no summary.json\n", stderr);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct decode_run r = { 0 };
	bool made_dir = false;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (ret != argc - 1)
		return cli_fail(cmd, CLI_USAGE, "one FILE to decode, please");
	if (args.keep_raw && !args.out)
		return cli_fail(cmd, CLI_USAGE,
				"--keep-raw writes into the --out folder: give one");
	if (args.out) {
		made_dir = mkdir(args.out, 0755) == 0;
		if (!made_dir && errno != EEXIST)
			return cli_fail(cmd, CLI_FAILED, "%s: %s", args.out, strerror(errno));
	}
	ret = decode(&r, argv[ret]);
	if (!ret && args.out)
		ret = report_write_summary("decode", args.out, print_summary, &r);
	if (!ret && args.json)
		print_summary(stdout, &r);
	else if (!ret && !args.quiet)
		printf("llmem decode: %u frame%s %ux%u %.4s from %s by %s (%s) in %.2f s, read on "
		       "the device where they were decoded%s%s\n",
		       r.frames, cli_plural(r.frames), r.info.format.width, r.info.format.height,
		       (const char *)&r.info.format.fourcc, r.path, r.info.device, r.info.driver,
		       r.seconds, args.out ? "; files in " : "", args.out ? args.out : "");
	release(&r);
	if (ret && args.out)
		keep_written(&r, made_dir);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_decode = {
	.name = "decode",
	.summary = "decode FWHT into llmem buffers that a shader reads",
	.description = "Decodes an FWHT bitstream (as `llmem encode` writes it) with a V4L2\n"
		       "memory-to-memory decoder into llmem pages it takes as DMA-BUFs, and\n"
		       "converts each frame to RGBA on the device where the decoder wrote it.\n"
		       "The stream is read from its file straight into the buffers the decoder\n"
		       "reads, and may change resolution.  With --out, writes each frame as a\n"
		       "PNG and summary.json; with --keep-raw also raw.yuv, the frames as the\n"
		       "decoder wrote them, for comparing with a reference decoder.",
	.operands = "FILE",
	.max_operands = 1,
	.options = options,
	.run = run,
};
