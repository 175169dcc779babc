// SPDX-License-Identifier: MIT
/*
 * The encoder object (codec.h): a memory-to-memory encoder with its formats
 * set and its bitstream buffers in llmem memory, taking frames by the
 * DMA-BUFs they carry.  The bitstream buffers are queued in pull(), never
 * in push(): a memory-to-memory driver runs its job as soon as both queues
 * have a buffer, and a driver that encodes on the CPU (vicodec) does it in
 * the caller's VIDIOC_QBUF, so the encoding is in the call that waits for
 * its result, and push() costs only the hand-over.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/error.h>
#include <llmem/share.h>

#include "base/error.h"
#include "base/export.h"
#include "video/bitstream.h"
#include "video/codec_memory.h"

struct frame_slot {
	bool busy; /* in the encoder */
	bool handed_out; /* an own frame given by get_frame(), not yet pushed */
	int last_fd; /* the DMA-BUF queued here last, which the driver keeps imported */
	uint64_t id;
};

struct llmem_encoder {
	struct llmem_session *session;
	struct llmem_codec *codec;
	struct llmem_encoder_info info;
	struct frame_slot slot[LLMEM_CODEC_MAX_FRAMES];
	/* Frames pushed whose packet was not pulled yet. */
	uint32_t pending;
	struct codec_memory bits[LLMEM_CODEC_MAX_BITSTREAM_BUFFERS];
	bool bits_queued[LLMEM_CODEC_MAX_BITSTREAM_BUFFERS];
	bool bits_held[LLMEM_CODEC_MAX_BITSTREAM_BUFFERS];
	/* get_frame()'s frames, plane-major, made at its first call. */
	struct codec_memory own[LLMEM_V4L2_MAX_MEM_PLANES][LLMEM_CODEC_MAX_FRAMES];
	bool own_made;
	bool draining, ended;
};

static int check_info(const struct llmem_encoder_create_info *ci)
{
	if (ci->flags & ~(uint32_t)LLMEM_ENCODER_COPY)
		return llmem_error(-EINVAL, "encoder open: unknown flags 0x%x", ci->flags);
	if (ci->frames > LLMEM_CODEC_MAX_FRAMES)
		return llmem_error(-EINVAL, "encoder open: %u frames; at most %u", ci->frames,
				   LLMEM_CODEC_MAX_FRAMES);
	if (ci->bitstream_buffers > LLMEM_CODEC_MAX_BITSTREAM_BUFFERS)
		return llmem_error(-EINVAL, "encoder open: %u bitstream buffers; at most %u",
				   ci->bitstream_buffers, LLMEM_CODEC_MAX_BITSTREAM_BUFFERS);
	if (!ci->width != !ci->height)
		return llmem_error(-EINVAL, "encoder open: size %ux%u: give both sides or neither",
				   ci->width, ci->height);
	if (!ci->coded_width != !ci->coded_height)
		return llmem_error(-EINVAL,
				   "encoder open: coded size %ux%u: give both sides or neither",
				   ci->coded_width, ci->coded_height);
	return 0;
}

static int open_node(struct llmem_encoder *e, const struct llmem_encoder_create_info *ci)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_ENCODER,
					    .coded_fourcc = e->info.coded.fourcc,
					    .raw_fourcc = e->info.raw.fourcc };
	int ret;

	if (ci->device)
		snprintf(e->info.device, sizeof(e->info.device), "%s", ci->device);
	else if ((ret = llmem_codec_find(&fi, e->info.device, sizeof(e->info.device))))
		return ret;
	ret = llmem_codec_open(e->info.device, &e->codec);
	if (ret)
		return ret;
	snprintf(e->info.driver, sizeof(e->info.driver), "%s", llmem_codec_driver(e->codec));
	if (llmem_codec_kind(e->codec) != LLMEM_CODEC_ENCODER)
		return llmem_error(-ENODEV, "%s (%s) is no encoder", e->info.device,
				   e->info.driver);
	return 0;
}

/*
 * The coded format first, then the raw one at the frames' coded size, then
 * the picture as its crop rectangle, as dev-encoder.rst says.  Frames laid
 * out already must be taken as they are; without a coded size the driver
 * rounds the picture up to its own.
 */
static int set_formats(struct llmem_encoder *e, const struct llmem_encoder_create_info *ci)
{
	struct llmem_codec_format coded = e->info.coded, raw = e->info.raw;
	const struct llmem_codec_format *got = &e->info.raw;
	struct llmem_codec_rect *pic = &e->info.picture;
	int ret;

	if (ci->coded_width && (ci->coded_width < pic->width || ci->coded_height < pic->height))
		return llmem_error(-EINVAL, "encoder open: a %ux%u picture in %ux%u coded frames",
				   pic->width, pic->height, ci->coded_width, ci->coded_height);
	if (ci->coded_width) {
		raw.width = ci->coded_width;
		raw.height = ci->coded_height;
	}
	/* The OUTPUT format sets the bitstream buffers' size (coded frames
	 * larger than the picture need more): CAPTURE's is read again. */
	ret = llmem_codec_set_format(e->codec, LLMEM_CODEC_CAPTURE, &coded, NULL);
	if (!ret)
		ret = llmem_codec_set_format(e->codec, LLMEM_CODEC_OUTPUT, &raw, &e->info.raw);
	if (!ret)
		ret = llmem_codec_get_format(e->codec, LLMEM_CODEC_CAPTURE, &e->info.coded);
	if (ret)
		return ret;
	if ((ci->coded_width && (got->width != raw.width || got->height != raw.height)) ||
	    got->width < pic->width || got->height < pic->height ||
	    (ci->pitch && got->bytesperline[0] != ci->pitch))
		return llmem_error(-EINVAL,
				   "%s takes %ux%u frames with pitch %u; these are %ux%u with "
				   "pitch %u",
				   e->info.device, got->width, got->height, got->bytesperline[0],
				   raw.width, raw.height,
				   ci->pitch ? ci->pitch : got->bytesperline[0]);
	if (got->width == pic->width && got->height == pic->height)
		return 0;
	ret = llmem_codec_set_picture(e->codec, LLMEM_CODEC_OUTPUT, pic->width, pic->height);
	if (ret == -ENOTSUP) {
		char why[256];

		snprintf(why, sizeof(why), "%s", llmem_last_error());
		return llmem_error(
			-ENOTSUP, "%s codes %ux%u frames and cannot be told the %ux%u picture: %s",
			e->info.device, got->width, got->height, pic->width, pic->height, why);
	}
	return ret;
}

static int setup_buffers(struct llmem_encoder *e)
{
	bool copy = e->info.flags & LLMEM_ENCODER_COPY;
	int ret;

	ret = llmem_codec_request_exactly(e->codec, LLMEM_CODEC_OUTPUT,
					  copy ? LLMEM_V4L2_MEMORY_MMAP : LLMEM_V4L2_MEMORY_DMABUF,
					  e->info.frames, "encoder frame slots");
	if (!ret)
		ret = llmem_codec_request_exactly(e->codec, LLMEM_CODEC_CAPTURE,
						  LLMEM_V4L2_MEMORY_DMABUF,
						  e->info.bitstream_buffers, "bitstream slots");
	for (uint32_t i = 0; !ret && i < e->info.bitstream_buffers; i++)
		ret = llmem_codec_memory_alloc(e->session, e->info.backend,
					       e->info.coded.sizeimage[0], true, "bitstream",
					       &e->bits[i]);
	if (!ret && e->info.bitstream_buffers) {
		struct llmem_memory_info mi;

		llmem_memory_get_info(e->bits[0].memory, &mi);
		e->info.backend = mi.backend;
	}
	if (!ret)
		ret = llmem_codec_stream_on(e->codec, LLMEM_CODEC_OUTPUT);
	if (!ret)
		ret = llmem_codec_stream_on(e->codec, LLMEM_CODEC_CAPTURE);
	return ret;
}

LLMEM_PUBLIC int llmem_encoder_open(struct llmem_session *session,
				    const struct llmem_encoder_create_info *info,
				    struct llmem_encoder **out)
{
	static const struct llmem_encoder_create_info defaults;
	const struct llmem_encoder_create_info *ci = info ? info : &defaults;
	struct llmem_encoder *e;
	int ret;

	if (!session || !out)
		return llmem_error(-EINVAL, "encoder open: NULL %s", session ? "out" : "session");
	ret = check_info(ci);
	if (ret)
		return ret;
	e = calloc(1, sizeof(*e));
	if (!e)
		return llmem_error(-ENOMEM, "encoder open: out of memory");
	e->session = session;
	e->info.coded.fourcc = ci->coded_fourcc ? ci->coded_fourcc : V4L2_PIX_FMT_FWHT;
	e->info.raw.fourcc = ci->fourcc ? ci->fourcc : V4L2_PIX_FMT_YUYV;
	e->info.raw.width = e->info.coded.width = ci->width ? ci->width : 640;
	e->info.raw.height = e->info.coded.height = ci->height ? ci->height : 480;
	e->info.picture.width = e->info.raw.width;
	e->info.picture.height = e->info.raw.height;
	e->info.frames = ci->frames ? ci->frames : 4;
	e->info.bitstream_buffers = ci->bitstream_buffers ? ci->bitstream_buffers : 2;
	e->info.flags = ci->flags;
	e->info.backend = ci->backend;
	for (uint32_t i = 0; i < LLMEM_CODEC_MAX_FRAMES; i++)
		e->slot[i].last_fd = -1;
	ret = open_node(e, ci);
	if (!ret)
		ret = set_formats(e, ci);
	if (!ret)
		ret = setup_buffers(e);
	if (ret) {
		llmem_encoder_close(e);
		return ret;
	}
	*out = e;
	return 0;
}

LLMEM_PUBLIC void llmem_encoder_close(struct llmem_encoder *e)
{
	if (!e)
		return;
	/* The driver lets go of every DMA-BUF before they are freed. */
	llmem_codec_close(e->codec);
	for (uint32_t i = 0; i < LLMEM_CODEC_MAX_BITSTREAM_BUFFERS; i++)
		llmem_codec_memory_free(&e->bits[i]);
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++)
		for (uint32_t i = 0; i < LLMEM_CODEC_MAX_FRAMES; i++)
			llmem_codec_memory_free(&e->own[p][i]);
	free(e);
}

LLMEM_PUBLIC int llmem_encoder_get_info(const struct llmem_encoder *e,
					struct llmem_encoder_info *info)
{
	if (!e || !info)
		return llmem_error(-EINVAL, "encoder info: NULL %s", e ? "info" : "encoder");
	*info = e->info;
	return 0;
}

static void own_frame(struct llmem_encoder *e, uint32_t i, struct llmem_codec_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->num_planes = e->info.raw.num_planes;
	f->index = i;
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++) {
		f->fd[p] = p < f->num_planes ? e->own[p][i].fd : -1;
		f->buffer[p] = e->own[p][i].buffer;
		f->data[p] = e->own[p][i].map;
	}
}

static int make_own_frames(struct llmem_encoder *e)
{
	const struct llmem_codec_format *raw = &e->info.raw;

	if (raw->num_planes > LLMEM_V4L2_MAX_MEM_PLANES)
		return llmem_error(-ENOTSUP, "encoder frames: %u planes; at most %u",
				   raw->num_planes, LLMEM_V4L2_MAX_MEM_PLANES);
	for (uint32_t i = 0; i < e->info.frames; i++) {
		for (uint32_t p = 0; p < raw->num_planes; p++) {
			int ret = llmem_codec_memory_alloc(e->session, e->info.backend,
							   raw->sizeimage[p], true, "encoder frame",
							   &e->own[p][i]);

			if (ret)
				return ret;
		}
		e->slot[i].last_fd = e->own[0][i].fd;
	}
	e->own_made = true;
	return 0;
}

LLMEM_PUBLIC int llmem_encoder_get_frame(struct llmem_encoder *e, struct llmem_codec_frame *frame)
{
	int ret;

	if (!e || !frame)
		return llmem_error(-EINVAL, "encoder frame: NULL %s", e ? "frame" : "encoder");
	if (e->info.flags & LLMEM_ENCODER_COPY)
		return llmem_error(-EINVAL, "encoder frame: on the copy path the frames are the "
					    "driver's: push frames with their data");
	if (!e->own_made && (ret = make_own_frames(e)))
		return ret;
	for (uint32_t i = 0; i < e->info.frames; i++) {
		if (e->slot[i].busy || e->slot[i].handed_out)
			continue;
		e->slot[i].handed_out = true;
		own_frame(e, i, frame);
		return 0;
	}
	return llmem_error(-EBUSY,
			   "encoder frame: all %u are out or in the encoder: pull a "
			   "packet or push one first",
			   e->info.frames);
}

/* The free slot that holds @fd already, else one never used, else any. */
static int pick_slot(const struct llmem_encoder *e, int fd)
{
	int unused = -1, any = -1;

	for (uint32_t i = 0; i < e->info.frames; i++) {
		const struct frame_slot *s = &e->slot[i];

		if (s->busy || (s->handed_out && s->last_fd != fd))
			continue;
		if (s->last_fd == fd)
			return (int)i;
		if (s->last_fd < 0 && unused < 0)
			unused = (int)i;
		if (any < 0)
			any = (int)i;
	}
	return unused >= 0 ? unused : any;
}

/* The copy path's hand-over: the frame copied into the driver's buffer,
 * read between its DMA-BUF's CPU-access brackets as any CPU access must. */
static int copy_in(struct llmem_encoder *e, const struct llmem_codec_frame *f, uint32_t slot,
		   const uint32_t *bytes)
{
	for (uint32_t p = 0; p < f->num_planes; p++) {
		size_t len;
		void *dst;
		int ret = llmem_codec_map(e->codec, LLMEM_CODEC_OUTPUT, slot, p, &dst, &len);

		if (ret)
			return ret;
		if (bytes[p] > len)
			return llmem_error(-EINVAL,
					   "encoder push: plane %u has %u bytes; the "
					   "driver's buffer %zu",
					   p, bytes[p], len);
		if (f->fd[p] >= 0 &&
		    (ret = llmem_dmabuf_begin_cpu_access(f->fd[p], LLMEM_CPU_READ)))
			return ret;
		memcpy(dst, f->data[p], bytes[p]);
		if (f->fd[p] >= 0 && (ret = llmem_dmabuf_end_cpu_access(f->fd[p], LLMEM_CPU_READ)))
			return ret;
	}
	return 0;
}

static int check_frame(const struct llmem_encoder *e, const struct llmem_codec_frame *f)
{
	if (e->draining)
		return llmem_error(-EINVAL, "encoder push: the encoder was drained");
	if (f->num_planes != e->info.raw.num_planes)
		return llmem_error(-EINVAL, "encoder push: a frame of %u planes; %.4s has %u",
				   f->num_planes, (const char *)&e->info.raw.fourcc,
				   e->info.raw.num_planes);
	for (uint32_t p = 0; p < f->num_planes; p++)
		if ((e->info.flags & LLMEM_ENCODER_COPY) && !f->data[p])
			return llmem_error(-EINVAL,
					   "encoder push: the copy path reads the frame's "
					   "data, and plane %u has none",
					   p);
	return 0;
}

LLMEM_PUBLIC int llmem_encoder_push(struct llmem_encoder *e, const struct llmem_codec_frame *f)
{
	struct llmem_codec_plane planes[LLMEM_V4L2_MAX_MEM_PLANES];
	uint32_t bytes[LLMEM_V4L2_MAX_MEM_PLANES];
	int slot, ret;

	if (!e || !f)
		return llmem_error(-EINVAL, "encoder push: NULL %s", e ? "frame" : "encoder");
	ret = check_frame(e, f);
	if (ret)
		return ret;
	slot = pick_slot(e, f->fd[0]);
	if (slot < 0)
		return llmem_error(-EBUSY,
				   "encoder push: all %u frame slots are in the encoder: "
				   "pull a packet first",
				   e->info.frames);
	for (uint32_t p = 0; p < f->num_planes; p++) {
		bytes[p] = f->bytesused[p] ? f->bytesused[p] : e->info.raw.sizeimage[p];
		planes[p] = (struct llmem_codec_plane){ .fd = f->fd[p], .bytesused = bytes[p] };
	}
	if ((e->info.flags & LLMEM_ENCODER_COPY) && (ret = copy_in(e, f, (uint32_t)slot, bytes)))
		return ret;
	ret = llmem_codec_queue(e->codec, LLMEM_CODEC_OUTPUT, (uint32_t)slot, planes, f->num_planes,
				f->id);
	if (ret)
		return ret;
	e->slot[slot] = (struct frame_slot){ .busy = true, .last_fd = f->fd[0], .id = f->id };
	e->pending++;
	return 0;
}

/* Frames the encoder is done with, back in their slots; with @timeout_ms,
 * until the one of @id is. */
static int reap_frames(struct llmem_encoder *e, int timeout_ms, const uint64_t *id)
{
	for (;;) {
		struct llmem_codec_buffer b;
		bool wanted = false;
		int ret;

		for (uint32_t i = 0; id && i < e->info.frames; i++)
			wanted |= e->slot[i].busy && e->slot[i].id == *id;
		if (id && !wanted)
			return 0;
		ret = llmem_codec_dequeue(e->codec, LLMEM_CODEC_OUTPUT, id ? timeout_ms : 0, &b);
		if (!id && (ret == -ETIMEDOUT || ret == -EAGAIN))
			return 0;
		if (ret)
			return ret;
		e->slot[b.index].busy = false;
	}
}

/* One bitstream buffer in the encoder, so that the next job runs here and
 * not at the next push. */
static int queue_bitstream(struct llmem_encoder *e)
{
	int free = -1, ret;

	for (uint32_t i = 0; i < e->info.bitstream_buffers; i++) {
		if (e->bits_queued[i])
			return 0;
		if (!e->bits_held[i] && free < 0)
			free = (int)i;
	}
	if (free < 0)
		return llmem_error(-EAGAIN, "encoder pull: every bitstream buffer is held: "
					    "release a packet first");
	ret = llmem_codec_queue(e->codec, LLMEM_CODEC_CAPTURE, (uint32_t)free,
				&(struct llmem_codec_plane){ .fd = e->bits[free].fd }, 1, 0);
	e->bits_queued[free] = !ret;
	return ret;
}

/* Where the driver does not flag keyframes (vicodec), FWHT says it itself. */
static bool is_keyframe(const struct llmem_encoder *e, const struct llmem_codec_buffer *b)
{
	uint32_t width, height, flags;
	const uint8_t *data = e->bits[b->index].map;

	if (b->flags & LLMEM_CODEC_BUF_KEYFRAME)
		return true;
	if (e->info.coded.fourcc != V4L2_PIX_FMT_FWHT ||
	    !llmem_fwht_frame_size(data, b->bytesused[0]))
		return false;
	llmem_fwht_frame_header(data, &width, &height, &flags);
	return flags & V4L2_FWHT_FL_I_FRAME;
}

LLMEM_PUBLIC int llmem_encoder_pull(struct llmem_encoder *e, int timeout_ms,
				    struct llmem_codec_packet *packet)
{
	struct llmem_codec_buffer b;
	int ret;

	if (!e || !packet)
		return llmem_error(-EINVAL, "encoder pull: NULL %s", e ? "packet" : "encoder");
	if (e->ended)
		return -ENODATA;
	ret = reap_frames(e, 0, NULL);
	if (!ret && !e->pending && !e->draining)
		return llmem_error(-EAGAIN, "encoder pull: no frame was pushed");
	if (!ret)
		ret = queue_bitstream(e);
	if (!ret)
		ret = llmem_codec_dequeue(e->codec, LLMEM_CODEC_CAPTURE, timeout_ms, &b);
	if (ret)
		return ret;
	e->bits_queued[b.index] = false;
	e->ended = b.flags & LLMEM_CODEC_BUF_LAST;
	if (!b.bytesused[0] && e->ended)
		return -ENODATA;
	e->pending -= e->pending > 0;
	ret = reap_frames(e, timeout_ms, &b.timestamp_us);
	if (ret)
		return ret;
	llmem_buffer_invalidate(e->bits[b.index].buffer, 0, LLMEM_WHOLE_SIZE);
	e->bits_held[b.index] = true;
	*packet = (struct llmem_codec_packet){
		.data = e->bits[b.index].map,
		.buffer = e->bits[b.index].buffer,
		.fd = e->bits[b.index].fd,
		.size = b.bytesused[0],
		.index = b.index,
		.flags = b.flags | (is_keyframe(e, &b) ? LLMEM_CODEC_BUF_KEYFRAME : 0),
		.sequence = b.sequence,
		.id = b.timestamp_us,
	};
	return 0;
}

LLMEM_PUBLIC int llmem_encoder_release_packet(struct llmem_encoder *e,
					      const struct llmem_codec_packet *packet)
{
	if (!e || !packet)
		return llmem_error(-EINVAL, "encoder release: NULL %s", e ? "packet" : "encoder");
	if (packet->index >= e->info.bitstream_buffers || !e->bits_held[packet->index])
		return llmem_error(-EINVAL, "encoder release: bitstream buffer %u is not held",
				   packet->index);
	e->bits_held[packet->index] = false;
	return 0;
}

LLMEM_PUBLIC int llmem_encoder_encode(struct llmem_encoder *e,
				      const struct llmem_codec_frame *frame, int timeout_ms,
				      struct llmem_codec_packet *packet)
{
	int ret = llmem_encoder_push(e, frame);

	return ret ? ret : llmem_encoder_pull(e, timeout_ms, packet);
}

LLMEM_PUBLIC int llmem_encoder_drain(struct llmem_encoder *e)
{
	int ret;

	if (!e)
		return llmem_error(-EINVAL, "encoder drain: NULL encoder");
	if (e->draining)
		return llmem_error(-EINVAL, "encoder drain: asked for already");
	ret = llmem_codec_drain(e->codec);
	if (ret)
		return ret;
	e->draining = true;
	return 0;
}
