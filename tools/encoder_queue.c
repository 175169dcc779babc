// SPDX-License-Identifier: MIT
#include <stdio.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>
#include <llmem/v4l2.h>

#include "encoder_queue.h"

int encoder_queue(const char *given, uint32_t raw_fourcc, uint32_t width, uint32_t height,
		  char *path, size_t len, struct llmem_participant *queue)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_ENCODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT,
					    .raw_fourcc = raw_fourcc };
	int ret = 0;

	if (given)
		snprintf(path, len, "%s", given);
	else
		ret = llmem_codec_find(&fi, path, len);
	return ret ? ret : llmem_participant_v4l2(path, 1, width, height, queue);
}
