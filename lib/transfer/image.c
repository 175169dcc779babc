// SPDX-License-Identifier: MIT
/*
 * Image transfers: boxes of an image to and from host memory (through the
 * staging ring, linear images too: only their caller maps them), buffers and
 * other images, clears and fills.
 */
#include <errno.h>
#include <string.h>

#include <llmem/vulkan.h>

#include "base/error.h"
#include "memory/image.h"
#include "transfer/queue.h"
#include "base/box.h"
#include "transfer/texel.h"

#define STAGE_ALIGN 48

struct img_args {
	struct llmem_image *img;
	uint32_t texel;
	VkOffset3D origin;
	VkExtent3D extent;
	/* Where the box lies on the linear side. */
	struct llmem_lin lin;
};

static struct llmem_session *img_session(const struct llmem_image *img)
{
	return llmem_memory_session(llmem_image_memory(img));
}

static int check_region(const char *what, struct llmem_image *img,
			const struct llmem_image_region *r, struct img_args *a)
{
	static const struct llmem_image_region whole;
	uint32_t dims[3] = { llmem_image_width(img), llmem_image_height(img),
			     llmem_image_depth(img) };
	uint32_t ext[3];

	if (!r)
		r = &whole;
	for (int i = 0; i < 3; i++) {
		if (r->origin[i] >= dims[i])
			return llmem_error(-EINVAL,
					   "%s: origin %u on axis %d is outside the %u texels",
					   what, r->origin[i], i, dims[i]);
		ext[i] = r->extent[i] ? r->extent[i] : dims[i] - r->origin[i];
		if (ext[i] > dims[i] - r->origin[i])
			return llmem_error(-EINVAL,
					   "%s: %u texels from %u on axis %d pass the %u there",
					   what, ext[i], r->origin[i], i, dims[i]);
	}
	a->img = img;
	a->texel = (uint32_t)(llmem_image_size(img) / ((uint64_t)dims[0] * dims[1] * dims[2]));
	a->origin =
		(VkOffset3D){ (int32_t)r->origin[0], (int32_t)r->origin[1], (int32_t)r->origin[2] };
	a->extent = (VkExtent3D){ ext[0], ext[1], ext[2] };
	return 0;
}

static int check_image(struct llmem_queue *q, struct llmem_image *img, uint32_t usage,
		       const char *what)
{
	if (!q || !img)
		return llmem_error(-EINVAL, "%s: NULL %s", what, q ? "image" : "queue");
	if (img_session(img) != q->session)
		return llmem_error(-EINVAL, "%s: the image is of another session", what);
	if (!(llmem_image_usage(img) & usage))
		return llmem_error(-EPERM, "%s: the image lacks TRANSFER_%s usage", what,
				   usage == LLMEM_IMAGE_TRANSFER_SRC ? "SRC" : "DST");
	return 0;
}

static int check_linear(const char *what, const struct img_args *a,
			const struct llmem_linear_layout *l, uint64_t limit, struct llmem_lin *out)
{
	static const struct llmem_linear_layout packed;
	uint64_t origin[3], pitch[2];

	if (!l)
		l = &packed;
	origin[0] = l->offset;
	origin[1] = origin[2] = 0;
	pitch[0] = l->row_pitch;
	pitch[1] = l->slice_pitch;
	return llmem_lin_check(what, origin, pitch, (uint64_t)a->extent.width * a->texel,
			       a->extent.height, a->extent.depth, limit, out);
}

/*
 * Images rest in the layout the library tracks (GENERAL); each operation
 * moves the image to the transfer layout it needs and back, inside its own
 * command buffer, so the tracked layout holds again when it completes.
 */
static void layout_barrier(VkCommandBuffer cmd, struct llmem_image *img, VkImageLayout want,
			   bool enter)
{
	if (enter)
		llmem_image_barrier(cmd, img, img->layout, want);
	else
		llmem_image_barrier(cmd, img, want, img->layout);
}

static VkBufferImageCopy box_region(const struct img_args *a, uint64_t buffer_offset,
				    uint64_t row_texels, uint64_t rows, const struct llmem_box *b)
{
	return (VkBufferImageCopy){
		.bufferOffset = buffer_offset,
		.bufferRowLength = (uint32_t)row_texels,
		.bufferImageHeight = (uint32_t)rows,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageOffset = { a->origin.x + (int32_t)b->x, a->origin.y + (int32_t)b->y,
				 a->origin.z + (int32_t)b->z },
		.imageExtent = { (uint32_t)b->w, (uint32_t)b->h, (uint32_t)b->d },
	};
}

static void record_copy(VkCommandBuffer cmd, const struct img_args *a, VkBuffer buf,
			const VkBufferImageCopy *region, bool to_image)
{
	VkImage vk = a->img->vk;
	VkImageLayout l = to_image ? VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
				   : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;

	llmem_cmd_barrier(cmd);
	layout_barrier(cmd, a->img, l, true);
	if (to_image)
		vkCmdCopyBufferToImage(cmd, buf, vk, l, 1, region);
	else
		vkCmdCopyImageToBuffer(cmd, vk, l, buf, 1, region);
	layout_barrier(cmd, a->img, l, false);
}

static int staged(struct llmem_queue *q, const struct img_args *a, uint8_t *host, bool read)
{
	struct llmem_box_cut cut;
	struct llmem_box b;
	int ret;

	llmem_box_cut_init(&cut, a->texel, a->extent.width, a->extent.height, a->extent.depth,
			   llmem_queue_chunk(q));
	while (llmem_box_cut_next(&cut, &b)) {
		uint64_t row = b.w * a->texel, bytes = row * b.h * b.d;
		uint8_t *h = host + llmem_lin_at(&a->lin, a->texel, b.x, b.y, b.z);
		VkBufferImageCopy region;
		struct llmem_span sp;

		ret = llmem_queue_stage(q, bytes, STAGE_ALIGN, &sp);
		if (ret)
			return ret;
		if (!read) {
			llmem_queue_stage_box(q, sp.ptr, row, row * b.h, h, a->lin.rp, a->lin.sp,
					      row, b.h, b.d);
			ret = llmem_queue_stage_flush(&sp, bytes);
			if (ret)
				return ret;
		}
		region = box_region(a, sp.off, b.w, b.h, &b);
		record_copy(q->open->cmd, a, sp.buffer->vk, &region, !read);
		if (read)
			ret = llmem_queue_add_done(q, &(struct llmem_done){
							      .kind = LLMEM_DONE_READ,
							      .buffer = sp.buffer,
							      .off = sp.off,
							      .dst = h,
							      .bytes = row,
							      .rows = b.h,
							      .slices = b.d,
							      .dst_row_pitch = a->lin.rp,
							      .dst_slice_pitch = a->lin.sp,
						      });
		if (!ret)
			ret = llmem_queue_flush(q);
		if (ret)
			return ret;
	}
	return 0;
}

static int host_image(struct llmem_queue *q, struct llmem_image *img,
		      const struct llmem_image_region *region, uint8_t *host,
		      const struct llmem_linear_layout *layout, bool read,
		      const struct llmem_wait_list *wait_for, struct llmem_event **event)
{
	const char *what = read ? "read image" : "write image";
	struct img_args a;
	int ret;

	ret = check_image(q, img, read ? LLMEM_IMAGE_TRANSFER_SRC : LLMEM_IMAGE_TRANSFER_DST, what);
	if (!ret && !host)
		ret = llmem_error(-EINVAL, "%s: NULL host pointer", what);
	if (!ret)
		ret = check_region(what, img, region, &a);
	if (!ret)
		ret = check_linear(what, &a, layout, UINT64_MAX, &a.lin);
	if (!ret)
		ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	return llmem_queue_op_leave(q, staged(q, &a, host, read), event);
}

LLMEM_PUBLIC int llmem_enqueue_write_image(struct llmem_queue *q, struct llmem_image *img,
					   const struct llmem_image_region *region, const void *src,
					   const struct llmem_linear_layout *host,
					   const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	return host_image(q, img, region, (uint8_t *)src, host, false, wait_for, event);
}

LLMEM_PUBLIC int llmem_enqueue_read_image(struct llmem_queue *q, struct llmem_image *img,
					  const struct llmem_image_region *region, void *dst,
					  const struct llmem_linear_layout *host,
					  const struct llmem_wait_list *wait_for,
					  struct llmem_event **event)
{
	return host_image(q, img, region, dst, host, true, wait_for, event);
}

static int buffer_image(struct llmem_queue *q, struct llmem_buffer *buf,
			const struct llmem_linear_layout *layout, struct llmem_image *img,
			const struct llmem_image_region *region, bool to_image,
			const struct llmem_wait_list *wait_for, struct llmem_event **event)
{
	const char *what = to_image ? "copy buffer to image" : "copy image to buffer";
	uint32_t need = to_image ? LLMEM_BUFFER_TRANSFER_SRC : LLMEM_BUFFER_TRANSFER_DST;
	struct llmem_box all;
	VkBufferImageCopy r;
	struct img_args a;
	int ret;

	ret = check_image(q, img, to_image ? LLMEM_IMAGE_TRANSFER_DST : LLMEM_IMAGE_TRANSFER_SRC,
			  what);
	if (ret)
		return ret;
	ret = llmem_queue_check_buffer(q, buf, what);
	if (ret)
		return ret;
	if (!(buf->usage & need))
		return llmem_error(-EPERM, "%s: the buffer lacks TRANSFER_%s usage", what,
				   to_image ? "SRC" : "DST");
	ret = check_region(what, img, region, &a);
	if (!ret)
		ret = check_linear(what, &a, layout, buf->size, &a.lin);
	if (ret)
		return ret;
	if (a.lin.base % a.texel || a.lin.rp % a.texel || a.lin.sp % a.lin.rp)
		return llmem_error(-EINVAL,
				   "%s: offset and row pitch must be multiples of the %u-byte "
				   "texel, the slice pitch of the row pitch",
				   what, a.texel);
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	if (!llmem_queue_open_record(q)) {
		ret = q->record_error;
	} else {
		all = (struct llmem_box){
			0, 0, 0, a.extent.width, a.extent.height, a.extent.depth
		};
		r = box_region(&a, a.lin.base, a.lin.rp / a.texel, a.lin.sp / a.lin.rp, &all);
		record_copy(q->open->cmd, &a, buf->vk, &r, to_image);
	}
	return llmem_queue_op_leave(q, ret, event);
}

LLMEM_PUBLIC int llmem_enqueue_copy_buffer_to_image(struct llmem_queue *q, struct llmem_buffer *buf,
						    const struct llmem_linear_layout *layout,
						    struct llmem_image *img,
						    const struct llmem_image_region *region,
						    const struct llmem_wait_list *wait_for,
						    struct llmem_event **event)
{
	return buffer_image(q, buf, layout, img, region, true, wait_for, event);
}

LLMEM_PUBLIC int llmem_enqueue_copy_image_to_buffer(struct llmem_queue *q, struct llmem_image *img,
						    const struct llmem_image_region *region,
						    struct llmem_buffer *buf,
						    const struct llmem_linear_layout *layout,
						    const struct llmem_wait_list *wait_for,
						    struct llmem_event **event)
{
	return buffer_image(q, buf, layout, img, region, false, wait_for, event);
}

static bool whole_image(const struct img_args *a)
{
	return a->origin.x == 0 && a->origin.y == 0 && a->origin.z == 0 &&
	       a->extent.width == llmem_image_width(a->img) &&
	       a->extent.height == llmem_image_height(a->img) &&
	       a->extent.depth == llmem_image_depth(a->img);
}

/* A few rows of the colour, copied over the box row band by row band. */
static int clear_by_copy(struct llmem_queue *q, const struct img_args *a, const uint8_t *texel)
{
	uint64_t row = (uint64_t)a->extent.width * a->texel;
	uint64_t band = row >= 65536 ? 1 : 65536 / row;
	struct llmem_span sp;
	int ret;

	if (band > a->extent.height)
		band = a->extent.height;
	ret = llmem_queue_stage(q, row * band, STAGE_ALIGN, &sp);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < row * band; i += a->texel)
		memcpy(sp.ptr + i, texel, a->texel);
	ret = llmem_queue_stage_flush(&sp, row * band);
	if (ret)
		return ret;
	for (uint64_t z = 0; z < a->extent.depth; z++) {
		for (uint64_t y = 0; y < a->extent.height; y += band) {
			uint64_t h = a->extent.height - y < band ? a->extent.height - y : band;
			struct llmem_box b = { 0, y, z, a->extent.width, h, 1 };
			VkBufferImageCopy r = box_region(a, sp.off, a->extent.width, band, &b);

			record_copy(q->open->cmd, a, sp.buffer->vk, &r, true);
		}
	}
	return 0;
}

LLMEM_PUBLIC int llmem_enqueue_clear_image(struct llmem_queue *q, struct llmem_image *img,
					   const struct llmem_image_region *region,
					   const union llmem_color *color,
					   const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
	uint8_t texel[16];
	VkClearColorValue v;
	struct img_args a;
	int ret;

	ret = check_image(q, img, LLMEM_IMAGE_TRANSFER_DST, "clear image");
	if (!ret && !color)
		ret = llmem_error(-EINVAL, "clear image: NULL colour");
	if (!ret)
		ret = check_region("clear image", img, region, &a);
	if (!ret)
		ret = llmem_texel_encode("clear image", img, color, texel);
	if (!ret)
		ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	if (!llmem_queue_open_record(q)) {
		ret = q->record_error;
	} else if (whole_image(&a)) {
		memcpy(&v, color, sizeof(v));
		llmem_cmd_barrier(q->open->cmd);
		layout_barrier(q->open->cmd, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, true);
		vkCmdClearColorImage(q->open->cmd, img->vk, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
				     &v, 1, &range);
		layout_barrier(q->open->cmd, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, false);
	} else {
		ret = clear_by_copy(q, &a, texel);
	}
	return llmem_queue_op_leave(q, ret, event);
}

LLMEM_PUBLIC int llmem_enqueue_fill_image(struct llmem_queue *q, struct llmem_image *img,
					  const struct llmem_image_region *region,
					  const void *texel, uint32_t texel_size,
					  const struct llmem_wait_list *wait_for,
					  struct llmem_event **event)
{
	struct img_args a;
	int ret;

	ret = check_image(q, img, LLMEM_IMAGE_TRANSFER_DST, "fill image");
	if (!ret && !texel)
		ret = llmem_error(-EINVAL, "fill image: NULL texel");
	if (!ret && texel_size != llmem_image_texel_size(img))
		ret = llmem_error(-EINVAL, "fill image: a %u-byte value for %u-byte texels",
				  texel_size, llmem_image_texel_size(img));
	if (!ret)
		ret = check_region("fill image", img, region, &a);
	if (!ret)
		ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	if (!llmem_queue_open_record(q))
		ret = q->record_error;
	else
		ret = clear_by_copy(q, &a, texel);
	return llmem_queue_op_leave(q, ret, event);
}

static bool boxes_overlap(const struct img_args *a, const struct img_args *b)
{
	const int32_t ao[3] = { a->origin.x, a->origin.y, a->origin.z };
	const int32_t bo[3] = { b->origin.x, b->origin.y, b->origin.z };
	const uint32_t e[3] = { a->extent.width, a->extent.height, a->extent.depth };

	for (int i = 0; i < 3; i++)
		if (ao[i] + (int64_t)e[i] <= bo[i] || bo[i] + (int64_t)e[i] <= ao[i])
			return false;
	return true;
}

static int check_image_copy(struct llmem_queue *q, struct llmem_image *src, struct llmem_image *dst,
			    const struct llmem_image_copy *c, struct img_args *s,
			    struct img_args *d)
{
	static const struct llmem_image_copy whole;
	struct llmem_image_region r;
	int ret;

	ret = check_image(q, src, LLMEM_IMAGE_TRANSFER_SRC, "copy image");
	if (!ret)
		ret = check_image(q, dst, LLMEM_IMAGE_TRANSFER_DST, "copy image");
	if (ret)
		return ret;
	if (llmem_image_texel_size(src) != llmem_image_texel_size(dst))
		return llmem_error(-EINVAL,
				   "copy image: %u-byte texels to %u-byte ones; copies need "
				   "texels of one size",
				   llmem_image_texel_size(src), llmem_image_texel_size(dst));
	if (!c)
		c = &whole;
	r = (struct llmem_image_region){ { c->src_origin[0], c->src_origin[1], c->src_origin[2] },
					 { c->extent[0], c->extent[1], c->extent[2] } };
	ret = check_region("copy image: source", src, &r, s);
	if (ret)
		return ret;
	memcpy(r.origin, c->dst_origin, sizeof(r.origin));
	r.extent[0] = s->extent.width;
	r.extent[1] = s->extent.height;
	r.extent[2] = s->extent.depth;
	ret = check_region("copy image: destination", dst, &r, d);
	if (ret)
		return ret;
	if (src == dst && boxes_overlap(s, d))
		return llmem_error(-EINVAL, "copy image: the boxes overlap in one image");
	return 0;
}

/*
 * Within one image both boxes are one subresource, which Vulkan wants in a
 * single layout: GENERAL serves as source and destination at once.
 */
static void record_image_copy(VkCommandBuffer cmd, const struct img_args *s,
			      const struct img_args *d)
{
	bool same = s->img == d->img;
	VkImageLayout sl = same ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	VkImageLayout dl = same ? VK_IMAGE_LAYOUT_GENERAL : VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	VkImageCopy region = {
		.srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.srcOffset = s->origin,
		.dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.dstOffset = d->origin,
		.extent = s->extent,
	};

	llmem_cmd_barrier(cmd);
	layout_barrier(cmd, s->img, sl, true);
	if (!same)
		layout_barrier(cmd, d->img, dl, true);
	vkCmdCopyImage(cmd, s->img->vk, sl, d->img->vk, dl, 1, &region);
	layout_barrier(cmd, s->img, sl, false);
	if (!same)
		layout_barrier(cmd, d->img, dl, false);
}

LLMEM_PUBLIC int llmem_enqueue_copy_image(struct llmem_queue *q, struct llmem_image *src,
					  struct llmem_image *dst,
					  const struct llmem_image_copy *copy,
					  const struct llmem_wait_list *wait_for,
					  struct llmem_event **event)
{
	struct img_args s, d;
	int ret;

	ret = check_image_copy(q, src, dst, copy, &s, &d);
	if (!ret)
		ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	if (!llmem_queue_open_record(q))
		ret = q->record_error;
	else
		record_image_copy(q->open->cmd, &s, &d);
	return llmem_queue_op_leave(q, ret, event);
}
