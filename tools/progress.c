// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* A terminal redrawn more often than this only flickers. */
#define REDRAW_S 0.1

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_start(struct progress *p, const char *label, const char *unit, uint64_t total,
		    bool quiet)
{
	*p = (struct progress){
		.label = label,
		.unit = unit,
		.total = total,
		.quiet = quiet,
		.tty = isatty(STDERR_FILENO),
	};
}

void progress_step(struct progress *p, uint64_t done)
{
	double t;

	if (p->quiet || !p->total)
		return;
	if (p->tty) {
		t = now_s();
		if (done < p->total && t - p->last < REDRAW_S)
			return;
		p->last = t;
		fprintf(stderr, "\r%s: %llu/%llu %s", p->label, (unsigned long long)done,
			(unsigned long long)p->total, p->unit);
		p->shown = done;
		return;
	}
	/* In a log, a line at each tenth, and the last. */
	if (done * 10 / p->total == p->shown * 10 / p->total && done != p->total)
		return;
	fprintf(stderr, "%s: %llu/%llu %s\n", p->label, (unsigned long long)done,
		(unsigned long long)p->total, p->unit);
	p->shown = done;
}

void progress_end(struct progress *p)
{
	if (!p->quiet && p->tty && p->shown)
		fputc('\n', stderr);
}
