// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/error.h>
#include <llmem/kernel.h>
#include <llmem/transfer.h>

#include "mirror.h"

/* The shader's work group (shaders/mirror.comp). */
#define GROUP_X 16
#define GROUP_Y 8

static const uint32_t mirror_spv[] =
#include "mirror.spv.inc"
	;

enum {
	PUSH_OFFSET = 0,
	PUSH_PITCH = 2,
	PUSH_ROW_WORDS = 4,
	PUSH_ROWS = 6,
	PUSH_KIND = 8
};

/* Plane @i of @l as rows of words of @bytes_per_row, mirrored as @kind. */
static void plane(struct mirror *m, const struct llmem_frame_layout *l, uint32_t i,
		  uint32_t bytes_per_row, uint32_t rows, uint32_t kind)
{
	m->push[PUSH_OFFSET + i] = (uint32_t)l->offset[i];
	m->push[PUSH_PITCH + i] = l->pitch[i];
	m->push[PUSH_ROW_WORDS + i] = bytes_per_row / 4;
	m->push[PUSH_ROWS + i] = rows;
	m->push[PUSH_KIND + i] = kind;
}

int mirror_init(struct mirror *m, struct llmem_session *session, const struct llmem_frame_layout *l,
		const char *who)
{
	static const uint32_t bindings[] = { LLMEM_BINDING_STORAGE_BUFFER };
	struct llmem_kernel_create_info kci = {
		.spirv = mirror_spv,
		.spirv_size = sizeof(mirror_spv),
		.bindings = bindings,
		.binding_count = 1,
		.push_size = sizeof(m->push),
		.name = "mirror",
	};
	uint32_t pairs;
	int ret;

	memset(m, 0, sizeof(*m));
	if (l->fourcc == DRM_FORMAT_YUYV) {
		plane(m, l, 0, l->width * 2, l->height, 0);
	} else if (l->fourcc == DRM_FORMAT_NV12 && l->width % 4 == 0) {
		plane(m, l, 0, l->width, l->height, 1);
		plane(m, l, 1, l->width, l->height / 2, 2);
	} else {
		fprintf(stderr,
			"%s: the mirror takes YUYV, or NV12 of a width that is a multiple "
			"of 4, not %.4s %ux%u\n",
			who, (const char *)&l->fourcc, l->width, l->height);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < l->num_planes; i++)
		if ((l->offset[i] | l->pitch[i]) % 4) {
			fprintf(stderr, "%s: the mirror needs planes at word boundaries\n", who);
			return -EINVAL;
		}
	pairs = (m->push[PUSH_ROW_WORDS] + 1) / 2;
	m->groups[0] = (pairs + GROUP_X - 1) / GROUP_X;
	m->groups[1] = (l->height + GROUP_Y - 1) / GROUP_Y;
	m->groups[2] = l->num_planes;
	ret = llmem_kernel_create(session, &kci, &m->kernel);
	if (!ret)
		ret = llmem_queue_create(session, NULL, &m->queue);
	if (ret)
		fprintf(stderr, "%s: the mirror's kernel: %s\n", who, llmem_last_error());
	return ret;
}

int mirror_run(struct mirror *m, struct llmem_buffer *frame)
{
	struct llmem_kernel_arg arg = { .buffer = frame };
	struct llmem_dispatch d = {
		.args = &arg,
		.arg_count = 1,
		.push = m->push,
		.groups = { m->groups[0], m->groups[1], m->groups[2] },
	};

	return llmem_enqueue_dispatch(m->queue, m->kernel, &d, NULL, NULL);
}

void mirror_fini(struct mirror *m)
{
	llmem_queue_destroy(m->queue);
	llmem_kernel_destroy(m->kernel);
	memset(m, 0, sizeof(*m));
}
