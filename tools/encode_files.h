/* SPDX-License-Identifier: MIT */
/*
 * The files `llmem encode` writes into its --out folder: stream.fwht from
 * the encoder's packets, frame-NNN.png from the camera's conversion and,
 * with --keep-raw, raw.yuv from each frame's DMA-BUF; and what stays of
 * them after an error.
 */
#ifndef LLMEM_TOOLS_ENCODE_FILES_H
#define LLMEM_TOOLS_ENCODE_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <llmem/camera.h>

struct llmem_codec_packet;

struct encode_files {
	const char *dir; /* NULL: nothing is written */
	bool made_dir, keep_raw;
	FILE *stream, *raw;
	uint32_t raw_frame_size;
	/* Each camera buffer's DMA-BUF, mapped the first time it comes. */
	void *frame_map[LLMEM_CAMERA_MAX_BUFFERS];
	/* Whole in the files so far: what a late error leaves there. */
	uint32_t packets_written, raw_written, pngs_written;
	uint64_t bitstream_bytes;
};

/* Makes @dir (if it is not there) and opens stream.fwht and, with
 * @keep_raw, raw.yuv in it.  0, or a negative errno after a message. */
int encode_files_open(struct encode_files *f, const char *dir, bool keep_raw);

/* Appends the packet to stream.fwht (if any) and counts its bytes. */
int encode_files_packet(struct encode_files *f, const struct llmem_codec_packet *p);

/* Appends camera frame @cf, @size bytes read through its DMA-BUF between
 * its CPU-access brackets, to raw.yuv. */
int encode_files_raw(struct encode_files *f, const struct llmem_camera_frame *cf, uint32_t size);

/* Frame @n converted to RGBA on the device, as it lies now, as a PNG. */
int encode_files_png(struct encode_files *f, struct llmem_camera *cam,
		     struct llmem_camera_frame *cf, uint32_t n);

/* Closes the files: 0, or -EIO after a message when one did not close. */
int encode_files_close(struct encode_files *f);

/*
 * After an error: the whole frames written stay, cut where the last whole
 * one ends, and a line says what they are; a run that wrote none leaves
 * neither its empty files nor a folder it made.  Closes what is open.
 */
void encode_files_keep(struct encode_files *f);

/* Unmaps the frames; closes what is open. */
void encode_files_release(struct encode_files *f);

#endif
