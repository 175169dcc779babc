// SPDX-License-Identifier: MIT
/*
 * `llmem encode`'s step on the device (tools/mirror.c, shaders/mirror.comp):
 * a YUYV or NV12 frame mirrored left to right in its own buffer equals the
 * CPU's mirror of it, byte for byte, for rows of an even and an odd number
 * of words, with the bytes around the frame untouched; a frame the shader
 * cannot take a word at a time is refused.  On lavapipe, under the
 * validation layer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/llmem.h>

#include "../../tools/mirror.h"
#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(mirror)
{
	struct llmem_session *s;
	struct llmem_memory *m;
};

FIXTURE_SETUP(mirror)
{
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE |
							 LLMEM_MEMORY_HOST_COHERENT };

	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_memory_create(self->s, &mci, &self->m), 0);
}

FIXTURE_TEARDOWN(mirror)
{
	llmem_memory_destroy(self->m);
	VK_TEST_SESSION_END(self->s);
}

/* Plane @p of @l mirrored by the CPU from @in into @out, @unit bytes at a
 * time (YUYV: a pixel pair, whose two lumas trade places). */
static void cpu_mirror(const struct llmem_frame_layout *l, int p, uint32_t row_bytes, uint32_t rows,
		       uint32_t unit, const uint8_t *in, uint8_t *out)
{
	for (uint32_t y = 0; y < rows; y++) {
		const uint8_t *src = in + l->offset[p] + y * l->pitch[p];
		uint8_t *dst = out + l->offset[p] + y * l->pitch[p];

		for (uint32_t x = 0; x < row_bytes / unit; x++) {
			const uint8_t *u = src + row_bytes - (x + 1) * unit;

			memcpy(dst + x * unit, u, unit);
			if (l->fourcc == DRM_FORMAT_YUYV) {
				dst[x * unit] = u[2];
				dst[x * unit + 2] = u[0];
			}
		}
	}
}

static void mirror_one(struct __test_metadata *_metadata, FIXTURE_DATA(mirror) * self,
		       uint32_t fourcc, uint32_t w, uint32_t h)
{
	struct llmem_frame_constraints c = { .pitch_alignment = 64 };
	struct llmem_frame_layout l;
	struct llmem_buffer *b;
	struct mirror m;
	uint8_t *map, *in, *want;

	ASSERT_EQ(llmem_frame_layout_init(fourcc, w, h, &c, &l), 0);
	ASSERT_EQ(llmem_buffer_create(self->m, &(struct llmem_buffer_create_info){ .size = l.size },
				      &b),
		  0);
	ASSERT_EQ(llmem_buffer_map(b, (void **)&map), 0);
	in = malloc(l.size);
	want = malloc(l.size);
	ASSERT_NE(in, NULL);
	ASSERT_NE(want, NULL);
	srand(w * 31 + h);
	for (uint64_t i = 0; i < l.size; i++)
		in[i] = (uint8_t)rand();
	memcpy(map, in, l.size);
	memcpy(want, in, l.size);
	if (fourcc == DRM_FORMAT_YUYV) {
		cpu_mirror(&l, 0, w * 2, h, 4, in, want);
	} else {
		cpu_mirror(&l, 0, w, h, 1, in, want);
		cpu_mirror(&l, 1, w, h / 2, 2, in, want);
	}
	ASSERT_EQ(mirror_init(&m, self->s, &l, "codec_mirror"), 0);
	ASSERT_EQ(mirror_run(&m, b), 0) TH_LOG("%s", llmem_last_error());
	mirror_fini(&m);
	EXPECT_EQ(memcmp(map, want, l.size), 0) TH_LOG("%.4s %ux%u", (char *)&fourcc, w, h);
	/* Mirrored twice, the frame is itself again. */
	ASSERT_EQ(mirror_init(&m, self->s, &l, "codec_mirror"), 0);
	ASSERT_EQ(mirror_run(&m, b), 0);
	ASSERT_EQ(mirror_run(&m, b), 0);
	mirror_fini(&m);
	EXPECT_EQ(memcmp(map, want, l.size), 0);
	llmem_buffer_unmap(b);
	llmem_buffer_destroy(b);
	free(in);
	free(want);
}

/* YUYV rows of 320 and of 161 pixel pairs (the middle pair only swaps its
 * lumas), and of one pair. */
TEST_F(mirror, yuyv)
{
	mirror_one(_metadata, self, DRM_FORMAT_YUYV, 640, 48);
	mirror_one(_metadata, self, DRM_FORMAT_YUYV, 322, 7);
	mirror_one(_metadata, self, DRM_FORMAT_YUYV, 2, 3);
}

/* NV12: luma rows of 160 and of 81 words, chroma rows of pairs. */
TEST_F(mirror, nv12)
{
	mirror_one(_metadata, self, DRM_FORMAT_NV12, 640, 48);
	mirror_one(_metadata, self, DRM_FORMAT_NV12, 324, 6);
}

/* NV12 whose rows are not whole words, and formats it does not know. */
TEST_F(mirror, refused)
{
	struct llmem_frame_layout l;
	struct mirror m;

	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_NV12, 642, 4, NULL, &l), 0);
	EXPECT_EQ(mirror_init(&m, self->s, &l, "codec_mirror"), -EINVAL);
	mirror_fini(&m);
	ASSERT_EQ(llmem_frame_layout_init(DRM_FORMAT_ABGR8888, 64, 4, NULL, &l), 0);
	EXPECT_EQ(mirror_init(&m, self->s, &l, "codec_mirror"), -EINVAL);
	mirror_fini(&m);
}

TEST_HARNESS_MAIN
