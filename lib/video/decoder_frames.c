// SPDX-License-Identifier: MIT
/*
 * A decoder's frames in the format the stream needs now: the format chosen
 * from what the decoder offers for the stream, the frames laid out as the
 * driver asks and allocated in llmem memory, and the RGBA buffers of the
 * conversion.  All of it is made again at each source change.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/convert.h>
#include <llmem/error.h>
#include <llmem/memory.h>

#include "base/error.h"
#include "memory/frame.h"
#include "video/decoder.h"
#include "video/negotiation.h"
#include "video/v4l2.h"

static bool listed(uint32_t fourcc, const uint32_t *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fourcc == list[i])
			return true;
	return false;
}

/*
 * The format the shaders or a display read of the chroma subsampling and
 * components the decoder chose for the stream; the decoder's own choice
 * where none is.  The decoder offers every format until CAPTURE streams,
 * and one of other subsampling fails when decoding starts.
 */
static uint32_t readable_format(uint32_t offered)
{
	static const uint32_t yuv422[] = { V4L2_PIX_FMT_YUV422P, V4L2_PIX_FMT_NV16,
					   V4L2_PIX_FMT_NV61,	 V4L2_PIX_FMT_YUYV,
					   V4L2_PIX_FMT_YVYU,	 V4L2_PIX_FMT_UYVY,
					   V4L2_PIX_FMT_VYUY };
	static const uint32_t yuv420[] = { V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420,
					   V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_NV21 };
	static const uint32_t rgb32[] = { V4L2_PIX_FMT_BGR32,  V4L2_PIX_FMT_RGB32,
					  V4L2_PIX_FMT_XBGR32, V4L2_PIX_FMT_XRGB32,
					  V4L2_PIX_FMT_ABGR32, V4L2_PIX_FMT_ARGB32,
					  V4L2_PIX_FMT_BGRX32, V4L2_PIX_FMT_RGBX32,
					  V4L2_PIX_FMT_BGRA32, V4L2_PIX_FMT_RGBA32 };

	if (listed(offered, yuv422, sizeof(yuv422) / sizeof(yuv422[0])))
		return V4L2_PIX_FMT_YUYV;
	if (listed(offered, yuv420, sizeof(yuv420) / sizeof(yuv420[0])))
		return V4L2_PIX_FMT_NV12;
	if (listed(offered, rgb32, sizeof(rgb32) / sizeof(rgb32[0])))
		return V4L2_PIX_FMT_XBGR32;
	return offered;
}

void llmem_decoder_free_frames(struct llmem_decoder *d)
{
	for (uint32_t p = 0; p < LLMEM_V4L2_MAX_MEM_PLANES; p++)
		for (uint32_t i = 0; i < LLMEM_CODEC_MAX_FRAMES; i++)
			llmem_codec_memory_free(&d->frames[p][i]);
	for (uint32_t i = 0; i < LLMEM_DECODER_MAX_RGBA_BUFFERS; i++)
		llmem_codec_memory_free(&d->rgba[i]);
	d->next_rgba = 0;
	d->rgba_is_decoded = false;
}

/*
 * The frames' layout: the coded frame the CAPTURE format describes, the
 * picture its compose rectangle (dev-decoder.rst), which the conversion
 * and a display read.  A picture of an odd side in a format of pixel pairs
 * keeps the coded frame's next column or row.
 */
static int picture_layout(struct llmem_decoder *d, uint32_t drm)
{
	struct llmem_decoder_info *info = &d->info;
	const struct llmem_codec_format *f = &info->format;
	struct llmem_codec_rect pic = { .width = f->width, .height = f->height };
	struct llmem_frame_constraints c = { .pitch = f->bytesperline[0],
					     .min_size = f->sizeimage[0],
					     .coded_width = f->width,
					     .coded_height = f->height };
	uint32_t gw, gh;
	int ret;

	ret = llmem_codec_get_picture(d->codec, LLMEM_CODEC_CAPTURE, &pic);
	if (ret && ret != -ENOTSUP)
		return ret;
	if (pic.left || pic.top || !pic.width || !pic.height || pic.width > f->width ||
	    pic.height > f->height)
		return llmem_error(-ENOTSUP,
				   "%s composes a %ux%u picture at (%d,%d) in %ux%u frames: llmem "
				   "lays pictures out at the top left",
				   info->device, pic.width, pic.height, pic.left, pic.top, f->width,
				   f->height);
	llmem_frame_side_granules(drm, &gw, &gh);
	pic.width += pic.width % gw;
	pic.height += pic.height % gh;
	return llmem_frame_layout_init(drm, pic.width, pic.height, &c, &info->layout);
}

static int set_format(struct llmem_decoder *d)
{
	struct llmem_decoder_info *info = &d->info;
	struct llmem_codec_format want;
	uint32_t drm;
	int ret;

	ret = llmem_codec_follow_source_change(d->codec, &want);
	if (ret)
		return ret;
	/*
	 * A decoder that cannot write the stream into the format asked for
	 * (another chroma subsampling) says so with a source change of the same
	 * size before any frame: asking for it again would go round forever.
	 */
	if (d->ci.fourcc && info->source_changes && !d->frames_in_format &&
	    want.width == info->format.width && want.height == info->format.height)
		return llmem_error(-EINVAL,
				   "%s: the stream does not decode into %.4s (the decoder asks for "
				   "%.4s: another chroma subsampling)",
				   info->device, (const char *)&d->ci.fourcc,
				   (const char *)&want.fourcc);
	d->frames_in_format = 0;
	want.fourcc = d->ci.fourcc ? d->ci.fourcc : readable_format(want.fourcc);
	ret = llmem_codec_set_format(d->codec, LLMEM_CODEC_CAPTURE, &want, &info->format);
	if (ret)
		return ret;
	if (info->format.num_planes > LLMEM_V4L2_MAX_MEM_PLANES)
		return llmem_error(-ENOTSUP, "%s: %.4s comes in %u buffers; at most %u",
				   info->device, (const char *)&info->format.fourcc,
				   info->format.num_planes, LLMEM_V4L2_MAX_MEM_PLANES);
	memset(&info->layout, 0, sizeof(info->layout));
	drm = llmem_v4l2_drm_fourcc(info->format.fourcc);
	if (drm && info->format.num_planes == 1)
		ret = picture_layout(d, drm);
	return ret;
}

static int alloc_frames(struct llmem_decoder *d)
{
	const struct llmem_codec_format *f = &d->info.format;
	struct llmem_memory_info mi;
	int ret;

	ret = llmem_codec_request_exactly(d->codec, LLMEM_CODEC_CAPTURE, LLMEM_V4L2_MEMORY_DMABUF,
					  d->info.frames, "frame slots");
	for (uint32_t i = 0; !ret && i < d->info.frames; i++) {
		struct llmem_codec_plane planes[LLMEM_V4L2_MAX_MEM_PLANES];

		for (uint32_t p = 0; !ret && p < f->num_planes; p++) {
			ret = llmem_codec_memory_alloc(d->session, d->ci.backend, f->sizeimage[p],
						       true, "decoded", &d->frames[p][i]);
			planes[p] = (struct llmem_codec_plane){ .fd = d->frames[p][i].fd };
		}
		if (!ret)
			ret = llmem_codec_queue(d->codec, LLMEM_CODEC_CAPTURE, i, planes,
						f->num_planes, 0);
	}
	if (ret)
		return ret;
	llmem_memory_get_info(d->frames[0][0].memory, &mi);
	d->info.backend = mi.backend;
	return 0;
}

/*
 * The conversion's RGBA buffers where the shaders read the decoded format;
 * none where the stream is decoded into the RGBA format itself, or into one
 * the shaders do not read (the info's flags lose the conversion then).
 */
/* Whether the decoded frames, in @fourcc, meet every demand on the RGBA
 * frames: they are handed out as they are then. */
static bool decoded_is_rgba(const struct llmem_decoder_info *info, uint32_t fourcc,
			    const struct llmem_negotiated *n)
{
	const struct llmem_constraints *c = &n->constraints;
	const struct llmem_frame_layout *l = &info->layout;

	return l->num_planes && l->fourcc == fourcc &&
	       (!c->pitch_alignment || !(l->pitch[0] % c->pitch_alignment)) &&
	       (!c->pitch || l->pitch[0] == c->pitch) &&
	       (!c->max_pitch || l->pitch[0] <= c->max_pitch) && l->size >= n->layout.size;
}

/*
 * The conversion's RGBA buffers where the shaders read the decoded format;
 * none where the stream is decoded into the RGBA format itself, or into one
 * the shaders do not read (the info's flags lose the conversion then).
 * Their layout is negotiated for the conversion, the pitch alignment and
 * the participants the caller gave.
 */
static int alloc_rgba(struct llmem_decoder *d)
{
	struct llmem_decoder_info *info = &d->info;
	uint32_t fourcc = d->ci.rgba_fourcc ? d->ci.rgba_fourcc : DRM_FORMAT_ABGR8888;
	bool shared = d->ci.flags & LLMEM_DECODER_SHARED_RGBA;
	bool readable =
		info->layout.fourcc == DRM_FORMAT_YUYV || info->layout.fourcc == DRM_FORMAT_NV12;
	struct llmem_negotiated n;
	int ret;

	info->flags = d->ci.flags;
	info->rgba_buffers = 0;
	memset(&info->rgba_layout, 0, sizeof(info->rgba_layout));
	if (!(d->ci.flags & LLMEM_DECODER_CONVERT))
		return 0;
	ret = llmem_video_negotiate(
		d->session, NULL, "the decoder's RGBA pitch alignment", d->ci.rgba_pitch_alignment,
		d->ci.rgba_participants, d->ci.num_rgba_participants, fourcc,
		info->layout.num_planes ? info->layout.width : info->format.width,
		info->layout.num_planes ? info->layout.height : info->format.height, &n);
	if (ret)
		return ret;
	if (decoded_is_rgba(info, fourcc, &n)) {
		d->rgba_is_decoded = true;
		info->rgba_layout = info->layout;
		info->rgba_buffers = info->frames;
		return 0;
	}
	if (!readable) {
		info->flags &= ~(uint32_t)LLMEM_DECODER_CONVERT;
		return 0;
	}
	info->rgba_layout = n.layout;
	for (uint32_t i = 0; !ret && i < d->ci.rgba_buffers; i++)
		ret = llmem_codec_memory_alloc(d->session, d->ci.backend, info->rgba_layout.size,
					       shared, "rgba", &d->rgba[i]);
	if (!ret)
		info->rgba_buffers = d->ci.rgba_buffers;
	return ret;
}

int llmem_decoder_follow_format(struct llmem_decoder *d)
{
	int ret;

	/* The driver lets go of the old frames in follow_source_change(). */
	ret = set_format(d);
	if (!ret) {
		llmem_decoder_free_frames(d);
		ret = alloc_frames(d);
	}
	if (!ret)
		ret = alloc_rgba(d);
	if (!ret)
		ret = llmem_codec_stream_on(d->codec, LLMEM_CODEC_CAPTURE);
	if (!ret)
		d->info.source_changes++;
	return ret;
}

int llmem_decoder_convert(struct llmem_decoder *d, uint32_t index, struct llmem_codec_frame *frame)
{
	struct codec_memory *dst;
	struct llmem_convert_info ci;
	int ret;

	if (!(d->info.flags & LLMEM_DECODER_CONVERT))
		return 0;
	if (d->rgba_is_decoded) {
		frame->rgba = d->frames[0][index].buffer;
		frame->rgba_data = d->frames[0][index].map;
		frame->rgba_index = index;
		return 0;
	}
	dst = &d->rgba[d->next_rgba];
	ci = (struct llmem_convert_info){
		.src = d->frames[0][index].buffer,
		.src_layout = &d->info.layout,
		.dst = dst->buffer,
		.dst_layout = &d->info.rgba_layout,
	};
	ret = llmem_convert_to_rgba(&ci);
	if (ret)
		return ret;
	llmem_buffer_invalidate(dst->buffer, 0, LLMEM_WHOLE_SIZE);
	frame->rgba = dst->buffer;
	frame->rgba_data = dst->map;
	frame->rgba_index = d->next_rgba;
	d->next_rgba = (d->next_rgba + 1) % d->info.rgba_buffers;
	return 0;
}
