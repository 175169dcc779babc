// SPDX-License-Identifier: MIT
/*
 * llmem decode: an FWHT bitstream decoded into llmem buffers that the
 * decoder takes as DMA-BUFs, each frame read there by a conversion shader
 * on the device; writes the frames as PNGs and summary.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/buffer.h>
#include <llmem/codec.h>
#include <llmem/convert.h>
#include <llmem/error.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

#include "camera.h"
#include "codec_bufs.h"
#include "commands.h"
#include "png_writer.h"
#include "report.h"

#define TIMEOUT_MS 10000
#define INPUT_BUFS 2
#define FRAME_BUFS 3
/* The largest stream read whole. */
#define MAX_STREAM (256u << 20)

static struct {
	const char *decoder, *out;
	uint32_t backend;
	bool json, quiet;
} args;

static const struct cli_option options[] = {
	{ .name = "decoder",
	  .short_name = 'D',
	  .type = CLI_PATH,
	  .value = &args.decoder,
	  .meta = "PATH",
	  .help = "the decoder node; default: the first FWHT decoder that imports DMA-BUFs" },
	{ .name = "backend",
	  .short_name = 'B',
	  .type = CLI_CHOICE,
	  .value = &args.backend,
	  .meta = "NAME",
	  .choices = camera_backends,
	  .help = "where the buffers' pages come from (default: the best that works)" },
	{ .name = "out",
	  .short_name = 'o',
	  .type = CLI_PATH,
	  .value = &args.out,
	  .meta = "DIR",
	  .help = "write frame-NNN.png and summary.json into DIR" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but errors"),
	{ 0 },
};

struct decode_run {
	const char *input;
	uint8_t *stream;
	size_t stream_len, fed;
	uint32_t width, height;
	struct llmem_session *session;
	struct llmem_codec *dec;
	char decoder[64];
	struct llmem_codec_format capf;
	struct llmem_frame_layout layout, rgba_layout;
	struct codec_buf in[INPUT_BUFS], frame[FRAME_BUFS];
	struct llmem_memory *rgba_memory;
	struct llmem_buffer *rgba;
	const uint8_t *rgba_map;
	uint32_t in_free; /* bitmask of input slots the decoder gave back */
	/* results */
	uint32_t frames, input_frames, source_changes;
	double seconds;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem decode: %s: %s\n", what, llmem_last_error());
	return err;
}

static int read_stream(struct decode_run *r)
{
	FILE *f = fopen(r->input, "re");
	size_t cap = 1u << 20, frame;

	if (!f) {
		fprintf(stderr, "llmem decode: %s: %s\n", r->input, strerror(errno));
		return -errno;
	}
	r->stream = malloc(cap);
	while (r->stream) {
		size_t n = fread(r->stream + r->stream_len, 1, cap - r->stream_len, f);

		r->stream_len += n;
		if (n == 0 || r->stream_len == MAX_STREAM)
			break;
		if (r->stream_len == cap) {
			uint8_t *more = cap < MAX_STREAM ? realloc(r->stream, cap * 2) : NULL;

			if (!more)
				break;
			r->stream = more;
			cap *= 2;
		}
	}
	fclose(f);
	if (!r->stream) {
		fprintf(stderr, "llmem decode: out of memory\n");
		return -ENOMEM;
	}
	frame = fwht_frame_size(r->stream, r->stream_len);
	if (!frame) {
		fprintf(stderr, "llmem decode: %s: no FWHT frame at its start\n", r->input);
		return -EINVAL;
	}
	fwht_frame_dims(r->stream, &r->width, &r->height);
	return 0;
}

/* Queues the next FWHT frame of the stream in a free input slot, if both exist. */
static int feed(struct decode_run *r, bool *fed)
{
	struct llmem_codec_plane p;
	size_t size = fwht_frame_size(r->stream + r->fed, r->stream_len - r->fed);
	uint32_t slot;
	int ret;

	*fed = false;
	if (!size || !r->in_free)
		return 0;
	slot = (uint32_t)__builtin_ctz(r->in_free);
	if (size > r->in[slot].size) {
		fprintf(stderr,
			"llmem decode: frame %u has %zu bytes, more than the decoder's %u\n",
			r->input_frames, size, r->in[slot].size);
		return -EINVAL;
	}
	/* The stream is read from a file: bytes arrive in memory once, here. */
	memcpy(r->in[slot].map, r->stream + r->fed, size);
	llmem_buffer_flush(r->in[slot].buffer, 0, LLMEM_WHOLE_SIZE);
	p = (struct llmem_codec_plane){ .fd = r->in[slot].fd, .bytesused = (uint32_t)size };
	ret = llmem_codec_queue(r->dec, LLMEM_CODEC_OUTPUT, slot, &p, 1, r->input_frames);
	if (ret)
		return fail(ret, "queue bitstream");
	r->in_free &= ~(1u << slot);
	r->fed += size;
	r->input_frames++;
	*fed = true;
	return 0;
}

/* Input slots the decoder is done with, without waiting. */
static int reclaim(struct decode_run *r)
{
	struct llmem_codec_buffer b;
	int ret;

	while (!(ret = llmem_codec_dequeue(r->dec, LLMEM_CODEC_OUTPUT, 0, &b)))
		r->in_free |= 1u << b.index;
	return ret == -ETIMEDOUT || ret == -EAGAIN ? 0 : fail(ret, "bitstream buffer back");
}

/*
 * The shaders' format with the stream's chroma subsampling: YUYV for 4:2:2,
 * NV12 for 4:2:0; 0 for anything else.  The decoder offers every format
 * until CAPTURE streams, and one of other subsampling fails at decode time.
 */
static uint32_t readable_format(const struct decode_run *r)
{
	uint32_t flags = fwht_frame_flags(r->stream);

	/* Three components of Y'CbCr (the uapi's masks use GENMASK, which
	 * userspace lacks). */
	if (((flags >> V4L2_FWHT_FL_PIXENC_OFFSET) & 3) !=
		    V4L2_FWHT_FL_PIXENC_YUV >> V4L2_FWHT_FL_PIXENC_OFFSET ||
	    ((flags >> V4L2_FWHT_FL_COMPONENTS_NUM_OFFSET) & 7) != 3 - 1 ||
	    (flags & V4L2_FWHT_FL_CHROMA_FULL_WIDTH))
		return 0;
	return flags & V4L2_FWHT_FL_CHROMA_FULL_HEIGHT ? V4L2_PIX_FMT_YUYV : V4L2_PIX_FMT_NV12;
}

/* After a source change: CAPTURE in a format the shaders read, in llmem buffers. */
static int setup_capture(struct decode_run *r)
{
	struct llmem_frame_constraints c;
	struct llmem_memory_create_info mci = { .flags = LLMEM_MEMORY_HOST_VISIBLE,
						.name = "decoded rgba" };
	struct llmem_buffer_create_info bci = { .name = "decoded rgba" };
	struct llmem_codec_format want;
	int ret;

	ret = llmem_codec_get_format(r->dec, LLMEM_CODEC_CAPTURE, &want);
	if (ret)
		return fail(ret, "decoded format");
	want.fourcc = readable_format(r);
	if (!want.fourcc) {
		fprintf(stderr,
			"llmem decode: %s: the stream's chroma is neither 4:2:2 nor 4:2:0, "
			"which the shaders read (YUYV, NV12)\n",
			r->input);
		return -ENOTSUP;
	}
	ret = llmem_codec_set_format(r->dec, LLMEM_CODEC_CAPTURE, &want, &r->capf);
	if (ret)
		return fail(ret, "decoded format");
	if (r->capf.num_planes != 1) {
		fprintf(stderr, "llmem decode: %s gives %.4s in %u planes\n", r->decoder,
			(const char *)&r->capf.fourcc, r->capf.num_planes);
		return -ENOTSUP;
	}
	c = (struct llmem_frame_constraints){ .pitch = r->capf.bytesperline[0],
					      .min_size = r->capf.sizeimage[0] };
	ret = llmem_frame_layout_init(r->capf.fourcc, r->capf.width, r->capf.height, &c,
				      &r->layout);
	if (!ret)
		ret = llmem_frame_layout_init(DRM_FORMAT_ABGR8888, r->capf.width, r->capf.height,
					      NULL, &r->rgba_layout);
	if (ret)
		return fail(ret, "frame layout");
	ret = llmem_codec_request_buffers(r->dec, LLMEM_CODEC_CAPTURE, LLMEM_V4L2_MEMORY_DMABUF,
					  FRAME_BUFS);
	if (ret >= 0 && ret < FRAME_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "frame slots");
	for (uint32_t i = 0; i < FRAME_BUFS; i++) {
		struct llmem_codec_plane p;

		ret = codec_buf_alloc(r->session, args.backend, (uint32_t)r->layout.size, "decoded",
				      &r->frame[i]);
		if (ret)
			return ret;
		p = (struct llmem_codec_plane){ .fd = r->frame[i].fd };
		ret = llmem_codec_queue(r->dec, LLMEM_CODEC_CAPTURE, i, &p, 1, 0);
		if (ret)
			return fail(ret, "queue frame buffer");
	}
	bci.size = r->rgba_layout.size;
	ret = llmem_memory_create(r->session, &mci, &r->rgba_memory);
	if (!ret)
		ret = llmem_buffer_create(r->rgba_memory, &bci, &r->rgba);
	if (!ret)
		ret = llmem_buffer_map(r->rgba, (void **)&r->rgba_map);
	if (ret)
		return fail(ret, "RGBA buffer");
	ret = llmem_codec_stream_on(r->dec, LLMEM_CODEC_CAPTURE);
	return ret ? fail(ret, "start decoding") : 0;
}

/* The shader reads the decoded frame where the decoder wrote it. */
static int use_frame(struct decode_run *r, uint32_t index)
{
	struct llmem_convert_info ci = {
		.src = r->frame[index].buffer,
		.src_layout = &r->layout,
		.dst = r->rgba,
		.dst_layout = &r->rgba_layout,
	};
	char path[4096];
	int ret;

	ret = llmem_convert_to_rgba(&ci);
	if (ret)
		return fail(ret, "convert on the device");
	if (!args.out)
		return 0;
	llmem_buffer_invalidate(r->rgba, 0, LLMEM_WHOLE_SIZE);
	snprintf(path, sizeof(path), "%s/frame-%03u.png", args.out, r->frames);
	return write_png_rgba(path, r->rgba_map + r->rgba_layout.offset[0], r->rgba_layout.width,
			      r->rgba_layout.height, r->rgba_layout.pitch[0]);
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int decode_frames(struct decode_run *r)
{
	bool fed, draining = false, last = false;
	double start = wall_s();
	uint32_t ev;
	int ret;

	do {
		ret = feed(r, &fed);
	} while (!ret && fed);
	if (ret)
		return ret;
	ret = llmem_codec_stream_on(r->dec, LLMEM_CODEC_OUTPUT);
	if (ret)
		return fail(ret, "start the bitstream");
	ret = llmem_codec_wait_event(r->dec, TIMEOUT_MS, &ev);
	if (ret)
		return fail(ret, "the stream's format");
	r->source_changes += ev == LLMEM_CODEC_EVENT_SOURCE_CHANGE;
	ret = setup_capture(r);
	if (ret)
		return ret;
	while (!last) {
		struct llmem_codec_buffer b;

		ret = reclaim(r);
		while (!ret && (ret = feed(r, &fed)) == 0 && fed)
			;
		if (ret)
			return ret;
		if (!draining && r->fed == r->stream_len) {
			ret = llmem_codec_drain(r->dec);
			if (ret)
				return fail(ret, "drain");
			draining = true;
		}
		ret = llmem_codec_dequeue(r->dec, LLMEM_CODEC_CAPTURE, TIMEOUT_MS, &b);
		if (ret)
			return fail(ret, "decoded frame");
		last = b.flags & LLMEM_CODEC_BUF_LAST;
		if (last && llmem_codec_state(r->dec) == LLMEM_CODEC_SOURCE_CHANGE) {
			fprintf(stderr,
				"llmem decode: %s: the stream changes format after frame %u, "
				"which this command does not follow\n",
				r->input, r->frames);
			return -ENOTSUP;
		}
		if (b.bytesused[0]) {
			ret = use_frame(r, b.index);
			if (ret)
				return ret;
			r->frames++;
		}
		if (!last) {
			struct llmem_codec_plane p = { .fd = r->frame[b.index].fd };

			ret = llmem_codec_queue(r->dec, LLMEM_CODEC_CAPTURE, b.index, &p, 1, 0);
			if (ret)
				return fail(ret, "requeue frame buffer");
		}
	}
	r->seconds = wall_s() - start;
	return 0;
}

static int setup_decoder(struct decode_run *r)
{
	struct llmem_codec_find_info fi = { .kind = LLMEM_CODEC_DECODER,
					    .coded_fourcc = V4L2_PIX_FMT_FWHT };
	struct llmem_codec_format want = { .fourcc = V4L2_PIX_FMT_FWHT,
					   .width = r->width,
					   .height = r->height };
	struct llmem_codec_format got;
	struct llmem_session_create_info sci = { .app_name = "llmem decode" };
	int ret;

	ret = llmem_session_create(&sci, &r->session);
	if (ret)
		return fail(ret, "Vulkan session");
	if (args.decoder)
		snprintf(r->decoder, sizeof(r->decoder), "%s", args.decoder);
	else if ((ret = llmem_codec_find(&fi, r->decoder, sizeof(r->decoder))))
		return fail(ret, "find a decoder");
	ret = llmem_codec_open(r->decoder, &r->dec);
	if (ret)
		return fail(ret, "open decoder");
	if (llmem_codec_kind(r->dec) != LLMEM_CODEC_DECODER) {
		fprintf(stderr, "llmem decode: %s is no stateful decoder\n", r->decoder);
		return -ENODEV;
	}
	ret = llmem_codec_set_format(r->dec, LLMEM_CODEC_OUTPUT, &want, &got);
	if (ret)
		return fail(ret, "bitstream format");
	ret = llmem_codec_request_buffers(r->dec, LLMEM_CODEC_OUTPUT, LLMEM_V4L2_MEMORY_DMABUF,
					  INPUT_BUFS);
	if (ret >= 0 && ret < INPUT_BUFS)
		ret = -ENOBUFS;
	if (ret < 0)
		return fail(ret, "bitstream slots");
	for (uint32_t i = 0; i < INPUT_BUFS; i++) {
		ret = codec_buf_alloc(r->session, args.backend, got.sizeimage[0], "bitstream",
				      &r->in[i]);
		if (ret)
			return ret;
		r->in_free |= 1u << i;
	}
	return 0;
}

static void print_summary(FILE *f, const void *run)
{
	const struct decode_run *r = run;

	fprintf(f,
		"{\n  \"input\": \"%s\",\n  \"decoder\": \"%s\",\n  \"decoder_driver\": \"%s\",\n"
		"  \"codec\": \"FWHT\",\n  \"format\": \"%.4s\",\n  \"width\": %u,\n"
		"  \"height\": %u,\n  \"input_frames\": %u,\n  \"frames\": %u,\n"
		"  \"source_changes\": %u,\n  \"bitstream_bytes\": %zu,\n  \"seconds\": %.3f,\n"
		"  \"validation_messages\": %lld\n}\n",
		r->input, r->decoder, llmem_codec_driver(r->dec), (const char *)&r->capf.fourcc,
		r->capf.width, r->capf.height, r->input_frames, r->frames, r->source_changes,
		r->stream_len, r->seconds,
		(long long)llmem_session_validation_messages(r->session));
}

static void release(struct decode_run *r)
{
	llmem_codec_close(r->dec);
	for (uint32_t i = 0; i < INPUT_BUFS; i++)
		codec_buf_free(&r->in[i]);
	for (uint32_t i = 0; i < FRAME_BUFS; i++)
		codec_buf_free(&r->frame[i]);
	if (r->rgba_map)
		llmem_buffer_unmap(r->rgba);
	llmem_buffer_destroy(r->rgba);
	if (r->rgba_memory)
		llmem_memory_destroy(r->rgba_memory);
	llmem_session_destroy(r->session);
	free(r->stream);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct decode_run r = { 0 };
	bool made_dir = false;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (ret != argc - 1)
		return cli_fail(cmd, CLI_USAGE, "one FILE to decode, please");
	r.input = argv[ret];
	ret = read_stream(&r);
	if (ret) {
		free(r.stream);
		return CLI_FAILED;
	}
	if (args.out) {
		made_dir = mkdir(args.out, 0755) == 0;
		if (!made_dir && errno != EEXIST) {
			free(r.stream);
			return cli_fail(cmd, CLI_FAILED, "%s: %s", args.out, strerror(errno));
		}
	}
	ret = setup_decoder(&r);
	if (!ret)
		ret = decode_frames(&r);
	if (!ret && args.out)
		ret = report_write_summary("decode", args.out, print_summary, &r);
	if (!ret && args.json)
		print_summary(stdout, &r);
	else if (!ret && !args.quiet)
		printf("llmem decode: %u frames %ux%u %.4s from %s by %s (%s) in %.2f s, read on "
		       "the device where they were decoded%s%s\n",
		       r.frames, r.capf.width, r.capf.height, (const char *)&r.capf.fourcc, r.input,
		       r.decoder, llmem_codec_driver(r.dec), r.seconds,
		       args.out ? "; files in " : "", args.out ? args.out : "");
	release(&r);
	if (ret && made_dir)
		rmdir(args.out);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_decode = {
	.name = "decode",
	.summary = "decode FWHT into llmem buffers that a shader reads",
	.description = "Decodes an FWHT bitstream (as `llmem encode` writes it) with a V4L2\n"
		       "memory-to-memory decoder into llmem pages it takes as DMA-BUFs, and\n"
		       "converts each frame to RGBA on the device where the decoder wrote it.\n"
		       "With --out, writes each frame as a PNG and summary.json.",
	.operands = "FILE",
	.max_operands = 1,
	.options = options,
	.run = run,
};
