// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "capture.h"
#include "test_util.h"

/* The first frames of a stream may precede the pattern settling. */
#define FRAMES_TO_SKIP 3

static int copy_out(struct llmem_v4l2 *dev, uint32_t index, uint32_t sizeimage, uint8_t **frame)
{
	uint8_t *map;
	int fd, ret;

	ret = llmem_v4l2_export(dev, index, &fd);
	if (ret)
		return ret;
	map = mmap(NULL, sizeimage, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	*frame = malloc(sizeimage);
	if (*frame)
		memcpy(*frame, map, sizeimage);
	else
		ret = -ENOMEM;
	munmap(map, sizeimage);
	close(fd);
	return ret;
}

int capture_mmap_frame(struct llmem_v4l2 *dev, uint32_t sizeimage, uint32_t nbufs, uint8_t **frame)
{
	struct llmem_v4l2_frame f;
	int ret;

	ret = llmem_v4l2_request_buffers(dev, LLMEM_V4L2_MEMORY_MMAP, nbufs);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < (uint32_t)ret; i++) {
		int err = llmem_v4l2_queue(dev, i);

		if (err)
			return err;
	}
	ret = llmem_v4l2_stream_on(dev);
	for (int n = 0; !ret && n < FRAMES_TO_SKIP; n++) {
		ret = llmem_v4l2_dequeue(dev, 10000, &f);
		if (!ret)
			ret = llmem_v4l2_queue(dev, f.index);
	}
	if (!ret)
		ret = llmem_v4l2_dequeue(dev, 10000, &f);
	if (!ret)
		ret = copy_out(dev, f.index, sizeimage, frame);
	if (!ret)
		ret = llmem_v4l2_stream_off(dev);
	if (!ret)
		ret = llmem_v4l2_request_buffers(dev, LLMEM_V4L2_MEMORY_MMAP, 0);
	return ret;
}

/* A multi-planar node's MMAP buffers, each plane mapped. */
struct mplane_buffers {
	uint32_t count, planes;
	void *maps[VIDEO_MAX_FRAME][VIDEO_MAX_PLANES];
	uint32_t lengths[VIDEO_MAX_PLANES];
};

static int map_mplane(int video, uint32_t nbufs, struct mplane_buffers *b)
{
	struct v4l2_requestbuffers req = {
		.count = nbufs,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
		.memory = V4L2_MEMORY_MMAP,
	};
	int ret = xioctl(video, VIDIOC_REQBUFS, &req);

	if (ret)
		return ret;
	b->count = req.count < VIDEO_MAX_FRAME ? req.count : VIDEO_MAX_FRAME;
	for (uint32_t i = 0; i < b->count; i++) {
		struct v4l2_plane planes[VIDEO_MAX_PLANES] = { { 0 } };
		struct v4l2_buffer buf = {
			.index = i,
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
			.memory = V4L2_MEMORY_MMAP,
			.m.planes = planes,
			.length = VIDEO_MAX_PLANES,
		};

		ret = xioctl(video, VIDIOC_QUERYBUF, &buf);
		if (ret)
			return ret;
		b->planes = buf.length;
		for (uint32_t p = 0; p < buf.length; p++) {
			b->lengths[p] = planes[p].length;
			b->maps[i][p] = mmap(NULL, planes[p].length, PROT_READ, MAP_SHARED, video,
					     planes[p].m.mem_offset);
			if (b->maps[i][p] == MAP_FAILED) {
				b->maps[i][p] = NULL;
				return -errno;
			}
		}
		ret = xioctl(video, VIDIOC_QBUF, &buf);
		if (ret)
			return ret;
	}
	return 0;
}

static int dqbuf_mplane(int video, struct v4l2_buffer *buf, struct v4l2_plane *planes)
{
	struct pollfd pfd = { .fd = video, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		return -ETIMEDOUT;
	*buf = (struct v4l2_buffer){
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE,
		.memory = V4L2_MEMORY_MMAP,
		.m.planes = planes,
		.length = VIDEO_MAX_PLANES,
	};
	return xioctl(video, VIDIOC_DQBUF, buf);
}

int capture_mmap_mplane(const char *path, uint32_t nbufs, uint8_t *planes[VIDEO_MAX_PLANES],
			uint32_t sizes[VIDEO_MAX_PLANES])
{
	struct mplane_buffers b = { 0 };
	struct v4l2_plane vp[VIDEO_MAX_PLANES];
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	struct v4l2_buffer buf;
	int video, ret;

	video = open(path, O_RDWR | O_CLOEXEC);
	if (video < 0)
		return -errno;
	ret = map_mplane(video, nbufs, &b);
	if (!ret)
		ret = xioctl(video, VIDIOC_STREAMON, &type);
	for (int n = 0; !ret && n < FRAMES_TO_SKIP; n++) {
		ret = dqbuf_mplane(video, &buf, vp);
		if (!ret)
			ret = xioctl(video, VIDIOC_QBUF, &buf);
	}
	if (!ret)
		ret = dqbuf_mplane(video, &buf, vp);
	for (uint32_t p = 0; !ret && p < b.planes; p++) {
		sizes[p] = b.lengths[p];
		planes[p] = malloc(sizes[p]);
		if (!planes[p])
			ret = -ENOMEM;
		else
			memcpy(planes[p], b.maps[buf.index][p], sizes[p]);
	}
	xioctl(video, VIDIOC_STREAMOFF, &type);
	for (uint32_t i = 0; i < b.count; i++)
		for (uint32_t p = 0; p < b.planes; p++)
			if (b.maps[i][p])
				munmap(b.maps[i][p], b.lengths[p]);
	map_mplane(video, 0, &(struct mplane_buffers){ 0 });
	close(video);
	return ret ? ret : (int)b.planes;
}

int video_node_named(const char *name, char *path, size_t len)
{
	DIR *dir = opendir("/sys/class/video4linux");
	struct dirent *e;
	int ret = -ENODEV;

	if (!dir)
		return -ENODEV;
	while (ret && (e = readdir(dir))) {
		char file[300], got[64] = "";
		FILE *f;

		if (strncmp(e->d_name, "video", 5))
			continue;
		snprintf(file, sizeof(file), "/sys/class/video4linux/%s/name", e->d_name);
		f = fopen(file, "re");
		if (!f)
			continue;
		if (fgets(got, sizeof(got), f))
			got[strcspn(got, "\n")] = '\0';
		fclose(f);
		if (!strcmp(got, name)) {
			snprintf(path, len, "/dev/%s", e->d_name);
			ret = 0;
		}
	}
	closedir(dir);
	return ret;
}

int vivid_set_control(const char *path, const char *name, int value)
{
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	int fd = open(path, O_RDWR | O_CLOEXEC), ret = -ENOENT;

	if (fd < 0)
		return -errno;
	while (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
		if (!strcmp(q.name, name)) {
			struct v4l2_control c = { .id = q.id, .value = value };

			ret = xioctl(fd, VIDIOC_S_CTRL, &c);
			break;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	close(fd);
	return ret;
}
