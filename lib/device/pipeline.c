// SPDX-License-Identifier: MIT
/*
 * The library's compute pipelines, one per shader of shaders/, built on
 * first use.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/error.h"
#include "device/pipeline.h"
#include "device/session.h"
#include "device/shaders.h"
#include "device/vk.h"

/* The most storage buffers a pipeline binds: NV12's Y, RGBA and CbCr. */
#define MAX_BUFFERS 3

struct pipeline_desc {
	const struct llmem_shader *shader;
	uint32_t buffer_count;
	uint32_t push_size;
	/* Descriptors pushed per dispatch (VK_KHR_push_descriptor), no set. */
	bool push_descriptors;
};

/* Push sizes match the push_constant blocks in shaders/. */
static const struct pipeline_desc descs[LLMEM_PIPELINE_COUNT] = {
	[LLMEM_PIPELINE_YUYV_TO_RGBA] = { &llmem_shader_yuyv_to_rgba, 2, 44, false },
	[LLMEM_PIPELINE_NV12_TO_RGBA] = { &llmem_shader_nv12_to_rgba, 3, 44, false },
	[LLMEM_PIPELINE_FILL] = { &llmem_shader_fill, 1, 24, true },
	[LLMEM_PIPELINE_CLEAR] = { &llmem_shader_clear, 1, 20, true },
};

static void pipeline_fini(VkDevice dev, struct llmem_pipeline *p)
{
	if (p->pipeline)
		vkDestroyPipeline(dev, p->pipeline, NULL);
	if (p->layout)
		vkDestroyPipelineLayout(dev, p->layout, NULL);
	if (p->set_layout)
		vkDestroyDescriptorSetLayout(dev, p->set_layout, NULL);
	if (p->module)
		vkDestroyShaderModule(dev, p->module, NULL);
	*p = (struct llmem_pipeline){ 0 };
}

static int pipeline_init(VkDevice dev, const struct pipeline_desc *d, struct llmem_pipeline *p)
{
	VkDescriptorSetLayoutBinding bindings[MAX_BUFFERS];
	VkPushConstantRange push = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.size = d->push_size,
	};
	VkResult r;

	p->buffer_count = d->buffer_count;
	p->push_size = d->push_size;
	r = vkCreateShaderModule(dev,
				 &(VkShaderModuleCreateInfo){
					 .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					 .codeSize = d->shader->size,
					 .pCode = d->shader->code,
				 },
				 NULL, &p->module);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateShaderModule");

	for (uint32_t i = 0; i < d->buffer_count; i++)
		bindings[i] = (VkDescriptorSetLayoutBinding){
			.binding = i,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	r = vkCreateDescriptorSetLayout(
		dev,
		&(VkDescriptorSetLayoutCreateInfo){
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
			.flags = d->push_descriptors
					 ? VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR
					 : 0,
			.bindingCount = d->buffer_count,
			.pBindings = bindings,
		},
		NULL, &p->set_layout);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateDescriptorSetLayout");

	r = vkCreatePipelineLayout(dev,
				   &(VkPipelineLayoutCreateInfo){
					   .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
					   .setLayoutCount = 1,
					   .pSetLayouts = &p->set_layout,
					   .pushConstantRangeCount = 1,
					   .pPushConstantRanges = &push,
				   },
				   NULL, &p->layout);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreatePipelineLayout");

	r = vkCreateComputePipelines(
		dev, VK_NULL_HANDLE, 1,
		&(VkComputePipelineCreateInfo){
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = {
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_COMPUTE_BIT,
				.module = p->module,
				.pName = "main",
			},
			.layout = p->layout,
		},
		NULL, &p->pipeline);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateComputePipelines");
	return 0;
}

int llmem_pipeline_get(struct llmem_session *s, enum llmem_pipeline_id id,
		       struct llmem_pipeline **out)
{
	struct llmem_pipeline *p = &s->pipelines[id];
	int ret = 0;

	if (descs[id].push_descriptors && !s->push_descriptor_set)
		return llmem_error(-ENOTSUP, "the %s shader needs VK_KHR_push_descriptor",
				   descs[id].shader->name);
	pthread_mutex_lock(&s->pipelines_lock);
	if (!p->pipeline) {
		ret = pipeline_init(s->device, &descs[id], p);
		if (ret)
			pipeline_fini(s->device, p);
	}
	pthread_mutex_unlock(&s->pipelines_lock);
	*out = ret ? NULL : p;
	return ret;
}

void llmem_pipeline_write_set(struct llmem_session *s, const struct llmem_pipeline *p,
			      VkDescriptorSet set, const VkBuffer *buffers)
{
	VkDescriptorBufferInfo infos[MAX_BUFFERS];
	VkWriteDescriptorSet writes[MAX_BUFFERS];

	for (uint32_t i = 0; i < p->buffer_count; i++) {
		infos[i] = (VkDescriptorBufferInfo){ .buffer = buffers[i], .range = VK_WHOLE_SIZE };
		writes[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[i],
		};
	}
	vkUpdateDescriptorSets(s->device, p->buffer_count, writes, 0, NULL);
}

void llmem_pipeline_record(const struct llmem_pipeline *p, VkCommandBuffer cmd, VkDescriptorSet set,
			   const void *push, uint32_t groups_x, uint32_t groups_y)
{
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, 1, &set, 0,
				NULL);
	vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size, push);
	vkCmdDispatch(cmd, groups_x, groups_y, 1);
}

void llmem_pipeline_push(struct llmem_session *s, const struct llmem_pipeline *p,
			 VkCommandBuffer cmd, const VkDescriptorBufferInfo *buffers,
			 const void *push, uint32_t groups_x, uint32_t groups_y)
{
	VkWriteDescriptorSet writes[MAX_BUFFERS];

	for (uint32_t i = 0; i < p->buffer_count; i++)
		writes[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &buffers[i],
		};
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
	s->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, p->buffer_count,
			       writes);
	vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, p->push_size, push);
	vkCmdDispatch(cmd, groups_x, groups_y, 1);
	atomic_fetch_add(&s->shader_dispatches, 1);
}

void llmem_pipelines_destroy(struct llmem_session *s)
{
	for (int i = 0; i < LLMEM_PIPELINE_COUNT; i++)
		pipeline_fini(s->device, &s->pipelines[i]);
}
