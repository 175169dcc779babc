// SPDX-License-Identifier: MIT
/*
 * The participants of a negotiation that the memory tier knows: the
 * Vulkan device as the library uses a frame's buffer, the CPU, and
 * llmem.ko's contiguous pages.  The V4L2 queues and KMS planes state
 * theirs in the tiers that drive them (video/, display/).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/memory.h>
#include <llmem/negotiate.h>
#include <llmem/session.h>

#include "base/error.h"
#include "base/export.h"
#include "device/session.h"

static void add_format(struct llmem_participant *p, uint32_t fourcc, uint32_t source)
{
	p->formats[p->num_formats++] =
		(struct llmem_format_caps){ .fourcc = fourcc, .source = source };
}

/* The fourccs llmem lays out, as the Vulkan formats an image of them has. */
static const struct {
	uint32_t fourcc;
	VkFormat format;
	uint32_t planes;
} sampled_formats[] = {
	{ DRM_FORMAT_YUYV, VK_FORMAT_G8B8G8R8_422_UNORM, 1 },
	{ DRM_FORMAT_NV12, VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, 2 },
	{ DRM_FORMAT_XRGB8888, VK_FORMAT_B8G8R8A8_UNORM, 1 },
	{ DRM_FORMAT_ARGB8888, VK_FORMAT_B8G8R8A8_UNORM, 1 },
	{ DRM_FORMAT_ABGR8888, VK_FORMAT_R8G8B8A8_UNORM, 1 },
};

/* The modifiers @format is sampled with, linear first, into @caps; none
 * where the device has no VK_EXT_image_drm_format_modifier answer. */
static void sampled_modifiers(struct llmem_session *s, VkFormat format, uint32_t planes,
			      struct llmem_format_caps *caps)
{
	VkDrmFormatModifierPropertiesEXT mods[64];
	VkDrmFormatModifierPropertiesListEXT list = {
		.sType = VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT,
	};
	VkFormatProperties2 props = { .sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2,
				      .pNext = &list };

	vkGetPhysicalDeviceFormatProperties2(s->physical, format, &props);
	list.drmFormatModifierCount =
		list.drmFormatModifierCount < 64 ? list.drmFormatModifierCount : 64;
	list.pDrmFormatModifierProperties = mods;
	vkGetPhysicalDeviceFormatProperties2(s->physical, format, &props);
	for (int linear = 1; linear >= 0; linear--) {
		for (uint32_t i = 0; i < list.drmFormatModifierCount; i++) {
			const VkDrmFormatModifierPropertiesEXT *m = &mods[i];

			if ((m->drmFormatModifier == DRM_FORMAT_MOD_LINEAR) != linear ||
			    !(m->drmFormatModifierTilingFeatures &
			      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) ||
			    (linear && m->drmFormatModifierPlaneCount != planes) ||
			    caps->num_modifiers == LLMEM_NEGOTIATE_MAX_MODIFIERS)
				continue;
			caps->modifiers[caps->num_modifiers++] = m->drmFormatModifier;
		}
	}
}

/* Each fourcc an image samples, with its modifiers: every fact reported. */
static void state_sampled(struct llmem_session *s, struct llmem_participant *out)
{
	bool modifiers = s->info.caps & LLMEM_CAP_DRM_FORMAT_MODIFIERS;

	for (size_t i = 0; i < sizeof(sampled_formats) / sizeof(*sampled_formats); i++) {
		struct llmem_format_caps *c = &out->formats[out->num_formats];
		VkFormatProperties props;

		*c = (struct llmem_format_caps){ .fourcc = sampled_formats[i].fourcc,
						 .source = LLMEM_FACT_REPORTED };
		if (modifiers) {
			sampled_modifiers(s, sampled_formats[i].format, sampled_formats[i].planes,
					  c);
		} else {
			vkGetPhysicalDeviceFormatProperties(s->physical, sampled_formats[i].format,
							    &props);
			if (props.linearTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
				c->modifiers[c->num_modifiers++] = DRM_FORMAT_MOD_LINEAR;
		}
		if (c->num_modifiers)
			out->num_formats++;
	}
}

LLMEM_PUBLIC int llmem_participant_vulkan(struct llmem_session *s, uint32_t usage,
					  struct llmem_participant *out)
{
	static const char *const usages[] = { "", "storage", "transfer", "sampled" };
	/* What the conversion shaders read and write: the library's own list. */
	static const uint32_t shader_formats[] = { DRM_FORMAT_YUYV,	DRM_FORMAT_NV12,
						   DRM_FORMAT_ABGR8888, DRM_FORMAT_XRGB8888,
						   DRM_FORMAT_ARGB8888, DRM_FORMAT_BGR888,
						   DRM_FORMAT_RGB888 };
	const VkPhysicalDeviceLimits *lim;
	struct llmem_constraints *c;

	if (!s || !out)
		return llmem_error(-EINVAL, "Vulkan participant: NULL %s", s ? "out" : "session");
	if (usage < LLMEM_VULKAN_USAGE_STORAGE || usage > LLMEM_VULKAN_USAGE_SAMPLED)
		return llmem_error(-EINVAL, "Vulkan participant: usage %u", usage);
	lim = &s->props.limits;
	memset(out, 0, sizeof(*out));
	c = &out->constraints;
	out->kind = LLMEM_PARTICIPANT_VULKAN;
	snprintf(out->name, sizeof(out->name), "Vulkan %s (%s)", usages[usage],
		 s->props.deviceName);
	out->object = usage;
	if (usage == LLMEM_VULKAN_USAGE_STORAGE) {
		for (size_t i = 0; i < sizeof(shader_formats) / sizeof(*shader_formats); i++)
			add_format(out, shader_formats[i], LLMEM_FACT_ASSUMED);
		/* Each plane is bound at its offset as a storage buffer. */
		c->plane_alignment = (uint32_t)lim->minStorageBufferOffsetAlignment;
		c->max_size = lim->maxStorageBufferRange;
		c->pitch_alignment = 4;
		c->assumed = LLMEM_C_PITCH_ALIGNMENT;
	} else if (usage == LLMEM_VULKAN_USAGE_TRANSFER) {
		c->plane_alignment = (uint32_t)lim->optimalBufferCopyOffsetAlignment;
		c->pitch_alignment = (uint32_t)lim->optimalBufferCopyRowPitchAlignment;
	} else {
		state_sampled(s, out);
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
