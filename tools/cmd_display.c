// SPDX-License-Identifier: MIT
/*
 * llmem display: the camera's frames, converted on the device into shared
 * RGBA buffers, scanned out by a KMS device straight from those buffers,
 * and with --writeback read back by the writeback connector and compared
 * with what was queued, frame by frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/display.h>
#include <llmem/error.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "camera.h"
#include "commands.h"
#include "emit.h"

#define DEQUEUE_TIMEOUT_MS 10000
#define FENCE_TIMEOUT_MS 10000
/* Shown while the next is converted. */
#define RGBA_BUFFERS 2
/* A display engine's usual pitch demand. */
#define PITCH_ALIGNMENT 64

static struct {
	const char *camera;
	const char *display;
	uint32_t format;
	uint32_t size[2];
	uint64_t frames;
	uint64_t input;
	bool input_given;
	bool writeback;
	bool json, quiet;
} args = {
	.format = V4L2_PIX_FMT_YUYV,
	.size = { 640, 480 },
	.frames = 30,
};

static const struct cli_option options[] = {
	{ .name = "camera",
	  .short_name = 'c',
	  .type = CLI_PATH,
	  .value = &args.camera,
	  .meta = "PATH",
	  .help = "the capture node; default: the first that imports DMA-BUFs" },
	{ .name = "display",
	  .short_name = 'd',
	  .type = CLI_PATH,
	  .value = &args.display,
	  .meta = "PATH",
	  .help = "the KMS node; default: the first that imports DMA-BUFs and takes "
		  "atomic commits" },
	{ .name = "format",
	  .short_name = 'f',
	  .type = CLI_CHOICE,
	  .value = &args.format,
	  .meta = "FOURCC",
	  .choices = camera_formats,
	  .help = "the camera's pixel format (default YUYV)" },
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_WXH,
	  .value = args.size,
	  .meta = "WxH",
	  .min = 2,
	  .max = 16384,
	  .help = "frame size and mode in pixels (default 640x480)" },
	{ .name = "frames",
	  .short_name = 'n',
	  .type = CLI_UINT,
	  .value = &args.frames,
	  .meta = "N",
	  .min = 1,
	  .max = 1000000,
	  .help = "frames to show (default 30)" },
	{ .name = "input",
	  .short_name = 'i',
	  .type = CLI_UINT,
	  .value = &args.input,
	  .meta = "N",
	  .max = 255,
	  .given = &args.input_given,
	  .help = "select the camera's video input N (default: leave the device's)" },
	{ .name = "writeback",
	  .short_name = 'w',
	  .type = CLI_FLAG,
	  .value = &args.writeback,
	  .help = "drive the writeback connector and compare each frame shown" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct run {
	struct llmem_session *session;
	struct llmem_camera *camera;
	struct llmem_camera_info cam;
	struct llmem_display *display;
	struct llmem_display_info disp;
	struct llmem_display_fb *fbs[RGBA_BUFFERS];
	/* With --writeback: where the connector writes, and its framebuffer. */
	struct llmem_memory *wb_memory;
	struct llmem_buffer *wb;
	struct llmem_frame_layout wb_layout;
	const uint8_t *wb_map;
	struct llmem_display_fb *wb_fb;

	uint32_t shown, matched, first_mismatch;
	uint64_t bytes_copied;
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem display: %s: %s\n", what, llmem_last_error());
	return err;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The camera writes XRGB8888, which every KMS device scans out, into shared
 * buffers the display imports. */
static int open_camera(struct run *r)
{
	struct llmem_camera_create_info ci = {
		.device = args.camera,
		.fourcc = args.format,
		.width = args.size[0],
		.height = args.size[1],
		.input = (uint32_t)args.input,
		.flags = LLMEM_CAMERA_SHARED_RGBA | (args.input_given ? LLMEM_CAMERA_INPUT : 0),
		.rgba_fourcc = DRM_FORMAT_XRGB8888,
		.rgba_buffers = RGBA_BUFFERS,
		.rgba_pitch_alignment = PITCH_ALIGNMENT,
	};
	int ret = llmem_camera_open(r->session, &ci, &r->camera);

	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(r->camera, &r->cam);
	return 0;
}

static int open_display(struct run *r)
{
	struct llmem_display_create_info ci = {
		.device = args.display,
		.width = args.size[0],
		.height = args.size[1],
		.flags = args.writeback ? LLMEM_DISPLAY_WRITEBACK : 0,
	};
	int ret = llmem_display_open(&ci, &r->display);

	if (ret)
		return fail(ret, "open display");
	llmem_display_get_info(r->display, &r->disp);
	for (uint32_t i = 0; i < RGBA_BUFFERS; i++) {
		struct llmem_buffer *b;

		llmem_camera_rgba_buffer(r->camera, i, &b);
		ret = llmem_display_fb_create_from_buffer(r->display, b, &r->cam.rgba_layout, 0,
							  &r->fbs[i]);
		if (ret)
			return fail(ret, "framebuffer of the camera's RGBA frame");
	}
	return 0;
}

/* The writeback connector's frame, in shared memory the CPU reads. */
static int make_writeback(struct run *r)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.sharing = LLMEM_SHARING_DMABUF,
		.name = "display writeback",
	};
	struct llmem_frame_constraints c = { .pitch_alignment = PITCH_ALIGNMENT };
	void *map;
	int ret;

	ret = llmem_frame_layout_init(DRM_FORMAT_XRGB8888, r->disp.width, r->disp.height, &c,
				      &r->wb_layout);
	if (!ret)
		ret = llmem_memory_create(r->session, &mci, &r->wb_memory);
	if (!ret)
		ret = llmem_buffer_create(
			r->wb_memory,
			&(struct llmem_buffer_create_info){ .size = r->wb_layout.size,
							    .alignment = 4096,
							    .name = "display writeback" },
			&r->wb);
	if (!ret)
		ret = llmem_buffer_map(r->wb, &map);
	if (!ret)
		ret = llmem_display_fb_create_from_buffer(r->display, r->wb, &r->wb_layout,
							  LLMEM_DISPLAY_FB_WRITEBACK, &r->wb_fb);
	if (ret)
		return fail(ret, "writeback frame");
	r->wb_map = map;
	return 0;
}

/* Whether the written-back frame is @f's RGBA frame in red, green and blue. */
static bool same_picture(struct run *r, const struct llmem_camera_frame *f)
{
	const struct llmem_frame_layout *src = &r->cam.rgba_layout, *wb = &r->wb_layout;
	const uint8_t *a = (const uint8_t *)f->rgba_data + src->offset[0];
	const uint8_t *b = r->wb_map + wb->offset[0];
	bool same = true;

	llmem_buffer_begin_cpu_access(r->wb, LLMEM_CPU_READ);
	for (uint32_t y = 0; same && y < src->height; y++) {
		const uint32_t *pa = (const uint32_t *)(a + (size_t)y * src->pitch[0]);
		const uint32_t *pb = (const uint32_t *)(b + (size_t)y * wb->pitch[0]);

		for (uint32_t x = 0; x < src->width; x++)
			if ((pa[x] ^ pb[x]) & 0xffffff) {
				same = false;
				break;
			}
	}
	llmem_buffer_end_cpu_access(r->wb, LLMEM_CPU_READ);
	return same;
}

/* One frame: converted by the camera, shown, waited for, compared. */
static int show_frame(struct run *r, uint32_t n)
{
	struct llmem_display_commit_result res;
	struct llmem_display_commit_info ci = { .flags = LLMEM_DISPLAY_COMMIT_OUT_FENCE };
	struct llmem_camera_frame f;
	int ret;

	ret = llmem_camera_next(r->camera, DEQUEUE_TIMEOUT_MS, &f);
	if (ret)
		return fail(ret, "next frame");
	r->bytes_copied += f.bytes_copied;
	ci.fb = r->fbs[f.rgba_index];
	ci.writeback = r->wb_fb;
	ret = llmem_display_commit(r->display, &ci, &res);
	if (ret) {
		fail(ret, "commit");
	} else {
		ret = llmem_sync_file_wait(res.out_fence, FENCE_TIMEOUT_MS);
		if (!ret && res.writeback_fence >= 0)
			ret = llmem_sync_file_wait(res.writeback_fence, FENCE_TIMEOUT_MS);
		close(res.out_fence);
		if (res.writeback_fence >= 0)
			close(res.writeback_fence);
		if (ret)
			fprintf(stderr, "llmem display: frame %u: the display's fence: %s\n", n,
				strerror(-ret));
	}
	if (!ret && r->wb_fb) {
		if (same_picture(r, &f))
			r->matched++;
		else if (r->shown == r->matched)
			r->first_mismatch = n;
	}
	if (!ret)
		r->shown++;
	/* The RGBA frame is the display's now; the capture buffer goes back. */
	if (llmem_camera_release(r->camera, &f) && !ret)
		ret = fail(-EIO, "release frame");
	return ret;
}

static int stream(struct run *r)
{
	double start;
	int ret;

	ret = llmem_camera_start(r->camera);
	if (ret)
		return fail(ret, "start camera");
	start = wall_s();
	for (uint32_t n = 0; !ret && n < args.frames; n++)
		ret = show_frame(r, n);
	r->seconds = wall_s() - start;
	if (!ret && (ret = llmem_camera_stop(r->camera)))
		fail(ret, "stop camera");
	return ret;
}

static void print(const struct run *r)
{
	struct emit e;
	char fourcc[5] = { 0 };

	memcpy(fourcc, &r->cam.format.fourcc, 4);
	emit_begin(&e, stdout, args.json);
	emit_object(&e, "camera");
	emit_string(&e, "device", r->cam.device);
	emit_string(&e, "driver", r->cam.driver);
	emit_string(&e, "format", fourcc);
	emit_string(&e, "rgba_backend", llmem_backend_name(r->cam.rgba_backend));
	emit_end(&e);
	emit_object(&e, "display");
	emit_string(&e, "device", r->disp.device);
	emit_string(&e, "driver", r->disp.driver);
	emit_uint(&e, "crtc", r->disp.crtc_id);
	emit_uint(&e, "plane", r->disp.plane_id);
	emit_uint(&e, "connector",
		  r->disp.writeback_id ? r->disp.writeback_id : r->disp.connector_id);
	emit_bool(&e, "writeback", r->disp.writeback_id != 0);
	emit_array(&e, "framebuffers");
	for (uint32_t i = 0; i < RGBA_BUFFERS; i++)
		emit_uint(&e, NULL, llmem_display_fb_id(r->fbs[i]));
	emit_end(&e);
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
}

static void finish(struct run *r)
{
	/* The display lets go of the RGBA buffers before the camera frees them. */
	llmem_display_close(r->display);
	llmem_camera_close(r->camera);
	llmem_buffer_destroy(r->wb);
	llmem_memory_destroy(r->wb_memory);
	llmem_session_destroy(r->session);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_session_create_info sci = { .app_name = "llmem display" };
	struct run r = { 0 };
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = llmem_session_create(&sci, &r.session);
	if (ret)
		ret = fail(ret, "Vulkan session");
	if (!ret)
		ret = open_camera(&r);
	if (!ret)
		ret = open_display(&r);
	if (!ret && args.writeback)
		ret = make_writeback(&r);
	if (!ret && !args.quiet)
		fprintf(stderr, "llmem display: %s (%s) on %s (%s), %ux%u XRGB8888\n", r.cam.device,
			r.cam.driver, r.disp.device, r.disp.driver, r.disp.width, r.disp.height);
	if (!ret)
		ret = stream(&r);
	if (!ret && (args.json || !args.quiet))
		print(&r);
	if (!ret && args.writeback && r.matched != r.shown) {
		fprintf(stderr,
			"llmem display: %u of %u frames written back differ from the frame "
			"queued, the first at frame %u\n",
			r.shown - r.matched, r.shown, r.first_mismatch);
		ret = -EIO;
	}
	finish(&r);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_display = {
	.name = "display",
	.summary = "show the camera on a KMS display, zero-copy, fenced",
	.description =
		"Captures frames from a V4L2 camera, converts each on the device into one\n"
		"of two shared XRGB8888 buffers, and shows it on a KMS device with an atomic\n"
		"commit whose out-fence says when it is on screen: the display scans out\n"
		"the very buffer the conversion wrote, no byte is copied.  With --writeback\n"
		"the CRTC drives the device's writeback connector, which writes each frame\n"
		"it shows into a buffer of llmem's; the command compares it with the frame\n"
		"queued and fails if any differs.  Without --camera and --display it takes\n"
		"the first of each that imports DMA-BUFs.",
	.options = options,
	.run = run,
};
