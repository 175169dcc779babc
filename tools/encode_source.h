/* SPDX-License-Identifier: MIT */
/*
 * Where `llmem encode`'s frames come from: a camera, whose frames carry
 * their DMA-BUFs to the encoder, or with --stream-from a file of raw
 * frames back to back, read into the encoder's own llmem frames.
 */
#ifndef LLMEM_TOOLS_ENCODE_SOURCE_H
#define LLMEM_TOOLS_ENCODE_SOURCE_H

#include <stdint.h>

#include <llmem/camera.h>
#include <llmem/codec.h>

struct encode_source {
	struct llmem_camera *cam; /* NULL for a file */
	struct llmem_camera_info info;
	const char *path;
	int fd;
	uint32_t frames; /* in the file */
	uint32_t frame_size;
	/* Where a frame lies in its buffer, as the device's work reads it. */
	struct llmem_frame_layout layout;
};

/* The camera @cci asks for.  0, or a negative errno after a message. */
int encode_source_camera(struct encode_source *s, struct llmem_session *session,
			 const struct llmem_camera_create_info *cci);

/* The file at @path, which must hold whole frames of @enc's raw format,
 * of its coded size, with its picture.  0, or a negative errno after a
 * message. */
int encode_source_file(struct encode_source *s, const char *path,
		       const struct llmem_encoder_info *enc);

/*
 * Frame @n: the camera's next (held in @cf until released), or the file's
 * read into a frame of @enc's; @frame is what the encoder takes.  0, or a
 * negative errno after a message.
 */
int encode_source_next(struct encode_source *s, struct llmem_encoder *enc, uint32_t n,
		       struct llmem_camera_frame *cf, struct llmem_codec_frame *frame);

/* Closes the camera or the file; a zeroed source with fd -1 is fine. */
void encode_source_close(struct encode_source *s);

#endif
