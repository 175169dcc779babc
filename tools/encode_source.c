// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/error.h>

#include "encode_source.h"
#include "mapped_io.h"

#define TIMEOUT_MS 10000

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem encode: %s: %s\n", what, llmem_last_error());
	return err;
}

int encode_source_camera(struct encode_source *s, struct llmem_session *session,
			 const struct llmem_camera_create_info *cci)
{
	int ret = llmem_camera_open(session, cci, &s->cam);

	if (ret)
		return fail(ret, "open camera");
	llmem_camera_get_info(s->cam, &s->info);
	s->layout = s->info.layout;
	return 0;
}

int encode_source_file(struct encode_source *s, const char *path,
		       const struct llmem_encoder_info *enc)
{
	const struct llmem_codec_format *raw = &enc->raw;
	struct llmem_frame_constraints c = { .pitch = raw->bytesperline[0],
					     .min_size = raw->sizeimage[0],
					     .coded_width = raw->width,
					     .coded_height = raw->height };
	struct stat st;
	int ret;

	s->path = path;
	s->frame_size = raw->sizeimage[0];
	/* O_NONBLOCK: a fifo is refused below instead of waiting for a writer. */
	s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (s->fd < 0 || fstat(s->fd, &st)) {
		fprintf(stderr, "llmem encode: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size || st.st_size % s->frame_size) {
		fprintf(stderr,
			"llmem encode: %s: not a regular file of whole %ux%u %.4s frames (%u "
			"bytes each)\n",
			path, raw->width, raw->height, (const char *)&raw->fourcc, s->frame_size);
		return -EINVAL;
	}
	s->frames = (uint32_t)(st.st_size / s->frame_size);
	/* The camera's formats are the same codes in V4L2 and DRM. */
	ret = llmem_frame_layout_init(raw->fourcc, enc->picture.width, enc->picture.height, &c,
				      &s->layout);
	return ret ? fail(ret, "frame layout") : 0;
}

static int read_frame(struct encode_source *s, struct llmem_encoder *enc, uint32_t n,
		      struct llmem_codec_frame *frame)
{
	int ret = llmem_encoder_get_frame(enc, frame);

	if (ret)
		return fail(ret, "the encoder's frame");
	ret = mapped_pread(s->fd, frame->data[0], s->frame_size, (off_t)n * s->frame_size);
	if (ret) {
		fprintf(stderr, "llmem encode: %s: frame %u: %s\n", s->path, n, strerror(-ret));
		return ret;
	}
	llmem_buffer_flush(frame->buffer[0], 0, LLMEM_WHOLE_SIZE);
	frame->id = n;
	return 0;
}

int encode_source_next(struct encode_source *s, struct llmem_encoder *enc, uint32_t n,
		       struct llmem_camera_frame *cf, struct llmem_codec_frame *frame)
{
	int ret;

	memset(cf, 0, sizeof(*cf));
	if (!s->cam)
		return read_frame(s, enc, n, frame);
	ret = llmem_camera_next(s->cam, TIMEOUT_MS, cf);
	if (ret)
		return fail(ret, "next frame");
	*frame = (struct llmem_codec_frame){
		.fd = { cf->fd[0], cf->fd[1] },
		.num_planes = s->info.format.mem_planes,
		.buffer = { cf->source, cf->source_chroma },
		.id = n,
	};
	return 0;
}

void encode_source_close(struct encode_source *s)
{
	llmem_camera_close(s->cam);
	s->cam = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
