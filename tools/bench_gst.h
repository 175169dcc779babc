/* SPDX-License-Identifier: MIT */
/*
 * llmem bench gst's figures (bench_gst.c measures them) and their report
 * (bench_gst_report.c), for people or as JSON.
 */
#ifndef LLMEM_TOOLS_BENCH_GST_H
#define LLMEM_TOOLS_BENCH_GST_H

#include <stdbool.h>
#include <stdint.h>

#include "stat3.h"

#define BENCH_GST_MAX_ROUNDS 100

enum bench_gst_figure {
	FPS,
	CPU_MS,
	DEVICE_MS,
	HOST_MS,
	HOST_MARGINAL_MS,
	STREAM_MS,
	STREAM_USER_MS,
	FIGURES
};

/* A pipeline's run of N frames, and of one: what a frame more costs is
 * their difference, without the set-up both pay once. */
enum bench_gst_length {
	LONG,
	ONE,
	LENGTHS
};

enum bench_gst_path {
	LLMEM,
	USUAL,
	PATHS
};

extern const char *const bench_gst_path_names[PATHS];

struct bench_gst_pipeline {
	const char *name;
	/* What gst-launch-1.0 is given, per path and run length. */
	char launch[PATHS][LENGTHS][1024];
	double sample[PATHS][FIGURES][BENCH_GST_MAX_ROUNDS];
	struct stat3 stat[PATHS][FIGURES];
};

struct bench_gst_report {
	/* The camera's node; NULL where only videotestsrc ran. */
	const char *camera;
	uint32_t width, height;
	uint64_t frames, rounds;
	const struct bench_gst_pipeline *pipelines;
	int count;
};

void bench_gst_print_json(const struct bench_gst_report *r);
void bench_gst_print_text(const struct bench_gst_report *r);

#endif
