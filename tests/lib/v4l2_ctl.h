/* SPDX-License-Identifier: MIT */
/*
 * v4l2-ctl's MMAP streaming as the reference the codec tests compare
 * llmem's DMA-BUF paths with, run in a scratch folder of its own.
 */
#ifndef LLMEM_TEST_V4L2_CTL_H
#define LLMEM_TEST_V4L2_CTL_H

#include <stddef.h>
#include <stdint.h>

/* A temporary folder and the v4l2-ctl runs' log in it. */
struct scratch {
	char dir[256];
	char log[300];
};

/* A new folder named after @name in $TMPDIR (or /tmp): 0 or -errno. */
int scratch_make(struct scratch *t, const char *name);
void scratch_remove(struct scratch *t);

/* The end of the last run's log, for a failure's message. */
const char *scratch_said(const struct scratch *t);

/*
 * v4l2-ctl's MMAP streaming through @node of the file @in, whose frames
 * are @fmt_out ("width=...,height=...,pixelformat=..."), with CAPTURE set
 * to @capture_fourcc unless NULL and the options in @extra up to its NULL
 * (@extra may be NULL), such as "--set-selection-output" and its
 * rectangle: the output into @out (at most @max bytes); its length, or -1
 * (scratch_said() says why).
 */
long v4l2_ctl_stream(const struct scratch *t, const char *node, const char *in, const char *fmt_out,
		     const char *capture_fourcc, const char *const *extra, uint8_t *out,
		     size_t max);

#endif
