/* SPDX-License-Identifier: MIT */
/*
 * Displays: llmem frames scanned out by a KMS device (DRM/KMS, through
 * libdrm), read back by its writeback connector, fenced with sync_files.
 *
 * The device queries (llmem_drm_*) describe every DRM card of the machine:
 * whether it does modesetting, imports DMA-BUFs (PRIME), takes atomic
 * commits, and which formats and modifiers its planes scan out.
 *
 * A display is one KMS device and one pipe chosen on it: a CRTC, its primary
 * plane and a connector, an output or, with LLMEM_DISPLAY_WRITEBACK, the
 * writeback connector, which writes what the CRTC shows into a framebuffer
 * of the caller's: the display's eye.  A frame reaches it by PRIME:
 * llmem_display_fb_create() imports the DMA-BUF that
 * llmem_buffer_export_frame() gives (drmPrimeFDToHandle) and makes a
 * framebuffer of its planes, fourcc, modifier, offsets and pitches
 * (drmModeAddFB2, with modifiers where the device takes them), after
 * checking the pair against the plane's list: a format the plane does not
 * scan out is refused, never converted behind the caller's back.
 * llmem_display_commit() shows a framebuffer with an atomic commit: the
 * first one sets the mode, the next ones flip.  Commits take a sync_file to
 * wait for (the plane's IN_FENCE_FD) and give one that signals when the
 * frame is on screen (the CRTC's OUT_FENCE_PTR) and one that signals when
 * the writeback framebuffer holds it (WRITEBACK_OUT_FENCE_PTR).
 * llmem_display_close() puts the CRTC back as it found it (or turns it off
 * when that fails), then removes the framebuffers and closes the GEM
 * handles, in that order.
 *
 * fds: the display opens its device node and closes it in
 * llmem_display_close(); every fd it takes (a frame's DMA-BUF, an
 * in-fence) stays the caller's; every fd it gives (out-fences) is a new,
 * close-on-exec sync_file, the caller's to close.
 *
 * Errors name the call and the device in llmem_last_error(), e.g.
 * "drmModeAtomicCommit on /dev/dri/card1 (vkms): Invalid argument".
 *
 * Thread-safety: a display, its framebuffers and its commits are used from
 * one thread at a time.  The llmem_drm_* queries share no state and may be
 * called from any thread.
 */
#ifndef LLMEM_DISPLAY_H
#define LLMEM_DISPLAY_H

#include <stdint.h>

#include "frame.h"
#include "negotiate.h"
#include "share.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;
struct llmem_queue;
struct llmem_display;
struct llmem_display_fb;

/* What a DRM device can do: llmem_drm_device.caps, llmem_display_info.caps. */
enum llmem_drm_caps {
	/* Modesetting: CRTCs, connectors and planes (drmIsKMS). */
	LLMEM_DRM_KMS = 1u << 0,
	/* DRM_CAP_PRIME has DRM_PRIME_CAP_IMPORT: it takes DMA-BUFs. */
	LLMEM_DRM_PRIME_IMPORT = 1u << 1,
	/* DRM_CAP_PRIME has DRM_PRIME_CAP_EXPORT. */
	LLMEM_DRM_PRIME_EXPORT = 1u << 2,
	/* It takes DRM_CLIENT_CAP_ATOMIC: atomic commits. */
	LLMEM_DRM_ATOMIC = 1u << 3,
	/* DRM_CAP_ADDFB2_MODIFIERS: framebuffers with a format modifier. */
	LLMEM_DRM_ADDFB2_MODIFIERS = 1u << 4,
	/* It has a writeback connector. */
	LLMEM_DRM_WRITEBACK = 1u << 5,
	/* DRM_CAP_DUMB_BUFFER: CPU-drawn buffers it can scan out. */
	LLMEM_DRM_DUMB_BUFFERS = 1u << 6,
	/* DRM_CAP_SYNCOBJ: sync objects, the fences of explicit sync. */
	LLMEM_DRM_SYNCOBJ = 1u << 7,
};

/* Lengths of the names below, NUL included. */
#define LLMEM_DRM_PATH_LEN 64
#define LLMEM_DRM_NAME_LEN 32
#define LLMEM_DRM_DESC_LEN 128

/**
 * struct llmem_drm_device - a DRM card as llmem sees it.
 * @path: its node, /dev/dri/cardN (or renderDN, llmem_drm_list_render_nodes()).
 * @driver: the kernel driver's name (DRM_IOCTL_VERSION), "" when it could
 *	not be opened.
 * @description: the driver's description of itself (DRM_IOCTL_VERSION),
 *	e.g. "Virtual Kernel Mode Setting".
 * @error: 0, or the negative errno open() gave (-EACCES without the rights).
 * @caps: enum llmem_drm_caps.
 * @crtcs: CRTCs.
 * @connectors: connectors, writeback ones left out.
 * @writeback_connectors: writeback connectors.
 * @planes: planes, primary, overlay and cursor.
 */
struct llmem_drm_device {
	char path[LLMEM_DRM_PATH_LEN];
	char driver[LLMEM_DRM_NAME_LEN];
	char description[LLMEM_DRM_DESC_LEN];
	int32_t error;
	uint32_t caps;
	uint32_t crtcs;
	uint32_t connectors;
	uint32_t writeback_connectors;
	uint32_t planes;
};

/**
 * llmem_drm_list_devices() - every /dev/dri/card* node, in number order.
 * @devices: receives up to @capacity of them; may be NULL with @capacity 0.
 * @capacity: entries in @devices.
 *
 * Each card is opened, asked and closed again; nothing is changed.  A node
 * that cannot be opened is listed with its @error.  This is the library's
 * one probe of DRM cards: llmem_display_open() finds its card through it,
 * and `llmem devices` and `llmem info` print it, with each card's planes
 * and their formats from llmem_drm_list_planes() and
 * llmem_drm_plane_formats().  With @capacity 0 only the names are read.
 *
 * Return: the number of cards (more than @capacity when they did not all
 * fit), 0 when /dev/dri does not exist; -EINVAL for NULL @devices with a
 * @capacity; -ENOMEM; opendir()'s errno for a /dev/dri it cannot read.
 */
int llmem_drm_list_devices(struct llmem_drm_device *devices, uint32_t capacity);

/**
 * llmem_drm_list_render_nodes() - every /dev/dri/renderD* node, in number
 * order, described as llmem_drm_list_devices() describes cards: a render
 * node never modesets, so only @driver, @description, @error and the PRIME,
 * dumb-buffer and sync-object @caps are set.
 *
 * Return: as llmem_drm_list_devices().
 */
int llmem_drm_list_render_nodes(struct llmem_drm_device *devices, uint32_t capacity);

/**
 * llmem_drm_get_device() - one card, by its node's path, as above.
 *
 * Return: 0; -EINVAL for NULL; open()'s errno (-ENOENT, -EACCES), named
 * with the path.
 */
int llmem_drm_get_device(const char *path, struct llmem_drm_device *device);

/* Plane types, as DRM_PLANE_TYPE_* numbers them. */
enum llmem_drm_plane_type {
	LLMEM_DRM_PLANE_OVERLAY = 0,
	LLMEM_DRM_PLANE_PRIMARY = 1,
	LLMEM_DRM_PLANE_CURSOR = 2,
};

/**
 * struct llmem_drm_plane - a plane of a KMS device.
 * @id: its object id.
 * @type: enum llmem_drm_plane_type.
 * @possible_crtcs: bit n set when it can be shown on the nth CRTC.
 * @crtc_id: the CRTC it is on now, or 0.
 * @fb_id: the framebuffer it shows now, or 0.
 * @format_count: the (fourcc, modifier) pairs it scans out
 *	(llmem_drm_plane_formats()).
 */
struct llmem_drm_plane {
	uint32_t id;
	uint32_t type;
	uint32_t possible_crtcs;
	uint32_t crtc_id;
	uint32_t fb_id;
	uint32_t format_count;
};

/* A format a plane scans out: a DRM fourcc and a DRM format modifier. */
struct llmem_drm_format {
	uint32_t fourcc;
	uint32_t reserved;
	uint64_t modifier;
};

/**
 * llmem_drm_list_planes() - the planes of the KMS device at @path.
 * @planes: receives up to @capacity of them, in the device's order; may be
 *	NULL with @capacity 0.
 *
 * Return: the number of planes (more than @capacity when they did not all
 * fit); -EINVAL for a NULL @path, or NULL @planes with a @capacity;
 * -ENODEV for a device that is not a KMS device; open()'s and the driver's
 * errno, named with the call and the device.
 */
int llmem_drm_list_planes(const char *path, struct llmem_drm_plane *planes, uint32_t capacity);

/**
 * llmem_drm_plane_formats() - the (fourcc, modifier) pairs plane @plane_id of
 * the KMS device at @path scans out.
 * @formats: receives up to @capacity of them; may be NULL with @capacity 0.
 *
 * From the plane's IN_FORMATS blob where it has one; otherwise each of its
 * formats with DRM_FORMAT_MOD_LINEAR.
 *
 * Return: the number of pairs (more than @capacity when they did not all
 * fit); -EINVAL for a NULL @path, or NULL @formats with a @capacity;
 * -ENOENT for no plane @plane_id; -ENODEV for a device that is not a KMS
 * device; open()'s and the driver's errno, named with the call and the
 * device.
 */
int llmem_drm_plane_formats(const char *path, uint32_t plane_id, struct llmem_drm_format *formats,
			    uint32_t capacity);

enum llmem_display_flags {
	/*
	 * The CRTC drives the device's writeback connector, which writes what
	 * the CRTC shows into the framebuffer each commit names
	 * (llmem_display_commit_info.writeback), instead of the output
	 * connector.  Drivers whose encoders cannot clone (vkms) drive one or
	 * the other: the output connector is detached from the CRTC while the
	 * display lives.
	 */
	LLMEM_DISPLAY_WRITEBACK = 1u << 0,
};

struct llmem_display_create_info {
	/* The KMS device's node; leave NULL for the first /dev/dri/card* that
	 * does modesetting, imports DMA-BUFs and takes atomic commits (a
	 * render-only device such as vgem is passed over).  Copied. */
	const char *device;
	/* The output connector; leave 0 for the first connected one.  With
	 * LLMEM_DISPLAY_WRITEBACK it gives the mode's size only. */
	uint32_t connector_id;
	/* The mode, in pixels; leave both 0 for the output connector's
	 * preferred mode.  A mode of that size must be in the driven
	 * connector's list. */
	uint32_t width;
	uint32_t height;
	/* enum llmem_display_flags; leave 0 for an output connector. */
	uint32_t flags;
};

/**
 * struct llmem_display_info - what a display runs on.
 * @device: the device's node.
 * @driver: the kernel driver's name.
 * @caps: enum llmem_drm_caps of the device.
 * @flags: enum llmem_display_flags in effect.
 * @crtc_id: the CRTC.
 * @plane_id: its primary plane, which shows the framebuffers.
 * @connector_id: the output connector (detached from the CRTC with
 *	LLMEM_DISPLAY_WRITEBACK).
 * @writeback_id: the writeback connector the CRTC drives; 0 without
 *	LLMEM_DISPLAY_WRITEBACK.
 * @width: the mode's width in pixels.
 * @height: the mode's height in pixels.
 * @refresh: the mode's refresh rate in Hz.
 * @format_count: the (fourcc, modifier) pairs the primary plane scans out
 *	(llmem_display_formats()).
 */
struct llmem_display_info {
	char device[LLMEM_DRM_PATH_LEN];
	char driver[LLMEM_DRM_NAME_LEN];
	uint32_t caps;
	uint32_t flags;
	uint32_t crtc_id;
	uint32_t plane_id;
	uint32_t connector_id;
	uint32_t writeback_id;
	uint32_t width;
	uint32_t height;
	uint32_t refresh;
	uint32_t format_count;
};

/**
 * llmem_display_open() - open a KMS device and choose its pipe.
 * @info: the choices; NULL for all defaults.
 * @out: the new display.
 *
 * Opens the device, becomes an atomic client (with writeback connectors
 * where asked), chooses the connector, a CRTC its encoders reach with a
 * primary plane, and the mode, and notes the state of what it will touch so
 * that llmem_display_close() can put it back.  Nothing is shown before the
 * first commit.  Commits need the device's DRM master, which the first
 * process to open a device without one holds.
 *
 * Return: 0; -EINVAL for a NULL @out, unknown flags, a size of which one
 * side only is 0, no connector @connector_id, or no mode of the size asked
 * for (the message lists the sizes there are); -ENODEV when the device is
 * not a KMS device or, without a device given, none qualifies (the message
 * says what each lacked; -EMFILE, -ENFILE or -ENOMEM instead when a card
 * could not be probed for want of them), or no output connector is connected; -ENOTSUP for
 * a device that imports no DMA-BUFs, takes no atomic commits or, with
 * LLMEM_DISPLAY_WRITEBACK, has no writeback connector; open()'s and the
 * driver's errno, named with the call and the device; -ENOMEM.
 */
int llmem_display_open(const struct llmem_display_create_info *info, struct llmem_display **out);

/*
 * Puts the CRTC, its primary plane and the connectors back as the display
 * found them (or turns the CRTC off when that fails), removes every
 * framebuffer still made, closes the GEM handles and the device.  NULL is
 * fine.
 */
void llmem_display_close(struct llmem_display *display);

/* Return: 0, or -EINVAL for NULL. */
int llmem_display_get_info(const struct llmem_display *display, struct llmem_display_info *info);

/**
 * llmem_display_formats() - the (fourcc, modifier) pairs the display's
 * primary plane scans out, as llmem_drm_plane_formats() gives them.
 *
 * Return: their number (more than @capacity when they did not all fit);
 * -EINVAL for NULL @display, or NULL @formats with a @capacity.
 */
int llmem_display_formats(const struct llmem_display *display, struct llmem_drm_format *formats,
			  uint32_t capacity);

enum llmem_display_fb_flags {
	/* A framebuffer for the writeback connector to write: its format is
	 * checked against WRITEBACK_PIXEL_FORMATS, not the plane's. */
	LLMEM_DISPLAY_FB_WRITEBACK = 1u << 0,
};

/**
 * llmem_display_fb_create() - a framebuffer of a frame in any DMA-BUF.
 * @frame: the frame (llmem_buffer_export_frame(), or another driver's); its
 *	fd stays the caller's, the framebuffer holds its own reference.
 * @flags: enum llmem_display_fb_flags; 0 for a frame to show.
 * @out: the new framebuffer, the display's until it is destroyed or the
 *	display closed.
 *
 * Checks the frame's (fourcc, modifier) against what the primary plane
 * scans out (or the writeback connector writes), imports the DMA-BUF
 * (drmPrimeFDToHandle: one GEM handle per DMA-BUF, shared by the
 * framebuffers made of it) and makes the framebuffer (drmModeAddFB2, or
 * drmModeAddFB2WithModifiers where the device takes modifiers).
 *
 * Return: 0; -EINVAL for NULL arguments, unknown flags, 0 or more than
 * LLMEM_FRAME_MAX_PLANES planes, a writeback framebuffer on a display
 * without LLMEM_DISPLAY_WRITEBACK, or one of another size than the mode;
 * -ENOTSUP for a format or modifier the plane (or the writeback connector)
 * does not take, the message naming it and listing those it takes, or a
 * modifier other than LINEAR on a device without framebuffer modifiers;
 * the driver's errno for the import and the framebuffer, named with the call
 * and the device.
 */
int llmem_display_fb_create(struct llmem_display *display, const struct llmem_dmabuf_frame *frame,
			    uint32_t flags, struct llmem_display_fb **out);

/**
 * llmem_display_fb_create_from_buffer() - a framebuffer of the frame laid
 * out as @layout in @buffer: llmem_buffer_export_frame() (the page's
 * DMA-BUF, the frame's offsets in it), then llmem_display_fb_create().
 *
 * Return: as llmem_buffer_export_frame() and llmem_display_fb_create().
 */
int llmem_display_fb_create_from_buffer(struct llmem_display *display, struct llmem_buffer *buffer,
					const struct llmem_frame_layout *layout, uint32_t flags,
					struct llmem_display_fb **out);

/**
 * llmem_display_fb_destroy() - remove a framebuffer (drmModeRmFB) and close
 * its GEM handles that no other framebuffer uses.
 *
 * Return: 0; -EINVAL for NULL; -EBUSY for the framebuffer on screen (show
 * another first, or close the display); the driver's errno.
 */
int llmem_display_fb_destroy(struct llmem_display_fb *fb);

/* The framebuffer's object id, as drm_info and modetest show it; 0 for NULL. */
uint32_t llmem_display_fb_id(const struct llmem_display_fb *fb);

enum llmem_display_commit_flags {
	/* Return once the commit is queued (DRM_MODE_ATOMIC_NONBLOCK): the
	 * out-fences say when it is done.  A later commit that comes before
	 * the device has finished it fails with -EBUSY, a blocking one
	 * waits. */
	LLMEM_DISPLAY_COMMIT_NONBLOCK = 1u << 0,
	/* @in_fence is a sync_file the plane waits for before it shows the
	 * framebuffer (IN_FENCE_FD). */
	LLMEM_DISPLAY_COMMIT_IN_FENCE = 1u << 1,
	/* Give result.out_fence, a sync_file that signals when the frame is
	 * on screen (the CRTC's OUT_FENCE_PTR). */
	LLMEM_DISPLAY_COMMIT_OUT_FENCE = 1u << 2,
};

/**
 * struct llmem_display_commit_info - one atomic commit.
 * @fb: the framebuffer the primary plane shows, at the top left of the
 *	mode, at its own size.
 * @flags: enum llmem_display_commit_flags; leave 0 for a blocking commit
 *	without fences.
 * @in_fence: with LLMEM_DISPLAY_COMMIT_IN_FENCE, a sync_file (a device's or
 *	another process's work on @fb's buffer: llmem_buffer_export_sync_file(),
 *	llmem_queue_signal_sync_file()); stays the caller's.  Without an
 *	in-fence the plane waits for the writers' fences of the buffer's
 *	DMA-BUF instead (implicit sync).
 * @after: leave NULL; or a queue whose work so far writes @fb's frame: the
 *	frame is shown once it is done.  Where the device exports sync_files
 *	(LLMEM_CAP_SYNC_FD_EXPORT) the queue's sync_file becomes the in-fence
 *	and nothing waits on the CPU; elsewhere (lavapipe) the call waits for
 *	the queue (llmem_queue_finish()) before it commits, and says so in
 *	result.waited_on_cpu.  Not with LLMEM_DISPLAY_COMMIT_IN_FENCE.
 * @writeback: with LLMEM_DISPLAY_WRITEBACK, a framebuffer made with
 *	LLMEM_DISPLAY_FB_WRITEBACK for the writeback connector to write the
 *	frame into; result.writeback_fence signals when it has.  Leave NULL
 *	for none.
 */
struct llmem_display_commit_info {
	struct llmem_display_fb *fb;
	uint32_t flags;
	int in_fence;
	struct llmem_queue *after;
	struct llmem_display_fb *writeback;
};

/**
 * struct llmem_display_commit_result - what a commit gives back.
 * @out_fence: with LLMEM_DISPLAY_COMMIT_OUT_FENCE, a new sync_file that
 *	signals when the frame is on screen; -1 otherwise.  The caller's.
 * @writeback_fence: with a writeback framebuffer, a new sync_file that
 *	signals when it holds the frame; -1 otherwise.  The caller's.
 * @modeset: 1 when this commit set the mode (the display's first).
 * @waited_on_cpu: 1 when @after was waited for on the CPU.
 */
struct llmem_display_commit_result {
	int out_fence;
	int writeback_fence;
	uint32_t modeset;
	uint32_t waited_on_cpu;
};

/**
 * llmem_display_commit() - show a framebuffer with one atomic commit.
 * @result: receives the fences; NULL when none is asked for.
 *
 * The display's first commit sets the mode, turns the CRTC on and attaches
 * the driven connector (DRM_MODE_ATOMIC_ALLOW_MODESET); the next ones only
 * flip the plane to another framebuffer.  Without
 * LLMEM_DISPLAY_COMMIT_NONBLOCK the call returns once the frame is on
 * screen (the device waited for the in-fence first).
 *
 * Return: 0; -EINVAL for NULL @display or @info, unknown flags, a NULL or
 * a writeback @fb, a @writeback framebuffer that is not one or on a display
 * without LLMEM_DISPLAY_WRITEBACK, fences asked for without @result, an
 * @in_fence that is not a sync_file, or both @in_fence and @after; -EBADF
 * for an @in_fence that is not open; -EBUSY for a non-blocking commit while
 * the last one is not done; -EACCES when another process is the device's DRM
 * master; the driver's errno otherwise, named with the call and the device.
 * On failure nothing changed on screen and @result holds no fd.
 */
int llmem_display_commit(struct llmem_display *display,
			 const struct llmem_display_commit_info *info,
			 struct llmem_display_commit_result *result);

/**
 * llmem_participant_kms_plane() - what a KMS plane scans out (negotiate.h).
 * @path: the card, e.g. "/dev/dri/card0".
 * @plane_id: the plane; 0 for the first primary plane.
 * @out: the statement.
 *
 * Fourccs llmem lays out and their modifiers from IN_FORMATS (reported;
 * the plane's format list, linear, where it has no IN_FORMATS); the size
 * bounds from the mode config (reported); the pitch alignment by test
 * framebuffers (DRM_IOCTL_MODE_ADDFB2) of a 32- or 16-bit format the plane
 * takes over a scratch dumb buffer, at the row plus 1, 2, 4 ... 256 bytes:
 * the smallest taken (probed), unknown where none is or the device has no
 * dumb buffers.  Neither ADDFB2 nor dumb buffers need DRM master, so
 * another process may drive the display meanwhile.
 *
 * Return: 0; -EINVAL for NULL arguments; -ENOENT for no such plane (or,
 * for @plane_id 0, no primary plane);
 * -ENODEV for a device that is not a KMS device; the driver's errors,
 * named with the call and the device.
 */
int llmem_participant_kms_plane(const char *path, uint32_t plane_id, struct llmem_participant *out);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_DISPLAY_H */
