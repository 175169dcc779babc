/* SPDX-License-Identifier: MIT */
/*
 * Frames: where the planes of a picture lie inside a buffer, described the
 * way V4L2, DRM/KMS (drmModeAddFB2) and codecs take it: a DRM fourcc, a
 * modifier, and per plane an offset and a pitch.  Layouts are linear
 * (DRM_FORMAT_MOD_LINEAR), which every importer of shared frames accepts.
 *
 * Formats: DRM_FORMAT_YUYV, DRM_FORMAT_NV12, DRM_FORMAT_ABGR8888 (bytes
 * R, G, B, A in memory: what the conversion shaders write by default), and
 * DRM_FORMAT_XRGB8888 and DRM_FORMAT_ARGB8888 (bytes B, G, R, X or A in
 * memory: what displays scan out; the shaders write them too).  For YUYV
 * and NV12 the DRM fourcc is the same code as the V4L2 pixel format.
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
 * @width: pixels.
 * @height: pixels.
 * @num_planes: 2 for NV12, 1 for the others.
 * @modifier: DRM format modifier; always DRM_FORMAT_MOD_LINEAR (0) here.
 * @offset: bytes from the start of the buffer to each plane.
 * @pitch: bytes per row of each plane.
 * @size: bytes the whole frame occupies from offset 0.
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
 */
struct llmem_frame_constraints {
	uint32_t pitch;
	uint32_t pitch_alignment;
	uint32_t plane_alignment;
	uint64_t min_size;
};

/**
 * llmem_frame_layout_init() - lay out a frame for its importer and Vulkan.
 * @fourcc: DRM fourcc, one of those above.
 * @width: pixels; even for YUYV and NV12.
 * @height: pixels; even for NV12.
 * @constraints: the importer's demands; NULL for none.
 * @layout: receives the layout.
 *
 * The library's own demands (the conversion shaders read YUYV and write
 * RGBA a 32-bit word at a time, so those pitches and offsets are multiples
 * of 4) are merged with the importer's; when they cannot both be met the
 * call fails and the message names the constraint that cannot be.
 *
 * Return: 0; -EINVAL for an unsupported fourcc, a zero or odd size the
 * format cannot have, a pitch below a row's bytes, alignments that are not
 * powers of two, or constraints that conflict; -EOVERFLOW when the frame
 * would exceed 4 GiB.
 */
int llmem_frame_layout_init(uint32_t fourcc, uint32_t width, uint32_t height,
			    const struct llmem_frame_constraints *constraints,
			    struct llmem_frame_layout *layout);

#ifdef __cplusplus
}
#endif

#endif
