// SPDX-License-Identifier: MIT
/*
 * The tool's side of the camera: the library's camera run for a number of
 * frames, each timed on the pipeline thread and written as a PNG, and the
 * run's summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <llmem/buffer.h>
#include <llmem/camera.h>
#include <llmem/error.h>
#include <llmem/session.h>
#include <llmem/share.h>

#include "camera.h"
#include "emit.h"
#include "png_writer.h"
#include "progress.h"
#include "report.h"

#define DEQUEUE_TIMEOUT_MS 10000

static const char *command(const struct camera_options *o)
{
	return o->command ? o->command : "llmem camera";
}

static int fail(const struct camera_options *o, int err, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", command(o), what, llmem_last_error());
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

/* Sorts @v: the median, then v[0] and v[n - 1] are the extremes. */
static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n ? v[n / 2] : 0;
}

/*
 * What llmem.ko knows of a queued frame's page while the camera holds it:
 * vivid's videobuf2-vmalloc shows up as a vmap, dma-contig drivers as
 * attachments; -1 where it cannot tell (no llmem.ko, the copy path).
 */
static void query_tracker(struct llmem_camera *cam, uint32_t index, struct camera_result *r)
{
	struct llmem_dmabuf_state st = { 0 };
	int fd;

	r->importer_vmaps = r->importer_attachments = -1;
	/* On the copy path the camera exports its buffers: it imports none. */
	if ((r->info.flags & LLMEM_CAMERA_COPY) || llmem_camera_export(cam, index, &fd))
		return;
	if (llmem_dmabuf_query(fd, &st))
		st.known = 0;
	close(fd);
	if (st.known & LLMEM_DMABUF_KNOWN_VMAPS)
		r->importer_vmaps = st.vmaps;
	if (st.known & LLMEM_DMABUF_KNOWN_ATTACHMENTS)
		r->importer_attachments = st.attachments;
}

static int write_frame(const struct camera_options *o, const struct camera_result *r,
		       const struct llmem_camera_frame *f, uint32_t n)
{
	const struct llmem_frame_layout *l = &r->info.rgba_layout;
	char path[4096];

	snprintf(path, sizeof(path), "%s/frame-%03u.png", o->out_dir, n);
	return write_png_rgba(path, (const uint8_t *)f->rgba_data + l->offset[0], l->width,
			      l->height, l->pitch[0]);
}

static int capture(struct llmem_camera *cam, const struct camera_options *o,
		   struct camera_result *r, double *cpu_us, double *convert_us,
		   struct report_sheet *sheet)
{
	struct progress p;
	double start;
	int ret;

	ret = llmem_camera_start(cam);
	if (ret)
		return fail(o, ret, "start");
	progress_start(&p, command(o), "frames", o->frames, o->quiet);
	start = wall_us();
	for (uint32_t n = 0; n < o->frames; n++) {
		struct llmem_camera_frame f;
		double cpu0 = thread_cpu_us();

		ret = llmem_camera_next(cam, DEQUEUE_TIMEOUT_MS, &f);
		if (ret)
			return fail(o, ret, "next frame");
		cpu_us[n] = thread_cpu_us() - cpu0;
		convert_us[n] = f.convert_ns / 1e3;
		r->bytes_copied_per_frame = f.bytes_copied;
		r->frames_dropped += f.dropped;
		r->frames_corrupted += f.corrupted;
		if (n == 0)
			query_tracker(cam, (f.index + 1) % r->info.buffers, r);
		if (o->out_dir && (ret = write_frame(o, r, &f, n)))
			return ret;
		if (o->out_dir)
			report_sheet_add(sheet, n,
					 (const uint8_t *)f.rgba_data +
						 r->info.rgba_layout.offset[0],
					 r->info.rgba_layout.pitch[0]);
		/* The release queues the buffer again: part of the frame's cycle,
		 * and dearer on the zero-copy path (the driver maps the DMA-BUF). */
		cpu0 = thread_cpu_us();
		ret = llmem_camera_release(cam, &f);
		cpu_us[n] += thread_cpu_us() - cpu0;
		if (ret)
			return fail(o, ret, "release frame");
		progress_step(&p, n + 1);
	}
	progress_end(&p);
	r->seconds = (wall_us() - start) / 1e6;
	r->frames = o->frames;
	ret = llmem_camera_stop(cam);
	return ret ? fail(o, ret, "stop") : 0;
}

/* The contact sheet and the plot, from the frames in capture order. */
static int write_pictures(const struct camera_options *o, const struct report_sheet *sheet,
			  const double *cpu_us, const double *convert_us)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/contact.png", o->out_dir);
	ret = report_sheet_write(sheet, path);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/timing.svg", o->out_dir);
	return report_write_plot(path, cpu_us, convert_us, o->frames);
}

int camera_run_on(struct llmem_session *session, const struct camera_options *o,
		  struct camera_result *r, double *frame_cpu_us)
{
	struct llmem_camera *cam = NULL;
	double *cpu_us = NULL, *convert_us = NULL;
	struct report_sheet sheet = { 0 };
	bool made_dir = false;
	int ret;

	memset(r, 0, sizeof(*r));
	if (o->out_dir) {
		made_dir = mkdir(o->out_dir, 0755) == 0;
		if (!made_dir && errno != EEXIST) {
			ret = -errno;
			fprintf(stderr, "%s: %s: %s\n", command(o), o->out_dir, strerror(errno));
			return ret;
		}
	}
	cpu_us = calloc(o->frames, sizeof(double));
	convert_us = calloc(o->frames, sizeof(double));
	if (!cpu_us || !convert_us) {
		ret = -ENOMEM;
		fprintf(stderr, "%s: out of memory\n", command(o));
		goto out_free;
	}
	ret = llmem_camera_open(session, &o->create, &cam);
	if (ret) {
		fail(o, ret, "open camera");
		goto out_free;
	}
	llmem_camera_get_info(cam, &r->info);
	if (!o->create.device && !o->quiet)
		fprintf(stderr, "%s: %s (%s), the first capture node that imports DMA-BUFs\n",
			command(o), r->info.device, r->info.driver);
	ret = o->out_dir ? report_sheet_init(&sheet, o->frames, r->info.rgba_layout.width,
					     r->info.rgba_layout.height)
			 : 0;
	if (!ret)
		ret = capture(cam, o, r, cpu_us, convert_us, &sheet);
	if (!ret && o->out_dir)
		ret = write_pictures(o, &sheet, cpu_us, convert_us);
	report_sheet_fini(&sheet);
	r->emulated = report_cpu_emulated();
	if (!ret) {
		if (frame_cpu_us)
			memcpy(frame_cpu_us, cpu_us, o->frames * sizeof(*cpu_us));
		r->cpu_us_median = median(cpu_us, r->frames);
		r->cpu_us_min = cpu_us[0];
		r->cpu_us_max = cpu_us[r->frames - 1];
		r->convert_us_median = median(convert_us, r->frames);
	}
	llmem_camera_close(cam);
out_free:
	free(cpu_us);
	free(convert_us);
	/* A run that failed before its first frame leaves no empty folder. */
	if (ret && made_dir)
		rmdir(o->out_dir);
	return ret;
}

int camera_run(const struct camera_options *o, struct camera_result *r)
{
	struct llmem_session_create_info sci = { .app_name = command(o) };
	struct llmem_session *session = NULL;
	int ret;

	ret = llmem_session_create(&sci, &session);
	if (ret) {
		memset(r, 0, sizeof(*r));
		return fail(o, ret, "Vulkan session");
	}
	ret = camera_run_on(session, o, r, NULL);
	/* After the camera is closed: its teardown is checked too. */
	if (!ret)
		r->validation_messages = llmem_session_validation_messages(session);
	llmem_session_destroy(session);
	return ret;
}

void camera_print_summary(FILE *f, const struct camera_options *o, const struct camera_result *r)
{
	const struct llmem_camera_info *i = &r->info;
	bool copy = o->create.flags & LLMEM_CAMERA_COPY;

	struct emit e;

	emit_begin(&e, f, true);
	emit_string(&e, "device", i->device);
	emit_string(&e, "driver", i->driver);
	emit_fourcc(&e, "format", i->format.fourcc);
	emit_uint(&e, "width", i->format.width);
	emit_uint(&e, "height", i->format.height);
	emit_uint(&e, "bytesperline", i->format.bytesperline);
	emit_uint(&e, "sizeimage", i->format.sizeimage);
	emit_uint(&e, "mem_planes", i->format.mem_planes);
	emit_string(&e, "path", copy ? "copy" : "zero-copy");
	emit_string(&e, "backend", copy ? "copy" : llmem_backend_name(i->backend));
	emit_bool(&e, "contiguous", i->flags & LLMEM_CAMERA_CONTIGUOUS);
	emit_uint(&e, "buffers", i->buffers);
	emit_uint(&e, "frames_per_page", i->frames_per_page);
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "frames_dropped", r->frames_dropped);
	emit_uint(&e, "frames_corrupted", r->frames_corrupted);
	emit_double(&e, "seconds", r->seconds, 3);
	emit_double(&e, "fps", r->seconds > 0 ? r->frames / r->seconds : 0.0, 2);
	emit_object(&e, "cpu_us_per_frame");
	emit_double(&e, "median", r->cpu_us_median, 1);
	emit_double(&e, "min", r->cpu_us_min, 1);
	emit_double(&e, "max", r->cpu_us_max, 1);
	emit_end(&e);
	emit_double(&e, "convert_us_per_frame", r->convert_us_median, 1);
	emit_uint(&e, "bytes_copied_per_frame", r->bytes_copied_per_frame);
	emit_int(&e, "importer_vmaps", r->importer_vmaps);
	emit_int(&e, "importer_attachments", r->importer_attachments);
	emit_int(&e, "validation_messages", r->validation_messages);
	emit_bool(&e, "emulated_cpu", r->emulated);
	emit_finish(&e);
}

int camera_write_summary(const char *path, const struct camera_options *o,
			 const struct camera_result *r)
{
	FILE *f = fopen(path, "we");
	int ret;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	camera_print_summary(f, o, r);
	if (fclose(f)) {
		ret = -errno;
		fprintf(stderr, "llmem camera: %s: %s\n", path, strerror(errno));
		return ret;
	}
	return 0;
}

/* Why the driver skipped frames, in its own figures. */
static void dropped_note(char *buf, size_t size, const struct camera_result *r)
{
	uint64_t times = r->frames + r->frames_dropped;
	char per_frame[32];

	report_duration(per_frame, sizeof(per_frame), r->seconds * 1e6 / r->frames, "µs");
	snprintf(buf, size,
		 "Why %llu frames were skipped: the driver makes a frame on its own clock, "
		 "whether or not a buffer is there to fill. It counted %llu frame times in the "
		 "%.2f s of the run (%.1f a second) while the pipeline took one frame each "
		 "%s (%.2f a second); a frame time that comes while the pipeline holds every "
		 "buffer is skipped, and counted in the frame numbers' gaps.%s",
		 (unsigned long long)r->frames_dropped, (unsigned long long)times, r->seconds,
		 times / r->seconds, per_frame, r->frames / r->seconds,
		 r->emulated ? " Here the CPU is emulated and each conversion costs seconds of it, "
			       "so most frame times pass during one."
			     : "");
}

int camera_write_report(const struct camera_options *o, const struct camera_result *r)
{
	const struct llmem_camera_info *i = &r->info;
	bool copy = o->create.flags & LLMEM_CAMERA_COPY;
	struct report_row rows[11];
	char path[4096], title[160], dropped[640], median[32], least[32], most[32];
	const char *notes[2];
	uint32_t n = 0, note_count = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/summary.json", o->out_dir);
	ret = camera_write_summary(path, o, r);
	if (ret)
		return ret;
	rows[n].name = "camera";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%s (%s)", i->device, i->driver);
	rows[n].name = "frames";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%u of %ux%u %.4s in %.2f s", r->frames,
		 i->format.width, i->format.height, (const char *)&i->format.fourcc, r->seconds);
	rows[n].name = "frames the driver skipped";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%llu dropped%s, %u flagged corrupt",
		 (unsigned long long)r->frames_dropped, r->frames_dropped ? " (see below)" : "",
		 r->frames_corrupted);
	rows[n].name = "path";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%s",
		 copy ? "copy: the driver's buffers, copied by the CPU"
		      : "zero-copy: the camera writes into llmem pages");
	rows[n].name = "pages from";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%s, %u frame%s a page",
		 copy ? "the driver" : llmem_backend_name(i->backend), i->frames_per_page,
		 i->frames_per_page == 1 ? "" : "s");
	rows[n].name = "bytes copied per frame";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%llu",
		 (unsigned long long)r->bytes_copied_per_frame);
	/* This run writes each frame's PNG between frames, which a run that
	 * writes nothing (llmem bench camera) does not: its CPU time differs. */
	rows[n].name = "CPU time per frame (pipeline thread)";
	report_duration(median, sizeof(median), r->cpu_us_median, "µs");
	report_duration(least, sizeof(least), r->cpu_us_min, "µs");
	report_duration(most, sizeof(most), r->cpu_us_max, "µs");
	snprintf(rows[n++].value, sizeof(rows[0].value),
		 "%s median (%s to %s), this run, which writes each frame's PNG between frames",
		 median, least, most);
	rows[n].name = "conversion per frame";
	report_duration(median, sizeof(median), r->convert_us_median, "µs");
	snprintf(rows[n++].value, sizeof(rows[0].value), "%s median (wall time)", median);
	rows[n].name = "llmem.ko saw on a queued frame";
	snprintf(rows[n++].value, sizeof(rows[0].value), "%lld vmaps, %lld attachments",
		 (long long)r->importer_vmaps, (long long)r->importer_attachments);
	if (r->emulated)
		notes[note_count++] =
			"These times were taken on an emulated CPU (QEMU's TCG): the device is "
			"lavapipe, a Vulkan driver that runs on that CPU, so each conversion costs "
			"emulated CPU time and the frame rate is low. What carries over to real "
			"hardware is the bytes copied and the ratio of the two paths' CPU time per "
			"frame (llmem bench camera), not the absolute figures.";
	if (r->frames_dropped) {
		dropped_note(dropped, sizeof(dropped), r);
		notes[note_count++] = dropped;
	}
	snprintf(title, sizeof(title), "llmem camera: %u frame%s from %s", r->frames,
		 cli_plural(r->frames), i->driver);
	snprintf(path, sizeof(path), "%s/index.html", o->out_dir);
	return report_write_page(path, title, rows, n, notes, note_count, r->frames);
}
