// SPDX-License-Identifier: MIT
/*
 * llmem negotiate: what each device of a pipeline states it accepts, where
 * each fact came from, and the one layout all of them accept or who
 * refuses what (llmem/negotiate.h).  A participant is named as a user
 * names a device: a V4L2 node and its queue, a DRM card and a plane, the
 * Vulkan device for a usage, the CPU, llmem.ko's contiguous pages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/display.h>
#include <llmem/error.h>
#include <llmem/negotiate.h>
#include <llmem/pipeline.h>
#include <llmem/session.h>
#include <llmem/v4l2.h>

#include "commands.h"
#include "emit.h"

static const struct cli_choice negotiate_formats[] = {
	{ "YUYV", DRM_FORMAT_YUYV },	 { "NV12", DRM_FORMAT_NV12 },
	{ "XR24", DRM_FORMAT_XRGB8888 }, { "AR24", DRM_FORMAT_ARGB8888 },
	{ "AB24", DRM_FORMAT_ABGR8888 }, { 0 },
};

static const struct cli_choice usages[] = {
	{ "storage", LLMEM_VULKAN_USAGE_STORAGE },
	{ "transfer", LLMEM_VULKAN_USAGE_TRANSFER },
	{ "sampled", LLMEM_VULKAN_USAGE_SAMPLED },
	{ 0 },
};

static struct {
	uint32_t format, usage;
	uint32_t size[2];
	uint64_t check;
	bool format_given, json, quiet;
} args = {
	.usage = LLMEM_VULKAN_USAGE_STORAGE,
	.size = { 640, 480 },
};

static const struct cli_option options[] = {
	CLI_OPTION_FORMAT(&args.format, negotiate_formats, &args.format_given,
			  "the one format to negotiate (default: the first in this order that "
			  "all take)"),
	CLI_OPTION_SIZE(args.size, 2, 16384, NULL,
			"the picture's size in pixels (default 640x480); the frame may be coded "
			"larger"),
	{ .name = "usage",
	  .short_name = 'u',
	  .type = CLI_CHOICE,
	  .value = &args.usage,
	  .meta = "USAGE",
	  .choices = usages,
	  .help = "what the Vulkan device does with the frame (default storage: the "
		  "shaders)" },
	{ .name = "check",
	  .short_name = 'c',
	  .type = CLI_UINT,
	  .value = &args.check,
	  .meta = "N",
	  .min = 1,
	  .max = LLMEM_FRAMES_MAX,
	  .help = "allocate N frames of the result and try each on every participant: "
		  "S_FMT and QBUF, ADDFB2, a Vulkan import" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print the result (or the refusal) only"),
	{ 0 },
};

static int fail(const char *who, int err)
{
	fprintf(stderr, "llmem negotiate: %s: %s\n", who, llmem_last_error());
	return err;
}

/*
 * One participant from its name: /dev/videoN[:capture|:output],
 * /dev/dri/cardN[:PLANE], vulkan, cpu or contiguous.
 */
static int participant(const char *spec, struct llmem_session **session,
		       struct llmem_participant *p)
{
	char path[256];
	const char *colon = strchr(spec, ':');
	const char *part = colon ? colon + 1 : "";
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	int ret;

	if (len >= sizeof(path)) {
		fprintf(stderr, "llmem negotiate: %s: too long\n", spec);
		return -EINVAL;
	}
	memcpy(path, spec, len);
	path[len] = '\0';
	if (!strcmp(spec, "cpu")) {
		llmem_participant_cpu(p);
		return 0;
	}
	if (!strcmp(spec, "contiguous"))
		return llmem_participant_llmem_contiguous(p);
	if (!strcmp(spec, "vulkan")) {
		struct llmem_session_create_info sci = { .app_name = "llmem negotiate" };

		if (!*session && (ret = llmem_session_create(&sci, session)))
			return fail("Vulkan session", ret);
		ret = llmem_participant_vulkan(*session, args.usage, p);
		return ret ? fail(spec, ret) : 0;
	}
	if (!strncmp(path, "/dev/video", 10)) {
		if (*part && strcmp(part, "capture") && strcmp(part, "output")) {
			fprintf(stderr, "llmem negotiate: %s: the queue is capture or output\n",
				spec);
			return -EINVAL;
		}
		ret = llmem_participant_v4l2(path, !strcmp(part, "output"), args.size[0],
					     args.size[1], p);
		return ret ? fail(spec, ret) : 0;
	}
	if (!strncmp(path, "/dev/dri/", 9)) {
		char *end;
		unsigned long plane = strtoul(part, &end, 10);

		if (*end || plane > UINT32_MAX) {
			fprintf(stderr, "llmem negotiate: %s: the plane is a number\n", spec);
			return -EINVAL;
		}
		ret = llmem_participant_kms_plane(path, (uint32_t)plane, p);
		return ret ? fail(spec, ret) : 0;
	}
	fprintf(stderr,
		"llmem negotiate: %s: not a participant: /dev/videoN[:capture|:output], "
		"/dev/dri/cardN[:PLANE], vulkan, cpu or contiguous\n",
		spec);
	return -EINVAL;
}

static const char *source_name(uint32_t source)
{
	switch (source) {
	case LLMEM_FACT_REPORTED:
		return "reported";
	case LLMEM_FACT_PROBED:
		return "probed";
	case LLMEM_FACT_ASSUMED:
		return "assumed";
	default:
		return "unknown";
	}
}

/* Where constraint @field came from. */
static const char *field_source(const struct llmem_constraints *c, uint32_t field)
{
	return c->probed & field ? "probed" : c->assumed & field ? "assumed" : "reported";
}

/* A constraint, where it is one, with where it came from. */
static void emit_constraint(struct emit *e, const struct llmem_constraints *c, const char *key,
			    uint64_t value, uint32_t field)
{
	if (!value)
		return;
	emit_object(e, key);
	emit_uint(e, "value", value);
	emit_string(e, "source", field_source(c, field));
	emit_end(e);
}

static void emit_participant(struct emit *e, const struct llmem_participant *p)
{
	const struct llmem_constraints *c = &p->constraints;

	emit_object(e, NULL);
	emit_string(e, "name", p->name);
	emit_array(e, "formats");
	for (uint32_t i = 0; i < p->num_formats; i++) {
		emit_object(e, NULL);
		emit_fourcc(e, "fourcc", p->formats[i].fourcc);
		emit_string(e, "source", source_name(p->formats[i].source));
		emit_constraint(e, c, "pitch", p->formats[i].pitch, LLMEM_C_PITCH);
		emit_constraint(e, c, "min_size", p->formats[i].min_size, LLMEM_C_MIN_SIZE);
		emit_constraint(e, c, "coded_width", p->formats[i].coded_width, LLMEM_C_CODED_SIZE);
		emit_constraint(e, c, "coded_height", p->formats[i].coded_height,
				LLMEM_C_CODED_SIZE);
		emit_constraint(e, c, "column_alignment", p->formats[i].column_alignment,
				LLMEM_C_COLUMN_ALIGNMENT);
		emit_constraint(e, c, "row_alignment", p->formats[i].row_alignment,
				LLMEM_C_ROW_ALIGNMENT);
		if (p->formats[i].flags & LLMEM_CONSTRAINT_NO_CROP_HEIGHT)
			emit_bool(e, "no_crop_height", true);
		emit_array(e, "modifiers");
		for (uint32_t k = 0; k < p->formats[i].num_modifiers; k++)
			emit_uint(e, NULL, p->formats[i].modifiers[k]);
		emit_end(e);
		emit_end(e);
	}
	emit_end(e);
	emit_object(e, "constraints");
	emit_constraint(e, c, "pitch_alignment", c->pitch_alignment, LLMEM_C_PITCH_ALIGNMENT);
	emit_constraint(e, c, "pitch", c->pitch, LLMEM_C_PITCH);
	emit_constraint(e, c, "plane_alignment", c->plane_alignment, LLMEM_C_PLANE_ALIGNMENT);
	emit_constraint(e, c, "size_alignment", c->size_alignment, LLMEM_C_SIZE_ALIGNMENT);
	emit_constraint(e, c, "min_size", c->min_size, LLMEM_C_MIN_SIZE);
	emit_constraint(e, c, "max_size", c->max_size, LLMEM_C_MAX_SIZE);
	emit_constraint(e, c, "max_width", c->max_width, LLMEM_C_WIDTH);
	emit_constraint(e, c, "max_height", c->max_height, LLMEM_C_HEIGHT);
	emit_constraint(e, c, "max_pitch", c->max_pitch, LLMEM_C_MAX_PITCH);
	emit_constraint(e, c, "min_buffers", c->min_buffers, LLMEM_C_BUFFERS);
	emit_constraint(e, c, "column_alignment", c->column_alignment, LLMEM_C_COLUMN_ALIGNMENT);
	emit_constraint(e, c, "row_alignment", c->row_alignment, LLMEM_C_ROW_ALIGNMENT);
	emit_bool(e, "contiguous", c->flags & LLMEM_CONSTRAINT_CONTIGUOUS);
	emit_bool(e, "plane_per_fd", c->flags & LLMEM_CONSTRAINT_PLANE_PER_FD);
	emit_bool(e, "no_crop_width", c->flags & LLMEM_CONSTRAINT_NO_CROP_WIDTH);
	emit_bool(e, "no_crop_height", c->flags & LLMEM_CONSTRAINT_NO_CROP_HEIGHT);
	emit_end(e);
	emit_end(e);
}

static void emit_result(struct emit *e, const struct llmem_negotiated *n)
{
	const struct llmem_frame_layout *l = &n->layout;

	emit_object(e, "result");
	emit_fourcc(e, "fourcc", l->fourcc);
	emit_uint(e, "modifier", l->modifier);
	emit_uint(e, "width", l->width);
	emit_uint(e, "height", l->height);
	emit_uint(e, "coded_width", l->coded_width);
	emit_uint(e, "coded_height", l->coded_height);
	emit_array(e, "planes");
	for (uint32_t p = 0; p < l->num_planes; p++) {
		emit_object(e, NULL);
		emit_uint(e, "offset", l->offset[p]);
		emit_uint(e, "pitch", l->pitch[p]);
		emit_uint(e, "padding_right", n->padding[p].right);
		emit_uint(e, "padding_bottom", n->padding[p].bottom);
		emit_end(e);
	}
	emit_end(e);
	emit_uint(e, "size", l->size);
	emit_bool(e, "contiguous", n->flags & LLMEM_CONSTRAINT_CONTIGUOUS);
	emit_bool(e, "plane_per_fd", n->flags & LLMEM_CONSTRAINT_PLANE_PER_FD);
	emit_uint(e, "min_buffers", n->min_buffers);
	emit_end(e);
}

/*
 * --check: frames of the result, tried on every participant that can be
 * asked; "accepted" with their count, or the refusal.  The session is the
 * Vulkan participant's, or one of its own.
 */
static int check_frames(struct emit *e, struct llmem_session **session,
			const struct llmem_participant *ps, uint32_t n,
			const struct llmem_negotiated *result)
{
	struct llmem_session_create_info sci = { .app_name = "llmem negotiate" };
	struct llmem_frames_create_info fci = {
		.negotiated = result,
		.participants = ps,
		.num_participants = n,
		.count = (uint32_t)args.check,
		.flags = LLMEM_FRAMES_CHECK,
		.name = "llmem negotiate frame",
	};
	struct llmem_frames *frames = NULL;
	int ret = 0;

	if (!*session)
		ret = llmem_session_create(&sci, session);
	if (!ret)
		ret = llmem_frames_create(*session, &fci, &frames);
	emit_object(e, "check");
	if (!ret)
		emit_uint(e, "accepted", llmem_frames_count(frames));
	else
		emit_string(e, "refused", llmem_last_error());
	emit_end(e);
	llmem_frames_destroy(frames);
	return ret;
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_negotiate_request req = { 0 };
	struct llmem_participant *ps = NULL;
	struct llmem_session *session = NULL;
	struct llmem_negotiated result;
	uint32_t n = 0;
	struct emit e;
	int first, ret;

	first = cli_parse(cmd, argc, argv);
	if (first <= 0)
		return -first;
	if (first == argc)
		return cli_fail(cmd, CLI_USAGE, "name the participants: PARTICIPANT...");
	ps = calloc((size_t)(argc - first), sizeof(*ps));
	if (!ps)
		return cli_fail(cmd, CLI_FAILED, "out of memory");
	for (ret = 0; !ret && first + (int)n < argc; n++)
		ret = participant(argv[first + n], &session, &ps[n]);
	/* A participant that could not be asked has said why: nothing to print. */
	if (ret) {
		free(ps);
		llmem_session_destroy(session);
		return CLI_FAILED;
	}
	req = (struct llmem_negotiate_request){ .width = args.size[0],
						.height = args.size[1],
						.fourccs = args.format_given ? &args.format : NULL,
						.num_fourccs = args.format_given };
	/* Every answer of the merge is printed, a refusal with its reason. */
	ret = llmem_negotiate(ps, n, &req, &result);
	emit_begin(&e, stdout, args.json);
	if (!args.quiet) {
		emit_array(&e, "participants");
		for (uint32_t i = 0; i < n; i++)
			emit_participant(&e, &ps[i]);
		emit_end(&e);
	}
	if (!ret)
		emit_result(&e, &result);
	else
		emit_string(&e, "refused", llmem_last_error());
	if (!ret && args.check)
		ret = check_frames(&e, &session, ps, n, &result);
	emit_finish(&e);
	free(ps);
	llmem_session_destroy(session);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_negotiate = {
	.name = "negotiate",
	.summary = "one frame layout every named device accepts, or who refuses what",
	.description =
		"Asks each participant what it accepts: a V4L2 queue\n"
		"(/dev/videoN[:capture|:output]), a KMS plane (/dev/dri/cardN[:PLANE], the\n"
		"first primary plane without one), the Vulkan device (vulkan, for --usage),\n"
		"the CPU (cpu) or llmem.ko's contiguous pages (contiguous), and prints\n"
		"their formats and constraints, each marked reported by the driver, probed\n"
		"by a trial that changes nothing, or assumed; then the layout all of them\n"
		"accept (fourcc, modifier, the picture's size and the coded size it is\n"
		"padded to, planes with their padding, size), or the refusal that names\n"
		"the participant and the constraint.  With --check, frames of that layout are\n"
		"allocated in llmem pages and tried on each device as it will use them.\n"
		"Exit status 1 on a refusal.",
	.operands = "PARTICIPANT...",
	.max_operands = LLMEM_NEGOTIATE_MAX_PARTICIPANTS,
	.options = options,
	.run = run,
};
