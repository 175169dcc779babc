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

void llmem_codec_on_last(struct llmem_codec *c)
{
	if (c->state == LLMEM_CODEC_DRAINING)
		c->state = LLMEM_CODEC_STOPPED;
	else if (c->kind == LLMEM_CODEC_DECODER)
		c->state = LLMEM_CODEC_SOURCE_CHANGE;
	else
		c->state = LLMEM_CODEC_STOPPED;
}

void llmem_codec_on_streaming(struct llmem_codec *c)
{
	if (!c->out.streaming && !c->cap.streaming)
		c->state = LLMEM_CODEC_INITIAL;
	else if (c->out.streaming && c->cap.streaming &&
		 (c->state == LLMEM_CODEC_INITIAL || c->state == LLMEM_CODEC_SOURCE_CHANGE ||
		  c->state == LLMEM_CODEC_STOPPED))
		c->state = LLMEM_CODEC_STREAMING;
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
	int64_t deadline = timeout_ms < 0 ? -1 : llmem_codec_now_ms() + timeout_ms;
	struct v4l2_event ev;
	int ret;

	if (!c || !type)
		return llmem_error(-EINVAL, "llmem_codec_wait_event: NULL %s",
				   c ? "type" : "codec");
	if (c->kind != LLMEM_CODEC_DECODER)
		return llmem_error(-EINVAL, "%s: only a decoder sends events", c->path);
	for (;;) {
		memset(&ev, 0, sizeof(ev));
		ret = llmem_codec_xioctl(c->fd, VIDIOC_DQEVENT, &ev);
		if (!ret)
			break;
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
	if (ev.type == V4L2_EVENT_SOURCE_CHANGE) {
		*type = LLMEM_CODEC_EVENT_SOURCE_CHANGE;
		if (!c->cap.streaming)
			c->state = LLMEM_CODEC_SOURCE_CHANGE;
	} else {
		*type = LLMEM_CODEC_EVENT_EOS;
	}
	return 0;
}
