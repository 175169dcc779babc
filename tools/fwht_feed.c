// SPDX-License-Identifier: MIT
#include "fwht_feed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/error.h>

#include "cli.h"
#include "mapped_io.h"

static int fail(const struct fwht_feed *f, int err, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", f->cmd, what, llmem_last_error());
	return err;
}

/* The size of the FWHT frame at byte @at of the file (header included), or
 * 0 where none starts or it runs past the end; its header in @hdr. */
static size_t frame_at(const struct fwht_feed *f, uint64_t at, uint8_t hdr[FWHT_HEADER])
{
	size_t size;

	if (f->len - at < FWHT_HEADER || pread(f->fd, hdr, FWHT_HEADER, (off_t)at) != FWHT_HEADER)
		return 0;
	size = fwht_frame_bytes(hdr);
	return size && size <= f->len - at ? size : 0;
}

int fwht_feed_open(struct fwht_feed *f, const char *cmd, const char *path)
{
	uint8_t hdr[FWHT_HEADER];
	struct stat st;
	size_t size;

	*f = (struct fwht_feed){ .cmd = cmd, .path = path, .fd = -1 };
	/* O_NONBLOCK: a fifo is refused below instead of waiting for a writer. */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		int err = errno;

		fprintf(stderr, "%s: %s: %s\n", cmd, path, strerror(err));
		return -err;
	}
	/*
	 * The frames are walked by size first: only a regular file has one.
	 * /proc's files say they are regular and empty, yet have bytes.
	 */
	if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: %s: is a directory\n", cmd, path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) || (!st.st_size && pread(f->fd, hdr, 1, 0) == 1)) {
		fprintf(stderr, "%s: %s: not a regular file\n", cmd, path);
		return -EINVAL;
	}
	f->len = (uint64_t)st.st_size;
	for (uint64_t at = 0; at < f->len; at += size) {
		size = frame_at(f, at, hdr);
		if (!size) {
			fprintf(stderr,
				"%s: %s: byte %llu starts no whole FWHT frame (after %u frame%s)\n",
				cmd, path, (unsigned long long)at, f->frames,
				cli_plural(f->frames));
			return -EINVAL;
		}
		if (!at) {
			fwht_frame_dims(hdr, &f->width, &f->height);
			f->flags = fwht_frame_flags(hdr);
		}
		f->frames++;
	}
	if (!f->frames) {
		fprintf(stderr, "%s: %s: empty\n", cmd, path);
		return -EINVAL;
	}
	return 0;
}

int fwht_feed_open_decoder(struct fwht_feed *f, struct llmem_session *session, const char *node,
			   uint32_t backend)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_DECODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT };
	struct llmem_codec_format want = { .fourcc = V4L2_PIX_FMT_FWHT,
					   .width = f->width,
					   .height = f->height };
	struct llmem_codec_format got;
	int ret;

	if (node)
		snprintf(f->node, sizeof(f->node), "%s", node);
	else if ((ret = llmem_codec_find(&fi, f->node, sizeof(f->node))))
		return fail(f, ret, "find a decoder");
	ret = llmem_codec_open(f->node, &f->dec);
	if (ret)
		return fail(f, ret, "open decoder");
	if (llmem_codec_kind(f->dec) != LLMEM_CODEC_DECODER) {
		fprintf(stderr, "%s: %s is no stateful decoder\n", f->cmd, f->node);
		return -ENODEV;
	}
	ret = llmem_codec_set_format(f->dec, LLMEM_CODEC_OUTPUT, &want, &got);
	if (ret)
		return fail(f, ret, "bitstream format");
	ret = llmem_codec_request_buffers(f->dec, LLMEM_CODEC_OUTPUT, LLMEM_V4L2_MEMORY_DMABUF,
					  FWHT_FEED_SLOTS);
	if (ret >= 0 && ret < FWHT_FEED_SLOTS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(f, ret, "bitstream slots");
	for (uint32_t i = 0; i < FWHT_FEED_SLOTS; i++) {
		ret = codec_buf_alloc(session, backend, got.sizeimage[0], "bitstream", &f->in[i]);
		if (ret)
			return ret;
		f->in_free |= 1u << i;
	}
	return 0;
}

/* Queues the next frame in a free slot, if both exist; *@fed says whether. */
static int feed_one(struct fwht_feed *f, bool *fed)
{
	struct llmem_codec_plane p;
	uint8_t hdr[FWHT_HEADER];
	size_t size = f->fed < f->len ? frame_at(f, f->fed, hdr) : 0;
	uint32_t slot;
	int ret;

	*fed = false;
	if (!size || !f->in_free)
		return 0;
	slot = (uint32_t)__builtin_ctz(f->in_free);
	if (size > f->in[slot].size) {
		fprintf(stderr, "%s: %s: frame %u has %zu bytes, more than the decoder's %u\n",
			f->cmd, f->path, f->fed_frames, size, f->in[slot].size);
		return -EINVAL;
	}
	ret = mapped_pread(f->fd, f->in[slot].map, size, (off_t)f->fed);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", f->cmd, f->path, strerror(-ret));
		return ret;
	}
	llmem_buffer_flush(f->in[slot].buffer, 0, LLMEM_WHOLE_SIZE);
	p = (struct llmem_codec_plane){ .fd = f->in[slot].fd, .bytesused = (uint32_t)size };
	ret = llmem_codec_queue(f->dec, LLMEM_CODEC_OUTPUT, slot, &p, 1, f->fed_frames);
	if (ret)
		return fail(f, ret, "queue bitstream");
	f->in_free &= ~(1u << slot);
	f->fed += size;
	f->fed_frames++;
	*fed = true;
	return 0;
}

int fwht_feed_prime(struct fwht_feed *f)
{
	bool fed;
	int ret;

	while (!(ret = feed_one(f, &fed)) && fed)
		;
	return ret;
}

int fwht_feed_step(struct fwht_feed *f)
{
	struct llmem_codec_buffer b;
	int ret;

	while (!(ret = llmem_codec_dequeue(f->dec, LLMEM_CODEC_OUTPUT, 0, &b)))
		f->in_free |= 1u << b.index;
	if (ret != -ETIMEDOUT && ret != -EAGAIN)
		return fail(f, ret, "bitstream buffer back");
	ret = fwht_feed_prime(f);
	if (ret || f->draining || f->fed < f->len ||
	    llmem_codec_state(f->dec) != LLMEM_CODEC_STREAMING)
		return ret;
	ret = llmem_codec_drain(f->dec);
	if (ret)
		return fail(f, ret, "drain");
	f->draining = true;
	return 0;
}

void fwht_feed_close(struct fwht_feed *f)
{
	llmem_codec_close(f->dec);
	f->dec = NULL;
	for (uint32_t i = 0; i < FWHT_FEED_SLOTS; i++)
		codec_buf_free(&f->in[i]);
	if (f->cmd && f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
