// SPDX-License-Identifier: MIT
/*
 * The participants of a negotiation that the memory tier knows: the
 * Vulkan device as the library uses a frame's buffer, the CPU, and
 * llmem.ko's contiguous pages.  The V4L2 queues and KMS planes state
 * theirs in the tiers that drive them (video/, display/).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/memory.h>
#include <llmem/negotiate.h>

#include "base/error.h"
#include "base/export.h"
#include "device/session.h"

static void add_format(struct llmem_participant *p, uint32_t fourcc, uint32_t source)
{
	p->formats[p->num_formats++] =
		(struct llmem_format_caps){ .fourcc = fourcc, .source = source };
}

LLMEM_PUBLIC int llmem_participant_vulkan(struct llmem_session *s, uint32_t usage,
					  struct llmem_participant *out)
{
	/* What the conversion shaders read and write: the library's own list. */
	static const uint32_t shader_formats[] = { DRM_FORMAT_YUYV, DRM_FORMAT_NV12,
						   DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888,
						   DRM_FORMAT_ARGB8888 };
	const VkPhysicalDeviceLimits *lim;
	struct llmem_constraints *c;

	if (!s || !out)
		return llmem_error(-EINVAL, "Vulkan participant: NULL %s", s ? "out" : "session");
	if (usage != LLMEM_VULKAN_USAGE_STORAGE && usage != LLMEM_VULKAN_USAGE_TRANSFER)
		return llmem_error(-EINVAL, "Vulkan participant: usage %u", usage);
	lim = &s->props.limits;
	memset(out, 0, sizeof(*out));
	c = &out->constraints;
	out->kind = LLMEM_PARTICIPANT_VULKAN;
	snprintf(out->name, sizeof(out->name), "Vulkan %s (%s)",
		 usage == LLMEM_VULKAN_USAGE_STORAGE ? "storage" : "transfer", s->props.deviceName);
	out->object = usage;
	if (usage == LLMEM_VULKAN_USAGE_STORAGE) {
		for (size_t i = 0; i < sizeof(shader_formats) / sizeof(*shader_formats); i++)
			add_format(out, shader_formats[i], LLMEM_FACT_ASSUMED);
		/* Each plane is bound at its offset as a storage buffer. */
		c->plane_alignment = (uint32_t)lim->minStorageBufferOffsetAlignment;
		c->max_size = lim->maxStorageBufferRange;
		c->pitch_alignment = 4;
		c->assumed = LLMEM_C_PITCH_ALIGNMENT;
	} else {
		c->plane_alignment = (uint32_t)lim->optimalBufferCopyOffsetAlignment;
		c->pitch_alignment = (uint32_t)lim->optimalBufferCopyRowPitchAlignment;
	}
	return 0;
}

LLMEM_PUBLIC void llmem_participant_cpu(struct llmem_participant *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	out->kind = LLMEM_PARTICIPANT_CPU;
	snprintf(out->name, sizeof(out->name), "the CPU");
}

LLMEM_PUBLIC int llmem_participant_llmem_contiguous(struct llmem_participant *out)
{
	if (!out)
		return llmem_error(-EINVAL, "llmem.ko participant: NULL out");
	memset(out, 0, sizeof(*out));
	out->kind = LLMEM_PARTICIPANT_LLMEM_CONTIGUOUS;
	snprintf(out->name, sizeof(out->name), "llmem.ko contiguous pages");
	out->constraints = (struct llmem_constraints){
		.size_alignment = 4096,
		.max_size = LLMEM_MEMORY_CONTIGUOUS_MAX_PAGE_SIZE,
		.flags = LLMEM_CONSTRAINT_CONTIGUOUS,
		.assumed = LLMEM_C_SIZE_ALIGNMENT | LLMEM_C_MAX_SIZE | LLMEM_C_FLAGS,
	};
	return 0;
}
