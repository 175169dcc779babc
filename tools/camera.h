/* SPDX-License-Identifier: MIT */
/*
 * `llmem camera` and `llmem bench camera` over the library's camera
 * (llmem/camera.h): frames captured, converted, timed and written as PNGs.
 */
#ifndef LLMEM_TOOLS_CAMERA_H
#define LLMEM_TOOLS_CAMERA_H

#include <stdint.h>

#include <llmem/camera.h>

struct camera_options {
	struct llmem_camera_create_info create;
	uint32_t frames;
	const char *out_dir; /* NULL: no PNGs */
};

struct camera_result {
	struct llmem_camera_info info;
	uint32_t frames;
	double seconds;
	/* Per frame: CPU time of the pipeline thread from llmem_camera_next()
	 * until the frame is converted (median, min, max), and the conversion's
	 * wall time (median). */
	double cpu_us_median, cpu_us_min, cpu_us_max;
	double convert_us_median;
	uint64_t bytes_copied_per_frame;
	/* What llmem.ko saw of a queued frame's page while streaming; -1
	 * where it could not tell. */
	int64_t importer_vmaps;
	int64_t importer_attachments;
	int64_t validation_messages;
};

/* "YUYV" or "NV12" to a V4L2 pixel format; -EINVAL for anything else. */
int camera_parse_format(const char *s, uint32_t *fourcc);
/* A backend's name (llmem_backend_name()) to enum llmem_backend. */
int camera_parse_backend(const char *s, uint32_t *backend);

/* Return: 0, or a negative errno after printing why on stderr. */
int camera_run(const struct camera_options *opts, struct camera_result *result);

/* Writes @result as a JSON object to @path. */
int camera_write_summary(const char *path, const struct camera_options *opts,
			 const struct camera_result *result);

#endif
