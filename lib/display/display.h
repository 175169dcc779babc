/* SPDX-License-Identifier: MIT */
/*
 * The display tier's own header, between its files: the DRM devices and
 * their properties (drm.c), the display object and its pipe (display.c),
 * framebuffers and their GEM handles (framebuffer.c), atomic commits, fences
 * and writeback (commit.c).
 */
#ifndef LLMEM_DISPLAY_DISPLAY_H
#define LLMEM_DISPLAY_DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <xf86drmMode.h>

#include <llmem/display.h>
#include <llmem/negotiate.h>

/* drm.c */

/* Opens @path read-write and close-on-exec into *@fd; open()'s errno,
 * named with the path. */
int llmem_drm_open(const char *path, int *fd);

/* What @fd's device is: its driver's name and enum llmem_drm_caps, and the
 * counts of struct llmem_drm_device.  Leaves @fd an atomic client with
 * universal planes and writeback connectors where the device has them. */
void llmem_drm_probe(int fd, struct llmem_drm_device *dev);

/* @path opened as a KMS client with universal planes into *@fd, and its
 * driver's name; -ENODEV, named, for a device that is not KMS. */
int llmem_drm_open_kms(const char *path, int *fd, char *driver, size_t len);

/*
 * The first card that can be the display of enum llmem_display_flags
 * @flags (modesetting, DMA-BUF import, atomic commits, a writeback
 * connector if asked), its path in @path: what llmem_display_open() and a
 * KMS participant take without a device.  0, or -ENODEV saying what each
 * card lacked.
 */
int llmem_display_find_card(uint32_t flags, char *path, size_t size);

/* "CALL on PATH (DRIVER): strerror(-err)" for llmem_last_error(); @err. */
int llmem_drm_error(int err, const char *path, const char *driver, const char *call);

/*
 * The properties @names of object @obj (a DRM_MODE_OBJECT_* @type): their
 * ids into @ids and their values into @values (may be NULL).  -ENOENT with
 * the first one missing in *@missing (may be NULL), or the driver's errno;
 * no message.
 */
int llmem_drm_object_props(int fd, uint32_t obj, uint32_t type, const char *const *names,
			   uint32_t count, uint32_t *ids, uint64_t *values, const char **missing);

/*
 * The (fourcc, modifier) pairs plane @plane_id scans out, in a malloc'ed
 * array *@out of *@count; from IN_FORMATS, else its formats with LINEAR.
 * -ENOENT for no such plane, the driver's errno; a message only for -ENOMEM.
 */
int llmem_drm_read_plane_formats(int fd, uint32_t plane_id, struct llmem_drm_format **out,
				 uint32_t *count);

/* A plane's enum llmem_drm_plane_type, from its "type" property. */
uint32_t llmem_drm_plane_type(int fd, uint32_t plane_id);

/* A fourcc's code as libdrm spells it ("XR24") into @buf, or its number. */
const char *llmem_drm_format_name(uint32_t fourcc, char *buf, size_t len);

struct llmem_display;

/* llmem_drm_error() for the display's device. */
int llmem_display_error(const struct llmem_display *d, int err, const char *call);

/* The display's objects and the properties it sets on them. */

enum llmem_display_crtc_prop {
	LLMEM_CRTC_ACTIVE,
	LLMEM_CRTC_MODE_ID,
	LLMEM_CRTC_OUT_FENCE_PTR,
	LLMEM_CRTC_PROPS,
};

enum llmem_display_plane_prop {
	LLMEM_PLANE_FB_ID,
	LLMEM_PLANE_CRTC_ID,
	LLMEM_PLANE_SRC_X,
	LLMEM_PLANE_SRC_Y,
	LLMEM_PLANE_SRC_W,
	LLMEM_PLANE_SRC_H,
	LLMEM_PLANE_CRTC_X,
	LLMEM_PLANE_CRTC_Y,
	LLMEM_PLANE_CRTC_W,
	LLMEM_PLANE_CRTC_H,
	LLMEM_PLANE_IN_FENCE_FD,
	LLMEM_PLANE_PROPS,
};

/* The position props of a plane, put back as found: FB_ID to CRTC_H. */
#define LLMEM_PLANE_SAVED_PROPS LLMEM_PLANE_IN_FENCE_FD

enum llmem_display_writeback_prop {
	LLMEM_WRITEBACK_FB_ID,
	LLMEM_WRITEBACK_OUT_FENCE_PTR,
	LLMEM_WRITEBACK_PIXEL_FORMATS,
	LLMEM_WRITEBACK_PROPS,
};

/* A connector whose CRTC_ID the display sets, and its value when found. */
struct llmem_display_connector {
	uint32_t id;
	uint32_t crtc_prop;
	uint64_t found_crtc;
};

/* A GEM handle and the framebuffers that use it. */
struct llmem_display_handle {
	uint32_t handle;
	uint32_t refs;
};

struct llmem_display_fb {
	struct llmem_display *display;
	struct llmem_display_fb *next;
	uint32_t id;
	uint32_t handle;
	uint32_t flags;
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint64_t modifier;
};

struct llmem_display {
	int fd;
	struct llmem_display_info info;
	drmModeModeInfo mode;
	/* The mode as a property blob, made by the first commit. */
	uint32_t mode_blob;
	bool modeset_done;

	uint32_t crtc_props[LLMEM_CRTC_PROPS];
	uint32_t plane_props[LLMEM_PLANE_PROPS];
	uint32_t writeback_props[LLMEM_WRITEBACK_PROPS];

	/* What the display found: the CRTC's mode and ACTIVE, the primary
	 * plane's position props, and the CRTC_ID of every connector it sets
	 * (the driven one first, then those it detaches). */
	bool found_active;
	bool found_mode_valid;
	drmModeModeInfo found_mode;
	uint64_t found_plane[LLMEM_PLANE_SAVED_PROPS];
	struct llmem_display_connector *connectors;
	uint32_t connector_count;

	/* What the primary plane scans out, what the writeback connector writes. */
	struct llmem_drm_format *formats;
	uint32_t format_count;
	uint32_t *writeback_formats;
	uint32_t writeback_format_count;

	struct llmem_display_fb *fbs;
	/* The framebuffer of the last commit: on screen, or about to be. */
	struct llmem_display_fb *shown;
	struct llmem_display_handle *handles;
	uint32_t handle_count, handle_cap;
};

/* framebuffer.c: removes every framebuffer left and closes their handles. */
void llmem_display_release_fbs(struct llmem_display *d);

/* commit.c: puts the CRTC, the plane and the connectors back as found, or
 * turns the CRTC off when that fails; after the display's first commit. */
void llmem_display_restore(struct llmem_display *d);

/* participant_check.c: whether KMS participant @p (its device and plane)
 * makes a framebuffer of frame @f; 0, or the refusal naming the participant
 * and the call. */
int llmem_kms_plane_takes(const struct llmem_participant *p,
			  const struct llmem_negotiated_frame *f);

#endif
