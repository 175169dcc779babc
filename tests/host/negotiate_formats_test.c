// SPDX-License-Identifier: MIT
/*
 * The facts a participant states per fourcc (negotiate.h's
 * llmem_format_caps pitch and min_size: a V4L2 driver's bytesperline and
 * sizeimage differ between YUYV and NV12) count for that fourcc alone, and
 * two exact pitches that differ are refused by name.  Plain data: no
 * device needed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/error.h>
#include <llmem/negotiate.h>

#include "kselftest_harness.h"

/* A queue that takes YUYV and NV12 at 640x480 at the pitches it computes. */
static void exact_queue(struct llmem_participant *p, const char *name, uint32_t yuyv_pitch)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->kind = LLMEM_PARTICIPANT_OTHER;
	p->num_formats = 2;
	p->formats[0] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_YUYV,
						    .pitch = yuyv_pitch,
						    .min_size = (uint64_t)yuyv_pitch * 480 + 4096 };
	p->formats[1] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_NV12,
						    .pitch = 640,
						    .min_size = 640 * 480 * 3 / 2 };
	p->constraints.probed = LLMEM_C_PITCH;
}

static int negotiate(const struct llmem_participant *ps, uint32_t n, uint32_t fourcc,
		     struct llmem_negotiated *out)
{
	struct llmem_negotiate_request r = {
		.width = 640, .height = 480, .fourccs = &fourcc, .num_fourccs = 1
	};

	return llmem_negotiate(ps, n, &r, out);
}

TEST(pitch_and_size_of_the_fourcc_chosen)
{
	struct llmem_participant p;
	struct llmem_negotiated n;

	exact_queue(&p, "queue", 1280);
	ASSERT_EQ(negotiate(&p, 1, DRM_FORMAT_YUYV, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 1280);
	EXPECT_EQ(n.layout.size, 1280 * 480 + 4096);
	ASSERT_EQ(negotiate(&p, 1, DRM_FORMAT_NV12, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 640);
	EXPECT_EQ(n.layout.size, 640 * 480 * 3 / 2);
}

TEST(padded_exact_pitch_of_a_fourcc)
{
	struct llmem_participant p;
	struct llmem_negotiated n;

	exact_queue(&p, "queue", 1536);
	ASSERT_EQ(negotiate(&p, 1, DRM_FORMAT_YUYV, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 1536);
	EXPECT_EQ(n.constraints.pitch, 1536);
}

TEST(two_exact_pitches_refused_by_name)
{
	struct llmem_participant ps[2];
	struct llmem_negotiated n;

	exact_queue(&ps[0], "camera", 1280);
	exact_queue(&ps[1], "codec", 1536);
	EXPECT_EQ(negotiate(ps, 2, DRM_FORMAT_YUYV, &n), -ENOTSUP);
	EXPECT_STREQ(llmem_last_error(), "camera needs pitch 1280; codec pitch 1536");
	/* Their NV12 pitches agree. */
	EXPECT_EQ(negotiate(ps, 2, DRM_FORMAT_NV12, &n), 0);
}

TEST(exact_pitch_against_an_alignment)
{
	struct llmem_participant ps[2] = { 0 };
	struct llmem_negotiated n;

	exact_queue(&ps[0], "codec", 1280);
	snprintf(ps[1].name, sizeof(ps[1].name), "engine");
	ps[1].constraints.pitch_alignment = 512;
	EXPECT_EQ(negotiate(ps, 2, DRM_FORMAT_YUYV, &n), -ENOTSUP);
	EXPECT_STREQ(llmem_last_error(), "codec needs pitch 1280; engine a multiple of 512");
}

TEST_HARNESS_MAIN
