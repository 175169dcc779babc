/* SPDX-License-Identifier: MIT */
/*
 * Negotiation: one frame layout that every device of a pipeline accepts.
 *
 * Each participant (a V4L2 queue, llmem_participant_v4l2() in v4l2.h; a KMS
 * plane, llmem_participant_kms_plane() in display.h; the Vulkan device for
 * a usage, the CPU, llmem.ko's contiguous pages) states what it accepts as
 * plain data: its capabilities (DRM fourccs, and per fourcc the modifiers
 * it takes) and its constraints (alignments, an exact pitch, bounds,
 * contiguity).  llmem_negotiate() intersects the capabilities, unions the
 * constraints (the least common multiple of alignments, the tightest
 * bounds) and lays the frame out for all of them at once, or names the
 * participant and the constraint that leaves nothing.
 *
 * The model is the Unix device memory allocator's (capabilities
 * intersected, constraints unioned); docs/negotiation.md sets it beside
 * minigbm's usage flags, PipeWire's and GStreamer's modifier negotiation.
 *
 * Every fact says where it came from: reported by the driver, or probed
 * (found by trial where the driver reports nothing), or assumed from what
 * the kind of device always demands.
 *
 * Frames may be coded larger than the picture (frame.h): a participant
 * states the alignment of the coded size it needs in columns and rows (an
 * encoder's blocks), or the coded size it takes for the picture asked for
 * (a V4L2 driver's answer), and whether it cannot take a picture smaller
 * than its frame.  The merge pads the frame to the least coded size all
 * alignments allow, and refuses only where a participant takes no padding
 * or states another coded size.
 *
 * Thread-safety: the calls touch only what they are given; a participant
 * is plain data, to copy, keep and send.
 */
#ifndef LLMEM_NEGOTIATE_H
#define LLMEM_NEGOTIATE_H

#include <stdint.h>

#include "frame.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_buffer;
struct llmem_session;

#define LLMEM_NEGOTIATE_MAX_FORMATS 32
#define LLMEM_NEGOTIATE_MAX_MODIFIERS 8
#define LLMEM_NEGOTIATE_MAX_PARTICIPANTS 16

/* Where a fact came from. */
enum llmem_fact_source {
	LLMEM_FACT_REPORTED = 1, /* the driver said so */
	LLMEM_FACT_PROBED = 2, /* found by trial: a try of a format, a test framebuffer */
	LLMEM_FACT_ASSUMED = 3, /* what this kind of device always needs */
};

enum llmem_participant_kind {
	LLMEM_PARTICIPANT_V4L2 = 1,
	LLMEM_PARTICIPANT_KMS_PLANE = 2,
	LLMEM_PARTICIPANT_VULKAN = 3,
	LLMEM_PARTICIPANT_CPU = 4,
	LLMEM_PARTICIPANT_LLMEM_CONTIGUOUS = 5,
	LLMEM_PARTICIPANT_OTHER = 6, /* stated by the caller */
	LLMEM_PARTICIPANT_CUDA = 7, /* llmem_participant_cuda() in cuda.h */
};

/**
 * struct llmem_format_caps - a fourcc a participant takes.
 * @fourcc: DRM fourcc (for YUYV and NV12 the V4L2 code is the same).
 * @num_modifiers: entries of @modifiers; 0 means linear only.
 * @source: enum llmem_fact_source.
 * @pitch: the exact pitch of plane 0 with this fourcc, 0 for none: a
 *	driver's bytesperline depends on the fourcc (YUYV's row is twice
 *	NV12's), so an exact pitch is a fact of the fourcc, not of the
 *	participant; its source is the participant's mark for LLMEM_C_PITCH.
 * @min_size: bytes a buffer of this fourcc must hold at least (a V4L2
 *	sizeimage), 0 for none; marked as the participant's LLMEM_C_MIN_SIZE.
 * @coded_width: the coded frame this fourcc takes for the picture asked
 *	for, where it is not the picture's own size (a V4L2 driver that rounds
 *	1000x562 YUYV up to 1008x568), 0 for none: @pitch and @min_size are
 *	for it, so the frame must be coded at exactly this size; marked as the
 *	participant's LLMEM_C_CODED_SIZE.
 * @coded_height: rows of that frame, 0 with @coded_width.
 * @column_alignment: the coded width a multiple of this with this fourcc
 *	(a codec's blocks: vicodec's 16 for YUYV and NV12), 0 for none; marked
 *	as the participant's LLMEM_C_COLUMN_ALIGNMENT.
 * @row_alignment: the coded height a multiple of this (vicodec's 8 for
 *	YUYV, 16 for NV12); marked as LLMEM_C_ROW_ALIGNMENT.
 * @flags: LLMEM_CONSTRAINT_NO_CROP_WIDTH and _HEIGHT for this fourcc
 *	alone (a capture queue that places NV12's CbCr plane after its own
 *	rows); marked as the participant's LLMEM_C_FLAGS.
 * @reserved: zero.
 * @modifiers: DRM format modifiers it takes with this fourcc.
 */
struct llmem_format_caps {
	uint32_t fourcc;
	uint32_t num_modifiers;
	uint32_t source;
	uint32_t pitch;
	uint64_t min_size;
	uint32_t coded_width;
	uint32_t coded_height;
	uint32_t column_alignment;
	uint32_t row_alignment;
	uint32_t flags;
	uint32_t reserved;
	uint64_t modifiers[LLMEM_NEGOTIATE_MAX_MODIFIERS];
};

/* Flags of struct llmem_constraints. */
enum llmem_constraint_flags {
	/* The frame must be physically contiguous (a DMA engine without an
	 * IOMMU: videobuf2-dma-contig, a scanout engine). */
	LLMEM_CONSTRAINT_CONTIGUOUS = 1u << 0,
	/* Each plane in a buffer (a DMA-BUF) of its own (V4L2's NV12M). */
	LLMEM_CONSTRAINT_PLANE_PER_FD = 1u << 1,
	/* All planes in one buffer (V4L2's NV12, a KMS framebuffer may take
	 * either, most codecs only this). */
	LLMEM_CONSTRAINT_PLANES_IN_ONE_FD = 1u << 2,
	/* It takes no picture narrower than its frame: the width it is told
	 * is the coded width (a V4L2 OUTPUT queue without a crop selection).
	 * Without it, a participant reads or writes the picture's columns of
	 * a frame coded wider (an encoder's crop, a KMS plane's source
	 * rectangle, a shader's extent, a camera's own width). */
	LLMEM_CONSTRAINT_NO_CROP_WIDTH = 1u << 3,
	/* It takes no picture shorter than its frame (a V4L2 capture queue
	 * of NV12 in one buffer without a compose rectangle, whose CbCr
	 * plane follows its own height's rows). */
	LLMEM_CONSTRAINT_NO_CROP_HEIGHT = 1u << 4,
};

/* Fields of struct llmem_constraints, as bits of its @probed and
 * @assumed masks. */
enum llmem_constraint_field {
	LLMEM_C_PITCH_ALIGNMENT = 1u << 0,
	LLMEM_C_PITCH = 1u << 1,
	LLMEM_C_PLANE_ALIGNMENT = 1u << 2,
	LLMEM_C_SIZE_ALIGNMENT = 1u << 3,
	LLMEM_C_MIN_SIZE = 1u << 4,
	LLMEM_C_WIDTH = 1u << 5,
	LLMEM_C_HEIGHT = 1u << 6,
	LLMEM_C_MAX_PITCH = 1u << 7,
	LLMEM_C_MAX_SIZE = 1u << 8,
	LLMEM_C_FLAGS = 1u << 9,
	LLMEM_C_BUFFERS = 1u << 10,
	LLMEM_C_COLUMN_ALIGNMENT = 1u << 11,
	LLMEM_C_ROW_ALIGNMENT = 1u << 12,
	LLMEM_C_CODED_SIZE = 1u << 13,
};

/**
 * struct llmem_constraints - what a participant demands of a frame's
 * layout.  Zero means no demand, in every field.
 * @pitch_alignment: every plane's pitch a multiple of this (a power of two
 *	or not: alignments merge by their least common multiple).
 * @pitch: the exact pitch of plane 0 the participant uses (a V4L2 driver
 *	that takes no other bytesperline).
 * @plane_alignment: every plane's offset a multiple of this.
 * @size_alignment: the buffer's size a multiple of this.
 * @min_size: bytes the buffer must hold at least (a V4L2 sizeimage).
 * @max_size: bytes a buffer may have at most (a contiguous block).
 * @min_width: pixels.
 * @max_width: pixels.
 * @min_height: pixels.
 * @max_height: pixels.
 * @max_pitch: bytes.
 * @flags: enum llmem_constraint_flags.
 * @min_buffers: buffers it needs to stream.
 * @probed: enum llmem_constraint_field bits of the fields found by trial.
 * @assumed: those taken from what the kind of device always needs; the
 *	others were reported by the driver.
 * @reserved: zero.
 * @column_alignment: the coded width a multiple of this many pixels (an
 *	encoder's macroblocks: 16 for H.264), for every fourcc.
 * @row_alignment: the coded height a multiple of this many rows.
 *
 * The width and height bounds hold for the picture (minimums) and for the
 * coded frame (maximums).
 */
struct llmem_constraints {
	uint32_t pitch_alignment;
	uint32_t pitch;
	uint32_t plane_alignment;
	uint32_t size_alignment;
	uint64_t min_size;
	uint64_t max_size;
	uint32_t min_width;
	uint32_t max_width;
	uint32_t min_height;
	uint32_t max_height;
	uint32_t max_pitch;
	uint32_t flags;
	uint32_t min_buffers;
	uint32_t probed;
	uint32_t assumed;
	uint32_t reserved;
	uint32_t column_alignment;
	uint32_t row_alignment;
};

/**
 * struct llmem_participant - one device's statement for one usage.
 * @name: who it is, as errors name it ("vkms plane 31", "vivid /dev/video0
 *	capture"); NUL-terminated.
 * @kind: enum llmem_participant_kind.
 * @num_formats: entries of @formats.
 * @formats: the fourccs it takes; an empty list takes any.
 * @constraints: its demands, for every fourcc it takes; an exact pitch and
 *	a minimum size that differ by fourcc are stated in @formats instead.
 * @device: where the library finds the device again to try frames on it
 *	(llmem_frames_check() in pipeline.h): the V4L2 node or the DRM card;
 *	empty for the CPU, for a statement made by the caller, and for one
 *	received from a peer (its devices are not this process's to ask: the
 *	wire format does not carry this field or @object).
 * @object: which part of @device: for a V4L2 queue 1 for OUTPUT and 0 for
 *	CAPTURE, for a KMS plane its object id, for the Vulkan device its
 *	enum llmem_vulkan_usage.
 * @reserved: zero.
 */
struct llmem_participant {
	char name[64];
	uint32_t kind;
	uint32_t num_formats;
	struct llmem_format_caps formats[LLMEM_NEGOTIATE_MAX_FORMATS];
	struct llmem_constraints constraints;
	char device[64];
	uint32_t object;
	uint32_t reserved;
};

/**
 * struct llmem_negotiate_request - what the frame is to be.
 * @width: pixels of the picture.
 * @height: rows of the picture.
 * @fourccs: DRM fourccs in the caller's order of preference; NULL for the
 *	library's own order (YUYV, NV12, XRGB8888, ARGB8888, ABGR8888).
 * @num_fourccs: entries of @fourccs.
 * @modifiers: modifiers in order of preference; NULL for linear only.
 * @num_modifiers: entries of @modifiers.
 */
struct llmem_negotiate_request {
	uint32_t width;
	uint32_t height;
	const uint32_t *fourccs;
	uint32_t num_fourccs;
	uint32_t num_modifiers;
	const uint64_t *modifiers;
};

/**
 * struct llmem_negotiated - the layout all participants accept.
 * @layout: fourcc, modifier, planes with offsets and pitches, size; the
 *	size rounded up to the merged size alignment; the picture's size and
 *	the coded size, which is the picture's where nobody needs padding.
 * @constraints: the merged constraints it was laid out for (alignments
 *	their least common multiples; the flags any participant's).
 * @flags: LLMEM_CONSTRAINT_CONTIGUOUS, _PLANE_PER_FD and _PLANES_IN_ONE_FD:
 *	what the frames must be.
 * @min_buffers: the most any participant needs.
 * @padding: per plane, what it holds past the picture
 *	(llmem_frame_layout_padding() of @layout).
 */
struct llmem_negotiated {
	struct llmem_frame_layout layout;
	struct llmem_constraints constraints;
	uint32_t flags;
	uint32_t min_buffers;
	struct llmem_frame_padding padding[LLMEM_FRAME_MAX_PLANES];
};

/**
 * llmem_negotiate() - one layout every participant accepts.
 * @participants: what each accepts.
 * @count: 1 to LLMEM_NEGOTIATE_MAX_PARTICIPANTS.
 * @request: the size and the preferences.
 * @out: the result.
 *
 * The first fourcc in the order of preference that every participant
 * takes with the linear modifier (the one llmem lays out, wherever the
 * caller ranks it), laid out for the union of the constraints.
 * Deterministic: the same statements give the same layout.
 *
 * The coded size: the picture's, or the largest coded size a participant
 * states for the fourcc, rounded up to the least common multiple of every
 * column and row alignment stated (the participants' and the fourcc's).
 * Where it is larger than the picture, every participant must take a
 * picture smaller than its frame (no LLMEM_CONSTRAINT_NO_CROP_WIDTH or
 * _HEIGHT where that side is padded), and one that states a coded size
 * must get exactly that one.
 *
 * Return: 0; -EINVAL for NULL arguments, no or too many participants, a
 * zero size, a fourcc or size llmem_frame_layout_init() refuses (a fourcc
 * it does not lay out, an odd YUYV width), a statement malformed (a name
 * without its terminating NUL, more formats or modifiers than the arrays
 * hold) or that contradicts itself (a minimum past its maximum, an exact
 * pitch below the row); -ENOTSUP when the participants share no fourcc, no
 * modifier llmem lays out (linear), or their constraints leave nothing: the
 * message names the participant and the constraint ("vkms plane 31 has no
 * NV12", "vicodec needs pitch 1280; CUDA a multiple of 512", "vim2m takes
 * no picture narrower than its frame: ..."); -EOVERFLOW when an
 * alignment's common multiple, a coded side or a pitch would pass 32 bits,
 * or the frame 4 GiB (as llmem_frame_layout_init() lays frames out).
 */
int llmem_negotiate(const struct llmem_participant *participants, uint32_t count,
		    const struct llmem_negotiate_request *request, struct llmem_negotiated *out);

/**
 * struct llmem_negotiated_frame - one frame of a negotiated layout, as its
 * devices take it.
 * @layout: the negotiated layout; with one buffer per plane
 *	(LLMEM_CONSTRAINT_PLANE_PER_FD) each plane lies at offset 0 of its own
 *	@fd, and @layout.offset says so.
 * @num_fds: 1, or one per plane.
 * @fd: DMA-BUFs whose first byte is the frame's (or its plane's) first, as
 *	V4L2 takes them; they belong to whoever made the frame, not to close.
 * @size: bytes of each @fd.
 * @buffer: the llmem buffer behind each @fd.
 */
struct llmem_negotiated_frame {
	struct llmem_frame_layout layout;
	uint32_t num_fds;
	int fd[LLMEM_FRAME_MAX_PLANES];
	uint64_t size[LLMEM_FRAME_MAX_PLANES];
	struct llmem_buffer *buffer[LLMEM_FRAME_MAX_PLANES];
};

/* Usages of llmem_participant_vulkan(). */
enum llmem_vulkan_usage {
	LLMEM_VULKAN_USAGE_STORAGE = 1, /* read and written by shaders (the conversions) */
	LLMEM_VULKAN_USAGE_TRANSFER = 2, /* copied and filled */
	/* Sampled as an image made over the frame's memory (a renderer
	 * reading a camera's frame as a texture). */
	LLMEM_VULKAN_USAGE_SAMPLED = 3,
};

/**
 * llmem_participant_vulkan() - what the session's device takes of a frame
 * for @usage.
 *
 * Storage (the conversion shaders, each plane bound as a storage buffer):
 * the formats the library's shaders read or write (assumed), plane offsets
 * at minStorageBufferOffsetAlignment and at most maxStorageBufferRange
 * bytes (reported), pitches of 32-bit words (assumed).  Transfer (copies
 * and fills): any format, pitches at optimalBufferCopyRowPitchAlignment and
 * offsets at optimalBufferCopyOffsetAlignment (reported).  Sampled (an
 * image over the frame's memory): the fourccs whose Vulkan format can be
 * sampled, each with the modifiers that sample it from
 * VK_EXT_image_drm_format_modifier where the device has it (reported,
 * at most LLMEM_NEGOTIATE_MAX_MODIFIERS, linear first), else linear where
 * the format's linear tiling samples (reported); no pitch or offset
 * demand, which Vulkan has no query for.
 *
 * Return: 0; -EINVAL for NULL arguments or an unknown usage.
 */
int llmem_participant_vulkan(struct llmem_session *session, uint32_t usage,
			     struct llmem_participant *out);

/* The CPU through a mapping: any fourcc, any layout. */
void llmem_participant_cpu(struct llmem_participant *out);

/**
 * llmem_participant_llmem_contiguous() - llmem.ko's physically contiguous
 * pages: whole pages, at most the buddy allocator's largest block.
 *
 * Return: 0; -EINVAL for NULL.
 */
int llmem_participant_llmem_contiguous(struct llmem_participant *out);

#ifdef __cplusplus
}
#endif

#endif
