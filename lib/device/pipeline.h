/* SPDX-License-Identifier: MIT */
/*
 * The library's compute pipelines (shaders/), built on first use and kept
 * for the session's life.  Each binds storage buffers 0..n-1 of one
 * descriptor set and takes its parameters as push constants.  The
 * conversions record each frame once, with a set per frame buffer of their
 * own (video/convert.c); fill and clear run on transfer queues, whose
 * submissions overlap, and push their descriptors into the command buffer
 * instead (VK_KHR_push_descriptor).
 */
#ifndef LLMEM_DEVICE_PIPELINE_H
#define LLMEM_DEVICE_PIPELINE_H

#include <vulkan/vulkan.h>

struct llmem_session;

enum llmem_pipeline_id {
	LLMEM_PIPELINE_YUYV_TO_RGBA,
	LLMEM_PIPELINE_NV12_TO_RGBA,
	LLMEM_PIPELINE_FILL,
	LLMEM_PIPELINE_CLEAR,
	LLMEM_PIPELINE_COUNT,
};

struct llmem_pipeline {
	VkShaderModule module;
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	uint32_t buffer_count;
	uint32_t push_size;
};

/*
 * The pipeline @id, built on first use under the session's pipelines_lock.
 * -ENOTSUP for fill and clear on a device without VK_KHR_push_descriptor.
 */
int llmem_pipeline_get(struct llmem_session *s, enum llmem_pipeline_id id,
		       struct llmem_pipeline **out);

/* Points descriptor set @set (of @p's set layout) at whole @buffers. */
void llmem_pipeline_write_set(struct llmem_session *s, const struct llmem_pipeline *p,
			      VkDescriptorSet set, const VkBuffer *buffers);

/* Records binding @p with @set, its push constants and a dispatch. */
void llmem_pipeline_record(const struct llmem_pipeline *p, VkCommandBuffer cmd, VkDescriptorSet set,
			   const void *push, uint32_t groups_x, uint32_t groups_y);

/*
 * Records binding @p (a push-descriptor pipeline) with @buffers pushed as
 * its descriptors, its push constants and a dispatch; counts the dispatch
 * in s->shader_dispatches.
 */
void llmem_pipeline_push(struct llmem_session *s, const struct llmem_pipeline *p,
			 VkCommandBuffer cmd, const VkDescriptorBufferInfo *buffers,
			 const void *push, uint32_t groups_x, uint32_t groups_y);

/* Destroys the pipelines built so far; at session destruction. */
void llmem_pipelines_destroy(struct llmem_session *s);

#endif
