// SPDX-License-Identifier: MIT
/*
 * Negotiation (negotiate.h) with the devices of the VM: vivid's capture
 * queues (vmalloc single-planar, dma-contig, multi-planar), vicodec's
 * encoder OUTPUT queue, vkms's primary plane and the Vulkan device state
 * what they take; frames allocated from the negotiated layout are then
 * taken by every one of them: V4L2 S_FMT with the negotiated pitch,
 * REQBUFS and QBUF of the DMA-BUF; vkms's ADDFB2; a Vulkan conversion
 * reading the frame.  A pitch one participant pads is honoured by the
 * others, and a set of participants that share nothing is refused by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <llmem/llmem.h>

#include "capture.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vkms.h"
#include "vk_test.h"

#define WIDTH 640
#define HEIGHT 480
/* The rig loads vivid with n_devs=5 allocators=0,0,1,0,0 multiplanar=1,1,1,2,1. */
#define VIVID_VMALLOC 0
#define VIVID_DMA_CONTIG 2
#define VIVID_MPLANE 3
#define RIG "the rig loads vivid with n_devs=5 allocators=0,0,1,0,0 multiplanar=1,1,1,2,1"

/* The fourccs in vivid's, vicodec's and DRM's shared spelling. */
#define YUYV DRM_FORMAT_YUYV
#define NV12 DRM_FORMAT_NV12
#define XRGB DRM_FORMAT_XRGB8888

static int vicodec_encoder_path(char *path, size_t len)
{
	struct llmem_codec_find_info fi = {
		.kind = LLMEM_CODEC_ENCODER,
		.coded_fourcc = V4L2_PIX_FMT_FWHT,
		.driver = "vicodec",
	};

	return llmem_codec_find(&fi, path, len);
}

static const struct llmem_format_caps *caps_of(const struct llmem_participant *p, uint32_t fourcc)
{
	for (uint32_t i = 0; i < p->num_formats; i++)
		if (p->formats[i].fourcc == fourcc)
			return &p->formats[i];
	return NULL;
}

/*
 * Frames of the negotiated layout from the library (pipeline.h), which
 * tries them on @ps itself; the test's own tries below then ask each
 * device again, its frame 0.
 */
static int frames_alloc(struct llmem_session *s, const struct llmem_participant *ps, uint32_t n,
			const struct llmem_negotiated *neg, struct llmem_frames **frames,
			struct llmem_negotiated_frame *f)
{
	struct llmem_frames_create_info ci = {
		.negotiated = neg,
		.participants = ps,
		.num_participants = n,
		.flags = LLMEM_FRAMES_CHECK,
		.name = "negotiated frame",
	};
	int ret = llmem_frames_create(s, &ci, frames);

	return ret ? ret : llmem_frames_get(*frames, 0, f);
}

/*
 * The V4L2 queue takes the frame: S_FMT at the negotiated pitch (the pitch
 * it sets into *@bytesperline), REQBUFS of one DMA-BUF buffer and QBUF of
 * the frame's fd; the queue is freed again.  0, or the failing ioctl's
 * -errno with @step naming it.
 */
static int v4l2_takes(const char *path, bool output, const struct llmem_negotiated *n,
		      const struct llmem_negotiated_frame *f, uint32_t *bytesperline,
		      const char **step)
{
	struct v4l2_capability cap = { 0 };
	struct v4l2_format fmt = { 0 };
	struct v4l2_requestbuffers req = { .count = 1, .memory = V4L2_MEMORY_DMABUF };
	struct v4l2_plane plane = { .m.fd = f->fd[0], .length = (uint32_t)f->size[0] };
	struct v4l2_buffer buf = { .memory = V4L2_MEMORY_DMABUF };
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;
	bool mplane;

	*step = "open";
	if (fd < 0)
		return -errno;
	*step = "VIDIOC_QUERYCAP";
	ret = xioctl(fd, VIDIOC_QUERYCAP, &cap);
	if (ret)
		goto out;
	mplane = (cap.device_caps & (V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_VIDEO_OUTPUT_MPLANE |
				     V4L2_CAP_VIDEO_M2M_MPLANE));
	fmt.type =
		output ? (mplane ? V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT)
		       : (mplane ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE
				 : V4L2_BUF_TYPE_VIDEO_CAPTURE);
	if (mplane) {
		fmt.fmt.pix_mp.width = WIDTH;
		fmt.fmt.pix_mp.height = HEIGHT;
		fmt.fmt.pix_mp.pixelformat = n->layout.fourcc;
		fmt.fmt.pix_mp.num_planes = 1;
		fmt.fmt.pix_mp.plane_fmt[0].bytesperline = n->layout.pitch[0];
	} else {
		fmt.fmt.pix.width = WIDTH;
		fmt.fmt.pix.height = HEIGHT;
		fmt.fmt.pix.pixelformat = n->layout.fourcc;
		fmt.fmt.pix.bytesperline = n->layout.pitch[0];
	}
	*step = "VIDIOC_S_FMT";
	ret = xioctl(fd, VIDIOC_S_FMT, &fmt);
	if (ret)
		goto out;
	*bytesperline =
		mplane ? fmt.fmt.pix_mp.plane_fmt[0].bytesperline : fmt.fmt.pix.bytesperline;
	req.type = fmt.type;
	*step = "VIDIOC_REQBUFS";
	ret = xioctl(fd, VIDIOC_REQBUFS, &req);
	if (ret)
		goto out;
	buf.type = fmt.type;
	if (mplane) {
		plane.bytesused = output ? (uint32_t)n->layout.size : 0;
		buf.m.planes = &plane;
		buf.length = 1;
	} else {
		buf.m.fd = f->fd[0];
		buf.length = (uint32_t)f->size[0];
		buf.bytesused = output ? (uint32_t)n->layout.size : 0;
	}
	*step = "VIDIOC_QBUF";
	ret = xioctl(fd, VIDIOC_QBUF, &buf);
	req.count = 0;
	xioctl(fd, VIDIOC_REQBUFS, &req);
out:
	close(fd);
	return ret;
}

/* vkms makes a framebuffer of the frame (ADDFB2 of its PRIME import). */
static int kms_takes(const char *path, const struct llmem_negotiated *n,
		     const struct llmem_negotiated_frame *f)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 }, handle, fb;
	int fd = open(path, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = drmPrimeFDToHandle(fd, f->fd[0], &handle) ? -errno : 0;
	for (uint32_t p = 0; !ret && p < n->layout.num_planes; p++) {
		handles[p] = handle;
		pitches[p] = n->layout.pitch[p];
		offsets[p] = (uint32_t)n->layout.offset[p];
	}
	if (!ret)
		ret = drmModeAddFB2(fd, WIDTH, HEIGHT, n->layout.fourcc, handles, pitches, offsets,
				    &fb, 0)
			      ? -errno
			      : 0;
	if (!ret)
		drmModeRmFB(fd, fb);
	close(fd);
	return ret;
}

/* Vulkan reads the YUYV or NV12 frame: a conversion to XRGB8888 into a
 * buffer of the session's own. */
static int vulkan_reads(struct llmem_session *s, const struct llmem_negotiated *n,
			const struct llmem_negotiated_frame *f)
{
	struct llmem_memory_create_info ci = { 0 };
	struct llmem_frame_layout dst_l;
	struct llmem_memory *m;
	struct llmem_buffer *dst;
	int ret = llmem_frame_layout_init(XRGB, WIDTH, HEIGHT, NULL, &dst_l);

	if (ret)
		return ret;
	ret = llmem_memory_create(s, &ci, &m);
	if (ret)
		return ret;
	ret = llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = dst_l.size },
				  &dst);
	if (!ret) {
		struct llmem_convert_info info = { .src = f->buffer[0],
						   .src_layout = &n->layout,
						   .dst = dst,
						   .dst_layout = &dst_l };

		ret = llmem_convert_to_rgba(&info);
		llmem_buffer_destroy(dst);
	}
	llmem_memory_destroy(m);
	return ret;
}

FIXTURE(negotiate)
{
	struct llmem_session *s;
	char vivid[4][32];
	char vicodec[32];
	char vkms[LLMEM_DRM_PATH_LEN];
	struct llmem_participant vulkan;
};

FIXTURE_SETUP(negotiate)
{
	for (int i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "vivid-%03d-vid-cap", i);
		ASSERT_EQ(video_node_named(name, self->vivid[i], sizeof(self->vivid[i])), 0)
		TH_LOG("no %s: %s", name, RIG);
	}
	ASSERT_EQ(vicodec_encoder_path(self->vicodec, sizeof(self->vicodec)), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(vkms_path(self->vkms, sizeof(self->vkms)), 0) TH_LOG("no vkms card");
	VK_TEST_SESSION(self->s);
	ASSERT_EQ(llmem_participant_vulkan(self->s, LLMEM_VULKAN_USAGE_STORAGE, &self->vulkan), 0);
}

FIXTURE_TEARDOWN(negotiate)
{
	VK_TEST_SESSION_END(self->s);
}

static void show(struct __test_metadata *_metadata, const struct llmem_participant *p)
{
	const struct llmem_constraints *c = &p->constraints;
	char line[512];
	int at = 0;

	for (uint32_t i = 0; i < p->num_formats && at < 400; i++)
		at += snprintf(line + at, sizeof(line) - at, " %.4s(pitch %u size %llu mods %u)",
			       (const char *)&p->formats[i].fourcc, p->formats[i].pitch,
			       (unsigned long long)p->formats[i].min_size,
			       p->formats[i].num_modifiers);
	TH_LOG("%s:%s; pitch_alignment %u width %u..%u height %u..%u flags 0x%x "
	       "min_buffers %u probed 0x%x assumed 0x%x",
	       p->name, line, c->pitch_alignment, c->min_width, c->max_width, c->min_height,
	       c->max_height, c->flags, c->min_buffers, c->probed, c->assumed);
}

/* What each device states, as far as it is certain. */
TEST_F(negotiate, statements)
{
	struct llmem_participant v, mp, dc, enc, kms;
	const struct llmem_format_caps *f;
	int master;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &v), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_MPLANE], 0, WIDTH, HEIGHT, &mp), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_DMA_CONTIG], 0, WIDTH, HEIGHT, &dc), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &enc), 0)
	TH_LOG("%s", llmem_last_error());
	/* The first opener of the card is its DRM master: the statement is
	 * made (and the test framebuffers made) without it. */
	master = open(self->vkms, O_RDWR | O_CLOEXEC);
	ASSERT_GE(master, 0);
	EXPECT_TRUE(drmIsMaster(master));
	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &kms), 0)
	TH_LOG("%s", llmem_last_error());
	close(master);
	show(_metadata, &v);
	show(_metadata, &mp);
	show(_metadata, &dc);
	show(_metadata, &enc);
	show(_metadata, &kms);

	EXPECT_EQ(v.kind, LLMEM_PARTICIPANT_V4L2);
	EXPECT_NE(strstr(v.name, "vivid"), NULL);
	EXPECT_NE(strstr(v.name, "capture"), NULL);
	/* vivid keeps any bytesperline from the row up: a probed alignment,
	 * no exact pitch; its sizeimage is reported per fourcc. */
	EXPECT_TRUE(v.constraints.probed & LLMEM_C_PITCH_ALIGNMENT);
	EXPECT_FALSE(v.constraints.probed & LLMEM_C_PITCH);
	EXPECT_GE(v.constraints.pitch_alignment, 1);
	f = caps_of(&v, YUYV);
	ASSERT_NE(f, NULL);
	EXPECT_EQ(f->source, LLMEM_FACT_REPORTED);
	EXPECT_EQ(f->pitch, 0);
	EXPECT_EQ(f->min_size, WIDTH * HEIGHT * 2);
	EXPECT_NE(caps_of(&v, XRGB), NULL);
	/* The dma-contig instance states the same: contiguity is not told by
	 * any query. */
	EXPECT_FALSE(dc.constraints.flags & LLMEM_CONSTRAINT_CONTIGUOUS);
	/* The multi-planar instance lists NV12 in one buffer too. */
	ASSERT_NE(caps_of(&mp, NV12), NULL);
	EXPECT_EQ(caps_of(&mp, NV12)->min_size, WIDTH * HEIGHT * 3 / 2);
	EXPECT_FALSE(mp.constraints.flags & LLMEM_CONSTRAINT_PLANE_PER_FD);
	/* vicodec computes bytesperline from the width: an exact pitch per
	 * fourcc, found by a padded try. */
	EXPECT_NE(strstr(enc.name, "output"), NULL);
	EXPECT_TRUE(enc.constraints.probed & LLMEM_C_PITCH);
	ASSERT_NE(caps_of(&enc, YUYV), NULL);
	EXPECT_EQ(caps_of(&enc, YUYV)->pitch, WIDTH * 2);
	ASSERT_NE(caps_of(&enc, NV12), NULL);
	EXPECT_EQ(caps_of(&enc, NV12)->pitch, WIDTH);
	/* vkms: IN_FORMATS (linear), the mode config's bounds, and a pitch
	 * alignment found by test framebuffers. */
	EXPECT_EQ(kms.kind, LLMEM_PARTICIPANT_KMS_PLANE);
	EXPECT_EQ(strncmp(kms.name, "vkms plane ", 11), 0);
	ASSERT_NE(caps_of(&kms, XRGB), NULL);
	EXPECT_EQ(caps_of(&kms, XRGB)->source, LLMEM_FACT_REPORTED);
	EXPECT_EQ(caps_of(&kms, XRGB)->num_modifiers, 1);
	EXPECT_EQ(caps_of(&kms, XRGB)->modifiers[0], DRM_FORMAT_MOD_LINEAR);
	EXPECT_GT(kms.constraints.max_width, WIDTH);
	EXPECT_GT(kms.constraints.max_height, HEIGHT);
	EXPECT_TRUE(kms.constraints.probed & LLMEM_C_PITCH_ALIGNMENT);
	EXPECT_GE(kms.constraints.pitch_alignment, 1);
	EXPECT_EQ(kms.constraints.assumed, 0);
}

/* Negotiates @ps for @fourcc alone. */
static int negotiate_one(const struct llmem_participant *ps, uint32_t n, uint32_t fourcc,
			 struct llmem_negotiated *out)
{
	struct llmem_negotiate_request r = {
		.width = WIDTH,
		.height = HEIGHT,
		.fourccs = &fourcc,
		.num_fourccs = 1,
	};

	return llmem_negotiate(ps, n, &r, out);
}

#define EXPECT_V4L2_TAKES(path, output, n, f, bpl)                                  \
	do {                                                                        \
		const char *step;                                                   \
		int r_ = v4l2_takes(path, output, n, f, bpl, &step);                \
		EXPECT_EQ(r_, 0) TH_LOG("%s on %s: %s", step, path, strerror(-r_)); \
	} while (0)

/* YUYV: vivid's capture, vicodec's OUTPUT, the shaders. */
TEST_F(negotiate, yuyv)
{
	struct llmem_participant ps[3];
	struct llmem_negotiated n;
	struct llmem_negotiated_frame f;
	struct llmem_frames *frames;
	uint32_t bpl = 0;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &ps[1]), 0);
	ps[2] = self->vulkan;
	ASSERT_EQ(negotiate_one(ps, 3, YUYV, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], WIDTH * 2);
	EXPECT_GE(n.layout.size, WIDTH * HEIGHT * 2);
	ASSERT_EQ(frames_alloc(self->s, ps, 3, &n, &frames, &f), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_VMALLOC], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_V4L2_TAKES(self->vicodec, true, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_EQ(vulkan_reads(self->s, &n, &f), 0) TH_LOG("%s", llmem_last_error());
	llmem_frames_destroy(frames);
}

/* NV12: vivid's multi-planar instance (NV12 in one buffer), vicodec, the
 * shaders. */
TEST_F(negotiate, nv12)
{
	struct llmem_participant ps[3];
	struct llmem_negotiated n;
	struct llmem_negotiated_frame f;
	struct llmem_frames *frames;
	uint32_t bpl = 0;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_MPLANE], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &ps[1]), 0);
	ps[2] = self->vulkan;
	ASSERT_EQ(negotiate_one(ps, 3, NV12, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.num_planes, 2);
	EXPECT_EQ(n.layout.pitch[0], WIDTH);
	EXPECT_GE(n.layout.size, WIDTH * HEIGHT * 3 / 2);
	ASSERT_EQ(frames_alloc(self->s, ps, 3, &n, &frames, &f), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_MPLANE], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_V4L2_TAKES(self->vicodec, true, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_EQ(vulkan_reads(self->s, &n, &f), 0) TH_LOG("%s", llmem_last_error());
	llmem_frames_destroy(frames);
}

/* XRGB8888: vivid's capture, vicodec, vkms's primary plane, the shaders. */
TEST_F(negotiate, xrgb8888)
{
	struct llmem_participant ps[4];
	struct llmem_negotiated n;
	struct llmem_negotiated_frame f;
	struct llmem_frames *frames;
	uint32_t bpl = 0;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &ps[1]), 0);
	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &ps[2]), 0);
	ps[3] = self->vulkan;
	ASSERT_EQ(negotiate_one(ps, 4, XRGB, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], WIDTH * 4);
	ASSERT_EQ(frames_alloc(self->s, ps, 4, &n, &frames, &f), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_VMALLOC], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_V4L2_TAKES(self->vicodec, true, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	EXPECT_EQ(kms_takes(self->vkms, &n, &f), 0);
	llmem_frames_destroy(frames);
}

/* A participant that pads rows to 512 or 1024 bytes: vivid and vkms take
 * the padded pitch; vicodec, which takes only its own, is named. */
TEST_F(negotiate, padded_pitch)
{
	struct llmem_participant ps[4] = { 0 };
	struct llmem_negotiated n;
	struct llmem_negotiated_frame f;
	struct llmem_frames *frames;
	uint32_t bpl = 0;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &ps[1]), 0);
	ps[2] = self->vulkan;
	snprintf(ps[3].name, sizeof(ps[3].name), "a 512-byte DMA engine");
	ps[3].kind = LLMEM_PARTICIPANT_OTHER;
	ps[3].constraints.pitch_alignment = 512;
	/* NV12's rows of 640 bytes padded to 1024, on the multi-planar instance. */
	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_MPLANE], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(negotiate_one((struct llmem_participant[]){ ps[0], ps[2], ps[3] }, 3, NV12, &n),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 1024);
	EXPECT_EQ(n.layout.pitch[1], 1024);
	ASSERT_EQ(frames_alloc(self->s, (struct llmem_participant[]){ ps[0], ps[2], ps[3] }, 3, &n,
			       &frames, &f),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_MPLANE], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, 1024) TH_LOG("vivid did not keep the padded pitch");
	EXPECT_EQ(vulkan_reads(self->s, &n, &f), 0) TH_LOG("%s", llmem_last_error());
	llmem_frames_destroy(frames);

	/* YUYV's 1280-byte rows padded to 1536 for vivid, vkms has no YUYV. */
	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &ps[0]), 0);
	ASSERT_EQ(negotiate_one((struct llmem_participant[]){ ps[0], ps[2], ps[3] }, 3, YUYV, &n),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 1536);
	ASSERT_EQ(frames_alloc(self->s, (struct llmem_participant[]){ ps[0], ps[2], ps[3] }, 3, &n,
			       &frames, &f),
		  0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_VMALLOC], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, 1536) TH_LOG("vivid did not keep the padded pitch");
	EXPECT_EQ(vulkan_reads(self->s, &n, &f), 0) TH_LOG("%s", llmem_last_error());
	llmem_frames_destroy(frames);

	/* vicodec's YUYV pitch is 1280 and nothing else. */
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &ps[1]), 0);
	EXPECT_EQ(negotiate_one(ps, 4, YUYV, &n), -ENOTSUP);
	EXPECT_NE(strstr(llmem_last_error(), "needs pitch 1280; a 512-byte DMA engine a multiple"),
		  NULL)
	TH_LOG("%s", llmem_last_error());

	/* XRGB8888's rows of 2560 bytes are 5 x 512 already. */
	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &ps[1]), 0);
	ASSERT_EQ(negotiate_one(ps, 4, XRGB, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 2560);
	/* Padded to 3072 for a 1024-byte engine: vivid and vkms take it. */
	ps[3].constraints.pitch_alignment = 1024;
	ASSERT_EQ(negotiate_one(ps, 4, XRGB, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(n.layout.pitch[0], 3072);
	ASSERT_EQ(frames_alloc(self->s, ps, 4, &n, &frames, &f), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_VMALLOC], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, 3072) TH_LOG("vivid did not keep the padded pitch");
	EXPECT_EQ(kms_takes(self->vkms, &n, &f), 0);
	llmem_frames_destroy(frames);
}

/* vivid's dma-contig instance with llmem.ko's contiguous pages. */
TEST_F(negotiate, dma_contig)
{
	struct llmem_participant ps[3];
	struct llmem_negotiated n;
	struct llmem_negotiated_frame f;
	struct llmem_frames *frames;
	uint32_t bpl = 0;

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_DMA_CONTIG], 0, WIDTH, HEIGHT, &ps[0]),
		  0);
	ASSERT_EQ(llmem_participant_llmem_contiguous(&ps[1]), 0);
	ps[2] = self->vulkan;
	ASSERT_EQ(negotiate_one(ps, 3, YUYV, &n), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_TRUE(n.flags & LLMEM_CONSTRAINT_CONTIGUOUS);
	ASSERT_EQ(frames_alloc(self->s, ps, 3, &n, &frames, &f), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_V4L2_TAKES(self->vivid[VIVID_DMA_CONTIG], false, &n, &f, &bpl);
	EXPECT_EQ(bpl, n.layout.pitch[0]);
	llmem_frames_destroy(frames);
}

/* Sets that leave nothing, and bad arguments, refused by name. */
TEST_F(negotiate, refusals)
{
	struct llmem_participant ps[2];
	struct llmem_negotiated n;
	char want[96];

	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &ps[0]), 0);
	ps[1] = self->vulkan;
	EXPECT_EQ(negotiate_one(ps, 2, NV12, &n), -ENOTSUP);
	snprintf(want, sizeof(want), "%s has no NV12", ps[0].name);
	EXPECT_STREQ(llmem_last_error(), want);

	EXPECT_FAILS(llmem_participant_v4l2(NULL, 0, WIDTH, HEIGHT, &ps[0]), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "V4L2 participant: NULL path");
	EXPECT_FAILS(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, NULL), -EINVAL);
	EXPECT_FAILS(llmem_participant_v4l2(self->vicodec, 1, 0, HEIGHT, &ps[0]), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "V4L2 participant: a frame of 0x480");
	EXPECT_FAILS(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 1, WIDTH, HEIGHT, &ps[0]),
		     -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "has no OUTPUT queue"), NULL);
	/* The encoder's CAPTURE queue gives FWHT alone. */
	EXPECT_FAILS(llmem_participant_v4l2(self->vicodec, 0, WIDTH, HEIGHT, &ps[0]), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "capture offers no format llmem lays out"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_FAILS(llmem_participant_v4l2("/dev/null", 0, WIDTH, HEIGHT, &ps[0]), -ENOTTY);
	EXPECT_NE(strstr(llmem_last_error(), "/dev/null VIDIOC_QUERYCAP"), NULL);
	EXPECT_FAILS(llmem_participant_v4l2("/dev/no-such-node", 0, WIDTH, HEIGHT, &ps[0]),
		     -ENOENT);
	EXPECT_NE(strstr(llmem_last_error(), "/dev/no-such-node open"), NULL);

	/* No card: the one a display takes without one, vkms here. */
	ASSERT_EQ(llmem_participant_kms_plane(NULL, 0, &ps[0]), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(strncmp(ps[0].name, "vkms plane ", 11), 0) TH_LOG("%s", ps[0].name);
	EXPECT_FAILS(llmem_participant_kms_plane(self->vkms, 0, NULL), -EINVAL);
	EXPECT_FAILS(llmem_participant_kms_plane(self->vkms, 0xfffff, &ps[0]), -ENOENT);
	EXPECT_NE(strstr(llmem_last_error(), "has no plane 1048575"), NULL);
	EXPECT_FAILS(llmem_participant_kms_plane("/dev/null", 0, &ps[0]), -ENODEV);
	EXPECT_NE(strstr(llmem_last_error(), "/dev/null () is not a KMS device"), NULL)
	TH_LOG("%s", llmem_last_error());
}

/*
 * The library's check refuses, by frame, participant and reason, frames a
 * device does not take: vicodec, whose YUYV pitch is 1280 and nothing
 * else, frames padded to 1536 for a 512-byte engine; llmem.ko's
 * contiguous pages, scattered frames.  Frames of a statement that names
 * no device (a peer's, the caller's own) are not asked.
 */
TEST_F(negotiate, frames_check_refusals)
{
	struct llmem_participant ps[2] = { 0 }, enc, contig, peer;
	struct llmem_frames_create_info ci = { .negotiated = NULL, .flags = LLMEM_FRAMES_CHECK };
	struct llmem_negotiated_frame f;
	struct llmem_negotiated n;
	struct llmem_frames *frames;
	struct llmem_dmabuf_state st;
	char want[160];

	ASSERT_EQ(llmem_participant_v4l2(self->vivid[VIVID_VMALLOC], 0, WIDTH, HEIGHT, &ps[0]), 0);
	snprintf(ps[1].name, sizeof(ps[1].name), "a 512-byte DMA engine");
	ps[1].kind = LLMEM_PARTICIPANT_OTHER;
	ps[1].constraints.pitch_alignment = 512;
	ASSERT_EQ(negotiate_one(ps, 2, YUYV, &n), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(n.layout.pitch[0], 1536);
	ASSERT_EQ(llmem_participant_v4l2(self->vicodec, 1, WIDTH, HEIGHT, &enc), 0);
	EXPECT_STREQ(enc.device, self->vicodec);
	EXPECT_EQ(enc.object, 1);
	ci.negotiated = &n;
	ci.participants = &enc;
	ci.num_participants = 1;
	EXPECT_FAILS(llmem_frames_create(self->s, &ci, &frames), -ENOTSUP);
	snprintf(want, sizeof(want),
		 "frame 0: %s refuses the frame: it sets pitch 1280, not 1536, for buffer 0",
		 enc.name);
	EXPECT_STREQ(llmem_last_error(), want);

	/* Made for vivid and the engine on llmem.ko's pages, the same frames
	 * fail vicodec's check when it is asked. */
	ci.participants = ps;
	ci.num_participants = 2;
	ci.count = 3;
	ci.backend = LLMEM_BACKEND_LLMEM_DMABUF;
	ASSERT_EQ(llmem_frames_create(self->s, &ci, &frames), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_frames_count(frames), 3);
	EXPECT_FAILS(llmem_frames_check(frames, &enc, 1), -ENOTSUP);
	EXPECT_STREQ(llmem_last_error(), want);

	/* Each frame is a DMA-BUF of llmem.ko's over its own bytes of the
	 * shared page, scattered: llmem.ko's contiguous pages refuse them. */
	ASSERT_EQ(llmem_frames_get(frames, 2, &f), 0);
	EXPECT_EQ(f.num_fds, 1);
	EXPECT_EQ(f.size[0] % 4096, 0);
	EXPECT_GE(f.size[0], 1536ull * HEIGHT);
	ASSERT_EQ(llmem_dmabuf_query(f.fd[0], &st), 0);
	EXPECT_TRUE(st.flags & LLMEM_DMABUF_EXPORTED_BY_LLMEM);
	EXPECT_FALSE(st.flags & LLMEM_DMABUF_CONTIGUOUS);
	ASSERT_EQ(llmem_participant_llmem_contiguous(&contig), 0);
	EXPECT_FAILS(llmem_frames_check(frames, &contig, 1), -ENOTSUP);
	snprintf(want, sizeof(want), "frame 0: %s refuses the frame: buffer 0 is scattered",
		 contig.name);
	EXPECT_STREQ(llmem_last_error(), want);

	/* A statement without its device is not asked; one whose device
	 * string fills its array is refused. */
	peer = enc;
	memset(peer.device, 0, sizeof(peer.device));
	EXPECT_EQ(llmem_frames_check(frames, &peer, 1), 0) TH_LOG("%s", llmem_last_error());
	memset(peer.device, 'x', sizeof(peer.device));
	EXPECT_FAILS(llmem_frames_check(frames, &peer, 1), -EINVAL);
	EXPECT_STREQ(llmem_last_error(),
		     "frames check: participant 0: a name or device without its NUL");
	EXPECT_FAILS(llmem_frames_check(frames, NULL, 1), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames check: NULL participants");
	EXPECT_FAILS(llmem_frames_check(frames, ps, LLMEM_NEGOTIATE_MAX_PARTICIPANTS + 1), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames check: 17 participants; at most 16");
	EXPECT_FAILS(llmem_frames_get(frames, 3, &f), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: frame 3 of 3");
	EXPECT_FAILS(llmem_frames_get(frames, 0, NULL), -EINVAL);
	EXPECT_STREQ(llmem_last_error(), "frames: NULL out");
	llmem_frames_destroy(frames);
}

/*
 * The camera lays its frames out for the participants it is given: a
 * 512-byte DMA engine's pitch for the captured frames, the vkms plane's
 * for the RGBA frames, and frames captured and converted in that layout;
 * a participant that takes no YUYV refuses the open by name.
 */
TEST_F_TIMEOUT(negotiate, camera_frames_for_its_participants, 120)
{
	struct llmem_participant engine = { .kind = LLMEM_PARTICIPANT_OTHER }, plane, rgb;
	struct llmem_camera_create_info ci = {
		.device = self->vivid[VIVID_VMALLOC],
		.width = WIDTH,
		.height = HEIGHT,
		.participants = &engine,
		.num_participants = 1,
		.rgba_fourcc = DRM_FORMAT_XRGB8888,
		.rgba_participants = &plane,
		.num_rgba_participants = 1,
		.input = 0,
		.flags = LLMEM_CAMERA_INPUT,
	};
	struct llmem_camera_info info;
	struct llmem_camera_frame f;
	struct llmem_camera *cam;

	snprintf(engine.name, sizeof(engine.name), "a 512-byte DMA engine");
	engine.constraints.pitch_alignment = 512;
	ASSERT_EQ(llmem_participant_kms_plane(self->vkms, 0, &plane), 0)
	TH_LOG("%s", llmem_last_error());
	plane.constraints.pitch_alignment = 1024;
	ASSERT_EQ(llmem_camera_open(self->s, &ci, &cam), 0) TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_camera_get_info(cam, &info), 0);
	EXPECT_EQ(info.format.bytesperline, 1536);
	EXPECT_EQ(info.layout.pitch[0], 1536);
	EXPECT_GE(info.layout.size, 1536ull * HEIGHT);
	EXPECT_EQ(info.rgba_layout.pitch[0], 3072);
	ASSERT_EQ(llmem_camera_start(cam), 0) TH_LOG("%s", llmem_last_error());
	for (int n = 0; n < 3; n++) {
		ASSERT_EQ(llmem_camera_next(cam, 10000, &f), 0) TH_LOG("%s", llmem_last_error());
		ASSERT_NE(f.rgba_data, NULL);
		ASSERT_EQ(llmem_camera_release(cam, &f), 0);
	}
	llmem_camera_close(cam);

	/* Nobody else takes YUYV: the open names who refuses it. */
	rgb = engine;
	snprintf(rgb.name, sizeof(rgb.name), "an RGB-only engine");
	rgb.num_formats = 1;
	rgb.formats[0] = (struct llmem_format_caps){ .fourcc = DRM_FORMAT_XRGB8888,
						     .source = LLMEM_FACT_REPORTED };
	ci.participants = &rgb;
	EXPECT_FAILS(llmem_camera_open(self->s, &ci, &cam), -ENOTSUP);
	EXPECT_STREQ(llmem_last_error(), "an RGB-only engine has no YUYV");
}

TEST_HARNESS_MAIN
