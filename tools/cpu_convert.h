/* SPDX-License-Identifier: MIT */
/*
 * Camera frames to XRGB8888 on the CPU by libyuv (its "ARGB" is bytes B, G,
 * R, A in memory: DRM's XRGB8888), the peer llmem bench convert measures
 * the device against: in the calling thread, or cut into bands of rows
 * converted by a pool of threads at once.  Frames are named by V4L2 pixel
 * format: YUYV, NV12, RGB24 (bytes R, G, B) and BGR24 (bytes B, G, R).
 */
#ifndef LLMEM_TOOLS_CPU_CONVERT_H
#define LLMEM_TOOLS_CPU_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

/* A YUYV, RGB24 or BGR24 frame (@chroma NULL) or an NV12 one (its CbCr
 * plane at @chroma). */
struct cpu_frame {
	uint32_t fourcc, width, height;
	const uint8_t *src, *chroma;
	uint32_t src_pitch, chroma_pitch;
	uint8_t *dst;
	uint32_t dst_pitch;
	/* enum llmem_ycbcr_encoding; limited range.  Unused for RGB24 and BGR24. */
	uint32_t encoding;
};

/* Whether this libyuv converts @fourcc at @encoding: Debian 12's has no
 * YUY2ToARGBMatrix, so YUYV is BT.601 only there; RGB24 and BGR24 take
 * any encoding, which they do not use. */
bool cpu_convert_supports(uint32_t fourcc, uint32_t encoding);

/* The frame's rows [@row, @row + @rows) in the calling thread; for NV12 @row
 * is even.  Return: 0, or -EINVAL where libyuv refuses. */
int cpu_convert_rows(const struct cpu_frame *f, uint32_t row, uint32_t rows);

/* The libyuv version the tool was built with (LIBYUV_VERSION). */
int cpu_convert_version(void);

struct cpu_bands;

/* @threads converting together, the caller one of them: @threads - 1 are
 * started, and sleep between frames.  Return: 0, -EINVAL for 0 threads,
 * -EAGAIN when a thread cannot start. */
int cpu_bands_create(uint32_t threads, struct cpu_bands **out);

/* The whole frame, a band of rows (an even number for NV12) per thread,
 * converted when it returns.  Return: as cpu_convert_rows(). */
int cpu_bands_convert(struct cpu_bands *bands, const struct cpu_frame *f);

/* Stops and joins the threads; NULL is ignored. */
void cpu_bands_destroy(struct cpu_bands *bands);

#endif
