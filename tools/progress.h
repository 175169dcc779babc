/* SPDX-License-Identifier: MIT */
/*
 * Progress of long work on stderr: one line updated in place on a terminal,
 * a plain line at every tenth in a log, nothing when quiet.
 */
#ifndef LLMEM_TOOLS_PROGRESS_H
#define LLMEM_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	const char *label;
	const char *unit;
	uint64_t total;
	bool quiet, tty;
	uint64_t shown;
	double last;
};

/* @label: "llmem camera"; @unit: what is counted, "frames". */
void progress_start(struct progress *p, const char *label, const char *unit, uint64_t total,
		    bool quiet);
/* @done of the total are done. */
void progress_step(struct progress *p, uint64_t done);
/* Ends the updated line. */
void progress_end(struct progress *p);

#endif
