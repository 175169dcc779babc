// SPDX-License-Identifier: MIT
/*
 * Buffer transfers: host to buffer and back, linear or rectangular, through
 * a mapping or the staging ring, and buffer to buffer.  Fills are in
 * transfer_fill.c.
 */
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "transfer/queue.h"
#include "base/box.h"

/*
 * Buffer copies take any offset.  A cache line keeps the host's copy into
 * the ring aligned and divides any chunk of whole lines (the default, a
 * quarter of a ring of pages, is one), so a ring of n chunks holds n at
 * once; at 48, the images' alignment, each chunk landed a few bytes past
 * the last and the nth no longer fitted.
 */
#define STAGE_ALIGN 64

struct rect_args {
	uint64_t w, h, d;
	struct llmem_lin src, dst;
};

static int check_rect(const char *what, const struct llmem_rect *r, uint64_t src_limit,
		      uint64_t dst_limit, struct rect_args *out)
{
	int ret;

	if (!r)
		return llmem_error(-EINVAL, "%s: NULL rect", what);
	out->w = r->region[0];
	out->h = r->region[1] ? r->region[1] : 1;
	out->d = r->region[2] ? r->region[2] : 1;
	if (!out->w)
		return llmem_error(-EINVAL, "%s: region of 0 bytes", what);
	ret = llmem_lin_check(what, r->src_origin, r->src_pitch, out->w, out->h, out->d, src_limit,
			      &out->src);
	if (!ret)
		ret = llmem_lin_check(what, r->dst_origin, r->dst_pitch, out->w, out->h, out->d,
				      dst_limit, &out->dst);
	return ret;
}

static bool map_pays(struct llmem_queue *q, struct llmem_buffer *b, bool read)
{
	struct llmem_memory_info mi;

	if (q->flags & LLMEM_QUEUE_NO_MAPPING || llmem_memory_get_info(b->obj.memory, &mi))
		return false;
	if (!(mi.flags & LLMEM_MEMORY_HOST_VISIBLE))
		return false;
	return !read || (mi.flags & LLMEM_MEMORY_HOST_CACHED) ||
	       !(mi.flags & LLMEM_MEMORY_DEVICE_LOCAL);
}

static uint64_t box_end(const struct rect_args *a, const struct llmem_lin *l)
{
	return llmem_lin_at(l, 1, a->w, a->h - 1, a->d - 1);
}

static int mapped_rect(struct llmem_buffer *b, const struct rect_args *a, uint8_t *host, bool read)
{
	const struct llmem_lin *bl = read ? &a->src : &a->dst;
	const struct llmem_lin *hl = read ? &a->dst : &a->src;
	uint64_t first = bl->base, size = box_end(a, bl) - first;
	uint8_t *p;
	int ret;

	ret = llmem_buffer_map(b, (void **)&p);
	if (ret)
		return ret;
	if (read) {
		ret = llmem_buffer_invalidate(b, first, size);
		if (!ret)
			llmem_box_copy(host + hl->base, hl->rp, hl->sp, p + bl->base, bl->rp,
				       bl->sp, a->w, a->h, a->d, false);
	} else {
		llmem_box_copy(p + bl->base, bl->rp, bl->sp, host + hl->base, hl->rp, hl->sp, a->w,
			       a->h, a->d, false);
		ret = llmem_buffer_flush(b, first, size);
	}
	llmem_buffer_unmap(b);
	return ret;
}

/*
 * Chunk by chunk, one loop for both directions as transfer_image.c's
 * staged().  A write copies a chunk into the ring, then submits its copy
 * (outside a batch), and goes on with the next chunk while the device copies
 * this one.  The host writes a chunk before the submission that reads it:
 * Vulkan no longer lets a submitted command buffer wait for an event the
 * host sets afterwards (VUID-vkSetEvent-event-09543), and only a submission
 * makes earlier host writes visible to the device.  A read's chunk reaches
 * host memory when its submission is retired.
 */
static int staged(struct llmem_queue *q, struct llmem_buffer *b, const struct rect_args *a,
		  uint8_t *host, bool read)
{
	const struct llmem_lin *bl = read ? &a->src : &a->dst;
	const struct llmem_lin *hl = read ? &a->dst : &a->src;
	struct llmem_box_cut cut;
	struct llmem_box box;
	int ret;

	llmem_box_cut_init(&cut, 1, a->w, a->h, a->d, llmem_queue_chunk(q));
	while (llmem_box_cut_next(&cut, &box)) {
		uint64_t bytes = box.w * box.h * box.d;
		uint8_t *h = host + llmem_lin_at(hl, 1, box.x, box.y, box.z);
		struct llmem_lin buf = *bl, ring;
		struct llmem_span sp;
		VkCommandBuffer cmd = llmem_queue_begin_op(q);

		if (!cmd)
			return q->record_error;
		ret = llmem_queue_stage(q, bytes, STAGE_ALIGN, &sp);
		if (ret)
			return ret;
		buf.base = llmem_lin_at(bl, 1, box.x, box.y, box.z);
		ring = (struct llmem_lin){ sp.off, box.w, box.w * box.h };
		if (read) {
			llmem_cmd_copy_rows(cmd, b->vk, &buf, sp.buffer->vk, &ring, box.w, box.h,
					    box.d);
			ret = llmem_queue_add_done(q, &(struct llmem_done){
							      .kind = LLMEM_DONE_READ,
							      .buffer = sp.buffer,
							      .off = sp.off,
							      .dst = h,
							      .bytes = box.w,
							      .rows = box.h,
							      .slices = box.d,
							      .dst_row_pitch = hl->rp,
							      .dst_slice_pitch = hl->sp,
						      });
		} else {
			llmem_queue_stage_box(q, sp.ptr, box.w, box.w * box.h, h, hl->rp, hl->sp,
					      box.w, box.h, box.d);
			ret = llmem_queue_stage_flush(&sp, bytes);
			if (!ret)
				llmem_cmd_copy_rows(cmd, sp.buffer->vk, &ring, b->vk, &buf, box.w,
						    box.h, box.d);
		}
		if (!ret)
			ret = llmem_queue_flush(q);
		if (ret)
			return ret;
	}
	return 0;
}

static int host_rect(struct llmem_queue *q, struct llmem_buffer *b, uint8_t *host,
		     const struct rect_args *a, bool read, const struct llmem_wait_list *wait_for,
		     struct llmem_event **event)
{
	const char *what = read ? "read buffer" : "write buffer";
	bool map = map_pays(q, b, read);
	uint32_t need = read ? LLMEM_BUFFER_TRANSFER_SRC : LLMEM_BUFFER_TRANSFER_DST;
	int ret;

	if (!host)
		return llmem_error(-EINVAL, "%s: NULL host pointer", what);
	if (!map && !(b->usage & need))
		return llmem_error(-EPERM, "%s: the buffer lacks TRANSFER_%s usage", what,
				   read ? "SRC" : "DST");
	ret = llmem_queue_op_enter(q, wait_for, map && !event, event);
	if (ret)
		return ret;
	/* A buffer without transfer usage has only the mapping: wait for it. */
	if (map && llmem_queue_host_turn(q, wait_for, !event || !(b->usage & need)))
		ret = mapped_rect(b, a, host, read);
	else if (!(b->usage & need))
		ret = llmem_error(-EPERM, "%s: the buffer lacks TRANSFER_%s usage", what,
				  read ? "SRC" : "DST");
	else
		ret = staged(q, b, a, host, read);
	return llmem_queue_op_leave(q, ret, event);
}

static struct llmem_rect linear_rect(uint64_t src_offset, uint64_t dst_offset, uint64_t size)
{
	return (struct llmem_rect){
		.src_origin = { src_offset },
		.dst_origin = { dst_offset },
		.region = { size },
	};
}

LLMEM_PUBLIC int llmem_enqueue_write_buffer(struct llmem_queue *q, struct llmem_buffer *b,
					    uint64_t offset, const void *src, uint64_t size,
					    const struct llmem_wait_list *wait_for,
					    struct llmem_event **event)
{
	struct llmem_rect r = linear_rect(0, offset, size);

	return llmem_enqueue_write_buffer_rect(q, b, src, &r, wait_for, event);
}

LLMEM_PUBLIC int llmem_enqueue_read_buffer(struct llmem_queue *q, struct llmem_buffer *b,
					   uint64_t offset, void *dst, uint64_t size,
					   const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	struct llmem_rect r = linear_rect(offset, 0, size);

	return llmem_enqueue_read_buffer_rect(q, b, dst, &r, wait_for, event);
}

LLMEM_PUBLIC int llmem_enqueue_write_buffer_rect(struct llmem_queue *q, struct llmem_buffer *b,
						 const void *src, const struct llmem_rect *rect,
						 const struct llmem_wait_list *wait_for,
						 struct llmem_event **event)
{
	struct rect_args a;
	int ret = llmem_queue_check_buffer(q, b, "write buffer");

	if (!ret)
		ret = check_rect("write buffer", rect, UINT64_MAX, b->size, &a);
	if (ret)
		return ret;
	return host_rect(q, b, (uint8_t *)src, &a, false, wait_for, event);
}

LLMEM_PUBLIC int llmem_enqueue_read_buffer_rect(struct llmem_queue *q, struct llmem_buffer *b,
						void *dst, const struct llmem_rect *rect,
						const struct llmem_wait_list *wait_for,
						struct llmem_event **event)
{
	struct rect_args a;
	int ret = llmem_queue_check_buffer(q, b, "read buffer");

	if (!ret)
		ret = check_rect("read buffer", rect, b->size, UINT64_MAX, &a);
	if (ret)
		return ret;
	return host_rect(q, b, dst, &a, true, wait_for, event);
}

/* Offsets in the page, where sub-regions of one buffer can meet. */
static bool same_page(const struct llmem_buffer *a, const struct llmem_buffer *b)
{
	return a->obj.memory == b->obj.memory && a->obj.alloc.page == b->obj.alloc.page;
}

LLMEM_PUBLIC int llmem_enqueue_copy_buffer_rect(struct llmem_queue *q, struct llmem_buffer *src,
						struct llmem_buffer *dst,
						const struct llmem_rect *rect,
						const struct llmem_wait_list *wait_for,
						struct llmem_event **event)
{
	struct rect_args a;
	VkCommandBuffer cmd;
	int ret = llmem_queue_check_buffer(q, src, "copy buffer");

	if (!ret)
		ret = llmem_queue_check_buffer(q, dst, "copy buffer");
	if (!ret)
		ret = check_rect("copy buffer", rect, src->size, dst->size, &a);
	if (ret)
		return ret;
	if (same_page(src, dst)) {
		struct llmem_lin s = a.src, d = a.dst;

		s.base += src->obj.alloc.offset;
		d.base += dst->obj.alloc.offset;
		if (llmem_lin_rows_overlap(&s, &d, a.w, a.h, a.d))
			return llmem_error(-EINVAL, "copy buffer: source and destination overlap");
	}
	if (!(src->usage & LLMEM_BUFFER_TRANSFER_SRC) || !(dst->usage & LLMEM_BUFFER_TRANSFER_DST))
		return llmem_error(-EPERM, "copy buffer: needs TRANSFER_SRC on the source and "
					   "TRANSFER_DST on the destination");
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	cmd = llmem_queue_begin_op(q);
	if (!cmd)
		ret = q->record_error;
	else
		llmem_cmd_copy_rows(cmd, src->vk, &a.src, dst->vk, &a.dst, a.w, a.h, a.d);
	return llmem_queue_op_leave(q, ret, event);
}

LLMEM_PUBLIC int llmem_enqueue_copy_buffer(struct llmem_queue *q, struct llmem_buffer *src,
					   uint64_t src_offset, struct llmem_buffer *dst,
					   uint64_t dst_offset, uint64_t size,
					   const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	struct llmem_rect r = linear_rect(src_offset, dst_offset, size);

	return llmem_enqueue_copy_buffer_rect(q, src, dst, &r, wait_for, event);
}
