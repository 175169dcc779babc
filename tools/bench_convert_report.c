// SPDX-License-Identifier: MIT
/*
 * bench convert's report (bench_convert.h), for people or as JSON.  Where
 * the Vulkan device is a CPU, its conversion's times are the CPU's own and
 * its "bus" is memory: people get the ratios alone, JSON says which.
 */
#include <stdio.h>

#include <vulkan/vulkan.h>

#include "bench_convert.h"
#include "cli.h"
#include "emit.h"
#include "vk_names.h"

static bool device_is_cpu(const struct convert_bench *b)
{
	return b->info.device_type == VK_PHYSICAL_DEVICE_TYPE_CPU;
}

static double ratio(const struct convert_case *c, enum convert_path p, enum convert_figure f)
{
	return c->stat[CONVERT_LLMEM][f].median / c->stat[p][f].median;
}

/* The conversion's bytes a second over the copy's, each way. */
static double bus_fraction(const struct convert_case *c, enum convert_figure f)
{
	return ratio(c, f == UP_GBS ? CONVERT_COPY_UP : CONVERT_COPY_DOWN, f);
}

static const char *encoding_name(uint32_t encoding)
{
	return encoding ? "bt709" : "bt601";
}

static void emit_path(struct emit *e, const struct convert_case *c, enum convert_path p)
{
	emit_object(e, convert_path_keys[p]);
	if (p == CONVERT_COPY_UP || p == CONVERT_COPY_DOWN) {
		emit_stat3(e, "gbs", &c->stat[p][p == CONVERT_COPY_UP ? UP_GBS : DOWN_GBS], 3);
		emit_end(e);
		return;
	}
	emit_stat3(e, "frames_per_s", &c->stat[p][FRAMES_PER_S], 2);
	emit_stat3(e, "cpu_ms_per_frame", &c->stat[p][CPU_MS_PER_FRAME], 4);
	if (p == CONVERT_LLMEM) {
		emit_stat3(e, "host_to_device_gbs", &c->stat[p][UP_GBS], 3);
		emit_stat3(e, "device_to_host_gbs", &c->stat[p][DOWN_GBS], 3);
	}
	emit_end(e);
}

static void emit_case(struct emit *e, const struct convert_bench *b, const struct convert_case *c)
{
	emit_object(e, NULL);
	emit_fourcc(e, "format", c->fourcc);
	emit_uint(e, "width", c->width);
	emit_uint(e, "height", c->height);
	emit_uint(e, "src_bytes", convert_src_bytes(c));
	emit_uint(e, "dst_bytes", convert_dst_bytes(c));
	emit_uint(e, "destinations", c->dsts);
	emit_object(e, "check");
	emit_uint(e, "frames", c->checked_frames);
	emit_uint(e, "max_difference", c->max_difference);
	emit_bool(e, "bands_equal", c->bands_equal);
	emit_end(e);
	emit_object(e, "timed_check");
	emit_uint(e, "frames", c->sampled_frames);
	emit_uint(e, "pixels", c->sampled_pixels);
	emit_uint(e, "max_difference", c->sampled_max_difference);
	emit_end(e);
	for (int p = 0; p < CONVERT_PATHS; p++)
		emit_path(e, c, (enum convert_path)p);
	for (int p = CONVERT_LIBYUV_1; p <= CONVERT_LIBYUV_N; p++) {
		char key[64];

		snprintf(key, sizeof(key), "ratio_llmem_%s", convert_path_keys[p]);
		emit_object(e, key);
		emit_double(e, "frames_per_s", ratio(c, (enum convert_path)p, FRAMES_PER_S), 4);
		emit_double(e, "cpu_ms_per_frame", ratio(c, (enum convert_path)p, CPU_MS_PER_FRAME),
			    4);
		emit_end(e);
	}
	emit_object(e, "bus_fraction");
	emit_double(e, "host_to_device", bus_fraction(c, UP_GBS), 4);
	if (b->set->dst_device)
		emit_null(e, "device_to_host");
	else
		emit_double(e, "device_to_host", bus_fraction(c, DOWN_GBS), 4);
	emit_end(e);
	emit_end(e);
}

void convert_print_json(const struct convert_report *r)
{
	const struct convert_bench *b = r->b;
	const struct convert_settings *set = b->set;
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_string(&e, "device", b->info.device_name);
	emit_string(&e, "driver", b->info.driver_name);
	emit_string(&e, "device_type", vk_device_type_name(b->info.device_type));
	emit_bool(&e, "device_is_cpu", device_is_cpu(b));
	emit_int(&e, "libyuv_version", cpu_convert_version());
	emit_uint(&e, "threads", set->threads);
	emit_uint(&e, "frames", set->frames);
	emit_uint(&e, "sources", set->sources);
	emit_uint(&e, "rounds", set->rounds);
	emit_uint(&e, "in_flight", set->in_flight);
	emit_string(&e, "dst", set->dst_device ? "device" : "host");
	emit_string(&e, "encoding", encoding_name(set->encoding));
	emit_uint(&e, "copy_size", set->copy_size);
	emit_uint(&e, "tolerance", set->tolerance);
	emit_uint(&e, "src_memory_flags", b->src_flags);
	emit_uint(&e, "dst_memory_flags", b->dst_flags);
	emit_array(&e, "cases");
	for (uint32_t i = 0; i < r->count; i++)
		emit_case(&e, b, &r->cases[i]);
	emit_end(&e);
	emit_finish(&e);
}

/* A column of @width, or the last one (0). */
static void print_stat(const struct stat3 *s, int width)
{
	char text[64];

	snprintf(text, sizeof(text), "%.2f [%.2f, %.2f]", s->median, s->min, s->max);
	printf(" %-*s", width, text);
}

static void print_case(const struct convert_bench *b, const struct convert_case *c)
{
	const struct convert_settings *set = b->set;
	bool absolute = !device_is_cpu(b);
	char names[CONVERT_PATHS][32];

	snprintf(names[CONVERT_LLMEM], sizeof(names[0]), "llmem, %u in flight", set->in_flight);
	snprintf(names[CONVERT_LIBYUV_1], sizeof(names[0]), "libyuv, 1 thread");
	snprintf(names[CONVERT_LIBYUV_N], sizeof(names[0]), "libyuv, %u thread%s", set->threads,
		 cli_plural(set->threads));
	printf("%.4s %ux%u to XRGB8888, %u destinations\n", (const char *)&c->fourcc, c->width,
	       c->height, c->dsts);
	printf("  checked before timing: %u frames by llmem, every pixel, and %u by libyuv in "
	       "bands (equal to one thread's); largest difference from libyuv %u (at most %u)\n",
	       c->checked_frames, set->sources, c->max_difference, set->tolerance);
	if (c->checked_frames > CONVERT_RECORDED_PAIRS)
		printf("  %u (source, destination) pairs, more than the converter keeps recorded "
		       "(%d): the rounds record some anew\n",
		       c->checked_frames, CONVERT_RECORDED_PAIRS);
	if (absolute) {
		printf("  %-20s %-30s %s\n", "path", "frames/s", "CPU ms/frame");
		for (int p = CONVERT_LLMEM; p <= CONVERT_LIBYUV_N; p++) {
			printf("  %-20s", names[p]);
			print_stat(&c->stat[p][FRAMES_PER_S], 30);
			print_stat(&c->stat[p][CPU_MS_PER_FRAME], 0);
			printf("\n");
		}
	}
	for (int p = CONVERT_LIBYUV_1; p <= CONVERT_LIBYUV_N; p++)
		printf("  llmem/%s: frames/s %.2fx, CPU time per frame %.2fx\n", names[p],
		       ratio(c, (enum convert_path)p, FRAMES_PER_S),
		       ratio(c, (enum convert_path)p, CPU_MS_PER_FRAME));
	for (int f = UP_GBS; f <= DOWN_GBS; f++) {
		enum convert_path copy = f == UP_GBS ? CONVERT_COPY_UP : CONVERT_COPY_DOWN;

		printf("  bus %s", f == UP_GBS ? "host->device:" : "device->host:");
		if (f == DOWN_GBS && set->dst_device) {
			printf(" none, the destination is device-local\n");
			continue;
		}
		if (absolute) {
			printf(" llmem %.2f [%.2f, %.2f] GB/s, vkCmdCopyBuffer %.2f [%.2f, %.2f] "
			       "GB/s;",
			       c->stat[CONVERT_LLMEM][f].median, c->stat[CONVERT_LLMEM][f].min,
			       c->stat[CONVERT_LLMEM][f].max, c->stat[copy][f].median,
			       c->stat[copy][f].min, c->stat[copy][f].max);
		}
		printf(" llmem/vkCmdCopyBuffer %.2f\n", bus_fraction(c, (enum convert_figure)f));
	}
	if (c->sampled_frames)
		printf("  checked in the timed rounds: %d pixels of each of %llu frames by llmem, "
		       "largest difference %u\n",
		       CONVERT_SAMPLES, (unsigned long long)c->sampled_frames,
		       c->sampled_max_difference);
	else
		printf("  not checked in the timed rounds: the destinations are device-local\n");
}

void convert_print_text(const struct convert_report *r)
{
	const struct convert_bench *b = r->b;
	const struct convert_settings *set = b->set;

	printf("llmem bench convert: %s (%s, %s)\n", b->info.device_name, b->info.driver_name,
	       vk_device_type_name(b->info.device_type));
	if (device_is_cpu(b))
		printf("the device is a CPU: its conversion is the CPU's work and its bus is "
		       "memory; ratios only\n");
	printf("%u frames a path a round from %u sources in turn, %u round%s, the paths' order "
	       "rotating; median [min, max] of the rounds\n",
	       set->frames, set->sources, set->rounds, cli_plural(set->rounds));
	printf("sources in host memory (flags 0x%x); llmem: %u in flight into %s memory (flags "
	       "0x%x); libyuv %d; %s, limited range; bus peer: %.6g MiB copies\n",
	       b->src_flags, set->in_flight, set->dst_device ? "device-local" : "host",
	       b->dst_flags, cpu_convert_version(), set->encoding ? "BT.709" : "BT.601",
	       (double)set->copy_size / (1 << 20));
	for (uint32_t i = 0; i < r->count; i++)
		print_case(b, &r->cases[i]);
	printf("CPU time: the process's, over each path's whole round (llmem's submissions and "
	       "waits included); the bus: frames' bytes read from and written to host memory a "
	       "second\n");
}
