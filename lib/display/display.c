// SPDX-License-Identifier: MIT
/*
 * The display object (llmem/display.h): the KMS device given or found, the
 * pipe chosen on it (a connector, a CRTC its encoders reach, the CRTC's
 * primary plane, the writeback connector where asked), the mode, and what
 * the display found on those objects, to put back when it closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/display.h>

#include "base/error.h"
#include "display/display.h"

#define FLAGS_MASK LLMEM_DISPLAY_WRITEBACK
/* Cards looked at when none is given. */
#define MAX_CARDS 16

static const char *const crtc_prop_names[LLMEM_CRTC_PROPS] = {
	[LLMEM_CRTC_ACTIVE] = "ACTIVE",
	[LLMEM_CRTC_MODE_ID] = "MODE_ID",
	[LLMEM_CRTC_OUT_FENCE_PTR] = "OUT_FENCE_PTR",
};

static const char *const plane_prop_names[LLMEM_PLANE_PROPS] = {
	[LLMEM_PLANE_FB_ID] = "FB_ID",
	[LLMEM_PLANE_CRTC_ID] = "CRTC_ID",
	[LLMEM_PLANE_SRC_X] = "SRC_X",
	[LLMEM_PLANE_SRC_Y] = "SRC_Y",
	[LLMEM_PLANE_SRC_W] = "SRC_W",
	[LLMEM_PLANE_SRC_H] = "SRC_H",
	[LLMEM_PLANE_CRTC_X] = "CRTC_X",
	[LLMEM_PLANE_CRTC_Y] = "CRTC_Y",
	[LLMEM_PLANE_CRTC_W] = "CRTC_W",
	[LLMEM_PLANE_CRTC_H] = "CRTC_H",
	[LLMEM_PLANE_IN_FENCE_FD] = "IN_FENCE_FD",
};

static const char *const writeback_prop_names[LLMEM_WRITEBACK_PROPS] = {
	[LLMEM_WRITEBACK_FB_ID] = "WRITEBACK_FB_ID",
	[LLMEM_WRITEBACK_OUT_FENCE_PTR] = "WRITEBACK_OUT_FENCE_PTR",
	[LLMEM_WRITEBACK_PIXEL_FORMATS] = "WRITEBACK_PIXEL_FORMATS",
};

/* What @dev lacks to be a display with @flags, or NULL; its errno in *@err. */
static const char *lacks(const struct llmem_drm_device *dev, uint32_t flags, int *err)
{
	*err = -ENOTSUP;
	if (!(dev->caps & LLMEM_DRM_KMS)) {
		*err = -ENODEV;
		return "modesetting: it is not a KMS device";
	}
	if (!(dev->caps & LLMEM_DRM_PRIME_IMPORT))
		return "DMA-BUF import (DRM_CAP_PRIME)";
	if (!(dev->caps & LLMEM_DRM_ATOMIC))
		return "atomic commits (DRM_CLIENT_CAP_ATOMIC)";
	if ((flags & LLMEM_DISPLAY_WRITEBACK) && !(dev->caps & LLMEM_DRM_WRITEBACK))
		return "a writeback connector";
	return NULL;
}

/* Opens @path as the display's device: an atomic client that sees every
 * plane and the writeback connectors. */
static int open_device(struct llmem_display *d, const char *path, uint32_t flags)
{
	struct llmem_drm_device dev = { 0 };
	const char *missing;
	int ret, err;

	snprintf(d->info.device, sizeof(d->info.device), "%s", path);
	ret = llmem_drm_open(path, &d->fd);
	if (ret)
		return ret;
	llmem_drm_probe(d->fd, &dev);
	snprintf(d->info.driver, sizeof(d->info.driver), "%s", dev.driver);
	d->info.caps = dev.caps;
	missing = lacks(&dev, flags, &err);
	if (missing)
		return llmem_error(err, "display: %s (%s) lacks %s", path, dev.driver, missing);
	return 0;
}

int llmem_display_find_card(uint32_t flags, char *path, size_t size)
{
	struct llmem_drm_device devs[MAX_CARDS];
	char why[512] = "";
	size_t at = 0;
	int n, err, ret = -ENODEV;

	n = llmem_drm_list_devices(devs, MAX_CARDS);
	if (n < 0)
		return n;
	for (int i = 0; i < n && i < MAX_CARDS; i++) {
		const char *missing = NULL;

		if (!devs[i].error) {
			missing = lacks(&devs[i], flags, &err);
			if (!missing) {
				snprintf(path, size, "%s", devs[i].path);
				return 0;
			}
		} else if (devs[i].error == -EMFILE || devs[i].error == -ENFILE ||
			   devs[i].error == -ENOMEM) {
			ret = devs[i].error;
		}
		if (at < sizeof(why))
			at += (size_t)snprintf(why + at, sizeof(why) - at, "%s%s (%s): %s",
					       at ? "; " : ": ", devs[i].path, devs[i].driver,
					       missing ? missing : strerror(-devs[i].error));
	}
	return llmem_error(ret,
			   "display: no DRM card does modesetting, imports DMA-BUFs and takes "
			   "atomic commits%s",
			   n ? why : " (/dev/dri has no card)");
}

static int find_device(struct llmem_display *d, uint32_t flags)
{
	char path[LLMEM_DRM_PATH_LEN];
	int ret = llmem_display_find_card(flags, path, sizeof(path));

	return ret ? ret : open_device(d, path, flags);
}

/* Connector @want, or the first connected output; the caller frees it. */
static int pick_connector(struct llmem_display *d, const drmModeRes *res, uint32_t want,
			  drmModeConnectorPtr *out)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(d->fd, res->connectors[i]);

		if (!c)
			continue;
		if (c->connector_type != DRM_MODE_CONNECTOR_WRITEBACK &&
		    (want ? c->connector_id == want
			  : c->connection == DRM_MODE_CONNECTED && c->count_modes > 0)) {
			*out = c;
			return 0;
		}
		drmModeFreeConnector(c);
	}
	if (want)
		return llmem_error(-EINVAL, "display: %s (%s) has no output connector %u",
				   d->info.device, d->info.driver, want);
	return llmem_error(-ENODEV, "display: no output connector of %s (%s) is connected",
			   d->info.device, d->info.driver);
}

static int pick_writeback(struct llmem_display *d, const drmModeRes *res, drmModeConnectorPtr *out)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(d->fd, res->connectors[i]);

		if (c && c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
			*out = c;
			return 0;
		}
		drmModeFreeConnector(c);
	}
	return llmem_error(-ENOTSUP, "display: %s (%s) shows no writeback connector",
			   d->info.device, d->info.driver);
}

/*
 * A @width x @height mode of @driven, the output's preferred size for 0x0:
 * a preferred mode first, then one of 60 Hz, then the first listed.
 */
static int pick_mode(struct llmem_display *d, const drmModeConnector *output,
		     const drmModeConnector *driven, uint32_t width, uint32_t height)
{
	const drmModeModeInfo *best = NULL;
	char sizes[256] = "";
	size_t at = 0;
	int best_score = 0;

	if (!width) {
		const drmModeModeInfo *pref = &output->modes[0];

		for (int m = 0; m < output->count_modes; m++)
			if (output->modes[m].type & DRM_MODE_TYPE_PREFERRED) {
				pref = &output->modes[m];
				break;
			}
		width = pref->hdisplay;
		height = pref->vdisplay;
	}
	for (int m = 0; m < driven->count_modes; m++) {
		const drmModeModeInfo *mode = &driven->modes[m];
		int score;

		if (mode->hdisplay != width || mode->vdisplay != height) {
			if (at < sizeof(sizes) && !strstr(sizes, mode->name))
				at += (size_t)snprintf(sizes + at, sizeof(sizes) - at, "%s%s",
						       at ? " " : "", mode->name);
			continue;
		}
		score = mode->type & DRM_MODE_TYPE_PREFERRED ? 3 : mode->vrefresh == 60 ? 2 : 1;
		if (score > best_score) {
			best = mode;
			best_score = score;
		}
	}
	if (!best)
		return llmem_error(-EINVAL,
				   "display: connector %u of %s (%s) has no %ux%u mode (%s)",
				   driven->connector_id, d->info.device, d->info.driver, width,
				   height, at ? sizes : "it has none");
	d->mode = *best;
	d->info.width = best->hdisplay;
	d->info.height = best->vdisplay;
	d->info.refresh = best->vrefresh;
	return 0;
}

/* The primary plane CRTC number @index can show, or 0. */
static uint32_t primary_plane(struct llmem_display *d, const drmModePlaneRes *planes, int index)
{
	for (uint32_t i = 0; i < planes->count_planes; i++) {
		drmModePlanePtr p = drmModeGetPlane(d->fd, planes->planes[i]);
		uint32_t possible = p ? p->possible_crtcs : 0;

		drmModeFreePlane(p);
		if ((possible & (1u << index)) &&
		    llmem_drm_plane_type(d->fd, planes->planes[i]) == LLMEM_DRM_PLANE_PRIMARY)
			return planes->planes[i];
	}
	return 0;
}

/* A CRTC @driven's encoders reach that has a primary plane: the one it is on
 * now, else the first. */
static int pick_crtc(struct llmem_display *d, const drmModeRes *res, const drmModeConnector *driven)
{
	drmModePlaneResPtr planes = drmModeGetPlaneResources(d->fd);
	uint32_t possible = 0, current = 0;

	if (!planes)
		return llmem_display_error(d, -errno, "drmModeGetPlaneResources");
	for (int e = 0; e < driven->count_encoders; e++) {
		drmModeEncoderPtr enc = drmModeGetEncoder(d->fd, driven->encoders[e]);

		if (!enc)
			continue;
		possible |= enc->possible_crtcs;
		if (enc->encoder_id == driven->encoder_id)
			current = enc->crtc_id;
		drmModeFreeEncoder(enc);
	}
	for (int pass = 0; pass < 2 && !d->info.crtc_id; pass++)
		for (int i = 0; i < res->count_crtcs && i < 32; i++) {
			if (!(possible & (1u << i)) || (pass == 0 && res->crtcs[i] != current))
				continue;
			d->info.plane_id = primary_plane(d, planes, i);
			if (d->info.plane_id) {
				d->info.crtc_id = res->crtcs[i];
				break;
			}
		}
	drmModeFreePlaneResources(planes);
	if (!d->info.crtc_id)
		return llmem_error(-ENODEV,
				   "display: no CRTC with a primary plane reaches connector %u of "
				   "%s (%s)",
				   driven->connector_id, d->info.device, d->info.driver);
	return 0;
}

static int missing_prop(struct llmem_display *d, int ret, const char *object, uint32_t id,
			const char *missing)
{
	if (ret == -ENOENT)
		return llmem_error(-ENOTSUP, "display: %s %u of %s (%s) has no %s property", object,
				   id, d->info.device, d->info.driver, missing);
	return llmem_display_error(d, ret, "drmModeObjectGetProperties");
}

static int add_connector(struct llmem_display *d, uint32_t id, uint32_t prop, uint64_t crtc)
{
	struct llmem_display_connector *grown =
		realloc(d->connectors, (d->connector_count + 1) * sizeof(*grown));

	if (!grown)
		return llmem_error(-ENOMEM, "display: out of memory");
	d->connectors = grown;
	d->connectors[d->connector_count++] =
		(struct llmem_display_connector){ .id = id, .crtc_prop = prop, .found_crtc = crtc };
	return 0;
}

/*
 * The connectors the display sets: the driven one first, then every other
 * that is on the CRTC now, which the first commit detaches.
 */
static int note_connectors(struct llmem_display *d, const drmModeRes *res, uint32_t driven)
{
	static const char *const crtc_id[] = { "CRTC_ID" };
	uint64_t value;
	uint32_t prop;
	const char *missing;
	int ret;

	ret = llmem_drm_object_props(d->fd, driven, DRM_MODE_OBJECT_CONNECTOR, crtc_id, 1, &prop,
				     &value, &missing);
	if (ret)
		return missing_prop(d, ret, "connector", driven, missing);
	ret = add_connector(d, driven, prop, value);
	for (int i = 0; !ret && i < res->count_connectors; i++) {
		uint32_t id = res->connectors[i];

		if (id == driven || llmem_drm_object_props(d->fd, id, DRM_MODE_OBJECT_CONNECTOR,
							   crtc_id, 1, &prop, &value, NULL))
			continue;
		if (value == d->info.crtc_id)
			ret = add_connector(d, id, prop, value);
	}
	return ret;
}

static int writeback_formats(struct llmem_display *d, uint64_t blob_id)
{
	drmModePropertyBlobPtr blob = drmModeGetPropertyBlob(d->fd, (uint32_t)blob_id);

	if (!blob)
		return llmem_display_error(d, -errno, "drmModeGetPropertyBlob");
	d->writeback_formats = malloc(blob->length ? blob->length : 1);
	if (d->writeback_formats) {
		memcpy(d->writeback_formats, blob->data, blob->length);
		d->writeback_format_count = blob->length / sizeof(uint32_t);
	}
	drmModeFreePropertyBlob(blob);
	return d->writeback_formats ? 0 : llmem_error(-ENOMEM, "display: out of memory");
}

/* The properties the commits set, and the state they change as found. */
static int note_state(struct llmem_display *d)
{
	uint64_t crtc[LLMEM_CRTC_PROPS], plane[LLMEM_PLANE_PROPS], wb[LLMEM_WRITEBACK_PROPS];
	const char *missing;
	drmModeCrtcPtr c;
	int ret;

	ret = llmem_drm_object_props(d->fd, d->info.crtc_id, DRM_MODE_OBJECT_CRTC, crtc_prop_names,
				     LLMEM_CRTC_PROPS, d->crtc_props, crtc, &missing);
	if (ret)
		return missing_prop(d, ret, "CRTC", d->info.crtc_id, missing);
	ret = llmem_drm_object_props(d->fd, d->info.plane_id, DRM_MODE_OBJECT_PLANE,
				     plane_prop_names, LLMEM_PLANE_PROPS, d->plane_props, plane,
				     &missing);
	if (ret)
		return missing_prop(d, ret, "plane", d->info.plane_id, missing);
	d->found_active = crtc[LLMEM_CRTC_ACTIVE];
	memcpy(d->found_plane, plane, sizeof(d->found_plane));
	c = drmModeGetCrtc(d->fd, d->info.crtc_id);
	if (!c)
		return llmem_display_error(d, -errno, "drmModeGetCrtc");
	d->found_mode_valid = c->mode_valid;
	d->found_mode = c->mode;
	drmModeFreeCrtc(c);
	if (!d->info.writeback_id)
		return 0;
	ret = llmem_drm_object_props(d->fd, d->info.writeback_id, DRM_MODE_OBJECT_CONNECTOR,
				     writeback_prop_names, LLMEM_WRITEBACK_PROPS,
				     d->writeback_props, wb, &missing);
	if (ret)
		return missing_prop(d, ret, "writeback connector", d->info.writeback_id, missing);
	return writeback_formats(d, wb[LLMEM_WRITEBACK_PIXEL_FORMATS]);
}

static int plane_formats(struct llmem_display *d)
{
	int ret = llmem_drm_read_plane_formats(d->fd, d->info.plane_id, &d->formats,
					       &d->format_count);

	if (ret && ret != -ENOMEM)
		return llmem_display_error(d, ret, "drmModeGetPlane");
	d->info.format_count = d->format_count;
	return ret;
}

static int choose_pipe(struct llmem_display *d, const struct llmem_display_create_info *ci)
{
	drmModeConnectorPtr output = NULL, writeback = NULL;
	drmModeResPtr res = drmModeGetResources(d->fd);
	const drmModeConnector *driven;
	int ret;

	if (!res)
		return llmem_display_error(d, -errno, "drmModeGetResources");
	ret = pick_connector(d, res, ci->connector_id, &output);
	if (!ret && (ci->flags & LLMEM_DISPLAY_WRITEBACK))
		ret = pick_writeback(d, res, &writeback);
	if (ret)
		goto out;
	driven = writeback ? writeback : output;
	d->info.connector_id = output->connector_id;
	d->info.writeback_id = writeback ? writeback->connector_id : 0;
	ret = pick_mode(d, output, driven, ci->width, ci->height);
	if (!ret)
		ret = pick_crtc(d, res, driven);
	if (!ret)
		ret = note_connectors(d, res, driven->connector_id);
	if (!ret)
		ret = note_state(d);
	if (!ret)
		ret = plane_formats(d);
out:
	drmModeFreeConnector(output);
	drmModeFreeConnector(writeback);
	drmModeFreeResources(res);
	return ret;
}

LLMEM_PUBLIC int llmem_display_open(const struct llmem_display_create_info *info,
				    struct llmem_display **out)
{
	static const struct llmem_display_create_info defaults;
	const struct llmem_display_create_info *ci = info ? info : &defaults;
	struct llmem_display *d;
	int ret;

	if (!out)
		return llmem_error(-EINVAL, "llmem_display_open: NULL out");
	*out = NULL;
	if (ci->flags & ~(uint32_t)FLAGS_MASK)
		return llmem_error(-EINVAL, "display: unknown flags 0x%x",
				   ci->flags & ~(uint32_t)FLAGS_MASK);
	if (!ci->width != !ci->height)
		return llmem_error(-EINVAL, "display: size %ux%u: give both sides or neither",
				   ci->width, ci->height);
	d = calloc(1, sizeof(*d));
	if (!d)
		return llmem_error(-ENOMEM, "display: out of memory");
	d->fd = -1;
	d->info.flags = ci->flags;
	ret = ci->device ? open_device(d, ci->device, ci->flags) : find_device(d, ci->flags);
	if (!ret)
		ret = choose_pipe(d, ci);
	if (ret) {
		llmem_display_close(d);
		return ret;
	}
	*out = d;
	return 0;
}

LLMEM_PUBLIC void llmem_display_close(struct llmem_display *d)
{
	if (!d)
		return;
	if (d->fd >= 0) {
		if (d->modeset_done)
			llmem_display_restore(d);
		llmem_display_release_fbs(d);
		if (d->mode_blob)
			drmModeDestroyPropertyBlob(d->fd, d->mode_blob);
		close(d->fd);
	}
	free(d->connectors);
	free(d->formats);
	free(d->writeback_formats);
	free(d->handles);
	free(d);
}

LLMEM_PUBLIC int llmem_display_get_info(const struct llmem_display *d,
					struct llmem_display_info *info)
{
	if (!d || !info)
		return llmem_error(-EINVAL, "display info: NULL %s", d ? "info" : "display");
	*info = d->info;
	return 0;
}

LLMEM_PUBLIC int llmem_display_formats(const struct llmem_display *d,
				       struct llmem_drm_format *formats, uint32_t capacity)
{
	if (!d || (!formats && capacity))
		return llmem_error(-EINVAL, "display formats: NULL %s", d ? "formats" : "display");
	if (capacity)
		memcpy(formats, d->formats,
		       (d->format_count < capacity ? d->format_count : capacity) *
			       sizeof(*formats));
	return (int)d->format_count;
}
