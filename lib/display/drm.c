// SPDX-License-Identifier: MIT
/*
 * DRM devices as llmem sees them: the cards under /dev/dri, what each can do
 * (modesetting, PRIME, atomic commits, modifiers, writeback), their planes
 * and the formats those scan out; and the helpers the display's files share
 * to read properties and name errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/display.h>

#include "base/error.h"
#include "display/display.h"

int llmem_drm_open(const char *path, int *fd)
{
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return llmem_error(-errno, "open %s: %s", path, strerror(errno));
	return 0;
}

int llmem_drm_error(int err, const char *path, const char *driver, const char *call)
{
	return llmem_error(err, "%s on %s (%s): %s", call, path, driver[0] ? driver : "?",
			   strerror(-err));
}

int llmem_display_error(const struct llmem_display *d, int err, const char *call)
{
	return llmem_drm_error(err, d->info.device, d->info.driver, call);
}

const char *llmem_drm_format_name(uint32_t fourcc, char *buf, size_t len)
{
	char *name = drmGetFormatName(fourcc);

	if (name && strcmp(name, "UNKNOWN"))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "0x%08x", fourcc);
	free(name);
	return buf;
}

static uint32_t prime_caps(int fd)
{
	uint64_t prime = 0;
	uint32_t caps = 0;

	if (drmGetCap(fd, DRM_CAP_PRIME, &prime))
		return 0;
	if (prime & DRM_PRIME_CAP_IMPORT)
		caps |= LLMEM_DRM_PRIME_IMPORT;
	if (prime & DRM_PRIME_CAP_EXPORT)
		caps |= LLMEM_DRM_PRIME_EXPORT;
	return caps;
}

void llmem_drm_probe(int fd, struct llmem_drm_device *dev)
{
	drmVersionPtr v = drmGetVersion(fd);
	uint64_t modifiers = 0;
	drmModePlaneResPtr planes;
	drmModeResPtr res;

	uint64_t value = 0;

	if (v) {
		snprintf(dev->driver, sizeof(dev->driver), "%s", v->name);
		snprintf(dev->description, sizeof(dev->description), "%s", v->desc ? v->desc : "");
		drmFreeVersion(v);
	}
	dev->caps = prime_caps(fd);
	if (!drmGetCap(fd, DRM_CAP_DUMB_BUFFER, &value) && value)
		dev->caps |= LLMEM_DRM_DUMB_BUFFERS;
	if (!drmGetCap(fd, DRM_CAP_SYNCOBJ, &value) && value)
		dev->caps |= LLMEM_DRM_SYNCOBJ;
	if (!drmIsKMS(fd))
		return;
	dev->caps |= LLMEM_DRM_KMS;
	if (!drmGetCap(fd, DRM_CAP_ADDFB2_MODIFIERS, &modifiers) && modifiers)
		dev->caps |= LLMEM_DRM_ADDFB2_MODIFIERS;
	drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	if (!drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1)) {
		dev->caps |= LLMEM_DRM_ATOMIC;
		/* Writeback connectors show only to a client that asks. */
		drmSetClientCap(fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1);
	}
	res = drmModeGetResources(fd);
	if (res) {
		dev->crtcs = (uint32_t)res->count_crtcs;
		for (int i = 0; i < res->count_connectors; i++) {
			drmModeConnectorPtr c = drmModeGetConnector(fd, res->connectors[i]);

			if (!c)
				continue;
			if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
				dev->writeback_connectors++;
			else
				dev->connectors++;
			drmModeFreeConnector(c);
		}
		drmModeFreeResources(res);
	}
	if (dev->writeback_connectors)
		dev->caps |= LLMEM_DRM_WRITEBACK;
	planes = drmModeGetPlaneResources(fd);
	if (planes) {
		dev->planes = planes->count_planes;
		drmModeFreePlaneResources(planes);
	}
}

LLMEM_PUBLIC int llmem_drm_get_device(const char *path, struct llmem_drm_device *dev)
{
	int fd, ret;

	if (!path || !dev)
		return llmem_error(-EINVAL, "llmem_drm_get_device: NULL %s",
				   path ? "device" : "path");
	*dev = (struct llmem_drm_device){ 0 };
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	ret = llmem_drm_open(path, &fd);
	if (ret) {
		dev->error = ret;
		return ret;
	}
	llmem_drm_probe(fd, dev);
	close(fd);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The N of every /dev/dri/<@prefix>N, sorted, in a malloc'ed *@out. */
static int node_numbers(const char *prefix, uint32_t **out, uint32_t *count)
{
	DIR *dri = opendir("/dev/dri");
	uint32_t *nums = NULL, n = 0, cap = 0;
	size_t len = strlen(prefix);
	struct dirent *e;

	*out = NULL;
	*count = 0;
	if (!dri)
		return errno == ENOENT ? 0
				       : llmem_error(-errno, "open /dev/dri: %s", strerror(errno));
	while ((e = readdir(dri))) {
		unsigned int num;
		char end;

		if (strncmp(e->d_name, prefix, len) || e->d_name[len] < '0' ||
		    e->d_name[len] > '9' || sscanf(e->d_name + len, "%u%c", &num, &end) != 1)
			continue;
		if (n == cap) {
			uint32_t *grown = realloc(nums, (cap = cap ? cap * 2 : 8) * sizeof(*nums));

			if (!grown) {
				free(nums);
				closedir(dri);
				return llmem_error(-ENOMEM, "DRM devices: out of memory");
			}
			nums = grown;
		}
		nums[n++] = num;
	}
	closedir(dri);
	qsort(nums, n, sizeof(*nums), cmp_u32);
	*out = nums;
	*count = n;
	return 0;
}

/* The nodes /dev/dri/<@prefix>N, probed into @devices up to @capacity. */
static int list_nodes(const char *caller, const char *prefix, struct llmem_drm_device *devices,
		      uint32_t capacity)
{
	uint32_t *nums, n;
	int ret;

	if (!devices && capacity)
		return llmem_error(-EINVAL, "%s: NULL devices", caller);
	ret = node_numbers(prefix, &nums, &n);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < n && i < capacity; i++) {
		char path[LLMEM_DRM_PATH_LEN];
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/%s%u", prefix, nums[i]);
		devices[i] = (struct llmem_drm_device){ 0 };
		snprintf(devices[i].path, sizeof(devices[i].path), "%s", path);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			devices[i].error = -errno;
			continue;
		}
		llmem_drm_probe(fd, &devices[i]);
		close(fd);
	}
	free(nums);
	return (int)n;
}

LLMEM_PUBLIC int llmem_drm_list_devices(struct llmem_drm_device *devices, uint32_t capacity)
{
	return list_nodes("llmem_drm_list_devices", "card", devices, capacity);
}

LLMEM_PUBLIC int llmem_drm_list_render_nodes(struct llmem_drm_device *devices, uint32_t capacity)
{
	return list_nodes("llmem_drm_list_render_nodes", "renderD", devices, capacity);
}

int llmem_drm_object_props(int fd, uint32_t obj, uint32_t type, const char *const *names,
			   uint32_t count, uint32_t *ids, uint64_t *values, const char **missing)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, obj, type);

	if (!props)
		return -errno;
	for (uint32_t n = 0; n < count; n++)
		ids[n] = 0;
	for (uint32_t i = 0; i < props->count_props; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		if (!p)
			continue;
		for (uint32_t n = 0; n < count; n++)
			if (!strcmp(p->name, names[n])) {
				ids[n] = p->prop_id;
				if (values)
					values[n] = props->prop_values[i];
			}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	for (uint32_t n = 0; n < count; n++)
		if (!ids[n]) {
			if (missing)
				*missing = names[n];
			return -ENOENT;
		}
	return 0;
}

static int add_format(struct llmem_drm_format **list, uint32_t *count, uint32_t *cap,
		      uint32_t fourcc, uint64_t modifier)
{
	if (*count == *cap) {
		uint32_t grown_cap = *cap ? *cap * 2 : 16;
		struct llmem_drm_format *grown = realloc(*list, grown_cap * sizeof(**list));

		if (!grown)
			return llmem_error(-ENOMEM, "plane formats: out of memory");
		*list = grown;
		*cap = grown_cap;
	}
	(*list)[(*count)++] = (struct llmem_drm_format){ .fourcc = fourcc, .modifier = modifier };
	return 0;
}

int llmem_drm_read_plane_formats(int fd, uint32_t plane_id, struct llmem_drm_format **out,
				 uint32_t *count)
{
	static const char *const in_formats[] = { "IN_FORMATS" };
	drmModePropertyBlobPtr blob = NULL;
	uint32_t prop, cap = 0;
	uint64_t blob_id = 0;
	drmModePlanePtr plane;
	int ret = 0;

	*out = NULL;
	*count = 0;
	plane = drmModeGetPlane(fd, plane_id);
	if (!plane)
		return errno == ENOENT || errno == EINVAL ? -ENOENT : -errno;
	if (!llmem_drm_object_props(fd, plane_id, DRM_MODE_OBJECT_PLANE, in_formats, 1, &prop,
				    &blob_id, NULL) &&
	    blob_id)
		blob = drmModeGetPropertyBlob(fd, (uint32_t)blob_id);
	if (blob) {
		drmModeFormatModifierIterator it = { 0 };

		while (!ret && drmModeFormatModifierBlobIterNext(blob, &it))
			ret = add_format(out, count, &cap, it.fmt, it.mod);
		drmModeFreePropertyBlob(blob);
	} else {
		for (uint32_t i = 0; !ret && i < plane->count_formats; i++)
			ret = add_format(out, count, &cap, plane->formats[i],
					 DRM_FORMAT_MOD_LINEAR);
	}
	drmModeFreePlane(plane);
	if (ret) {
		free(*out);
		*out = NULL;
		*count = 0;
	}
	return ret;
}

int llmem_drm_open_kms(const char *path, int *fd, char *driver, size_t len)
{
	drmVersionPtr v;
	int ret;

	ret = llmem_drm_open(path, fd);
	if (ret)
		return ret;
	v = drmGetVersion(*fd);
	snprintf(driver, len, "%s", v ? v->name : "");
	drmFreeVersion(v);
	if (!drmIsKMS(*fd)) {
		close(*fd);
		return llmem_error(-ENODEV, "%s (%s) is not a KMS device: it has no CRTCs", path,
				   driver);
	}
	drmSetClientCap(*fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1);
	return 0;
}

uint32_t llmem_drm_plane_type(int fd, uint32_t plane_id)
{
	static const char *const type[] = { "type" };
	uint64_t value = LLMEM_DRM_PLANE_OVERLAY;
	uint32_t prop;

	llmem_drm_object_props(fd, plane_id, DRM_MODE_OBJECT_PLANE, type, 1, &prop, &value, NULL);
	return (uint32_t)value;
}

LLMEM_PUBLIC int llmem_drm_list_planes(const char *path, struct llmem_drm_plane *planes,
				       uint32_t capacity)
{
	char driver[LLMEM_DRM_NAME_LEN];
	drmModePlaneResPtr res;
	int fd, ret;

	if (!path || (!planes && capacity))
		return llmem_error(-EINVAL, "llmem_drm_list_planes: NULL %s",
				   path ? "planes" : "path");
	ret = llmem_drm_open_kms(path, &fd, driver, sizeof(driver));
	if (ret)
		return ret;
	res = drmModeGetPlaneResources(fd);
	if (!res) {
		ret = llmem_drm_error(-errno, path, driver, "drmModeGetPlaneResources");
		close(fd);
		return ret;
	}
	for (uint32_t i = 0; i < res->count_planes && i < capacity; i++) {
		drmModePlanePtr p = drmModeGetPlane(fd, res->planes[i]);
		struct llmem_drm_format *formats;
		uint32_t count = 0;

		planes[i] = (struct llmem_drm_plane){ .id = res->planes[i] };
		if (p) {
			planes[i].possible_crtcs = p->possible_crtcs;
			planes[i].crtc_id = p->crtc_id;
			planes[i].fb_id = p->fb_id;
			drmModeFreePlane(p);
		}
		planes[i].type = llmem_drm_plane_type(fd, res->planes[i]);
		if (!llmem_drm_read_plane_formats(fd, res->planes[i], &formats, &count))
			free(formats);
		planes[i].format_count = count;
	}
	ret = (int)res->count_planes;
	drmModeFreePlaneResources(res);
	close(fd);
	return ret;
}

LLMEM_PUBLIC int llmem_drm_plane_formats(const char *path, uint32_t plane_id,
					 struct llmem_drm_format *formats, uint32_t capacity)
{
	char driver[LLMEM_DRM_NAME_LEN];
	struct llmem_drm_format *all;
	uint32_t count;
	int fd, ret;

	if (!path || (!formats && capacity))
		return llmem_error(-EINVAL, "llmem_drm_plane_formats: NULL %s",
				   path ? "formats" : "path");
	ret = llmem_drm_open_kms(path, &fd, driver, sizeof(driver));
	if (ret)
		return ret;
	ret = llmem_drm_read_plane_formats(fd, plane_id, &all, &count);
	close(fd);
	if (ret == -ENOENT)
		return llmem_error(-ENOENT, "%s (%s) has no plane %u", path, driver, plane_id);
	if (ret)
		return llmem_drm_error(ret, path, driver, "drmModeGetPlane");
	if (capacity)
		memcpy(formats, all, (count < capacity ? count : capacity) * sizeof(*all));
	free(all);
	return (int)count;
}
