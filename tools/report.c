// SPDX-License-Identifier: MIT
/*
 * The camera run's report (report.h): the contact sheet is filled frame by
 * frame as the frames come, so no frame is kept; the plot and the page are
 * written once at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_writer.h"
#include "report.h"

#define SHEET_COLUMNS 6
#define THUMB_MAX_WIDTH 320
#define GAP 4
#define PLOT_WIDTH 800
#define PLOT_HEIGHT 320
#define PLOT_MARGIN 56

int report_sheet_init(struct report_sheet *s, uint32_t frames, uint32_t width, uint32_t height)
{
	uint32_t shown = frames < REPORT_SHEET_FRAMES ? frames : REPORT_SHEET_FRAMES, rows;

	*s = (struct report_sheet){ .frames = frames };
	s->scale = (width + THUMB_MAX_WIDTH - 1) / THUMB_MAX_WIDTH;
	s->thumb_width = width / s->scale;
	s->thumb_height = height / s->scale;
	s->columns = shown < SHEET_COLUMNS ? shown : SHEET_COLUMNS;
	rows = (shown + s->columns - 1) / s->columns;
	s->width = s->columns * (s->thumb_width + GAP) + GAP;
	s->height = rows * (s->thumb_height + GAP) + GAP;
	s->rgba = malloc((size_t)s->width * s->height * 4);
	if (!s->rgba)
		return -ENOMEM;
	/* A dark grey between the frames. */
	for (size_t i = 0; i < (size_t)s->width * s->height; i++)
		memcpy(s->rgba + i * 4, (const uint8_t[4]){ 48, 48, 48, 255 }, 4);
	return 0;
}

void report_sheet_fini(struct report_sheet *s)
{
	free(s->rgba);
	s->rgba = NULL;
}

/* The place of frame @n on the sheet, or -1 when it is not sampled. */
static int slot_of(const struct report_sheet *s, uint32_t n)
{
	uint32_t shown = s->frames < REPORT_SHEET_FRAMES ? s->frames : REPORT_SHEET_FRAMES;

	/* Frames k * (frames - 1) / (shown - 1): the first and the last among them. */
	for (uint32_t k = 0; k < shown; k++) {
		uint64_t at = shown > 1 ? (uint64_t)k * (s->frames - 1) / (shown - 1) : 0;

		if (at == n)
			return (int)k;
	}
	return -1;
}

void report_sheet_add(struct report_sheet *s, uint32_t n, const uint8_t *rgba, uint32_t pitch)
{
	int slot = slot_of(s, n);
	uint32_t x0, y0, k = s->scale;

	if (slot < 0 || !s->rgba)
		return;
	x0 = GAP + (uint32_t)slot % s->columns * (s->thumb_width + GAP);
	y0 = GAP + (uint32_t)slot / s->columns * (s->thumb_height + GAP);
	/* Each thumbnail pixel is the mean of a k x k box of the frame. */
	for (uint32_t y = 0; y < s->thumb_height; y++) {
		for (uint32_t x = 0; x < s->thumb_width; x++) {
			uint32_t sum[4] = { 0 };
			uint8_t *out = s->rgba + ((size_t)(y0 + y) * s->width + x0 + x) * 4;

			for (uint32_t dy = 0; dy < k; dy++) {
				const uint8_t *in = rgba + (size_t)(y * k + dy) * pitch + x * k * 4;

				for (uint32_t dx = 0; dx < k * 4; dx++)
					sum[dx % 4] += in[dx];
			}
			for (int c = 0; c < 3; c++)
				out[c] = (uint8_t)(sum[c] / (k * k));
			out[3] = 255;
		}
	}
	s->placed++;
}

int report_sheet_write(const struct report_sheet *s, const char *path)
{
	return write_png_rgba(path, s->rgba, s->width, s->height, s->width * 4);
}

static double max_of(const double *v, uint32_t n)
{
	double m = 0;

	for (uint32_t i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* A round step (1, 2 or 5 times a power of ten) for a handful of gridlines
 * up to @top. */
static double grid_step(double top)
{
	double step = 1;

	while (step > top)
		step /= 10;
	while (step * 10 <= top)
		step *= 10;
	if (top / step < 2)
		return step / 5;
	if (top / step < 5)
		return step / 2;
	return step;
}

static void plot_line(FILE *f, const double *v, uint32_t n, double top, const char *colour)
{
	double w = PLOT_WIDTH - 2 * PLOT_MARGIN, h = PLOT_HEIGHT - 2 * PLOT_MARGIN;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", PLOT_MARGIN + (n > 1 ? w * i / (n - 1) : w / 2),
			PLOT_HEIGHT - PLOT_MARGIN - h * v[i] / top);
	fprintf(f, "\"/>\n");
}

int report_write_plot(const char *path, const double *cpu_us, const double *convert_us, uint32_t n)
{
	double top = max_of(cpu_us, n), conv = max_of(convert_us, n), step;
	FILE *f = fopen(path, "we");
	int ret;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	top = (conv > top ? conv : top) * 1.1;
	top = top > 0 ? top : 1;
	step = grid_step(top);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		PLOT_WIDTH, PLOT_HEIGHT);
	for (double y = 0; y <= top; y += step) {
		double py = PLOT_HEIGHT - PLOT_MARGIN - (PLOT_HEIGHT - 2 * PLOT_MARGIN) * y / top;

		fprintf(f,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n",
			PLOT_MARGIN, PLOT_WIDTH - PLOT_MARGIN, py, py, PLOT_MARGIN - 6, py + 4, y);
	}
	plot_line(f, convert_us, n, top, "#2a7ab9");
	plot_line(f, cpu_us, n, top, "#c0392b");
	fprintf(f,
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">frame (1 to %u)</text>\n"
		"<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
		"text-anchor=\"middle\">microseconds</text>\n"
		"<text x=\"%d\" y=\"24\" fill=\"#c0392b\">CPU time of the pipeline thread per "
		"frame</text>\n"
		"<text x=\"%d\" y=\"40\" fill=\"#2a7ab9\">conversion on the device per frame "
		"(wall time)</text>\n</svg>\n",
		PLOT_WIDTH / 2, PLOT_HEIGHT - 16, n, PLOT_HEIGHT / 2, PLOT_HEIGHT / 2, PLOT_MARGIN,
		PLOT_MARGIN);
	if (fclose(f)) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	return 0;
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

int report_write_page(const char *path, const char *title, const struct report_row *rows,
		      uint32_t count, uint32_t frames, bool emulated)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", f);
	html_text(f, title);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1200px}"
	      "td{padding:2px 12px}td:first-child{color:#555}img{max-width:100%}"
	      ".frames img{width:160px;margin:2px}</style></head><body>\n<h1>",
	      f);
	html_text(f, title);
	fputs("</h1>\n<table>\n", f);
	for (uint32_t i = 0; i < count; i++) {
		fputs("<tr><td>", f);
		html_text(f, rows[i].name);
		fputs("</td><td>", f);
		html_text(f, rows[i].value);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (emulated)
		fputs("<p>These times were taken on an emulated CPU (QEMU's TCG): the device is "
		      "lavapipe, a Vulkan driver that runs on that CPU, so each conversion costs "
		      "emulated CPU time and the frame rate is low. What carries over to real "
		      "hardware is the bytes copied and the ratio of the two paths' CPU time "
		      "per frame (<code>llmem bench camera</code>), not the absolute "
		      "figures.</p>\n",
		      f);
	fputs("<h2>Contact sheet</h2>\n<img src=\"contact.png\" alt=\"the frames\">\n"
	      "<h2>Time per frame</h2>\n<img src=\"timing.svg\" alt=\"time per frame\">\n"
	      "<h2>Frames</h2>\n<div class=\"frames\">\n",
	      f);
	for (uint32_t n = 0; n < frames; n++)
		fprintf(f,
			"<a href=\"frame-%03u.png\"><img src=\"frame-%03u.png\" alt=\"frame "
			"%u\"></a>\n",
			n, n, n);
	fputs("</div>\n<p><a href=\"summary.json\">summary.json</a></p>\n</body></html>\n", f);
	if (fclose(f)) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	return 0;
}

bool report_cpu_emulated(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "model name", 10) &&
			(strstr(line, "QEMU") || strstr(line, "TCG"));
	fclose(f);
	return found;
}

int report_write_summary(const char *cmd, const char *dir, void (*print)(FILE *f, const void *run),
			 const void *run)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "llmem %s: %s: %s\n", cmd, path, strerror(errno));
		return -errno;
	}
	print(f, run);
	if (fclose(f)) {
		fprintf(stderr, "llmem %s: %s: %s\n", cmd, path, strerror(errno));
		return -EIO;
	}
	return 0;
}
