// SPDX-License-Identifier: MIT
/*
 * The stateful encoder and decoder protocols of the kernel's
 * dev-encoder.rst and dev-decoder.rst: the state a codec is in, the drain
 * (V4L2_ENC_CMD_STOP, V4L2_DEC_CMD_STOP) and its end at the LAST buffer,
 * resuming, and a decoder's events.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "base/error.h"
#include "video/codec.h"
#include "video/v4l2.h"

/* Notes a dequeued event in c->events; a source change from before CAPTURE
 * last started is one the caller has handled, and is dropped. */
static void note_event(struct llmem_codec *c, const struct v4l2_event *ev)
{
	int64_t at = (int64_t)ev->timestamp.tv_sec * 1000000000 + ev->timestamp.tv_nsec;

	if (ev->type == V4L2_EVENT_SOURCE_CHANGE &&
	    (!c->cap.streaming || at >= c->capture_since_ns))
		c->events |= 1u << LLMEM_CODEC_EVENT_SOURCE_CHANGE;
	else if (ev->type == V4L2_EVENT_EOS)
		c->events |= 1u << LLMEM_CODEC_EVENT_EOS;
}

/* Moves the events the decoder has queued into c->events, without waiting. */
static void take_events(struct llmem_codec *c)
{
	struct v4l2_event ev;

	memset(&ev, 0, sizeof(ev));
	while (!llmem_v4l2_xioctl(c->fd, VIDIOC_DQEVENT, &ev)) {
		note_event(c, &ev);
		memset(&ev, 0, sizeof(ev));
	}
}

/*
 * A LAST buffer ends a drain or, on a decoder, announces a new resolution:
 * the decoder queues its source-change event before it flags the buffer,
 * so the events already queued tell which.  A resolution change in the
 * middle of a drain interrupts it, and the drain goes on once CAPTURE
 * streams again (dev-decoder.rst, "Drain").
 */
void llmem_codec_on_last(struct llmem_codec *c)
{
	if (c->kind != LLMEM_CODEC_DECODER) {
		c->state = LLMEM_CODEC_STOPPED;
		return;
	}
	take_events(c);
	if (c->events & (1u << LLMEM_CODEC_EVENT_SOURCE_CHANGE) ||
	    c->state != LLMEM_CODEC_DRAINING) {
		c->drain_after_change = c->state == LLMEM_CODEC_DRAINING;
		c->state = LLMEM_CODEC_SOURCE_CHANGE;
	} else {
		c->state = LLMEM_CODEC_STOPPED;
	}
}

static int send_command(struct llmem_codec *c, uint32_t cmd)
{
	if (c->kind == LLMEM_CODEC_ENCODER) {
		struct v4l2_encoder_cmd ec = { .cmd = cmd };

		return CODEC_CALL(c, VIDIOC_ENCODER_CMD, &ec);
	} else {
		struct v4l2_decoder_cmd dc = { .cmd = cmd };

		return CODEC_CALL(c, VIDIOC_DECODER_CMD, &dc);
	}
}

/*
 * Both queues streaming again after a stop, a drain or a source change:
 * STREAMING, or DRAINING where a resolution change interrupted a drain.
 * Restarting CAPTURE ended that drain in the driver (v4l2-mem2mem clears
 * its draining state when CAPTURE stops), so it is asked for again; a
 * driver still draining answers -EBUSY, which is as good.
 */
int llmem_codec_on_streaming(struct llmem_codec *c)
{
	bool drain = c->drain_after_change;
	int ret;

	if (!c->out.streaming && !c->cap.streaming) {
		c->state = LLMEM_CODEC_INITIAL;
		c->drain_after_change = false;
		return 0;
	}
	if (!c->out.streaming || !c->cap.streaming ||
	    (c->state != LLMEM_CODEC_INITIAL && c->state != LLMEM_CODEC_SOURCE_CHANGE &&
	     c->state != LLMEM_CODEC_STOPPED))
		return 0;
	c->drain_after_change = false;
	c->state = LLMEM_CODEC_STREAMING;
	if (!drain)
		return 0;
	ret = llmem_v4l2_xioctl(c->fd, VIDIOC_DECODER_CMD,
				&(struct v4l2_decoder_cmd){ .cmd = V4L2_DEC_CMD_STOP });
	if (ret && ret != -EBUSY)
		return llmem_error(ret,
				   "VIDIOC_DECODER_CMD on %s: %s (the drain a resolution "
				   "change interrupted)",
				   c->path, strerror(-ret));
	c->state = LLMEM_CODEC_DRAINING;
	return 0;
}

LLMEM_PUBLIC int llmem_codec_drain(struct llmem_codec *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "llmem_codec_drain: NULL codec");
	if (c->kind == LLMEM_CODEC_CONVERTER)
		return llmem_error(-ENOTSUP, "%s: a converter has no drain", c->path);
	if (c->state != LLMEM_CODEC_STREAMING)
		return llmem_error(-EINVAL, "%s: drain needs both queues streaming", c->path);
	/* V4L2_ENC_CMD_STOP and V4L2_DEC_CMD_STOP are both 1. */
	ret = send_command(c, V4L2_ENC_CMD_STOP);
	if (!ret)
		c->state = LLMEM_CODEC_DRAINING;
	return ret;
}

LLMEM_PUBLIC int llmem_codec_resume(struct llmem_codec *c)
{
	int ret;

	if (!c)
		return llmem_error(-EINVAL, "llmem_codec_resume: NULL codec");
	if (c->state != LLMEM_CODEC_STOPPED)
		return llmem_error(-EINVAL, "%s: resume follows a finished drain", c->path);
	ret = send_command(c, V4L2_ENC_CMD_START);
	if (!ret)
		c->state = LLMEM_CODEC_STREAMING;
	return ret;
}

LLMEM_PUBLIC int llmem_codec_wait_event(struct llmem_codec *c, int timeout_ms, uint32_t *type)
{
	int64_t deadline = timeout_ms < 0 ? -1 : llmem_codec_now_ns() / 1000000 + timeout_ms;
	struct v4l2_event ev;
	int ret;

	if (!c || !type)
		return llmem_error(-EINVAL, "llmem_codec_wait_event: NULL %s",
				   c ? "type" : "codec");
	if (c->kind != LLMEM_CODEC_DECODER)
		return llmem_error(-EINVAL, "%s: only a decoder sends events", c->path);
	while (!c->events) {
		memset(&ev, 0, sizeof(ev));
		ret = llmem_v4l2_xioctl(c->fd, VIDIOC_DQEVENT, &ev);
		if (!ret) {
			note_event(c, &ev);
			continue;
		}
		if (ret != -ENOENT)
			return llmem_error(ret, "VIDIOC_DQEVENT on %s: %s", c->path,
					   strerror(-ret));
		ret = llmem_codec_wait_for(c, POLLPRI, deadline);
		if (ret == -ETIMEDOUT)
			return llmem_error(-ETIMEDOUT, "%s: no event within %d ms", c->path,
					   timeout_ms);
		if (ret < 0)
			return ret;
	}
	*type = (uint32_t)__builtin_ctz(c->events);
	c->events &= c->events - 1;
	if (*type == LLMEM_CODEC_EVENT_SOURCE_CHANGE && !c->cap.streaming)
		c->state = LLMEM_CODEC_SOURCE_CHANGE;
	return 0;
}
