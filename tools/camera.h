/* SPDX-License-Identifier: MIT */
/*
 * The camera pipeline behind `llmem camera` and `llmem bench camera`: V4L2
 * capture, conversion to RGBA on the device, optional PNG output.
 */
#ifndef LLMEM_TOOLS_CAMERA_H
#define LLMEM_TOOLS_CAMERA_H

#include <stdint.h>

enum camera_path {
	/* The camera writes into exported llmem pages; the shader reads them. */
	CAMERA_ZERO_COPY,
	/* The camera's own buffers, memcpy into a staging buffer, upload. */
	CAMERA_COPY,
};

struct camera_options {
	const char *device;
	uint32_t fourcc;
	uint32_t width;
	uint32_t height;
	uint32_t frames;
	uint32_t buffers;
	int input; /* -1: leave the device's input alone */
	enum camera_path path;
	uint32_t backend; /* enum llmem_backend; 0 for the best */
	int contiguous; /* physically contiguous frames from the start */
	int encoding; /* enum llmem_ycbcr_encoding; -1: what the driver says */
	int range; /* enum llmem_ycbcr_range; -1: what the driver says */
	const char *out_dir; /* NULL: no PNGs */
};

struct camera_result {
	char backend[32];
	char driver[16];
	uint32_t frames;
	uint32_t bytesperline;
	uint32_t sizeimage;
	double seconds;
	/* Per frame: CPU time of the pipeline thread from DQBUF until the
	 * frame is converted (median, min, max), and the conversion's wall
	 * time on the device. */
	double cpu_us_median, cpu_us_min, cpu_us_max;
	double convert_us_median;
	uint64_t bytes_copied_per_frame;
	/* What llmem.ko saw of the first frame's page while streaming;
	 * -1 where it could not tell. */
	int64_t importer_vmaps;
	int64_t importer_attachments;
	int64_t validation_messages;
};

/* "YUYV" or "NV12" to a DRM fourcc; -EINVAL for anything else. */
int camera_parse_format(const char *s, uint32_t *fourcc);
/* A backend's name (llmem_backend_name()) to enum llmem_backend. */
int camera_parse_backend(const char *s, uint32_t *backend);

/* Return: 0, or a negative errno after printing why on stderr. */
int camera_run(const struct camera_options *opts, struct camera_result *result);

/* Writes @result as a JSON object to @path. */
int camera_write_summary(const char *path, const struct camera_options *opts,
			 const struct camera_result *result);

#endif
