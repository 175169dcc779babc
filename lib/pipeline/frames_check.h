/* SPDX-License-Identifier: MIT */
/* What frames.c asks of frames_check.c: whom to ask, and their answers. */
#ifndef LLMEM_PIPELINE_FRAMES_CHECK_H
#define LLMEM_PIPELINE_FRAMES_CHECK_H

#include <llmem/pipeline.h>

/* -EINVAL, with its message, for statements llmem_frames_check() refuses:
 * NULL with a count, too many, a name or device without its NUL. */
int llmem_participants_check_args(const struct llmem_participant *ps, uint32_t count);

/* Whether participant @p takes frame @f, made in session @s (whose Vulkan
 * device is asked); 0 also for a participant that cannot be asked, else
 * the refusal, its message starting "frame @index: ". */
int llmem_frame_check(struct llmem_session *s, const struct llmem_participant *p,
		      const struct llmem_negotiated_frame *f, uint32_t index);

#endif
