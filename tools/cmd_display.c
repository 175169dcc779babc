// SPDX-License-Identifier: MIT
/*
 * llmem display: frames of a source (display_source.h: the camera, or a
 * bitstream a decoder decodes) scanned out by a KMS device straight from
 * the shared buffers they were written into; with --writeback read back by
 * the writeback connector and compared with what was queued, frame by
 * frame (display_writeback.c); with --hold the last frame left on screen
 * until the caller says (display_hold.c).  A little over 400 lines: most
 * of them are the options and their checks, which belong to this command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/display.h>
#include <llmem/error.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "camera.h"
#include "commands.h"
#include "display_hold.h"
#include "stop_signals.h"
#include "display_source.h"
#include "display_writeback.h"
#include "emit.h"
#include "progress.h"
#include "timing.h"

#define CAMERA_FRAMES 30

static struct {
	const char *camera;
	const char *display;
	const char *decode;
	const char *decoder;
	const char *writeback_to;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames;
	uint64_t input;
	bool format_given, size_given, frames_given, input_given;
	bool writeback, hold;
	bool json, quiet;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 640, 480 },
	.frames = CAMERA_FRAMES,
};

static const struct cli_option options[] = {
	{ .name = "camera",
	  .short_name = 'c',
	  .type = CLI_PATH,
	  .value = &args.camera,
	  .meta = "PATH",
	  .help = "the capture node; default: the first that imports DMA-BUFs" },
	{ .name = "decode",
	  .type = CLI_PATH,
	  .value = &args.decode,
	  .meta = "FILE",
	  .help = "show FILE, an FWHT bitstream (as `llmem encode` writes it), decoded, "
		  "instead of the camera" },
	{ .name = "decoder",
	  .type = CLI_PATH,
	  .value = &args.decoder,
	  .meta = "PATH",
	  .help = "with --decode, the decoder node; default: the first FWHT decoder that "
		  "imports DMA-BUFs" },
	{ .name = "display",
	  .short_name = 'd',
	  .type = CLI_PATH,
	  .value = &args.display,
	  .meta = "PATH",
	  .help = "the KMS node; default: the first that imports DMA-BUFs and takes "
		  "atomic commits" },
	CLI_OPTION_FORMAT(&args.format, camera_formats, &args.format_given,
			  "the camera's pixel format (default YUYV)"),
	CLI_OPTION_SIZE(args.size, 2, 16384, &args.size_given,
			"the camera's frame size and the mode, in pixels (default 640x480; with "
			"--decode the stream's)"),
	CLI_OPTION_FRAMES(&args.frames, 1000000, &args.frames_given,
			  "frames to show (default 30; with --decode the whole stream)"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	{ .name = "writeback",
	  .short_name = 'w',
	  .type = CLI_FLAG,
	  .value = &args.writeback,
	  .help = "drive the writeback connector and compare each frame shown" },
	{ .name = "writeback-to",
	  .type = CLI_PATH,
	  .value = &args.writeback_to,
	  .meta = "FILE",
	  .help = "with --writeback, write each frame written back into FILE, raw XRGB8888 "
		  "rows without padding, one frame after the other" },
	{ .name = "hold",
	  .short_name = 'H',
	  .type = CLI_FLAG,
	  .value = &args.hold,
	  .help = "keep the last frame on screen until stdin ends or SIGINT, SIGTERM or "
		  "SIGHUP arrives" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct run {
	struct llmem_session *session;
	struct display_source *src;
	struct llmem_display *display;
	struct llmem_display_info disp;
	struct llmem_display_fb *fbs[DISPLAY_SOURCE_MAX_BUFFERS];
	struct display_writeback wb;

	uint32_t shown, matched, first_mismatch;
	/* The framebuffer of the last frame shown. */
	uint32_t on_screen;
	uint64_t bytes_copied;
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem display: %s: %s\n", what, llmem_last_error());
	return err;
}

/* The camera's options mean nothing to a stream, which says its own
 * format and size. */
static int check_args(const struct cli_command *cmd)
{
	static const char *const why = "the stream's header gives the format and size";

	if (args.decode && args.camera)
		return cli_fail(cmd, CLI_USAGE, "--decode and --camera exclude each other");
	if (args.decode && args.format_given)
		return cli_fail(cmd, CLI_USAGE, "--decode and --format exclude each other: %s",
				why);
	if (args.decode && args.size_given)
		return cli_fail(cmd, CLI_USAGE, "--decode and --size exclude each other: %s", why);
	if (args.decode && args.input_given)
		return cli_fail(cmd, CLI_USAGE, "--decode and --input exclude each other");
	if (args.decoder && !args.decode)
		return cli_fail(cmd, CLI_USAGE, "--decoder '%s': needs --decode FILE",
				args.decoder);
	if (args.writeback_to && !args.writeback)
		return cli_fail(cmd, CLI_USAGE, "--writeback-to '%s': needs --writeback",
				args.writeback_to);
	return 0;
}

static int open_source(struct run *r)
{
	struct display_camera_args ca = {
		.device = args.camera,
		.display = args.display,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.input_given = args.input_given,
		.frames = args.frames,
	};
	struct display_decode_args da = {
		.file = args.decode,
		.display = args.display,
		.decoder = args.decoder,
		.frames = args.frames_given ? args.frames : 0,
	};

	return args.decode ? display_decode_open(r->session, &da, &r->src)
			   : display_camera_open(r->session, &ca, &r->src);
}

static int open_display(struct run *r)
{
	struct llmem_display_create_info ci = {
		.device = args.display,
		.width = r->src->width,
		.height = r->src->height,
		.flags = args.writeback ? LLMEM_DISPLAY_WRITEBACK : 0,
	};
	int ret = llmem_display_open(&ci, &r->display);

	if (ret)
		return fail(ret, "open display");
	llmem_display_get_info(r->display, &r->disp);
	return 0;
}

/* A framebuffer of each buffer the source shows frames from. */
static int make_framebuffers(struct run *r)
{
	for (uint32_t i = 0; i < r->src->buffer_count; i++) {
		int ret = llmem_display_fb_create_from_buffer(r->display, r->src->buffers[i],
							      &r->src->layout, 0, &r->fbs[i]);

		if (ret)
			return fail(ret, "framebuffer of the source's frame");
	}
	return 0;
}

/* One frame: shown, waited for, compared. */
static int show_frame(struct run *r, uint32_t n, const struct display_frame *f)
{
	struct llmem_display_commit_result res;
	struct llmem_display_commit_info ci = {
		.fb = r->fbs[f->index],
		.flags = LLMEM_DISPLAY_COMMIT_OUT_FENCE,
		.writeback = r->wb.fb,
	};
	int ret;

	ret = llmem_display_commit(r->display, &ci, &res);
	if (ret)
		return fail(ret, "commit");
	ret = llmem_sync_file_wait(res.out_fence, DISPLAY_TIMEOUT_MS);
	if (!ret && res.writeback_fence >= 0)
		ret = llmem_sync_file_wait(res.writeback_fence, DISPLAY_TIMEOUT_MS);
	close(res.out_fence);
	if (res.writeback_fence >= 0)
		close(res.writeback_fence);
	if (ret) {
		fprintf(stderr, "llmem display: frame %u: the display's fence: %s\n", n,
			strerror(-ret));
		return ret;
	}
	if (r->wb.fb) {
		ret = display_writeback_check(&r->wb, &r->src->layout, r->src->buffers[f->index],
					      f->data);
		if (ret < 0)
			return ret;
		if (ret)
			r->matched++;
		else if (r->shown == r->matched)
			r->first_mismatch = n;
	}
	r->shown++;
	r->on_screen = llmem_display_fb_id(ci.fb);
	return 0;
}

/* Each frame is given back to the source once the next has replaced it on
 * screen; the last stays there. */
static int stream(struct run *r)
{
	const struct display_source_ops *ops = r->src->ops;
	struct display_frame f, prev;
	struct progress p;
	bool showing = false;
	double start;
	int ret;

	ret = ops->start(r->src);
	if (!ret)
		ret = make_framebuffers(r);
	if (ret)
		return ret;
	progress_start(&p, "llmem display", "frames", r->src->frames, args.quiet);
	start = timing_s(CLOCK_MONOTONIC);
	while (!r->src->frames || r->shown < r->src->frames) {
		ret = ops->next(r->src, &f);
		if (ret == 1) {
			ret = 0;
			break;
		}
		if (!ret)
			ret = show_frame(r, r->shown, &f);
		if (!ret && showing)
			ret = ops->release(r->src, &prev);
		if (ret)
			break;
		r->bytes_copied += f.bytes_copied;
		prev = f;
		showing = true;
		progress_step(&p, r->shown);
	}
	progress_end(&p);
	r->seconds = timing_s(CLOCK_MONOTONIC) - start;
	if (!ret)
		ret = ops->stop(r->src);
	return ret;
}

static void print(const struct run *r)
{
	struct emit e;
	bool camera = !strcmp(r->src->key, "camera");

	emit_begin(&e, stdout, args.json);
	emit_string(&e, "source", camera ? "camera" : "decode");
	if (!camera)
		emit_null(&e, "camera");
	r->src->ops->emit(r->src, &e);
	if (camera)
		emit_null(&e, "decoder");
	emit_object(&e, "display");
	emit_string(&e, "device", r->disp.device);
	emit_string(&e, "driver", r->disp.driver);
	emit_uint(&e, "crtc", r->disp.crtc_id);
	emit_uint(&e, "plane", r->disp.plane_id);
	emit_uint(&e, "connector",
		  r->disp.writeback_id ? r->disp.writeback_id : r->disp.connector_id);
	emit_bool(&e, "writeback", r->disp.writeback_id != 0);
	emit_array(&e, "framebuffers");
	for (uint32_t i = 0; i < r->src->buffer_count; i++)
		emit_uint(&e, NULL, llmem_display_fb_id(r->fbs[i]));
	emit_end(&e);
	emit_uint(&e, "on_screen", r->on_screen);
	emit_end(&e);
	emit_string(&e, "format", "XR24");
	emit_uint(&e, "width", r->disp.width);
	emit_uint(&e, "height", r->disp.height);
	emit_uint(&e, "frames", r->shown);
	emit_uint(&e, "milliseconds", (uint64_t)(r->seconds * 1e3));
	emit_uint(&e, "bytes_copied_per_frame", r->shown ? r->bytes_copied / r->shown : 0);
	if (args.writeback)
		emit_uint(&e, "writeback_matched", r->matched);
	else
		emit_null(&e, "writeback_matched");
	emit_finish(&e);
	/* Read by whoever looks at the screen during --hold. */
	fflush(stdout);
}

static void finish(struct run *r)
{
	/* The display lets go of the source's buffers before they are freed. */
	llmem_display_close(r->display);
	if (r->src)
		r->src->ops->close(r->src);
	display_writeback_destroy(&r->wb);
	llmem_session_destroy(r->session);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_session_create_info sci = { .app_name = "llmem display" };
	struct run r = { 0 };
	int ret, sigfd = -1;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = check_args(cmd);
	if (ret)
		return ret;
	ret = llmem_session_create(&sci, &r.session);
	if (ret)
		ret = fail(ret, "Vulkan session");
	if (!ret)
		ret = open_source(&r);
	if (!ret)
		ret = open_display(&r);
	if (!ret && args.writeback)
		ret = display_writeback_open(r.session, r.display, &r.disp, args.writeback_to,
					     &r.wb);
	if (!ret && !args.quiet)
		fprintf(stderr, "llmem display: %s on %s (%s), %ux%u XRGB8888\n", r.src->name,
			r.disp.device, r.disp.driver, r.disp.width, r.disp.height);
	if (!ret)
		ret = stream(&r);
	ret = display_writeback_close_file(&r.wb, ret);
	/* Before the report: whoever reads it may signal at once. */
	if (!ret && args.hold && r.shown && (sigfd = stop_signals_fd("llmem display")) < 0)
		ret = sigfd;
	if (!ret && (args.json || !args.quiet))
		print(&r);
	if (!ret && args.writeback && r.matched != r.shown) {
		fprintf(stderr,
			"llmem display: %u of %u frames written back differ from the frame "
			"queued, the first at frame %u\n",
			r.shown - r.matched, r.shown, r.first_mismatch);
		ret = -EIO;
	}
	if (sigfd >= 0) {
		int held;

		if (!args.quiet)
			fprintf(stderr,
				"llmem display: holding frame %u (framebuffer %u) on %s until "
				"stdin ends or SIGINT, SIGTERM or SIGHUP arrives\n",
				r.shown - 1, r.on_screen, r.disp.device);
		held = display_hold(sigfd);
		ret = ret ? ret : held;
	}
	finish(&r);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_display = {
	.name = "display",
	.summary = "show the camera or a decoded stream on a KMS display, zero-copy",
	.description =
		"Shows frames on a KMS device with atomic commits whose out-fences say when\n"
		"each is on screen; the display scans out the very buffer the frame was\n"
		"written into, and no byte is copied.  The frames come from a V4L2 camera,\n"
		"converted on the device into one of two shared XRGB8888 buffers, or with\n"
		"--decode FILE from an FWHT bitstream that a V4L2 decoder decodes into\n"
		"llmem buffers: a stream of RGB pixels is decoded as XRGB8888 and shown where\n"
		"the decoder wrote it, a Y'CbCr stream (what `llmem encode` writes) is\n"
		"converted on the device first.  With --writeback the CRTC drives the\n"
		"device's writeback connector, which writes each frame it shows into a\n"
		"buffer of llmem's; the command compares it with the frame queued and fails\n"
		"if any differs.  Without --camera, --decoder and --display it takes the\n"
		"first of each that imports DMA-BUFs.\n"
		"\n"
		"With --hold the last frame stays on screen after the report is printed (and\n"
		"flushed), until stdin reaches its end or SIGINT, SIGTERM or SIGHUP arrives;\n"
		"then the display is put back as it was found.  Other programs (modetest,\n"
		"drm_info) can look at it meanwhile: `sleep 60 | llmem display --hold` shows\n"
		"it for a minute.",
	.options = options,
	.run = run,
};
