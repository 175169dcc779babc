// SPDX-License-Identifier: MIT
/*
 * One conversion, YUV to RGB, RGB to YUV or 24-bit RGB to RGBA: its
 * checks, its kernel (the session's built-in one for the pair of formats,
 * transfer/kernel.h) and the recording of its dispatch with a descriptor
 * set of its own.
 * The RGB frame's bytes are in the order its fourcc names: R, G, B, A for
 * ABGR8888, B, G, R, A for XRGB8888 and ARGB8888, what displays scan out;
 * R, G, B for BGR888 and B, G, R for RGB888, what cameras write.
 * An NV12 source's CbCr plane is read from a binding of its own, bound to
 * the Y plane's buffer or to a buffer of the plane's own (a camera's NV12M);
 * an NV12 destination has both planes in its buffer.
 *
 * Storage buffers are read and written a 32-bit word at a time, and two
 * invocations must never write one word: every plane a shader touches as
 * words (all but an NV12 or 24-bit RGB source's, read a byte at a time)
 * starts and is pitched at multiples of 4, and YUYV frames are an even
 * number of pixels wide (a word is a pixel pair).
 */
#include <errno.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>

#include "base/error.h"
#include "device/session.h"
#include "device/shaders.h"
#include "memory/buffer.h"
#include "video/conversion.h"

_Static_assert(sizeof(struct llmem_convert_params) == 48, "push constants of the convert shaders");

/* Invocations' work groups, as the shaders declare them. */
#define GROUP_X 16
#define GROUP_Y 8

/* Where the shaders need the 32-bit words they read or write. */
#define WORD 4

static bool is_yuv(uint32_t fourcc)
{
	return fourcc == DRM_FORMAT_YUYV || fourcc == DRM_FORMAT_NV12;
}

static bool is_rgb(uint32_t fourcc)
{
	return fourcc == DRM_FORMAT_ABGR8888 || fourcc == DRM_FORMAT_XRGB8888 ||
	       fourcc == DRM_FORMAT_ARGB8888;
}

/* Three bytes a pixel, sources only. */
static bool is_rgb24(uint32_t fourcc)
{
	return fourcc == DRM_FORMAT_BGR888 || fourcc == DRM_FORMAT_RGB888;
}

static uint32_t pixel_bytes(uint32_t fourcc)
{
	return fourcc == DRM_FORMAT_YUYV ? 2 : is_rgb24(fourcc) ? 3 : 4;
}

/* One plane of a frame as a shader reaches it. */
struct plane {
	const char *name;
	uint64_t offset;
	uint32_t pitch;
	uint64_t row_bytes;
	uint64_t rows;
	/* Read or written as whole 32-bit words. */
	bool words;
};

/* The planes of @l; an NV12 destination's are written as words, a 24-bit
 * RGB source's read a byte at a time. */
static uint32_t planes_of(const struct llmem_frame_layout *l, bool destination, struct plane *p)
{
	uint64_t w = l->width, h = l->height;

	if (l->fourcc != DRM_FORMAT_NV12) {
		p[0] = (struct plane){ .name = "plane",
				       .offset = l->offset[0],
				       .pitch = l->pitch[0],
				       .row_bytes = w * pixel_bytes(l->fourcc),
				       .rows = h,
				       .words = !is_rgb24(l->fourcc) };
		return 1;
	}
	p[0] = (struct plane){ .name = "Y plane",
			       .offset = l->offset[0],
			       .pitch = l->pitch[0],
			       .row_bytes = w,
			       .rows = h,
			       .words = destination };
	p[1] = (struct plane){ .name = "CbCr plane",
			       .offset = l->offset[1],
			       .pitch = l->pitch[1],
			       .row_bytes = (w + 1) / 2 * 2,
			       .rows = (h + 1) / 2,
			       .words = destination };
	return 2;
}

static int check_plane(const struct plane *p, const char *side, bool destination)
{
	if (p->pitch < p->row_bytes)
		return llmem_error(-EINVAL, "the %s's %s: pitch %u is below a row's %llu bytes",
				   side, p->name, p->pitch, (unsigned long long)p->row_bytes);
	if (p->words && (p->offset % WORD || p->pitch % WORD))
		return llmem_error(-EINVAL,
				   "the %s's %s: offset %llu and pitch %u must be multiples of 4 "
				   "(the shaders %s 32-bit words)",
				   side, p->name, (unsigned long long)p->offset, p->pitch,
				   destination ? "write" : "read");
	/* The shaders address bytes in 32 bits; below 2^32 each, no product wraps. */
	if (p->offset > UINT32_MAX || (uint64_t)p->pitch * p->rows > UINT32_MAX - p->offset)
		return llmem_error(-EINVAL,
				   "the %s's %s ends past 4 GiB, which the shaders cannot address",
				   side, p->name);
	return 0;
}

static uint64_t plane_end(const struct plane *p)
{
	return p->offset + (uint64_t)p->pitch * p->rows;
}

static int check_layout(const struct llmem_frame_layout *l, bool destination)
{
	const char *side = destination ? "destination" : "source";
	struct plane p[2];
	uint32_t n = planes_of(l, destination, p);

	if (l->modifier != DRM_FORMAT_MOD_LINEAR)
		return llmem_error(-EINVAL, "the %s's modifier 0x%llx: linear frames only", side,
				   (unsigned long long)l->modifier);
	if (!l->width || !l->height)
		return llmem_error(-EINVAL, "the %s is %ux%u", side, l->width, l->height);
	if (l->fourcc == DRM_FORMAT_YUYV && l->width % 2)
		return llmem_error(-EINVAL,
				   "the %s is YUYV %u pixels wide: YUYV frames are pixel pairs, an "
				   "even width",
				   side, l->width);
	for (uint32_t i = 0; i < n; i++) {
		int ret = check_plane(&p[i], side, destination);

		if (ret)
			return ret;
	}
	/* Written by invocations of their own, planes must not share bytes. */
	if (n == 2 && destination && p[0].offset < plane_end(&p[1]) &&
	    p[1].offset < plane_end(&p[0]))
		return llmem_error(-EINVAL, "the destination's Y and CbCr planes overlap");
	return 0;
}

int llmem_conversion_plan(const struct llmem_frame_layout *s, const struct llmem_frame_layout *d,
			  uint32_t encoding, uint32_t range, struct llmem_conversion *c)
{
	/* The frame that is not RGBA (YUV, or a 24-bit RGB source), and the RGBA one. */
	const struct llmem_frame_layout *yuv, *rgb;
	uint32_t pixels_x = 1, pixels_y = 1;
	int ret;

	if (!s || !d)
		return llmem_error(-EINVAL, "convert: NULL %s layout",
				   s ? "destination" : "source");
	if (is_rgb24(d->fourcc))
		return llmem_error(-EINVAL,
				   "convert: destination fourcc 0x%08x: BGR888 and RGB888 frames "
				   "are converted to ABGR8888, XRGB8888 or ARGB8888, never written",
				   d->fourcc);
	if (!((is_yuv(s->fourcc) || is_rgb24(s->fourcc)) && is_rgb(d->fourcc)) &&
	    !(is_rgb(s->fourcc) && is_yuv(d->fourcc)))
		return llmem_error(-EINVAL,
				   "convert: fourcc 0x%08x to 0x%08x: YUYV, NV12, BGR888 or RGB888 "
				   "to ABGR8888, XRGB8888 or ARGB8888, or those to YUYV or NV12, "
				   "only",
				   s->fourcc, d->fourcc);
	if (s->width != d->width || s->height != d->height)
		return llmem_error(-EINVAL, "convert: source %ux%u, destination %ux%u", s->width,
				   s->height, d->width, d->height);
	if (encoding > LLMEM_YCBCR_BT709 || range > LLMEM_YCBCR_FULL_RANGE)
		return llmem_error(-EINVAL, "convert: unknown encoding %u or range %u", encoding,
				   range);
	ret = check_layout(s, false);
	if (!ret)
		ret = check_layout(d, true);
	if (ret)
		return ret;

	*c = (struct llmem_conversion){ .src = *s, .dst = *d, .to_yuv = is_rgb(s->fourcc) };
	yuv = c->to_yuv ? d : s;
	rgb = c->to_yuv ? s : d;
	c->params = (struct llmem_convert_params){
		.width = s->width,
		.height = s->height,
		.yuv_offset = { (uint32_t)yuv->offset[0], (uint32_t)yuv->offset[1] },
		.yuv_pitch = { yuv->pitch[0], yuv->pitch[1] },
		.rgb_offset = (uint32_t)rgb->offset[0],
		.rgb_pitch = rgb->pitch[0],
		.matrix = encoding,
		.full_range = range,
		.rgb_bgra = rgb->fourcc != DRM_FORMAT_ABGR8888,
		.src_bgr = s->fourcc == DRM_FORMAT_RGB888,
	};
	/*
	 * Pixels per invocation: each invocation writes whole words, and the
	 * words of neighbouring invocations lie side by side, so that a
	 * subgroup's stores fill whole lines: a GPU writing host memory over
	 * PCIe with every other word of a line (a YUYV pair's two RGBA words
	 * per invocation) ran 12 times slower on an H100 than with a word
	 * each.  A YUYV output's word is a pair; an NV12 output's invocation
	 * owns a word of two Y rows and one of the CbCr row.
	 */
	if (is_rgb24(s->fourcc)) {
		c->id = LLMEM_KERNEL_RGB24_TO_RGBA;
		c->shader = &llmem_shader_rgb24_to_rgba;
		c->binding_count = 2;
	} else if (yuv->fourcc == DRM_FORMAT_YUYV) {
		c->id = c->to_yuv ? LLMEM_KERNEL_RGBA_TO_YUYV : LLMEM_KERNEL_YUYV_TO_RGBA;
		c->shader = c->to_yuv ? &llmem_shader_rgba_to_yuyv : &llmem_shader_yuyv_to_rgba;
		c->binding_count = 2;
		pixels_x = c->to_yuv ? 2 : 1;
	} else if (c->to_yuv) {
		c->id = LLMEM_KERNEL_RGBA_TO_NV12;
		c->shader = &llmem_shader_rgba_to_nv12;
		c->binding_count = 2;
		pixels_x = 4;
		pixels_y = 2;
	} else {
		c->id = LLMEM_KERNEL_NV12_TO_RGBA;
		c->shader = &llmem_shader_nv12_to_rgba;
		c->binding_count = 3;
	}
	c->groups[0] = ((s->width + pixels_x - 1) / pixels_x + GROUP_X - 1) / GROUP_X;
	c->groups[1] = ((s->height + pixels_y - 1) / pixels_y + GROUP_Y - 1) / GROUP_Y;
	c->groups[2] = 1;
	return 0;
}

static int buffer_fits(uint64_t need, struct llmem_buffer *buf, const char *side, const char *what)
{
	uint64_t size = llmem_buffer_size(buf);

	if (need > size)
		return llmem_error(-EINVAL, "the %s %s needs %llu bytes, its buffer has %llu", side,
				   what, (unsigned long long)need, (unsigned long long)size);
	return 0;
}

static int storage_usage(struct llmem_buffer *buf, const char *which)
{
	if (!(llmem_buffer_usage(buf) & LLMEM_BUFFER_STORAGE))
		return llmem_error(-EINVAL, "the %s's buffer lacks LLMEM_BUFFER_STORAGE usage",
				   which);
	return 0;
}

/* Each plane of @l in its buffer: @bufs[i] for plane i, and the whole
 * frame in @bufs[0] when both planes are there. */
static int frame_fits(const struct llmem_frame_layout *l, bool destination,
		      struct llmem_buffer *const bufs[2])
{
	const char *side = destination ? "destination" : "source";
	struct plane p[2];
	uint32_t n = planes_of(l, destination, p);
	int ret = 0;

	if (n == 1 || bufs[0] == bufs[1])
		ret = buffer_fits(l->size, bufs[0], side, "frame");
	for (uint32_t i = 0; !ret && i < n; i++) {
		ret = buffer_fits(plane_end(&p[i]), bufs[i], side, p[i].name);
		if (!ret)
			ret = storage_usage(bufs[i], side);
	}
	return ret;
}

int llmem_conversion_check_frame(const struct llmem_conversion *c,
				 const struct llmem_convert_frame *f)
{
	struct llmem_buffer *src[2] = { f->src, f->src_chroma ? f->src_chroma : f->src };
	struct llmem_buffer *dst[2] = { f->dst, f->dst };
	struct llmem_session *s;
	int ret;

	if (!f->src || !f->dst)
		return llmem_error(-EINVAL, "convert: NULL %s buffer",
				   f->src ? "destination" : "source");
	if (f->src == f->dst || f->src_chroma == f->dst)
		return llmem_error(-EINVAL,
				   "convert: converts between two buffers, the destination is a "
				   "source");
	if (f->src_chroma && c->src.fourcc != DRM_FORMAT_NV12)
		return llmem_error(-EINVAL,
				   "source fourcc 0x%08x: only NV12 takes its CbCr plane in a "
				   "buffer of its own",
				   c->src.fourcc);
	s = llmem_memory_session(f->dst->obj.memory);
	if (llmem_memory_session(f->src->obj.memory) != s ||
	    (f->src_chroma && llmem_memory_session(f->src_chroma->obj.memory) != s))
		return llmem_error(-EINVAL, "convert: buffers of two sessions");
	ret = frame_fits(&c->src, false, src);
	return ret ? ret : frame_fits(&c->dst, true, dst);
}

int llmem_conversion_kernel(struct llmem_session *s, const struct llmem_conversion *c,
			    struct llmem_kernel **k)
{
	static const uint32_t bindings[] = {
		LLMEM_BINDING_STORAGE_BUFFER,
		LLMEM_BINDING_STORAGE_BUFFER,
		LLMEM_BINDING_STORAGE_BUFFER,
	};

	return llmem_kernel_builtin(s, c->id,
				    &(struct llmem_kernel_create_info){
					    .spirv = c->shader->code,
					    .spirv_size = c->shader->size,
					    .bindings = bindings,
					    .binding_count = c->binding_count,
					    .push_size = sizeof(struct llmem_convert_params),
					    .name = c->shader->name,
				    },
				    LLMEM_KERNEL_RECORDED, k);
}

int llmem_conversion_source_words(const struct llmem_conversion *c, struct llmem_buffer *src,
				  VkBuffer *words)
{
	const struct llmem_frame_layout *l = &c->src;
	uint64_t end;

	*words = VK_NULL_HANDLE;
	if (!is_rgb24(l->fourcc))
		return 0;
	/* The picture's last byte, where the shader's last read ends. */
	end = l->offset[0] + (uint64_t)(l->height - 1) * l->pitch[0] + (uint64_t)l->width * 3;
	if (end <= (llmem_buffer_size(src) & ~(uint64_t)(WORD - 1)))
		return 0;
	return llmem_buffer_whole_words(src, words);
}

/*
 * A frame on a shared page belongs to whoever wrote it (a camera) until this
 * queue acquires it, and goes back after the shader has read it; a frame
 * written on a shared page goes to whoever reads it next (a display, an
 * encoder) once the shader has written it: queue family ownership transfers
 * with the foreign (or, without VK_EXT_queue_family_foreign, the external)
 * queue family, of @vk, the VkBuffer the shader binds: @buf's own or its
 * view of whole words.
 */
static void foreign_ownership(struct llmem_session *s, VkCommandBuffer cmd,
			      struct llmem_buffer *buf, VkBuffer vk, bool acquire,
			      VkAccessFlags access)
{
	uint32_t other = s->info.caps & LLMEM_CAP_QUEUE_FAMILY_FOREIGN ? VK_QUEUE_FAMILY_FOREIGN_EXT
								       : VK_QUEUE_FAMILY_EXTERNAL;
	VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = acquire ? 0 : access & VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = acquire ? access : 0,
		.srcQueueFamilyIndex = acquire ? other : s->queue_family,
		.dstQueueFamilyIndex = acquire ? s->queue_family : other,
		.buffer = vk,
		.size = VK_WHOLE_SIZE,
	};

	if (!llmem_memory_handle_types(buf->obj.memory))
		return;
	vkCmdPipelineBarrier(cmd,
			     acquire ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
				     : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			     acquire ? VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
				     : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
			     0, 0, NULL, 1, &b, 0, NULL);
}

/*
 * Whatever wrote the frames before (host, transfer, an earlier conversion,
 * a camera) is visible to the shader, which may also overwrite what an
 * earlier conversion read; what it writes is visible to the host, to later
 * transfers and to later conversions.  The NV12 writer reads the words it
 * partly fills.
 */
int llmem_conversion_record(const struct llmem_conversion *c, const struct llmem_kernel *k,
			    VkCommandBuffer cmd, VkDescriptorSet set,
			    const struct llmem_convert_frame *f, VkBuffer src_words)
{
	const VkAccessFlags read = VK_ACCESS_SHADER_READ_BIT;
	const VkAccessFlags write = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
	struct llmem_session *s = llmem_memory_session(f->dst->obj.memory);
	/* An NV12 source's CbCr binding: the Y plane's buffer, or the plane's own. */
	struct llmem_kernel_arg args[] = {
		{ .buffer = f->src },
		{ .buffer = f->dst },
		{ .buffer = f->src_chroma ? f->src_chroma : f->src },
	};
	VkBuffer src = src_words ? src_words : f->src->vk;
	struct llmem_kernel_descriptors d;
	int ret;

	ret = llmem_kernel_describe(k, args, c->binding_count, &d);
	if (ret)
		return ret;
	d.buffers[0].buffer = src;
	vkCmdPipelineBarrier(cmd,
			     VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
				     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
			     &(VkMemoryBarrier){
				     .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
				     .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT |
						      VK_ACCESS_TRANSFER_WRITE_BIT |
						      VK_ACCESS_SHADER_WRITE_BIT,
				     .dstAccessMask = write,
			     },
			     0, NULL, 0, NULL);
	foreign_ownership(s, cmd, f->src, src, true, read);
	if (f->src_chroma)
		foreign_ownership(s, cmd, f->src_chroma, f->src_chroma->vk, true, read);
	foreign_ownership(s, cmd, f->dst, f->dst->vk, true, write);
	llmem_kernel_record(k, cmd, &d, set, &c->params, c->groups);
	foreign_ownership(s, cmd, f->src, src, false, read);
	if (f->src_chroma)
		foreign_ownership(s, cmd, f->src_chroma, f->src_chroma->vk, false, read);
	foreign_ownership(s, cmd, f->dst, f->dst->vk, false, write);
	vkCmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
		&(VkMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
		},
		0, NULL, 0, NULL);
	return 0;
}
