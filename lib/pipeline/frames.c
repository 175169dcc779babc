// SPDX-License-Identifier: MIT
/*
 * Frames of a negotiated layout (pipeline.h): one llmem memory per buffer
 * of a frame (one, or one per plane), the frames' buffers sharing its pages
 * where the pages can be cut into ranges, each buffer exported as a DMA-BUF
 * that starts at its first byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/memory.h>
#include <llmem/pipeline.h>
#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"
#include "pipeline/frames_check.h"
#include "share/frame_pages.h"

/* Fewer and a queue would wait for its consumer on every frame. */
#define MIN_FRAMES 2

struct llmem_frames {
	struct llmem_session *session;
	uint32_t count;
	uint32_t num_fds;
	/* Frames per page: 1 where the pages cannot be cut into ranges. */
	uint32_t per_page;
	/* Where the planes lie in the frame's buffers. */
	struct llmem_frame_layout layout;
	/* Bytes of each buffer of a frame, whole 4096-byte pages. */
	uint64_t bytes[LLMEM_FRAME_MAX_PLANES];
	struct llmem_memory *memory[LLMEM_FRAME_MAX_PLANES];
	struct llmem_buffer *buffer[LLMEM_FRAMES_MAX][LLMEM_FRAME_MAX_PLANES];
	int fd[LLMEM_FRAMES_MAX][LLMEM_FRAME_MAX_PLANES];
};

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* The layout as llmem_negotiate() makes them: planes inside the frame. */
static int check_layout(const struct llmem_frame_layout *l)
{
	if (!l->num_planes || l->num_planes > LLMEM_FRAME_MAX_PLANES || !l->size || !l->width ||
	    !l->height || l->modifier)
		return llmem_error(-EINVAL,
				   "frames: a layout of %u planes, %ux%u, %llu bytes, modifier "
				   "%#llx is not a negotiated one",
				   l->num_planes, l->width, l->height, (unsigned long long)l->size,
				   (unsigned long long)l->modifier);
	for (uint32_t p = 0; p < l->num_planes; p++)
		if (!l->pitch[p] || l->offset[p] >= l->size ||
		    (p && l->offset[p] < l->offset[p - 1]))
			return llmem_error(-EINVAL, "frames: plane %u at %llu of %llu bytes", p,
					   (unsigned long long)l->offset[p],
					   (unsigned long long)l->size);
	return 0;
}

/* The frame's buffers: one holding every plane, or one per plane, each
 * plane then at offset 0 of its own. */
static void split_planes(struct llmem_frames *f, const struct llmem_negotiated *n)
{
	const struct llmem_frame_layout *l = &n->layout;

	f->layout = *l;
	f->num_fds = (n->flags & LLMEM_CONSTRAINT_PLANE_PER_FD) ? l->num_planes : 1;
	if (f->num_fds == 1) {
		f->bytes[0] = round_up(l->size, LLMEM_FRAME_PAGES_ALIGN);
		return;
	}
	for (uint32_t p = 0; p < l->num_planes; p++) {
		uint64_t end = p + 1 < l->num_planes ? l->offset[p + 1] : l->size;

		f->bytes[p] = round_up(end - l->offset[p], LLMEM_FRAME_PAGES_ALIGN);
		f->layout.offset[p] = 0;
	}
}

static int check_info(const struct llmem_frames_create_info *info)
{
	if (info->num_participants > LLMEM_NEGOTIATE_MAX_PARTICIPANTS ||
	    (info->num_participants && !info->participants))
		return llmem_error(-EINVAL, "frames: %u participants%s; at most %u",
				   info->num_participants, info->participants ? "" : " at NULL",
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	if (info->flags & ~(uint32_t)LLMEM_FRAMES_CHECK)
		return llmem_error(-EINVAL, "frames: unknown flags %#x",
				   info->flags & ~(uint32_t)LLMEM_FRAMES_CHECK);
	if (info->count > LLMEM_FRAMES_MAX)
		return llmem_error(-EINVAL, "frames: %u frames; at most %u", info->count,
				   LLMEM_FRAMES_MAX);
	return check_layout(&info->negotiated->layout);
}

static int make_buffer(struct llmem_frames *f, const char *name, uint32_t i, uint32_t p)
{
	char label[64];

	if (f->num_fds > 1)
		snprintf(label, sizeof(label), "%s %u plane %u", name, i, p);
	else
		snprintf(label, sizeof(label), "%s %u", name, i);
	return llmem_frame_pages_export(f->memory[p], f->per_page, f->bytes[p], label,
					&f->buffer[i][p], &f->fd[i][p]);
}

LLMEM_PUBLIC void llmem_frames_destroy(struct llmem_frames *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < LLMEM_FRAMES_MAX; i++) {
		for (uint32_t p = 0; p < LLMEM_FRAME_MAX_PLANES; p++) {
			if (f->fd[i][p] >= 0)
				close(f->fd[i][p]);
			llmem_buffer_destroy(f->buffer[i][p]);
		}
	}
	for (uint32_t p = 0; p < LLMEM_FRAME_MAX_PLANES; p++)
		llmem_memory_destroy(f->memory[p]);
	free(f);
}

static int make_frames(struct llmem_frames *f, const struct llmem_frames_create_info *info)
{
	const struct llmem_negotiated *n = info->negotiated;
	const char *name = info->name ? info->name : "frame";
	const char *names[LLMEM_FRAME_MAX_PLANES];
	struct llmem_frame_pages_info pages = {
		.bytes = f->bytes,
		.contiguous = n->flags & LLMEM_CONSTRAINT_CONTIGUOUS,
		.backend = info->backend,
		.names = names,
	};
	int ret;

	split_planes(f, n);
	f->count = info->count ? info->count : n->min_buffers;
	f->count = f->count < MIN_FRAMES ? MIN_FRAMES : f->count;
	f->count = f->count > LLMEM_FRAMES_MAX ? LLMEM_FRAMES_MAX : f->count;
	for (uint32_t p = 0; p < f->num_fds; p++)
		names[p] = name;
	pages.buffers = f->num_fds;
	pages.frames = f->count;
	ret = llmem_frame_pages_create(f->session, &pages, f->memory, &f->per_page, NULL);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < f->count; i++) {
		for (uint32_t p = 0; p < f->num_fds; p++) {
			ret = make_buffer(f, name, i, p);
			if (ret)
				return ret;
		}
	}
	return 0;
}

LLMEM_PUBLIC int llmem_frames_create(struct llmem_session *s,
				     const struct llmem_frames_create_info *info,
				     struct llmem_frames **out)
{
	struct llmem_frames *f;
	bool check = false;
	int ret;

	if (!s || !info || !info->negotiated || !out)
		return llmem_error(-EINVAL, "frames: NULL %s",
				   !s		       ? "session"
				   : !info	       ? "info"
				   : !info->negotiated ? "negotiated result"
						       : "out");
	*out = NULL;
	ret = check_info(info);
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f)
		return llmem_error(-ENOMEM, "frames: out of memory");
	memset(f->fd, -1, sizeof(f->fd));
	f->session = s;
#ifndef NDEBUG
	check = true;
#endif
	check |= info->flags & LLMEM_FRAMES_CHECK;
	ret = make_frames(f, info);
	if (!ret && check)
		ret = llmem_frames_check(f, info->participants, info->num_participants);
	if (ret) {
		llmem_frames_destroy(f);
		return ret;
	}
	*out = f;
	return 0;
}

LLMEM_PUBLIC uint32_t llmem_frames_count(const struct llmem_frames *f)
{
	return f ? f->count : 0;
}

LLMEM_PUBLIC int llmem_frames_get(const struct llmem_frames *f, uint32_t index,
				  struct llmem_negotiated_frame *out)
{
	if (!f || !out)
		return llmem_error(-EINVAL, "frames: NULL %s", f ? "out" : "frames");
	if (index >= f->count)
		return llmem_error(-EINVAL, "frames: frame %u of %u", index, f->count);
	memset(out, 0, sizeof(*out));
	out->layout = f->layout;
	out->num_fds = f->num_fds;
	for (uint32_t p = 0; p < f->num_fds; p++) {
		out->fd[p] = f->fd[index][p];
		out->size[p] = f->bytes[p];
		out->buffer[p] = f->buffer[index][p];
	}
	return 0;
}

LLMEM_PUBLIC int llmem_frames_check(const struct llmem_frames *f,
				    const struct llmem_participant *ps, uint32_t count)
{
	struct llmem_negotiated_frame frame;
	int ret;

	if (!f)
		return llmem_error(-EINVAL, "frames check: NULL frames");
	ret = llmem_participants_check_args(ps, count);
	for (uint32_t i = 0; !ret && i < count; i++) {
		for (uint32_t n = 0; !ret && n < f->count; n++) {
			ret = llmem_frames_get(f, n, &frame);
			if (!ret)
				ret = llmem_frame_check(f->session, &ps[i], &frame, n);
		}
	}
	return ret;
}
