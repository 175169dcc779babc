/* SPDX-License-Identifier: MIT */
/*
 * What a person looks at after `llmem camera --out DIR`: a contact sheet of
 * the frames, the time each frame took as a plot, and one HTML page with
 * both, the frames and the summary.
 */
#ifndef LLMEM_TOOLS_REPORT_H
#define LLMEM_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The contact sheet's frames at most: sampled evenly over the run. */
#define REPORT_SHEET_FRAMES 30

struct report_sheet {
	uint8_t *rgba;
	uint32_t width, height;
	uint32_t thumb_width, thumb_height, scale, columns;
	uint32_t frames, placed;
};

/* A sheet for @frames frames of @width x @height; -ENOMEM. */
int report_sheet_init(struct report_sheet *s, uint32_t frames, uint32_t width, uint32_t height);
void report_sheet_fini(struct report_sheet *s);
/* Places frame @n (RGBA8, rows of @pitch bytes) when it is one of those sampled. */
void report_sheet_add(struct report_sheet *s, uint32_t n, const uint8_t *rgba, uint32_t pitch);
/* Writes the sheet as a PNG: 0 or a negative errno after a message. */
int report_sheet_write(const struct report_sheet *s, const char *path);

/*
 * The plot: per frame, the pipeline thread's CPU time and the conversion's
 * time, in microseconds, as an SVG of two lines on a log scale of time.
 */
int report_write_plot(const char *path, const double *cpu_us, const double *convert_us,
		      uint32_t frames);

/* A line of the page's table. */
struct report_row {
	const char *name;
	char value[160];
};

/*
 * The page: @title, @rows as a table, @notes (plain text) as paragraphs
 * under it, then contact.png, timing.svg, the frames (frame-NNN.png, up to
 * @frames of them) and summary.json, all by relative names in the page's
 * folder.
 */
int report_write_page(const char *path, const char *title, const struct report_row *rows,
		      uint32_t count, const char *const *notes, uint32_t note_count,
		      uint32_t frames);

/*
 * @us as a person reads it: "408.9 @micro" below a millisecond, "6.50 ms"
 * below a second, "1.72 s" above.
 */
void report_duration(char *buf, size_t size, double us, const char *micro);

/*
 * Writes @dir/summary.json through @print: 0, or a negative errno after a
 * message that starts "llmem @cmd:" and names the file.
 */
int report_write_summary(const char *cmd, const char *dir, void (*print)(FILE *f, const void *run),
			 const void *run);

/* Whether this CPU is emulated (QEMU's TCG): absolute times mean little. */
bool report_cpu_emulated(void);

#endif
