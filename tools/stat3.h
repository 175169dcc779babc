/* SPDX-License-Identifier: MIT */
/*
 * A benchmark's figure as the median of its samples with their spread, and
 * its JSON: {"median", "min", "max"}.
 */
#ifndef LLMEM_TOOLS_STAT3_H
#define LLMEM_TOOLS_STAT3_H

#include <stdint.h>

#include "emit.h"

struct stat3 {
	double median, min, max;
};

/* Sorts @v, @n > 0 samples. */
struct stat3 stat3_of(double *v, uint32_t n);

/* @digits after the point: microseconds take 1, ratios 4. */
void emit_stat3(struct emit *e, const char *key, const struct stat3 *s, int digits);

#endif
