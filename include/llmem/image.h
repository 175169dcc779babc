/* SPDX-License-Identifier: MIT */
/*
 * Images: VkImages laid out in pages of a memory, shaped as Lluvia shapes
 * them, and views with their samplers.  Optimal tiling by default; linear
 * tiling on request, which the host can map.
 *
 * Layouts are the library's business: an image is in GENERAL from its
 * creation on, every copy the library records transitions it as needed and
 * back, and llmem_image_layout() tells where it stands.  Creation submits
 * nothing: the move out of UNDEFINED rides on the next submission of the
 * session (one for all images made since), or happens when vulkan.h hands
 * out the image's handle.  Copies, uploads and downloads are in transfer.h.
 *
 * Thread safety: different images may be used from different threads
 * freely.  Uploads, downloads and copies of one image must not run
 * concurrently (they move its layout); llmem_image_destroy() must be
 * ordered after every other call on the image and its views.
 */
#ifndef LLMEM_IMAGE_H
#define LLMEM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "buffer.h"
#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

struct llmem_image;
struct llmem_image_view;

/*
 * Texel channel types.  The integer ones are the UINT/SINT formats and read
 * as integers in shaders; F16 and F32 the SFLOAT ones.  The normalised ones
 * store integers that views and samplers read as floats: UNORM in [0, 1]
 * (value / 255 or / 65535), SNORM in [-1, 1] (value / 127 or / 32767, -128
 * reading as -1), and SRGB8 8-bit values with the sRGB curve, read as
 * linear [0, 1] colour (alpha, the fourth channel, stays linear).
 */
enum llmem_channel_type {
	LLMEM_CHANNEL_U8 = 0,
	LLMEM_CHANNEL_I8,
	LLMEM_CHANNEL_U16,
	LLMEM_CHANNEL_I16,
	LLMEM_CHANNEL_U32,
	LLMEM_CHANNEL_I32,
	LLMEM_CHANNEL_F16,
	LLMEM_CHANNEL_F32,
	LLMEM_CHANNEL_UNORM8,
	LLMEM_CHANNEL_SNORM8,
	LLMEM_CHANNEL_UNORM16,
	LLMEM_CHANNEL_SNORM16,
	LLMEM_CHANNEL_SRGB8,
};

/*
 * The order of the channels in memory.  BGRA is what DRM's XRGB8888 and
 * ARGB8888 frames and most displays hold: B8G8R8A8 formats (B8G8R8 with
 * three channels), 8-bit channel types only.  A shader and a colour
 * (union llmem_color) still name the channels R, G, B, A.
 */
enum llmem_channel_order {
	LLMEM_ORDER_RGBA = 0,
	LLMEM_ORDER_BGRA = 1,
};

/* The same bits as VkImageUsageFlagBits. */
enum llmem_image_usage {
	LLMEM_IMAGE_TRANSFER_SRC = 1u << 0,
	LLMEM_IMAGE_TRANSFER_DST = 1u << 1,
	LLMEM_IMAGE_SAMPLED = 1u << 2,
	LLMEM_IMAGE_STORAGE = 1u << 3,
	LLMEM_IMAGE_COLOR_ATTACHMENT = 1u << 4,
};

/*
 * How the texels lie in memory.  Optimal tiling is the device's own order,
 * for the device alone.  Linear tiling puts rows one after another at a row
 * pitch the driver chooses, so that the host can map the image
 * (llmem_image_map()); devices have it for fewer formats, usages and shapes
 * (Vulkan promises only 2D images used for transfers) and read it more
 * slowly.
 */
enum llmem_image_tiling {
	LLMEM_TILING_OPTIMAL = 0,
	LLMEM_TILING_LINEAR = 1,
};

#define LLMEM_IMAGE_DEFAULT_USAGE                                               \
	(LLMEM_IMAGE_STORAGE | LLMEM_IMAGE_SAMPLED | LLMEM_IMAGE_TRANSFER_SRC | \
	 LLMEM_IMAGE_TRANSFER_DST)

#define LLMEM_IMAGE_MAX_DIMS 4
#define LLMEM_IMAGE_MAX_CHANNELS 4

struct llmem_image_create_info {
	/*
	 * Lluvia's shape rules, outermost first:
	 *   1: {width}
	 *   2: {height, width}
	 *   3: {height, width, channels}
	 *   4: {depth, height, width, channels}
	 * Every extent at least 1; channels 1 to 4.  A depth above 1 makes a
	 * 3D image, one dimension a 1D image, the rest 2D.
	 *
	 * Three channels need the device to have the three-channel format
	 * for the usage (optimal tiling); where it has not (lavapipe, most
	 * GPUs for storage), creation fails with -ENOTSUP and a message
	 * saying so: make the image four channels wide instead.  No hidden
	 * four-channel storage is substituted, since copies to and from
	 * buffers would then no longer be plain copies.
	 */
	uint32_t ndim;
	uint32_t shape[LLMEM_IMAGE_MAX_DIMS];
	/* enum llmem_channel_type; leave 0 for u8. */
	uint32_t channel_type;
	/* enum llmem_image_usage; leave 0 for LLMEM_IMAGE_DEFAULT_USAGE,
	 * less STORAGE where the device cannot store to the format (sRGB on
	 * most devices) and, for linear tiling, less SAMPLED where it cannot
	 * sample it that way: llmem_image_usage() tells. */
	uint32_t usage;
	/* Debug name; copied; leave NULL for none. */
	const char *name;
	/* enum llmem_channel_order; leave 0 for RGBA.  BGRA needs 3 or 4
	 * channels of an 8-bit type. */
	uint32_t channel_order;
	/* enum llmem_image_tiling; leave 0 for optimal. */
	uint32_t tiling;
};

/**
 * llmem_image_create() - place a new image in @memory, in GENERAL layout.
 *
 * Return: 0; -EINVAL for NULL arguments, ndim 0 or above 4, an extent of 0,
 * channels above 4, an unknown channel type, order, tiling or usage bits,
 * BGRA with other than 3 or 4 channels of 8 bits; -ENOTSUP when the device
 * has no such format for that usage and tiling (or not in this size), or
 * the memory's type cannot hold the image; -ENOMEM, also for an image
 * above the format's maxResourceSize or the memory's max_allocation_size
 * (struct llmem_memory_info), refused before Vulkan sees it; -EIO.
 */
int llmem_image_create(struct llmem_memory *memory, const struct llmem_image_create_info *info,
		       struct llmem_image **out);

/**
 * llmem_image_create_like_image() - an image of @like's shape, channel type,
 * channel order, tiling and usage in @memory (Lluvia's createImageLike); texels
 * are not copied (llmem_enqueue_copy_image() does that).
 * @info: NULL, or overrides: a non-zero usage replaces @like's; a name is
 *	used (NULL: @like's name).  Its shape and types are ignored.
 *
 * @memory need not be @like's, but must be of the same session.
 *
 * Return: as llmem_image_create(); -EINVAL also for a memory of another
 * session.
 */
int llmem_image_create_like_image(struct llmem_memory *memory, const struct llmem_image *like,
				  const struct llmem_image_create_info *info,
				  struct llmem_image **out);

/* Accepts NULL.  Views of the image must have been destroyed. */
void llmem_image_destroy(struct llmem_image *image);

/* Tightly packed bytes of the image: depth × height × width × channels × channel size. */
uint64_t llmem_image_size(const struct llmem_image *image);
uint32_t llmem_image_width(const struct llmem_image *image);
uint32_t llmem_image_height(const struct llmem_image *image);
uint32_t llmem_image_depth(const struct llmem_image *image);
uint32_t llmem_image_channels(const struct llmem_image *image);
uint32_t llmem_image_channel_type(const struct llmem_image *image);
/* enum llmem_channel_order. */
uint32_t llmem_image_channel_order(const struct llmem_image *image);
/* Bytes of one texel: channels × channel size. */
uint32_t llmem_image_texel_size(const struct llmem_image *image);
uint32_t llmem_image_usage(const struct llmem_image *image);
/* The current VkImageLayout, as the library tracks it. */
uint32_t llmem_image_layout(const struct llmem_image *image);
/* The VkFormat chosen for the channels, their type and order. */
uint32_t llmem_image_format(const struct llmem_image *image);
/* enum llmem_image_tiling. */
uint32_t llmem_image_tiling(const struct llmem_image *image);
struct llmem_memory *llmem_image_memory(const struct llmem_image *image);

/* Where a mapped linear image's texels lie (vkGetImageSubresourceLayout). */
struct llmem_image_mapping {
	/* The first texel: row 0 of slice 0. */
	void *data;
	/* Bytes from @data to the end of the texels, padding included. */
	uint64_t size;
	/* Bytes between the starts of two rows, and of two slices (for images
	 * of one slice, row_pitch × height). */
	uint64_t row_pitch;
	uint64_t slice_pitch;
};

/**
 * llmem_image_map() - a linear image's texels in this process.
 * @mapping: (out) where they lie; texels of a row are tightly packed.
 *
 * Maps the image's page as llmem_buffer_map() does: maps nest, each needs
 * its llmem_image_unmap(), and the page's mapping is shared with the other
 * objects on it.  The image's first move out of UNDEFINED, which may discard
 * its contents, is made and waited for before the pointer is handed out.
 * As with buffers, host writes reach the device and device writes the host
 * as the memory's coherence says: on memory that is not HOST_COHERENT,
 * llmem_memory_flush_page() and llmem_memory_invalidate_page() of the
 * image's allocation (llmem_image_get_allocation()) order them.
 *
 * Return: 0; -EINVAL for NULL arguments or an image of optimal tiling, whose
 * texels are in an order only the device knows (copy them to a buffer, or
 * create the image with LLMEM_TILING_LINEAR); -EPERM when the memory is not
 * host visible; -ENOMEM or -EIO when mapping fails.
 */
int llmem_image_map(struct llmem_image *image, struct llmem_image_mapping *mapping);

/* Return: 0; -EINVAL for NULL or an image that is not mapped. */
int llmem_image_unmap(struct llmem_image *image);

/* Return: 0, or -EINVAL for NULL. */
int llmem_image_get_allocation(const struct llmem_image *image,
			       struct llmem_allocation *allocation);

enum llmem_filter {
	LLMEM_FILTER_NEAREST = 0,
	LLMEM_FILTER_LINEAR,
};

enum llmem_address_mode {
	LLMEM_ADDRESS_REPEAT = 0,
	LLMEM_ADDRESS_MIRRORED_REPEAT,
	LLMEM_ADDRESS_CLAMP_TO_EDGE,
	LLMEM_ADDRESS_CLAMP_TO_BORDER,
	LLMEM_ADDRESS_MIRROR_CLAMP_TO_EDGE,
};

struct llmem_image_view_create_info {
	/* enum llmem_filter, for magnification and minification; leave 0
	 * for nearest.  Linear needs a format the device filters. */
	uint32_t filter;
	/* enum llmem_address_mode, on every axis; leave 0 for repeat. */
	uint32_t address_mode;
	/* Texel coordinates instead of [0, 1]; leave 0 for normalised.
	 * Vulkan allows them only with clamp to edge or to border. */
	uint32_t unnormalized_coordinates;
};

/**
 * llmem_image_view_create() - a view of the whole image and its sampler.
 * @info: NULL for the defaults.
 *
 * The view holds a reference on nothing: destroy it before its image.  The
 * image counts its views: llmem_enqueue_migrate_image() refuses (-EBUSY) to
 * move an image that has any, since they would be left on the old one.
 *
 * Return: 0; -EINVAL for NULL, unknown filter or address mode, or
 * unnormalised coordinates with a repeating address mode; -ENOTSUP for a
 * linear filter on a format the device cannot filter, or mirror clamp to
 * edge where the device lacks it; -EIO.
 */
int llmem_image_view_create(struct llmem_image *image,
			    const struct llmem_image_view_create_info *info,
			    struct llmem_image_view **out);

/* Accepts NULL. */
void llmem_image_view_destroy(struct llmem_image_view *view);

/* Return: 0, or -EINVAL for NULL. */
int llmem_image_view_get_info(const struct llmem_image_view *view,
			      struct llmem_image_view_create_info *info);

#ifdef __cplusplus
}
#endif

#endif /* LLMEM_IMAGE_H */
