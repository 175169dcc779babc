// SPDX-License-Identifier: MIT
/*
 * DRM nodes: the driver behind each, whether it shares buffers through
 * PRIME, and, on primary nodes, what it can display: its planes, the
 * formats each scans out and the modifiers it takes them with.  Writeback connectors
 * are counted by asking for the resources twice, the second time as a
 * client that opted in to seeing them, since no ioctl counts them alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/drm_mode.h>
#include <xf86drm.h>

#include <llmem/display.h>
#include <llmem/error.h>

#include "devices.h"

#define MAX_DRM_NODES 64
#define MAX_PLANES 64
#define MAX_FORMATS 512

static bool get_cap(int fd, uint64_t cap, uint64_t *value)
{
	struct drm_get_cap get = { .capability = cap };

	if (ioctl(fd, DRM_IOCTL_GET_CAP, &get) == -1)
		return false;
	*value = get.value;
	return true;
}

static bool get_resources(int fd, struct drm_mode_card_res *res)
{
	*res = (struct drm_mode_card_res){ 0 };
	return ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, res) == 0;
}

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

static void describe_display(struct emit *e, int fd, const char *path)
{
	struct drm_set_client_cap atomic = { .capability = DRM_CLIENT_CAP_ATOMIC, .value = 1 };
	struct drm_set_client_cap writeback = {
		.capability = DRM_CLIENT_CAP_WRITEBACK_CONNECTORS,
		.value = 1,
	};
	struct drm_mode_card_res res, all;
	bool is_atomic;

	if (!get_resources(fd, &res)) {
		emit_bool(e, "modeset", false);
		return;
	}
	emit_bool(e, "modeset", true);
	emit_uint(e, "crtcs", res.count_crtcs);
	emit_uint(e, "connectors", res.count_connectors);
	is_atomic = ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP, &atomic) == 0;
	emit_bool(e, "atomic", is_atomic);
	if (is_atomic && ioctl(fd, DRM_IOCTL_SET_CLIENT_CAP, &writeback) == 0 &&
	    get_resources(fd, &all) && all.count_connectors >= res.count_connectors)
		emit_uint(e, "writeback_connectors", all.count_connectors - res.count_connectors);
	else
		emit_uint(e, "writeback_connectors", 0);
	describe_planes(e, path);
}

static void describe_node(struct emit *e, const char *path, bool primary)
{
	char name[64] = "", desc[128] = "";
	struct drm_version version = {
		.name_len = sizeof(name) - 1,
		.name = name,
		.desc_len = sizeof(desc) - 1,
		.desc = desc,
	};
	uint64_t prime = 0, dumb = 0, syncobj = 0;
	int fd;

	emit_object(e, NULL);
	emit_string(e, "path", path);
	emit_string(e, "kind", primary ? "primary" : "render");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, DRM_IOCTL_VERSION, &version) == -1) {
		emit_string(e, "error", strerror(errno));
		if (fd >= 0)
			close(fd);
		emit_end(e);
		return;
	}
	emit_string(e, "driver", name);
	emit_string(e, "description", desc);
	get_cap(fd, DRM_CAP_PRIME, &prime);
	emit_bool(e, "prime_import", prime & DRM_PRIME_CAP_IMPORT);
	emit_bool(e, "prime_export", prime & DRM_PRIME_CAP_EXPORT);
	emit_bool(e, "dumb_buffers", get_cap(fd, DRM_CAP_DUMB_BUFFER, &dumb) && dumb);
	emit_bool(e, "syncobj", get_cap(fd, DRM_CAP_SYNCOBJ, &syncobj) && syncobj);
	if (primary)
		describe_display(e, fd, path);
	close(fd);
	emit_end(e);
}

/* card0 < card1 < renderD128 < renderD129. */
static int by_kind_and_number(const struct dirent **a, const struct dirent **b)
{
	bool ca = (*a)->d_name[0] == 'c', cb = (*b)->d_name[0] == 'c';
	const char *na = (*a)->d_name + (ca ? 4 : 7), *nb = (*b)->d_name + (cb ? 4 : 7);

	if (ca != cb)
		return ca ? -1 : 1;
	return atoi(na) - atoi(nb);
}

static int is_drm_node(const struct dirent *d)
{
	return (!strncmp(d->d_name, "card", 4) && d->d_name[4] >= '0' && d->d_name[4] <= '9') ||
	       (!strncmp(d->d_name, "renderD", 7) && d->d_name[7] >= '0' && d->d_name[7] <= '9');
}

void devices_drm(struct emit *e)
{
	struct dirent **nodes;
	int count = scandir("/dev/dri", &nodes, is_drm_node, by_kind_and_number);

	emit_array(e, "drm");
	for (int i = 0; i < count; i++) {
		char path[300];

		if (i < MAX_DRM_NODES) {
			snprintf(path, sizeof(path), "/dev/dri/%s", nodes[i]->d_name);
			describe_node(e, path, nodes[i]->d_name[0] == 'c');
		}
		free(nodes[i]);
	}
	if (count >= 0)
		free(nodes);
	emit_end(e);
}
