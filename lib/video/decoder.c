// SPDX-License-Identifier: MIT
/*
 * The decoder object (codec.h): a stateful decoder fed from a bitstream
 * source into llmem buffers, as dev-decoder.rst lays the protocol out.  The
 * source is read into whichever bitstream buffer the decoder gave back,
 * while the caller waits for a frame: a decoder that needs several units
 * before its first frame gets them, and the drain is asked for once the
 * whole source is queued.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/error.h>

#include "base/error.h"
#include "base/export.h"
#include "video/codec.h"
#include "video/decoder.h"
#include "video/negotiation.h"

static bool power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int check_info(const struct llmem_decoder_create_info *ci)
{
	uint32_t known = LLMEM_DECODER_CONVERT | LLMEM_DECODER_SHARED_RGBA;
	uint32_t rgba = ci->rgba_fourcc;

	if (!ci->source)
		return llmem_error(-EINVAL, "decoder open: no bitstream source");
	if (ci->flags & ~known)
		return llmem_error(-EINVAL, "decoder open: unknown flags 0x%x", ci->flags & ~known);
	if (ci->frames > LLMEM_CODEC_MAX_FRAMES)
		return llmem_error(-EINVAL, "decoder open: %u frames; at most %u", ci->frames,
				   LLMEM_CODEC_MAX_FRAMES);
	if (ci->bitstream_buffers > LLMEM_CODEC_MAX_BITSTREAM_BUFFERS)
		return llmem_error(-EINVAL, "decoder open: %u bitstream buffers; at most %u",
				   ci->bitstream_buffers, LLMEM_CODEC_MAX_BITSTREAM_BUFFERS);
	if (ci->rgba_buffers > LLMEM_DECODER_MAX_RGBA_BUFFERS)
		return llmem_error(-EINVAL, "decoder open: %u RGBA buffers; at most %u",
				   ci->rgba_buffers, LLMEM_DECODER_MAX_RGBA_BUFFERS);
	if (rgba && rgba != DRM_FORMAT_ABGR8888 && rgba != DRM_FORMAT_XRGB8888 &&
	    rgba != DRM_FORMAT_ARGB8888)
		return llmem_error(-EINVAL,
				   "decoder open: RGBA fourcc %.4s; the shaders write "
				   "AB24, XR24 and AR24",
				   (const char *)&rgba);
	if (ci->rgba_pitch_alignment && !power_of_two(ci->rgba_pitch_alignment))
		return llmem_error(-EINVAL,
				   "decoder open: RGBA pitch alignment %u is no power "
				   "of two",
				   ci->rgba_pitch_alignment);
	if ((ci->num_rgba_participants && !ci->rgba_participants) ||
	    ci->num_rgba_participants > LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2)
		return llmem_error(-EINVAL, "decoder open: %u RGBA participants%s; at most %u",
				   ci->num_rgba_participants,
				   ci->rgba_participants ? "" : " at NULL",
				   LLMEM_NEGOTIATE_MAX_PARTICIPANTS - 2);
	return 0;
}

/* The RGBA participants take a layout at the stream's first size, or the
 * open fails naming who refuses: the real one is laid out at each format
 * followed (decoder_frames.c). */
static int check_rgba_participants(struct llmem_decoder *d, const struct llmem_bitstream_info *src)
{
	uint32_t fourcc = d->ci.rgba_fourcc ? d->ci.rgba_fourcc : DRM_FORMAT_ABGR8888;
	struct llmem_negotiated n;

	if (!d->ci.num_rgba_participants)
		return 0;
	memcpy(d->rgba_participants, d->ci.rgba_participants,
	       d->ci.num_rgba_participants * sizeof(*d->rgba_participants));
	d->ci.rgba_participants = d->rgba_participants;
	return llmem_video_negotiate(d->session, NULL, "the decoder's RGBA pitch alignment",
				     d->ci.rgba_pitch_alignment, d->rgba_participants,
				     d->ci.num_rgba_participants, fourcc, src->width, src->height,
				     &n);
}

static int open_node(struct llmem_decoder *d, const struct llmem_bitstream_info *src)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_DECODER,
					    .coded_fourcc = src->coded_fourcc };
	int ret;

	if (d->ci.device)
		snprintf(d->info.device, sizeof(d->info.device), "%s", d->ci.device);
	else if ((ret = llmem_codec_find(&fi, d->info.device, sizeof(d->info.device))))
		return ret;
	d->ci.device = NULL;
	ret = llmem_codec_open(d->info.device, &d->codec);
	if (ret)
		return ret;
	snprintf(d->info.driver, sizeof(d->info.driver), "%s", llmem_codec_driver(d->codec));
	if (llmem_codec_kind(d->codec) != LLMEM_CODEC_DECODER)
		return llmem_error(-ENODEV, "%s (%s) is no stateful decoder", d->info.device,
				   d->info.driver);
	return 0;
}

/* The bitstream format of the source's first frame, and buffers that hold
 * its largest unit as well as the size the driver asks for. */
static int setup_bitstream(struct llmem_decoder *d, const struct llmem_bitstream_info *src)
{
	struct llmem_codec_format want = { .fourcc = src->coded_fourcc,
					   .width = src->width,
					   .height = src->height };
	struct llmem_codec_format got;
	uint64_t size;
	int ret;

	ret = llmem_codec_set_format(d->codec, LLMEM_CODEC_OUTPUT, &want, &got);
	if (!ret)
		ret = llmem_codec_request_exactly(d->codec, LLMEM_CODEC_OUTPUT,
						  LLMEM_V4L2_MEMORY_DMABUF, d->ci.bitstream_buffers,
						  "bitstream slots");
	size = got.sizeimage[0] > src->max_unit ? got.sizeimage[0] : src->max_unit;
	for (uint32_t i = 0; !ret && i < d->ci.bitstream_buffers; i++) {
		ret = llmem_codec_memory_alloc(d->session, d->ci.backend, size, true, "bitstream",
					       &d->bits[i]);
		d->bits_free |= 1u << i;
	}
	return ret;
}

LLMEM_PUBLIC int llmem_decoder_open(struct llmem_session *session,
				    const struct llmem_decoder_create_info *info,
				    struct llmem_decoder **out)
{
	struct llmem_bitstream_info src;
	struct llmem_decoder *d;
	int ret;

	if (!session || !info || !out)
		return llmem_error(-EINVAL, "decoder open: NULL %s",
				   !session ? "session"
				   : !info  ? "info"
					    : "out");
	ret = check_info(info);
	if (!ret)
		ret = llmem_bitstream_get_info(info->source, &src);
	if (ret)
		return ret;
	d = calloc(1, sizeof(*d));
	if (!d)
		return llmem_error(-ENOMEM, "decoder open: out of memory");
	d->session = session;
	d->source = info->source;
	d->units = src.units - src.read;
	d->ci = *info;
	d->ci.frames = info->frames ? info->frames : 3;
	d->ci.bitstream_buffers = info->bitstream_buffers ? info->bitstream_buffers : 2;
	d->ci.rgba_buffers = info->rgba_buffers ? info->rgba_buffers : 1;
	d->info.frames = d->ci.frames;
	d->info.flags = d->ci.flags;
	ret = check_rgba_participants(d, &src);
	if (!ret)
		ret = open_node(d, &src);
	if (!ret)
		ret = setup_bitstream(d, &src);
	if (ret) {
		llmem_decoder_close(d);
		return ret;
	}
	*out = d;
	return 0;
}

LLMEM_PUBLIC void llmem_decoder_close(struct llmem_decoder *d)
{
	if (!d)
		return;
	/* The driver lets go of every DMA-BUF before they are freed. */
	llmem_codec_close(d->codec);
	for (uint32_t i = 0; i < LLMEM_CODEC_MAX_BITSTREAM_BUFFERS; i++)
		llmem_codec_memory_free(&d->bits[i]);
	llmem_decoder_free_frames(d);
	free(d);
}

LLMEM_PUBLIC int llmem_decoder_get_info(const struct llmem_decoder *d,
					struct llmem_decoder_info *info)
{
	if (!d || !info)
		return llmem_error(-EINVAL, "decoder info: NULL %s", d ? "info" : "decoder");
	*info = d->info;
	return 0;
}

/*
 * Takes back the bitstream slots the decoder is done with, fills them from
 * the source and, once all of it is queued and both queues stream, asks
 * for the drain (once).
 */
static int feed(struct llmem_decoder *d)
{
	struct llmem_codec_buffer b;
	int ret;

	while (d->started && !(ret = llmem_codec_dequeue(d->codec, LLMEM_CODEC_OUTPUT, 0, &b)))
		d->bits_free |= 1u << b.index;
	if (d->started && ret != -ETIMEDOUT && ret != -EAGAIN)
		return ret;
	while (d->bits_free && d->info.units_fed < d->units) {
		uint32_t slot = (uint32_t)__builtin_ctz(d->bits_free);
		struct llmem_codec_plane p = { .fd = d->bits[slot].fd };
		size_t len;

		ret = llmem_bitstream_read(d->source, d->bits[slot].map, d->bits[slot].size, &len);
		if (ret == -ENODATA) {
			/* The caller read the rest of the source itself. */
			d->units = d->info.units_fed;
			break;
		}
		if (ret)
			return ret;
		llmem_buffer_flush(d->bits[slot].buffer, 0, LLMEM_WHOLE_SIZE);
		p.bytesused = (uint32_t)len;
		ret = llmem_codec_queue(d->codec, LLMEM_CODEC_OUTPUT, slot, &p, 1,
					d->info.units_fed);
		if (ret)
			return ret;
		d->bits_free &= ~(1u << slot);
		d->info.units_fed++;
	}
	if (d->draining || d->info.units_fed < d->units ||
	    llmem_codec_state(d->codec) != LLMEM_CODEC_STREAMING)
		return 0;
	ret = llmem_codec_drain(d->codec);
	d->draining = !ret;
	return ret;
}

LLMEM_PUBLIC int llmem_decoder_start(struct llmem_decoder *d, int timeout_ms)
{
	uint32_t ev;
	int ret;

	if (!d)
		return llmem_error(-EINVAL, "decoder start: NULL decoder");
	if (d->started)
		return 0;
	ret = feed(d);
	if (!ret)
		ret = llmem_codec_stream_on(d->codec, LLMEM_CODEC_OUTPUT);
	if (ret)
		return ret;
	d->started = true;
	ret = llmem_codec_wait_event(d->codec, timeout_ms, &ev);
	if (ret)
		return ret;
	if (ev != LLMEM_CODEC_EVENT_SOURCE_CHANGE)
		return llmem_error(-EIO, "%s: the stream ended before the decoder found a frame",
				   d->info.device);
	return llmem_decoder_follow_format(d);
}

LLMEM_PUBLIC int llmem_decoder_frame_buffer(const struct llmem_decoder *d, uint32_t index,
					    struct llmem_buffer **out)
{
	if (!d || !out)
		return llmem_error(-EINVAL, "decoder frame buffer: NULL %s", d ? "out" : "decoder");
	if (!d->info.source_changes || index >= d->info.frames)
		return llmem_error(-EINVAL, "decoder frame buffer %u: %s", index,
				   d->info.source_changes ? "past the frames"
							  : "the decoder has not started");
	*out = d->frames[0][index].buffer;
	return 0;
}

LLMEM_PUBLIC int llmem_decoder_rgba_buffer(const struct llmem_decoder *d, uint32_t index,
					   struct llmem_buffer **out)
{
	if (!d || !out)
		return llmem_error(-EINVAL, "decoder RGBA buffer: NULL %s", d ? "out" : "decoder");
	if (!(d->info.flags & LLMEM_DECODER_CONVERT) || index >= d->info.rgba_buffers)
		return llmem_error(-EINVAL, "decoder RGBA buffer %u: %s", index,
				   !d->info.source_changes ? "the decoder has not started"
				   : !(d->info.flags & LLMEM_DECODER_CONVERT) ? "no conversion"
									      : "past them");
	*out = d->rgba_is_decoded ? d->frames[0][index].buffer : d->rgba[index].buffer;
	return 0;
}

/* The next CAPTURE buffer, the source fed while waiting for it. */
static int wait_capture(struct llmem_decoder *d, int timeout_ms, struct llmem_codec_buffer *b)
{
	int64_t deadline = timeout_ms < 0 ? -1 : llmem_codec_now_ns() / 1000000 + timeout_ms;

	for (;;) {
		int ret = feed(d);

		if (!ret)
			ret = llmem_codec_dequeue(d->codec, LLMEM_CODEC_CAPTURE, 0, b);
		if (ret != -ETIMEDOUT)
			return ret;
		/* An OUTPUT buffer back matters only while there is more to feed. */
		ret = llmem_codec_wait_for(
			d->codec, POLLIN | (d->info.units_fed < d->units ? POLLOUT : 0), deadline);
		if (ret == -ETIMEDOUT)
			return llmem_error(-ETIMEDOUT, "%s: no frame within %d ms", d->info.device,
					   timeout_ms);
		if (ret == 1)
			return llmem_codec_dequeue(d->codec, LLMEM_CODEC_CAPTURE, 0, b);
		if (ret < 0)
			return ret;
	}
}

static int requeue(struct llmem_decoder *d, uint32_t index)
{
	struct llmem_codec_plane planes[LLMEM_V4L2_MAX_MEM_PLANES];

	for (uint32_t p = 0; p < d->info.format.num_planes; p++)
		planes[p] = (struct llmem_codec_plane){ .fd = d->frames[p][index].fd };
	return llmem_codec_queue(d->codec, LLMEM_CODEC_CAPTURE, index, planes,
				 d->info.format.num_planes, 0);
}

/* What the caller gets of the buffer in slot b->index. */
static int hand_out(struct llmem_decoder *d, const struct llmem_codec_buffer *b,
		    struct llmem_codec_frame *frame)
{
	uint32_t i = b->index;
	int ret;

	memset(frame, 0, sizeof(*frame));
	frame->num_planes = d->info.format.num_planes;
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++) {
		frame->fd[p] = p < frame->num_planes ? d->frames[p][i].fd : -1;
		frame->buffer[p] = d->frames[p][i].buffer;
		frame->data[p] = d->frames[p][i].map;
		frame->bytesused[p] = b->bytesused[p];
		if (d->frames[p][i].buffer)
			llmem_buffer_invalidate(d->frames[p][i].buffer, 0, LLMEM_WHOLE_SIZE);
	}
	frame->id = b->timestamp_us;
	frame->index = i;
	frame->flags = b->flags;
	frame->sequence = b->sequence;
	frame->generation = d->info.source_changes;
	ret = llmem_decoder_convert(d, i, frame);
	if (ret) {
		/* The frame goes back to the decoder: the caller never had it. */
		if (!d->ended)
			requeue(d, i);
		return ret;
	}
	d->held[i] = true;
	d->nheld++;
	d->frames_in_format++;
	d->info.frames_decoded++;
	return 0;
}

/* A source change is followed once the caller let go of the old frames. */
static int follow_change(struct llmem_decoder *d)
{
	if (d->nheld)
		return llmem_error(-EBUSY,
				   "%s: the stream changes format; release the %u "
				   "frame%s held first",
				   d->info.device, d->nheld, d->nheld == 1 ? "" : "s");
	memset(d->held, 0, sizeof(d->held));
	return llmem_decoder_follow_format(d);
}

LLMEM_PUBLIC int llmem_decoder_next(struct llmem_decoder *d, int timeout_ms,
				    struct llmem_codec_frame *frame)
{
	struct llmem_codec_buffer b;
	int ret;

	if (!d || !frame)
		return llmem_error(-EINVAL, "decoder next: NULL %s", d ? "frame" : "decoder");
	ret = llmem_decoder_start(d, timeout_ms);
	while (!ret) {
		if (d->ended)
			return -ENODATA;
		if (llmem_codec_state(d->codec) == LLMEM_CODEC_SOURCE_CHANGE) {
			ret = follow_change(d);
			continue;
		}
		if (d->nheld == d->info.frames)
			return llmem_error(-EBUSY, "%s: all %u frames are held: release one first",
					   d->info.device, d->info.frames);
		ret = wait_capture(d, timeout_ms, &b);
		if (ret)
			break;
		d->ended = (b.flags & LLMEM_CODEC_BUF_LAST) &&
			   llmem_codec_state(d->codec) != LLMEM_CODEC_SOURCE_CHANGE;
		if (b.bytesused[0])
			return hand_out(d, &b, frame);
		/* An empty buffer ends a drain or announces a change; any other
		 * goes back. */
		if (!(b.flags & LLMEM_CODEC_BUF_LAST))
			ret = requeue(d, b.index);
	}
	return ret;
}

LLMEM_PUBLIC int llmem_decoder_release(struct llmem_decoder *d,
				       const struct llmem_codec_frame *frame)
{
	if (!d || !frame)
		return llmem_error(-EINVAL, "decoder release: NULL %s", d ? "frame" : "decoder");
	if (frame->index >= d->info.frames || !d->held[frame->index] ||
	    frame->generation != d->info.source_changes)
		return llmem_error(-EINVAL, "decoder release: frame %u is not held", frame->index);
	d->held[frame->index] = false;
	d->nheld--;
	/* After the last frame, or that of a format being left, nothing more
	 * is decoded into it. */
	if (d->ended || llmem_codec_state(d->codec) == LLMEM_CODEC_SOURCE_CHANGE)
		return 0;
	return requeue(d, frame->index);
}
