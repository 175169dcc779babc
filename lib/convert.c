// SPDX-License-Identifier: MIT
#include <errno.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>

#include "buffer_internal.h"
#include "error.h"
#include "pipeline.h"
#include "session_internal.h"

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
};

_Static_assert(sizeof(struct convert_params) == 40, "push constants of the convert shaders");

#define GROUP_X 16
#define GROUP_Y 8

static int layout_fits(const struct llmem_frame_layout *l, struct llmem_buffer *buf,
		       const char *which)
{
	uint64_t size = llmem_buffer_size(buf);

	if (l->size > size)
		return llmem_error(-EINVAL, "the %s frame needs %llu bytes, its buffer has %llu",
				   which, (unsigned long long)l->size, (unsigned long long)size);
	if (!(llmem_buffer_usage(buf) & LLMEM_BUFFER_STORAGE))
		return llmem_error(-EINVAL, "the %s buffer lacks LLMEM_BUFFER_STORAGE usage",
				   which);
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
	if (d->fourcc != DRM_FORMAT_ABGR8888)
		return llmem_error(-EINVAL, "destination fourcc 0x%08x: ABGR8888 only", d->fourcc);
	if (s->width != d->width || s->height != d->height)
		return llmem_error(-EINVAL, "source %ux%u, destination %ux%u", s->width, s->height,
				   d->width, d->height);
	if (in->encoding > LLMEM_YCBCR_BT709 || in->range > LLMEM_YCBCR_FULL_RANGE)
		return llmem_error(-EINVAL, "unknown encoding %u or range %u", in->encoding,
				   in->range);
	ret = layout_fits(s, in->src, "source");
	return ret ? ret : layout_fits(d, in->dst, "destination");
}

LLMEM_PUBLIC int llmem_convert_to_rgba(const struct llmem_convert_info *info)
{
	const struct llmem_frame_layout *s, *d;
	struct convert_params params;
	struct llmem_session *session;
	enum llmem_pipeline_id id;
	VkBuffer buffers[2];
	VkCommandBuffer cmd;
	uint32_t pixels_x;
	int ret, sret;

	if (!info)
		return llmem_error(-EINVAL, "llmem_convert_to_rgba: NULL info");
	ret = check(info);
	if (ret)
		return ret;
	s = info->src_layout;
	d = info->dst_layout;
	params = (struct convert_params){
		.width = s->width,
		.height = s->height,
		.src_offset = { (uint32_t)s->offset[0], (uint32_t)s->offset[1] },
		.src_pitch = { s->pitch[0], s->pitch[1] },
		.dst_offset = (uint32_t)d->offset[0],
		.dst_pitch = d->pitch[0],
		.matrix = info->encoding,
		.full_range = info->range,
	};
	id = s->fourcc == DRM_FORMAT_YUYV ? LLMEM_PIPELINE_YUYV_TO_RGBA
					  : LLMEM_PIPELINE_NV12_TO_RGBA;
	/* The YUYV shader converts a pixel pair per invocation. */
	pixels_x = id == LLMEM_PIPELINE_YUYV_TO_RGBA ? s->width / 2 : s->width;
	buffers[0] = info->src->vk;
	buffers[1] = info->dst->vk;
	session = llmem_memory_session(info->src->obj.memory);

	cmd = llmem_cmd_begin(session);
	if (!cmd)
		return -EIO;
	/* Whatever wrote the frame (host or device) is visible to the shader,
	 * and the RGBA frame to the host and to later transfers. */
	vkCmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
		&(VkMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
		},
		0, NULL, 0, NULL);
	ret = llmem_pipeline_dispatch(session, cmd, id, buffers, &params,
				      (pixels_x + GROUP_X - 1) / GROUP_X,
				      (s->height + GROUP_Y - 1) / GROUP_Y);
	vkCmdPipelineBarrier(
		cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
		&(VkMemoryBarrier){
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT,
		},
		0, NULL, 0, NULL);
	/* Submitted even when the dispatch could not be recorded: submitting
	 * is what gives the queue back. */
	sret = llmem_cmd_submit(session);
	return ret ? ret : sret;
}
