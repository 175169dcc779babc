/* SPDX-License-Identifier: MIT */
/*
 * What the codec's three files share: the handle, its queues, and the
 * node's ioctl and poll helpers.  codec.c owns the node (finding, opening,
 * the helpers), codec_state.c the encoder and decoder state machines,
 * codec_queue.c formats, buffers and streaming; each calls only the ones
 * listed before it.
 */
#ifndef LLMEM_VIDEO_CODEC_H
#define LLMEM_VIDEO_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include <llmem/codec.h>

/* Slots mapped per queue; drivers grant at most VIDEO_MAX_FRAME on 6.1. */
#define CODEC_MAX_SLOTS VIDEO_MAX_FRAME

struct codec_queue {
	uint32_t type;
	uint32_t memory;
	uint32_t count;
	bool streaming;
	struct llmem_codec_format format;
	void *maps[CODEC_MAX_SLOTS][LLMEM_FRAME_MAX_PLANES];
	size_t map_len[CODEC_MAX_SLOTS][LLMEM_FRAME_MAX_PLANES];
};

struct llmem_codec {
	int fd;
	char path[64];
	char driver[16];
	uint32_t kind;
	uint32_t state;
	bool mplane;
	struct codec_queue out, cap;
	/* A decoder's events dequeued and not yet handed out, as bits
	 * 1 << enum llmem_codec_event_type. */
	uint32_t events;
	/* A resolution change interrupted a drain, which resumes with CAPTURE. */
	bool drain_after_change;
	/* When CAPTURE was last asked to stream: a source change from before
	 * is one the caller has set CAPTURE up for already. */
	int64_t capture_since_ns;
};

/* The ioctl on the node; on failure records which one, on which node, and
 * why, and returns -errno. */
int llmem_codec_call(struct llmem_codec *c, unsigned long request, const char *name, void *arg);
#define CODEC_CALL(c, request, arg) llmem_codec_call(c, request, #request, arg)

/* CLOCK_MONOTONIC in nanoseconds, the clock of deadlines and of V4L2's
 * event timestamps. */
int64_t llmem_codec_now_ns(void);

/* Waits for @events on the node until @deadline (negative: forever): 0,
 * -ETIMEDOUT, 1 when poll saw only an error condition, or -errno recorded. */
int llmem_codec_wait_for(struct llmem_codec *c, short events, int64_t deadline);

/* @fourcc as four printable characters in @buf. */
const char *llmem_codec_fourcc_str(uint32_t fourcc, char buf[5]);

/* "OUTPUT" or "CAPTURE". */
const char *llmem_codec_queue_name(const struct llmem_codec *c, const struct codec_queue *q);

/* The state machine's moves (codec_state.c) on what the queues saw: a
 * CAPTURE buffer flagged LAST, and a queue started or stopped (0, or the
 * error of asking again for a drain a resolution change interrupted). */
void llmem_codec_on_last(struct llmem_codec *c);
int llmem_codec_on_streaming(struct llmem_codec *c);

#endif
