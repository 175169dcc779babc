// SPDX-License-Identifier: MIT
/*
 * Transfer queues and their records: a record is a command buffer, a fence
 * and the work the host must do once the device is done with it (copying
 * reads out of staging, destroying what waited for the device).  Records
 * are opened on first use, submitted through the session's one path
 * (device/submit.h), retired in order and recycled.
 *
 * Every record starts each operation with a full barrier; a barrier's first
 * scope is everything submitted earlier to the same Vulkan queue, so the
 * queues of a session run in submission order without semaphores.  Each
 * submission has its own fence; events are sequence numbers, so an event
 * outlives the record it names, which goes back to a free list.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/box.h"
#include "base/error.h"
#include "device/submit.h"
#include "device/vk.h"
#include "transfer/queue.h"

#define DEFAULT_RING (32ull << 20)
#define FLAGS_MASK ((uint32_t)(LLMEM_QUEUE_NO_MAPPING | LLMEM_QUEUE_PROFILING))

LLMEM_PUBLIC int llmem_queue_create(struct llmem_session *s,
				    const struct llmem_queue_create_info *info,
				    struct llmem_queue **out)
{
	static const struct llmem_queue_create_info defaults;
	const struct llmem_queue_create_info *ci = info ? info : &defaults;
	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	};
	struct llmem_queue *q;
	VkResult r;

	if (!s || !out)
		return llmem_error(-EINVAL, "queue: NULL %s", s ? "out" : "session");
	*out = NULL;
	if (ci->flags & ~FLAGS_MASK)
		return llmem_error(-EINVAL, "queue: unknown flags 0x%x", ci->flags & ~FLAGS_MASK);
	q = calloc(1, sizeof(*q));
	if (!q)
		return llmem_error(-ENOMEM, "queue: out of memory");
	q->session = s;
	q->flags = ci->flags;
	q->ring_size = ci->staging_size ? ci->staging_size : DEFAULT_RING;
	q->chunk_size = ci->chunk_size ? ci->chunk_size : q->ring_size / 4;
	if (q->ring_size % 4096 || q->chunk_size < 4096 || q->chunk_size > q->ring_size) {
		free(q);
		return llmem_error(-EINVAL,
				   "queue: staging of %llu bytes (a multiple of 4096) in chunks "
				   "of %llu (4096 to the staging size)",
				   (unsigned long long)ci->staging_size,
				   (unsigned long long)ci->chunk_size);
	}
	if (ci->flags & LLMEM_QUEUE_PROFILING) {
		VkQueueFamilyProperties fam[16];
		uint32_t n = 16;

		vkGetPhysicalDeviceQueueFamilyProperties(s->physical, &n, fam);
		if (s->queue_family >= n || !fam[s->queue_family].timestampValidBits) {
			free(q);
			return llmem_error(-ENOTSUP, "queue: the device's queue has no timestamps "
						     "for profiling");
		}
		q->timestamp_period = s->props.limits.timestampPeriod;
	}
	pci.queueFamilyIndex = s->queue_family;
	r = vkCreateCommandPool(s->device, &pci, NULL, &q->pool);
	if (r != VK_SUCCESS) {
		free(q);
		return llmem_vk_error(r, "vkCreateCommandPool");
	}
	pthread_mutex_init(&q->lock, NULL);
	q->next_seq = 1;
	*out = q;
	return 0;
}

void llmem_semaphores_clear(struct llmem_session *s, struct llmem_semaphores *set)
{
	for (uint32_t i = 0; i < set->count; i++)
		vkDestroySemaphore(s->device, set->items[i], NULL);
	set->count = 0;
}

static void record_free(struct llmem_queue *q, struct llmem_record *rec)
{
	VkDevice dev = q->session->device;

	vkDestroyFence(dev, rec->fence, NULL);
	if (rec->timestamps)
		vkDestroyQueryPool(dev, rec->timestamps, NULL);
	vkFreeCommandBuffers(dev, q->pool, 1, &rec->cmd);
	free(rec->waits.items);
	free(rec->done);
	free(rec);
}

/*
 * Runs a record's host work (@run) or drops it, then puts the record on the
 * free list; @migrated: destroy old copies of migrated buffers and images.
 */
static void record_finish(struct llmem_queue *q, struct llmem_record *rec, bool run, bool migrated)
{
	/* Reads first: they may come out of temporary staging destroyed below. */
	for (uint32_t i = 0; run && i < rec->done_count; i++) {
		struct llmem_done *d = &rec->done[i];
		uint8_t *src;

		if (d->kind != LLMEM_DONE_READ)
			continue;
		if (d->buffer == q->ring)
			src = q->ring_map + d->off;
		else if (llmem_buffer_map(d->buffer, (void **)&src) == 0)
			llmem_buffer_unmap(d->buffer); /* the temporary stays mapped */
		else
			continue;
		llmem_buffer_invalidate(d->buffer, d->off, d->bytes * d->rows * d->slices);
		llmem_box_copy(d->dst, d->dst_row_pitch, d->dst_slice_pitch, src, d->bytes,
			       d->bytes * d->rows, d->bytes, d->rows, d->slices, false);
	}
	for (uint32_t i = 0; i < rec->done_count; i++) {
		if (rec->done[i].kind == LLMEM_DONE_DESTROY ||
		    (migrated && rec->done[i].kind == LLMEM_DONE_MIGRATED)) {
			llmem_buffer_destroy(rec->done[i].buffer);
			llmem_image_destroy(rec->done[i].image);
		}
	}
	rec->done_count = 0;
	rec->recorded = false;
	llmem_semaphores_clear(q->session, &rec->waits);
	if (rec->signal)
		vkDestroySemaphore(q->session->device, rec->signal, NULL);
	rec->signal = VK_NULL_HANDLE;
	vkResetCommandBuffer(rec->cmd, 0);
	rec->next = q->free;
	q->free = rec;
}

/* Waits up to @timeout for the oldest submission and retires it. */
int llmem_queue_retire_oldest(struct llmem_queue *q, uint64_t timeout)
{
	struct llmem_record *rec = q->first;
	VkResult r;

	r = vkWaitForFences(q->session->device, 1, &rec->fence, VK_TRUE, timeout);
	if (r == VK_TIMEOUT)
		return -ETIMEDOUT;
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkWaitForFences");
	r = vkResetFences(q->session->device, 1, &rec->fence);
	if (r != VK_SUCCESS)
		return llmem_vk_error(r, "vkResetFences");
	q->first = rec->next;
	if (!q->first)
		q->last = NULL;
	if (rec->ring_end > q->tail)
		q->tail = rec->ring_end;
	atomic_store(&q->completed, rec->seq);
	llmem_queue_record_retired(q, rec);
	record_finish(q, rec, true, true);
	return 0;
}

/* Retires every submission up to @seq, waiting at most @timeout_ns for each. */
int llmem_queue_wait_seq(struct llmem_queue *q, uint64_t seq, uint64_t timeout_ns)
{
	while (q->first && q->first->seq <= seq) {
		int ret = llmem_queue_retire_oldest(q, timeout_ns);

		if (ret)
			return ret;
	}
	if (!q->first && (!q->open || !q->open->recorded))
		q->head = q->tail = 0;
	return 0;
}

void llmem_queue_retire_done(struct llmem_queue *q)
{
	while (q->first && vkGetFenceStatus(q->session->device, q->first->fence) == VK_SUCCESS)
		if (llmem_queue_retire_oldest(q, 0))
			break;
}

struct llmem_record *llmem_queue_open_record(struct llmem_queue *q)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkDevice dev = q->session->device;
	struct llmem_record *rec = q->open;
	VkResult r;

	if (rec)
		return rec;
	rec = q->free;
	if (rec) {
		q->free = rec->next;
	} else {
		VkCommandBufferAllocateInfo ai = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = q->pool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
		VkQueryPoolCreateInfo qi = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.queryType = VK_QUERY_TYPE_TIMESTAMP,
			.queryCount = 2,
		};

		rec = calloc(1, sizeof(*rec));
		if (!rec) {
			q->record_error = llmem_error(-ENOMEM, "queue: out of memory");
			return NULL;
		}
		r = vkAllocateCommandBuffers(dev, &ai, &rec->cmd);
		if (r == VK_SUCCESS)
			r = vkCreateFence(dev, &fi, NULL, &rec->fence);
		if (r == VK_SUCCESS && (q->flags & LLMEM_QUEUE_PROFILING))
			r = vkCreateQueryPool(dev, &qi, NULL, &rec->timestamps);
		if (r != VK_SUCCESS) {
			q->record_error = llmem_vk_error(r, "queue: command buffer and fence");
			record_free(q, rec);
			return NULL;
		}
	}
	r = vkBeginCommandBuffer(rec->cmd, &bi);
	if (r != VK_SUCCESS) {
		q->record_error = llmem_vk_error(r, "vkBeginCommandBuffer");
		rec->next = q->free;
		q->free = rec;
		return NULL;
	}
	if (rec->timestamps) {
		vkCmdResetQueryPool(rec->cmd, rec->timestamps, 0, 2);
		vkCmdWriteTimestamp(rec->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, rec->timestamps,
				    0);
	}
	rec->next = NULL;
	rec->seq = q->next_seq++;
	rec->ring_start = rec->ring_end = q->head;
	rec->recorded = true;
	q->open = rec;
	return rec;
}

/* Drops the record being filled and the staging it took. */
void llmem_queue_discard_open(struct llmem_queue *q, bool migrated)
{
	struct llmem_record *rec = q->open;

	if (!rec)
		return;
	vkEndCommandBuffer(rec->cmd);
	q->open = NULL;
	q->head = rec->ring_start;
	q->next_seq--;
	record_finish(q, rec, false, migrated);
}

int llmem_queue_submit_open(struct llmem_queue *q)
{
	struct llmem_record *rec = q->open;
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT,
	};
	struct llmem_submit_sync sync;
	struct llmem_semaphores tmp;
	VkResult r;
	int ret;

	vkCmdPipelineBarrier(rec->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
	if (rec->timestamps)
		vkCmdWriteTimestamp(rec->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rec->timestamps,
				    1);
	rec->submitted_ns = llmem_now_ns();
	r = vkEndCommandBuffer(rec->cmd);
	if (r != VK_SUCCESS) {
		llmem_queue_discard_open(q, q->batch);
		return llmem_vk_error(r, "vkEndCommandBuffer");
	}
	rec->ring_end = q->head;
	/* The sync_files waited for so far go with this submission. */
	tmp = rec->waits;
	rec->waits = q->waits;
	q->waits = tmp;
	sync = (struct llmem_submit_sync){
		.waits = rec->waits.items,
		.wait_count = rec->waits.count,
		.signals = &rec->signal,
		.signal_count = rec->signal ? 1 : 0,
	};
	ret = llmem_submit(q->session, &rec->cmd, 1, &sync, rec->fence);
	if (ret) {
		llmem_queue_discard_open(q, q->batch);
		return ret;
	}
	q->open = NULL;
	if (q->last)
		q->last->next = rec;
	else
		q->first = rec;
	q->last = rec;
	atomic_store(&q->submitted, rec->seq);
	return 0;
}

int llmem_queue_flush(struct llmem_queue *q)
{
	if (q->batch || !q->open)
		return 0;
	return llmem_queue_submit_open(q);
}

int llmem_queue_add_done(struct llmem_queue *q, const struct llmem_done *done)
{
	struct llmem_record *rec = llmem_queue_open_record(q);

	if (!rec)
		return q->record_error;
	if (rec->done_count == rec->done_cap) {
		uint32_t cap = rec->done_cap ? rec->done_cap * 2 : 8;
		struct llmem_done *d = realloc(rec->done, cap * sizeof(*d));

		if (!d)
			return llmem_error(-ENOMEM, "queue: out of memory");
		rec->done = d;
		rec->done_cap = cap;
	}
	rec->done[rec->done_count++] = *done;
	return 0;
}

LLMEM_PUBLIC int llmem_queue_get_info(const struct llmem_queue *q,
				      struct llmem_queue_create_info *out)
{
	if (!q || !out)
		return llmem_error(-EINVAL, "queue info: NULL %s", q ? "out" : "queue");
	*out = (struct llmem_queue_create_info){
		.flags = q->flags,
		.staging_size = q->ring_size,
		.chunk_size = q->chunk_size,
	};
	return 0;
}

LLMEM_PUBLIC int llmem_queue_finish(struct llmem_queue *q)
{
	int ret;

	if (!q)
		return llmem_error(-EINVAL, "queue finish: NULL queue");
	pthread_mutex_lock(&q->lock);
	if (q->batch)
		ret = llmem_error(-EBUSY, "queue finish: a batch is open");
	else
		ret = llmem_queue_wait_seq(q, UINT64_MAX, UINT64_MAX);
	llmem_queue_unlock(q);
	return ret;
}

LLMEM_PUBLIC void llmem_queue_destroy(struct llmem_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	llmem_queue_discard_open(q, q->batch);
	q->batch = false;
	while (q->first)
		if (llmem_queue_retire_oldest(q, UINT64_MAX))
			break;
	while (q->free) {
		struct llmem_record *rec = q->free;

		q->free = rec->next;
		record_free(q, rec);
	}
	/* Waits nothing was submitted with: their payloads are never used. */
	llmem_semaphores_clear(q->session, &q->waits);
	free(q->waits.items);
	llmem_queue_events_orphan(q);
	llmem_queue_unlock(q);
	llmem_buffer_destroy(q->ring);
	llmem_memory_destroy(q->staging_memory);
	vkDestroyCommandPool(q->session->device, q->pool, NULL);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
