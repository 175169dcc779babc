/* SPDX-License-Identifier: MIT */
/*
 * Frames: where the planes of a picture lie inside a buffer, described the
 * way V4L2, DRM/KMS (drmModeAddFB2) and codecs take it: a DRM fourcc, a
 * modifier, and per plane an offset and a pitch.  Layouts are linear
 * (DRM_FORMAT_MOD_LINEAR), which every importer of shared frames accepts.
 *
 * A frame may be coded larger than its picture: an encoder codes whole
 * blocks (H.264 codes 1920x1080 as 1920x1088, vicodec rounds to 8 or 16
 * pixels), so its frames have rows and columns of padding right of and
 * below the picture.  @width and @height are the picture, at the top left;
 * @coded_width and @coded_height the frame the planes are laid out for.  A
 * reader that knows nothing of padding reads the picture right: the
 * pitches and plane offsets are the coded frame's, the width and height
 * the picture's.
 * This is V4L2's coded size and crop (encoders) or compose (decoders)
 * rectangle, and GstVideoAlignment's padding.
 *
 * Formats: DRM_FORMAT_YUYV, DRM_FORMAT_NV12, DRM_FORMAT_ABGR8888 (bytes
 * R, G, B, A in memory: what the conversion shaders write by default), and
 * DRM_FORMAT_XRGB8888 and DRM_FORMAT_ARGB8888 (bytes B, G, R, X or A in
 * memory: what displays scan out; the shaders write them too), and
 * DRM_FORMAT_BGR888 (bytes R, G, B: V4L2's RGB24) and DRM_FORMAT_RGB888
 * (bytes B, G, R: V4L2's BGR24), three bytes a pixel as cameras give them
 * (libcamera's vimc), of any size and at any pitch: the shaders read them
 * only.  For YUYV and NV12 the DRM fourcc is the same code as the V4L2
 * pixel format; the 24-bit names are swapped between DRM and V4L2.
 */
#ifndef LLMEM_FRAME_H
#define LLMEM_FRAME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LLMEM_FRAME_MAX_PLANES 4

/**
 * struct llmem_frame_layout - a frame's planes inside one buffer.
 * @fourcc: DRM fourcc.
 * @width: pixels of the picture.
 * @height: rows of the picture.
 * @num_planes: 2 for NV12, 1 for the others.
 * @modifier: DRM format modifier; always DRM_FORMAT_MOD_LINEAR (0) here.
 * @offset: bytes from the start of the buffer to each plane.
 * @pitch: bytes per row of each plane.
 * @size: bytes the whole frame occupies from offset 0.
 * @coded_width: pixels of the coded frame's rows: the picture's and the
 *	padding right of them.  0 reads as @width (a layout made before
 *	frames had padding); the library's own layouts always fill it in.
 * @coded_height: rows of the coded frame: the picture's and the padding
 *	below them, which the planes' offsets count (NV12's CbCr plane
 *	follows the Y plane's @coded_height rows).  0 reads as @height.
 */
struct llmem_frame_layout {
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t num_planes;
	uint64_t modifier;
	uint64_t offset[LLMEM_FRAME_MAX_PLANES];
	uint32_t pitch[LLMEM_FRAME_MAX_PLANES];
	uint64_t size;
	uint32_t coded_width;
	uint32_t coded_height;
};

/**
 * struct llmem_frame_constraints - what the frame's importer demands.
 * @pitch: the exact pitch of plane 0 the importer uses (a V4L2 driver's
 *         bytesperline); leave 0 to let the library choose.
 * @pitch_alignment: every plane's pitch a multiple of this (a power of
 *                   two, e.g. a display engine's 64 or 256); leave 0 for
 *                   no demand.
 * @plane_alignment: every plane's offset a multiple of this (a power of
 *                   two); leave 0 for no demand.
 * @min_size: the frame must span at least this many bytes (a V4L2 driver's
 *            sizeimage); leave 0 for no demand.
 * @coded_width: the coded frame's width, at least the picture's (an
 *               encoder's aligned size): the rows are laid out for it;
 *               leave 0 for the picture's width.
 * @coded_height: the coded frame's height, at least the picture's: the
 *                planes are laid out for it; leave 0 for the picture's.
 */
struct llmem_frame_constraints {
	uint32_t pitch;
	uint32_t pitch_alignment;
	uint32_t plane_alignment;
	uint64_t min_size;
	uint32_t coded_width;
	uint32_t coded_height;
};

/**
 * llmem_frame_layout_init() - lay out a frame for its importer and Vulkan.
 * @fourcc: DRM fourcc, one of those above.
 * @width: pixels of the picture; even for YUYV and NV12.
 * @height: rows of the picture; even for NV12.
 * @constraints: the importer's demands; NULL for none.
 * @layout: receives the layout.
 *
 * The library's own demands (the conversion shaders read YUYV and write
 * RGBA a 32-bit word at a time, so those pitches and offsets are multiples
 * of 4; BGR888 and RGB888 are read a byte at a time and have none: a
 * 642-pixel BGR888 row is pitched 1926) are merged with the importer's;
 * when they cannot both be met the call fails and the message names the
 * constraint that cannot be.
 *
 * The planes are laid out for the coded size (the constraints', or the
 * picture's), the layout's width and height are the picture's.
 *
 * Return: 0; -EINVAL for an unsupported fourcc, a zero or odd size the
 * format cannot have (the coded size too), a coded size below the
 * picture's, a pitch below a coded row's bytes, alignments that are not
 * powers of two, or constraints that conflict; -EOVERFLOW when the frame
 * would exceed 4 GiB.
 */
int llmem_frame_layout_init(uint32_t fourcc, uint32_t width, uint32_t height,
			    const struct llmem_frame_constraints *constraints,
			    struct llmem_frame_layout *layout);

/**
 * struct llmem_frame_padding - what one plane of a frame holds past the
 * picture, as GstVideoAlignment and V4L2's bytesperline count it.
 * @right: bytes of each of the plane's rows past the picture's: the coded
 *	width's columns and the pitch's own padding.
 * @bottom: rows of the plane past the picture's, up to the coded height's
 *	(half as many in NV12's CbCr plane).
 */
struct llmem_frame_padding {
	uint32_t right;
	uint32_t bottom;
};

/**
 * llmem_frame_layout_padding() - the padding of plane @plane of @layout.
 *
 * Return: 0; -EINVAL for NULL, a layout llmem does not lay out (its
 * fourcc, planes, a coded size below the picture's) or a @plane past its
 * planes.
 */
int llmem_frame_layout_padding(const struct llmem_frame_layout *layout, uint32_t plane,
			       struct llmem_frame_padding *out);

#ifdef __cplusplus
}
#endif

#endif
