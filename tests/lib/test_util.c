// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm.h>
#include <linux/videodev2.h>

#include "test_util.h"

int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int xioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, request, arg);
	} while (ret == -1 && errno == EINTR);
	return ret == -1 ? -errno : ret;
}

int capture_reqbufs(int video, unsigned int memory, unsigned int count)
{
	struct v4l2_requestbuffers req = {
		.count = count,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = memory,
	};
	int ret = xioctl(video, VIDIOC_REQBUFS, &req);

	return ret ? ret : (int)req.count;
}

int capture_set_yuyv(int video, unsigned int width, unsigned int height, size_t *sizeimage)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int ret;

	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ret = xioctl(video, VIDIOC_S_FMT, &fmt);
	if (ret)
		return ret;
	if (fmt.fmt.pix.pixelformat != V4L2_PIX_FMT_YUYV || fmt.fmt.pix.width != width ||
	    fmt.fmt.pix.height != height)
		return -EINVAL;
	*sizeimage = fmt.fmt.pix.sizeimage;
	return 0;
}

int capture_set_30fps(int video)
{
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int ret;

	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = 30;
	ret = xioctl(video, VIDIOC_S_PARM, &parm);
	if (ret)
		return ret;
	if (parm.parm.capture.timeperframe.denominator <
	    10 * parm.parm.capture.timeperframe.numerator)
		return -ERANGE;
	return 0;
}

int capture_dqbuf(int video, struct v4l2_buffer *buf, unsigned int memory)
{
	struct pollfd pfd = { .fd = video, .events = POLLIN };

	memset(buf, 0, sizeof(*buf));
	buf->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	buf->memory = memory;
	if (poll(&pfd, 1, 10000) != 1)
		return -ETIMEDOUT;
	return xioctl(video, VIDIOC_DQBUF, buf);
}

unsigned char *capture_mmap_lower_half(int video, size_t sizeimage, unsigned int nbufs)
{
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	void *maps[VIDEO_MAX_FRAME] = { 0 };
	struct v4l2_buffer buf;
	size_t half = sizeimage / 2;
	unsigned char *copy;
	int n;

	if (nbufs > VIDEO_MAX_FRAME)
		return NULL;
	copy = malloc(half);
	n = capture_reqbufs(video, V4L2_MEMORY_MMAP, nbufs);
	if (n != (int)nbufs || !copy)
		return NULL;
	for (unsigned int i = 0; i < nbufs; i++) {
		memset(&buf, 0, sizeof(buf));
		buf.type = type;
		buf.memory = V4L2_MEMORY_MMAP;
		buf.index = i;
		if (xioctl(video, VIDIOC_QUERYBUF, &buf))
			return NULL;
		maps[i] = mmap(NULL, buf.length, PROT_READ, MAP_SHARED, video, buf.m.offset);
		if (maps[i] == MAP_FAILED || xioctl(video, VIDIOC_QBUF, &buf))
			return NULL;
	}
	if (xioctl(video, VIDIOC_STREAMON, &type))
		return NULL;
	for (int f = 0; f < 3; f++) {
		if (capture_dqbuf(video, &buf, V4L2_MEMORY_MMAP))
			return NULL;
		memcpy(copy, (unsigned char *)maps[buf.index] + half, half);
		xioctl(video, VIDIOC_QBUF, &buf);
	}
	xioctl(video, VIDIOC_STREAMOFF, &type);
	for (unsigned int i = 0; i < nbufs; i++)
		munmap(maps[i], sizeimage);
	capture_reqbufs(video, V4L2_MEMORY_MMAP, 0);
	return copy;
}

static int open_nth_vivid_capture(int nth, char *path, size_t len)
{
	for (int i = 0; i < 64; i++) {
		struct v4l2_capability cap = { 0 };
		int fd;

		snprintf(path, len, "/dev/video%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (xioctl(fd, VIDIOC_QUERYCAP, &cap) == 0 &&
		    strcmp((const char *)cap.driver, "vivid") == 0 &&
		    (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE) &&
		    (cap.device_caps & V4L2_CAP_STREAMING) && nth-- == 0)
			return fd;
		close(fd);
	}
	return -ENODEV;
}

int open_vivid_capture(void)
{
	char path[32];

	return open_nth_vivid_capture(0, path, sizeof(path));
}

int vivid_capture_path(int nth, char *path, size_t len)
{
	int fd = open_nth_vivid_capture(nth, path, len);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int vivid_static_pattern(const char *path)
{
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };
	int fd = open(path, O_RDWR | O_CLOEXEC), ret = -ENOENT;

	if (fd < 0)
		return -errno;
	while (xioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
		if (!strcmp(q.name, "OSD Text Mode")) {
			/* Menu item 2 is "None". */
			struct v4l2_control c = { .id = q.id, .value = 2 };

			ret = xioctl(fd, VIDIOC_S_CTRL, &c);
			break;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	close(fd);
	return ret;
}

int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

int video_nodes_of(const char *driver, char (*paths)[32], int max)
{
	DIR *dev = opendir("/dev");
	struct dirent *e;
	int n = 0;

	if (!dev)
		return -errno;
	while (n < max && (e = readdir(dev))) {
		struct v4l2_capability cap = { 0 };
		int fd;

		if (strncmp(e->d_name, "video", 5))
			continue;
		snprintf(paths[n], sizeof(paths[n]), "/dev/%s", e->d_name);
		fd = open(paths[n], O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (xioctl(fd, VIDIOC_QUERYCAP, &cap) == 0 &&
		    strncmp((const char *)cap.driver, driver, sizeof(cap.driver)) == 0)
			n++;
		close(fd);
	}
	closedir(dev);
	return n;
}

int drm_card_of(const char *driver)
{
	DIR *dri = opendir("/dev/dri");
	struct dirent *e;
	int found = -ENODEV;

	if (!dri)
		return -ENODEV;
	while (found < 0 && (e = readdir(dri))) {
		char path[300], name[32] = { 0 };
		struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
		int fd;

		if (strncmp(e->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (xioctl(fd, DRM_IOCTL_VERSION, &v) == 0 && !strcmp(name, driver))
			found = fd;
		else
			close(fd);
	}
	closedir(dri);
	return found;
}

int write_value(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wbe");
	int ok = f && fwrite(data, 1, len, f) == len;

	if (!f)
		return -errno;
	if (fclose(f))
		ok = 0;
	return ok ? 0 : -EIO;
}

long read_file(const char *path, void *data, size_t max)
{
	FILE *f = fopen(path, "rbe");
	size_t n;

	if (!f)
		return -errno;
	n = fread(data, 1, max, f);
	fclose(f);
	return (long)n;
}

int run_logged(const char *log, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
