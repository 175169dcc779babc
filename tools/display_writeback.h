/* SPDX-License-Identifier: MIT */
/*
 * `llmem display --writeback`: the frame the writeback connector writes, in
 * shared memory the CPU reads, compared with the frame queued and, with
 * --writeback-to, appended to a file (raw XRGB8888 rows without padding).
 */
#ifndef LLMEM_TOOLS_DISPLAY_WRITEBACK_H
#define LLMEM_TOOLS_DISPLAY_WRITEBACK_H

#include <stdint.h>
#include <stdio.h>

#include <llmem/buffer.h>
#include <llmem/display.h>
#include <llmem/frame.h>
#include <llmem/memory.h>
#include <llmem/session.h>

struct display_writeback {
	struct llmem_memory *memory;
	struct llmem_buffer *buffer;
	struct llmem_frame_layout layout;
	const uint8_t *map;
	/* What the commit names as its writeback; NULL without --writeback. */
	struct llmem_display_fb *fb;
	/* With --writeback-to: the file and its name. */
	FILE *file;
	const char *path;
};

/*
 * A frame of @display's mode for the connector to write into, and @path
 * opened when not NULL.  Return: 0 or a negative errno after a message;
 * display_writeback_destroy() frees what was made either way.
 */
int display_writeback_open(struct llmem_session *session, struct llmem_display *display,
			   const struct llmem_display_info *info, const char *path,
			   struct display_writeback *wb);

/*
 * Compares the written-back frame with @data, the frame in @buf laid out as
 * @src, in red, green and blue, and appends it to the file.  Return: 1 when
 * they are the same, 0 when not, a negative errno when the file could not
 * be written.
 */
int display_writeback_check(struct display_writeback *wb, const struct llmem_frame_layout *src,
			    struct llmem_buffer *buf, const uint8_t *data);

/*
 * Closes the file, whole or not at all: removed when @ret or the close
 * failed.  Return: @ret, or the close's negative errno.
 */
int display_writeback_close_file(struct display_writeback *wb, int ret);

void display_writeback_destroy(struct display_writeback *wb);

#endif
