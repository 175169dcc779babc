// SPDX-License-Identifier: MIT
/*
 * Frames of a negotiated layout (pipeline.h) refuse bad arguments before
 * they allocate anything, on any machine; on one without a DMA-BUF
 * exporter (no llmem.ko, no udmabuf: this host) the allocation itself
 * fails with the library's reason and leaves nothing behind.  Frames made
 * and tried on devices are tested in the VM (tests/vm/negotiate_test.c).
 */
#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

#include <llmem/llmem.h>

#include "kselftest_harness.h"
#include "vk_test.h"

FIXTURE(frames_args)
{
	struct llmem_session *s;
	struct llmem_negotiated n;
	struct llmem_frames_create_info ci;
};

FIXTURE_SETUP(frames_args)
{
	struct llmem_participant cpu;
	struct llmem_negotiate_request r = { .width = 64, .height = 32 };

	VK_TEST_SESSION(self->s);
	llmem_participant_cpu(&cpu);
	ASSERT_EQ(llmem_negotiate(&cpu, 1, &r, &self->n), 0) TH_LOG("%s", llmem_last_error());
	self->ci = (struct llmem_frames_create_info){ .negotiated = &self->n };
}

FIXTURE_TEARDOWN(frames_args)
{
	VK_TEST_SESSION_END(self->s);
}

TEST_F(frames_args, null_arguments)
{
	struct llmem_frames *f = (struct llmem_frames *)1;
	struct llmem_frames_create_info none = { 0 };

	EXPECT_FAILS(llmem_frames_create(NULL, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL session");
	EXPECT_FAILS(llmem_frames_create(self->s, NULL, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL info");
	EXPECT_FAILS(llmem_frames_create(self->s, &none, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL negotiated result");
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL out");
	EXPECT_EQ(llmem_frames_count(NULL), 0);
	llmem_frames_destroy(NULL);
}

TEST_F(frames_args, bad_fields)
{
	struct llmem_participant cpu;
	struct llmem_frames *f = (struct llmem_frames *)1;

	self->ci.flags = 1u << 7;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: unknown flags 0x80");
	EXPECT_EQ(f, NULL);
	self->ci.flags = 0;
	self->ci.count = LLMEM_FRAMES_MAX + 1;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: 65 frames; at most 64");
	self->ci.count = 0;
	self->ci.num_participants = 1;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: 1 participants at NULL; at most 16");
	llmem_participant_cpu(&cpu);
	self->ci.participants = &cpu;
	self->ci.num_participants = LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: 17 participants; at most 16");
}

/* Layouts llmem_negotiate() never makes. */
TEST_F(frames_args, foreign_layouts)
{
	struct llmem_negotiated bad;
	struct llmem_frames *f;

	bad = self->n;
	bad.layout.num_planes = 0;
	self->ci.negotiated = &bad;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "is not a negotiated one"), NULL);
	bad = self->n;
	bad.layout.modifier = I915_FORMAT_MOD_X_TILED;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "modifier 0x100000000000001"), NULL)
	TH_LOG("%s", llmem_last_error());
	bad = self->n;
	bad.layout.size = 0;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	bad = self->n;
	bad.layout.num_planes = 2;
	bad.layout.pitch[1] = 64;
	bad.layout.offset[1] = bad.layout.size;
	EXPECT_FAILS(llmem_frames_create(self->s, &self->ci, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: plane 1 at 4096 of 4096 bytes");
}

/*
 * Without llmem.ko or a device that exports DMA-BUFs (this host: lavapipe
 * and no udmabuf) shared memory cannot be had: the call says why and
 * leaves no memory behind (the teardown checks the session's objects).
 * Where it can, the frames are there: two, each an fd of the frame's size.
 */
TEST_F(frames_args, allocation_here)
{
	struct llmem_frames *f = (struct llmem_frames *)1;
	struct llmem_negotiated_frame fr;
	int ret = llmem_frames_create(self->s, &self->ci, &f);

	if (ret) {
		EXPECT_LT(ret, 0);
		EXPECT_STRNE(llmem_last_error(), "");
		EXPECT_EQ(f, NULL);
		return;
	}
	EXPECT_EQ(llmem_frames_count(f), 2);
	ASSERT_EQ(llmem_frames_get(f, 1, &fr), 0);
	EXPECT_EQ(fr.num_fds, 1);
	EXPECT_GE(fr.fd[0], 0);
	EXPECT_GE(fr.size[0], self->n.layout.size);
	EXPECT_FAILS(llmem_frames_get(f, 2, &fr), -EINVAL);
	llmem_frames_destroy(f);
}

TEST_F(frames_args, check_and_get)
{
	struct llmem_participant cpu;
	struct llmem_negotiated_frame fr;

	llmem_participant_cpu(&cpu);
	EXPECT_FAILS(llmem_frames_check(NULL, &cpu, 1), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames check: NULL frames");
	EXPECT_FAILS(llmem_frames_get(NULL, 0, &fr), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL frames");
}

TEST_HARNESS_MAIN
