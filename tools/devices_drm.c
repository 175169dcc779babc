// SPDX-License-Identifier: MIT
/*
 * DRM nodes as the library probes them (llmem_drm_list_devices(),
 * llmem_drm_list_render_nodes()): the driver behind each, whether it
 * shares buffers through PRIME, and, on cards, what it can display: its
 * planes, the formats each scans out and the modifiers it takes them with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include <llmem/display.h>
#include <llmem/error.h>

#include "devices.h"

#define MAX_PLANES 64
#define MAX_FORMATS 512

static const char *plane_type(uint32_t type)
{
	return type == LLMEM_DRM_PLANE_PRIMARY	? "primary"
	       : type == LLMEM_DRM_PLANE_CURSOR ? "cursor"
						: "overlay";
}

/* A fourcc's or a modifier's name as libdrm spells it, or its number. */
static void emit_name(struct emit *e, char *name, uint64_t value)
{
	char hex[24];

	if (name && strcmp(name, "UNKNOWN")) {
		emit_string(e, NULL, name);
	} else {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)value);
		emit_string(e, NULL, hex);
	}
	free(name);
}

/*
 * One plane: its fourccs, and the modifiers it takes them with, each
 * listed once; a display needs a frame whose pair is among them.
 */
static void describe_plane(struct emit *e, const char *path, const struct llmem_drm_plane *p)
{
	static struct llmem_drm_format f[MAX_FORMATS];
	int n = llmem_drm_plane_formats(path, p->id, f, MAX_FORMATS);

	emit_object(e, NULL);
	emit_uint(e, "id", p->id);
	emit_string(e, "type", plane_type(p->type));
	if (n < 0) {
		emit_string(e, "error", llmem_last_error());
		emit_end(e);
		return;
	}
	if (n > MAX_FORMATS)
		n = MAX_FORMATS;
	emit_array(e, "formats");
	for (int i = 0; i < n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = f[j].fourcc == f[i].fourcc;
		if (!seen)
			emit_name(e, drmGetFormatName(f[i].fourcc), f[i].fourcc);
	}
	emit_end(e);
	emit_array(e, "modifiers");
	for (int i = 0; i < n; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = f[j].modifier == f[i].modifier;
		if (!seen)
			emit_name(e, drmGetFormatModifierName(f[i].modifier), f[i].modifier);
	}
	emit_end(e);
	emit_end(e);
}

static void describe_planes(struct emit *e, const char *path)
{
	struct llmem_drm_plane planes[MAX_PLANES];
	int n = llmem_drm_list_planes(path, planes, MAX_PLANES);

	if (n < 0) {
		emit_string(e, "planes_error", llmem_last_error());
		return;
	}
	emit_array(e, "planes");
	for (int i = 0; i < n && i < MAX_PLANES; i++)
		describe_plane(e, path, &planes[i]);
	emit_end(e);
}

static void describe_node(struct emit *e, const struct llmem_drm_device *dev, bool primary)
{
	emit_object(e, NULL);
	emit_string(e, "path", dev->path);
	emit_string(e, "kind", primary ? "primary" : "render");
	if (dev->error) {
		emit_string(e, "error", strerror(-dev->error));
		emit_end(e);
		return;
	}
	emit_string(e, "driver", dev->driver);
	emit_string(e, "description", dev->description);
	emit_bool(e, "prime_import", dev->caps & LLMEM_DRM_PRIME_IMPORT);
	emit_bool(e, "prime_export", dev->caps & LLMEM_DRM_PRIME_EXPORT);
	emit_bool(e, "dumb_buffers", dev->caps & LLMEM_DRM_DUMB_BUFFERS);
	emit_bool(e, "syncobj", dev->caps & LLMEM_DRM_SYNCOBJ);
	if (primary) {
		emit_bool(e, "modeset", dev->caps & LLMEM_DRM_KMS);
		if (dev->caps & LLMEM_DRM_KMS) {
			emit_uint(e, "crtcs", dev->crtcs);
			emit_uint(e, "connectors", dev->connectors);
			emit_bool(e, "atomic", dev->caps & LLMEM_DRM_ATOMIC);
			emit_uint(e, "writeback_connectors", dev->writeback_connectors);
			describe_planes(e, dev->path);
		}
	}
	emit_end(e);
}

/* The nodes one lister finds, each probed once. */
static void describe_nodes(struct emit *e, int (*list)(struct llmem_drm_device *, uint32_t),
			   bool primary)
{
	int capacity = list(NULL, 0), n = 0;
	struct llmem_drm_device *devs =
		capacity > 0 ? calloc((size_t)capacity, sizeof(*devs)) : NULL;

	if (devs)
		n = list(devs, (uint32_t)capacity);
	/* A node made between the two calls waits for the next listing. */
	for (int i = 0; i < n && i < capacity; i++)
		describe_node(e, &devs[i], primary);
	free(devs);
}

void devices_drm(struct emit *e)
{
	emit_array(e, "drm");
	describe_nodes(e, llmem_drm_list_devices, true);
	describe_nodes(e, llmem_drm_list_render_nodes, false);
	emit_end(e);
}
