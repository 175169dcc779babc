// SPDX-License-Identifier: MIT
/*
 * Writes `llmem camera`'s timing plot (tools/report.c) of a run such as the
 * demo's on an emulated CPU: a first conversion of 9 s, then about 1.7 s,
 * against 300 to 600 µs of CPU time a frame (6.5 ms for the first), for
 * tests/demo-check to read.
 *
 * usage: report-plot OUT.svg
 */
#include <stdio.h>

#include "report.h"

#define FRAMES 30

int main(int argc, char **argv)
{
	double cpu_us[FRAMES], convert_us[FRAMES];

	if (argc != 2) {
		fprintf(stderr, "usage: report-plot OUT.svg\n");
		return 2;
	}
	for (int i = 0; i < FRAMES; i++) {
		cpu_us[i] = 300 + i * 37 % 90 * 3.3;
		convert_us[i] = 1.7e6 + i * 53 % 100 * 4e3;
	}
	cpu_us[0] = 6500;
	convert_us[0] = 9.1e6;
	return report_write_plot(argv[1], cpu_us, convert_us, FRAMES) ? 1 : 0;
}
