/* SPDX-License-Identifier: MIT */
/*
 * llmem bench convert: camera frames (YUYV, NV12) to XRGB8888 on the device
 * with frames in flight, against libyuv on the CPU, one thread and all
 * cores, and against the bus the device reads and writes the frames over.
 * bench_convert.c runs the cases and rounds, bench_convert_paths.c sets up
 * and runs the paths and checks their frames, bench_convert_report.c
 * prints.
 */
#ifndef LLMEM_TOOLS_BENCH_CONVERT_H
#define LLMEM_TOOLS_BENCH_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include <llmem/llmem.h>

#include "cpu_convert.h"
#include "stat3.h"

#define CONVERT_MAX_ROUNDS 100
#define CONVERT_MAX_SOURCES 64
#define CONVERT_MAX_IN_FLIGHT 16
/* A destination more than frames in flight where each would otherwise
 * always receive the same source: a frame left unconverted would then
 * still hold the right picture. */
#define CONVERT_MAX_DSTS (CONVERT_MAX_IN_FLIGHT + 1)
/*
 * How far llmem's pixels may be from libyuv's: llmem rounds to nearest,
 * libyuv's fixed point is up to 2 off an exact conversion at BT.601 for
 * every Y'CbCr triple of the limited range, and up to 13 at BT.709, whose
 * blue coefficient (2.11) libyuv 1857 clamps to 2.
 */
#define CONVERT_TOLERANCE_BT601 4
#define CONVERT_TOLERANCE_BT709 16
/* The (source, destination) pairs a converter keeps recorded
 * (llmem_converter_submit()). */
#define CONVERT_RECORDED_PAIRS 64
/* Pixels of every frame of the timed rounds compared with libyuv's. */
#define CONVERT_SAMPLES 8

enum convert_path {
	CONVERT_LLMEM,
	CONVERT_LIBYUV_1,
	CONVERT_LIBYUV_N,
	/* The bus's peers: vkCmdCopyBuffer of copy_size bytes each way. */
	CONVERT_COPY_UP,
	CONVERT_COPY_DOWN,
	CONVERT_PATHS
};

enum convert_figure {
	FRAMES_PER_S,
	CPU_MS_PER_FRAME,
	/* Bytes over the bus a second: the conversion's source read from
	 * host memory, its destination written there; a copy's bytes. */
	UP_GBS,
	DOWN_GBS,
	CONVERT_FIGURES
};

/* The run's settings, the same for every case. */
struct convert_settings {
	uint32_t frames, sources, rounds, in_flight, threads;
	uint32_t encoding, tolerance;
	bool dst_device, quiet;
	uint64_t copy_size;
};

/* What the run shares between cases: the session, its memories, the copy
 * peers' buffers and queue, libyuv's threads. */
struct convert_bench {
	const struct convert_settings *set;
	struct llmem_session *s;
	struct llmem_session_info info;
	struct llmem_memory *src_mem, *dst_mem, *local_mem;
	uint32_t src_flags, dst_flags;
	/* Whether the host must invalidate before it reads a destination. */
	bool dst_coherent;
	struct llmem_queue *q;
	struct llmem_buffer *copy_host, *copy_dev;
	struct cpu_bands *bands;
	/* What failed, where the library's message does not say it. */
	char error[256];
};

/* One format at one size: its frames, buffers, converter and figures. */
struct convert_case {
	uint32_t fourcc, width, height;
	struct llmem_frame_layout src_layout, dst_layout;
	uint32_t dsts;
	struct llmem_buffer *src[CONVERT_MAX_SOURCES], *dst[CONVERT_MAX_DSTS];
	uint8_t *src_map[CONVERT_MAX_SOURCES], *dst_map[CONVERT_MAX_DSTS];
	/* libyuv's conversion of each source, one thread: what every frame is
	 * checked against. */
	uint8_t *ref[CONVERT_MAX_SOURCES];
	/* The CPU paths' destinations, as many as llmem's. */
	uint8_t *cpu_dst[CONVERT_MAX_DSTS];
	struct llmem_converter *converter;
	/* The check before timing: every source through every destination. */
	uint32_t checked_frames, max_difference;
	bool bands_equal;
	/* The timed rounds' checks: pixels of each frame against libyuv's. */
	uint64_t sampled_frames, sampled_pixels;
	uint32_t sampled_max_difference;
	double sample[CONVERT_PATHS][CONVERT_FIGURES][CONVERT_MAX_ROUNDS];
	struct stat3 stat[CONVERT_PATHS][CONVERT_FIGURES];
};

extern const char *const convert_path_keys[CONVERT_PATHS];

/* The session, memories, copy buffers and libyuv's threads.  Return: 0 or a
 * negative errno, its message in @b->error (or llmem_last_error() where
 * that is empty); convert_bench_fini() either way. */
int convert_bench_init(struct convert_bench *b, const struct convert_settings *set);
void convert_bench_fini(struct convert_bench *b);

/* @c's frames drawn, converted by libyuv and checked through every path,
 * llmem's destinations each receiving every source.  Return: 0; -EIO (the
 * pixel named in @b->error) when a frame differs; or an error of the
 * set-up.  convert_case_fini() either way. */
int convert_case_init(struct convert_bench *b, struct convert_case *c);
void convert_case_fini(struct convert_case *c);

/* One round of path @p: fills @c->sample[p][*][round].  Return: 0, or as
 * convert_case_init(). */
int convert_case_run(struct convert_bench *b, struct convert_case *c, enum convert_path p,
		     uint32_t round);

/* Bytes of a source frame and of a converted one. */
uint64_t convert_src_bytes(const struct convert_case *c);
uint64_t convert_dst_bytes(const struct convert_case *c);

struct convert_report {
	const struct convert_bench *b;
	const struct convert_case *cases;
	uint32_t count;
};

void convert_print_text(const struct convert_report *r);
void convert_print_json(const struct convert_report *r);

#endif
