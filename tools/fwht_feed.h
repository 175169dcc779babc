/* SPDX-License-Identifier: MIT */
/*
 * The bitstream side of a V4L2 stateful FWHT decoder, for `llmem decode`
 * and `llmem display --decode`: a file of FWHT frames read with pread()
 * straight into llmem buffers that the decoder takes as DMA-BUFs, so that
 * the CPU copies none of its bytes; the drain once all of it is queued.
 */
#ifndef LLMEM_TOOLS_FWHT_FEED_H
#define LLMEM_TOOLS_FWHT_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "codec_bufs.h"

struct llmem_codec;
struct llmem_session;

#define FWHT_FEED_SLOTS 2

struct fwht_feed {
	const char *cmd; /* the messages' prefix, e.g. "llmem decode" */
	const char *path;
	int fd;
	uint64_t len, fed; /* the file's bytes, and those queued */
	uint32_t frames, fed_frames;
	uint32_t width, height, flags; /* the first frame's (V4L2_FWHT_FL_*) */
	struct llmem_codec *dec;
	char node[64];
	struct codec_buf in[FWHT_FEED_SLOTS];
	uint32_t in_free; /* bitmask of the slots the decoder gave back */
	bool draining;
};

/*
 * Opens @path and walks its frames' headers: at least one whole FWHT frame,
 * back to back to the end.  Return: 0, or a negative errno after a message
 * on stderr prefixed @cmd.  fwht_feed_close() @f either way.
 */
int fwht_feed_open(struct fwht_feed *f, const char *cmd, const char *path);

/*
 * Opens decoder @node (NULL: the first FWHT decoder that imports DMA-BUFs),
 * sets its bitstream format to the stream's size and gives it
 * FWHT_FEED_SLOTS buffers on @backend (0: the best that shares).
 */
int fwht_feed_open_decoder(struct fwht_feed *f, struct llmem_session *session, const char *node,
			   uint32_t backend);

/* Queues the next frames of the stream in the free slots, before streaming. */
int fwht_feed_prime(struct fwht_feed *f);

/*
 * Takes back the slots the decoder is done with, refills them and, once the
 * whole stream is queued and the decoder streams, drains it (once).
 */
int fwht_feed_step(struct fwht_feed *f);

void fwht_feed_close(struct fwht_feed *f);

#endif
