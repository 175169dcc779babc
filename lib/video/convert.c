// SPDX-License-Identifier: MIT
/*
 * YUYV and NV12 frames to RGBA on the device: the conversion of each frame
 * buffer, a dispatch of the session's built-in kernel for the format
 * (transfer/kernel.h), recorded once with a descriptor set of its own into a
 * command buffer of its own, then submitted per frame.  A one-off
 * conversion is a converter of one frame.
 * The RGBA frame is written in the byte order its fourcc names: R, G, B, A
 * for ABGR8888, B, G, R, A for XRGB8888 and ARGB8888, what displays scan
 * out.  NV12's CbCr plane is read from a binding of its own, bound to the Y
 * plane's buffer or to a buffer of the plane's own (a camera's NV12M).
 */
#include <errno.h>
#include <stdlib.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>

#include "base/error.h"
#include "device/session.h"
#include "device/shaders.h"
#include "device/submit.h"
#include "device/vk.h"
#include "memory/buffer.h"
#include "transfer/kernel.h"

/* Mirrors the push_constant block of shaders/convert_params.glsl. */
struct convert_params {
	uint32_t width;
	uint32_t height;
	uint32_t src_offset[2];
	uint32_t src_pitch[2];
	uint32_t dst_offset;
	uint32_t dst_pitch;
	uint32_t matrix;
	uint32_t full_range;
	uint32_t dst_bgra;
};

_Static_assert(sizeof(struct convert_params) == 44, "push constants of the convert shaders");

#define GROUP_X 16
#define GROUP_Y 8

static int buffer_fits(uint64_t need, struct llmem_buffer *buf, const char *which)
{
	uint64_t size = llmem_buffer_size(buf);

	if (need > size)
		return llmem_error(-EINVAL, "the %s needs %llu bytes, its buffer has %llu", which,
				   (unsigned long long)need, (unsigned long long)size);
	if (!(llmem_buffer_usage(buf) & LLMEM_BUFFER_STORAGE))
		return llmem_error(-EINVAL, "the %s's buffer lacks LLMEM_BUFFER_STORAGE usage",
				   which);
	return 0;
}

/* NV12's planes each in a buffer of their own: each must hold its rows. */
static int planes_fit(const struct llmem_convert_info *in)
{
	const struct llmem_frame_layout *s = in->src_layout;
	uint64_t rows[2] = { s->height, (s->height + 1) / 2 };
	struct llmem_buffer *bufs[2] = { in->src, in->src_chroma };
	const char *names[2] = { "source's Y plane", "source's CbCr plane" };

	if (s->fourcc != DRM_FORMAT_NV12)
		return llmem_error(-EINVAL,
				   "source fourcc 0x%08x: only NV12 takes its CbCr plane in a "
				   "buffer of its own",
				   s->fourcc);
	if (in->src_chroma == in->dst)
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: converts between two buffers");
	if (llmem_memory_session(in->src_chroma->obj.memory) !=
	    llmem_memory_session(in->dst->obj.memory))
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: buffers of two sessions");
	for (uint32_t p = 0; p < 2; p++) {
		int ret = buffer_fits(s->offset[p] + rows[p] * s->pitch[p], bufs[p], names[p]);

		if (ret)
			return ret;
	}
	return 0;
}

static int check(const struct llmem_convert_info *in)
{
	const struct llmem_frame_layout *s = in->src_layout, *d = in->dst_layout;
	int ret;

	if (!in->src || !in->dst || !s || !d)
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: NULL buffer or layout");
	if (in->src == in->dst)
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: converts between two buffers");
	if (llmem_memory_session(in->src->obj.memory) != llmem_memory_session(in->dst->obj.memory))
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: buffers of two sessions");
	if (s->fourcc != DRM_FORMAT_YUYV && s->fourcc != DRM_FORMAT_NV12)
		return llmem_error(-EINVAL, "source fourcc 0x%08x: YUYV or NV12 only", s->fourcc);
	if (d->fourcc != DRM_FORMAT_ABGR8888 && d->fourcc != DRM_FORMAT_XRGB8888 &&
	    d->fourcc != DRM_FORMAT_ARGB8888)
		return llmem_error(-EINVAL,
				   "destination fourcc 0x%08x: ABGR8888, XRGB8888 or ARGB8888 only",
				   d->fourcc);
	if (s->width != d->width || s->height != d->height)
		return llmem_error(-EINVAL, "source %ux%u, destination %ux%u", s->width, s->height,
				   d->width, d->height);
	if (in->encoding > LLMEM_YCBCR_BT709 || in->range > LLMEM_YCBCR_FULL_RANGE)
		return llmem_error(-EINVAL, "unknown encoding %u or range %u", in->encoding,
				   in->range);
	ret = in->src_chroma ? planes_fit(in) : buffer_fits(s->size, in->src, "source frame");
	return ret ? ret : buffer_fits(d->size, in->dst, "destination frame");
}

/*
 * A frame on a shared page belongs to whoever wrote it (a camera) until this
 * queue acquires it, and goes back after the shader has read it; an RGBA
 * frame on a shared page goes to whoever reads it next (a display) once the
 * shader has written it: queue family ownership transfers with the foreign
 * (or, without VK_EXT_queue_family_foreign, the external) queue family.
 */
static void foreign_ownership(struct llmem_session *s, VkCommandBuffer cmd,
			      struct llmem_buffer *buf, bool acquire, VkAccessFlags access)
{
	uint32_t other = s->info.caps & LLMEM_CAP_QUEUE_FAMILY_FOREIGN ? VK_QUEUE_FAMILY_FOREIGN_EXT
								       : VK_QUEUE_FAMILY_EXTERNAL;
	VkBufferMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = acquire ? 0 : access & VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = acquire ? access : 0,
		.srcQueueFamilyIndex = acquire ? other : s->queue_family,
		.dstQueueFamilyIndex = acquire ? s->queue_family : other,
		.buffer = buf->vk,
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

/* The shader, its push constants and how many groups cover the frame. */
struct conversion {
	enum llmem_builtin_kernel id;
	const struct llmem_shader *shader;
	/* The frame (NV12: its Y plane), the RGBA frame; NV12's CbCr plane. */
	uint32_t binding_count;
	struct convert_params params;
	uint32_t groups[3];
};

static void plan(const struct llmem_convert_info *info, struct conversion *c)
{
	const struct llmem_frame_layout *s = info->src_layout, *d = info->dst_layout;
	uint32_t pixels_x;

	c->params = (struct convert_params){
		.width = s->width,
		.height = s->height,
		.src_offset = { (uint32_t)s->offset[0], (uint32_t)s->offset[1] },
		.src_pitch = { s->pitch[0], s->pitch[1] },
		.dst_offset = (uint32_t)d->offset[0],
		.dst_pitch = d->pitch[0],
		.matrix = info->encoding,
		.full_range = info->range,
		.dst_bgra = d->fourcc != DRM_FORMAT_ABGR8888,
	};
	if (s->fourcc == DRM_FORMAT_YUYV) {
		c->id = LLMEM_KERNEL_YUYV_TO_RGBA;
		c->shader = &llmem_shader_yuyv_to_rgba;
		c->binding_count = 2;
		/* The YUYV shader converts a pixel pair per invocation. */
		pixels_x = s->width / 2;
	} else {
		c->id = LLMEM_KERNEL_NV12_TO_RGBA;
		c->shader = &llmem_shader_nv12_to_rgba;
		c->binding_count = 3;
		pixels_x = s->width;
	}
	c->groups[0] = (pixels_x + GROUP_X - 1) / GROUP_X;
	c->groups[1] = (s->height + GROUP_Y - 1) / GROUP_Y;
	c->groups[2] = 1;
}

/* The conversion's shader, as the session's kernel. */
static int kernel_get(struct llmem_session *s, const struct conversion *c, struct llmem_kernel **k)
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
					    .push_size = sizeof(struct convert_params),
					    .name = c->shader->name,
				    },
				    LLMEM_KERNEL_RECORDED, k);
}

/*
 * Whatever wrote the frame (host, transfer, camera) is visible to the
 * shader, and the RGBA frame to the host and to later transfers.
 */
static void record(struct llmem_session *s, VkCommandBuffer cmd, const struct llmem_kernel *k,
		   const struct llmem_kernel_descriptors *d, VkDescriptorSet set,
		   struct llmem_buffer *src, struct llmem_buffer *chroma, struct llmem_buffer *dst,
		   const struct conversion *c)
{
	vkCmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
		&(VkMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
		},
		0, NULL, 0, NULL);
	foreign_ownership(s, cmd, src, true, VK_ACCESS_SHADER_READ_BIT);
	if (chroma)
		foreign_ownership(s, cmd, chroma, true, VK_ACCESS_SHADER_READ_BIT);
	foreign_ownership(s, cmd, dst, true, VK_ACCESS_SHADER_WRITE_BIT);
	llmem_kernel_record(k, cmd, d, set, &c->params, c->groups);
	foreign_ownership(s, cmd, src, false, VK_ACCESS_SHADER_READ_BIT);
	if (chroma)
		foreign_ownership(s, cmd, chroma, false, VK_ACCESS_SHADER_READ_BIT);
	foreign_ownership(s, cmd, dst, false, VK_ACCESS_SHADER_WRITE_BIT);
	vkCmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
		&(VkMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
		},
		0, NULL, 0, NULL);
}

LLMEM_PUBLIC int llmem_convert_to_rgba(const struct llmem_convert_info *info)
{
	struct llmem_converter *c;
	int ret;

	if (!info)
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: NULL info");
	ret = llmem_converter_create(
		&(struct llmem_converter_create_info){
			.srcs = &info->src,
			.src_count = 1,
			.src_layout = info->src_layout,
			.dst = info->dst,
			.dst_layout = info->dst_layout,
			.encoding = info->encoding,
			.range = info->range,
			.chroma_srcs = info->src_chroma ? &info->src_chroma : NULL,
		},
		&c);
	if (ret)
		return ret;
	ret = llmem_converter_run(c, 0);
	llmem_converter_destroy(c);
	return ret;
}
struct llmem_converter {
	struct llmem_session *session;
	VkCommandPool pool;
	struct llmem_kernel_sets *sets;
	VkFence fence;
	uint32_t count;
	VkCommandBuffer cmds[];
};

LLMEM_PUBLIC void llmem_converter_destroy(struct llmem_converter *c)
{
	VkDevice dev;

	if (!c)
		return;
	dev = c->session->device;
	if (c->fence)
		vkDestroyFence(dev, c->fence, NULL);
	/* Destroying the pool frees its command buffers. */
	if (c->pool)
		vkDestroyCommandPool(dev, c->pool, NULL);
	llmem_kernel_sets_destroy(c->sets);
	free(c);
}

/* One command buffer and descriptor set per source, recorded once. */
static int record_all(struct llmem_converter *c, const struct llmem_converter_create_info *info,
		      const struct llmem_kernel *k, const struct conversion *conv)
{
	VkDevice dev = c->session->device;
	VkResult r;
	int ret;

	ret = llmem_kernel_sets_create(k, c->count, &c->sets);
	if (ret)
		return ret;
	r = vkCreateCommandPool(dev,
				&(VkCommandPoolCreateInfo){
					.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					.queueFamilyIndex = c->session->queue_family,
				},
				NULL, &c->pool);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateCommandPool");
	r = vkCreateFence(dev, &(VkFenceCreateInfo){ .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO },
			  NULL, &c->fence);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateFence");
	r = vkAllocateCommandBuffers(
		dev,
		&(VkCommandBufferAllocateInfo){
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = c->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = c->count,
		},
		c->cmds);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkAllocateCommandBuffers");

	for (uint32_t i = 0; i < c->count; i++) {
		struct llmem_buffer *chroma = info->chroma_srcs ? info->chroma_srcs[i] : NULL;
		struct llmem_kernel_descriptors d;
		/* NV12's CbCr binding: the Y plane's buffer, or the plane's own. */
		struct llmem_kernel_arg args[] = {
			{ .buffer = info->srcs[i] },
			{ .buffer = info->dst },
			{ .buffer = chroma ? chroma : info->srcs[i] },
		};

		ret = llmem_kernel_describe(k, args, conv->binding_count, &d);
		if (ret)
			return ret;
		r = vkBeginCommandBuffer(
			c->cmds[i], &(VkCommandBufferBeginInfo){
					    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
				    });
		if (r != VK_SUCCESS)
			return llmem_vk_error(r, "vkBeginCommandBuffer");
		record(c->session, c->cmds[i], k, &d, c->sets->sets[i], info->srcs[i], chroma,
		       info->dst, conv);
		r = vkEndCommandBuffer(c->cmds[i]);
		if (r != VK_SUCCESS)
			return llmem_vk_error(r, "vkEndCommandBuffer");
	}
	return 0;
}

LLMEM_PUBLIC int llmem_converter_create(const struct llmem_converter_create_info *info,
					struct llmem_converter **out)
{
	struct llmem_convert_info one;
	struct llmem_converter *c;
	struct llmem_kernel *k;
	struct conversion conv;
	int ret;

	if (!info || !out || !info->srcs)
		return llmem_error(-EINVAL, "llmem_converter_create: NULL argument");
	*out = NULL;
	if (!info->src_count)
		return llmem_error(-EINVAL, "llmem_converter_create: no sources");
	for (uint32_t i = 0; i < info->src_count; i++) {
		one = (struct llmem_convert_info){
			.src = info->srcs[i],
			.src_layout = info->src_layout,
			.dst = info->dst,
			.dst_layout = info->dst_layout,
			.encoding = info->encoding,
			.range = info->range,
			.src_chroma = info->chroma_srcs ? info->chroma_srcs[i] : NULL,
		};
		if (info->chroma_srcs && !one.src_chroma)
			return llmem_error(-EINVAL, "llmem_converter_create: NULL chroma source %u",
					   i);
		ret = check(&one);
		if (ret)
			return ret;
	}
	plan(&one, &conv);
	c = calloc(1, sizeof(*c) + info->src_count * sizeof(c->cmds[0]));
	if (!c)
		return llmem_error(-ENOMEM, "llmem_converter_create: out of memory");
	c->session = llmem_memory_session(info->dst->obj.memory);
	c->count = info->src_count;

	ret = kernel_get(c->session, &conv, &k);
	if (!ret)
		ret = record_all(c, info, k, &conv);
	if (ret) {
		llmem_converter_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
}

LLMEM_PUBLIC int llmem_converter_run(struct llmem_converter *c, uint32_t index)
{
	VkDevice dev;
	VkResult r;
	int ret;

	if (!c || index >= c->count)
		return llmem_error(-EINVAL, "llmem_converter_run: %s",
				   c ? "index past the sources" : "NULL converter");
	dev = c->session->device;
	ret = llmem_submit(c->session, &c->cmds[index], 1, NULL, c->fence);
	if (ret)
		return ret;
	r = vkWaitForFences(dev, 1, &c->fence, VK_TRUE, UINT64_MAX);
	if (r == VK_SUCCESS)
		r = vkResetFences(dev, 1, &c->fence);
	return r == VK_SUCCESS ? 0 : llmem_vk_error(r, "vkWaitForFences");
}
