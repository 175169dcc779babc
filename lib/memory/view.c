// SPDX-License-Identifier: MIT
/*
 * Views of whole images and their samplers: filter, address mode,
 * normalised or texel coordinates.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <llmem/image.h>

#include "base/error.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/image.h"

static struct llmem_session *image_session(const struct llmem_image *img)
{
	return llmem_memory_session(img->obj.memory);
}

/* Normalised types read as floats, like F16 and F32. */
static bool is_integer(const struct llmem_image *img)
{
	return img->channel_type <= LLMEM_CHANNEL_I32;
}

static const VkSamplerAddressMode address_modes[] = {
	[LLMEM_ADDRESS_REPEAT] = VK_SAMPLER_ADDRESS_MODE_REPEAT,
	[LLMEM_ADDRESS_MIRRORED_REPEAT] = VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
	[LLMEM_ADDRESS_CLAMP_TO_EDGE] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
	[LLMEM_ADDRESS_CLAMP_TO_BORDER] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
	[LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE] = VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE,
};

static int check_view_info(struct llmem_session *s, const struct llmem_image *img,
			   const struct llmem_image_view_create_info *vi)
{
	VkFormatProperties fp;

	if (vi->filter > LLMEM_FILTER_LINEAR)
		return llmem_error(-EINVAL, "image view: unknown filter %u", vi->filter);
	if (vi->address_mode > LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE)
		return llmem_error(-EINVAL, "image view: unknown address mode %u",
				   vi->address_mode);
	if (vi->unnormalized_coordinates > 1)
		return llmem_error(-EINVAL, "image view: unnormalized_coordinates is 0 or 1");
	if (vi->unnormalized_coordinates && vi->address_mode != LLMEM_ADDRESS_CLAMP_TO_EDGE &&
	    vi->address_mode != LLMEM_ADDRESS_CLAMP_TO_BORDER)
		return llmem_error(-EINVAL, "image view: unnormalised coordinates need clamp to "
					    "edge or to border");
	if (vi->address_mode == LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE && !s->mirror_clamp_to_edge)
		return llmem_error(-ENOTSUP, "image view: the device has no mirror clamp to edge");
	llmem_session_format_properties(s, img->format, &fp);
	if (vi->filter == LLMEM_FILTER_LINEAR &&
	    !(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT))
		return llmem_error(-ENOTSUP, "image view: format %d cannot be filtered linearly",
				   img->format);
	return 0;
}

LLMEM_PUBLIC int llmem_image_view_create(struct llmem_image *img,
					 const struct llmem_image_view_create_info *info,
					 struct llmem_image_view **out)
{
	static const struct llmem_image_view_create_info defaults;
	const struct llmem_image_view_create_info *vi = info ? info : &defaults;
	struct llmem_session *s;
	struct llmem_image_view *v;
	VkResult r;
	int ret;

	if (!img || !out)
		return llmem_error(-EINVAL, "image view: NULL %s", img ? "out" : "image");
	*out = NULL;
	s = image_session(img);
	ret = check_view_info(s, img, vi);
	if (ret)
		return ret;
	v = calloc(1, sizeof(*v));
	if (!v)
		return llmem_error(-ENOMEM, "image view: out of memory");
	v->image = img;
	v->info = *vi;

	VkImageViewCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = img->vk,
		.viewType = img->type == VK_IMAGE_TYPE_3D   ? VK_IMAGE_VIEW_TYPE_3D
			    : img->type == VK_IMAGE_TYPE_1D ? VK_IMAGE_VIEW_TYPE_1D
							    : VK_IMAGE_VIEW_TYPE_2D,
		.format = img->format,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	VkFilter filter = vi->filter == LLMEM_FILTER_LINEAR ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
	VkSamplerAddressMode mode = address_modes[vi->address_mode];
	VkSamplerCreateInfo sci = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = filter,
		.minFilter = filter,
		.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
		.addressModeU = mode,
		.addressModeV = mode,
		.addressModeW = mode,
		.borderColor = is_integer(img) ? VK_BORDER_COLOR_INT_TRANSPARENT_BLACK
					       : VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
		.unnormalizedCoordinates = vi->unnormalized_coordinates,
	};

	r = vkCreateImageView(s->device, &ci, NULL, &v->vk);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkCreateImageView");
		goto out_free;
	}
	r = vkCreateSampler(s->device, &sci, NULL, &v->sampler);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkCreateSampler");
		goto out_destroy_view;
	}
	atomic_fetch_add(&img->views, 1);
	*out = v;
	return 0;

out_destroy_view:
	vkDestroyImageView(s->device, v->vk, NULL);
out_free:
	free(v);
	return ret;
}

LLMEM_PUBLIC void llmem_image_view_destroy(struct llmem_image_view *v)
{
	struct llmem_session *s;

	if (!v)
		return;
	s = image_session(v->image);
	vkDestroySampler(s->device, v->sampler, NULL);
	vkDestroyImageView(s->device, v->vk, NULL);
	atomic_fetch_sub(&v->image->views, 1);
	free(v);
}

LLMEM_PUBLIC int llmem_image_view_get_info(const struct llmem_image_view *v,
					   struct llmem_image_view_create_info *info)
{
	if (!v || !info)
		return llmem_error(-EINVAL, "image view info: NULL argument");
	*info = v->info;
	return 0;
}
