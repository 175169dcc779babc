// SPDX-License-Identifier: MIT
/*
 * Converters: frames in flight on the session's queue.  Each combination of
 * buffers a converter sees is checked and its conversion recorded once
 * (conversion.c), with a command buffer and a descriptor set of its own,
 * then only submitted: the sources given at creation for good, up to
 * MAX_RECORDINGS others kept by their buffers' serials (a destroyed buffer's
 * address comes back for a new one; its serial does not), the least
 * recently submitted recorded anew past that.
 *
 * Each submission signals the fence of its slot in a ring of
 * frames_in_flight: ticket t is slot (t - 1) % frames_in_flight, and a
 * submission first waits for the ticket that last used its slot, which
 * bounds the frames in flight.  A fence of vkQueueSubmit covers all work
 * submitted before it on the queue, so tickets finish in order and one
 * fence found signalled says every earlier ticket is done.  Fences rather
 * than a timeline semaphore: the session enables no device feature, and a
 * timeline semaphore is one (Vulkan 1.2's timelineSemaphore).
 *
 * A recording whose last submission is still pending is not submitted
 * again before that one is done (Vulkan forbids resubmitting a pending
 * command buffer recorded without SIMULTANEOUS_USE, and rewriting a
 * descriptor set in use): the converter waits for it.  That happens only
 * when one source is converted into one destination twice in a row, which
 * a caller may not change meanwhile (convert.h), so the wait costs nothing
 * a stream pays; copies per slot would record every combination up to
 * frames_in_flight times, and SIMULTANEOUS_USE may make drivers copy
 * every submission.
 *
 * A one-off conversion is a converter of one frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>

#include "base/error.h"
#include "device/session.h"
#include "device/submit.h"
#include "device/vk.h"
#include "memory/buffer.h"
#include "transfer/kernel.h"
#include "transfer/sync.h"
#include "video/conversion.h"

#define MAX_FRAMES_IN_FLIGHT 16
#define DEFAULT_FRAMES_IN_FLIGHT 2
#define MAX_RECORDINGS 64
#define FLAGS_MASK ((uint32_t)LLMEM_CONVERTER_SYNC_FILES)

/* One combination of buffers, recorded. */
struct recording {
	/* Serials of the source, its CbCr buffer (0: none) and the destination;
	 * all 0 while it holds no recording. */
	uint64_t key[3];
	VkCommandBuffer cmd;
	VkDescriptorSet set;
	/* The view of the source's whole words it binds, or VK_NULL_HANDLE
	 * (llmem_conversion_source_words()). */
	VkBuffer src_words;
	/* Its last submission (0: none): what it waits for before it is
	 * submitted again or recorded anew, and its age for eviction. */
	uint64_t ticket;
};

/* A place in the ring of submissions in flight. */
struct slot {
	VkFence fence;
	/* The submission that signals the fence (0: none). */
	uint64_t ticket;
	/* LLMEM_CONVERTER_SYNC_FILES: the binary semaphore it signals too;
	 * whether that signal is still unconsumed (a binary semaphore must be
	 * unsignalled to be signalled again); its export, kept to hand out
	 * duplicates (-1: none). */
	VkSemaphore signal;
	bool signalled;
	int sync_file;
};

struct llmem_converter {
	struct llmem_conversion conv;
	uint32_t flags;
	uint32_t frames_in_flight;
	/* Known at creation or from the first frame; the device objects are
	 * made with it. */
	struct llmem_session *session;
	struct llmem_kernel *kernel;
	VkCommandPool pool;
	/* llmem_converter_create()'s sources into its destination, by index. */
	struct llmem_buffer *dst;
	uint32_t src_count;
	struct recording *fixed;
	struct llmem_kernel_sets *fixed_sets;
	/* Frames submitted by their buffers, each with a set of its own (a
	 * one-off conversion makes one, not MAX_RECORDINGS). */
	struct recording cache[MAX_RECORDINGS];
	struct llmem_kernel_sets *cache_sets[MAX_RECORDINGS];
	uint32_t cached;
	struct slot slots[MAX_FRAMES_IN_FLIGHT];
	/* The last ticket handed out; with the slots' tickets and fence
	 * resets, under @lock, which llmem_converter_completed() only tries. */
	pthread_mutex_t lock;
	uint64_t last;
	/* Every ticket up to it is known done. */
	atomic_uint_fast64_t done;
};

static void mark_done(struct llmem_converter *c, uint64_t ticket)
{
	uint_fast64_t seen = atomic_load(&c->done);

	while (seen < ticket && !atomic_compare_exchange_weak(&c->done, &seen, ticket))
		;
}

static struct slot *slot_of(struct llmem_converter *c, uint64_t ticket)
{
	return &c->slots[(ticket - 1) % c->frames_in_flight];
}

/*
 * Waits for @ticket, handed out and not known done: it is among the last
 * frames_in_flight, since each submission waits for the one frames_in_flight
 * before it, so its slot still holds it.
 */
static int wait_ticket(struct llmem_converter *c, uint64_t ticket, uint64_t timeout_ns)
{
	struct slot *s;
	VkResult r;

	if (ticket <= atomic_load(&c->done))
		return 0;
	s = slot_of(c, ticket);
	r = vkWaitForFences(c->session->device, 1, &s->fence, VK_TRUE, timeout_ns);
	if (r == VK_TIMEOUT)
		return llmem_error(-ETIMEDOUT, "converter: conversion %llu not done in %llu ns",
				   (unsigned long long)ticket, (unsigned long long)timeout_ns);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "converter: vkWaitForFences");
	mark_done(c, ticket);
	return 0;
}

static void device_objects_destroy(struct llmem_converter *c)
{
	VkDevice dev = c->session->device;

	for (uint32_t i = 0; c->fixed && i < c->src_count; i++)
		vkDestroyBuffer(dev, c->fixed[i].src_words, NULL);
	for (uint32_t i = 0; i < c->cached; i++)
		vkDestroyBuffer(dev, c->cache[i].src_words, NULL);

	for (uint32_t i = 0; i < c->frames_in_flight; i++) {
		struct slot *s = &c->slots[i];

		if (s->sync_file >= 0)
			close(s->sync_file);
		if (s->signal)
			vkDestroySemaphore(dev, s->signal, NULL);
		if (s->fence)
			vkDestroyFence(dev, s->fence, NULL);
		*s = (struct slot){ .sync_file = -1 };
	}
	/* Destroying the pool frees its command buffers. */
	if (c->pool)
		vkDestroyCommandPool(dev, c->pool, NULL);
	c->pool = VK_NULL_HANDLE;
	c->session = NULL;
}

static int make_device_objects(struct llmem_converter *c)
{
	struct llmem_session *s = c->session;
	VkResult r;
	int ret;

	ret = llmem_conversion_kernel(s, &c->conv, &c->kernel);
	if (ret)
		return ret;
	r = vkCreateCommandPool(s->device,
				&(VkCommandPoolCreateInfo){
					.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
					/* Recordings evicted are recorded anew. */
					.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
					.queueFamilyIndex = s->queue_family,
				},
				NULL, &c->pool);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "converter: vkCreateCommandPool");
	for (uint32_t i = 0; i < c->frames_in_flight; i++) {
		r = vkCreateFence(
			s->device,
			&(VkFenceCreateInfo){ .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO }, NULL,
			&c->slots[i].fence);
		if (r != VK_SUCCESS)
			return llmem_vk_error(r, "converter: vkCreateFence");
		if (c->flags & LLMEM_CONVERTER_SYNC_FILES) {
			ret = llmem_sync_fd_semaphore(s, true, &c->slots[i].signal);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The kernel, the command pool, the fences and the semaphores, once the
 * session is known; none of them if one fails. */
static int device_objects(struct llmem_converter *c, struct llmem_session *s)
{
	int ret;

	c->session = s;
	ret = make_device_objects(c);
	if (ret)
		device_objects_destroy(c);
	return ret;
}

static int allocate_command_buffers(struct llmem_converter *c, uint32_t count, VkCommandBuffer *out)
{
	VkResult r = vkAllocateCommandBuffers(
		c->session->device,
		&(VkCommandBufferAllocateInfo){
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = c->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = count,
		},
		out);

	return r == VK_SUCCESS ? 0 : llmem_vk_error(r, "converter: vkAllocateCommandBuffers");
}

/* Records @f into @rec, whose command buffer and set are not pending, and keys it. */
static int record(struct llmem_converter *c, struct recording *rec,
		  const struct llmem_convert_frame *f)
{
	VkResult r;
	int ret;

	memset(rec->key, 0, sizeof(rec->key));
	vkDestroyBuffer(c->session->device, rec->src_words, NULL);
	ret = llmem_conversion_source_words(&c->conv, f->src, &rec->src_words);
	if (ret)
		return ret;
	r = vkBeginCommandBuffer(rec->cmd,
				 &(VkCommandBufferBeginInfo){
					 .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
				 });
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "converter: vkBeginCommandBuffer");
	ret = llmem_conversion_record(&c->conv, c->kernel, rec->cmd, rec->set, f, rec->src_words);
	r = vkEndCommandBuffer(rec->cmd);
	if (ret)
		return ret;
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "converter: vkEndCommandBuffer");
	rec->key[0] = f->src->serial;
	rec->key[1] = f->src_chroma ? f->src_chroma->serial : 0;
	rec->key[2] = f->dst->serial;
	return 0;
}

/* The sources given at creation, recorded into its destination. */
static int record_fixed(struct llmem_converter *c, const struct llmem_converter_create_info *info)
{
	VkCommandBuffer *cmds;
	int ret;

	c->fixed = calloc(c->src_count, sizeof(*c->fixed));
	cmds = calloc(c->src_count, sizeof(*cmds));
	if (!c->fixed || !cmds) {
		free(cmds);
		return llmem_error(-ENOMEM, "converter: out of memory");
	}
	ret = llmem_kernel_sets_create(c->kernel, c->src_count, &c->fixed_sets);
	if (!ret)
		ret = allocate_command_buffers(c, c->src_count, cmds);
	for (uint32_t i = 0; !ret && i < c->src_count; i++) {
		c->fixed[i].cmd = cmds[i];
		c->fixed[i].set = c->fixed_sets->sets[i];
		ret = record(c, &c->fixed[i],
			     &(struct llmem_convert_frame){
				     .src = info->srcs[i],
				     .src_chroma = info->chroma_srcs ? info->chroma_srcs[i] : NULL,
				     .dst = info->dst,
			     });
	}
	free(cmds);
	return ret;
}

static bool same_key(const struct recording *rec, const uint64_t key[3])
{
	return rec->key[0] == key[0] && rec->key[1] == key[1] && rec->key[2] == key[2];
}

/* A place for a new recording: a fresh one, or the least recently submitted, once done. */
static int take_recording(struct llmem_converter *c, struct recording **out)
{
	struct recording *rec;
	int ret;

	if (c->cached < MAX_RECORDINGS) {
		struct llmem_kernel_sets **sets = &c->cache_sets[c->cached];

		rec = &c->cache[c->cached];
		ret = llmem_kernel_sets_create(c->kernel, 1, sets);
		if (!ret)
			ret = allocate_command_buffers(c, 1, &rec->cmd);
		if (ret) {
			llmem_kernel_sets_destroy(*sets);
			*sets = NULL;
			return ret;
		}
		rec->set = (*sets)->sets[0];
		c->cached++;
		*out = rec;
		return 0;
	}
	rec = &c->cache[0];
	for (uint32_t i = 1; i < MAX_RECORDINGS; i++)
		if (c->cache[i].ticket < rec->ticket)
			rec = &c->cache[i];
	/* Done already, as MAX_RECORDINGS passes the most frames in flight. */
	ret = wait_ticket(c, rec->ticket, UINT64_MAX);
	if (ret)
		return ret;
	*out = rec;
	return 0;
}

/* @f's recording: found by its buffers' serials, or checked and recorded. */
static int find_recording(struct llmem_converter *c, const struct llmem_convert_frame *f,
			  struct recording **out)
{
	uint64_t key[3] = { f->src->serial, f->src_chroma ? f->src_chroma->serial : 0,
			    f->dst->serial };
	struct recording *rec;
	int ret;

	for (uint32_t i = 0; i < c->src_count; i++)
		if (same_key(&c->fixed[i], key)) {
			*out = &c->fixed[i];
			return 0;
		}
	for (uint32_t i = 0; i < c->cached; i++)
		if (same_key(&c->cache[i], key)) {
			*out = &c->cache[i];
			return 0;
		}
	ret = llmem_conversion_check_frame(&c->conv, f);
	if (ret)
		return ret;
	if (!c->session)
		ret = device_objects(c, llmem_memory_session(f->dst->obj.memory));
	else if (llmem_memory_session(f->dst->obj.memory) != c->session)
		ret = llmem_error(-EINVAL, "converter: a frame of another session");
	if (!ret)
		ret = take_recording(c, &rec);
	if (!ret)
		ret = record(c, rec, f);
	if (!ret)
		*out = rec;
	return ret;
}

/*
 * Before a slot's semaphore is signalled again: its last signal, unless an
 * export consumed it, can only be consumed by a wait, so a new semaphore
 * replaces it (made again at the next submission if that fails); the
 * duplicates of an export handed out are the callers' to keep.
 */
static int renew_signal(struct llmem_converter *c, struct slot *s)
{
	if (s->sync_file >= 0) {
		close(s->sync_file);
		s->sync_file = -1;
	}
	if (s->signalled) {
		vkDestroySemaphore(c->session->device, s->signal, NULL);
		s->signal = VK_NULL_HANDLE;
		s->signalled = false;
	}
	return s->signal ? 0 : llmem_sync_fd_semaphore(c->session, true, &s->signal);
}

/* Submits @rec as the next ticket, after the submissions it must follow. */
static int submit_recording(struct llmem_converter *c, struct recording *rec, uint64_t *ticket)
{
	bool sync_files = c->flags & LLMEM_CONVERTER_SYNC_FILES;
	uint64_t next = c->last + 1;
	struct slot *s = slot_of(c, next);
	VkResult r;
	int ret;

	ret = wait_ticket(c, rec->ticket, UINT64_MAX);
	if (!ret && s->ticket)
		ret = wait_ticket(c, s->ticket, UINT64_MAX);
	if (!ret && sync_files)
		ret = renew_signal(c, s);
	if (ret)
		return ret;
	pthread_mutex_lock(&c->lock);
	s->ticket = 0;
	r = vkResetFences(c->session->device, 1, &s->fence);
	if (r != VK_SUCCESS)
		ret = llmem_vk_error(r, "converter: vkResetFences");
	else
		ret = llmem_submit(c->session, &rec->cmd, 1,
				   sync_files ? &(struct llmem_submit_sync){ .signals = &s->signal,
									     .signal_count = 1 }
					      : NULL,
				   s->fence);
	if (!ret) {
		s->ticket = next;
		c->last = next;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		return ret;
	s->signalled = sync_files;
	rec->ticket = next;
	*ticket = next;
	return 0;
}

LLMEM_PUBLIC void llmem_converter_destroy(struct llmem_converter *c)
{
	if (!c)
		return;
	/* Nothing to do if this fails: the device is lost. */
	if (c->last)
		wait_ticket(c, c->last, UINT64_MAX);
	if (c->session)
		device_objects_destroy(c);
	llmem_kernel_sets_destroy(c->fixed_sets);
	for (uint32_t i = 0; i < c->cached; i++)
		llmem_kernel_sets_destroy(c->cache_sets[i]);
	free(c->fixed);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* The create-info's own checks, and its sources' with its destination. */
static int check_create(const struct llmem_converter_create_info *info,
			const struct llmem_conversion *conv)
{
	struct llmem_session *s = info->session;
	int ret;

	if (!info->srcs != !info->src_count)
		return llmem_error(-EINVAL, "converter: %s",
				   info->srcs ? "srcs without src_count"
					      : "src_count without srcs");
	if (info->chroma_srcs && !info->srcs)
		return llmem_error(-EINVAL, "converter: chroma_srcs without srcs");
	if (info->frames_in_flight > MAX_FRAMES_IN_FLIGHT)
		return llmem_error(-EINVAL, "converter: %u frames in flight, at most %d",
				   info->frames_in_flight, MAX_FRAMES_IN_FLIGHT);
	if (info->flags & ~FLAGS_MASK)
		return llmem_error(-EINVAL, "converter: unknown flags 0x%x",
				   info->flags & ~FLAGS_MASK);
	if (info->dst) {
		if (s && llmem_memory_session(info->dst->obj.memory) != s)
			return llmem_error(-EINVAL, "converter: dst is of another session");
		for (uint32_t i = 0; i < info->src_count; i++) {
			struct llmem_convert_frame f = {
				.src = info->srcs[i],
				.src_chroma = info->chroma_srcs ? info->chroma_srcs[i] : NULL,
				.dst = info->dst,
			};

			if (info->chroma_srcs && !f.src_chroma)
				return llmem_error(-EINVAL, "converter: NULL chroma source %u", i);
			ret = llmem_conversion_check_frame(conv, &f);
			if (ret)
				return ret;
		}
		s = llmem_memory_session(info->dst->obj.memory);
	}
	if (!(info->flags & LLMEM_CONVERTER_SYNC_FILES))
		return 0;
	if (!s)
		return llmem_error(-EINVAL,
				   "converter: LLMEM_CONVERTER_SYNC_FILES needs the session at "
				   "creation: give session or dst");
	if (!(s->info.caps & LLMEM_CAP_SYNC_FD_EXPORT))
		return llmem_error(-ENOTSUP,
				   "converter: %s cannot export sync_files from semaphores: wait "
				   "for tickets instead",
				   s->info.device_name);
	return 0;
}

LLMEM_PUBLIC int llmem_converter_create(const struct llmem_converter_create_info *info,
					struct llmem_converter **out)
{
	struct llmem_session *s;
	struct llmem_converter *c;
	int ret;

	if (!info || !out)
		return llmem_error(-EINVAL, "llmem_converter_create: NULL argument");
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return llmem_error(-ENOMEM, "converter: out of memory");
	ret = llmem_conversion_plan(info->src_layout, info->dst_layout, info->encoding, info->range,
				    &c->conv);
	if (!ret)
		ret = check_create(info, &c->conv);
	if (ret) {
		free(c);
		return ret;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->flags = info->flags;
	c->frames_in_flight =
		info->frames_in_flight ? info->frames_in_flight : DEFAULT_FRAMES_IN_FLIGHT;
	for (uint32_t i = 0; i < c->frames_in_flight; i++)
		c->slots[i].sync_file = -1;
	atomic_init(&c->done, 0);
	s = info->dst ? llmem_memory_session(info->dst->obj.memory) : info->session;
	if (s)
		ret = device_objects(c, s);
	if (!ret && info->dst) {
		c->dst = info->dst;
		c->src_count = info->src_count;
		ret = record_fixed(c, info);
	}
	if (ret) {
		llmem_converter_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
}

LLMEM_PUBLIC int llmem_converter_submit(struct llmem_converter *c,
					const struct llmem_convert_frame *frame, uint64_t *ticket)
{
	struct recording *rec;
	int ret;

	if (!c || !frame || !ticket)
		return llmem_error(-EINVAL, "llmem_converter_submit: NULL %s",
				   !c	    ? "converter"
				   : !frame ? "frame"
					    : "ticket");
	if (!frame->src || !frame->dst)
		return llmem_error(-EINVAL, "llmem_converter_submit: NULL %s buffer",
				   frame->src ? "destination" : "source");
	ret = find_recording(c, frame, &rec);
	return ret ? ret : submit_recording(c, rec, ticket);
}

/* -EINVAL unless @ticket was handed out. */
static int check_ticket(struct llmem_converter *c, uint64_t ticket, const char *fn)
{
	if (!c)
		return llmem_error(-EINVAL, "%s: NULL converter", fn);
	if (!ticket || ticket > c->last)
		return llmem_error(-EINVAL, "%s: ticket %llu was not handed out (the last is %llu)",
				   fn, (unsigned long long)ticket, (unsigned long long)c->last);
	return 0;
}

LLMEM_PUBLIC int llmem_converter_wait(struct llmem_converter *c, uint64_t ticket,
				      uint64_t timeout_ns)
{
	int ret = check_ticket(c, ticket, "llmem_converter_wait");

	return ret ? ret : wait_ticket(c, ticket, timeout_ns);
}

LLMEM_PUBLIC uint64_t llmem_converter_completed(struct llmem_converter *c)
{
	if (!c)
		return 0;
	/* Busy means a submission is under way: what is known will do. */
	if (pthread_mutex_trylock(&c->lock))
		return atomic_load(&c->done);
	/* The newest done ticket says the older ones are done too. */
	for (uint64_t t = c->last; t > atomic_load(&c->done); t--) {
		struct slot *s = slot_of(c, t);

		if (s->ticket == t &&
		    vkGetFenceStatus(c->session->device, s->fence) == VK_SUCCESS) {
			mark_done(c, t);
			break;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return atomic_load(&c->done);
}

LLMEM_PUBLIC int llmem_converter_export_sync_file(struct llmem_converter *c, uint64_t ticket,
						  int *fd)
{
	struct slot *s;
	int ret;

	if (!fd)
		return llmem_error(-EINVAL, "llmem_converter_export_sync_file: NULL fd");
	*fd = -1;
	ret = check_ticket(c, ticket, "llmem_converter_export_sync_file");
	if (ret)
		return ret;
	if (!(c->flags & LLMEM_CONVERTER_SYNC_FILES))
		return llmem_error(-EINVAL,
				   "llmem_converter_export_sync_file: the converter was made "
				   "without LLMEM_CONVERTER_SYNC_FILES");
	if (ticket <= atomic_load(&c->done))
		return llmem_error(-ENOENT, "converter: conversion %llu is done already",
				   (unsigned long long)ticket);
	s = slot_of(c, ticket);
	if (s->sync_file < 0) {
		ret = llmem_sync_fd_export(c->session, s->signal, &s->sync_file);
		if (ret)
			return ret;
		s->signalled = false;
		/* The driver's way of saying the signal is done. */
		if (s->sync_file < 0) {
			mark_done(c, ticket);
			return llmem_error(-ENOENT, "converter: conversion %llu is done already",
					   (unsigned long long)ticket);
		}
	}
	*fd = fcntl(s->sync_file, F_DUPFD_CLOEXEC, 0);
	if (*fd < 0)
		return llmem_error(-errno, "converter: sync_file of conversion %llu: dup: %s",
				   (unsigned long long)ticket, strerror(errno));
	return 0;
}

LLMEM_PUBLIC int llmem_converter_run(struct llmem_converter *c, uint32_t index)
{
	uint64_t ticket;
	int ret;

	if (!c || !c->dst || index >= c->src_count)
		return llmem_error(-EINVAL, "llmem_converter_run: %s",
				   !c	     ? "NULL converter"
				   : !c->dst ? "the converter was made without a dst"
					     : "index past the sources");
	ret = submit_recording(c, &c->fixed[index], &ticket);
	return ret ? ret : wait_ticket(c, ticket, UINT64_MAX);
}

LLMEM_PUBLIC int llmem_convert(const struct llmem_convert_info *info)
{
	struct llmem_converter *c;
	uint64_t ticket;
	int ret;

	if (!info)
		return llmem_error(-EINVAL, "llmem_convert: NULL info");
	ret = llmem_converter_create(
		&(struct llmem_converter_create_info){
			.src_layout = info->src_layout,
			.dst_layout = info->dst_layout,
			.encoding = info->encoding,
			.range = info->range,
			.frames_in_flight = 1,
		},
		&c);
	if (ret)
		return ret;
	ret = llmem_converter_submit(c,
				     &(struct llmem_convert_frame){
					     .src = info->src,
					     .src_chroma = info->src_chroma,
					     .dst = info->dst,
				     },
				     &ticket);
	if (!ret)
		ret = llmem_converter_wait(c, ticket, UINT64_MAX);
	llmem_converter_destroy(c);
	return ret;
}

LLMEM_PUBLIC int llmem_convert_to_rgba(const struct llmem_convert_info *info)
{
	uint32_t fourcc = info && info->src_layout ? info->src_layout->fourcc : 0;

	if (info && info->src_layout && info->dst_layout && fourcc != DRM_FORMAT_YUYV &&
	    fourcc != DRM_FORMAT_NV12 && fourcc != DRM_FORMAT_BGR888 && fourcc != DRM_FORMAT_RGB888)
		return llmem_error(-EINVAL,
				   "llmem_convert_to_rgba: source fourcc 0x%08x: YUYV, NV12, "
				   "BGR888 or RGB888 only (llmem_convert() converts RGBA)",
				   fourcc);
	return llmem_convert(info);
}
