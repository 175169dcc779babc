/* SPDX-License-Identifier: MIT */
/*
 * Where `llmem display` takes its frames from: the camera
 * (display_camera.c) or a bitstream a V4L2 decoder decodes
 * (display_decode.c).  Either way the frames are XRGB8888 in shared llmem
 * buffers, each starting at its page's first byte, of which the display
 * makes one framebuffer each: it scans out the buffer the frame was
 * written into.
 *
 * A frame handed out stays on screen until the next one replaces it: the
 * command gives it back (release) only then, so a source must not write
 * into a buffer it handed out and has not been given back.
 */
#ifndef LLMEM_TOOLS_DISPLAY_SOURCE_H
#define LLMEM_TOOLS_DISPLAY_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include <llmem/frame.h>

struct emit;
struct llmem_buffer;
struct llmem_session;

/* The most buffers a source shows from. */
#define DISPLAY_SOURCE_MAX_BUFFERS 8
/* The pitch display engines usually want. */
#define DISPLAY_PITCH_ALIGNMENT 64
#define DISPLAY_TIMEOUT_MS 10000

/**
 * struct display_frame - a frame to show.
 * @index: the source's buffer that holds it.
 * @data: that buffer mapped, its first byte (the layout's offsets count
 *	from it).
 * @bytes_copied: bytes of it the CPU copied.
 * @slot: the source's own, for release().
 */
struct display_frame {
	uint32_t index;
	const uint8_t *data;
	uint64_t bytes_copied;
	uint32_t slot;
};

struct display_source;

struct display_source_ops {
	/* Starts streaming; fills the source's buffers and layout. */
	int (*start)(struct display_source *s);
	/* The next frame: 0; 1 at the end of the stream; a negative errno
	 * after a message on stderr. */
	int (*next)(struct display_source *s, struct display_frame *f);
	/* @f is off screen: its buffer may be written again. */
	int (*release)(struct display_source *s, const struct display_frame *f);
	/* No more frames are wanted; the ones handed out stay as they are. */
	int (*stop)(struct display_source *s);
	/* Its JSON object ("camera" or "decoder", as @key says). */
	void (*emit)(const struct display_source *s, struct emit *e);
	void (*close)(struct display_source *s);
};

/**
 * struct display_source - a source of frames, opened by one of the
 * *_open() functions below.
 * @key: the key of its JSON object, "camera" or "decoder".
 * @name: the source's node and driver, for the line on stderr.
 * @width: its frames' size, the display's mode; known once open.
 * @height: likewise.
 * @frames: the frames it will give, 0 when unbounded.
 * @buffer_count: after start(): the buffers frames are shown from.
 * @buffers: after start(): those buffers.
 * @layout: after start(): how a frame lies in each, XRGB8888.
 */
struct display_source {
	const struct display_source_ops *ops;
	const char *key;
	char name[128];
	uint32_t width, height;
	uint64_t frames;
	uint32_t buffer_count;
	struct llmem_buffer *buffers[DISPLAY_SOURCE_MAX_BUFFERS];
	struct llmem_frame_layout layout;
};

struct display_camera_args {
	const char *device;
	/* The KMS card the frames are shown on (NULL: the one the display
	 * takes), whose primary plane the RGBA frames are laid out for. */
	const char *display;
	uint32_t fourcc;
	uint32_t width, height;
	uint32_t input;
	bool input_given;
	uint64_t frames;
};

/* The camera's frames converted on the device into two shared buffers. */
int display_camera_open(struct llmem_session *session, const struct display_camera_args *args,
			struct display_source **out);

struct display_decode_args {
	/* The FWHT bitstream. */
	const char *file;
	/* The KMS card the frames are shown on (NULL: the one the display
	 * takes), whose primary plane the RGBA frames are laid out for. */
	const char *display;
	/* The decoder's node; NULL for the first FWHT decoder. */
	const char *decoder;
	/* At most this many frames; 0 for the whole stream. */
	uint64_t frames;
};

/* The stream decoded into shared buffers: scanned out where the decoder
 * wrote them when it writes XRGB8888, converted on the device otherwise. */
int display_decode_open(struct llmem_session *session, const struct display_decode_args *args,
			struct display_source **out);

#endif
