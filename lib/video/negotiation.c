// SPDX-License-Identifier: MIT
/*
 * What the camera and the decoder lay their frames out for: their own
 * queue, the device's conversion that reads or writes the frames, and the
 * participants their caller names, merged in one negotiation.
 */
#include <stdio.h>

#include <llmem/negotiate.h>

#include "video/negotiation.h"

int llmem_video_negotiate(struct llmem_session *s, const struct llmem_participant *first,
			  const char *aligner, uint32_t pitch_alignment,
			  const struct llmem_participant *extra, uint32_t count, uint32_t fourcc,
			  uint32_t width, uint32_t height, struct llmem_negotiated *out)
{
	struct llmem_participant ps[LLMEM_NEGOTIATE_MAX_PARTICIPANTS];
	struct llmem_negotiate_request req = {
		.width = width, .height = height, .fourccs = &fourcc, .num_fourccs = 1
	};
	uint32_t n = 0;
	int ret;

	if (first)
		ps[n++] = *first;
	if (pitch_alignment) {
		ps[n] = (struct llmem_participant){ .kind = LLMEM_PARTICIPANT_OTHER };
		snprintf(ps[n].name, sizeof(ps[n].name), "%s", aligner);
		ps[n++].constraints.pitch_alignment = pitch_alignment;
	}
	ret = llmem_participant_vulkan(s, LLMEM_VULKAN_USAGE_STORAGE, &ps[n++]);
	for (uint32_t i = 0; !ret && i < count; i++)
		ps[n++] = extra[i];
	return ret ? ret : llmem_negotiate(ps, n, &req, out);
}
