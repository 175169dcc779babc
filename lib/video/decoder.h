/* SPDX-License-Identifier: MIT */
/*
 * The decoder object as decoder.c (the object, the bitstream it feeds and
 * the frames it hands out) and decoder_frames.c (the frames of each format
 * the stream takes, and their conversion) share it.
 */
#ifndef LLMEM_VIDEO_DECODER_H
#define LLMEM_VIDEO_DECODER_H

#include <stdbool.h>
#include <stdint.h>

#include <llmem/codec.h>

#include "video/codec_memory.h"

struct llmem_decoder {
	struct llmem_session *session;
	struct llmem_codec *codec;
	struct llmem_bitstream *source;
	uint32_t units; /* in the source */
	struct llmem_decoder_create_info ci;
	/* The caller's RGBA participants, copied (ci points here). */
	struct llmem_participant rgba_participants[LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2];
	struct llmem_decoder_info info;
	struct codec_memory bits[LLMEM_CODEC_MAX_BITSTREAM_BUFFERS];
	uint32_t bits_free; /* bitmask of the bitstream slots not in the decoder */
	bool started, draining, ended;

	/* The frames of the format followed last, plane-major, and which the
	 * caller holds. */
	struct codec_memory frames[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CODEC_MAX_FRAMES];
	bool held[LLMEM_CODEC_MAX_FRAMES];
	uint32_t nheld;
	/* Frames handed out since the last format was followed. */
	uint32_t frames_in_format;
	/* The stream is decoded into the RGBA format, and shown as it is. */
	bool rgba_is_decoded;
	struct codec_memory rgba[LLMEM_DECODER_MAX_RGBA_BUFFERS];
	uint32_t next_rgba;
};

/*
 * At a source change (the stream's first format, or a new one): the frames
 * of the old format released, CAPTURE set to the format wanted, its frames
 * (and RGBA buffers) allocated in it, queued, and CAPTURE streaming.
 */
int llmem_decoder_follow_format(struct llmem_decoder *d);

/* The frame in slot @index converted into the next RGBA buffer, where
 * conversion is in effect; @frame's RGBA fields filled in. */
int llmem_decoder_convert(struct llmem_decoder *d, uint32_t index, struct llmem_codec_frame *frame);

/* Releases the frames and RGBA buffers, after the driver let go of them. */
void llmem_decoder_free_frames(struct llmem_decoder *d);

#endif
