// SPDX-License-Identifier: MIT
/*
 * Framebuffers of the display: a frame's DMA-BUF imported by PRIME, one GEM
 * handle per DMA-BUF shared by the framebuffers made of it (the kernel gives
 * the same handle for the same buffer), and the framebuffer made of its
 * planes, after its format is checked against the plane's (or the writeback
 * connector's) list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/display.h>
#include <llmem/share.h>

#include "base/error.h"
#include "display/display.h"

/* "AR24 XR24 ..." of the formats a plane or connector takes, into @buf. */
static const char *list_formats(const uint32_t *fourccs, const struct llmem_drm_format *pairs,
				uint32_t count, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < count && at < len; i++) {
		uint32_t f = fourccs ? fourccs[i] : pairs[i].fourcc;
		char name[32];

		llmem_drm_format_name(f, name, sizeof(name));
		if (pairs && pairs[i].modifier != DRM_FORMAT_MOD_LINEAR)
			at += (size_t)snprintf(buf + at, len - at, "%s%s/0x%llx", at ? " " : "",
					       name, (unsigned long long)pairs[i].modifier);
		else if (!strstr(buf, name))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " " : "", name);
	}
	return buf;
}

/* Whether the display takes @frame: for its plane, or its writeback connector. */
static int check_format(struct llmem_display *d, const struct llmem_dmabuf_frame *f, bool writeback)
{
	char name[32], list[512];
	bool found = false;

	if (writeback) {
		if (!d->info.writeback_id)
			return llmem_error(-EINVAL,
					   "display fb: a writeback framebuffer on a display of %s "
					   "opened without LLMEM_DISPLAY_WRITEBACK",
					   d->info.device);
		if (f->width != d->info.width || f->height != d->info.height)
			return llmem_error(
				-EINVAL,
				"display fb: the writeback connector writes %ux%u frames, "
				"not %ux%u",
				d->info.width, d->info.height, f->width, f->height);
		for (uint32_t i = 0; i < d->writeback_format_count; i++)
			found |= d->writeback_formats[i] == f->fourcc;
		if (!found || f->modifier != DRM_FORMAT_MOD_LINEAR)
			return llmem_error(
				-ENOTSUP,
				"display fb: the writeback connector %u of %s (%s) does "
				"not write %s with modifier 0x%llx; it writes %s (LINEAR)",
				d->info.writeback_id, d->info.device, d->info.driver,
				llmem_drm_format_name(f->fourcc, name, sizeof(name)),
				(unsigned long long)f->modifier,
				list_formats(d->writeback_formats, NULL, d->writeback_format_count,
					     list, sizeof(list)));
		return 0;
	}
	for (uint32_t i = 0; i < d->format_count; i++)
		found |= d->formats[i].fourcc == f->fourcc && d->formats[i].modifier == f->modifier;
	if (!found)
		return llmem_error(
			-ENOTSUP,
			"display fb: plane %u of %s (%s) does not scan out %s with "
			"modifier 0x%llx; it takes %s",
			d->info.plane_id, d->info.device, d->info.driver,
			llmem_drm_format_name(f->fourcc, name, sizeof(name)),
			(unsigned long long)f->modifier,
			list_formats(NULL, d->formats, d->format_count, list, sizeof(list)));
	if (f->modifier != DRM_FORMAT_MOD_LINEAR && !(d->info.caps & LLMEM_DRM_ADDFB2_MODIFIERS))
		return llmem_error(-ENOTSUP,
				   "display fb: %s (%s) takes no framebuffer modifiers "
				   "(DRM_CAP_ADDFB2_MODIFIERS), and the frame's is 0x%llx",
				   d->info.device, d->info.driver, (unsigned long long)f->modifier);
	return 0;
}

/* Counts a framebuffer's use of @handle. */
static int hold_handle(struct llmem_display *d, uint32_t handle)
{
	for (uint32_t i = 0; i < d->handle_count; i++)
		if (d->handles[i].handle == handle) {
			d->handles[i].refs++;
			return 0;
		}
	if (d->handle_count == d->handle_cap) {
		uint32_t cap = d->handle_cap ? d->handle_cap * 2 : 8;
		struct llmem_display_handle *grown = realloc(d->handles, cap * sizeof(*grown));

		if (!grown)
			return llmem_error(-ENOMEM, "display fb: out of memory");
		d->handles = grown;
		d->handle_cap = cap;
	}
	d->handles[d->handle_count++] = (struct llmem_display_handle){ handle, 1 };
	return 0;
}

/* Drops a use of @handle, and closes it after the last. */
static void drop_handle(struct llmem_display *d, uint32_t handle)
{
	for (uint32_t i = 0; i < d->handle_count; i++) {
		if (d->handles[i].handle != handle)
			continue;
		if (--d->handles[i].refs == 0) {
			drmCloseBufferHandle(d->fd, handle);
			d->handles[i] = d->handles[--d->handle_count];
		}
		return;
	}
}

/* The import and the framebuffer; *@fb's handle and id. */
static int make_fb(struct llmem_display *d, const struct llmem_dmabuf_frame *f,
		   struct llmem_display_fb *fb)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t modifiers[4] = { 0 };
	int ret;

	if (drmPrimeFDToHandle(d->fd, f->fd, &fb->handle))
		return llmem_display_error(d, -errno, "drmPrimeFDToHandle");
	ret = hold_handle(d, fb->handle);
	if (ret) {
		/* Only a handle new to the display fails to be counted. */
		drmCloseBufferHandle(d->fd, fb->handle);
		return ret;
	}
	for (uint32_t p = 0; p < f->num_planes; p++) {
		if (f->offset[p] > UINT32_MAX) {
			drop_handle(d, fb->handle);
			return llmem_error(-EINVAL, "display fb: plane %u lies at %llu, past 4 GiB",
					   p, (unsigned long long)f->offset[p]);
		}
		handles[p] = fb->handle;
		pitches[p] = f->pitch[p];
		offsets[p] = (uint32_t)f->offset[p];
		modifiers[p] = f->modifier;
	}
	if (d->info.caps & LLMEM_DRM_ADDFB2_MODIFIERS)
		ret = drmModeAddFB2WithModifiers(d->fd, f->width, f->height, f->fourcc, handles,
						 pitches, offsets, modifiers, &fb->id,
						 DRM_MODE_FB_MODIFIERS);
	else
		ret = drmModeAddFB2(d->fd, f->width, f->height, f->fourcc, handles, pitches,
				    offsets, &fb->id, 0);
	if (ret) {
		ret = -errno;
		drop_handle(d, fb->handle);
		return llmem_error(ret, "%s on %s (%s): %s (%ux%u, pitch %u, offset %u)",
				   d->info.caps & LLMEM_DRM_ADDFB2_MODIFIERS
					   ? "drmModeAddFB2WithModifiers"
					   : "drmModeAddFB2",
				   d->info.device, d->info.driver, strerror(-ret), f->width,
				   f->height, pitches[0], offsets[0]);
	}
	return 0;
}

LLMEM_PUBLIC int llmem_display_fb_create(struct llmem_display *d,
					 const struct llmem_dmabuf_frame *f, uint32_t flags,
					 struct llmem_display_fb **out)
{
	struct llmem_display_fb *fb;
	int ret;

	if (!d || !f || !out)
		return llmem_error(-EINVAL, "llmem_display_fb_create: NULL argument");
	*out = NULL;
	if (flags & ~(uint32_t)LLMEM_DISPLAY_FB_WRITEBACK)
		return llmem_error(-EINVAL, "display fb: unknown flags 0x%x",
				   flags & ~(uint32_t)LLMEM_DISPLAY_FB_WRITEBACK);
	if (f->num_planes < 1 || f->num_planes > LLMEM_FRAME_MAX_PLANES)
		return llmem_error(-EINVAL, "display fb: %u planes", f->num_planes);
	ret = check_format(d, f, flags & LLMEM_DISPLAY_FB_WRITEBACK);
	if (ret)
		return ret;
	fb = calloc(1, sizeof(*fb));
	if (!fb)
		return llmem_error(-ENOMEM, "display fb: out of memory");
	ret = make_fb(d, f, fb);
	if (ret) {
		free(fb);
		return ret;
	}
	fb->display = d;
	fb->flags = flags;
	fb->fourcc = f->fourcc;
	fb->width = f->width;
	fb->height = f->height;
	fb->modifier = f->modifier;
	fb->next = d->fbs;
	d->fbs = fb;
	*out = fb;
	return 0;
}

LLMEM_PUBLIC int llmem_display_fb_create_from_buffer(struct llmem_display *d,
						     struct llmem_buffer *buffer,
						     const struct llmem_frame_layout *layout,
						     uint32_t flags, struct llmem_display_fb **out)
{
	struct llmem_dmabuf_frame frame;
	int ret;

	if (!d || !out)
		return llmem_error(-EINVAL, "llmem_display_fb_create_from_buffer: NULL %s",
				   d ? "out" : "display");
	*out = NULL;
	ret = llmem_buffer_export_frame(buffer, layout, 0, &frame);
	if (ret)
		return ret;
	ret = llmem_display_fb_create(d, &frame, flags, out);
	close(frame.fd);
	return ret;
}

/* Unlinks @fb, removes it and drops its handle. */
static int remove_fb(struct llmem_display *d, struct llmem_display_fb *fb)
{
	struct llmem_display_fb **link = &d->fbs;

	if (drmModeRmFB(d->fd, fb->id))
		return llmem_display_error(d, -errno, "drmModeRmFB");
	while (*link != fb)
		link = &(*link)->next;
	*link = fb->next;
	drop_handle(d, fb->handle);
	free(fb);
	return 0;
}

LLMEM_PUBLIC int llmem_display_fb_destroy(struct llmem_display_fb *fb)
{
	struct llmem_display *d;

	if (!fb)
		return llmem_error(-EINVAL, "llmem_display_fb_destroy: NULL fb");
	d = fb->display;
	if (d->shown == fb)
		return llmem_error(-EBUSY,
				   "display fb: framebuffer %u is on screen on %s: show another "
				   "first, or close the display",
				   fb->id, d->info.device);
	return remove_fb(d, fb);
}

LLMEM_PUBLIC uint32_t llmem_display_fb_id(const struct llmem_display_fb *fb)
{
	return fb ? fb->id : 0;
}

void llmem_display_release_fbs(struct llmem_display *d)
{
	d->shown = NULL;
	while (d->fbs) {
		struct llmem_display_fb *fb = d->fbs;

		if (remove_fb(d, fb)) {
			/* The kernel removes it with the file; the handle goes too. */
			d->fbs = fb->next;
			drop_handle(d, fb->handle);
			free(fb);
		}
	}
}
