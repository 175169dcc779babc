// SPDX-License-Identifier: MIT
/*
 * `llmem display`'s camera: each frame converted on the device into one of
 * two shared XRGB8888 buffers, which the display scans out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/camera.h>
#include <llmem/display.h>
#include <llmem/error.h>
#include <llmem/memory.h>

#include "display_source.h"
#include "emit.h"

/* One shown while the next is converted. */
#define RGBA_BUFFERS 2

struct camera_source {
	struct display_source base;
	struct llmem_camera *camera;
	struct llmem_camera_info info;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem display: %s: %s\n", what, llmem_last_error());
	return err;
}

static int camera_start(struct display_source *s)
{
	struct camera_source *c = (struct camera_source *)s;
	int ret = llmem_camera_start(c->camera);

	return ret ? fail(ret, "start camera") : 0;
}

/*
 * The capture buffer goes back at once: the frame shown is the RGBA
 * buffer, which the conversion writes again two frames later, after the
 * next frame's commit has taken it off screen.
 */
static int camera_next(struct display_source *s, struct display_frame *f)
{
	struct camera_source *c = (struct camera_source *)s;
	struct llmem_camera_frame cf;
	int ret;

	ret = llmem_camera_next(c->camera, DISPLAY_TIMEOUT_MS, &cf);
	if (ret)
		return fail(ret, "next frame");
	*f = (struct display_frame){
		.index = cf.rgba_index,
		.data = cf.rgba_data,
		.bytes_copied = cf.bytes_copied,
	};
	ret = llmem_camera_release(c->camera, &cf);
	return ret ? fail(ret, "release frame") : 0;
}

static int camera_release(struct display_source *s, const struct display_frame *f)
{
	(void)s;
	(void)f;
	return 0;
}

static int camera_stop(struct display_source *s)
{
	struct camera_source *c = (struct camera_source *)s;
	int ret = llmem_camera_stop(c->camera);

	return ret ? fail(ret, "stop camera") : 0;
}

static void camera_emit(const struct display_source *s, struct emit *e)
{
	const struct camera_source *c = (const struct camera_source *)s;

	emit_object(e, "camera");
	emit_string(e, "device", c->info.device);
	emit_string(e, "driver", c->info.driver);
	emit_fourcc(e, "format", c->info.format.fourcc);
	emit_string(e, "rgba_backend", llmem_backend_name(c->info.rgba_backend));
	emit_end(e);
}

static void camera_close(struct display_source *s)
{
	struct camera_source *c = (struct camera_source *)s;

	llmem_camera_close(c->camera);
	free(c);
}

static const struct display_source_ops camera_ops = {
	.start = camera_start,
	.next = camera_next,
	.release = camera_release,
	.stop = camera_stop,
	.emit = camera_emit,
	.close = camera_close,
};

/* The camera writes XRGB8888, which every KMS device scans out. */
int display_camera_open(struct llmem_session *session, const struct display_camera_args *args,
			struct display_source **out)
{
	struct llmem_participant plane;
	struct llmem_camera_create_info ci = {
		.device = args->device,
		.fourcc = args->fourcc,
		.width = args->width,
		.height = args->height,
		.input = args->input,
		.flags = LLMEM_CAMERA_SHARED_RGBA | (args->input_given ? LLMEM_CAMERA_INPUT : 0),
		.rgba_fourcc = DRM_FORMAT_XRGB8888,
		.rgba_buffers = RGBA_BUFFERS,
		.rgba_participants = &plane,
		.num_rgba_participants = 1,
	};
	struct camera_source *c = calloc(1, sizeof(*c));
	int ret;

	if (!c) {
		fprintf(stderr, "llmem display: out of memory\n");
		return -ENOMEM;
	}
	/* The RGBA frames are laid out for the plane that scans them out. */
	ret = llmem_participant_kms_plane(args->display, 0, &plane);
	if (ret) {
		free(c);
		return fail(ret, "the display plane");
	}
	ret = llmem_camera_open(session, &ci, &c->camera);
	if (ret) {
		free(c);
		return fail(ret, "open camera");
	}
	llmem_camera_get_info(c->camera, &c->info);
	c->base = (struct display_source){
		.ops = &camera_ops,
		.key = "camera",
		.width = c->info.rgba_layout.width,
		.height = c->info.rgba_layout.height,
		.frames = args->frames,
		.buffer_count = RGBA_BUFFERS,
		.layout = c->info.rgba_layout,
	};
	snprintf(c->base.name, sizeof(c->base.name), "%s (%s)", c->info.device, c->info.driver);
	for (uint32_t i = 0; i < RGBA_BUFFERS; i++)
		llmem_camera_rgba_buffer(c->camera, i, &c->base.buffers[i]);
	*out = &c->base;
	return 0;
}
