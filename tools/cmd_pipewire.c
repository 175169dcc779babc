// SPDX-License-Identifier: MIT
/*
 * llmem pipewire: a camera offered to PipeWire as a Video/Source node whose
 * buffers are the camera's own frames (llmem/pipewire.h), until a signal
 * or, with --frames, that many frames handed to PipeWire.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/videodev2.h>

#include <llmem/camera.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/pipewire.h>
#include <llmem/session.h>

#include "camera.h"
#include "commands.h"
#include "emit.h"
#include "stop_signals.h"

#define COMMAND "llmem pipewire"

/* What PipeWire has names for, in one buffer. */
static const struct cli_choice pipewire_formats[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV },
	{ "NV12", V4L2_PIX_FMT_NV12 },
	{ "RGB24", V4L2_PIX_FMT_RGB24 },
	{ "BGR24", V4L2_PIX_FMT_BGR24 },
	{ 0 },
};

static struct {
	const char *device;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames;
	uint64_t input;
	uint64_t buffers;
	uint32_t backend;
	const char *name;
	const char *description;
	const char *remote;
	bool json, quiet;
	bool input_given, format_given, frames_given;
	bool libcamera;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 1280, 720 },
	.buffers = 4,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE
			  "; with --libcamera, libcamera's camera id (llmem devices)"),
	CLI_OPTION_FORMAT(&args.format, pipewire_formats, &args.format_given,
			  "the pixel format (default YUYV, with --libcamera the camera's "
			  "choice; RGB24 and BGR24 with --libcamera)"),
	CLI_OPTION_LIBCAMERA(&args.libcamera, "offer a camera of libcamera's (default its first)"),
	CLI_OPTION_SIZE(args.size, 2, 16384, NULL, "frame size in pixels (default 1280x720)"),
	CLI_OPTION_FRAMES(&args.frames, UINT32_MAX, &args.frames_given,
			  "end after N frames handed to PipeWire (default: at SIGINT, SIGTERM "
			  "or SIGHUP)"),
	CLI_OPTION_INPUT(&args.input, &args.input_given),
	{ .name = "buffers",
	  .short_name = 'b',
	  .type = CLI_UINT,
	  .value = &args.buffers,
	  .meta = "N",
	  .min = 2,
	  .max = LLMEM_CAMERA_MAX_BUFFERS,
	  .help = "camera buffers, each a PipeWire buffer (default 4)" },
	CLI_OPTION_BACKEND(&args.backend,
			   "where the frames' pages come from (default: the best that works)"),
	{ .name = "name",
	  .short_name = 'N',
	  .type = CLI_STRING,
	  .value = &args.name,
	  .meta = "NAME",
	  .help = "the node's node.name, which pw-link and consumers name it by "
		  "(default llmem-camera)" },
	{ .name = "description",
	  .type = CLI_STRING,
	  .value = &args.description,
	  .meta = "TEXT",
	  .help = "the node's node.description, what a camera portal shows (default: the "
		  "camera's device)" },
	{ .name = "remote",
	  .short_name = 'r',
	  .type = CLI_STRING,
	  .value = &args.remote,
	  .meta = "SOCKET",
	  .help = "the PipeWire daemon's socket (default PIPEWIRE_REMOTE's, or PipeWire's "
		  "own default)" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct run {
	struct llmem_session *session;
	struct llmem_camera *camera;
	struct llmem_pipewire_source *source;
	struct llmem_camera_info camera_info;
	struct llmem_pipewire_source_info info;
	/* The last format a consumer streamed with: info's goes back to
	 * none when it leaves. */
	uint32_t streamed_dmabuf;
	uint64_t streamed_modifier;
	uint32_t consumers;
	double seconds, cpu_seconds;
	bool signalled;
};

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fail(int err, const char *what)
{
	fprintf(stderr, COMMAND ": %s: %s\n", what, llmem_last_error());
	return err;
}

static int open_source(struct run *r)
{
	struct llmem_session_create_info sci = { .app_name = COMMAND };
	struct llmem_camera_create_info ci = {
		.device = args.device,
		.fourcc = camera_fourcc(args.libcamera, args.format_given, args.format),
		.width = args.size[0],
		.height = args.size[1],
		.buffers = (uint32_t)args.buffers,
		/* Any of them may be in PipeWire or on its way back. */
		.max_held = (uint32_t)args.buffers,
		.input = (uint32_t)args.input,
		.backend = args.backend,
		/* The frames go as captured: no conversion on the device. */
		.flags = LLMEM_CAMERA_CONVERT_LATER,
	};
	struct llmem_pipewire_source_create_info pci = {
		.name = args.name,
		.description = args.description,
		.remote = args.remote,
	};
	int ret;

	if (args.input_given)
		ci.flags |= LLMEM_CAMERA_INPUT;
	if (args.libcamera)
		ci.flags |= LLMEM_CAMERA_LIBCAMERA;
	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = llmem_camera_open(r->session, &ci, &r->camera);
	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(r->camera, &r->camera_info);
	ret = llmem_pipewire_source_create(r->camera, &pci, &r->source);
	if (ret)
		return fail(ret, "PipeWire node");
	if (!args.quiet)
		fprintf(stderr,
			COMMAND ": node %s offers %ux%u %.4s from %s (%s), %u buffers; %s\n",
			args.name ? args.name : "llmem-camera", r->camera_info.format.width,
			r->camera_info.format.height, (const char *)&r->camera_info.format.fourcc,
			r->camera_info.device, r->camera_info.driver, r->camera_info.buffers,
			args.frames_given ? "ends after --frames" : "SIGINT ends it");
	return 0;
}

/* A consumer came, went or could not link: said on stderr, and counted. */
static void note_state(struct run *r, const struct llmem_pipewire_source_info *was)
{
	const struct llmem_pipewire_source_info *i = &r->info;

	if (i->links_failed != was->links_failed && !args.quiet)
		fprintf(stderr, COMMAND ": a consumer could not link: %s\n", i->link_error);
	if (i->state == was->state)
		return;
	if (i->state == LLMEM_PIPEWIRE_STREAMING) {
		r->consumers++;
		r->streamed_dmabuf = i->dmabuf;
		r->streamed_modifier = i->modifier;
		if (!args.quiet)
			fprintf(stderr,
				COMMAND ": node %u streams to a consumer: %s, modifier 0x%" PRIx64
					", %u buffers\n",
				i->node_id, i->dmabuf ? "DmaBuf" : "MemFd", i->modifier,
				i->buffers);
	} else if (i->state == LLMEM_PIPEWIRE_WAITING && !args.quiet) {
		fprintf(stderr, COMMAND ": node %u waits: the consumer left\n", i->node_id);
	}
}

/* Until a signal, --frames frames queued or an error. */
static int stream(struct run *r, int sigfd)
{
	struct pollfd p[2] = { { .fd = llmem_pipewire_source_fd(r->source), .events = POLLIN },
			       { .fd = sigfd, .events = POLLIN } };
	double wall0 = clock_s(CLOCK_MONOTONIC), cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	int ret = 0;

	while (!args.frames_given || r->info.frames_queued < args.frames) {
		struct llmem_pipewire_source_info was = r->info;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			fprintf(stderr, COMMAND ": poll: %s\n", strerror(errno));
			break;
		}
		if (p[1].revents) {
			r->signalled = true;
			break;
		}
		ret = llmem_pipewire_source_iterate(r->source, 0);
		llmem_pipewire_source_get_info(r->source, &r->info);
		if (ret) {
			fail(ret, "streaming");
			break;
		}
		note_state(r, &was);
	}
	r->seconds = clock_s(CLOCK_MONOTONIC) - wall0;
	r->cpu_seconds = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return ret;
}

static void print(const struct run *r)
{
	const struct llmem_pipewire_source_info *i = &r->info;
	const struct llmem_camera_info *c = &r->camera_info;
	double cpu_us = i->frames_queued ? r->cpu_seconds * 1e6 / i->frames_queued : 0;
	struct emit e;

	if (!args.json) {
		printf(COMMAND ": %" PRIu64 " frame%s to %u consumer%s in %.2f s, %" PRIu64
			       " dropped, %" PRIu64 " bytes copied, %.1f us CPU per frame; %s\n",
		       i->frames_queued, cli_plural(i->frames_queued), r->consumers,
		       cli_plural(r->consumers), r->seconds, i->frames_dropped, i->bytes_copied,
		       cpu_us, r->signalled ? "ended by a signal" : "--frames reached");
		return;
	}
	emit_begin(&e, stdout, true);
	emit_string(&e, "node_name", args.name ? args.name : "llmem-camera");
	emit_uint(&e, "node_id", i->node_id);
	emit_string(&e, "device", c->device);
	emit_string(&e, "driver", c->driver);
	emit_fourcc(&e, "format", c->format.fourcc);
	emit_uint(&e, "width", c->format.width);
	emit_uint(&e, "height", c->format.height);
	emit_uint(&e, "bytesperline", c->format.bytesperline);
	emit_string(&e, "backend", llmem_backend_name(c->backend));
	emit_uint(&e, "buffers", c->buffers);
	emit_uint(&e, "consumers", r->consumers);
	if (r->consumers) {
		emit_string(&e, "data_type", r->streamed_dmabuf ? "DmaBuf" : "MemFd");
		emit_uint(&e, "modifier", r->streamed_modifier);
	} else {
		emit_null(&e, "data_type");
		emit_null(&e, "modifier");
	}
	emit_uint(&e, "links_failed", i->links_failed);
	emit_uint(&e, "frames_queued", i->frames_queued);
	emit_uint(&e, "frames_dropped", i->frames_dropped);
	emit_uint(&e, "bytes_copied", i->bytes_copied);
	emit_double(&e, "seconds", r->seconds, 3);
	emit_double(&e, "cpu_us_per_frame", cpu_us, 1);
	emit_bool(&e, "signalled", r->signalled);
	emit_finish(&e);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct run r = { 0 };
	int ret, sigfd;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = camera_check_libcamera(cmd, args.libcamera, args.input_given, args.format_given,
				     args.format);
	if (ret)
		return ret;
	/* From before the node shows: a consumer's launcher may signal at once. */
	sigfd = stop_signals_fd(COMMAND);
	ret = sigfd < 0 ? sigfd : open_source(&r);
	if (!ret)
		ret = stream(&r, sigfd);
	if (!ret && (args.json || !args.quiet))
		print(&r);
	llmem_pipewire_source_destroy(r.source);
	llmem_camera_close(r.camera);
	llmem_session_destroy(r.session);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_pipewire = {
	.name = "pipewire",
	.summary = "offer a camera to PipeWire as a node of its own frames, zero-copy",
	.description =
		"Offers a V4L2 camera (with --libcamera, one of libcamera's) to the PipeWire\n"
		"daemon as a Video/Source node with media.role=Camera, the kind a camera\n"
		"portal lists to browsers and OBS.  Its buffers are the camera's own frames,\n"
		"llmem's DMA-BUFs: a consumer that takes DMA-BUFs gets them with the linear\n"
		"modifier, one that takes shared memory gets the same files as MemFd, and no\n"
		"byte is copied.  The camera streams while a consumer does.  Runs until\n"
		"SIGINT, SIGTERM or SIGHUP, or with --frames until that many frames went to\n"
		"PipeWire; then prints what went (docs/pipewire.md).",
	.options = options,
	.run = run,
};
