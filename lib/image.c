// SPDX-License-Identifier: MIT
/*
 * Images: Lluvia's shapes as optimal-tiling VkImages placed in pages, the
 * layout each one is in, copies to and from buffers, views and samplers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/vulkan.h>

#include "buffer_internal.h"
#include "error.h"
#include "image_internal.h"
#include "memory_internal.h"
#include "session_internal.h"

#define USAGE_MASK 0x1fu

struct llmem_image_view {
	struct llmem_image *image;
	VkImageView vk;
	VkSampler sampler;
	struct llmem_image_view_create_info info;
};

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
};

static const uint32_t channel_bytes[] = { 1, 1, 2, 2, 4, 4, 2, 4 };

#define N_CHANNEL_TYPES (sizeof(channel_bytes) / sizeof(channel_bytes[0]))

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
	img->format = formats[ci->channel_type][img->channels - 1];
	img->type = img->depth > 1  ? VK_IMAGE_TYPE_3D
		    : ci->ndim == 1 ? VK_IMAGE_TYPE_1D
				    : VK_IMAGE_TYPE_2D;
	return 0;
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
		.tiling = VK_IMAGE_TILING_OPTIMAL,
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
	if (r == VK_ERROR_FORMAT_NOT_SUPPORTED)
		return llmem_error(-ENOTSUP, "image: the device has no format %d for usage 0x%x",
				   img->format, img->usage);
	if (r != VK_SUCCESS)
		return llmem_error(-EIO, "vkGetPhysicalDeviceImageFormatProperties2: %s",
				   llmem_vk_result_name(r));
	if (img->width > max->width || img->height > max->height || img->depth > max->depth)
		return llmem_error(-ENOTSUP, "image: %ux%ux%u exceeds the device's %ux%ux%u",
				   img->depth, img->height, img->width, max->depth, max->height,
				   max->width);
	return 0;
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

/* Moves @img to @layout and tracks it there. */
static void transition(VkCommandBuffer cmd, struct llmem_image *img, VkImageLayout layout)
{
	llmem_image_barrier(cmd, img, img->layout, layout);
	img->layout = layout;
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
	snprintf(img->obj.name, sizeof(img->obj.name), "%s", info->name ? info->name : "");
	img->usage = info->usage ? info->usage : LLMEM_IMAGE_DEFAULT_USAGE;
	/* GENERAL serves every usage, so callers never see UNDEFINED; the
	 * move there is deferred to the next submission (image_init.c). */
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

	VkExternalMemoryImageCreateInfo external = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
		.handleTypes = llmem_memory_handle_types(m),
	};
	ret = check_format(s, img, (VkExternalMemoryHandleTypeFlagBits)external.handleTypes);
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
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = img->usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	r = vkCreateImage(s->device, &ci, NULL, &img->vk);
	if (r != VK_SUCCESS) {
		ret = llmem_error(-EIO, "vkCreateImage: %s", llmem_vk_result_name(r));
		goto out_free;
	}
	vkGetImageMemoryRequirements(s->device, img->vk, &req);
	ret = llmem_memory_place(m, &img->obj, &req, true, &page);
	if (ret)
		goto out_destroy_image;
	r = llmem_memory_bind(m, img->obj.alloc.page, img->obj.alloc.offset, VK_NULL_HANDLE,
			      img->vk);
	if (r != VK_SUCCESS) {
		ret = llmem_error(-EIO, "vkBindImageMemory: %s", llmem_vk_result_name(r));
		goto out_release;
	}
	ret = llmem_image_init_defer(s, img);
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

LLMEM_PUBLIC int llmem_image_create_from_host(struct llmem_memory *m,
					      const struct llmem_image_create_info *info,
					      const void *data, uint64_t size,
					      struct llmem_image **out)
{
	int ret;

	if (!data)
		return llmem_error(-EINVAL, "image from host: NULL data");
	ret = llmem_image_create(m, info, out);
	if (ret)
		return ret;
	ret = llmem_image_upload(*out, data, size);
	if (ret) {
		llmem_image_destroy(*out);
		*out = NULL;
	}
	return ret;
}

LLMEM_PUBLIC void llmem_image_destroy(struct llmem_image *img)
{
	if (!img)
		return;
	llmem_image_init_forget(image_session(img), img);
	vkDestroyImage(image_session(img)->device, img->vk, NULL);
	llmem_memory_release(img->obj.memory, &img->obj);
	free(img);
}

LLMEM_PUBLIC uint64_t llmem_image_size(const struct llmem_image *img)
{
	if (!img)
		return 0;
	return (uint64_t)img->width * img->height * img->depth * img->channels *
	       channel_bytes[img->channel_type];
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

LLMEM_PUBLIC struct llmem_memory *llmem_image_memory(const struct llmem_image *img)
{
	return img ? img->obj.memory : NULL;
}

LLMEM_PUBLIC VkImage llmem_image_vk_image(const struct llmem_image *img)
{
	/* The caller's own work may run on another queue: the image must be
	 * in GENERAL on the device before the handle leaves. */
	if (!img || llmem_image_init_settle(image_session(img), (struct llmem_image *)img))
		return VK_NULL_HANDLE;
	return img->vk;
}

LLMEM_PUBLIC int llmem_image_get_allocation(const struct llmem_image *img,
					    struct llmem_allocation *a)
{
	if (!img || !a)
		return llmem_error(-EINVAL, "image allocation: NULL argument");
	*a = img->obj.alloc;
	return 0;
}

static int copy_checks(struct llmem_image *img, struct llmem_buffer *buf, bool to_image)
{
	if (!img || !buf)
		return llmem_error(-EINVAL, "image copy: NULL %s", img ? "buffer" : "image");
	if (image_session(img) != llmem_memory_session(buf->obj.memory))
		return llmem_error(-EINVAL, "image copy: objects of different sessions");
	if (buf->size < llmem_image_size(img))
		return llmem_error(
			-EINVAL, "image copy: buffer of %llu bytes, the image needs %llu",
			(unsigned long long)buf->size, (unsigned long long)llmem_image_size(img));
	if (to_image &&
	    (!(img->usage & LLMEM_IMAGE_TRANSFER_DST) || !(buf->usage & LLMEM_BUFFER_TRANSFER_SRC)))
		return llmem_error(-EPERM, "image copy: needs TRANSFER_DST on the image and "
					   "TRANSFER_SRC on the buffer");
	if (!to_image &&
	    (!(img->usage & LLMEM_IMAGE_TRANSFER_SRC) || !(buf->usage & LLMEM_BUFFER_TRANSFER_DST)))
		return llmem_error(-EPERM, "image copy: needs TRANSFER_SRC on the image and "
					   "TRANSFER_DST on the buffer");
	return 0;
}

static int copy(struct llmem_image *img, struct llmem_buffer *buf, bool to_image)
{
	struct llmem_session *s;
	VkBufferImageCopy region = {
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { img->width, img->height, img->depth },
	};
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	VkImageLayout back;
	VkCommandBuffer cmd;

	s = image_session(img);
	cmd = llmem_cmd_begin(s);
	if (!cmd)
		return -EIO;
	back = img->layout;
	if (to_image) {
		transition(cmd, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
		vkCmdCopyBufferToImage(cmd, buf->vk, img->vk, img->layout, 1, &region);
	} else {
		transition(cmd, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
		vkCmdCopyImageToBuffer(cmd, img->vk, img->layout, buf->vk, 1, &region);
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
				     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
	}
	transition(cmd, img, back);
	return llmem_cmd_submit(s);
}

LLMEM_PUBLIC int llmem_image_copy_from_buffer(struct llmem_image *img, struct llmem_buffer *buf)
{
	int ret = copy_checks(img, buf, true);

	return ret ? ret : copy(img, buf, true);
}

LLMEM_PUBLIC int llmem_image_copy_to_buffer(struct llmem_image *img, struct llmem_buffer *buf)
{
	int ret = copy_checks(img, buf, false);

	return ret ? ret : copy(img, buf, false);
}

static int staging_buffer(struct llmem_image *img, struct llmem_buffer **out)
{
	struct llmem_buffer_create_info ci = {
		.size = llmem_image_size(img),
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
		.name = "staging",
	};
	struct llmem_memory *staging;
	int ret;

	ret = llmem_session_staging(image_session(img), &staging);
	if (ret)
		return ret;
	return llmem_buffer_create(staging, &ci, out);
}

static int check_host_size(struct llmem_image *img, const void *data, uint64_t size)
{
	if (!img || !data)
		return llmem_error(-EINVAL, "image host copy: NULL %s", img ? "data" : "image");
	if (size != llmem_image_size(img))
		return llmem_error(-EINVAL, "image host copy: %llu bytes, the image has %llu",
				   (unsigned long long)size,
				   (unsigned long long)llmem_image_size(img));
	return 0;
}

LLMEM_PUBLIC int llmem_image_upload(struct llmem_image *img, const void *data, uint64_t size)
{
	struct llmem_buffer *buf;
	void *ptr;
	int ret;

	ret = check_host_size(img, data, size);
	if (ret)
		return ret;
	if (!(img->usage & LLMEM_IMAGE_TRANSFER_DST))
		return llmem_error(-EPERM, "image upload: the image lacks TRANSFER_DST usage");
	ret = staging_buffer(img, &buf);
	if (ret)
		return ret;
	ret = llmem_buffer_map(buf, &ptr);
	if (ret)
		goto out_destroy;
	memcpy(ptr, data, size);
	ret = llmem_buffer_flush(buf, 0, LLMEM_WHOLE_SIZE);
	llmem_buffer_unmap(buf);
	if (!ret)
		ret = copy(img, buf, true);
out_destroy:
	llmem_buffer_destroy(buf);
	return ret;
}

LLMEM_PUBLIC int llmem_image_download(struct llmem_image *img, void *data, uint64_t size)
{
	struct llmem_buffer *buf;
	void *ptr;
	int ret;

	ret = check_host_size(img, data, size);
	if (ret)
		return ret;
	if (!(img->usage & LLMEM_IMAGE_TRANSFER_SRC))
		return llmem_error(-EPERM, "image download: the image lacks TRANSFER_SRC usage");
	ret = staging_buffer(img, &buf);
	if (ret)
		return ret;
	ret = copy(img, buf, false);
	if (ret)
		goto out_destroy;
	ret = llmem_buffer_map(buf, &ptr);
	if (ret)
		goto out_destroy;
	ret = llmem_buffer_invalidate(buf, 0, LLMEM_WHOLE_SIZE);
	if (!ret)
		memcpy(data, ptr, size);
	llmem_buffer_unmap(buf);
out_destroy:
	llmem_buffer_destroy(buf);
	return ret;
}

static bool is_integer(const struct llmem_image *img)
{
	return img->channel_type != LLMEM_CHANNEL_F16 && img->channel_type != LLMEM_CHANNEL_F32;
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
	vkGetPhysicalDeviceFormatProperties(s->physical, img->format, &fp);
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
		ret = llmem_error(-EIO, "vkCreateImageView: %s", llmem_vk_result_name(r));
		goto out_free;
	}
	r = vkCreateSampler(s->device, &sci, NULL, &v->sampler);
	if (r != VK_SUCCESS) {
		ret = llmem_error(-EIO, "vkCreateSampler: %s", llmem_vk_result_name(r));
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

LLMEM_PUBLIC VkImageView llmem_image_view_vk_view(const struct llmem_image_view *v)
{
	if (!v || !llmem_image_vk_image(v->image))
		return VK_NULL_HANDLE;
	return v->vk;
}

LLMEM_PUBLIC VkSampler llmem_image_view_vk_sampler(const struct llmem_image_view *v)
{
	return v ? v->sampler : VK_NULL_HANDLE;
}
