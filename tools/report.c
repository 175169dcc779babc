// SPDX-License-Identifier: MIT
/*
 * The camera run's report (report.h): the contact sheet is filled frame by
 * frame as the frames come, so no frame is kept; the plot and the page are
 * written once at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png_writer.h"
#include "report.h"

#define SHEET_COLUMNS 6
#define THUMB_MAX_WIDTH 320
#define GAP 4
#define PLOT_WIDTH 800
#define PLOT_HEIGHT 340
/* Room for the decades' labels left, the legend above, the frames below. */
#define PLOT_LEFT 84
#define PLOT_RIGHT 24
#define PLOT_TOP 56
#define PLOT_BOTTOM 48

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

void report_duration(char *buf, size_t size, double us, const char *micro)
{
	if (us >= 1e6)
		snprintf(buf, size, "%.2f s", us / 1e6);
	else if (us >= 1e3)
		snprintf(buf, size, "%.2f ms", us / 1e3);
	else
		snprintf(buf, size, "%.1f %s", us, micro);
}

/* A decade's label: 1, 10 or 100 of µs, ms or s. */
static void decade_label(char *buf, size_t size, int decade)
{
	static const char *const units[] = { "µs", "ms", "s" };
	int unit = decade / 3 < 0 ? 0 : decade / 3 > 2 ? 2 : decade / 3;
	double value = pow(10, decade - 3 * unit);

	snprintf(buf, size, "%g %s", value, units[unit]);
}

/* The decades of µs the plot spans: from below the least time to above the most. */
static void decades(const double *a, const double *b, uint32_t n, int *lo, int *hi)
{
	double least = INFINITY, most = 0;

	for (uint32_t i = 0; i < 2 * n; i++) {
		double v = i < n ? a[i] : b[i - n];

		least = v > 0 && v < least ? v : least;
		most = v > most ? v : most;
	}
	if (most <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	*lo = (int)floor(log10(least));
	*hi = (int)ceil(log10(most));
	if (*hi <= *lo)
		*hi = *lo + 1;
}

/* The y of @us on the log scale from 10^@lo to 10^@hi µs; none below the axis. */
static double plot_y(double us, int lo, int hi)
{
	double h = PLOT_HEIGHT - PLOT_TOP - PLOT_BOTTOM;
	double at = us > 0 ? (log10(us) - lo) / (hi - lo) : 0;

	return PLOT_HEIGHT - PLOT_BOTTOM - h * (at < 0 ? 0 : at);
}

static double plot_x(uint32_t i, uint32_t n)
{
	double w = PLOT_WIDTH - PLOT_LEFT - PLOT_RIGHT;

	return PLOT_LEFT + (n > 1 ? w * i / (n - 1) : w / 2);
}

static void plot_line(FILE *f, const double *v, uint32_t n, int lo, int hi, const char *colour)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", plot_x(i, n), plot_y(v[i], lo, hi));
	fprintf(f, "\"/>\n");
}

/*
 * On a log scale: a conversion can take thousands of times the pipeline
 * thread's CPU time (seconds against hundreds of microseconds on an emulated
 * CPU, the first frame's more), and on a linear axis the CPU line lies flat
 * on the floor.
 */
int report_write_plot(const char *path, const double *cpu_us, const double *convert_us, uint32_t n)
{
	FILE *f = fopen(path, "we");
	int lo, hi, ret;
	char label[32];

	if (!f) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	decades(cpu_us, convert_us, n, &lo, &hi);
	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT);
	for (int d = lo; d <= hi; d++) {
		double py = plot_y(pow(10, d), lo, hi);

		decade_label(label, sizeof(label), d);
		fprintf(f,
			"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\"/>"
			"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PLOT_LEFT, PLOT_WIDTH - PLOT_RIGHT, py, py, PLOT_LEFT - 6, py + 4, label);
		/* 2 and 5 of each decade, unlabelled. */
		for (int k = 2; d < hi && k <= 5; k += 3) {
			py = plot_y(k * pow(10, d), lo, hi);
			fprintf(f,
				"<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#eee\"/>\n",
				PLOT_LEFT, PLOT_WIDTH - PLOT_RIGHT, py, py);
		}
	}
	plot_line(f, convert_us, n, lo, hi, "#2a7ab9");
	plot_line(f, cpu_us, n, lo, hi, "#c0392b");
	fprintf(f,
		"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1</text>\n"
		"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%u</text>\n"
		"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">frame</text>\n"
		"<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
		"text-anchor=\"middle\">time per frame (log scale)</text>\n"
		"<text x=\"%d\" y=\"20\" fill=\"#c0392b\">CPU time of the pipeline thread per "
		"frame</text>\n"
		"<text x=\"%d\" y=\"38\" fill=\"#2a7ab9\">conversion on the device per frame "
		"(wall time)</text>\n</svg>\n",
		plot_x(0, n), PLOT_HEIGHT - PLOT_BOTTOM + 18, plot_x(n - 1, n),
		PLOT_HEIGHT - PLOT_BOTTOM + 18, n,
		PLOT_LEFT + (PLOT_WIDTH - PLOT_LEFT - PLOT_RIGHT) / 2, PLOT_HEIGHT - 10,
		PLOT_TOP + (PLOT_HEIGHT - PLOT_TOP - PLOT_BOTTOM) / 2,
		PLOT_TOP + (PLOT_HEIGHT - PLOT_TOP - PLOT_BOTTOM) / 2, PLOT_LEFT, PLOT_LEFT);
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
		      uint32_t count, const char *const *notes, uint32_t note_count,
		      uint32_t frames)
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
	for (uint32_t i = 0; i < note_count; i++) {
		fputs("<p>", f);
		html_text(f, notes[i]);
		fputs("</p>\n", f);
	}
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
