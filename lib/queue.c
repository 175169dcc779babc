// SPDX-License-Identifier: MIT
/*
 * Transfer queues: submissions, their completion, events, batches and the
 * staging ring.
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

#include "copy_pool.h"
#include "error.h"
#include "queue.h"
#include "stream_copy.h"

#define DEFAULT_RING (32ull << 20)
#define FLAGS_MASK ((uint32_t)LLMEM_QUEUE_NO_MAPPING)

static int vk_fail(const char *what, VkResult r)
{
	return llmem_error(r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY
				   ? -ENOMEM
				   : -EIO,
			   "%s: %s", what, llmem_vk_result_name(r));
}

bool xq_same_session(const struct llmem_queue *q, const struct llmem_buffer *b)
{
	return llmem_memory_session(b->obj.memory) == q->session;
}

int xq_check_buffer(const struct llmem_queue *q, const struct llmem_buffer *b, const char *what)
{
	if (!q || !b)
		return llmem_error(-EINVAL, "%s: NULL %s", what, q ? "buffer" : "queue");
	if (!xq_same_session(q, b))
		return llmem_error(-EINVAL, "%s: the buffer is of another session", what);
	return 0;
}

static void copy_box(uint8_t *dst, uint64_t drp, uint64_t dsp, const uint8_t *src, uint64_t srp,
		     uint64_t ssp, uint64_t bytes, uint64_t rows, uint64_t slices, bool stream)
{
	/* Pitches do not matter for a single row or slice. */
	bool rows_packed = rows == 1 || (drp == bytes && srp == bytes);
	bool slices_packed = slices == 1 || (dsp == bytes * rows && ssp == dsp);

	if (rows_packed && slices_packed) {
		if (stream)
			copy_pool_stream(dst, src, bytes * rows * slices);
		else
			copy_pool_memcpy(dst, src, bytes * rows * slices);
		return;
	}
	for (uint64_t z = 0; z < slices; z++)
		for (uint64_t y = 0; y < rows; y++)
			stream_copy_if(stream, dst + z * dsp + y * drp, src + z * ssp + y * srp,
				       bytes);
}

void xq_copy_box(uint8_t *dst, uint64_t drp, uint64_t dsp, const uint8_t *src, uint64_t srp,
		 uint64_t ssp, uint64_t bytes, uint64_t rows, uint64_t slices)
{
	copy_box(dst, drp, dsp, src, srp, ssp, bytes, rows, slices, false);
}

/*
 * A CPU device copies a chunk out of the ring on another core, which has to
 * fetch every line the host has just left dirty in its own caches: streaming
 * the chunk to memory took lavapipe's staged uploads from about 0.7 of
 * memcpy to 0.83-0.92.  On the H100 streaming made uploads slower (0.58-0.74
 * of vkCmdCopyBuffer against 0.72-0.78): its DMA then reads from memory
 * what is otherwise partly still in the CPU's caches.  GPUs get ordinary
 * stores.
 */
void xq_stage_box(const struct llmem_queue *q, uint8_t *dst, uint64_t drp, uint64_t dsp,
		  const uint8_t *src, uint64_t srp, uint64_t ssp, uint64_t bytes, uint64_t rows,
		  uint64_t slices)
{
	bool stream = q->session->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;

	copy_box(dst, drp, dsp, src, srp, ssp, bytes, rows, slices, stream);
}

void xq_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &b, 0, NULL, 0, NULL);
}

VkCommandBuffer xq_begin(struct llmem_queue *q)
{
	struct xq_record *rec = xq_record(q);

	if (!rec)
		return VK_NULL_HANDLE;
	xq_barrier(rec->cmd);
	return rec->cmd;
}

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
	pci.queueFamilyIndex = s->queue_family;
	r = vkCreateCommandPool(s->device, &pci, NULL, &q->pool);
	if (r != VK_SUCCESS) {
		free(q);
		return vk_fail("vkCreateCommandPool", r);
	}
	pthread_mutex_init(&q->lock, NULL);
	q->next_seq = 1;
	*out = q;
	return 0;
}

static void record_free(struct llmem_queue *q, struct xq_record *rec)
{
	VkDevice dev = q->session->device;

	vkDestroyFence(dev, rec->fence, NULL);
	vkFreeCommandBuffers(dev, q->pool, 1, &rec->cmd);
	free(rec->done);
	free(rec);
}

/*
 * Runs a record's host work (@run) or drops it, then puts the record on the
 * free list; @migrated: destroy old copies of migrated buffers and images.
 */
static void record_finish(struct llmem_queue *q, struct xq_record *rec, bool run, bool migrated)
{
	/* Reads first: they may come out of temporary staging destroyed below. */
	for (uint32_t i = 0; run && i < rec->done_count; i++) {
		struct xq_done *d = &rec->done[i];
		uint8_t *src;

		if (d->kind != XQ_DONE_READ)
			continue;
		if (d->buffer == q->ring)
			src = q->ring_map + d->off;
		else if (llmem_buffer_map(d->buffer, (void **)&src) == 0)
			llmem_buffer_unmap(d->buffer); /* the temporary stays mapped */
		else
			continue;
		llmem_buffer_invalidate(d->buffer, d->off, d->bytes * d->rows * d->slices);
		xq_copy_box(d->dst, d->dst_row_pitch, d->dst_slice_pitch, src, d->bytes,
			    d->bytes * d->rows, d->bytes, d->rows, d->slices);
	}
	for (uint32_t i = 0; i < rec->done_count; i++) {
		if (rec->done[i].kind == XQ_DONE_DESTROY ||
		    (migrated && rec->done[i].kind == XQ_DONE_MIGRATED)) {
			llmem_buffer_destroy(rec->done[i].buffer);
			llmem_image_destroy(rec->done[i].image);
		}
	}
	rec->done_count = 0;
	rec->recorded = false;
	vkResetCommandBuffer(rec->cmd, 0);
	rec->next = q->free;
	q->free = rec;
}

/* Waits up to @timeout for the oldest submission and retires it. */
static int retire_oldest(struct llmem_queue *q, uint64_t timeout)
{
	struct xq_record *rec = q->first;
	VkResult r;

	r = vkWaitForFences(q->session->device, 1, &rec->fence, VK_TRUE, timeout);
	if (r == VK_TIMEOUT)
		return -ETIMEDOUT;
	if (r != VK_SUCCESS)
		return vk_fail("vkWaitForFences", r);
	r = vkResetFences(q->session->device, 1, &rec->fence);
	if (r != VK_SUCCESS)
		return vk_fail("vkResetFences", r);
	q->first = rec->next;
	if (!q->first)
		q->last = NULL;
	if (rec->ring_end > q->tail)
		q->tail = rec->ring_end;
	atomic_store(&q->completed, rec->seq);
	record_finish(q, rec, true, true);
	return 0;
}

/* Retires every submission up to @seq, waiting at most @timeout_ns for each. */
static int wait_seq(struct llmem_queue *q, uint64_t seq, uint64_t timeout_ns)
{
	while (q->first && q->first->seq <= seq) {
		int ret = retire_oldest(q, timeout_ns);

		if (ret)
			return ret;
	}
	if (!q->first && (!q->open || !q->open->recorded))
		q->head = q->tail = 0;
	return 0;
}

static void retire_done(struct llmem_queue *q)
{
	while (q->first && vkGetFenceStatus(q->session->device, q->first->fence) == VK_SUCCESS)
		if (retire_oldest(q, 0))
			break;
}

struct xq_record *xq_record(struct llmem_queue *q)
{
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VkDevice dev = q->session->device;
	struct xq_record *rec = q->open;
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

		rec = calloc(1, sizeof(*rec));
		if (!rec) {
			llmem_error(-ENOMEM, "queue: out of memory");
			return NULL;
		}
		r = vkAllocateCommandBuffers(dev, &ai, &rec->cmd);
		if (r == VK_SUCCESS)
			r = vkCreateFence(dev, &fi, NULL, &rec->fence);
		if (r != VK_SUCCESS) {
			vk_fail("queue: command buffer and fence", r);
			record_free(q, rec);
			return NULL;
		}
	}
	r = vkBeginCommandBuffer(rec->cmd, &bi);
	if (r != VK_SUCCESS) {
		vk_fail("vkBeginCommandBuffer", r);
		rec->next = q->free;
		q->free = rec;
		return NULL;
	}
	rec->next = NULL;
	rec->seq = q->next_seq++;
	rec->ring_start = rec->ring_end = q->head;
	rec->recorded = true;
	q->open = rec;
	return rec;
}

/* Drops the record being filled and the staging it took. */
static void discard_open(struct llmem_queue *q, bool migrated)
{
	struct xq_record *rec = q->open;

	if (!rec)
		return;
	vkEndCommandBuffer(rec->cmd);
	q->open = NULL;
	q->head = rec->ring_start;
	q->next_seq--;
	record_finish(q, rec, false, migrated);
}

static int submit_open(struct llmem_queue *q)
{
	struct llmem_session *s = q->session;
	struct xq_record *rec = q->open;
	VkMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &rec->cmd,
	};
	VkResult r = VK_SUCCESS;
	int ret;

	vkCmdPipelineBarrier(rec->cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
			     VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
	r = vkEndCommandBuffer(rec->cmd);
	if (r != VK_SUCCESS) {
		discard_open(q, q->batch);
		return vk_fail("vkEndCommandBuffer", r);
	}
	rec->ring_end = q->head;
	pthread_mutex_lock(&s->queue_lock);
	ret = llmem_image_init_flush(s);
	if (!ret)
		r = vkQueueSubmit(s->queue, 1, &si, rec->fence);
	pthread_mutex_unlock(&s->queue_lock);
	if (ret) {
		discard_open(q, q->batch);
		return ret;
	}
	if (r != VK_SUCCESS) {
		discard_open(q, q->batch);
		return vk_fail("vkQueueSubmit", r);
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

int xq_flush(struct llmem_queue *q)
{
	if (q->batch || !q->open)
		return 0;
	return submit_open(q);
}

static int check_waits(struct llmem_queue *q, const struct llmem_wait_list *w)
{
	if (!w)
		return 0;
	if (w->count && !w->events)
		return llmem_error(-EINVAL, "wait list: %u events, NULL array", w->count);
	for (uint32_t i = 0; i < w->count; i++) {
		const struct llmem_event *ev = w->events[i];

		if (!ev)
			return llmem_error(-EINVAL, "wait list: event %u is NULL", i);
		if (ev->queue->session != q->session)
			return llmem_error(-EINVAL, "wait list: event %u is of another session", i);
		/* Own events of the open batch are in order already. */
		if (ev->queue != q && ev->seq > atomic_load(&ev->queue->submitted))
			return llmem_error(-EINVAL,
					   "wait list: event %u belongs to a batch not yet "
					   "submitted",
					   i);
	}
	return 0;
}

int xq_enter(struct llmem_queue *q, const struct llmem_wait_list *w, bool host_side,
	     struct llmem_event **event)
{
	struct llmem_event *ev = NULL;
	int ret = check_waits(q, w);

	if (ret)
		return ret;
	if (event) {
		ev = malloc(sizeof(*ev));
		if (!ev)
			return llmem_error(-ENOMEM, "event: out of memory");
	}
	/* Waiting under our lock for another queue's could deadlock. */
	for (uint32_t i = 0; host_side && w && i < w->count; i++) {
		if (w->events[i]->queue == q)
			continue;
		ret = llmem_event_wait(w->events[i], UINT64_MAX);
		if (ret) {
			free(ev);
			return ret;
		}
	}
	pthread_mutex_lock(&q->lock);
	q->pending_event = ev;
	return 0;
}

bool xq_host_turn(struct llmem_queue *q, const struct llmem_wait_list *w, bool blocking)
{
	if (q->batch || (q->open && q->open->recorded))
		return false;
	for (uint32_t i = 0; w && i < w->count; i++)
		if (w->events[i]->queue != q &&
		    w->events[i]->seq > atomic_load(&w->events[i]->queue->completed))
			return false;
	if (blocking)
		return wait_seq(q, UINT64_MAX, UINT64_MAX) == 0;
	retire_done(q);
	return !q->first;
}

/* Hands out the event xq_enter() allocated, naming submission @seq. */
static void give_event(struct llmem_queue *q, uint64_t seq, struct llmem_event **out)
{
	struct llmem_event *ev = q->pending_event;

	q->pending_event = NULL;
	ev->queue = q;
	ev->seq = seq;
	*out = ev;
}

int xq_leave(struct llmem_queue *q, int ret, struct llmem_event **event)
{
	uint64_t seq;

	if (ret) {
		free(q->pending_event);
		q->pending_event = NULL;
	}
	if (q->batch) {
		if (ret)
			q->batch_error = ret;
		else if (event)
			give_event(q, xq_record(q) ? q->open->seq : 0, event);
		pthread_mutex_unlock(&q->lock);
		return ret;
	}
	if (ret) {
		/* Pieces already submitted run; the one being filled goes. */
		discard_open(q, q->batch);
		pthread_mutex_unlock(&q->lock);
		return ret;
	}
	if (q->open && q->open->recorded)
		ret = submit_open(q);
	else
		discard_open(q, q->batch);
	seq = atomic_load(&q->submitted);
	if (ret) {
		free(q->pending_event);
		q->pending_event = NULL;
	} else if (event) {
		give_event(q, seq, event);
	} else {
		ret = wait_seq(q, seq, UINT64_MAX);
	}
	retire_done(q);
	pthread_mutex_unlock(&q->lock);
	return ret;
}

static int ring_init(struct llmem_queue *q)
{
	struct llmem_memory_create_info mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_CACHED,
		.page_size = q->ring_size,
		.name = "llmem transfer staging",
	};
	struct llmem_buffer_create_info bci = {
		.size = q->ring_size,
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
		.name = "staging ring",
	};
	int ret;

	/* Cached memory reads back fast; without it, plain host-visible. */
	ret = llmem_memory_create(q->session, &mci, &q->staging_memory);
	if (ret == -ENOTSUP) {
		mci.flags = LLMEM_MEMORY_HOST_VISIBLE;
		ret = llmem_memory_create(q->session, &mci, &q->staging_memory);
	}
	if (ret)
		return ret;
	ret = llmem_buffer_create(q->staging_memory, &bci, &q->ring);
	if (!ret)
		ret = llmem_buffer_map(q->ring, (void **)&q->ring_map);
	if (ret) {
		llmem_buffer_destroy(q->ring);
		q->ring = NULL;
		llmem_memory_destroy(q->staging_memory);
		q->staging_memory = NULL;
	}
	return ret;
}

/* A ring range, or -EAGAIN when waiting would not free one. */
static int ring_alloc(struct llmem_queue *q, uint64_t size, uint64_t align, uint64_t *off)
{
	for (;;) {
		uint64_t rel = q->head % q->ring_size;
		uint64_t at = (rel + align - 1) / align * align;
		uint64_t pos = q->head - rel + at;
		int ret;

		if (at + size > q->ring_size)
			pos = q->head - rel + q->ring_size;
		if (pos + size - q->tail <= q->ring_size) {
			q->head = pos + size;
			*off = pos % q->ring_size;
			return 0;
		}
		if (!q->first)
			return -EAGAIN;
		ret = retire_oldest(q, UINT64_MAX);
		if (ret)
			return ret;
	}
}

int xq_stage(struct llmem_queue *q, uint64_t size, uint64_t align, struct xq_span *out)
{
	struct llmem_buffer_create_info bci = {
		.size = size,
		.usage = LLMEM_BUFFER_TRANSFER_SRC | LLMEM_BUFFER_TRANSFER_DST,
		.name = "batch staging",
	};
	struct xq_done done = { .kind = XQ_DONE_DESTROY };
	int ret;

	if (!xq_record(q))
		return -EIO;
	if (!q->ring) {
		ret = ring_init(q);
		if (ret)
			return ret;
	}
	if (size <= q->ring_size) {
		ret = ring_alloc(q, size, align, &out->off);
		if (ret == 0) {
			out->buffer = q->ring;
			out->ptr = q->ring_map + out->off;
			q->open->ring_end = q->head;
			return 0;
		}
		if (ret != -EAGAIN)
			return ret;
	}
	/* Only a batch outgrows the ring: other operations stage piece by piece. */
	ret = llmem_buffer_create(q->staging_memory, &bci, &done.buffer);
	if (ret)
		return ret;
	ret = llmem_buffer_map(done.buffer, (void **)&out->ptr);
	if (!ret)
		ret = xq_add_done(q, &done);
	if (ret) {
		llmem_buffer_destroy(done.buffer);
		return ret;
	}
	out->buffer = done.buffer;
	out->off = 0;
	return 0;
}

uint64_t xq_chunk(const struct llmem_queue *q)
{
	return q->chunk_size;
}

int xq_stage_flush(const struct xq_span *span, uint64_t size)
{
	return llmem_buffer_flush(span->buffer, span->off, size);
}

int xq_add_done(struct llmem_queue *q, const struct xq_done *done)
{
	struct xq_record *rec = xq_record(q);

	if (!rec)
		return -EIO;
	if (rec->done_count == rec->done_cap) {
		uint32_t cap = rec->done_cap ? rec->done_cap * 2 : 8;
		struct xq_done *d = realloc(rec->done, cap * sizeof(*d));

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
		ret = wait_seq(q, UINT64_MAX, UINT64_MAX);
	pthread_mutex_unlock(&q->lock);
	return ret;
}

LLMEM_PUBLIC void llmem_queue_destroy(struct llmem_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	discard_open(q, q->batch);
	q->batch = false;
	while (q->first)
		if (retire_oldest(q, UINT64_MAX))
			break;
	while (q->free) {
		struct xq_record *rec = q->free;

		q->free = rec->next;
		record_free(q, rec);
	}
	pthread_mutex_unlock(&q->lock);
	llmem_buffer_destroy(q->ring);
	llmem_memory_destroy(q->staging_memory);
	vkDestroyCommandPool(q->session->device, q->pool, NULL);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

LLMEM_PUBLIC int llmem_queue_begin_batch(struct llmem_queue *q)
{
	int ret = 0;

	if (!q)
		return llmem_error(-EINVAL, "batch: NULL queue");
	pthread_mutex_lock(&q->lock);
	if (q->batch) {
		ret = llmem_error(-EBUSY, "batch: one is open already");
	} else {
		q->batch = true;
		q->batch_error = 0;
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

LLMEM_PUBLIC int llmem_queue_submit_batch(struct llmem_queue *q, struct llmem_event **event)
{
	struct llmem_event *ev = NULL;
	int ret;

	if (!q)
		return llmem_error(-EINVAL, "batch submit: NULL queue");
	/* First, so that running out of memory leaves the batch open. */
	if (event) {
		ev = malloc(sizeof(*ev));
		if (!ev)
			return llmem_error(-ENOMEM, "batch submit: out of memory for the event");
	}
	pthread_mutex_lock(&q->lock);
	if (!q->batch) {
		pthread_mutex_unlock(&q->lock);
		free(ev);
		return llmem_error(-EINVAL, "batch submit: no batch is open");
	}
	q->batch = false;
	ret = q->batch_error;
	if (ret) {
		discard_open(q, true);
		pthread_mutex_unlock(&q->lock);
		free(ev);
		return llmem_error(ret, "batch submit: an operation of the batch failed");
	}
	/* An empty batch still gets its sequence number, for its events. */
	if (!xq_record(q)) {
		pthread_mutex_unlock(&q->lock);
		free(ev);
		return -EIO;
	}
	q->open->recorded = true;
	q->pending_event = ev;
	return xq_leave(q, 0, event);
}

LLMEM_PUBLIC void llmem_queue_discard_batch(struct llmem_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->batch) {
		discard_open(q, q->batch);
		q->batch = false;
	}
	pthread_mutex_unlock(&q->lock);
}

LLMEM_PUBLIC int llmem_event_wait(struct llmem_event *ev, uint64_t timeout_ns)
{
	struct llmem_queue *q;
	int ret;

	if (!ev)
		return llmem_error(-EINVAL, "event wait: NULL event");
	q = ev->queue;
	pthread_mutex_lock(&q->lock);
	if (ev->seq > atomic_load(&q->submitted)) {
		pthread_mutex_unlock(&q->lock);
		return llmem_error(-EBUSY, "event wait: its batch is not submitted");
	}
	ret = wait_seq(q, ev->seq, timeout_ns);
	pthread_mutex_unlock(&q->lock);
	if (ret == -ETIMEDOUT)
		return llmem_error(ret, "event wait: not done after %llu ns",
				   (unsigned long long)timeout_ns);
	return ret;
}

LLMEM_PUBLIC void llmem_event_release(struct llmem_event *ev)
{
	free(ev);
}
