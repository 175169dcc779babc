/* SPDX-License-Identifier: MIT */
/*
 * A bound in time for tests that wait for another thread to be scheduled:
 * the runner shares two cores among eight tests, so a count of tries that
 * is plenty alone can run out before a worker gets a core.
 */
#ifndef LLMEM_TEST_DEADLINE_H
#define LLMEM_TEST_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t test_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The time @seconds from now, for test_before(). */
static inline uint64_t test_deadline(unsigned int seconds)
{
	return test_now_ns() + (uint64_t)seconds * 1000000000ull;
}

static inline bool test_before(uint64_t deadline)
{
	return test_now_ns() < deadline;
}

#endif
