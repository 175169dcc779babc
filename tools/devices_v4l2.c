// SPDX-License-Identifier: MIT
/*
 * V4L2 nodes as llmem_v4l2_list_nodes() describes them: what each is for,
 * and for each of its queues the pixel formats it takes and the memory it
 * can stream from; a queue busy streaming for another process is shown
 * with its EBUSY.
 */
#include <stdio.h>
#include <string.h>

#include <llmem/llmem.h>

#include "devices.h"

static const struct {
	uint32_t bit;
	const char *name;
} memory_caps[] = {
	{ LLMEM_V4L2_MEMCAP_MMAP, "mmap" },
	{ LLMEM_V4L2_MEMCAP_USERPTR, "userptr" },
	{ LLMEM_V4L2_MEMCAP_DMABUF, "dmabuf" },
	{ LLMEM_V4L2_MEMCAP_REQUESTS, "requests" },
};

static const char *const roles[] = {
	[LLMEM_V4L2_ROLE_OTHER] = "other",	 [LLMEM_V4L2_ROLE_CAPTURE] = "capture",
	[LLMEM_V4L2_ROLE_OUTPUT] = "output",	 [LLMEM_V4L2_ROLE_M2M] = "m2m",
	[LLMEM_V4L2_ROLE_METADATA] = "metadata",
};

/* A fourcc as its four characters, "-BE" for the big-endian variants. */
static void fourcc_name(uint32_t fourcc, char name[8])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0x7f);

		name[i] = c >= ' ' && c <= '~' ? c : '?';
	}
	strcpy(name + 4, fourcc & (1u << 31) ? "-BE" : "");
	/* Short fourccs ("GREY" is full, "Y16 " is not) end in spaces. */
	for (int i = 3; i > 0 && name[i] == ' ' && !name[i + 1]; i--)
		name[i] = '\0';
}

static void describe_queue(struct emit *e, const struct llmem_v4l2_queue_info *q, bool streaming)
{
	emit_object(e, NULL);
	emit_string(e, "queue", q->output ? "output" : "capture");
	emit_bool(e, "multiplanar", q->multiplanar);
	emit_array(e, "formats");
	for (uint32_t i = 0; i < q->num_formats; i++) {
		char name[8];

		fourcc_name(q->formats[i].fourcc, name);
		emit_string(e, NULL, name);
	}
	emit_end(e);
	if (streaming && q->memory_error) {
		emit_string(e, "memory_error", strerror(-q->memory_error));
	} else if (streaming) {
		emit_array(e, "memory");
		for (size_t i = 0; i < sizeof(memory_caps) / sizeof(memory_caps[0]); i++)
			if (q->memory & memory_caps[i].bit)
				emit_string(e, NULL, memory_caps[i].name);
		emit_end(e);
	}
	emit_end(e);
}

static void describe_node(struct emit *e, const struct llmem_v4l2_node *node)
{
	emit_object(e, NULL);
	emit_string(e, "path", node->path);
	if (node->error) {
		emit_string(e, "error", strerror(-node->error));
		emit_end(e);
		return;
	}
	emit_string(e, "driver", node->driver);
	emit_string(e, "card", node->card);
	emit_string(e, "bus", node->bus);
	emit_string(e, "role", roles[node->role]);
	emit_bool(e, "streaming", node->streaming);
	emit_array(e, "queues");
	for (uint32_t q = 0; q < node->num_queues; q++)
		describe_queue(e, &node->queues[q], node->streaming);
	emit_end(e);
	emit_end(e);
}

void devices_v4l2(struct emit *e)
{
	struct llmem_v4l2_node_list *list = NULL;
	const char *camera = NULL;

	emit_array(e, "v4l2");
	if (llmem_v4l2_list_nodes(NULL, &list) == 0)
		for (uint32_t i = 0; i < list->count; i++)
			describe_node(e, &list->nodes[i]);
	emit_end(e);
	for (uint32_t i = 0; list && i < list->count && !camera; i++)
		if (llmem_v4l2_node_captures_dmabuf(&list->nodes[i]) == 1)
			camera = list->nodes[i].path;
	if (camera)
		emit_string(e, "default_camera", camera);
	else
		emit_null(e, "default_camera");
	llmem_v4l2_node_list_free(list);
}
