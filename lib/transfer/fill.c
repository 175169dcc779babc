// SPDX-License-Identifier: MIT
/*
 * Fills of buffer ranges and clears of frames held in buffers.
 *
 * The device writes them itself where it can: vkCmdFillBuffer for the
 * word-aligned middle of a pattern that repeats one 32-bit word, the fill
 * shader for longer patterns (and for buffers with STORAGE but no
 * TRANSFER_DST usage), the clear shader for frames whose rows are
 * word-aligned.  The rest is copied from a staged tile of the pattern, which
 * vkCmdCopyBuffer can put at any byte.
 *
 * The shaders are the session's built-in kernels (transfer/kernel.h), their
 * dispatches recorded in the queue's command buffer with a descriptor that
 * names the range each one writes.  A descriptor starts at a
 * multiple of minStorageBufferOffsetAlignment and reaches at most
 * maxStorageBufferRange bytes, and the shaders index 32-bit words with
 * 32-bit integers: a larger range goes as several dispatches, each with a
 * descriptor of its own, at any offset in the buffer.  The shaders loop, so
 * a dispatch needs no more groups than maxComputeWorkGroupCount allows.
 */
#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/frame.h>

#include "base/error.h"
#include "device/shaders.h"
#include "transfer/dispatch.h"
#include "transfer/kernel.h"
#include "transfer/queue.h"

#define TILE_ALIGN 16
#define TILE_MAX 65536
#define COPY_BATCH 64

/* local_size of shaders/fill.comp and shaders/clear.comp. */
#define FILL_GROUP 64
#define CLEAR_GROUP_X 16
#define CLEAR_GROUP_Y 8

/* Mirror the push_constant blocks of shaders/fill.comp and clear.comp. */
struct fill_params {
	uint8_t pattern[16];
	uint32_t first_word;
	uint32_t word_count;
};

struct clear_params {
	uint32_t offset;
	uint32_t pitch;
	uint32_t width;
	uint32_t height;
	uint32_t rgba;
};

_Static_assert(sizeof(struct fill_params) == 24, "push constants of the fill shader");
_Static_assert(sizeof(struct clear_params) == 20, "push constants of the clear shader");

/* A rectangle of an RGBA8 frame: its first pixel's byte in the buffer. */
struct frame_rect {
	uint64_t offset;
	uint64_t pitch;
	uint64_t width, height;
	uint8_t rgba[4];
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* vkCmdCopyBuffer regions, recorded COPY_BATCH at a time. */
struct copy_batch {
	VkCommandBuffer cmd;
	VkBuffer src, dst;
	uint32_t n;
	VkBufferCopy regions[COPY_BATCH];
};

static void batch_flush(struct copy_batch *c)
{
	if (c->n)
		vkCmdCopyBuffer(c->cmd, c->src, c->dst, c->n, c->regions);
	c->n = 0;
}

/* A staged run of a pattern: @bytes of whole patterns and one pattern more,
 * so that a copy of up to @bytes may start at any phase. */
struct tile {
	struct llmem_span sp;
	uint64_t bytes;
};

static int tile_stage(struct llmem_queue *q, const uint8_t *pattern, uint32_t psize, uint64_t want,
		      struct tile *t)
{
	uint64_t n = min_u64(want, min_u64(TILE_MAX, llmem_queue_chunk(q) / 2));
	int ret;

	n += (psize - n % psize) % psize;
	ret = llmem_queue_stage(q, n + psize, TILE_ALIGN, &t->sp);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < n + psize; i++)
		t->sp.ptr[i] = pattern[i % psize];
	t->bytes = n;
	return llmem_queue_stage_flush(&t->sp, n + psize);
}

/* Bytes [@at, @to) of the destination from @t, byte @at at @phase of the pattern. */
static void tile_copy(struct copy_batch *c, const struct tile *t, uint64_t phase, uint64_t at,
		      uint64_t to)
{
	while (at < to) {
		uint64_t len = min_u64(to - at, t->bytes);

		c->regions[c->n++] = (VkBufferCopy){ t->sp.off + phase, at, len };
		if (c->n == COPY_BATCH)
			batch_flush(c);
		at += len;
	}
}

/* Copies the fill of [@start, @end), less [@skip_lo, @skip_hi), from a tile. */
static int fill_by_copy(struct llmem_queue *q, struct llmem_buffer *b, uint64_t start, uint64_t end,
			uint64_t skip_lo, uint64_t skip_hi, const uint8_t *pattern, uint32_t psize)
{
	struct copy_batch c;
	struct tile t;
	int ret;

	ret = tile_stage(q, pattern, psize, end - start - (skip_hi - skip_lo), &t);
	if (ret)
		return ret;
	c = (struct copy_batch){ .cmd = q->open->cmd, .src = t.sp.buffer->vk, .dst = b->vk };
	tile_copy(&c, &t, 0, start, skip_lo);
	tile_copy(&c, &t, (skip_hi - start) % psize, skip_hi, end);
	batch_flush(&c);
	return 0;
}

static bool shader_can_write(const struct llmem_queue *q, const struct llmem_buffer *b)
{
	return (b->usage & LLMEM_BUFFER_STORAGE) && q->session->push_descriptor_set;
}

/* The fill or clear shader as a kernel: one storage buffer and the push
 * constants of @push_size bytes. */
static int shader_get(struct llmem_queue *q, enum llmem_builtin_kernel id,
		      const struct llmem_shader *shader, uint32_t push_size,
		      struct llmem_kernel **k)
{
	static const uint32_t bindings[] = { LLMEM_BINDING_STORAGE_BUFFER };

	return llmem_kernel_builtin(q->session, id,
				    &(struct llmem_kernel_create_info){
					    .spirv = shader->code,
					    .spirv_size = shader->size,
					    .bindings = bindings,
					    .binding_count = 1,
					    .push_size = push_size,
					    .name = shader->name,
				    },
				    0, k);
}

/*
 * Groups per dimension of a dispatch: the least maxComputeWorkGroupCount
 * may be.  The shaders loop, and many turns per invocation beat a group
 * per 64 words by far on a large GPU (seen on the H100).
 */
#define GROUPS_MAX 65535u

/* What one dispatch may reach: descriptor alignment and range, groups. */
struct shader_limits {
	/* minStorageBufferOffsetAlignment, and that or 16 if larger (the fill
	 * shader's descriptors start on a quad). */
	uint64_t align, quad_align;
	/* A multiple of quad_align, below 4 GiB: word indices fit 32 bits, and
	 * a fill's pieces all start in phase with its pattern. */
	uint64_t piece;
	uint32_t groups[2];
};

static void shader_limits(const struct llmem_session *s, const struct llmem_kernel *k,
			  struct shader_limits *l)
{
	const struct llmem_dispatch_state *state = llmem_kernel_dispatch_state(k);
	const VkPhysicalDeviceLimits *d = &s->props.limits;
	uint64_t piece = d->maxStorageBufferRange;

	l->align = d->minStorageBufferOffsetAlignment > 4 ? d->minStorageBufferOffsetAlignment : 4;
	l->quad_align = l->align > 16 ? l->align : 16;
	if (state->piece_max)
		piece = min_u64(piece, state->piece_max);
	piece -= piece % l->quad_align;
	l->piece = piece > l->quad_align ? piece : l->quad_align;
	for (int i = 0; i < 2; i++) {
		l->groups[i] = (uint32_t)min_u64(d->maxComputeWorkGroupCount[i], GROUPS_MAX);
		if (state->groups_max && state->groups_max < l->groups[i])
			l->groups[i] = state->groups_max;
	}
}

static uint32_t groups(uint64_t items, uint32_t per_group, uint32_t limit)
{
	return (uint32_t)min_u64((items + per_group - 1) / per_group, limit);
}

/*
 * The fill shader over [@lo, @hi), word-aligned and a whole number of
 * patterns.  Pieces end at multiples of the piece size, so each starts in
 * phase, and their descriptors never overlap: the dispatches need no
 * barrier between them.
 */
static void fill_by_shader(struct llmem_queue *q, struct llmem_buffer *b,
			   const struct llmem_kernel *k, uint64_t lo, uint64_t hi,
			   const uint8_t *pattern, uint32_t psize)
{
	struct llmem_kernel_descriptors d;
	struct shader_limits l;
	struct fill_params fp;

	for (uint32_t i = 0; i < 16; i++)
		fp.pattern[i] = pattern[i % psize];
	shader_limits(q->session, k, &l);
	for (uint64_t at = lo, end; at < hi; at = end) {
		uint64_t desc = at - at % l.quad_align;

		end = min_u64(hi, at - at % l.piece + l.piece);
		fp.first_word = (uint32_t)((at - desc) / 4);
		fp.word_count = (uint32_t)((end - at) / 4);
		d.buffers[0] = (VkDescriptorBufferInfo){ b->vk, desc, end - desc };
		/* An invocation writes a quad per turn; the first group also
		 * takes the words around the quads. */
		llmem_kernel_record(
			k, q->open->cmd, &d, VK_NULL_HANDLE, &fp,
			(uint32_t[3]){ groups((fp.word_count + 3) / 4, FILL_GROUP, l.groups[0]), 1,
				       1 });
	}
}

/* How the word-aligned middle of a fill is written; the ends go by copy. */
enum fill_path {
	FILL_BY_COPY,
	FILL_BY_COMMAND,
	FILL_BY_SHADER,
};

static enum fill_path fill_path(const struct llmem_queue *q, const struct llmem_buffer *b,
				uint64_t lo, uint64_t hi, uint32_t psize)
{
	bool dst = b->usage & LLMEM_BUFFER_TRANSFER_DST;

	if (lo >= hi)
		return FILL_BY_COPY;
	/* vkCmdFillBuffer repeats one word; the shader, up to four. */
	if (psize <= 4 && dst)
		return FILL_BY_COMMAND;
	if (shader_can_write(q, b))
		return FILL_BY_SHADER;
	return psize <= 4 ? FILL_BY_COMMAND : FILL_BY_COPY;
}

static int record_fill(struct llmem_queue *q, struct llmem_buffer *b, uint64_t offset,
		       uint64_t size, const uint8_t *pattern, uint32_t psize, enum fill_path path,
		       const struct llmem_kernel *k)
{
	uint64_t end = offset + size, lo = (offset + 3) & ~3ull, hi = end & ~3ull;
	uint32_t word;

	if (!llmem_queue_begin_op(q))
		return q->record_error;
	switch (path) {
	case FILL_BY_COPY:
		return fill_by_copy(q, b, offset, end, end, end, pattern, psize);
	case FILL_BY_COMMAND:
		for (int i = 0; i < 4; i++)
			((uint8_t *)&word)[i] = pattern[(lo - offset + i) % psize];
		vkCmdFillBuffer(q->open->cmd, b->vk, lo, hi - lo, word);
		break;
	case FILL_BY_SHADER:
		/* Only fills without ends get here (patterns of 4 bytes and
		 * more, or aligned ranges): shader and copies never meet. */
		fill_by_shader(q, b, k, lo, hi, pattern, psize);
		break;
	}
	if (lo > offset || end > hi)
		return fill_by_copy(q, b, offset, end, lo, hi, pattern, psize);
	return 0;
}

LLMEM_PUBLIC int llmem_enqueue_fill_buffer(struct llmem_queue *q, struct llmem_buffer *b,
					   uint64_t offset, uint64_t size, const void *pattern,
					   uint32_t psize, const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	struct llmem_kernel *k = NULL;
	enum fill_path path;
	uint64_t lo, hi;
	int ret = llmem_queue_check_buffer(q, b, "fill buffer");

	if (ret)
		return ret;
	if (!pattern)
		return llmem_error(-EINVAL, "fill buffer: NULL pattern");
	if (psize == 0 || psize > 16 || (psize & (psize - 1)))
		return llmem_error(-EINVAL,
				   "fill buffer: pattern of %u bytes, not 1, 2, 4, 8 or 16", psize);
	if (size == 0 || offset % psize || size % psize)
		return llmem_error(-EINVAL,
				   "fill buffer: offset %llu and size %llu must be non-zero "
				   "multiples of the %u-byte pattern",
				   (unsigned long long)offset, (unsigned long long)size, psize);
	if (offset > b->size || size > b->size - offset)
		return llmem_error(-EINVAL, "fill buffer: [%llu, +%llu) lies outside %llu bytes",
				   (unsigned long long)offset, (unsigned long long)size,
				   (unsigned long long)b->size);
	lo = (offset + 3) & ~3ull;
	hi = (offset + size) & ~3ull;
	path = fill_path(q, b, lo, hi, psize);
	if (!(b->usage & LLMEM_BUFFER_TRANSFER_DST) &&
	    (path != FILL_BY_SHADER || lo > offset || hi < offset + size))
		return llmem_error(-EPERM,
				   "fill buffer: the buffer lacks TRANSFER_DST usage, which this "
				   "fill needs%s",
				   shader_can_write(q, b) ? " for its unaligned ends" : "");
	if (path == FILL_BY_SHADER) {
		ret = shader_get(q, LLMEM_KERNEL_FILL, &llmem_shader_fill,
				 sizeof(struct fill_params), &k);
		if (ret)
			return ret;
	}
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	ret = record_fill(q, b, offset, size, pattern, psize, path, k);
	return llmem_queue_op_leave(q, ret, event);
}

static int check_frame(const struct llmem_buffer *b, const struct llmem_frame_layout *l,
		       const struct llmem_image_region *region, const union llmem_color *color,
		       struct frame_rect *out)
{
	static const struct llmem_image_region whole;
	const struct llmem_image_region *r = region ? region : &whole;
	uint64_t row, room;

	if (!l || !color)
		return llmem_error(-EINVAL, "clear frame: NULL %s", l ? "color" : "layout");
	if (l->fourcc != DRM_FORMAT_ABGR8888 || l->num_planes != 1 ||
	    l->modifier != DRM_FORMAT_MOD_LINEAR)
		return llmem_error(-EINVAL,
				   "clear frame: fourcc 0x%08x, %u planes, modifier 0x%llx: only "
				   "one linear ABGR8888 plane",
				   l->fourcc, l->num_planes, (unsigned long long)l->modifier);
	if (!l->width || !l->height)
		return llmem_error(-EINVAL, "clear frame: a frame of %ux%u pixels", l->width,
				   l->height);
	row = (uint64_t)l->width * 4;
	if (l->pitch[0] < row)
		return llmem_error(-EINVAL, "clear frame: pitch %u is below a row's %llu bytes",
				   l->pitch[0], (unsigned long long)row);
	/* Rows up to the last, then the last row's pixels, without overflow. */
	room = l->offset[0] <= b->size ? b->size - l->offset[0] : 0;
	if ((l->height > 1 && l->pitch[0] > room / (l->height - 1)) ||
	    row > room - (uint64_t)(l->height - 1) * l->pitch[0])
		return llmem_error(-EINVAL,
				   "clear frame: %u rows of pitch %u at offset %llu lie outside "
				   "the buffer's %llu bytes",
				   l->height, l->pitch[0], (unsigned long long)l->offset[0],
				   (unsigned long long)b->size);
	if (r->origin[2] || r->extent[2] > 1)
		return llmem_error(-EINVAL,
				   "clear frame: a frame has one slice, not origin %u and depth %u",
				   r->origin[2], r->extent[2]);
	if (r->origin[0] >= l->width || r->origin[1] >= l->height ||
	    r->extent[0] > l->width - r->origin[0] || r->extent[1] > l->height - r->origin[1])
		return llmem_error(-EINVAL,
				   "clear frame: %ux%u pixels at (%u, %u) lie outside the %ux%u "
				   "frame",
				   r->extent[0], r->extent[1], r->origin[0], r->origin[1], l->width,
				   l->height);
	for (int i = 0; i < 4; i++) {
		if (color->u32[i] > 255)
			return llmem_error(-EINVAL, "clear frame: channel %d is %u, above 255", i,
					   color->u32[i]);
		out->rgba[i] = (uint8_t)color->u32[i];
	}
	out->pitch = l->pitch[0];
	out->width = r->extent[0] ? r->extent[0] : l->width - r->origin[0];
	out->height = r->extent[1] ? r->extent[1] : l->height - r->origin[1];
	out->offset = l->offset[0] + r->origin[1] * out->pitch + (uint64_t)r->origin[0] * 4;
	return 0;
}

/*
 * Between pieces of a clear.  They write different pixels, but their
 * descriptors' ranges may overlap, and synchronization validation judges
 * by those.
 */
static void shader_barrier(VkCommandBuffer cmd)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b, 0, NULL, 0, NULL);
}

/*
 * The clear shader over @r in pieces: bands of whole rows where a row fits
 * a descriptor, otherwise row by row in runs of columns.
 */
static void clear_by_shader(struct llmem_queue *q, struct llmem_buffer *b,
			    const struct llmem_kernel *k, const struct frame_rect *r)
{
	struct llmem_kernel_descriptors d;
	struct shader_limits l;
	struct clear_params cp = { .pitch = (uint32_t)r->pitch };
	uint64_t rows;

	memcpy(&cp.rgba, r->rgba, 4);
	shader_limits(q->session, k, &l);
	for (uint64_t y = 0; y < r->height; y += rows) {
		uint64_t start = r->offset + y * r->pitch, cols;

		rows = 1;
		if (start % l.align + r->width * 4 <= l.piece)
			rows = min_u64(r->height - y,
				       1 + (l.piece - start % l.align - r->width * 4) / r->pitch);
		for (uint64_t x = 0; x < r->width; x += cols) {
			uint64_t at = start + x * 4, desc = at - at % l.align;

			cols = min_u64(r->width - x, (l.piece - (at - desc)) / 4);
			cp.offset = (uint32_t)(at - desc);
			cp.width = (uint32_t)cols;
			cp.height = (uint32_t)rows;
			d.buffers[0] = (VkDescriptorBufferInfo){
				b->vk, desc, cp.offset + (rows - 1) * r->pitch + cols * 4
			};
			if (y || x)
				shader_barrier(q->open->cmd);
			llmem_kernel_record(k, q->open->cmd, &d, VK_NULL_HANDLE, &cp,
					    (uint32_t[3]){ groups(cols, CLEAR_GROUP_X, l.groups[0]),
							   groups(rows, CLEAR_GROUP_Y, l.groups[1]),
							   1 });
		}
	}
}

/* Each row of @r copied from a staged run of the colour. */
static int clear_by_copy(struct llmem_queue *q, struct llmem_buffer *b, const struct frame_rect *r)
{
	struct copy_batch c;
	struct tile t;
	int ret;

	ret = tile_stage(q, r->rgba, 4, r->width * 4, &t);
	if (ret)
		return ret;
	c = (struct copy_batch){ .cmd = q->open->cmd, .src = t.sp.buffer->vk, .dst = b->vk };
	for (uint64_t y = 0; y < r->height; y++)
		tile_copy(&c, &t, 0, r->offset + y * r->pitch,
			  r->offset + y * r->pitch + r->width * 4);
	batch_flush(&c);
	return 0;
}

LLMEM_PUBLIC int llmem_enqueue_clear_frame(struct llmem_queue *q, struct llmem_buffer *b,
					   const struct llmem_frame_layout *layout,
					   const struct llmem_image_region *region,
					   const union llmem_color *color,
					   const struct llmem_wait_list *wait_for,
					   struct llmem_event **event)
{
	struct llmem_kernel *k = NULL;
	struct frame_rect r;
	bool shader;
	int ret = llmem_queue_check_buffer(q, b, "clear frame");

	if (!ret)
		ret = check_frame(b, layout, region, color, &r);
	if (ret)
		return ret;
	shader = shader_can_write(q, b) && r.offset % 4 == 0 && r.pitch % 4 == 0;
	if (!shader && !(b->usage & LLMEM_BUFFER_TRANSFER_DST))
		return llmem_error(-EPERM,
				   "clear frame: needs TRANSFER_DST usage, or STORAGE usage%s",
				   q->session->push_descriptor_set
					   ? " and a plane offset and pitch that are multiples of 4"
					   : " and VK_KHR_push_descriptor");
	if (shader) {
		ret = shader_get(q, LLMEM_KERNEL_CLEAR, &llmem_shader_clear,
				 sizeof(struct clear_params), &k);
		if (ret)
			return ret;
	}
	ret = llmem_queue_op_enter(q, wait_for, false, event);
	if (ret)
		return ret;
	if (!llmem_queue_begin_op(q))
		ret = q->record_error;
	else if (shader)
		clear_by_shader(q, b, k, &r);
	else
		ret = clear_by_copy(q, b, &r);
	return llmem_queue_op_leave(q, ret, event);
}
