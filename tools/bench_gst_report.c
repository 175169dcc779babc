// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "bench_gst.h"
#include "cli.h"
#include "emit.h"

const char *const bench_gst_path_keys[PATHS] = { "llmem", "usual", "usual_threads", "source" };
const char *const bench_gst_path_names[PATHS] = { "llmem", "usual", "usual, threads", "source" };

static const char *const figure_keys[FIGURES] = {
	[FPS] = "frames_per_s",
	[FPS_MARGINAL] = "frames_per_s_past_first",
	[CPU_MS] = "cpu_ms_per_frame",
	[DEVICE_MS] = "device_ms_per_frame",
	[HOST_MS] = "host_ms_per_frame",
	[HOST_MARGINAL_MS] = "host_ms_per_more_frame",
	[STREAM_MS] = "streaming_ms_per_frame",
	[STREAM_USER_MS] = "streaming_user_ms_per_frame",
};

static const char *const figure_names[FIGURES] = {
	[FPS] = "frames/s",
	[FPS_MARGINAL] = "frames/s past the 1st",
	[CPU_MS] = "CPU ms/frame, all",
	[DEVICE_MS] = "device threads' CPU ms/frame",
	[HOST_MS] = "host CPU ms/frame (all - device)",
	[HOST_MARGINAL_MS] = "host CPU ms per frame past the 1st",
	[STREAM_MS] = "streaming threads' CPU ms/frame",
	[STREAM_USER_MS] = "streaming threads' user CPU ms/frame",
};

/* llmem's median over a usual path's. */
static double ratio(const struct bench_gst_pipeline *p, enum bench_gst_path usual,
		    enum bench_gst_figure f)
{
	return p->stat[LLMEM][f].median / p->stat[usual][f].median;
}

void bench_gst_print_json(const struct bench_gst_report *r)
{
	struct emit e;

	emit_begin(&e, stdout, true);
	if (r->camera)
		emit_string(&e, "camera", r->camera);
	else
		emit_null(&e, "camera");
	emit_string(&e, "source", r->source);
	emit_uint(&e, "threads", r->threads);
	emit_uint(&e, "width", r->width);
	emit_uint(&e, "height", r->height);
	emit_uint(&e, "frames", r->frames);
	emit_uint(&e, "rounds", r->rounds);
	emit_array(&e, "pipelines");
	for (int i = 0; i < r->count; i++) {
		const struct bench_gst_pipeline *p = &r->pipelines[i];

		emit_object(&e, NULL);
		emit_string(&e, "name", p->name);
		for (int k = 0; k < PATHS; k++) {
			emit_object(&e, bench_gst_path_keys[k]);
			emit_string(&e, "launch", p->launch[k][LONG]);
			for (int f = 0; f < FIGURES; f++)
				emit_stat3(&e, figure_keys[f], &p->stat[k][f], 2);
			emit_end(&e);
		}
		for (int k = USUAL; k <= USUAL_THREADS; k++) {
			char key[64];

			snprintf(key, sizeof(key), "ratio_llmem_%s", bench_gst_path_keys[k]);
			emit_object(&e, key);
			for (int f = 0; f < FIGURES; f++)
				emit_double(
					&e, figure_keys[f],
					ratio(p, (enum bench_gst_path)k, (enum bench_gst_figure)f),
					4);
			emit_end(&e);
		}
		emit_end(&e);
	}
	emit_end(&e);
	emit_finish(&e);
}

void bench_gst_print_text(const struct bench_gst_report *r)
{
	printf("llmem bench gst: %s, %ux%u YUY2 to BGRx, %llu frame%s a run, %llu round%s, "
	       "the paths' order rotating; per frame, median [min, max]\n",
	       r->camera ? r->camera : "no camera", r->width, r->height,
	       (unsigned long long)r->frames, cli_plural(r->frames), (unsigned long long)r->rounds,
	       cli_plural(r->rounds));
	for (int i = 0; i < r->count; i++) {
		const struct bench_gst_pipeline *p = &r->pipelines[i];

		printf("%s\n", p->name);
		for (int k = 0; k < PATHS; k++)
			printf("  %s: %s\n", bench_gst_path_names[k], p->launch[k][LONG]);
		for (int f = 0; f < FIGURES; f++) {
			printf("  %-34s", figure_names[f]);
			for (int k = 0; k < PATHS; k++) {
				const struct stat3 *s = &p->stat[k][f];

				printf(" %s %.2f [%.2f, %.2f];", bench_gst_path_names[k], s->median,
				       s->min, s->max);
			}
			for (int k = USUAL; k <= USUAL_THREADS; k++) {
				if (p->stat[k][f].median > 0)
					printf(" llmem/%s %.2fx", bench_gst_path_names[k],
					       ratio(p, (enum bench_gst_path)k,
						     (enum bench_gst_figure)f));
				else
					printf(" llmem/%s -", bench_gst_path_names[k]);
			}
			printf("\n");
		}
	}
	for (int i = 0; i < r->count; i++)
		if (!strcmp(r->pipelines[i].name, "convert"))
			printf("convert's source: %s\n", r->source_text);
	printf("source: the pipeline's source alone, into fakesink; usual, threads: videoconvert "
	       "n-threads=%u, a thread per core;\n",
	       r->threads);
	printf("the device's share: the CPU time of lavapipe's threads, where the Vulkan device "
	       "is lavapipe;\nvicodec encodes on the CPU, in the streaming threads' system time "
	       "on both paths;\na frame past the first: the run of N frames less a run of one, "
	       "over N - 1\n");
}
