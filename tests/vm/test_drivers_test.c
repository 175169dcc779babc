// SPDX-License-Identifier: MIT
/*
 * The test codecs and the test display that the rig builds out of tree
 * (scripts/build-test-drivers) are loaded and work: vicodec's three nodes and
 * vim2m are memory-to-memory devices, vicodec's stateful encoder turns YUV420
 * frames into an FWHT bitstream that its stateful decoder turns back into
 * nearly the same frames, and vkms is a card with a CRTC, a connected virtual
 * connector and a writeback connector.  Nodes are found by driver name, never
 * by number.  A missing driver fails: the rig is meant to load it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kselftest_harness.h"
#include "test_util.h"

#define WIDTH 640
#define HEIGHT 480
#define RAW_SIZE (WIDTH * HEIGHT * 3 / 2)
#define NFRAMES 4
#define NBUFS (NFRAMES + 1)
#define TIMEOUT_MS 10000

/*
 * The header in front of every FWHT frame, as struct fwht_cframe_hdr in
 * vicodec's codec-fwht.h lays it out: two magic words (bytes 4f 4f 4f 4f
 * ff ff ff ff, the same in either byte order), then big-endian fields.
 */
struct fwht_header {
	uint32_t magic1;
	uint32_t magic2;
	uint32_t version;
	uint32_t width;
	uint32_t height;
	uint32_t flags;
	uint32_t colorspace;
	uint32_t xfer_func;
	uint32_t ycbcr_enc;
	uint32_t quantization;
	uint32_t size;
};

#define FWHT_MAGIC1 0x4f4f4f4f
#define FWHT_MAGIC2 0xffffffff

enum vicodec_role {
	VICODEC_ENCODER,
	VICODEC_DECODER,
	VICODEC_STATELESS,
	VICODEC_ROLES
};

static const char *const role_names[VICODEC_ROLES] = { "stateful encoder", "stateful decoder",
						       "stateless decoder" };

/* 1 when @fd's queue of @type lists @fourcc. */
static int queue_offers(int fd, enum v4l2_buf_type type, uint32_t fourcc)
{
	struct v4l2_fmtdesc d = { .type = type };

	for (d.index = 0; xioctl(fd, VIDIOC_ENUM_FMT, &d) == 0; d.index++)
		if (d.pixelformat == fourcc)
			return 1;
	return 0;
}

/* Which of vicodec's nodes @fd is, by the formats its queues take; -1 if none. */
static int vicodec_role(int fd)
{
	if (queue_offers(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_PIX_FMT_FWHT))
		return VICODEC_ENCODER;
	if (queue_offers(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_PIX_FMT_FWHT))
		return VICODEC_DECODER;
	if (queue_offers(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_PIX_FMT_FWHT_STATELESS))
		return VICODEC_STATELESS;
	return -1;
}

/* Opens vicodec's node of @role; -ENODEV when there is none. */
static int open_vicodec(enum vicodec_role role)
{
	char paths[16][32];
	int n = video_nodes_of("vicodec", paths, 16);

	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDWR | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (vicodec_role(fd) == (int)role)
			return fd;
		close(fd);
	}
	return -ENODEV;
}

/*
 * The device caps of the node at @path, or 0, less V4L2_CAP_EXT_PIX_FORMAT,
 * which the V4L2 core adds to every node.
 */
static uint32_t device_caps(const char *path)
{
	struct v4l2_capability cap = { 0 };
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (xioctl(fd, VIDIOC_QUERYCAP, &cap))
		cap.device_caps = 0;
	close(fd);
	return cap.device_caps & ~V4L2_CAP_EXT_PIX_FORMAT;
}

/* A smooth picture with a bright square that moves with @frame. */
static void make_frame(uint8_t *yuv, int frame)
{
	uint8_t *y = yuv, *u = yuv + WIDTH * HEIGHT, *v = u + WIDTH * HEIGHT / 4;

	for (int r = 0; r < HEIGHT; r++)
		for (int c = 0; c < WIDTH; c++) {
			int in_box =
				c >= 64 + frame * 32 && c < 128 + frame * 32 && r >= 96 && r < 160;

			y[r * WIDTH + c] = in_box ? 224 : 16 + c * 150 / WIDTH + r * 50 / HEIGHT;
		}
	for (int r = 0; r < HEIGHT / 2; r++)
		for (int c = 0; c < WIDTH / 2; c++) {
			u[r * WIDTH / 2 + c] = 64 + c * 128 / (WIDTH / 2);
			v[r * WIDTH / 2 + c] = 64 + r * 128 / (HEIGHT / 2);
		}
}

struct queue {
	enum v4l2_buf_type type;
	unsigned int count;
	void *maps[NBUFS];
	size_t lengths[NBUFS];
};

/* REQBUFS of @count MMAP buffers on @q, each mapped; 0 or -errno. */
static int queue_alloc(int fd, struct queue *q, enum v4l2_buf_type type, unsigned int count)
{
	struct v4l2_requestbuffers req = { .count = count,
					   .type = type,
					   .memory = V4L2_MEMORY_MMAP };
	int ret = xioctl(fd, VIDIOC_REQBUFS, &req);

	q->type = type;
	if (ret)
		return ret;
	if (req.count != count)
		return -ENOBUFS;
	for (unsigned int i = 0; i < count; i++) {
		struct v4l2_buffer buf = { .type = type, .memory = V4L2_MEMORY_MMAP, .index = i };

		ret = xioctl(fd, VIDIOC_QUERYBUF, &buf);
		if (ret)
			return ret;
		q->maps[i] = mmap(NULL, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  buf.m.offset);
		if (q->maps[i] == MAP_FAILED) {
			q->maps[i] = NULL;
			return -errno;
		}
		q->lengths[i] = buf.length;
		q->count = i + 1;
	}
	return 0;
}

static void queue_free(struct queue *q)
{
	for (unsigned int i = 0; i < q->count; i++)
		munmap(q->maps[i], q->lengths[i]);
	q->count = 0;
}

/* QBUF of buffer @index with @bytesused, stamped with @usec. */
static int queue_buf(int fd, struct queue *q, unsigned int index, unsigned int bytesused, long usec)
{
	struct v4l2_buffer buf = {
		.type = q->type,
		.memory = V4L2_MEMORY_MMAP,
		.index = index,
		.bytesused = bytesused,
		.field = V4L2_FIELD_NONE,
		.timestamp = { .tv_usec = usec },
	};

	return xioctl(fd, VIDIOC_QBUF, &buf);
}

/* DQBUF from @type, waiting up to TIMEOUT_MS; 0, -ETIMEDOUT or -errno. */
static int dequeue(int fd, enum v4l2_buf_type type, struct v4l2_buffer *buf)
{
	struct pollfd pfd = {
		.fd = fd,
		.events = V4L2_TYPE_IS_OUTPUT(type) ? POLLOUT : POLLIN,
	};

	for (;;) {
		int ret;

		memset(buf, 0, sizeof(*buf));
		buf->type = type;
		buf->memory = V4L2_MEMORY_MMAP;
		ret = xioctl(fd, VIDIOC_DQBUF, buf);
		if (ret != -EAGAIN)
			return ret;
		ret = poll(&pfd, 1, TIMEOUT_MS);
		if (ret == 0)
			return -ETIMEDOUT;
		if (ret < 0)
			return -errno;
	}
}

FIXTURE(vicodec)
{
	int enc, dec;
	struct queue queues[4];
	uint8_t *input[NFRAMES];
	uint8_t *stream[NFRAMES];
	unsigned int stream_len[NFRAMES];
};

FIXTURE_SETUP(vicodec)
{
	self->dec = -1;
	self->enc = open_vicodec(VICODEC_ENCODER);
	ASSERT_GE(self->enc, 0) TH_LOG("no vicodec encoder: the rig must load vicodec");
	self->dec = open_vicodec(VICODEC_DECODER);
	ASSERT_GE(self->dec, 0) TH_LOG("no vicodec stateful decoder");
	for (int f = 0; f < NFRAMES; f++) {
		self->input[f] = malloc(RAW_SIZE);
		ASSERT_NE(self->input[f], NULL);
		make_frame(self->input[f], f);
	}
}

FIXTURE_TEARDOWN(vicodec)
{
	for (int i = 0; i < 4; i++)
		queue_free(&self->queues[i]);
	for (int f = 0; f < NFRAMES; f++) {
		free(self->input[f]);
		free(self->stream[f]);
	}
	if (self->enc >= 0)
		close(self->enc);
	if (self->dec >= 0)
		close(self->dec);
}

/*
 * Encodes the input frames with MMAP buffers on both queues, drains with
 * V4L2_ENC_CMD_STOP until V4L2_BUF_FLAG_LAST and keeps each frame's bitstream.
 */
static void encode(struct __test_metadata *_metadata, FIXTURE_DATA(vicodec) * self)
{
	struct queue *out = &self->queues[0], *cap = &self->queues[1];
	enum v4l2_buf_type out_type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	enum v4l2_buf_type cap_type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_format fmt = { .type = out_type };
	struct v4l2_encoder_cmd stop = { .cmd = V4L2_ENC_CMD_STOP };
	struct v4l2_buffer buf;
	int frames = 0, last = 0;

	fmt.fmt.pix.width = WIDTH;
	fmt.fmt.pix.height = HEIGHT;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUV420;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ASSERT_EQ(xioctl(self->enc, VIDIOC_S_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_YUV420);
	ASSERT_EQ(fmt.fmt.pix.width, WIDTH);
	ASSERT_EQ(fmt.fmt.pix.height, HEIGHT);
	ASSERT_EQ(fmt.fmt.pix.bytesperline, WIDTH);
	ASSERT_EQ(fmt.fmt.pix.sizeimage, RAW_SIZE);

	memset(&fmt, 0, sizeof(fmt));
	fmt.type = cap_type;
	fmt.fmt.pix.width = WIDTH;
	fmt.fmt.pix.height = HEIGHT;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	ASSERT_EQ(xioctl(self->enc, VIDIOC_S_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_FWHT);
	ASSERT_GE(fmt.fmt.pix.sizeimage, RAW_SIZE + sizeof(struct fwht_header));

	ASSERT_EQ(xioctl(self->enc, VIDIOC_TRY_ENCODER_CMD, &stop), 0);
	ASSERT_EQ(queue_alloc(self->enc, out, out_type, NFRAMES), 0);
	ASSERT_EQ(queue_alloc(self->enc, cap, cap_type, NBUFS), 0);
	for (int f = 0; f < NFRAMES; f++) {
		ASSERT_GE(out->lengths[f], RAW_SIZE);
		memcpy(out->maps[f], self->input[f], RAW_SIZE);
		ASSERT_EQ(queue_buf(self->enc, out, f, RAW_SIZE, 1000 + f), 0);
	}
	for (int i = 0; i < NBUFS; i++)
		ASSERT_EQ(queue_buf(self->enc, cap, i, 0, 0), 0);
	ASSERT_EQ(xioctl(self->enc, VIDIOC_STREAMON, &out_type), 0);
	ASSERT_EQ(xioctl(self->enc, VIDIOC_STREAMON, &cap_type), 0);
	ASSERT_EQ(xioctl(self->enc, VIDIOC_ENCODER_CMD, &stop), 0);

	while (!last) {
		ASSERT_EQ(dequeue(self->enc, cap_type, &buf), 0);
		last = !!(buf.flags & V4L2_BUF_FLAG_LAST);
		if (!buf.bytesused)
			continue;
		ASSERT_LT(frames, NFRAMES) TH_LOG("more bitstream buffers than frames");
		ASSERT_EQ(buf.timestamp.tv_usec, 1000 + frames);
		self->stream[frames] = malloc(buf.bytesused);
		ASSERT_NE(self->stream[frames], NULL);
		memcpy(self->stream[frames], cap->maps[buf.index], buf.bytesused);
		self->stream_len[frames++] = buf.bytesused;
	}
	ASSERT_EQ(frames, NFRAMES);
	for (int f = 0; f < NFRAMES; f++) {
		ASSERT_EQ(dequeue(self->enc, out_type, &buf), 0);
		ASSERT_EQ(buf.flags & V4L2_BUF_FLAG_ERROR, 0);
	}
	ASSERT_EQ(xioctl(self->enc, VIDIOC_STREAMOFF, &out_type), 0);
	ASSERT_EQ(xioctl(self->enc, VIDIOC_STREAMOFF, &cap_type), 0);
}

/* Every frame's bitstream opens with FWHT's magic and a header that matches it. */
TEST_F(vicodec, encode_fwht_bitstream)
{
	encode(_metadata, self);
	for (int f = 0; f < NFRAMES; f++) {
		const uint32_t chroma_full =
			V4L2_FWHT_FL_CHROMA_FULL_WIDTH | V4L2_FWHT_FL_CHROMA_FULL_HEIGHT;
		struct fwht_header h;
		uint32_t flags;

		ASSERT_GT(self->stream_len[f], sizeof(h));
		memcpy(&h, self->stream[f], sizeof(h));
		EXPECT_EQ(h.magic1, FWHT_MAGIC1);
		EXPECT_EQ(h.magic2, FWHT_MAGIC2);
		EXPECT_EQ(ntohl(h.version), V4L2_FWHT_VERSION);
		EXPECT_EQ(ntohl(h.width), WIDTH);
		EXPECT_EQ(ntohl(h.height), HEIGHT);
		EXPECT_EQ(ntohl(h.size) + sizeof(h), self->stream_len[f]);
		flags = ntohl(h.flags);
		/*
		 * Two bits of pixel encoding, three of components less one
		 * (the uapi's masks use GENMASK, which userspace lacks), and
		 * chroma halved both ways.
		 */
		EXPECT_EQ((flags >> V4L2_FWHT_FL_PIXENC_OFFSET) & 3,
			  V4L2_FWHT_FL_PIXENC_YUV >> V4L2_FWHT_FL_PIXENC_OFFSET);
		EXPECT_EQ((flags >> V4L2_FWHT_FL_COMPONENTS_NUM_OFFSET) & 7, 3 - 1);
		EXPECT_EQ(flags & chroma_full, 0);
		/* The group of pictures opens with an intra frame; the rest are predicted. */
		EXPECT_EQ(!!(flags & V4L2_FWHT_FL_I_FRAME), f == 0) TH_LOG("frame %d", f);
		/* The smooth picture compresses. */
		EXPECT_LT(self->stream_len[f], RAW_SIZE / 4);
	}
}

/*
 * The stateful decoder reports the stream's format by a source change, and
 * gives back every frame, in order, within a few levels of the input.
 */
TEST_F(vicodec, decode_matches_input)
{
	struct queue *out = &self->queues[2], *cap = &self->queues[3];
	enum v4l2_buf_type out_type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	enum v4l2_buf_type cap_type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };
	struct v4l2_decoder_cmd stop = { .cmd = V4L2_DEC_CMD_STOP };
	struct v4l2_format fmt = { .type = out_type };
	struct pollfd pfd = { .fd = self->dec, .events = POLLPRI };
	struct v4l2_event ev;
	struct v4l2_buffer buf;
	int frames = 0, last = 0;

	encode(_metadata, self);

	ASSERT_EQ(xioctl(self->dec, VIDIOC_SUBSCRIBE_EVENT, &sub), 0);
	fmt.fmt.pix.width = WIDTH;
	fmt.fmt.pix.height = HEIGHT;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	ASSERT_EQ(xioctl(self->dec, VIDIOC_S_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_FWHT);
	ASSERT_EQ(queue_alloc(self->dec, out, out_type, NFRAMES), 0);
	for (int f = 0; f < NFRAMES; f++) {
		ASSERT_GE(out->lengths[f], self->stream_len[f]);
		memcpy(out->maps[f], self->stream[f], self->stream_len[f]);
		ASSERT_EQ(queue_buf(self->dec, out, f, self->stream_len[f], 2000 + f), 0);
	}
	ASSERT_EQ(xioctl(self->dec, VIDIOC_STREAMON, &out_type), 0);

	ASSERT_EQ(poll(&pfd, 1, TIMEOUT_MS), 1) TH_LOG("no source change event");
	ASSERT_EQ(xioctl(self->dec, VIDIOC_DQEVENT, &ev), 0);
	ASSERT_EQ(ev.type, V4L2_EVENT_SOURCE_CHANGE);
	ASSERT_NE(ev.u.src_change.changes & V4L2_EVENT_SRC_CH_RESOLUTION, 0);

	memset(&fmt, 0, sizeof(fmt));
	fmt.type = cap_type;
	ASSERT_EQ(xioctl(self->dec, VIDIOC_G_FMT, &fmt), 0);
	ASSERT_EQ(fmt.fmt.pix.pixelformat, V4L2_PIX_FMT_YUV420);
	ASSERT_EQ(fmt.fmt.pix.width, WIDTH);
	ASSERT_EQ(fmt.fmt.pix.height, HEIGHT);
	ASSERT_EQ(fmt.fmt.pix.sizeimage, RAW_SIZE);
	ASSERT_EQ(queue_alloc(self->dec, cap, cap_type, NBUFS), 0);
	for (int i = 0; i < NBUFS; i++)
		ASSERT_EQ(queue_buf(self->dec, cap, i, 0, 0), 0);
	ASSERT_EQ(xioctl(self->dec, VIDIOC_STREAMON, &cap_type), 0);
	ASSERT_EQ(xioctl(self->dec, VIDIOC_DECODER_CMD, &stop), 0);

	while (!last) {
		const uint8_t *got, *want;
		uint64_t error = 0;
		int worst = 0;

		ASSERT_EQ(dequeue(self->dec, cap_type, &buf), 0);
		last = !!(buf.flags & V4L2_BUF_FLAG_LAST);
		if (!buf.bytesused)
			continue;
		ASSERT_LT(frames, NFRAMES) TH_LOG("more decoded frames than were encoded");
		ASSERT_EQ(buf.flags & V4L2_BUF_FLAG_ERROR, 0);
		ASSERT_EQ(buf.bytesused, RAW_SIZE);
		ASSERT_EQ(buf.timestamp.tv_usec, 2000 + frames);
		got = cap->maps[buf.index];
		want = self->input[frames];
		for (int i = 0; i < RAW_SIZE; i++) {
			int d = abs(got[i] - want[i]);

			error += d;
			if (d > worst)
				worst = d;
		}
		TH_LOG("frame %d: mean difference %.2f levels, largest %d", frames,
		       (double)error / RAW_SIZE, worst);
		/*
		 * FWHT is lossy: the frame comes back close (0.74 levels on
		 * average, 3 at most, on both kernels) but not identical, which
		 * would mean it never went through the codec, and it is not
		 * another frame, whose square sits 32 pixels away and about
		 * 170 levels off.
		 */
		EXPECT_LE(error * 100 / RAW_SIZE, 100);
		EXPECT_GT(error, 0);
		EXPECT_LE(worst, 8);
		frames++;
	}
	ASSERT_EQ(frames, NFRAMES);
	ASSERT_EQ(xioctl(self->dec, VIDIOC_STREAMOFF, &out_type), 0);
	ASSERT_EQ(xioctl(self->dec, VIDIOC_STREAMOFF, &cap_type), 0);
}

/* vicodec has exactly its three nodes, each a streaming single-planar m2m device. */
TEST(vicodec_nodes)
{
	char paths[16][32];
	int n = video_nodes_of("vicodec", paths, 16), seen[VICODEC_ROLES] = { 0 };

	ASSERT_EQ(n, VICODEC_ROLES) TH_LOG("the rig must load vicodec");
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDWR | O_NONBLOCK | O_CLOEXEC), role;

		ASSERT_GE(fd, 0);
		role = vicodec_role(fd);
		close(fd);
		ASSERT_GE(role, 0) TH_LOG("%s is none of vicodec's nodes", paths[i]);
		seen[role]++;
		EXPECT_EQ(device_caps(paths[i]), V4L2_CAP_VIDEO_M2M | V4L2_CAP_STREAMING)
		TH_LOG("%s (%s)", paths[i], role_names[role]);
	}
	for (int r = 0; r < VICODEC_ROLES; r++) {
		EXPECT_EQ(seen[r], 1) TH_LOG("%s", role_names[r]);
	}
}

/* vim2m has one node, a streaming single-planar m2m device. */
TEST(vim2m_node)
{
	char paths[4][32];
	int n = video_nodes_of("vim2m", paths, 4);

	ASSERT_EQ(n, 1) TH_LOG("the rig must load vim2m");
	EXPECT_EQ(device_caps(paths[0]), V4L2_CAP_VIDEO_M2M | V4L2_CAP_STREAMING);
}

FIXTURE(vkms)
{
	int fd;
};

FIXTURE_SETUP(vkms)
{
	self->fd = drm_card_of("vkms");
	ASSERT_GE(self->fd, 0) TH_LOG("no vkms card: the rig must load vkms");
}

FIXTURE_TEARDOWN(vkms)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The connectors of @res of @type; the first one's id in @id. */
static int count_connectors(int fd, const drmModeRes *res, uint32_t type, uint32_t *id)
{
	int n = 0;

	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(fd, res->connectors[i]);

		if (!c)
			continue;
		if (c->connector_type == type && n++ == 0 && id)
			*id = c->connector_id;
		drmModeFreeConnector(c);
	}
	return n;
}

/* One CRTC drives a connected virtual connector whose preferred mode is 1024x768. */
TEST_F(vkms, crtc_and_virtual_connector)
{
	drmModeRes *res = drmModeGetResources(self->fd);
	drmModeConnector *conn;
	uint32_t id = 0;
	int preferred = 0;

	ASSERT_NE(res, NULL);
	EXPECT_GE(res->count_crtcs, 1);
	EXPECT_GE(res->count_encoders, 1);
	ASSERT_EQ(count_connectors(self->fd, res, DRM_MODE_CONNECTOR_VIRTUAL, &id), 1);
	drmModeFreeResources(res);

	conn = drmModeGetConnector(self->fd, id);
	ASSERT_NE(conn, NULL);
	EXPECT_EQ(conn->connection, DRM_MODE_CONNECTED);
	EXPECT_GT(conn->count_modes, 0);
	for (int m = 0; m < conn->count_modes; m++)
		if (conn->modes[m].type & DRM_MODE_TYPE_PREFERRED) {
			EXPECT_EQ(conn->modes[m].hdisplay, 1024);
			EXPECT_EQ(conn->modes[m].vdisplay, 768);
			preferred++;
		}
	EXPECT_EQ(preferred, 1);
	drmModeFreeConnector(conn);
}

/*
 * The writeback connector shows only to a client that asks for it, and
 * writes XRGB8888 frames.
 */
TEST_F(vkms, writeback_connector)
{
	drmModeObjectProperties *props;
	drmModeRes *res;
	uint32_t id = 0;
	int formats_seen = 0;

	res = drmModeGetResources(self->fd);
	ASSERT_NE(res, NULL);
	EXPECT_EQ(count_connectors(self->fd, res, DRM_MODE_CONNECTOR_WRITEBACK, NULL), 0);
	drmModeFreeResources(res);

	ASSERT_EQ(drmSetClientCap(self->fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	ASSERT_EQ(drmSetClientCap(self->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0);
	res = drmModeGetResources(self->fd);
	ASSERT_NE(res, NULL);
	ASSERT_EQ(count_connectors(self->fd, res, DRM_MODE_CONNECTOR_WRITEBACK, &id), 1)
	TH_LOG("vkms has writeback on by default (enable_writeback)");
	drmModeFreeResources(res);

	props = drmModeObjectGetProperties(self->fd, id, DRM_MODE_OBJECT_CONNECTOR);
	ASSERT_NE(props, NULL);
	for (uint32_t i = 0; i < props->count_props; i++) {
		drmModePropertyRes *p = drmModeGetProperty(self->fd, props->props[i]);
		drmModePropertyBlobRes *blob;

		if (!p)
			continue;
		if (!strcmp(p->name, "WRITEBACK_PIXEL_FORMATS")) {
			blob = drmModeGetPropertyBlob(self->fd, props->prop_values[i]);
			ASSERT_NE(blob, NULL);
			for (uint32_t f = 0; f < blob->length / sizeof(uint32_t); f++)
				formats_seen +=
					((const uint32_t *)blob->data)[f] == DRM_FORMAT_XRGB8888;
			drmModeFreePropertyBlob(blob);
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	EXPECT_EQ(formats_seen, 1);
}

TEST_HARNESS_MAIN
