// SPDX-License-Identifier: MIT
/*
 * `llmem display`'s decoder: an FWHT bitstream decoded by a V4L2 stateful
 * decoder into llmem buffers it takes as DMA-BUFs.  A stream of RGB pixels
 * with four components is decoded as XBGR32, which is DRM's XRGB8888 in
 * memory: the display scans out the very buffer the decoder wrote.  A
 * Y'CbCr stream is decoded as NV12 (4:2:0) or YUYV (4:2:2), which
 * displays such as vkms do not scan out, and converted on the device into
 * one of two shared XRGB8888 buffers.  No byte is copied by the CPU on
 * either path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/convert.h>
#include <llmem/error.h>
#include <llmem/frame.h>
#include <llmem/memory.h>

#include "codec_bufs.h"
#include "display_source.h"
#include "emit.h"
#include "fwht_feed.h"

/* Decoded frames: one on screen, one committed next, two for the decoder. */
#define FRAME_BUFS 4
/* Converted frames: one on screen while the next is converted. */
#define RGBA_BUFS 2

struct decode_source {
	struct display_source base;
	struct fwht_feed feed;
	/* V4L2 fourcc asked of the decoder; whether it is converted. */
	uint32_t fourcc;
	bool convert;
	struct llmem_session *session;
	struct codec_buf frame[FRAME_BUFS], rgba[RGBA_BUFS];
	struct llmem_frame_layout decoded; /* where the decoder writes */
	uint32_t next_rgba;
	bool ended;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem display: %s: %s\n", what, llmem_last_error());
	return err;
}

/*
 * What the decoder is asked to write, from the first frame's header: the
 * decoder gives only formats of the stream's encoding, components and
 * chroma subsampling.
 */
static int choose_format(struct decode_source *d)
{
	uint32_t flags = d->feed.flags;
	/* The uapi's masks use GENMASK, which userspace lacks. */
	uint32_t pixenc = (flags >> V4L2_FWHT_FL_PIXENC_OFFSET) & 3;
	uint32_t components = ((flags >> V4L2_FWHT_FL_COMPONENTS_NUM_OFFSET) & 7) + 1;

	if (pixenc == V4L2_FWHT_FL_PIXENC_RGB >> V4L2_FWHT_FL_PIXENC_OFFSET && components == 4) {
		d->fourcc = V4L2_PIX_FMT_XBGR32;
		return 0;
	}
	if (pixenc == V4L2_FWHT_FL_PIXENC_YUV >> V4L2_FWHT_FL_PIXENC_OFFSET && components == 3 &&
	    !(flags & V4L2_FWHT_FL_CHROMA_FULL_WIDTH)) {
		d->fourcc = flags & V4L2_FWHT_FL_CHROMA_FULL_HEIGHT ? V4L2_PIX_FMT_YUYV
								    : V4L2_PIX_FMT_NV12;
		d->convert = true;
		return 0;
	}
	fprintf(stderr,
		"llmem display: %s: the stream is neither RGB of four components, which the "
		"decoder writes as XRGB8888, nor Y'CbCr 4:2:0 or 4:2:2, which the device "
		"converts (flags 0x%x)\n",
		d->feed.path, flags);
	return -ENOTSUP;
}

static int queue_frame(struct decode_source *d, uint32_t index)
{
	struct llmem_codec_plane p = { .fd = d->frame[index].fd };
	int ret = llmem_codec_queue(d->feed.dec, LLMEM_CODEC_CAPTURE, index, &p, 1, 0);

	return ret ? fail(ret, "queue frame buffer") : 0;
}

/* The decoded frames' buffers, and where they are shown from. */
static int make_frames(struct decode_source *d, const struct llmem_codec_format *f)
{
	struct llmem_frame_constraints c = { .pitch = f->bytesperline[0],
					     .min_size = f->sizeimage[0] };
	struct llmem_frame_constraints rc = { .pitch_alignment = DISPLAY_PITCH_ALIGNMENT };
	int ret;

	ret = llmem_frame_layout_init(f->fourcc, f->width, f->height, &c, &d->decoded);
	if (ret)
		return fail(ret, "decoded frame layout");
	ret = llmem_codec_request_buffers(d->feed.dec, LLMEM_CODEC_CAPTURE,
					  LLMEM_V4L2_MEMORY_DMABUF, FRAME_BUFS);
	if (ret >= 0 && ret < FRAME_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "frame slots");
	for (uint32_t i = 0; i < FRAME_BUFS; i++) {
		ret = codec_buf_alloc(d->session, 0, (uint32_t)d->decoded.size, "decoded",
				      &d->frame[i]);
		if (!ret)
			ret = queue_frame(d, i);
		if (ret)
			return ret;
	}
	if (!d->convert) {
		/* XBGR32 is XRGB8888 in memory: the frames are shown as decoded. */
		d->base.layout = d->decoded;
		d->base.buffer_count = FRAME_BUFS;
		for (uint32_t i = 0; i < FRAME_BUFS; i++)
			d->base.buffers[i] = d->frame[i].buffer;
		return 0;
	}
	ret = llmem_frame_layout_init(DRM_FORMAT_XRGB8888, f->width, f->height, &rc,
				      &d->base.layout);
	if (ret)
		return fail(ret, "converted frame layout");
	d->base.buffer_count = RGBA_BUFS;
	for (uint32_t i = 0; i < RGBA_BUFS; i++) {
		ret = codec_buf_alloc(d->session, 0, (uint32_t)d->base.layout.size, "converted",
				      &d->rgba[i]);
		if (ret)
			return ret;
		d->base.buffers[i] = d->rgba[i].buffer;
	}
	return 0;
}

/* Feeds the stream until the decoder knows its format, then sets up the
 * decoded frames in that format. */
static int decode_start(struct display_source *s)
{
	struct decode_source *d = (struct decode_source *)s;
	struct llmem_codec *dec = d->feed.dec;
	struct llmem_codec_format want, got;
	uint32_t ev;
	int ret;

	ret = fwht_feed_prime(&d->feed);
	if (ret)
		return ret;
	ret = llmem_codec_stream_on(dec, LLMEM_CODEC_OUTPUT);
	if (ret)
		return fail(ret, "start the bitstream");
	ret = llmem_codec_wait_event(dec, DISPLAY_TIMEOUT_MS, &ev);
	if (ret)
		return fail(ret, "the stream's format");
	ret = llmem_codec_get_format(dec, LLMEM_CODEC_CAPTURE, &want);
	if (ret)
		return fail(ret, "decoded format");
	want.fourcc = d->fourcc;
	ret = llmem_codec_set_format(dec, LLMEM_CODEC_CAPTURE, &want, &got);
	if (ret)
		return fail(ret, "decoded format");
	if (got.num_planes != 1 || got.width != s->width || got.height != s->height) {
		fprintf(stderr,
			"llmem display: %s decodes the %ux%u stream as %ux%u in %u planes; "
			"shown are frames of the stream's size in one\n",
			d->feed.node, s->width, s->height, got.width, got.height, got.num_planes);
		return -ENOTSUP;
	}
	ret = make_frames(d, &got);
	if (ret)
		return ret;
	ret = llmem_codec_stream_on(dec, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start decoding") : 0;
}

/* Converts decoded frame @index into the next RGBA buffer, and gives the
 * decoded one back to the decoder at once. */
static int convert(struct decode_source *d, uint32_t index, bool last, struct display_frame *f)
{
	struct llmem_convert_info ci = {
		.src = d->frame[index].buffer,
		.src_layout = &d->decoded,
		.dst = d->rgba[d->next_rgba].buffer,
		.dst_layout = &d->base.layout,
	};
	int ret = llmem_convert_to_rgba(&ci);

	if (ret)
		return fail(ret, "convert on the device");
	*f = (struct display_frame){ .index = d->next_rgba, .data = d->rgba[d->next_rgba].map };
	d->next_rgba = (d->next_rgba + 1) % RGBA_BUFS;
	return last ? 0 : queue_frame(d, index);
}

static int decode_next(struct display_source *s, struct display_frame *f)
{
	struct decode_source *d = (struct decode_source *)s;
	struct llmem_codec_buffer b;
	bool last;
	int ret;

	while (!d->ended) {
		ret = fwht_feed_step(&d->feed);
		if (ret)
			return ret;
		ret = llmem_codec_dequeue(d->feed.dec, LLMEM_CODEC_CAPTURE, DISPLAY_TIMEOUT_MS, &b);
		if (ret)
			return fail(ret, "decoded frame");
		last = b.flags & LLMEM_CODEC_BUF_LAST;
		if (last && llmem_codec_state(d->feed.dec) == LLMEM_CODEC_SOURCE_CHANGE) {
			fprintf(stderr,
				"llmem display: %s: the stream changes format after frame %u, "
				"which the display does not follow\n",
				d->feed.path, d->feed.fed_frames - 1);
			return -ENOTSUP;
		}
		d->ended = last;
		if (b.bytesused[0] && d->convert)
			return convert(d, b.index, last, f);
		if (b.bytesused[0]) {
			*f = (struct display_frame){ .index = b.index,
						     .data = d->frame[b.index].map,
						     .slot = b.index };
			return 0;
		}
		/* An empty buffer ends a drain; any other goes back. */
		if (!last && (ret = queue_frame(d, b.index)))
			return ret;
	}
	return 1;
}

/* A decoded frame shown as it is goes back to the decoder once off screen;
 * after the last there is nothing more to decode into it. */
static int decode_release(struct display_source *s, const struct display_frame *f)
{
	struct decode_source *d = (struct decode_source *)s;

	return d->convert || d->ended ? 0 : queue_frame(d, f->slot);
}

static int decode_stop(struct display_source *s)
{
	(void)s;
	return 0;
}

static void decode_emit(const struct display_source *s, struct emit *e)
{
	const struct decode_source *d = (const struct decode_source *)s;
	struct llmem_memory_info mi = { 0 };

	llmem_memory_get_info(d->frame[0].memory, &mi);
	emit_object(e, "decoder");
	emit_string(e, "input", d->feed.path);
	emit_string(e, "device", d->feed.node);
	emit_string(e, "driver", llmem_codec_driver(d->feed.dec));
	emit_fourcc(e, "format", d->fourcc);
	emit_bool(e, "converted", d->convert);
	emit_string(e, "backend", llmem_backend_name(mi.backend));
	emit_uint(e, "input_frames", d->feed.fed_frames);
	emit_end(e);
}

static void decode_close(struct display_source *s)
{
	struct decode_source *d = (struct decode_source *)s;

	fwht_feed_close(&d->feed);
	for (uint32_t i = 0; i < FRAME_BUFS; i++)
		codec_buf_free(&d->frame[i]);
	for (uint32_t i = 0; i < RGBA_BUFS; i++)
		codec_buf_free(&d->rgba[i]);
	free(d);
}

static const struct display_source_ops decode_ops = {
	.start = decode_start,
	.next = decode_next,
	.release = decode_release,
	.stop = decode_stop,
	.emit = decode_emit,
	.close = decode_close,
};

int display_decode_open(struct llmem_session *session, const struct display_decode_args *args,
			struct display_source **out)
{
	struct decode_source *d = calloc(1, sizeof(*d));
	int ret;

	if (!d) {
		fprintf(stderr, "llmem display: out of memory\n");
		return -ENOMEM;
	}
	d->base = (struct display_source){ .ops = &decode_ops, .key = "decoder" };
	d->session = session;
	ret = fwht_feed_open(&d->feed, "llmem display", args->file);
	if (!ret)
		ret = choose_format(d);
	if (!ret) {
		d->base.width = d->feed.width;
		d->base.height = d->feed.height;
		d->base.frames = d->feed.frames;
		if (args->frames && args->frames < d->feed.frames)
			d->base.frames = args->frames;
		ret = fwht_feed_open_decoder(&d->feed, session, args->decoder, 0);
	}
	if (!ret)
		snprintf(d->base.name, sizeof(d->base.name), "%s decoded by %s (%s)", d->feed.path,
			 d->feed.node, llmem_codec_driver(d->feed.dec));
	if (ret) {
		decode_close(&d->base);
		return ret;
	}
	*out = &d->base;
	return 0;
}
