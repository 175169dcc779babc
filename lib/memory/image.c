// SPDX-License-Identifier: MIT
/*
 * Images: Lluvia's shapes as VkImages placed in pages, the layout each one
 * is in, and the host's mapping of linear ones.  Views and samplers are in
 * view.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/image.h>

#include "base/error.h"
#include "device/session.h"
#include "device/submit.h"
#include "device/vk.h"
#include "memory/image.h"

#define USAGE_MASK 0x1fu

static const VkFormat formats[][LLMEM_IMAGE_MAX_CHANNELS] = {
	[LLMEM_CHANNEL_U8] = { VK_FORMAT_R8_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8B8_UINT,
			       VK_FORMAT_R8G8B8A8_UINT },
	[LLMEM_CHANNEL_I8] = { VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8_SINT,
			       VK_FORMAT_R8G8B8A8_SINT },
	[LLMEM_CHANNEL_U16] = { VK_FORMAT_R16_UINT, VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16B16_UINT,
				VK_FORMAT_R16G16B16A16_UINT },
	[LLMEM_CHANNEL_I16] = { VK_FORMAT_R16_SINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16B16_SINT,
				VK_FORMAT_R16G16B16A16_SINT },
	[LLMEM_CHANNEL_U32] = { VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32B32_UINT,
				VK_FORMAT_R32G32B32A32_UINT },
	[LLMEM_CHANNEL_I32] = { VK_FORMAT_R32_SINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32B32_SINT,
				VK_FORMAT_R32G32B32A32_SINT },
	[LLMEM_CHANNEL_F16] = { VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16_SFLOAT,
				VK_FORMAT_R16G16B16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT },
	[LLMEM_CHANNEL_F32] = { VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT,
				VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
	[LLMEM_CHANNEL_UNORM8] = { VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8B8_UNORM,
				   VK_FORMAT_R8G8B8A8_UNORM },
	[LLMEM_CHANNEL_SNORM8] = { VK_FORMAT_R8_SNORM, VK_FORMAT_R8G8_SNORM, VK_FORMAT_R8G8B8_SNORM,
				   VK_FORMAT_R8G8B8A8_SNORM },
	[LLMEM_CHANNEL_UNORM16] = { VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM,
				    VK_FORMAT_R16G16B16_UNORM, VK_FORMAT_R16G16B16A16_UNORM },
	[LLMEM_CHANNEL_SNORM16] = { VK_FORMAT_R16_SNORM, VK_FORMAT_R16G16_SNORM,
				    VK_FORMAT_R16G16B16_SNORM, VK_FORMAT_R16G16B16A16_SNORM },
	[LLMEM_CHANNEL_SRGB8] = { VK_FORMAT_R8_SRGB, VK_FORMAT_R8G8_SRGB, VK_FORMAT_R8G8B8_SRGB,
				  VK_FORMAT_R8G8B8A8_SRGB },
};

/* BGRA order, three and four channels, for the 8-bit types (0: none). */
static const VkFormat bgra_formats[][2] = {
	[LLMEM_CHANNEL_U8] = { VK_FORMAT_B8G8R8_UINT, VK_FORMAT_B8G8R8A8_UINT },
	[LLMEM_CHANNEL_I8] = { VK_FORMAT_B8G8R8_SINT, VK_FORMAT_B8G8R8A8_SINT },
	[LLMEM_CHANNEL_UNORM8] = { VK_FORMAT_B8G8R8_UNORM, VK_FORMAT_B8G8R8A8_UNORM },
	[LLMEM_CHANNEL_SNORM8] = { VK_FORMAT_B8G8R8_SNORM, VK_FORMAT_B8G8R8A8_SNORM },
	[LLMEM_CHANNEL_SRGB8] = { VK_FORMAT_B8G8R8_SRGB, VK_FORMAT_B8G8R8A8_SRGB },
};

static const uint32_t channel_bytes[] = { 1, 1, 2, 2, 4, 4, 2, 4, 1, 1, 2, 2, 1 };

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define N_CHANNEL_TYPES ARRAY_SIZE(channel_bytes)

static struct llmem_session *image_session(const struct llmem_image *img)
{
	return llmem_memory_session(img->obj.memory);
}

/* Lluvia's rule: the last of three or four dimensions is the channel count. */
static int parse_shape(const struct llmem_image_create_info *ci, struct llmem_image *img)
{
	const uint32_t *s = ci->shape;

	if (ci->ndim < 1 || ci->ndim > LLMEM_IMAGE_MAX_DIMS)
		return llmem_error(-EINVAL, "image: %u dimensions, expected 1 to 4", ci->ndim);
	for (uint32_t i = 0; i < ci->ndim; i++)
		if (s[i] == 0)
			return llmem_error(-EINVAL, "image: dimension %u is 0", i);
	img->depth = img->height = img->channels = 1;
	switch (ci->ndim) {
	case 1:
		img->width = s[0];
		break;
	case 2:
		img->height = s[0];
		img->width = s[1];
		break;
	case 3:
		img->height = s[0];
		img->width = s[1];
		img->channels = s[2];
		break;
	default:
		img->depth = s[0];
		img->height = s[1];
		img->width = s[2];
		img->channels = s[3];
		break;
	}
	if (img->channels > LLMEM_IMAGE_MAX_CHANNELS)
		return llmem_error(-EINVAL, "image: %u channels, at most 4", img->channels);
	if (ci->channel_type >= N_CHANNEL_TYPES)
		return llmem_error(-EINVAL, "image: unknown channel type %u", ci->channel_type);
	img->channel_type = ci->channel_type;
	img->channel_order = ci->channel_order;
	if (ci->channel_order > LLMEM_ORDER_BGRA)
		return llmem_error(-EINVAL, "image: unknown channel order %u", ci->channel_order);
	if (ci->channel_order == LLMEM_ORDER_RGBA) {
		img->format = formats[ci->channel_type][img->channels - 1];
	} else if (img->channels < 3 || ci->channel_type >= ARRAY_SIZE(bgra_formats) ||
		   !bgra_formats[ci->channel_type][0]) {
		return llmem_error(-EINVAL,
				   "image: BGRA order needs 3 or 4 channels of an 8-bit type, "
				   "not %u of type %u",
				   img->channels, ci->channel_type);
	} else {
		img->format = bgra_formats[ci->channel_type][img->channels - 3];
	}
	img->type = img->depth > 1  ? VK_IMAGE_TYPE_3D
		    : ci->ndim == 1 ? VK_IMAGE_TYPE_1D
				    : VK_IMAGE_TYPE_2D;
	if (ci->tiling > LLMEM_TILING_LINEAR)
		return llmem_error(-EINVAL, "image: unknown tiling %u", ci->tiling);
	img->tiling = ci->tiling == LLMEM_TILING_LINEAR ? VK_IMAGE_TILING_LINEAR
							: VK_IMAGE_TILING_OPTIMAL;
	return 0;
}

/* Bytes of the image's texels, UINT64_MAX where they overflow. */
static uint64_t texel_bytes(const struct llmem_image *img)
{
	uint64_t n = (uint64_t)img->channels * channel_bytes[img->channel_type];

	if (__builtin_mul_overflow(n, img->width, &n) ||
	    __builtin_mul_overflow(n, img->height, &n) || __builtin_mul_overflow(n, img->depth, &n))
		return UINT64_MAX;
	return n;
}

/*
 * Whether the device has the image's format for its usage, and, when the
 * memory is shared (@handle_type not 0), for memory of that handle type:
 * a driver may import host allocations into buffers but not into images.
 */
static int check_format(struct llmem_session *s, const struct llmem_image *img,
			VkExternalMemoryHandleTypeFlagBits handle_type)
{
	VkPhysicalDeviceExternalImageFormatInfo external = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
		.handleType = handle_type,
	};
	VkPhysicalDeviceImageFormatInfo2 fi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
		.pNext = handle_type ? &external : NULL,
		.format = img->format,
		.type = img->type,
		.tiling = img->tiling,
		.usage = img->usage,
	};
	VkImageFormatProperties2 fp = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
	const VkExtent3D *max = &fp.imageFormatProperties.maxExtent;
	VkResult r;

	r = vkGetPhysicalDeviceImageFormatProperties2(s->physical, &fi, &fp);
	if (r == VK_ERROR_FORMAT_NOT_SUPPORTED && handle_type)
		return llmem_error(-ENOTSUP,
				   "image: the device has no format %d for usage 0x%x in memory "
				   "of handle type 0x%x",
				   img->format, img->usage, handle_type);
	if (r == VK_ERROR_FORMAT_NOT_SUPPORTED && img->channels == 3)
		return llmem_error(-ENOTSUP,
				   "image: the device has no three-channel format %d for usage "
				   "0x%x; llmem does not emulate one: use 4 channels",
				   img->format, img->usage);
	if (r == VK_ERROR_FORMAT_NOT_SUPPORTED && img->tiling == VK_IMAGE_TILING_LINEAR)
		return llmem_error(-ENOTSUP,
				   "image: the device has no linear %uD image of format %d for "
				   "usage 0x%x",
				   img->type + 1, img->format, img->usage);
	if (r == VK_ERROR_FORMAT_NOT_SUPPORTED)
		return llmem_error(-ENOTSUP, "image: the device has no format %d for usage 0x%x",
				   img->format, img->usage);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkGetPhysicalDeviceImageFormatProperties2");
	if (img->width > max->width || img->height > max->height || img->depth > max->depth)
		return llmem_error(-ENOTSUP, "image: %ux%ux%u exceeds the device's %ux%ux%u",
				   img->depth, img->height, img->width, max->depth, max->height,
				   max->width);
	/* The validation layer warns of an image above maxResourceSize. */
	if (texel_bytes(img) > fp.imageFormatProperties.maxResourceSize)
		return llmem_error(-ENOMEM,
				   "image: %ux%ux%u of %u channels is above the device's "
				   "maxResourceSize, %llu bytes",
				   img->depth, img->height, img->width, img->channels,
				   (unsigned long long)fp.imageFormatProperties.maxResourceSize);
	return 0;
}

/*
 * sRGB formats are never storage images on common devices (a shader cannot
 * write the curve): the default usage leaves STORAGE out where the device
 * has no storage for the format, rather than failing.  Linear tiling is
 * often transfer-only, so there SAMPLED goes the same way.
 */
static uint32_t default_usage_mask(struct llmem_session *s, const struct llmem_image *img)
{
	VkFormatFeatureFlags features;
	VkFormatProperties fp;
	uint32_t mask = ~0u;

	llmem_session_format_properties(s, img->format, &fp);
	features = img->tiling == VK_IMAGE_TILING_LINEAR ? fp.linearTilingFeatures
							 : fp.optimalTilingFeatures;
	if (!(features & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT))
		mask &= ~(uint32_t)LLMEM_IMAGE_STORAGE;
	if (img->tiling == VK_IMAGE_TILING_LINEAR &&
	    !(features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT))
		mask &= ~(uint32_t)LLMEM_IMAGE_SAMPLED;
	return mask;
}

/*
 * Prior work on the image is not known, so the barrier waits for every
 * earlier write and makes the result visible to every later access:
 * correctness first, each operation opens with a full barrier anyway.
 */
void llmem_image_barrier(VkCommandBuffer cmd, const struct llmem_image *img, VkImageLayout from,
			 VkImageLayout to)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = img->vk,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

LLMEM_PUBLIC int llmem_image_create(struct llmem_memory *m,
				    const struct llmem_image_create_info *info,
				    struct llmem_image **out)
{
	struct llmem_session *s;
	struct llmem_image *img;
	VkMemoryRequirements req;
	VkDeviceMemory page;
	VkResult r;
	int ret;

	if (!m || !info || !out)
		return llmem_error(-EINVAL, "image create: NULL argument");
	*out = NULL;
	img = calloc(1, sizeof(*img));
	if (!img)
		return llmem_error(-ENOMEM, "image: out of memory");
	img->obj.kind = LLMEM_OBJECT_IMAGE;
	if (info->name)
		snprintf(img->obj.name, sizeof(img->obj.name), "%s", info->name);
	img->usage = info->usage ? info->usage : LLMEM_IMAGE_DEFAULT_USAGE;
	/* GENERAL serves every usage, so callers never see UNDEFINED; the
	 * move there is deferred to the next submission (device/submit.h). */
	img->layout = VK_IMAGE_LAYOUT_GENERAL;
	ret = parse_shape(info, img);
	if (ret)
		goto out_free;
	if (img->usage & ~USAGE_MASK) {
		ret = llmem_error(-EINVAL, "image: unknown usage bits 0x%x",
				  img->usage & ~USAGE_MASK);
		goto out_free;
	}
	s = llmem_memory_session(m);
	if (!info->usage)
		img->usage &= default_usage_mask(s, img);

	VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.handleTypes = llmem_memory_handle_types(m),
	};
	ret = check_format(s, img, (VkExternalMemoryHandleTypeFlagBits)external.handleTypes);
	if (!ret)
		ret = llmem_memory_check_size(m, "an image", texel_bytes(img));
	if (ret)
		goto out_free;
	VkImageCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = external.handleTypes ? &external : NULL,
		.imageType = img->type,
		.format = img->format,
		.extent = { img->width, img->height, img->depth },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = img->tiling,
		.usage = img->usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	r = vkCreateImage(s->device, &ci, NULL, &img->vk);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkCreateImage");
		goto out_free;
	}
	vkGetImageMemoryRequirements(s->device, img->vk, &req);
	ret = llmem_memory_place(m, &img->obj, &req, img->tiling == VK_IMAGE_TILING_OPTIMAL, &page);
	if (ret)
		goto out_destroy_image;
	r = llmem_memory_bind(m, img->obj.alloc.page, img->obj.alloc.offset, VK_NULL_HANDLE,
			      img->vk);
	if (r != VK_SUCCESS) {
		ret = llmem_vk_error(r, "vkBindImageMemory");
		goto out_release;
	}
	img->first_use.image = img->vk;
	ret = llmem_first_use_defer(s, &img->first_use);
	if (ret)
		goto out_release;
	*out = img;
	return 0;

out_release:
	llmem_memory_release(m, &img->obj);
out_destroy_image:
	vkDestroyImage(s->device, img->vk, NULL);
out_free:
	free(img);
	return ret;
}

/* A depth of 1 in four dimensions is a 2D image, so every shape but 1D fits there. */
LLMEM_PUBLIC int llmem_image_create_like_image(struct llmem_memory *m,
					       const struct llmem_image *like,
					       const struct llmem_image_create_info *info,
					       struct llmem_image **out)
{
	struct llmem_image_create_info ci;

	if (!m || !like || !out)
		return llmem_error(-EINVAL, "image create like: NULL %s",
				   !m	   ? "memory"
				   : !like ? "image"
					   : "out");
	*out = NULL;
	if (llmem_memory_session(m) != image_session(like))
		return llmem_error(-EINVAL, "image create like: the memory is of another session");
	ci = (struct llmem_image_create_info){
		.ndim = 4,
		.shape = { like->depth, like->height, like->width, like->channels },
		.channel_type = like->channel_type,
		.channel_order = like->channel_order,
		.usage = info && info->usage ? info->usage : like->usage,
		.name = info && info->name ? info->name : like->obj.name,
		.tiling = like->tiling == VK_IMAGE_TILING_LINEAR ? LLMEM_TILING_LINEAR
								 : LLMEM_TILING_OPTIMAL,
	};
	if (like->type == VK_IMAGE_TYPE_1D) {
		ci.ndim = 1;
		ci.shape[0] = like->width;
	}
	return llmem_image_create(m, &ci, out);
}

LLMEM_PUBLIC void llmem_image_destroy(struct llmem_image *img)
{
	if (!img)
		return;
	llmem_first_use_forget(image_session(img), &img->first_use);
	vkDestroyImage(image_session(img)->device, img->vk, NULL);
	llmem_memory_release(img->obj.memory, &img->obj);
	free(img);
}

LLMEM_PUBLIC uint32_t llmem_image_texel_size(const struct llmem_image *img)
{
	return img ? img->channels * channel_bytes[img->channel_type] : 0;
}

LLMEM_PUBLIC uint64_t llmem_image_size(const struct llmem_image *img)
{
	if (!img)
		return 0;
	return (uint64_t)img->width * img->height * img->depth * llmem_image_texel_size(img);
}

LLMEM_PUBLIC uint32_t llmem_image_width(const struct llmem_image *img)
{
	return img ? img->width : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_height(const struct llmem_image *img)
{
	return img ? img->height : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_depth(const struct llmem_image *img)
{
	return img ? img->depth : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_channels(const struct llmem_image *img)
{
	return img ? img->channels : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_channel_type(const struct llmem_image *img)
{
	return img ? img->channel_type : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_channel_order(const struct llmem_image *img)
{
	return img ? img->channel_order : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_usage(const struct llmem_image *img)
{
	return img ? img->usage : 0;
}

LLMEM_PUBLIC uint32_t llmem_image_layout(const struct llmem_image *img)
{
	return img ? (uint32_t)img->layout : VK_IMAGE_LAYOUT_UNDEFINED;
}

LLMEM_PUBLIC uint32_t llmem_image_format(const struct llmem_image *img)
{
	return img ? (uint32_t)img->format : VK_FORMAT_UNDEFINED;
}

LLMEM_PUBLIC uint32_t llmem_image_tiling(const struct llmem_image *img)
{
	return img && img->tiling == VK_IMAGE_TILING_LINEAR ? LLMEM_TILING_LINEAR
							    : LLMEM_TILING_OPTIMAL;
}

LLMEM_PUBLIC struct llmem_memory *llmem_image_memory(const struct llmem_image *img)
{
	return img ? img->obj.memory : NULL;
}

LLMEM_PUBLIC int llmem_image_get_allocation(const struct llmem_image *img,
					    struct llmem_allocation *a)
{
	if (!img || !a)
		return llmem_error(-EINVAL, "image allocation: NULL argument");
	*a = img->obj.alloc;
	return 0;
}

/*
 * The move out of UNDEFINED may discard the texels, so it is done before
 * the host can write any; it costs a wait once per image.
 */
LLMEM_PUBLIC int llmem_image_map(struct llmem_image *img, struct llmem_image_mapping *mapping)
{
	VkImageSubresource sub = { .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT };
	VkSubresourceLayout layout;
	void *ptr;
	int ret;

	if (!img || !mapping)
		return llmem_error(-EINVAL, "image map: NULL %s", img ? "mapping" : "image");
	if (img->tiling != VK_IMAGE_TILING_LINEAR)
		return llmem_error(-EINVAL,
				   "image map: image #%llu '%s' has optimal tiling, an order only "
				   "the device knows: create it with LLMEM_TILING_LINEAR, or copy "
				   "it to a buffer",
				   (unsigned long long)img->obj.id, img->obj.name);
	ret = llmem_memory_check_mappable(img->obj.memory);
	if (ret)
		return ret;
	ret = llmem_first_use_settle(image_session(img), &img->first_use);
	if (ret)
		return ret;
	ret = llmem_memory_map(img->obj.memory, &img->obj, &ptr);
	if (ret)
		return ret;
	vkGetImageSubresourceLayout(image_session(img)->device, img->vk, &sub, &layout);
	*mapping = (struct llmem_image_mapping){
		.data = (char *)ptr + layout.offset,
		.size = layout.size,
		.row_pitch = layout.rowPitch,
		.slice_pitch = img->type == VK_IMAGE_TYPE_3D ? layout.depthPitch
							     : layout.rowPitch * img->height,
	};
	return 0;
}

LLMEM_PUBLIC int llmem_image_unmap(struct llmem_image *img)
{
	if (!img)
		return llmem_error(-EINVAL, "image unmap: NULL image");
	return llmem_memory_unmap(img->obj.memory, &img->obj);
}
