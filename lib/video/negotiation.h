/* SPDX-License-Identifier: MIT */
/* The layouts the video objects negotiate (negotiation.c). */
#ifndef LLMEM_VIDEO_NEGOTIATION_H
#define LLMEM_VIDEO_NEGOTIATION_H

#include <stdint.h>

#include <llmem/negotiate.h>

struct llmem_session;

/*
 * One layout of DRM @fourcc at @width x @height for the device's
 * conversion (the Vulkan device, storage), @first (the object's own queue,
 * or NULL), a pitch alignment the caller asked for (named @aligner, 0 for
 * none) and the caller's @count participants.
 */
int llmem_video_negotiate(struct llmem_session *s, const struct llmem_participant *first,
			  const char *aligner, uint32_t pitch_alignment,
			  const struct llmem_participant *extra, uint32_t count, uint32_t fourcc,
			  uint32_t width, uint32_t height, struct llmem_negotiated *out);

#endif
