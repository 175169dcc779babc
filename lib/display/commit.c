// SPDX-License-Identifier: MIT
/*
 * Atomic commits of the display: the first sets the mode and attaches the
 * driven connector, the next ones flip the primary plane.  Fences go in as
 * the plane's IN_FENCE_FD (a sync_file of the caller's, or a queue's work)
 * and come out of the CRTC's OUT_FENCE_PTR and the writeback connector's
 * WRITEBACK_OUT_FENCE_PTR.  When the display closes, one more commit puts
 * back what it found, or turns the CRTC off.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/display.h>
#include <llmem/share.h>
#include <llmem/transfer.h>

#include "base/error.h"
#include "display/display.h"
#include "transfer/queue.h"

#define FLAGS_MASK                                                       \
	(LLMEM_DISPLAY_COMMIT_NONBLOCK | LLMEM_DISPLAY_COMMIT_IN_FENCE | \
	 LLMEM_DISPLAY_COMMIT_OUT_FENCE)

/* Adds one property to @req; -ENOMEM is the only way it fails. */
static int add(drmModeAtomicReqPtr req, uint32_t obj, uint32_t prop, uint64_t value)
{
	return drmModeAtomicAddProperty(req, obj, prop, value) < 0 ? -ENOMEM : 0;
}

/* The primary plane's position props with @values. */
static int add_plane(const struct llmem_display *d, drmModeAtomicReqPtr req, const uint64_t *values)
{
	int ret = 0;

	for (int i = 0; i < LLMEM_PLANE_SAVED_PROPS; i++)
		ret |= add(req, d->info.plane_id, d->plane_props[i], values[i]);
	return ret;
}

/* The plane showing @fb at the top left of the mode, at its own size. */
static int show(const struct llmem_display *d, drmModeAtomicReqPtr req,
		const struct llmem_display_fb *fb)
{
	const uint64_t values[LLMEM_PLANE_SAVED_PROPS] = {
		[LLMEM_PLANE_FB_ID] = fb->id,
		[LLMEM_PLANE_CRTC_ID] = d->info.crtc_id,
		[LLMEM_PLANE_SRC_W] = (uint64_t)fb->width << 16,
		[LLMEM_PLANE_SRC_H] = (uint64_t)fb->height << 16,
		[LLMEM_PLANE_CRTC_W] = fb->width,
		[LLMEM_PLANE_CRTC_H] = fb->height,
	};

	return add_plane(d, req, values);
}

/*
 * The first commit's part: the mode, the CRTC on, the driven connector on
 * the CRTC and every other connector that was on it off (encoders that
 * cannot clone drive one connector at a time).
 */
static int add_modeset(struct llmem_display *d, drmModeAtomicReqPtr req)
{
	int ret = 0;

	if (!d->mode_blob &&
	    drmModeCreatePropertyBlob(d->fd, &d->mode, sizeof(d->mode), &d->mode_blob))
		return llmem_display_error(d, -errno, "drmModeCreatePropertyBlob");
	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_MODE_ID], d->mode_blob);
	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_ACTIVE], 1);
	for (uint32_t i = 0; i < d->connector_count; i++)
		ret |= add(req, d->connectors[i].id, d->connectors[i].crtc_prop,
			   i == 0 ? d->info.crtc_id : 0);
	return ret ? llmem_error(-ENOMEM, "display commit: out of memory") : 0;
}

static int check(const struct llmem_display *d, const struct llmem_display_commit_info *ci,
		 const struct llmem_display_commit_result *result)
{
	const struct llmem_display_fb *wb = ci->writeback;

	if (ci->flags & ~(uint32_t)FLAGS_MASK)
		return llmem_error(-EINVAL, "display commit: unknown flags 0x%x",
				   ci->flags & ~(uint32_t)FLAGS_MASK);
	if (!ci->fb || ci->fb->display != d)
		return llmem_error(-EINVAL, "display commit: %s framebuffer to show",
				   ci->fb ? "another display's" : "no");
	if (ci->fb->flags & LLMEM_DISPLAY_FB_WRITEBACK)
		return llmem_error(-EINVAL,
				   "display commit: framebuffer %u is the writeback connector's, "
				   "not the plane's",
				   ci->fb->id);
	if (wb && (!d->info.writeback_id || wb->display != d ||
		   !(wb->flags & LLMEM_DISPLAY_FB_WRITEBACK)))
		return llmem_error(-EINVAL, "display commit: writeback framebuffer %u %s", wb->id,
				   !d->info.writeback_id ? "on a display opened without "
							   "LLMEM_DISPLAY_WRITEBACK"
				   : wb->display != d	 ? "of another display"
						      : "not made with LLMEM_DISPLAY_FB_WRITEBACK");
	if (!result && (wb || (ci->flags & LLMEM_DISPLAY_COMMIT_OUT_FENCE)))
		return llmem_error(-EINVAL, "display commit: fences asked for, and no result");
	if ((ci->flags & LLMEM_DISPLAY_COMMIT_IN_FENCE) && ci->after)
		return llmem_error(-EINVAL,
				   "display commit: an in-fence and a queue to wait for: give one");
	if (ci->flags & LLMEM_DISPLAY_COMMIT_IN_FENCE) {
		int ret = llmem_sync_file_wait(ci->in_fence, 0);

		if (ret == -EINVAL || ret == -EBADF)
			return llmem_error(ret, "display commit: in_fence %d is %s", ci->in_fence,
					   ret == -EBADF ? "not open" : "not a sync_file");
	}
	return 0;
}

/*
 * @q's work so far as a sync_file where the device exports them; elsewhere
 * (lavapipe) the work is waited for here, on the CPU, and *@fd stays -1.
 */
static int queue_fence(struct llmem_queue *q, int *fd, uint32_t *waited_on_cpu)
{
	if (q->session->info.caps & LLMEM_CAP_SYNC_FD_EXPORT)
		return llmem_queue_signal_sync_file(q, fd);
	*waited_on_cpu = 1;
	return llmem_queue_finish(q);
}

static int commit_error(const struct llmem_display *d, int err,
			const struct llmem_display_commit_info *ci)
{
	char name[32];

	llmem_drm_format_name(ci->fb->fourcc, name, sizeof(name));
	return llmem_error(err, "drmModeAtomicCommit on %s (%s): %s%s%s%s", d->info.device,
			   d->info.driver, strerror(-err),
			   err == -EACCES ? ": another process is the device's DRM master" : "",
			   err == -EBUSY ? ": the last non-blocking commit is not done" : "",
			   err == -EINVAL ? " (the device refused the state: see its kernel log)"
					  : "");
}

LLMEM_PUBLIC int llmem_display_commit(struct llmem_display *d,
				      const struct llmem_display_commit_info *ci,
				      struct llmem_display_commit_result *result)
{
	int32_t out_fence = -1, writeback_fence = -1;
	int in_fence = -1, queue_fd = -1, ret;
	uint32_t flags, waited_on_cpu = 0;
	bool modeset;
	drmModeAtomicReqPtr req;

	if (result)
		*result = (struct llmem_display_commit_result){ .out_fence = -1,
								.writeback_fence = -1 };
	if (!d || !ci)
		return llmem_error(-EINVAL, "llmem_display_commit: NULL %s",
				   d ? "info" : "display");
	ret = check(d, ci, result);
	if (ret)
		return ret;
	if (ci->flags & LLMEM_DISPLAY_COMMIT_IN_FENCE)
		in_fence = ci->in_fence;
	if (ci->after) {
		ret = queue_fence(ci->after, &queue_fd, &waited_on_cpu);
		if (ret)
			return ret;
		in_fence = queue_fd;
	}
	req = drmModeAtomicAlloc();
	if (!req) {
		ret = llmem_error(-ENOMEM, "display commit: out of memory");
		goto out;
	}
	modeset = !d->modeset_done;
	flags = ci->flags & LLMEM_DISPLAY_COMMIT_NONBLOCK ? DRM_MODE_ATOMIC_NONBLOCK : 0;
	if (modeset) {
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
		ret = add_modeset(d, req);
	}
	if (!ret)
		ret = show(d, req, ci->fb);
	if (!ret && in_fence >= 0)
		ret = add(req, d->info.plane_id, d->plane_props[LLMEM_PLANE_IN_FENCE_FD],
			  (uint64_t)in_fence);
	if (!ret && (ci->flags & LLMEM_DISPLAY_COMMIT_OUT_FENCE))
		ret = add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_OUT_FENCE_PTR],
			  (uint64_t)(uintptr_t)&out_fence);
	if (!ret && ci->writeback) {
		ret = add(req, d->info.writeback_id, d->writeback_props[LLMEM_WRITEBACK_FB_ID],
			  ci->writeback->id);
		ret |= add(req, d->info.writeback_id,
			   d->writeback_props[LLMEM_WRITEBACK_OUT_FENCE_PTR],
			   (uint64_t)(uintptr_t)&writeback_fence);
	}
	if (ret == -ENOMEM)
		llmem_error(ret, "display commit: out of memory");
	else if (!ret && drmModeAtomicCommit(d->fd, req, flags, NULL))
		ret = commit_error(d, -errno, ci);
	drmModeAtomicFree(req);
	if (ret)
		goto out;
	d->modeset_done = true;
	d->shown = ci->fb;
	if (result) {
		result->out_fence = out_fence;
		result->writeback_fence = writeback_fence;
		result->modeset = modeset;
		result->waited_on_cpu = waited_on_cpu;
	}
out:
	if (queue_fd >= 0)
		close(queue_fd);
	return ret;
}

/* The state the display found: the mode (a new blob of it, in *@blob), the
 * plane where it was, the connectors on their CRTCs. */
static int put_back(struct llmem_display *d, drmModeAtomicReqPtr req, uint32_t *blob)
{
	bool on = d->found_active && d->found_mode_valid;
	int ret = 0;

	if (on && drmModeCreatePropertyBlob(d->fd, &d->found_mode, sizeof(d->found_mode), blob))
		return -errno;
	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_MODE_ID], on ? *blob : 0);
	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_ACTIVE], on);
	ret |= add_plane(d, req, d->found_plane);
	for (uint32_t i = 0; i < d->connector_count; i++)
		ret |= add(req, d->connectors[i].id, d->connectors[i].crtc_prop,
			   d->connectors[i].found_crtc);
	return ret;
}

/* The CRTC off, the plane and the connectors off it. */
static int turn_off(struct llmem_display *d, drmModeAtomicReqPtr req)
{
	static const uint64_t off[LLMEM_PLANE_SAVED_PROPS];
	int ret = 0;

	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_MODE_ID], 0);
	ret |= add(req, d->info.crtc_id, d->crtc_props[LLMEM_CRTC_ACTIVE], 0);
	ret |= add_plane(d, req, off);
	for (uint32_t i = 0; i < d->connector_count; i++)
		ret |= add(req, d->connectors[i].id, d->connectors[i].crtc_prop, 0);
	return ret;
}

/* One blocking modeset commit of what @build adds; 0 when it went through. */
static int commit_state(struct llmem_display *d,
			int (*build)(struct llmem_display *, drmModeAtomicReqPtr, uint32_t *),
			uint32_t *blob)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = build(d, req, blob);
	if (!ret && drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}

static int build_turn_off(struct llmem_display *d, drmModeAtomicReqPtr req, uint32_t *blob)
{
	(void)blob;
	return turn_off(d, req);
}

void llmem_display_restore(struct llmem_display *d)
{
	uint32_t blob = 0;

	if (commit_state(d, put_back, &blob))
		commit_state(d, build_turn_off, NULL);
	if (blob)
		drmModeDestroyPropertyBlob(d->fd, blob);
	d->shown = NULL;
	d->modeset_done = false;
}
