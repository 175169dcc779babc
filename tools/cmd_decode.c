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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/convert.h>
#include <llmem/error.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "camera.h"
#include "codec_bufs.h"
#include "commands.h"
#include "emit.h"
#include "fwht_feed.h"
#include "mapped_io.h"
#include "png_writer.h"
#include "progress.h"
#include "report.h"

#define TIMEOUT_MS 10000
#define FRAME_BUFS 3

static struct {
	const char *decoder, *out;
	uint32_t backend;
	bool keep_raw, json, quiet;
} args;

static const struct cli_option options[] = {
	{ .name = "decoder",
	  .short_name = 'D',
	  .type = CLI_PATH,
	  .value = &args.decoder,
	  .meta = "PATH",
	  .help = "the decoder node; default: the first FWHT decoder that imports DMA-BUFs" },
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
	struct fwht_feed feed;
	struct llmem_session *session;
	struct llmem_codec_format capf;
	struct llmem_frame_layout layout, rgba_layout;
	struct codec_buf frame[FRAME_BUFS];
	struct llmem_memory *rgba_memory;
	struct llmem_buffer *rgba;
	const uint8_t *rgba_map;
	FILE *raw_file;
	struct progress progress;
	/* results */
	uint32_t frames, source_changes;
	uint64_t bytes_copied;
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

/*
 * The shaders' format of the chroma subsampling the decoder chose for the
 * stream (its CAPTURE format after a source change): YUYV for 4:2:2, NV12
 * for 4:2:0; 0 for anything else.  The decoder offers every format until
 * CAPTURE streams, and one of other subsampling fails at decode time.
 */
static uint32_t readable_format(uint32_t decoded)
{
	static const uint32_t yuv422[] = { V4L2_PIX_FMT_YUV422P, V4L2_PIX_FMT_NV16,
					   V4L2_PIX_FMT_NV61,	 V4L2_PIX_FMT_YUYV,
					   V4L2_PIX_FMT_YVYU,	 V4L2_PIX_FMT_UYVY,
					   V4L2_PIX_FMT_VYUY };
	static const uint32_t yuv420[] = { V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420,
					   V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_NV21 };

	for (size_t i = 0; i < sizeof(yuv422) / sizeof(yuv422[0]); i++)
		if (decoded == yuv422[i])
			return V4L2_PIX_FMT_YUYV;
	for (size_t i = 0; i < sizeof(yuv420) / sizeof(yuv420[0]); i++)
		if (decoded == yuv420[i])
			return V4L2_PIX_FMT_NV12;
	return 0;
}

/* The frame buffers and the RGBA buffer of the last resolution, released. */
static void release_capture(struct decode_run *r)
{
	for (uint32_t i = 0; i < FRAME_BUFS; i++)
		codec_buf_free(&r->frame[i]);
	if (r->rgba_map)
		llmem_buffer_unmap(r->rgba);
	llmem_buffer_destroy(r->rgba);
	if (r->rgba_memory)
		llmem_memory_destroy(r->rgba_memory);
	r->rgba_map = NULL;
	r->rgba = NULL;
	r->rgba_memory = NULL;
}

/*
 * At each source change (the stream's start, or a new resolution): the
 * decoder lets go of the last resolution's buffers, and CAPTURE is set up
 * again in a format the shaders read, in llmem buffers of the new size.
 */
static int setup_capture(struct decode_run *r)
{
	struct llmem_frame_constraints c;
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE,
						.name = "decoded rgba" };
	struct llmem_buffer_create_info bci = { .name = "decoded rgba" };
	struct llmem_codec_format want;
	char got[5];
	int ret;

	ret = llmem_codec_follow_source_change(r->feed.dec, &want);
	if (ret)
		return fail(ret, "the stream's new format");
	release_capture(r);
	r->source_changes++;
	memcpy(got, &want.fourcc, 4);
	got[4] = '\0';
	want.fourcc = readable_format(want.fourcc);
	if (!want.fourcc) {
		fprintf(stderr,
			"llmem decode: %s: the decoder gives %s, whose chroma is neither 4:2:2 "
			"nor 4:2:0, which the shaders read (YUYV, NV12)\n",
			r->feed.path, got);
		return -ENOTSUP;
	}
	ret = llmem_codec_set_format(r->feed.dec, LLMEM_CODEC_CAPTURE, &want, &r->capf);
	if (ret)
		return fail(ret, "decoded format");
	if (r->capf.num_planes != 1) {
		fprintf(stderr, "llmem decode: %s gives %.4s in %u planes\n", r->feed.node,
			(const char *)&r->capf.fourcc, r->capf.num_planes);
		return -ENOTSUP;
	}
	c = (struct llmem_frame_constraints){ .pitch = r->capf.bytesperline[0],
					      .min_size = r->capf.sizeimage[0] };
	ret = llmem_frame_layout_init(r->capf.fourcc, r->capf.width, r->capf.height, &c,
				      &r->layout);
	if (!ret)
		ret = llmem_frame_layout_init(DRM_FORMAT_ABGR8888, r->capf.width, r->capf.height,
					      NULL, &r->rgba_layout);
	if (ret)
		return fail(ret, "frame layout");
	ret = llmem_codec_request_buffers(r->feed.dec, LLMEM_CODEC_CAPTURE,
					  LLMEM_V4L2_MEMORY_DMABUF, FRAME_BUFS);
	if (ret >= 0 && ret < FRAME_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "frame slots");
	for (uint32_t i = 0; i < FRAME_BUFS; i++) {
		struct llmem_codec_plane p;

		ret = codec_buf_alloc(r->session, args.backend, (uint32_t)r->layout.size, "decoded",
				      &r->frame[i]);
		if (ret)
			return ret;
		p = (struct llmem_codec_plane){ .fd = r->frame[i].fd };
		ret = llmem_codec_queue(r->feed.dec, LLMEM_CODEC_CAPTURE, i, &p, 1, 0);
		if (ret)
			return fail(ret, "queue frame buffer");
	}
	bci.size = r->rgba_layout.size;
	ret = llmem_memory_create(r->session, &mci, &r->rgba_memory);
	if (!ret)
		ret = llmem_buffer_create(r->rgba_memory, &bci, &r->rgba);
	if (!ret)
		ret = llmem_buffer_map(r->rgba, (void **)&r->rgba_map);
	if (ret)
		return fail(ret, "RGBA buffer");
	ret = llmem_codec_stream_on(r->feed.dec, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start decoding") : 0;
}

/* The shader reads the decoded frame where the decoder wrote it. */
static int use_frame(struct decode_run *r, uint32_t index, uint32_t bytesused)
{
	struct llmem_convert_info ci = {
		.src = r->frame[index].buffer,
		.src_layout = &r->layout,
		.dst = r->rgba,
		.dst_layout = &r->rgba_layout,
	};
	char path[4096];
	int ret;

	ret = llmem_convert_to_rgba(&ci);
	if (ret)
		return fail(ret, "convert on the device");
	if (r->raw_file) {
		llmem_buffer_invalidate(r->frame[index].buffer, 0, LLMEM_WHOLE_SIZE);
		ret = mapped_fwrite(r->raw_file, r->frame[index].map, bytesused);
		if (ret) {
			fprintf(stderr, "llmem decode: writing raw.yuv: %s\n", strerror(-ret));
			return ret;
		}
		r->raw_written++;
		r->raw_bytes += bytesused;
	}
	if (!args.out)
		return 0;
	llmem_buffer_invalidate(r->rgba, 0, LLMEM_WHOLE_SIZE);
	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, r->frames);
	ret = write_png_rgba(path, r->rgba_map + r->rgba_layout.offset[0], r->rgba_layout.width,
			     r->rgba_layout.height, r->rgba_layout.pitch[0]);
	r->pngs_written += !ret;
	return ret;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The decoded frames, until the drain ends; a new resolution sets CAPTURE
 * up again and decoding goes on. */
static int decode_loop(struct decode_run *r)
{
	int ret;

	for (;;) {
		struct llmem_codec_buffer b;

		ret = fwht_feed_step(&r->feed);
		if (ret)
			return ret;
		ret = llmem_codec_dequeue(r->feed.dec, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b);
		if (ret)
			return fail(ret, "decoded frame");
		if (b.bytesused[0]) {
			ret = use_frame(r, b.index, b.bytesused[0]);
			if (ret)
				return ret;
			r->frames++;
			progress_step(&r->progress, r->frames);
		}
		if (llmem_codec_state(r->feed.dec) == LLMEM_CODEC_SOURCE_CHANGE) {
			ret = setup_capture(r);
			if (ret)
				return ret;
		} else if (b.flags & LLMEM_CODEC_BUF_LAST) {
			return 0;
		} else {
			struct llmem_codec_plane p = { .fd = r->frame[b.index].fd };

			ret = llmem_codec_queue(r->feed.dec, LLMEM_CODEC_CAPTURE, b.index, &p, 1,
						0);
			if (ret)
				return fail(ret, "requeue frame buffer");
		}
	}
}

static int decode_frames(struct decode_run *r)
{
	double start = wall_s();
	uint32_t ev;
	int ret;

	ret = fwht_feed_prime(&r->feed);
	if (ret)
		return ret;
	ret = llmem_codec_stream_on(r->feed.dec, LLMEM_CODEC_OUTPUT);
	if (ret)
		return fail(ret, "start the bitstream");
	ret = llmem_codec_wait_event(r->feed.dec, TIMEOUT_MS, &ev);
	if (ret)
		return fail(ret, "the stream's format");
	if (ev != LLMEM_CODEC_EVENT_SOURCE_CHANGE) {
		fprintf(stderr, "llmem decode: %s: the decoder ended before it found a frame\n",
			r->feed.path);
		return -EIO;
	}
	ret = setup_capture(r);
	if (ret)
		return ret;
	progress_start(&r->progress, "llmem decode", "frames", r->feed.frames,
		       args.quiet || args.json);
	ret = decode_loop(r);
	progress_end(&r->progress);
	r->seconds = wall_s() - start;
	return ret;
}

static int setup_decoder(struct decode_run *r)
{
	struct llmem_session_create_info sci = { .app_name = "llmem decode" };
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	return fwht_feed_open_decoder(&r->feed, r->session, args.decoder, args.backend);
}

static void print_summary(FILE *f, const void *run)
{
	const struct decode_run *r = run;

	struct emit e;

	emit_begin(&e, f, true);
	emit_string(&e, "input", r->feed.path);
	emit_string(&e, "decoder", r->feed.node);
	emit_string(&e, "decoder_driver", llmem_codec_driver(r->feed.dec));
	emit_string(&e, "codec", "FWHT");
	emit_fourcc(&e, "format", r->capf.fourcc);
	emit_uint(&e, "width", r->capf.width);
	emit_uint(&e, "height", r->capf.height);
	emit_uint(&e, "input_frames", r->feed.fed_frames);
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "source_changes", r->source_changes);
	emit_uint(&e, "bitstream_bytes", r->feed.len);
	emit_uint(&e, "bytes_copied", r->bytes_copied);
	emit_double(&e, "seconds", r->seconds, 3);
	emit_int(&e, "validation_messages", llmem_session_validation_messages(r->session));
	emit_finish(&e);
}

static void release(struct decode_run *r)
{
	fwht_feed_close(&r->feed);
	release_capture(r);
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
	int ret = fwht_feed_open(&r->feed, "llmem decode", path);

	if (!ret && args.keep_raw)
		ret = open_raw(r);
	if (!ret)
		ret = setup_decoder(r);
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
		       r.frames, cli_plural(r.frames), r.capf.width, r.capf.height,
		       (const char *)&r.capf.fourcc, r.feed.path, r.feed.node,
		       llmem_codec_driver(r.feed.dec), r.seconds, args.out ? "; files in " : "",
		       args.out ? args.out : "");
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
