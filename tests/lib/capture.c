// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture.h"

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
