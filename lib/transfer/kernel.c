// SPDX-License-Identifier: MIT
/*
 * Compute kernels, the caller's and the library's own: SPIR-V as a compute
 * pipeline whose descriptors are pushed per dispatch, dispatches recorded
 * on a transfer queue like any other operation or into a command buffer
 * kept for resubmission, and the built-in shaders as kernels of the
 * session, made on first use.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llmem/kernel.h>

#include "base/error.h"
#include "device/session.h"
#include "device/vk.h"
#include "memory/buffer.h"
#include "memory/image.h"
#include "transfer/dispatch.h"
#include "transfer/kernel.h"
#include "transfer/queue.h"

#define SPIRV_MAGIC 0x07230203u
#define SPIRV_OP_ENTRY_POINT 15u
#define SPIRV_MODEL_GLCOMPUTE 5u
/* Words of the header before the first instruction. */
#define SPIRV_HEADER 5u

struct llmem_kernel {
	struct llmem_session *session;
	/* The session's, held: it counts this kernel's dispatches. */
	struct llmem_dispatch_state *dispatches;
	char name[64];
	uint32_t binding_count;
	VkDescriptorType types[LLMEM_KERNEL_MAX_BINDINGS];
	uint32_t push_size;
	VkShaderModule module;
	VkDescriptorSetLayout set_layout;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	/* LLMEM_KERNEL_RECORDED: descriptor sets, not pushed descriptors. */
	bool recorded;
};

static const VkDescriptorType descriptor_types[] = {
	[LLMEM_BINDING_STORAGE_BUFFER] = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
	[LLMEM_BINDING_UNIFORM_BUFFER] = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
	[LLMEM_BINDING_STORAGE_IMAGE] = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
	[LLMEM_BINDING_SAMPLED_IMAGE] = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
};

/* The whole file at @path into a new buffer of @size bytes. */
static int read_file(const char *path, uint32_t **words, size_t *size)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return llmem_error(-errno, "kernel: cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		ret = llmem_error(-EINVAL, "kernel: %s is not a non-empty file", path);
		goto out_close;
	}
	*size = (size_t)st.st_size;
	*words = malloc(*size + 4);
	if (!*words) {
		ret = llmem_error(-ENOMEM, "kernel: out of memory for %s", path);
		goto out_close;
	}
	while (got < *size) {
		n = read(fd, (uint8_t *)*words + got, *size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = llmem_error(n < 0 ? -errno : -EIO, "kernel: reading %s failed", path);
			free(*words);
			goto out_close;
		}
		got += (size_t)n;
	}
out_close:
	close(fd);
	return ret;
}

/* Whether the module has a GLCompute entry point called @entry. */
static bool has_entry(const uint32_t *w, size_t count, const char *entry)
{
	size_t len = strlen(entry);

	for (size_t i = SPIRV_HEADER; i < count;) {
		uint32_t n = w[i] >> 16, op = w[i] & 0xffff;

		if (n == 0 || i + n > count)
			return false;
		/* OpEntryPoint: model, id, name as a nul-terminated literal. */
		if (op == SPIRV_OP_ENTRY_POINT && n > 3 && w[i + 1] == SPIRV_MODEL_GLCOMPUTE &&
		    (n - 3) * 4 > len && memcmp(&w[i + 3], entry, len + 1) == 0)
			return true;
		i += n;
	}
	return false;
}

static int check_info(struct llmem_session *s, const struct llmem_kernel_create_info *ci)
{
	if (!s || !ci)
		return llmem_error(-EINVAL, "kernel: NULL %s", s ? "info" : "session");
	if (!ci->spirv == !ci->path)
		return llmem_error(-EINVAL, "kernel: give either SPIR-V in memory or a path");
	if (ci->binding_count > LLMEM_KERNEL_MAX_BINDINGS)
		return llmem_error(-EINVAL, "kernel: %u bindings, at most %u", ci->binding_count,
				   LLMEM_KERNEL_MAX_BINDINGS);
	if (ci->binding_count && !ci->bindings)
		return llmem_error(-EINVAL, "kernel: %u bindings, NULL types", ci->binding_count);
	for (uint32_t i = 0; i < ci->binding_count; i++)
		if (ci->bindings[i] > LLMEM_BINDING_SAMPLED_IMAGE)
			return llmem_error(-EINVAL, "kernel: binding %u has unknown type %u", i,
					   ci->bindings[i]);
	if (ci->push_size % 4 || ci->push_size > LLMEM_KERNEL_MAX_PUSH)
		return llmem_error(-EINVAL,
				   "kernel: %u bytes of push constants: a multiple of 4, "
				   "at most %u",
				   ci->push_size, LLMEM_KERNEL_MAX_PUSH);
	return 0;
}

static int check_module(const uint32_t *w, size_t size, const char *entry, const char *name)
{
	if (size < SPIRV_HEADER * 4 || size % 4 || w[0] != SPIRV_MAGIC)
		return llmem_error(-EINVAL, "kernel %s: %zu bytes that are not SPIR-V", name, size);
	if (!has_entry(w, size / 4, entry))
		return llmem_error(-EINVAL, "kernel %s: no compute entry point '%s'", name, entry);
	return 0;
}

static int build(struct llmem_kernel *k, const uint32_t *code, size_t size, const char *entry)
{
	VkDevice dev = k->session->device;
	VkDescriptorSetLayoutBinding b[LLMEM_KERNEL_MAX_BINDINGS];
	VkPushConstantRange push = { VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_size };
	VkResult r;

	r = vkCreateShaderModule(dev,
				 &(VkShaderModuleCreateInfo){
					 .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
					 .codeSize = size,
					 .pCode = code,
				 },
				 NULL, &k->module);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateShaderModule");
	for (uint32_t i = 0; i < k->binding_count; i++)
		b[i] = (VkDescriptorSetLayoutBinding){ i, k->types[i], 1,
						       VK_SHADER_STAGE_COMPUTE_BIT, NULL };
	r = vkCreateDescriptorSetLayout(
		dev,
		&(VkDescriptorSetLayoutCreateInfo){
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
			.flags = k->recorded
					 ? 0
					 : VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
			.bindingCount = k->binding_count,
			.pBindings = b,
		},
		NULL, &k->set_layout);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateDescriptorSetLayout");
	r = vkCreatePipelineLayout(dev,
				   &(VkPipelineLayoutCreateInfo){
					   .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
					   .setLayoutCount = 1,
					   .pSetLayouts = &k->set_layout,
					   .pushConstantRangeCount = k->push_size ? 1 : 0,
					   .pPushConstantRanges = &push,
				   },
				   NULL, &k->layout);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreatePipelineLayout");
	r = vkCreateComputePipelines(
		dev, VK_NULL_HANDLE, 1,
		&(VkComputePipelineCreateInfo){
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = {
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_COMPUTE_BIT,
				.module = k->module,
				.pName = entry,
			},
			.layout = k->layout,
		},
		NULL, &k->pipeline);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkCreateComputePipelines");
	return 0;
}

static int kernel_create(struct llmem_session *s, const struct llmem_kernel_create_info *ci,
			 uint32_t flags, struct llmem_kernel **out)
{
	const char *entry, *name;
	struct llmem_kernel *k;
	uint32_t *code = NULL;
	size_t size;
	int ret;

	if (!out)
		return llmem_error(-EINVAL, "kernel: NULL out");
	*out = NULL;
	ret = check_info(s, ci);
	if (ret)
		return ret;
	entry = ci->entry ? ci->entry : "main";
	name = ci->name ? ci->name : ci->path ? ci->path : "kernel";
	if (!(flags & LLMEM_KERNEL_RECORDED) && !s->push_descriptor_set)
		return llmem_error(-ENOTSUP, "kernel %s: device %s lacks VK_KHR_push_descriptor",
				   name, s->props.deviceName);
	if (ci->path) {
		ret = read_file(ci->path, &code, &size);
	} else {
		size = ci->spirv_size;
		/* A copy, for the alignment vkCreateShaderModule needs. */
		code = malloc(size + 4);
		if (code)
			memcpy(code, ci->spirv, size);
		else
			ret = llmem_error(-ENOMEM, "kernel: out of memory");
	}
	if (ret)
		return ret;
	ret = check_module(code, size, entry, name);
	if (ret)
		goto out_free_code;
	k = calloc(1, sizeof(*k));
	if (!k) {
		ret = llmem_error(-ENOMEM, "kernel: out of memory");
		goto out_free_code;
	}
	k->session = s;
	ret = llmem_dispatch_state_get(s, &k->dispatches);
	if (ret) {
		free(k);
		goto out_free_code;
	}
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->binding_count = ci->binding_count;
	for (uint32_t i = 0; i < ci->binding_count; i++)
		k->types[i] = descriptor_types[ci->bindings[i]];
	k->push_size = ci->push_size;
	k->recorded = flags & LLMEM_KERNEL_RECORDED;
	ret = build(k, code, size, entry);
	if (ret) {
		llmem_kernel_destroy(k);
		goto out_free_code;
	}
	*out = k;
out_free_code:
	free(code);
	return ret;
}

LLMEM_PUBLIC int llmem_kernel_create(struct llmem_session *s,
				     const struct llmem_kernel_create_info *ci,
				     struct llmem_kernel **out)
{
	return kernel_create(s, ci, 0, out);
}

const struct llmem_dispatch_state *llmem_kernel_dispatch_state(const struct llmem_kernel *k)
{
	return k->dispatches;
}

LLMEM_PUBLIC void llmem_kernel_destroy(struct llmem_kernel *k)
{
	VkDevice dev;

	if (!k)
		return;
	dev = k->session->device;
	vkDestroyPipeline(dev, k->pipeline, NULL);
	vkDestroyPipelineLayout(dev, k->layout, NULL);
	vkDestroyDescriptorSetLayout(dev, k->set_layout, NULL);
	vkDestroyShaderModule(dev, k->module, NULL);
	llmem_dispatch_state_put(k->dispatches);
	free(k);
}

/* Descriptor @i of a dispatch, after checking its object fits the binding. */
static int describe(const struct llmem_kernel *k, uint32_t i, const struct llmem_kernel_arg *a,
		    VkDescriptorBufferInfo *bi, VkDescriptorImageInfo *ii)
{
	VkDescriptorType t = k->types[i];
	bool is_buffer =
		t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
	uint32_t need;

	if (is_buffer ? !a->buffer || a->view : !a->view || a->buffer)
		return llmem_error(-EINVAL, "dispatch %s: binding %u takes one %s", k->name, i,
				   is_buffer ? "buffer" : "image view");
	if (is_buffer) {
		need = t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ? LLMEM_BUFFER_STORAGE
							      : LLMEM_BUFFER_UNIFORM;
		if (llmem_memory_session(a->buffer->obj.memory) != k->session)
			return llmem_error(-EINVAL, "dispatch %s: binding %u is of another session",
					   k->name, i);
		if (!(a->buffer->usage & need))
			return llmem_error(-EPERM, "dispatch %s: binding %u lacks %s usage",
					   k->name, i,
					   need == LLMEM_BUFFER_STORAGE ? "STORAGE" : "UNIFORM");
		*bi = (VkDescriptorBufferInfo){ a->buffer->vk, 0, VK_WHOLE_SIZE };
		return 0;
	}
	need = t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ? LLMEM_IMAGE_STORAGE : LLMEM_IMAGE_SAMPLED;
	if (llmem_memory_session(a->view->image->obj.memory) != k->session)
		return llmem_error(-EINVAL, "dispatch %s: binding %u is of another session",
				   k->name, i);
	if (!(a->view->image->usage & need))
		return llmem_error(-EPERM, "dispatch %s: binding %u's image lacks %s usage",
				   k->name, i, need == LLMEM_IMAGE_STORAGE ? "STORAGE" : "SAMPLED");
	*ii = (VkDescriptorImageInfo){
		.sampler = t == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ? a->view->sampler
									  : VK_NULL_HANDLE,
		.imageView = a->view->vk,
		.imageLayout = a->view->image->layout,
	};
	return 0;
}

int llmem_kernel_describe(const struct llmem_kernel *k, const struct llmem_kernel_arg *args,
			  uint32_t count, struct llmem_kernel_descriptors *out)
{
	if (count != k->binding_count || (count && !args))
		return llmem_error(-EINVAL, "dispatch %s: %u arguments for %u bindings", k->name,
				   args ? count : 0, k->binding_count);
	for (uint32_t i = 0; i < count; i++) {
		int ret = describe(k, i, &args[i], &out->buffers[i], &out->images[i]);

		if (ret)
			return ret;
	}
	return 0;
}

void llmem_kernel_record(const struct llmem_kernel *k, VkCommandBuffer cmd,
			 const struct llmem_kernel_descriptors *d, VkDescriptorSet set,
			 const void *push, const uint32_t groups[3])
{
	VkWriteDescriptorSet w[LLMEM_KERNEL_MAX_BINDINGS];

	for (uint32_t i = 0; i < k->binding_count; i++)
		w[i] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = k->types[i],
			.pImageInfo = &d->images[i],
			.pBufferInfo = &d->buffers[i],
		};
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
	if (k->recorded) {
		vkUpdateDescriptorSets(k->session->device, k->binding_count, w, 0, NULL);
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &set,
					0, NULL);
	} else if (k->binding_count) {
		k->session->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0,
						k->binding_count, w);
	}
	if (k->push_size)
		vkCmdPushConstants(cmd, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, k->push_size,
				   push);
	vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
	atomic_fetch_add(&k->dispatches->count, 1);
}

static int check_dispatch(struct llmem_queue *q, const struct llmem_kernel *k,
			  const struct llmem_dispatch *d, struct llmem_kernel_descriptors *desc,
			  uint32_t *groups)
{
	const uint32_t *max = q ? q->session->props.limits.maxComputeWorkGroupCount : NULL;

	if (!q || !k || !d)
		return llmem_error(-EINVAL, "dispatch: NULL %s",
				   !q	? "queue"
				   : !k ? "kernel"
					: "dispatch");
	if (k->session != q->session)
		return llmem_error(-EINVAL, "dispatch %s: the kernel is of another session",
				   k->name);
	if (k->push_size && !d->push)
		return llmem_error(-EINVAL, "dispatch %s: NULL push constants", k->name);
	for (int i = 0; i < 3; i++) {
		groups[i] = d->groups[i] ? d->groups[i] : 1;
		if (groups[i] > max[i])
			return llmem_error(-EINVAL, "dispatch %s: %u groups on axis %d, at most %u",
					   k->name, groups[i], i, max[i]);
	}
	return llmem_kernel_describe(k, d->args, d->arg_count, desc);
}

LLMEM_PUBLIC int llmem_enqueue_dispatch(struct llmem_queue *q, struct llmem_kernel *k,
					const struct llmem_dispatch *d,
					const struct llmem_wait_list *wait_for,
					struct llmem_event **event)
{
	struct llmem_kernel_descriptors desc;
	VkCommandBuffer cmd;
	uint32_t groups[3];
	int ret;

	ret = check_dispatch(q, k, d, &desc, groups);
	if (!ret)
		ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	cmd = llmem_queue_begin_op(q);
	if (cmd == VK_NULL_HANDLE)
		ret = q->record_error;
	else
		llmem_kernel_record(k, cmd, &desc, VK_NULL_HANDLE, d->push, groups);
	return llmem_queue_op_leave(q, ret, event);
}

int llmem_kernel_sets_create(const struct llmem_kernel *k, uint32_t count,
			     struct llmem_kernel_sets **out)
{
	VkDescriptorPoolSize sizes[LLMEM_KERNEL_MAX_BINDINGS];
	struct llmem_kernel_sets *sets;
	VkDescriptorSetLayout *layouts;
	const char *what;
	uint32_t n = 0;
	VkResult r;

	for (uint32_t i = 0; i < k->binding_count; i++) {
		uint32_t j = 0;

		while (j < n && sizes[j].type != k->types[i])
			j++;
		if (j == n)
			sizes[n++] = (VkDescriptorPoolSize){ k->types[i], 0 };
		sizes[j].descriptorCount += count;
	}
	sets = calloc(1, sizeof(*sets) + count * sizeof(sets->sets[0]));
	layouts = calloc(count, sizeof(*layouts));
	if (!sets || !layouts) {
		free(sets);
		free(layouts);
		return llmem_error(-ENOMEM, "kernel %s: out of memory for %u sets", k->name, count);
	}
	for (uint32_t i = 0; i < count; i++)
		layouts[i] = k->set_layout;
	sets->device = k->session->device;
	what = "vkCreateDescriptorPool";
	r = vkCreateDescriptorPool(sets->device,
				   &(VkDescriptorPoolCreateInfo){
					   .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
					   .maxSets = count,
					   .poolSizeCount = n,
					   .pPoolSizes = sizes,
				   },
				   NULL, &sets->pool);
	if (r == VK_SUCCESS) {
		what = "vkAllocateDescriptorSets";
		r = vkAllocateDescriptorSets(
			sets->device,
			&(VkDescriptorSetAllocateInfo){
				.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
				.descriptorPool = sets->pool,
				.descriptorSetCount = count,
				.pSetLayouts = layouts,
			},
			sets->sets);
	}
	free(layouts);
	if (r != VK_SUCCESS) {
		llmem_kernel_sets_destroy(sets);
		return llmem_vk_error(r, what);
	}
	*out = sets;
	return 0;
}

void llmem_kernel_sets_destroy(struct llmem_kernel_sets *sets)
{
	if (!sets)
		return;
	/* Destroying the pool frees its sets. */
	vkDestroyDescriptorPool(sets->device, sets->pool, NULL);
	free(sets);
}

/* The built-in kernels of a session, each made on first use. */
struct builtins {
	struct llmem_session *session;
	pthread_mutex_t lock;
	struct llmem_kernel *kernels[LLMEM_KERNEL_BUILTINS];
};

static int builtins_create(struct llmem_session *s, void **out)
{
	struct builtins *b = calloc(1, sizeof(*b));

	if (!b)
		return llmem_error(-ENOMEM, "kernel: out of memory");
	b->session = s;
	pthread_mutex_init(&b->lock, NULL);
	*out = b;
	return 0;
}

/*
 * The session is going, but llmem_session_destroy() fails and keeps it
 * when memories are left, a queue's staging among them: work of that queue
 * may still use the kernels, so the queue drains first.
 */
static void builtins_destroy(void *object)
{
	struct builtins *b = object;
	struct llmem_session *s = b->session;

	pthread_mutex_lock(&s->queue_lock);
	vkQueueWaitIdle(s->queue);
	pthread_mutex_unlock(&s->queue_lock);
	for (int i = 0; i < LLMEM_KERNEL_BUILTINS; i++)
		llmem_kernel_destroy(b->kernels[i]);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static const struct llmem_session_slot_key builtins_key = {
	.create = builtins_create,
	.destroy = builtins_destroy,
};

int llmem_kernel_builtin(struct llmem_session *s, enum llmem_builtin_kernel id,
			 const struct llmem_kernel_create_info *info, uint32_t flags,
			 struct llmem_kernel **out)
{
	struct builtins *b;
	void *object;
	int ret;

	ret = llmem_session_slot(s, &builtins_key, &object);
	if (ret)
		return ret;
	b = object;
	pthread_mutex_lock(&b->lock);
	if (!b->kernels[id])
		ret = kernel_create(s, info, flags, &b->kernels[id]);
	*out = b->kernels[id];
	pthread_mutex_unlock(&b->lock);
	return ret;
}
