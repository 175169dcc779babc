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
	FPS_MARGINAL,
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

/* llmem's element; GStreamer's usual one, as it comes and with a thread
 * per core; and the source alone, into fakesink. */
enum bench_gst_path {
	LLMEM,
	USUAL,
	USUAL_THREADS,
	SOURCE,
	PATHS
};

/* As JSON names them, and the text. */
extern const char *const bench_gst_path_keys[PATHS];
extern const char *const bench_gst_path_names[PATHS];

struct bench_gst_pipeline {
	const char *name;
	/* The command run, program and arguments separated by spaces, per
	 * path and run length. */
	char launch[PATHS][LENGTHS][1024];
	double sample[PATHS][FIGURES][BENCH_GST_MAX_ROUNDS];
	struct stat3 stat[PATHS][FIGURES];
};

struct bench_gst_report {
	/* The camera's node; NULL where only the convert pipeline ran. */
	const char *camera;
	/* The convert pipeline's source, as --source names it, and what it is. */
	const char *source, *source_text;
	/* videoconvert's n-threads on the USUAL_THREADS path. */
	unsigned int threads;
	uint32_t width, height;
	uint64_t frames, rounds;
	const struct bench_gst_pipeline *pipelines;
	int count;
};

void bench_gst_print_json(const struct bench_gst_report *r);
void bench_gst_print_text(const struct bench_gst_report *r);

#endif
