/* SPDX-License-Identifier: MIT */
/*
 * GPU conversion between camera frames and RGBA, in place on shared memory:
 * the compute shaders read a frame where the camera (or another device)
 * wrote it and write the other form where its reader (a display, an
 * encoder) takes it.  YUYV and NV12 become ABGR8888, XRGB8888 or ARGB8888;
 * those RGB frames become YUYV or NV12 again, so that what a shader drew
 * feeds an encoder.  24-bit RGB frames, BGR888 (bytes R, G, B: V4L2's
 * RGB24) and RGB888 (bytes B, G, R: V4L2's BGR24), what libcamera's
 * cameras give, become ABGR8888, XRGB8888 or ARGB8888 too: each channel's
 * byte as it is, alpha 255.  They are sources only.
 *
 * Y'CbCr to R'G'B' and back use the matrix (BT.601 or BT.709) and range
 * (limited or full) given, rounding to nearest; a 24-bit RGB source has no
 * Y'CbCr, and its conversion ignores them.  RGB to YUV: each chroma
 * sample is the mean of the Cb and Cr of the pixels it covers, 2x1 for
 * YUYV and 2x2 for NV12, so it is sited in the middle of them (the siting
 * JPEG and MPEG-1 use, and libyuv's ARGBToNV12; GStreamer calls it
 * "jpeg").  A last odd column or row is covered by itself.
 *
 * Frames in flight: a converter (llmem_converter_create()) records the
 * commands of each (source, destination) pair once; llmem_converter_submit()
 * hands a frame to the device and returns, and the caller learns of its end
 * by its ticket: it waits for it or polls (llmem_converter_wait(),
 * llmem_converter_completed()), or exports it as a sync_file where the
 * device can (llmem_converter_export_sync_file()).  At most
 * frames_in_flight conversions are unfinished at once: a submission beyond
 * that waits for the oldest first.
 *
 * Thread-safety: llmem_convert() and llmem_convert_to_rgba() may be called
 * from any thread; they take the session's queue for the submission only.
 * A converter is used by one thread at a time (the caller serialises every
 * call on it but llmem_converter_completed(), which any thread may call).
 */
#ifndef LLMEM_CONVERT_H
#define LLMEM_CONVERT_H

#include <stdint.h>

#include <llmem/frame.h>

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;
struct llmem_session;

/* The Y'CbCr to R'G'B' matrix; 0 is BT.601, what V4L2 defaults to. */
enum llmem_ycbcr_encoding {
	LLMEM_YCBCR_BT601 = 0,
	LLMEM_YCBCR_BT709 = 1,
};

/* 0 is limited range (Y 16-235, Cb/Cr 16-240), what cameras send. */
enum llmem_ycbcr_range {
	LLMEM_YCBCR_LIMITED_RANGE = 0,
	LLMEM_YCBCR_FULL_RANGE = 1,
};

/**
 * struct llmem_convert_info - one frame to convert.
 * @src: the buffer holding the frame: YUYV or NV12 (NV12's Y plane only,
 *	with @src_chroma), RGB (ABGR8888, XRGB8888, ARGB8888), or 24-bit RGB
 *	(BGR888, RGB888).
 * @src_layout: where the frame lies in @src; with @src_chroma, offset[1]
 *	and pitch[1] are those of the CbCr plane in @src_chroma.
 * @dst: the buffer to receive the converted frame; another buffer than @src.
 * @dst_layout: a layout of the same width and height in the other form:
 *	for a YUV or 24-bit RGB source ABGR8888 (bytes R, G, B, A in memory)
 *	or XRGB8888 or ARGB8888 (bytes B, G, R, A: what displays scan out),
 *	alpha 255; for an RGBA source YUYV or NV12 (both planes in @dst;
 *	alpha is ignored).
 * @encoding: enum llmem_ycbcr_encoding; leave 0 for BT.601.  Ignored for a
 *	24-bit RGB source (but a value outside the enum is still refused).
 * @range: enum llmem_ycbcr_range; leave 0 for limited range.  Ignored for
 *	a 24-bit RGB source, as @encoding.
 * @src_chroma: for an NV12 source whose CbCr plane is a buffer of its own (a
 *	camera's NV12M, a DMA-BUF per plane): that buffer; leave NULL when
 *	both planes are in @src.
 */
struct llmem_convert_info {
	struct llmem_buffer *src;
	const struct llmem_frame_layout *src_layout;
	struct llmem_buffer *dst;
	const struct llmem_frame_layout *dst_layout;
	uint32_t encoding;
	uint32_t range;
	struct llmem_buffer *src_chroma;
};

/**
 * llmem_convert() - convert one frame on the device, YUV to RGB or RGB to YUV.
 * @info: what to convert.
 *
 * Blocking: when it returns the converted frame is in @dst, and host-visible
 * memory can be read (after llmem_buffer_invalidate() where not coherent).
 * Both buffers need LLMEM_BUFFER_STORAGE usage (the default).  It records
 * its commands anew each call: to convert a stream, use a converter.
 *
 * The shaders read and write storage buffers a 32-bit word at a time, and
 * no two of their invocations write one word: YUYV and RGBA planes, and
 * both planes of an NV12 destination, start and are pitched at multiples
 * of 4 (an NV12 or 24-bit RGB source at any byte), and YUYV frames are an
 * even number of pixels wide.  An NV12 destination of a width that is not
 * a multiple of 4 keeps the bytes past the frame in its rows' last words.
 * A 24-bit RGB source may be any size at any pitch (642 pixels at 1926
 * bytes a row), in a buffer of any size; only the picture's bytes are
 * read, and the destination's bytes past the picture are kept.
 *
 * Return: 0; -EINVAL for NULL arguments, a pair of formats other than YUYV
 * or NV12 with ABGR8888, XRGB8888 or ARGB8888 (either way), or BGR888 or
 * RGB888 to one of those three (a BGR888 or RGB888 destination among
 * them), sizes that differ, a layout that does not fit its buffer (with @src_chroma, a plane
 * that does not fit its buffer), a plane off the alignment above, a pitch
 * below a row, a plane past 4 GiB, an NV12 destination whose planes
 * overlap, a modifier other than linear, the destination also a source, a
 * @src_chroma for anything but an NV12 source, buffers of two sessions, an
 * unknown encoding or range, or a buffer without storage usage; -EIO or
 * -ENOMEM when Vulkan fails.
 */
int llmem_convert(const struct llmem_convert_info *info);

/**
 * llmem_convert_to_rgba() - llmem_convert() of a YUYV, NV12, BGR888 or
 * RGB888 frame to RGBA.
 * @info: what to convert.
 *
 * Return: as llmem_convert(); -EINVAL also for an RGBA source.
 */
int llmem_convert_to_rgba(const struct llmem_convert_info *info);

struct llmem_converter;

enum llmem_converter_flags {
	/* Each submission can also be exported as a sync_file
	 * (llmem_converter_export_sync_file()).  Needs LLMEM_CAP_SYNC_FD_EXPORT. */
	LLMEM_CONVERTER_SYNC_FILES = 1u << 0,
};

/**
 * struct llmem_converter_create_info - a conversion repeated frame after
 * frame: its layouts and colour, and optionally the buffers it will see.
 * @srcs: source buffers known up front, laid out as @src_layout, recorded at
 *	creation and named by index in llmem_converter_run(); leave NULL (and
 *	@src_count 0) to name buffers per frame with llmem_converter_submit().
 * @src_count: how many @srcs.
 * @src_layout: where the frame lies in each source.
 * @dst: the destination of llmem_converter_run(); leave NULL when only
 *	llmem_converter_submit() is used.
 * @dst_layout: the converted frame's layout, of the same size in the other
 *	form, as for llmem_convert().
 * @encoding: enum llmem_ycbcr_encoding; leave 0 for BT.601.
 * @range: enum llmem_ycbcr_range; leave 0 for limited range.
 * @chroma_srcs: for NV12 sources whose CbCr plane is a buffer of its own:
 *	that buffer of each of @srcs, as llmem_convert_info's @src_chroma;
 *	leave NULL when both planes are in @srcs.
 * @frames_in_flight: how many submitted conversions may be unfinished at
 *	once, 1 to 16; leave 0 for 2.
 * @flags: enum llmem_converter_flags; leave 0.
 * @session: the session whose device converts; leave NULL to take @dst's,
 *	or without @dst the first frame's (LLMEM_CONVERTER_SYNC_FILES needs
 *	it known at creation: give @session or @dst).
 */
struct llmem_converter_create_info {
	struct llmem_buffer *const *srcs;
	uint32_t src_count;
	const struct llmem_frame_layout *src_layout;
	struct llmem_buffer *dst;
	const struct llmem_frame_layout *dst_layout;
	uint32_t encoding;
	uint32_t range;
	struct llmem_buffer *const *chroma_srcs;
	uint32_t frames_in_flight;
	uint32_t flags;
	struct llmem_session *session;
};

/**
 * llmem_converter_create() - a converter for frames of two layouts.
 * @info: the layouts, colour and buffers known up front; the converter does
 *        not keep buffers alive: destroy it before them.
 * @out: the new converter.
 *
 * Return: 0; the errors of llmem_convert() for the layouts and for any
 * source given with @dst; -EINVAL for @srcs without @src_count or the
 * reverse, a @frames_in_flight past 16, unknown @flags, a @dst of another
 * session than @session, or LLMEM_CONVERTER_SYNC_FILES with neither;
 * -ENOTSUP for LLMEM_CONVERTER_SYNC_FILES where the device exports no
 * sync_file; -ENOMEM or -EIO when Vulkan fails.
 */
int llmem_converter_create(const struct llmem_converter_create_info *info,
			   struct llmem_converter **out);

/**
 * struct llmem_convert_frame - the buffers of one conversion.
 * @src: the source frame, laid out as the converter's source layout.
 * @src_chroma: an NV12 source's CbCr plane in a buffer of its own, or NULL.
 * @dst: the destination, laid out as the converter's destination layout.
 */
struct llmem_convert_frame {
	struct llmem_buffer *src;
	struct llmem_buffer *src_chroma;
	struct llmem_buffer *dst;
};

/**
 * llmem_converter_submit() - hand one frame's conversion to the device and
 * return without waiting for it.
 * @converter: the converter.
 * @frame: its buffers.  A combination of buffers is checked and its commands
 *	recorded the first time it is submitted, and reused after: the cost
 *	of a frame is then one queue submission.  Up to 64 combinations are
 *	kept, the least recently used dropped past that.
 * @ticket: receives the conversion's ticket, one more than the last.
 *	Conversions of one converter finish in the order they were submitted.
 *
 * Until its ticket is done, the source must not be written, the
 * destination neither read nor written, and neither destroyed.  When
 * frames_in_flight conversions are unfinished, waits for the oldest first.
 *
 * Return: 0; the errors of llmem_convert() for the buffers; -EINVAL for a
 * NULL argument; -EIO or -ENOMEM when Vulkan fails.
 */
int llmem_converter_submit(struct llmem_converter *converter,
			   const struct llmem_convert_frame *frame, uint64_t *ticket);

/**
 * llmem_converter_wait() - wait until conversion @ticket is done.
 * @converter: the converter.
 * @ticket: a ticket llmem_converter_submit() handed out.
 * @timeout_ns: how long to wait; 0 only asks; UINT64_MAX waits for ever.
 *
 * Return: 0 once it is done (and every earlier one); -ETIMEDOUT when it was
 * not done in time; -EINVAL for a NULL converter, ticket 0 or a ticket not
 * yet handed out; -EIO when the device is lost.
 */
int llmem_converter_wait(struct llmem_converter *converter, uint64_t ticket, uint64_t timeout_ns);

/**
 * llmem_converter_completed() - the last ticket known done, without
 * waiting: it and every ticket before it are done (0: none yet).
 * @converter: the converter; NULL gives 0.
 */
uint64_t llmem_converter_completed(struct llmem_converter *converter);

/**
 * llmem_converter_export_sync_file() - a sync_file that signals when
 * conversion @ticket is done, for poll(2), another device or process (a
 * display's in-fence, an encoder's queue).
 * @converter: a converter made with LLMEM_CONVERTER_SYNC_FILES.
 * @ticket: a ticket llmem_converter_submit() handed out and not yet waited
 *	for or seen done (a done one has nothing left to wait for).
 * @fd: receives a new close-on-exec sync_file, the caller's to close.
 *
 * Return: 0; -EINVAL for NULL arguments, a converter made without the flag,
 * or a ticket not handed out; -ENOENT for a ticket already found done;
 * -EIO when the export fails; -EMFILE when no fd is free.
 */
int llmem_converter_export_sync_file(struct llmem_converter *converter, uint64_t ticket, int *fd);

/**
 * llmem_converter_run() - convert the frame in source @index into the
 * converter's @dst, and wait for it.
 * @converter: a converter made with @srcs and @dst.
 * @index: which of @srcs.
 *
 * Return: 0; -EINVAL for NULL, an @index past the sources or a converter
 * without a @dst; -EIO.
 */
int llmem_converter_run(struct llmem_converter *converter, uint32_t index);

/* Waits for every submitted conversion, then destroys the converter; NULL
 * is ignored. */
void llmem_converter_destroy(struct llmem_converter *converter);

#ifdef __cplusplus
}
#endif

#endif
