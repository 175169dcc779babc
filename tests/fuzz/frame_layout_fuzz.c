// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a V4L2 format or a fourcc, a size and an importer's
 * constraints, laid out as a frame (llmem_v4l2_format_layout,
 * llmem_frame_layout_init).  Any input gets 0 or a negative errno; a layout
 * that is given has every plane inside the frame, pitches that hold a row,
 * the alignments asked for, the importer's pitch and size, and at most 4 GiB.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/frame.h>
#include <llmem/v4l2.h>

#include "fuzz_input.h"

#define FOURCC(a, b, c, d) \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

static const uint32_t fourccs[] = {
	FOURCC('Y', 'U', 'Y', 'V'),
	FOURCC('N', 'V', '1', '2'),
	FOURCC('A', 'B', '2', '4'),
	/* V4L2's NV12M: a buffer per plane, laid out as DRM's NV12. */
	FOURCC('N', 'M', '1', '2'),
	/* 24-bit RGB (BGR888, RGB888): 3 bytes a pixel at any pitch. */
	FOURCC('B', 'G', '2', '4'),
	FOURCC('R', 'G', '2', '4'),
};

/* Bytes of a row per pixel: NV12's planes 1, YUYV 2, 24-bit RGB 3, the
 * RGBA formats 4. */
static uint64_t bytes_per_pixel(uint32_t fourcc)
{
	switch (fourcc) {
	case FOURCC('N', 'V', '1', '2'):
		return 1;
	case FOURCC('Y', 'U', 'Y', 'V'):
		return 2;
	case FOURCC('B', 'G', '2', '4'):
	case FOURCC('R', 'G', '2', '4'):
		return 3;
	default:
		return 4;
	}
}

static void check(const struct llmem_frame_layout *l, const struct llmem_frame_constraints *c)
{
	if (l->num_planes < 1 || l->num_planes > 2 || l->size > (4ULL << 30))
		abort();
	for (uint32_t p = 0; p < l->num_planes; p++) {
		uint64_t rows = p ? (l->height + 1) / 2 : l->height;
		uint64_t row_bytes = (uint64_t)l->width * bytes_per_pixel(l->fourcc);

		if (l->pitch[p] < row_bytes || l->offset[p] + rows * l->pitch[p] > l->size)
			abort();
		if (c->pitch_alignment && l->pitch[p] % c->pitch_alignment)
			abort();
		if (c->plane_alignment && l->offset[p] % c->plane_alignment)
			abort();
	}
	if ((c->pitch && l->pitch[0] != c->pitch) || l->size < c->min_size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct llmem_frame_constraints c = { 0 };
	struct llmem_frame_layout l;
	struct llmem_v4l2_format f = { 0 };
	uint8_t pick = fuzz_u8(&in);
	uint32_t fourcc =
		pick < 240 ? fourccs[pick % (sizeof(fourccs) / sizeof(*fourccs))] : fuzz_u32(&in);
	uint32_t width = fuzz_u32(&in), height = fuzz_u32(&in);
	int ret;

	if (fuzz_u8(&in) & 1) {
		width &= 0xffff;
		height &= 0xffff;
	}
	c.pitch = fuzz_u32(&in);
	c.pitch_alignment = fuzz_u32(&in);
	c.plane_alignment = fuzz_u32(&in);
	c.min_size = fuzz_u64(&in);
	ret = llmem_frame_layout_init(fourcc, width, height, &c, &l);
	if (ret > 0 || (ret < 0 && ret != -EINVAL && ret != -EOVERFLOW))
		abort();
	if (!ret)
		check(&l, &c);

	f.fourcc = fourcc;
	f.width = width;
	f.height = height;
	f.bytesperline = c.pitch;
	f.sizeimage = (uint32_t)c.min_size;
	f.mem_planes = fuzz_u8(&in) % 3;
	f.mem_plane_size[0] = fuzz_u32(&in);
	f.mem_plane_size[1] = fuzz_u32(&in);
	f.plane_pitch[1] = fuzz_u32(&in);
	ret = llmem_v4l2_format_layout(&f, &l);
	if (ret > 0 || (ret < 0 && ret != -EINVAL && ret != -EOVERFLOW))
		abort();
	if (!ret) {
		struct llmem_frame_constraints vc = { .pitch = f.bytesperline,
						      .min_size = f.sizeimage };

		check(&l, &vc);
	}
	return 0;
}
