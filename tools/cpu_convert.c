// SPDX-License-Identifier: MIT
/*
 * libyuv's conversions of camera frames, and the threads that convert a
 * frame in bands (cpu_convert.h).  The threads sleep on a condition
 * variable between frames, never spin: a process's CPU time measured
 * around another path does not count them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <linux/videodev2.h>

#include <libyuv/convert_argb.h>
#include <libyuv/version.h>

#include <llmem/convert.h>

#include "cpu_convert.h"

bool cpu_convert_supports(uint32_t fourcc, uint32_t encoding)
{
#ifndef LLMEM_HAVE_YUY2_MATRIX
	if (fourcc == V4L2_PIX_FMT_YUYV && encoding != LLMEM_YCBCR_BT601)
		return false;
#endif
	return fourcc == V4L2_PIX_FMT_YUYV || fourcc == V4L2_PIX_FMT_NV12 ||
	       fourcc == V4L2_PIX_FMT_RGB24 || fourcc == V4L2_PIX_FMT_BGR24;
}

int cpu_convert_version(void)
{
	return LIBYUV_VERSION;
}

int cpu_convert_rows(const struct cpu_frame *f, uint32_t row, uint32_t rows)
{
	const struct YuvConstants *matrix =
		f->encoding == LLMEM_YCBCR_BT709 ? &kYuvH709Constants : &kYuvI601Constants;
	uint8_t *dst = f->dst + (uint64_t)row * f->dst_pitch;
	int ret;

	if (!rows)
		return 0;
	if (f->fourcc == V4L2_PIX_FMT_RGB24 || f->fourcc == V4L2_PIX_FMT_BGR24) {
		/* libyuv names formats by their word: its RAW is bytes R, G, B
		 * (V4L2's RGB24), its RGB24 bytes B, G, R (V4L2's BGR24). */
		ret = (f->fourcc == V4L2_PIX_FMT_RGB24 ? RAWToARGB : RGB24ToARGB)(
			f->src + (uint64_t)row * f->src_pitch, (int)f->src_pitch, dst,
			(int)f->dst_pitch, (int)f->width, (int)rows);
	} else if (f->fourcc == V4L2_PIX_FMT_NV12) {
		ret = NV12ToARGBMatrix(f->src + (uint64_t)row * f->src_pitch, (int)f->src_pitch,
				       f->chroma + (uint64_t)(row / 2) * f->chroma_pitch,
				       (int)f->chroma_pitch, dst, (int)f->dst_pitch, matrix,
				       (int)f->width, (int)rows);
	} else {
#ifdef LLMEM_HAVE_YUY2_MATRIX
		ret = YUY2ToARGBMatrix(f->src + (uint64_t)row * f->src_pitch, (int)f->src_pitch,
				       dst, (int)f->dst_pitch, matrix, (int)f->width, (int)rows);
#else
		(void)matrix;
		ret = YUY2ToARGB(f->src + (uint64_t)row * f->src_pitch, (int)f->src_pitch, dst,
				 (int)f->dst_pitch, (int)f->width, (int)rows);
#endif
	}
	return ret ? -EINVAL : 0;
}

struct band_thread {
	struct cpu_bands *bands;
	uint32_t index;
	pthread_t thread;
	int ret;
};

struct cpu_bands {
	uint32_t threads, started;
	pthread_mutex_t lock;
	/* A new frame (or quit) for the threads; the last band done. */
	pthread_cond_t go, finished;
	uint64_t generation;
	uint32_t pending;
	const struct cpu_frame *frame;
	bool quit;
	struct band_thread thread[];
};

/* Band @index of @n: rows of equal count, even so that NV12's chroma rows
 * are never split. */
static int convert_band(const struct cpu_frame *f, uint32_t index, uint32_t n)
{
	uint32_t rows = (f->height + n - 1) / n;
	uint32_t row;

	rows += rows & 1;
	row = index * rows;
	if (row >= f->height)
		return 0;
	if (rows > f->height - row)
		rows = f->height - row;
	return cpu_convert_rows(f, row, rows);
}

static void *band_main(void *arg)
{
	struct band_thread *t = arg;
	struct cpu_bands *b = t->bands;
	uint64_t seen = 0;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		const struct cpu_frame *f;

		while (!b->quit && b->generation == seen)
			pthread_cond_wait(&b->go, &b->lock);
		if (b->quit)
			break;
		seen = b->generation;
		f = b->frame;
		pthread_mutex_unlock(&b->lock);
		t->ret = convert_band(f, t->index, b->threads);
		pthread_mutex_lock(&b->lock);
		if (!--b->pending)
			pthread_cond_signal(&b->finished);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int cpu_bands_create(uint32_t threads, struct cpu_bands **out)
{
	struct cpu_bands *b;

	*out = NULL;
	if (!threads)
		return -EINVAL;
	b = calloc(1, sizeof(*b) + threads * sizeof(b->thread[0]));
	if (!b)
		return -ENOMEM;
	b->threads = threads;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->go, NULL);
	pthread_cond_init(&b->finished, NULL);
	*out = b;
	for (uint32_t i = 1; i < threads; i++) {
		b->thread[i] = (struct band_thread){ .bands = b, .index = i };
		if (pthread_create(&b->thread[i].thread, NULL, band_main, &b->thread[i]))
			return -EAGAIN;
		b->started = i;
	}
	return 0;
}

int cpu_bands_convert(struct cpu_bands *b, const struct cpu_frame *f)
{
	int ret;

	pthread_mutex_lock(&b->lock);
	b->frame = f;
	b->pending = b->threads - 1;
	b->generation++;
	pthread_cond_broadcast(&b->go);
	pthread_mutex_unlock(&b->lock);
	ret = convert_band(f, 0, b->threads);
	pthread_mutex_lock(&b->lock);
	while (b->pending)
		pthread_cond_wait(&b->finished, &b->lock);
	pthread_mutex_unlock(&b->lock);
	for (uint32_t i = 1; i < b->threads && !ret; i++)
		ret = b->thread[i].ret;
	return ret;
}

void cpu_bands_destroy(struct cpu_bands *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->quit = true;
	pthread_cond_broadcast(&b->go);
	pthread_mutex_unlock(&b->lock);
	for (uint32_t i = 1; i <= b->started; i++)
		pthread_join(b->thread[i].thread, NULL);
	pthread_cond_destroy(&b->go);
	pthread_cond_destroy(&b->finished);
	pthread_mutex_destroy(&b->lock);
	free(b);
}
