/* SPDX-License-Identifier: MIT */
#ifndef LLMEM_TOOLS_ENCODER_QUEUE_H
#define LLMEM_TOOLS_ENCODER_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <llmem/negotiate.h>

/*
 * The FWHT encoder a camera's frames go to, @given or else the first that
 * takes @raw_fourcc, its path into @path, and what its OUTPUT queue takes
 * at @width x @height into @queue: the camera lays its frames out for it
 * (negotiate.h).  0, or the library's error with its message.
 */
int encoder_queue(const char *given, uint32_t raw_fourcc, uint32_t width, uint32_t height,
		  char *path, size_t len, struct llmem_participant *queue);

#endif
