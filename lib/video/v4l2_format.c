// SPDX-License-Identifier: MIT
/*
 * The formats of a V4L2 capture node: which it offers, the one negotiated
 * (single-planar or multi-planar, a buffer per colour plane or one for
 * all), and where a frame of it lies for importers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/convert.h>
#include <llmem/frame.h>
#include <llmem/v4l2.h>

#include "base/error.h"
#include "video/v4l2.h"

static const char *fourcc_str(uint32_t fourcc, char buf[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);

		buf[i] = c >= 32 && c < 127 ? c : '?';
	}
	buf[4] = '\0';
	return buf;
}

LLMEM_PUBLIC int llmem_v4l2_has_format(struct llmem_v4l2 *dev, uint32_t fourcc)
{
	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_has_format: NULL device");
	for (uint32_t i = 0;; i++) {
		struct v4l2_fmtdesc desc = { .index = i, .type = dev->type };
		int ret = ioctl(dev->fd, VIDIOC_ENUM_FMT, &desc);

		if (ret == -1 && errno == EINVAL)
			return 0;
		if (ret == -1)
			return llmem_error(-errno, "VIDIOC_ENUM_FMT on %s: %s", dev->path,
					   strerror(errno));
		if (desc.pixelformat == fourcc)
			return 1;
	}
}

/* The formats this library can convert, and how many memory planes each takes. */
static uint32_t format_mem_planes(uint32_t fourcc)
{
	switch (fourcc) {
	case V4L2_PIX_FMT_YUYV:
	case V4L2_PIX_FMT_NV12:
		return 1;
	case V4L2_PIX_FMT_NV12M:
		return 2;
	default:
		return 0;
	}
}

/*
 * Where the colour planes lie: YUYV's one, NV12's Y plane with its CbCr
 * plane right below in the same buffer, NV12M's each at the start of a
 * memory plane of its own with the pitch the driver gave it.
 */
static void describe_planes(struct llmem_v4l2_format *f, uint32_t chroma_pitch)
{
	f->plane_offset[0] = 0;
	f->plane_pitch[0] = f->bytesperline;
	f->num_planes = f->fourcc == V4L2_PIX_FMT_YUYV ? 1 : 2;
	if (f->fourcc == V4L2_PIX_FMT_NV12) {
		f->plane_offset[1] = f->bytesperline * f->height;
		f->plane_pitch[1] = f->bytesperline;
	} else if (f->fourcc == V4L2_PIX_FMT_NV12M) {
		f->plane_offset[1] = 0;
		f->plane_pitch[1] = chroma_pitch;
	}
}

/* The driver may leave encoding and quantization to its colorspace's defaults. */
static void describe_colour(uint32_t colorspace, uint32_t enc, uint32_t quant,
			    struct llmem_v4l2_format *f)
{
	if (enc == V4L2_YCBCR_ENC_DEFAULT)
		enc = V4L2_MAP_YCBCR_ENC_DEFAULT(colorspace);
	if (quant == V4L2_QUANTIZATION_DEFAULT)
		quant = V4L2_MAP_QUANTIZATION_DEFAULT(0, colorspace, enc);
	f->encoding = enc == V4L2_YCBCR_ENC_709 ? LLMEM_YCBCR_BT709 : LLMEM_YCBCR_BT601;
	f->range = quant == V4L2_QUANTIZATION_FULL_RANGE ? LLMEM_YCBCR_FULL_RANGE
							 : LLMEM_YCBCR_LIMITED_RANGE;
}

/* What a single-planar driver agreed to, as the format of one memory plane. */
static void agreed_single(const struct v4l2_pix_format *pix, struct llmem_v4l2_format *f)
{
	f->bytesperline = pix->bytesperline;
	f->sizeimage = pix->sizeimage;
	f->mem_planes = 1;
	f->mem_plane_size[0] = pix->sizeimage;
	describe_planes(f, 0);
	describe_colour(pix->colorspace, pix->ycbcr_enc, pix->quantization, f);
}

/* What a multi-planar driver agreed to: -EINVAL when its planes are not
 * those of the format. */
static int agreed_multi(const struct llmem_v4l2 *dev, const struct v4l2_pix_format_mplane *mp,
			struct llmem_v4l2_format *f)
{
	char name[5];
	uint64_t total = 0;

	if (mp->num_planes != format_mem_planes(f->fourcc))
		return llmem_error(-EINVAL, "%s gives %s in %u memory planes, not %u", dev->path,
				   fourcc_str(f->fourcc, name), mp->num_planes,
				   format_mem_planes(f->fourcc));
	f->mem_planes = mp->num_planes;
	for (uint32_t p = 0; p < mp->num_planes; p++) {
		f->mem_plane_size[p] = mp->plane_fmt[p].sizeimage;
		total += mp->plane_fmt[p].sizeimage;
	}
	if (total > UINT32_MAX)
		return llmem_error(-EINVAL, "%s: a frame of %llu bytes", dev->path,
				   (unsigned long long)total);
	f->bytesperline = mp->plane_fmt[0].bytesperline;
	f->sizeimage = (uint32_t)total;
	describe_planes(f, mp->num_planes > 1 ? mp->plane_fmt[1].bytesperline : 0);
	describe_colour(mp->colorspace, mp->ycbcr_enc, mp->quantization, f);
	return 0;
}

uint32_t llmem_v4l2_drm_fourcc(uint32_t pixelformat)
{
	switch (pixelformat) {
	case V4L2_PIX_FMT_YUYV:
	case V4L2_PIX_FMT_NV12:
	case V4L2_PIX_FMT_XBGR32:
	case V4L2_PIX_FMT_ABGR32:
	case V4L2_PIX_FMT_RGBA32:
		return pixelformat;
	case V4L2_PIX_FMT_NV12M:
		return DRM_FORMAT_NV12;
	default:
		return 0;
	}
}

LLMEM_PUBLIC int llmem_v4l2_set_format(struct llmem_v4l2 *dev, uint32_t fourcc, uint32_t width,
				       uint32_t height, struct llmem_v4l2_format *out)
{
	return llmem_v4l2_set_format_pitch(dev, fourcc, width, height, 0, out);
}

LLMEM_PUBLIC int llmem_v4l2_set_format_pitch(struct llmem_v4l2 *dev, uint32_t fourcc,
					     uint32_t width, uint32_t height, uint32_t pitch,
					     struct llmem_v4l2_format *out)
{
	struct v4l2_format fmt = { 0 };
	struct llmem_v4l2_format agreed = { 0 };
	uint32_t got_fourcc, got_width, got_height;
	char want[5], got[5];
	bool mp;
	int ret;

	if (!dev)
		return llmem_error(-EINVAL, "llmem_v4l2_set_format: NULL device");
	mp = llmem_v4l2_is_mplane(dev);
	if (!format_mem_planes(fourcc))
		return llmem_error(-EINVAL, "format %s: only YUYV, NV12 and NV12M are supported",
				   fourcc_str(fourcc, want));
	if (format_mem_planes(fourcc) > 1 && !mp)
		return llmem_error(-EINVAL,
				   "format %s: one buffer per plane needs a multi-planar node, "
				   "and %s is single-planar",
				   fourcc_str(fourcc, want), dev->path);
	if (!width || !height)
		return llmem_error(-EINVAL, "size %ux%u: width and height must be non-zero", width,
				   height);
	fmt.type = dev->type;
	if (mp) {
		fmt.fmt.pix_mp.width = width;
		fmt.fmt.pix_mp.height = height;
		fmt.fmt.pix_mp.pixelformat = fourcc;
		fmt.fmt.pix_mp.field = V4L2_FIELD_NONE;
		fmt.fmt.pix_mp.num_planes = (uint8_t)format_mem_planes(fourcc);
		for (uint32_t p = 0; pitch && p < format_mem_planes(fourcc); p++)
			fmt.fmt.pix_mp.plane_fmt[p].bytesperline = pitch;
	} else {
		fmt.fmt.pix.width = width;
		fmt.fmt.pix.height = height;
		fmt.fmt.pix.pixelformat = fourcc;
		fmt.fmt.pix.field = V4L2_FIELD_NONE;
		fmt.fmt.pix.bytesperline = pitch;
	}
	ret = LLMEM_V4L2_CALL(dev, VIDIOC_S_FMT, &fmt);
	if (ret)
		return ret;
	got_fourcc = mp ? fmt.fmt.pix_mp.pixelformat : fmt.fmt.pix.pixelformat;
	got_width = mp ? fmt.fmt.pix_mp.width : fmt.fmt.pix.width;
	got_height = mp ? fmt.fmt.pix_mp.height : fmt.fmt.pix.height;
	if (got_fourcc != fourcc || got_width != width || got_height != height)
		return llmem_error(-EINVAL, "%s offers %ux%u %s instead of %ux%u %s", dev->path,
				   got_width, got_height, fourcc_str(got_fourcc, got), width,
				   height, fourcc_str(fourcc, want));
	agreed.fourcc = fourcc;
	agreed.width = width;
	agreed.height = height;
	if (mp) {
		ret = agreed_multi(dev, &fmt.fmt.pix_mp, &agreed);
		if (ret)
			return ret;
	} else {
		agreed_single(&fmt.fmt.pix, &agreed);
	}
	if (pitch && agreed.bytesperline != pitch)
		return llmem_error(-EINVAL, "%s takes %s rows of pitch %u, not the %u asked for",
				   dev->path, fourcc_str(fourcc, want), agreed.bytesperline, pitch);
	dev->format = agreed;
	if (out)
		*out = agreed;
	return 0;
}

int llmem_v4l2_compose(struct llmem_v4l2 *dev, uint32_t width, uint32_t height)
{
	struct v4l2_rect got;
	int ret = llmem_v4l2_set_picture(dev->fd, dev->type, width, height, &got);

	if (ret)
		return llmem_error(ret, "VIDIOC_S_SELECTION (compose %ux%u) on %s: %s", width,
				   height, dev->path, strerror(-ret));
	if (got.left || got.top || got.width != width || got.height != height)
		return llmem_error(-ENOTSUP, "%s composes %ux%u at (%d,%d), not %ux%u", dev->path,
				   got.width, got.height, got.left, got.top, width, height);
	return 0;
}

/*
 * NV12M as DRM sees a framebuffer of a buffer per plane: NV12, each plane
 * at the start of its own memory plane, which must hold its rows.
 */
static int mem_planes_layout(const struct llmem_v4l2_format *f, struct llmem_frame_layout *l)
{
	struct llmem_frame_constraints c = { .pitch = f->bytesperline };
	uint64_t rows[2], total = 0;
	int ret;

	if (f->mem_planes != 2)
		return llmem_error(-EINVAL, "NV12M in %u memory planes, not 2", f->mem_planes);
	ret = llmem_frame_layout_init(DRM_FORMAT_NV12, f->width, f->height, &c, l);
	if (ret)
		return ret;
	if (f->plane_pitch[1] < f->width)
		return llmem_error(-EINVAL, "NV12M's CbCr pitch %u is below a %u-pixel row",
				   f->plane_pitch[1], f->width);
	l->offset[1] = 0;
	l->pitch[1] = f->plane_pitch[1];
	rows[0] = f->height;
	rows[1] = (f->height + 1) / 2;
	for (uint32_t p = 0; p < 2; p++) {
		if ((uint64_t)l->pitch[p] * rows[p] > f->mem_plane_size[p])
			return llmem_error(
				-EINVAL,
				"NV12M plane %u: %llu rows of %u bytes, its memory plane "
				"has %u",
				p, (unsigned long long)rows[p], l->pitch[p], f->mem_plane_size[p]);
		total += f->mem_plane_size[p];
	}
	l->size = total > f->sizeimage ? total : f->sizeimage;
	if (l->size > (4ULL << 30))
		return llmem_error(-EOVERFLOW, "NV12M: a frame of %llu bytes, above 4 GiB",
				   (unsigned long long)l->size);
	return 0;
}

LLMEM_PUBLIC int llmem_v4l2_format_layout(const struct llmem_v4l2_format *f,
					  struct llmem_frame_layout *layout)
{
	struct llmem_frame_constraints c;

	if (!f || !layout)
		return llmem_error(-EINVAL, "llmem_v4l2_format_layout: NULL %s",
				   f ? "layout" : "format");
	if (f->fourcc == V4L2_PIX_FMT_NV12M)
		return mem_planes_layout(f, layout);
	/* For YUYV and NV12 the V4L2 pixel format is the DRM fourcc. */
	c = (struct llmem_frame_constraints){
		.pitch = f->bytesperline,
		.min_size = f->sizeimage,
	};
	return llmem_frame_layout_init(f->fourcc, f->width, f->height, &c, layout);
}
