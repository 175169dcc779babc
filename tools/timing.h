/* SPDX-License-Identifier: MIT */
/*
 * A clock read as the commands and benchmarks time with it: CLOCK_MONOTONIC
 * for a wall time, CLOCK_THREAD_CPUTIME_ID where a preemption on a busy
 * machine would add the other programs' time.  Inline: a benchmark reads it
 * around operations of a few tens of nanoseconds.
 */
#ifndef LLMEM_TOOLS_TIMING_H
#define LLMEM_TOOLS_TIMING_H

#include <stdint.h>
#include <time.h>

static inline uint64_t timing_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double timing_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
