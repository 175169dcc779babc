// SPDX-License-Identifier: MIT
/*
 * Both paths share everything but where the frame comes from: the zero-copy
 * path hands the camera DMA-BUFs exported from llmem pages and converts in
 * place; the copy path (the peer the benchmark measures against) lets the
 * camera fill its own buffers, copies each frame into a staging buffer with
 * the CPU and uploads it before converting.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include <llmem/buffer.h>
#include <llmem/convert.h>
#include <llmem/llmem.h>
#include <llmem/memory.h>
#include <llmem/session.h>
#include <llmem/share.h>
#include <llmem/v4l2.h>

#include "camera.h"
#include "png_writer.h"

#define MAX_BUFFERS 16
#define DEQUEUE_TIMEOUT_MS 10000

struct camera {
	const struct camera_options *o;
	struct llmem_session *session;
	struct llmem_v4l2 *dev;
	struct llmem_v4l2_format vf;
	struct llmem_frame_layout src_layout, dst_layout;
	uint32_t count;

	/* Zero-copy: one exported page per camera buffer. */
	struct llmem_memory *shared;
	struct llmem_buffer *frames[MAX_BUFFERS];
	int fds[MAX_BUFFERS];

	/* Copy path: the camera's buffers, mapped, and the upload chain. */
	void *maps[MAX_BUFFERS];
	struct llmem_memory *staging_memory, *device_memory;
	struct llmem_buffer *staging, *device_frame;
	void *staging_map;

	struct llmem_memory *rgba_memory;
	struct llmem_buffer *rgba;
	void *rgba_map;
	/* The conversion of each frame buffer, recorded once. */
	struct llmem_converter *converter;

	double *cpu_us, *convert_us;
};

static int fail(int err, const char *what)
{
	fprintf(stderr, "llmem camera: %s: %s (%s)\n", what, llmem_last_error(),
		llmem_strerror(err));
	return err;
}

static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

/* Drops the zero-copy frames, to start again with other memory. */
static void release_zero_copy(struct camera *c)
{
	llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, 0);
	for (uint32_t i = 0; i < MAX_BUFFERS; i++) {
		llmem_buffer_destroy(c->frames[i]);
		c->frames[i] = NULL;
		if (c->fds[i] >= 0)
			close(c->fds[i]);
		c->fds[i] = -1;
	}
	llmem_memory_destroy(c->shared);
	c->shared = NULL;
}

/*
 * A device that DMAs without an IOMMU refuses scattered pages at QBUF with
 * EFAULT: the frames are then made again in physically contiguous memory.
 */
static int setup_zero_copy(struct camera *c, bool contiguous)
{
	uint64_t page = (c->src_layout.size + 4095) / 4096 * 4096;
	struct llmem_memory_create_info mci = {
		.options = contiguous ? LLMEM_MEMORY_CONTIGUOUS : 0,
		.page_size = page,
		.spare_pages = LLMEM_MEMORY_SPARE_NONE,
		.sharing = LLMEM_SHARING_DMABUF,
		.backend = c->o->backend,
		.name = "camera frames",
	};
	int ret;

	ret = llmem_memory_create(c->session, &mci, &c->shared);
	if (ret)
		return fail(ret, "shared memory");
	ret = llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_DMABUF, c->o->buffers);
	if (ret < 0)
		return fail(ret, "request DMABUF buffers");
	c->count = (uint32_t)ret > MAX_BUFFERS ? MAX_BUFFERS : (uint32_t)ret;
	for (uint32_t i = 0; i < c->count; i++) {
		struct llmem_buffer_create_info bci = { .size = page, .name = "frame" };
		struct llmem_dmabuf_region region;

		ret = llmem_buffer_create(c->shared, &bci, &c->frames[i]);
		if (ret)
			return fail(ret, "frame buffer");
		ret = llmem_buffer_export(c->frames[i], &region);
		if (ret)
			return fail(ret, "export frame");
		c->fds[i] = region.fd;
		/* V4L2's single-planar DMABUF frames start at the fd's offset 0. */
		if (region.offset) {
			fprintf(stderr, "llmem camera: frame %u sits at offset %llu of its page\n",
				i, (unsigned long long)region.offset);
			return -EINVAL;
		}
		ret = llmem_v4l2_queue_dmabuf(c->dev, i, c->fds[i], (uint32_t)page);
		if (ret == -EFAULT && !contiguous) {
			fprintf(stderr, "llmem camera: %s; retrying with contiguous memory\n",
				llmem_last_error());
			release_zero_copy(c);
			return setup_zero_copy(c, true);
		}
		if (ret)
			return fail(ret, "queue frame");
	}
	return 0;
}

static int setup_copy(struct camera *c)
{
	struct llmem_memory_create_info host = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.name = "staging",
	};
	struct llmem_memory_create_info device = { .name = "device frames" };
	struct llmem_buffer_create_info bci = { .size = c->src_layout.size };
	int ret;

	ret = llmem_v4l2_request_buffers(c->dev, LLMEM_V4L2_MEMORY_MMAP, c->o->buffers);
	if (ret < 0)
		return fail(ret, "request MMAP buffers");
	c->count = (uint32_t)ret > MAX_BUFFERS ? MAX_BUFFERS : (uint32_t)ret;
	for (uint32_t i = 0; i < c->count; i++) {
		ret = llmem_v4l2_export(c->dev, i, &c->fds[i]);
		if (ret)
			return fail(ret, "export camera buffer");
		c->maps[i] = mmap(NULL, c->vf.sizeimage, PROT_READ, MAP_SHARED, c->fds[i], 0);
		if (c->maps[i] == MAP_FAILED) {
			c->maps[i] = NULL;
			ret = -errno;
			fprintf(stderr, "llmem camera: mmap camera buffer: %s\n", strerror(errno));
			return ret;
		}
		ret = llmem_v4l2_queue(c->dev, i);
		if (ret)
			return fail(ret, "queue camera buffer");
	}
	ret = llmem_memory_create(c->session, &host, &c->staging_memory);
	if (!ret)
		ret = llmem_memory_create(c->session, &device, &c->device_memory);
	if (!ret)
		ret = llmem_buffer_create(c->staging_memory, &bci, &c->staging);
	if (!ret)
		ret = llmem_buffer_create(c->device_memory, &bci, &c->device_frame);
	if (!ret)
		ret = llmem_buffer_map(c->staging, &c->staging_map);
	return ret ? fail(ret, "staging buffers") : 0;
}

static int setup(struct camera *c)
{
	const struct camera_options *o = c->o;
	struct llmem_frame_constraints fc;
	struct llmem_memory_create_info rgba_mci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_COHERENT,
		.name = "rgba",
	};
	struct llmem_session_create_info sci = { .app_name = "llmem camera" };
	int ret;

	ret = llmem_session_create(&sci, &c->session);
	if (ret)
		return fail(ret, "Vulkan session");
	ret = llmem_v4l2_open(o->device, &c->dev);
	if (ret)
		return fail(ret, "open camera");
	if (o->input >= 0) {
		ret = llmem_v4l2_set_input(c->dev, (uint32_t)o->input);
		if (ret)
			return fail(ret, "select input");
	}
	ret = llmem_v4l2_set_format(c->dev, o->fourcc, o->width, o->height, &c->vf);
	if (ret)
		return fail(ret, "set format");
	/* The camera decides the pitch and frame size; the layout obeys. */
	fc = (struct llmem_frame_constraints){
		.pitch = c->vf.bytesperline,
		.min_size = c->vf.sizeimage,
	};
	ret = llmem_frame_layout_init(o->fourcc, o->width, o->height, &fc, &c->src_layout);
	if (!ret)
		ret = llmem_frame_layout_init(DRM_FORMAT_ABGR8888, o->width, o->height, NULL,
					      &c->dst_layout);
	if (ret)
		return fail(ret, "frame layout");

	ret = o->path == CAMERA_ZERO_COPY ? setup_zero_copy(c, o->contiguous) : setup_copy(c);
	if (ret)
		return ret;

	ret = llmem_memory_create(c->session, &rgba_mci, &c->rgba_memory);
	if (!ret)
		ret = llmem_buffer_create(c->rgba_memory,
					  &(struct llmem_buffer_create_info){
						  .size = c->dst_layout.size,
						  .name = "rgba",
					  },
					  &c->rgba);
	if (!ret)
		ret = llmem_buffer_map(c->rgba, &c->rgba_map);
	if (ret)
		return fail(ret, "RGBA buffer");
	ret = llmem_converter_create(
		&(struct llmem_converter_create_info){
			.srcs = o->path == CAMERA_ZERO_COPY ? c->frames : &c->device_frame,
			.src_count = o->path == CAMERA_ZERO_COPY ? c->count : 1,
			.src_layout = &c->src_layout,
			.dst = c->rgba,
			.dst_layout = &c->dst_layout,
			.encoding = o->encoding >= 0 ? (uint32_t)o->encoding : c->vf.encoding,
			.range = o->range >= 0 ? (uint32_t)o->range : c->vf.range,
		},
		&c->converter);
	if (ret)
		return fail(ret, "converter");
	c->cpu_us = calloc(o->frames, sizeof(double));
	c->convert_us = calloc(o->frames, sizeof(double));
	return c->cpu_us && c->convert_us ? 0 : -ENOMEM;
}

/*
 * What llmem.ko knows of a page while the camera holds it: vivid's
 * videobuf2-vmalloc shows up as a vmap, dma-contig drivers as attachments;
 * -1 where it cannot tell (no llmem.ko).
 */
static void query_tracker(int fd, struct camera_result *r)
{
	struct llmem_dmabuf_state st;

	if (llmem_dmabuf_query(fd, &st))
		st.known = 0;
	r->importer_vmaps = st.known & LLMEM_DMABUF_KNOWN_VMAPS ? (int64_t)st.vmaps : -1;
	r->importer_attachments =
		st.known & LLMEM_DMABUF_KNOWN_ATTACHMENTS ? (int64_t)st.attachments : -1;
}

static int capture(struct camera *c, struct camera_result *r)
{
	const struct camera_options *o = c->o;
	double start;
	int ret;

	ret = llmem_v4l2_stream_on(c->dev);
	if (ret)
		return fail(ret, "stream on");
	start = wall_us();
	for (uint32_t n = 0; n < o->frames; n++) {
		struct llmem_v4l2_frame frame;
		double cpu0, cpu1, conv0;

		cpu0 = thread_cpu_us();
		ret = llmem_v4l2_dequeue(c->dev, DEQUEUE_TIMEOUT_MS, &frame);
		if (ret)
			return fail(ret, "dequeue");
		if (o->path == CAMERA_COPY) {
			memcpy(c->staging_map, c->maps[frame.index], c->vf.sizeimage);
			r->bytes_copied_per_frame = c->vf.sizeimage;
			ret = llmem_buffer_copy(c->staging, 0, c->device_frame, 0,
						c->src_layout.size);
			if (ret)
				return fail(ret, "upload");
		}
		conv0 = wall_us();
		ret = llmem_converter_run(c->converter,
					  o->path == CAMERA_ZERO_COPY ? frame.index : 0);
		if (ret)
			return fail(ret, "convert");
		cpu1 = thread_cpu_us();
		c->convert_us[n] = wall_us() - conv0;
		c->cpu_us[n] = cpu1 - cpu0;
		if (n == 0 && o->path == CAMERA_ZERO_COPY)
			query_tracker(c->fds[(frame.index + 1) % c->count], r);

		ret = o->path == CAMERA_ZERO_COPY
			      ? llmem_v4l2_queue_dmabuf(c->dev, frame.index, c->fds[frame.index],
							(uint32_t)c->src_layout.size)
			      : llmem_v4l2_queue(c->dev, frame.index);
		if (ret)
			return fail(ret, "requeue");
		if (o->out_dir) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/frame-%03u.png", o->out_dir, n);
			ret = write_png_rgba(path, c->rgba_map, o->width, o->height,
					     c->dst_layout.pitch[0]);
			if (ret)
				return ret;
		}
	}
	r->seconds = (wall_us() - start) / 1e6;
	r->frames = o->frames;
	return llmem_v4l2_stream_off(c->dev);
}

static void teardown(struct camera *c)
{
	llmem_converter_destroy(c->converter);
	llmem_v4l2_close(c->dev);
	for (uint32_t i = 0; i < MAX_BUFFERS; i++) {
		llmem_buffer_destroy(c->frames[i]);
		if (c->maps[i])
			munmap(c->maps[i], c->vf.sizeimage);
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	}
	if (c->staging_map)
		llmem_buffer_unmap(c->staging);
	llmem_buffer_destroy(c->staging);
	llmem_buffer_destroy(c->device_frame);
	if (c->rgba_map)
		llmem_buffer_unmap(c->rgba);
	llmem_buffer_destroy(c->rgba);
	llmem_memory_destroy(c->shared);
	llmem_memory_destroy(c->staging_memory);
	llmem_memory_destroy(c->device_memory);
	llmem_memory_destroy(c->rgba_memory);
	llmem_session_destroy(c->session);
	free(c->cpu_us);
	free(c->convert_us);
}

int camera_run(const struct camera_options *opts, struct camera_result *r)
{
	struct camera c = { .o = opts };
	struct llmem_memory_info mi;
	int ret;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < MAX_BUFFERS; i++)
		c.fds[i] = -1;
	if (opts->out_dir && mkdir(opts->out_dir, 0755) == -1 && errno != EEXIST) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", opts->out_dir, strerror(errno));
		return ret;
	}
	ret = setup(&c);
	if (!ret)
		ret = capture(&c, r);
	if (!ret) {
		snprintf(r->driver, sizeof(r->driver), "%s", llmem_v4l2_driver(c.dev));
		r->bytesperline = c.vf.bytesperline;
		r->sizeimage = c.vf.sizeimage;
		r->convert_us_median = median(c.convert_us, r->frames);
		r->cpu_us_median = median(c.cpu_us, r->frames);
		r->cpu_us_min = c.cpu_us[0];
		r->cpu_us_max = c.cpu_us[r->frames - 1];
		snprintf(r->backend, sizeof(r->backend), "%s",
			 opts->path == CAMERA_COPY		? "copy"
			 : llmem_memory_get_info(c.shared, &mi) ? "?"
								: llmem_backend_name(mi.backend));
		r->validation_messages = llmem_session_validation_messages(c.session);
	}
	teardown(&c);
	return ret;
}

int camera_write_summary(const char *path, const struct camera_options *o,
			 const struct camera_result *r)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(f,
		"{\n  \"device\": \"%s\",\n  \"driver\": \"%s\",\n  \"format\": \"%.4s\",\n"
		"  \"width\": %u,\n  \"height\": %u,\n  \"bytesperline\": %u,\n"
		"  \"sizeimage\": %u,\n  \"path\": \"%s\",\n  \"backend\": \"%s\",\n"
		"  \"frames\": %u,\n  \"seconds\": %.3f,\n  \"fps\": %.2f,\n"
		"  \"cpu_us_per_frame\": {\"median\": %.1f, \"min\": %.1f, \"max\": %.1f},\n"
		"  \"convert_us_per_frame\": %.1f,\n  \"bytes_copied_per_frame\": %llu,\n"
		"  \"importer_vmaps\": %lld,\n  \"importer_attachments\": %lld,\n"
		"  \"validation_messages\": %lld\n}\n",
		o->device, r->driver, (const char *)&o->fourcc, o->width, o->height,
		r->bytesperline, r->sizeimage, o->path == CAMERA_ZERO_COPY ? "zero-copy" : "copy",
		r->backend, r->frames, r->seconds, r->seconds > 0 ? r->frames / r->seconds : 0.0,
		r->cpu_us_median, r->cpu_us_min, r->cpu_us_max, r->convert_us_median,
		(unsigned long long)r->bytes_copied_per_frame, (long long)r->importer_vmaps,
		(long long)r->importer_attachments, (long long)r->validation_messages);
	return fclose(f) ? -errno : 0;
}
