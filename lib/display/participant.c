// SPDX-License-Identifier: MIT
/*
 * A KMS plane as a participant of a negotiation (negotiate.h).  DRM
 * reports a plane's formats and modifiers and the device's bounds on a
 * framebuffer's size, but not which pitches it takes: those are found by
 * test framebuffers over one scratch dumb buffer, which DRM_IOCTL_MODE_ADDFB2
 * checks as it would a frame's, and which need no DRM master.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/display.h>
#include <llmem/negotiate.h>

#include "base/error.h"
#include "base/export.h"
#include "display/display.h"

/* The test framebuffers: small, within the mode config's bounds, with rows
 * of a multiple of 64 pixels, so of every granularity tried in bytes. */
#define PROBE_WIDTH 64
#define PROBE_HEIGHT 8
#define PROBE_MAX_GRANULE 256

/* What llmem lays out, with the bytes per pixel of its plane 0. */
static uint32_t laid_out_cpp(uint32_t fourcc)
{
	switch (fourcc) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_ABGR8888:
		return 4;
	case DRM_FORMAT_YUYV:
		return 2;
	case DRM_FORMAT_NV12:
		return 1;
	default:
		return 0;
	}
}

struct kms {
	int fd;
	const char *path;
	char driver[LLMEM_DRM_NAME_LEN];
};

static int kms_error(const struct kms *k, int err, const char *call)
{
	return llmem_drm_error(err, k->path, k->driver, call);
}

/* The first primary plane's id, or -ENOENT. */
static int primary_plane(const struct kms *k, uint32_t *plane_id)
{
	drmModePlaneResPtr res = drmModeGetPlaneResources(k->fd);
	int ret = -ENOENT;

	if (!res)
		return kms_error(k, -errno, "drmModeGetPlaneResources");
	for (uint32_t i = 0; i < res->count_planes && ret; i++)
		if (llmem_drm_plane_type(k->fd, res->planes[i]) == LLMEM_DRM_PLANE_PRIMARY) {
			*plane_id = res->planes[i];
			ret = 0;
		}
	drmModeFreePlaneResources(res);
	if (ret)
		return llmem_error(ret, "%s (%s) has no primary plane", k->path, k->driver);
	return 0;
}

/* The plane's (fourcc, modifier) pairs, those llmem lays out kept, a
 * fourcc's modifiers together. */
static int state_formats(const struct kms *k, uint32_t plane_id, struct llmem_participant *p)
{
	struct llmem_drm_format *pairs;
	uint32_t count;
	int ret = llmem_drm_read_plane_formats(k->fd, plane_id, &pairs, &count);

	if (ret == -ENOENT)
		return llmem_error(-ENOENT, "%s (%s) has no plane %u", k->path, k->driver,
				   plane_id);
	if (ret)
		return ret == -ENOMEM ? ret : kms_error(k, ret, "drmModeGetPlane");
	for (uint32_t i = 0; i < count; i++) {
		struct llmem_format_caps *f = NULL;

		if (!laid_out_cpp(pairs[i].fourcc))
			continue;
		for (uint32_t j = 0; j < p->num_formats && !f; j++)
			if (p->formats[j].fourcc == pairs[i].fourcc)
				f = &p->formats[j];
		if (!f && p->num_formats < LLMEM_NEGOTIATE_MAX_FORMATS) {
			f = &p->formats[p->num_formats++];
			*f = (struct llmem_format_caps){ .fourcc = pairs[i].fourcc,
							 .source = LLMEM_FACT_REPORTED };
		}
		if (f && f->num_modifiers < LLMEM_NEGOTIATE_MAX_MODIFIERS)
			f->modifiers[f->num_modifiers++] = pairs[i].modifier;
	}
	free(pairs);
	return 0;
}

/* The framebuffer's bounds of the mode config. */
static int state_bounds(const struct kms *k, struct llmem_constraints *c)
{
	drmModeResPtr res = drmModeGetResources(k->fd);

	if (!res)
		return kms_error(k, -errno, "drmModeGetResources");
	c->min_width = res->min_width;
	c->max_width = res->max_width;
	c->min_height = res->min_height;
	c->max_height = res->max_height;
	drmModeFreeResources(res);
	return 0;
}

/* Whether the device takes a linear @fourcc framebuffer of @width x
 * @height over @handle at @pitch; the test framebuffer is removed at once. */
static int takes_pitch(const struct kms *k, uint32_t handle, uint32_t fourcc, uint32_t width,
		       uint32_t height, uint32_t pitch, bool *taken)
{
	uint32_t handles[4] = { handle }, pitches[4] = { pitch }, offsets[4] = { 0 }, fb = 0;

	if (drmModeAddFB2(k->fd, width, height, fourcc, handles, pitches, offsets, &fb, 0)) {
		/* EINVAL: the pitch is refused; anything else is no answer. */
		*taken = false;
		return errno == EINVAL ? 0 : kms_error(k, -errno, "drmModeAddFB2");
	}
	*taken = true;
	drmModeRmFB(k->fd, fb);
	return 0;
}

/*
 * The smallest of 1, 2, 4 ... PROBE_MAX_GRANULE bytes the pitch may grow
 * by past the row: the pitch alignment (probed).  None taken leaves it
 * unknown; a device without dumb buffers is not asked.
 */
static int probe_pitch_alignment(const struct kms *k, const struct llmem_participant *p,
				 struct llmem_constraints *c)
{
	struct drm_mode_create_dumb create = { 0 };
	struct drm_mode_destroy_dumb destroy = { 0 };
	uint32_t fourcc = 0, row, width, height;
	uint64_t dumb = 0;
	int ret = 0;

	for (uint32_t i = 0; i < p->num_formats && !fourcc; i++)
		if (laid_out_cpp(p->formats[i].fourcc) > 1)
			fourcc = p->formats[i].fourcc;
	if (!fourcc || drmGetCap(k->fd, DRM_CAP_DUMB_BUFFER, &dumb) || !dumb)
		return 0;
	width = c->min_width > PROBE_WIDTH ? (c->min_width + 63) / 64 * 64 : PROBE_WIDTH;
	height = c->min_height > PROBE_HEIGHT ? c->min_height : PROBE_HEIGHT;
	row = width * laid_out_cpp(fourcc);
	/* Rows of twice the largest pitch tried, 32 bits a pixel. */
	create.width = 2 * (row + PROBE_MAX_GRANULE) / 4;
	create.height = height;
	create.bpp = 32;
	if (drmIoctl(k->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create))
		return kms_error(k, -errno, "DRM_IOCTL_MODE_CREATE_DUMB");
	for (uint32_t g = 1; g <= PROBE_MAX_GRANULE && !ret; g *= 2) {
		bool taken;

		ret = takes_pitch(k, create.handle, fourcc, width, height, row + g, &taken);
		if (!ret && taken) {
			c->pitch_alignment = g;
			c->probed |= LLMEM_C_PITCH_ALIGNMENT;
			break;
		}
	}
	destroy.handle = create.handle;
	drmIoctl(k->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	return ret;
}

LLMEM_PUBLIC int llmem_participant_kms_plane(const char *path, uint32_t plane_id,
					     struct llmem_participant *out)
{
	char card[LLMEM_DRM_PATH_LEN];
	struct kms k;
	int ret;

	if (!out)
		return llmem_error(-EINVAL, "KMS participant: NULL out");
	if (!path) {
		ret = llmem_display_find_card(0, card, sizeof(card));
		if (ret)
			return ret;
		path = card;
	}
	ret = llmem_drm_open_kms(path, &k.fd, k.driver, sizeof(k.driver));
	if (ret)
		return ret;
	k.path = path;
	if (!plane_id)
		ret = primary_plane(&k, &plane_id);
	memset(out, 0, sizeof(*out));
	out->kind = LLMEM_PARTICIPANT_KMS_PLANE;
	snprintf(out->name, sizeof(out->name), "%s plane %u", k.driver, plane_id);
	snprintf(out->device, sizeof(out->device), "%s", path);
	out->object = plane_id;
	if (!ret)
		ret = state_formats(&k, plane_id, out);
	if (!ret)
		ret = state_bounds(&k, &out->constraints);
	if (!ret)
		ret = probe_pitch_alignment(&k, out, &out->constraints);
	close(k.fd);
	return ret;
}
