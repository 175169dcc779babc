/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TEST_UTIL_H
#define LLMEM_TEST_UTIL_H

#include <stddef.h>

struct v4l2_buffer;

/* 1 when the @n bytes at @p are all zero, else 0. */
int all_zero(const void *p, size_t n);

/*
 * The process's open fds, counted in /proc/self/fd (its own directory fd and
 * . and .. included: compare counts, never read one as such); -1 when it
 * cannot be read.
 */
int count_open_fds(void);

/* ioctl() that retries on EINTR and returns -errno on failure. */
int xioctl(int fd, unsigned long request, void *arg);

/* VIDIOC_REQBUFS of @count capture buffers of @memory on @video: the count
 * granted, or -errno. */
int capture_reqbufs(int video, unsigned int memory, unsigned int count);

/*
 * Sets @video to capture @width x @height YUYV, progressive, and gives the
 * frame size in *@sizeimage; -EINVAL when the driver picks anything else.
 */
int capture_set_yuyv(int video, unsigned int width, unsigned int height, size_t *sizeimage);

/* vivid keeps the frame interval a previous test set: ask for 30 fps. */
int capture_set_30fps(int video);

/*
 * Waits up to 10 s for a frame and dequeues it into *@buf (cleared first);
 * -ETIMEDOUT or -errno.
 */
int capture_dqbuf(int video, struct v4l2_buffer *buf, unsigned int memory);

/*
 * Captures through @nbufs MMAP buffers and returns a malloc'ed copy of the
 * lower half of the third frame, below vivid's on-screen text, which changes
 * from frame to frame; leaves the device stopped with no buffers.  NULL on
 * failure.
 */
unsigned char *capture_mmap_lower_half(int video, size_t sizeimage, unsigned int nbufs);

/*
 * Opens the first video node whose driver is vivid and which captures
 * single-planar video; -ENODEV when there is none.
 */
int open_vivid_capture(void);

/*
 * Finds the path of the nth (from 0) vivid single-planar capture node;
 * -ENODEV when there are fewer.  The rig loads vivid with n_devs=5
 * allocators=0,0,1,0,0 multiplanar=1,1,1,2,1: instances 0 and 1 use
 * videobuf2-vmalloc, 2 videobuf2-dma-contig; 3 is multi-planar (not counted
 * here) and 4 is the camera fault tests' own (found by name).
 */
int vivid_capture_path(int nth, char *path, size_t len);

/*
 * Turns off vivid's on-screen clock and counters at @path, so that every
 * frame of a static test pattern is the same; 0 or -errno.
 */
int vivid_static_pattern(const char *path);

/*
 * Fills @paths with the /dev/video* nodes whose VIDIOC_QUERYCAP driver is
 * @driver, up to @max of them, in no particular order: the number found, or
 * -errno when /dev cannot be read.
 */
int video_nodes_of(const char *driver, char (*paths)[32], int max);

/*
 * Opens the /dev/dri/card* whose DRM driver (DRM_IOCTL_VERSION) is @driver;
 * -ENODEV when there is none.
 */
int drm_card_of(const char *driver);

/*
 * Writes @value to the existing file at @path in one write(), as a sysfs or
 * cgroup file takes it: 0 or -errno (the kernel's answer, -EINVAL for a
 * value it refuses).
 */
int write_value(const char *path, const char *value);

/* Writes @len bytes of @data to a new file at @path: 0, -errno or -EIO. */
int write_file(const char *path, const void *data, size_t len);

/* The file at @path into @data, at most @max bytes: its length, or -errno. */
long read_file(const char *path, void *data, size_t max);

/*
 * Runs @argv (argv[0] looked up in PATH) with its stdout and stderr in the
 * file @log: its exit status, 126 when the log cannot be opened, 127 when
 * it cannot be run, -1 when it did not exit.
 */
int run_logged(const char *log, char *const argv[]);

#endif
