// SPDX-License-Identifier: MIT
/*
 * `llmem display`'s decoder: an FWHT bitstream decoded by the library's
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

#include <llmem/codec.h>
#include <llmem/display.h>
#include <llmem/error.h>
#include <llmem/memory.h>

#include "display_source.h"
#include "emit.h"

/* Decoded frames: one on screen, one committed next, two for the decoder. */
#define FRAME_BUFS 4
/* Converted frames: one on screen while the next is converted. */
#define RGBA_BUFS 2

struct decode_source {
	struct display_source base;
	struct llmem_bitstream *source;
	struct llmem_decoder *dec;
	struct llmem_decoder_info info;
	/* The frames on screen or committed, shown as decoded, by slot. */
	struct llmem_codec_frame shown[FRAME_BUFS];
	const char *path;
	bool converted, ended;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem display: %s: %s\n", what, llmem_last_error());
	return err;
}

/* Feeds the stream until the decoder knows its format; the frames are
 * shown from the buffers it makes in that format. */
static int decode_start(struct display_source *s)
{
	struct decode_source *d = (struct decode_source *)s;
	struct llmem_buffer *decoded;
	int ret;

	ret = llmem_decoder_start(d->dec, DISPLAY_TIMEOUT_MS);
	if (ret)
		return fail(ret, "the stream's format");
	llmem_decoder_get_info(d->dec, &d->info);
	if (!(d->info.flags & LLMEM_DECODER_CONVERT)) {
		fprintf(stderr,
			"llmem display: %s: the stream decodes into %.4s, which is neither "
			"XRGB8888, which the display scans out, nor Y'CbCr 4:2:0 or 4:2:2, which "
			"the device converts\n",
			d->base.name, (const char *)&d->info.format.fourcc);
		return -ENOTSUP;
	}
	if (d->info.format.width != s->width || d->info.format.height != s->height) {
		fprintf(stderr,
			"llmem display: %s decodes the %ux%u stream as %ux%u; shown are frames "
			"of the stream's size\n",
			d->info.device, s->width, s->height, d->info.format.width,
			d->info.format.height);
		return -ENOTSUP;
	}
	s->layout = d->info.rgba_layout;
	s->buffer_count = d->info.rgba_buffers;
	for (uint32_t i = 0; i < s->buffer_count; i++) {
		ret = llmem_decoder_rgba_buffer(d->dec, i, &s->buffers[i]);
		if (ret)
			return fail(ret, "the frames shown");
	}
	ret = llmem_decoder_frame_buffer(d->dec, 0, &decoded);
	d->converted = !ret && decoded != s->buffers[0];
	return ret ? fail(ret, "the decoded frames") : 0;
}

static int decode_next(struct display_source *s, struct display_frame *f)
{
	struct decode_source *d = (struct decode_source *)s;
	struct llmem_codec_frame frame;
	int ret;

	if (d->ended)
		return 1;
	ret = llmem_decoder_next(d->dec, DISPLAY_TIMEOUT_MS, &frame);
	if (ret == -ENODATA) {
		d->ended = true;
		return 1;
	}
	if (ret)
		return fail(ret, "decoded frame");
	if (frame.generation != 1) {
		llmem_decoder_release(d->dec, &frame);
		fprintf(stderr,
			"llmem display: %s: the stream changes format after frame %llu, which "
			"the display does not follow\n",
			d->base.name, (unsigned long long)frame.id - 1);
		return -ENOTSUP;
	}
	*f = (struct display_frame){ .index = frame.rgba_index,
				     .data = frame.rgba_data,
				     .slot = frame.index };
	if (frame.rgba == frame.buffer[0]) {
		/* Shown as decoded: it goes back once off screen. */
		d->shown[frame.index] = frame;
		return 0;
	}
	/* Converted: the decoded frame goes back to the decoder at once. */
	ret = llmem_decoder_release(d->dec, &frame);
	return ret ? fail(ret, "give the frame back") : 0;
}

static int decode_release(struct display_source *s, const struct display_frame *f)
{
	struct decode_source *d = (struct decode_source *)s;
	struct llmem_codec_frame *frame = &d->shown[f->slot];
	int ret;

	if (!frame->rgba)
		return 0;
	ret = llmem_decoder_release(d->dec, frame);
	frame->rgba = NULL;
	return ret ? fail(ret, "give the frame back") : 0;
}

static int decode_stop(struct display_source *s)
{
	(void)s;
	return 0;
}

static void decode_emit(const struct display_source *s, struct emit *e)
{
	const struct decode_source *d = (const struct decode_source *)s;
	struct llmem_decoder_info info;

	llmem_decoder_get_info(d->dec, &info);
	emit_object(e, "decoder");
	emit_string(e, "input", d->path);
	emit_string(e, "device", info.device);
	emit_string(e, "driver", info.driver);
	emit_fourcc(e, "format", info.format.fourcc);
	emit_bool(e, "converted", d->converted);
	emit_string(e, "backend", llmem_backend_name(info.backend));
	emit_uint(e, "input_frames", info.units_fed);
	emit_end(e);
}

static void decode_close(struct display_source *s)
{
	struct decode_source *d = (struct decode_source *)s;

	llmem_decoder_close(d->dec);
	llmem_bitstream_close(d->source);
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
	struct llmem_participant plane;
	struct llmem_decoder_create_info dci = {
		.device = args->decoder,
		.frames = FRAME_BUFS,
		.flags = LLMEM_DECODER_CONVERT | LLMEM_DECODER_SHARED_RGBA,
		.rgba_fourcc = DRM_FORMAT_XRGB8888,
		.rgba_buffers = RGBA_BUFS,
		.rgba_participants = &plane,
		.num_rgba_participants = 1,
	};
	struct llmem_bitstream_info src;
	int ret;

	if (!d) {
		fprintf(stderr, "llmem display: out of memory\n");
		return -ENOMEM;
	}
	d->base = (struct display_source){ .ops = &decode_ops, .key = "decoder" };
	d->path = args->file;
	ret = llmem_bitstream_open_fwht(args->file, &d->source);
	/* The frames shown, decoded or converted, are laid out for the plane
	 * that scans them out. */
	if (!ret)
		ret = llmem_participant_kms_plane(args->display, 0, &plane);
	if (!ret) {
		llmem_bitstream_get_info(d->source, &src);
		d->base.width = src.width;
		d->base.height = src.height;
		d->base.frames =
			args->frames && args->frames < src.units ? args->frames : src.units;
		dci.source = d->source;
		ret = llmem_decoder_open(session, &dci, &d->dec);
	}
	if (ret) {
		fprintf(stderr, "llmem display: %s\n", llmem_last_error());
		decode_close(&d->base);
		return ret;
	}
	llmem_decoder_get_info(d->dec, &d->info);
	snprintf(d->base.name, sizeof(d->base.name), "%s decoded by %s (%s)", args->file,
		 d->info.device, d->info.driver);
	*out = &d->base;
	return 0;
}
