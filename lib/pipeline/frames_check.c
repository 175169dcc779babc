// SPDX-License-Identifier: MIT
/*
 * A frame tried on a participant that can be asked (pipeline.h): each
 * kind of device by the tier that drives it, here only the choice of whom
 * to ask and the frame named in the refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <llmem/buffer.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/pipeline.h>
#include <llmem/share.h>

#include "base/error.h"
#include "display/display.h"
#include "pipeline/frames_check.h"
#include "video/v4l2.h"

/* The Vulkan device imports each of the frame's DMA-BUFs and binds a
 * buffer of the participant's usage over it. */
static int vulkan_takes(struct llmem_session *s, const struct llmem_participant *p,
			const struct llmem_negotiated_frame *f)
{
	uint32_t usage = p->object == LLMEM_VULKAN_USAGE_STORAGE
				 ? LLMEM_BUFFER_STORAGE
				 : LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST;
	int ret = 0;

	for (uint32_t i = 0; !ret && i < f->num_fds; i++) {
		struct llmem_memory_create_info mci = { .sharing = LLMEM_SHARING_IMPORT,
							.name = "frame check" };
		struct llmem_memory *m;
		struct llmem_buffer *b = NULL;
		uint32_t page;

		ret = llmem_memory_create(s, &mci, &m);
		if (ret)
			break;
		ret = llmem_memory_import_dmabuf(m, f->fd[i], f->size[i], &page);
		if (!ret)
			ret = llmem_buffer_create(m,
						  &(struct llmem_buffer_create_info){
							  .size = f->size[i], .usage = usage },
						  &b);
		llmem_buffer_destroy(b);
		llmem_memory_destroy(m);
	}
	return ret;
}

static int contiguous(const struct llmem_participant *p, const struct llmem_negotiated_frame *f)
{
	for (uint32_t i = 0; i < f->num_fds; i++) {
		struct llmem_dmabuf_state st;
		int ret = llmem_dmabuf_query(f->fd[i], &st);

		if (ret)
			return ret;
		if (!(st.flags & LLMEM_DMABUF_CONTIGUOUS))
			return llmem_error(-ENOTSUP, "%s refuses the frame: buffer %u is scattered",
					   p->name, i);
	}
	return 0;
}

/* Whether @p can be asked, and if so its answer for frame @f. */
static int takes(struct llmem_session *s, const struct llmem_participant *p,
		 const struct llmem_negotiated_frame *f)
{
	switch (p->kind) {
	case LLMEM_PARTICIPANT_V4L2:
		return p->device[0] ? llmem_v4l2_queue_takes(p, f) : 0;
	case LLMEM_PARTICIPANT_KMS_PLANE:
		return p->device[0] ? llmem_kms_plane_takes(p, f) : 0;
	case LLMEM_PARTICIPANT_VULKAN:
		/* An image over a DMA-BUF at a layout is not made by llmem:
		 * the sampled usage is stated, not asked. */
		return p->object == LLMEM_VULKAN_USAGE_STORAGE ||
				       p->object == LLMEM_VULKAN_USAGE_TRANSFER
			       ? vulkan_takes(s, p, f)
			       : 0;
	case LLMEM_PARTICIPANT_LLMEM_CONTIGUOUS:
		return contiguous(p, f);
	default:
		return 0;
	}
}

int llmem_participants_check_args(const struct llmem_participant *ps, uint32_t count)
{
	if (!ps && count)
		return llmem_error(-EINVAL, "frames check: NULL participants");
	if (count > LLMEM_NEGOTIATE_MAX_PARTICIPANTS)
		return llmem_error(-EINVAL, "frames check: %u participants; at most %u", count,
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS);
	for (uint32_t i = 0; i < count; i++) {
		if (strnlen(ps[i].device, sizeof(ps[i].device)) == sizeof(ps[i].device) ||
		    strnlen(ps[i].name, sizeof(ps[i].name)) == sizeof(ps[i].name))
			return llmem_error(-EINVAL,
					   "frames check: participant %u: a name or device "
					   "without its NUL",
					   i);
	}
	return 0;
}

int llmem_frame_check(struct llmem_session *s, const struct llmem_participant *p,
		      const struct llmem_negotiated_frame *f, uint32_t index)
{
	char why[256];
	int ret = takes(s, p, f);

	if (!ret)
		return 0;
	snprintf(why, sizeof(why), "%s", llmem_last_error());
	return llmem_error(ret, "frame %u: %s", index, why);
}
