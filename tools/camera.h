/* SPDX-License-Identifier: MIT */
/*
 * `llmem camera` and `llmem bench camera` over the library's camera
 * (llmem/camera.h): frames captured, converted, timed and written as PNGs.
 */
#ifndef LLMEM_TOOLS_CAMERA_H
#define LLMEM_TOOLS_CAMERA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <llmem/camera.h>

#include "cli.h"

struct camera_options {
	struct llmem_camera_create_info create;
	uint32_t frames;
	const char *out_dir; /* NULL: no PNGs */
	bool quiet; /* no progress, no word on the device chosen */
	/* What messages name as the command; NULL: "llmem camera". */
	const char *command;
};

struct camera_result {
	struct llmem_camera_info info;
	uint32_t frames;
	double seconds;
	/* Per frame: CPU time of the pipeline thread in llmem_camera_next()
	 * (DQBUF, the copy path's memcpy and upload, the conversion submitted
	 * and waited for) and llmem_camera_release() (the QBUF that gives the
	 * buffer back) (median, min, max), and the conversion's wall time
	 * (median). */
	double cpu_us_median, cpu_us_min, cpu_us_max;
	double convert_us_median;
	uint64_t bytes_copied_per_frame;
	/* Frames the driver skipped during the run (gaps in its frame
	 * counter), and frames it flagged corrupt. */
	uint64_t frames_dropped;
	uint32_t frames_corrupted;
	/* What llmem.ko saw of a queued frame's page while streaming; -1
	 * where it could not tell. */
	int64_t importer_vmaps;
	int64_t importer_attachments;
	int64_t validation_messages;
	/* The CPU is emulated (QEMU's TCG): absolute times mean little. */
	bool emulated;
};

/* --format's and --backend's choices (cmd_camera.c): the formats of a
 * frame in one buffer, which every command that takes a camera's frames
 * handles; those, NV12M (a buffer per plane) and libcamera's RGB24 and
 * BGR24, for llmem camera and llmem bench camera. */
extern const struct cli_choice camera_formats[];
extern const struct cli_choice camera_capture_formats[];
extern const struct cli_choice camera_backends[];

/* --libcamera's rules (cmd_camera.c): no --input with it, RGB24 and BGR24
 * only with it; CLI_OK or the usage error, printed. */
int camera_check_libcamera(const struct cli_command *cmd, bool libcamera, bool input_given,
			   bool format_given, uint32_t format);

/* The create_info's fourcc: --format's, or with --libcamera and no
 * --format 0, the camera's own choice. */
uint32_t camera_fourcc(bool libcamera, bool format_given, uint32_t format);

/* Return: 0, or a negative errno after printing why on stderr. */
int camera_run(const struct camera_options *opts, struct camera_result *result);

/* camera_run() in @session, which stays open for the next run; each
 * frame's CPU time, in capture order, in @frame_cpu_us (opts->frames
 * entries) unless NULL.  Leaves validation_messages 0. */
int camera_run_on(struct llmem_session *session, const struct camera_options *opts,
		  struct camera_result *result, double *frame_cpu_us);

/* @result as one JSON object (docs/cli.md), to @out or to the file @path. */
void camera_print_summary(FILE *out, const struct camera_options *opts,
			  const struct camera_result *result);
int camera_write_summary(const char *path, const struct camera_options *opts,
			 const struct camera_result *result);

/* In the --out folder: summary.json and index.html, the page that shows the
 * frames, contact.png and timing.svg (camera_run() writes those two). */
int camera_write_report(const struct camera_options *opts, const struct camera_result *result);

#endif
