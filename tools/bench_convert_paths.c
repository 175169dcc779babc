// SPDX-License-Identifier: MIT
/*
 * bench convert's paths (bench_convert.h): the memories and frames they
 * share, llmem's conversion with frames in flight, libyuv's in one thread
 * and in bands, the bus's copies, and the checks that every path converts
 * what it should, apart from the rounds that time them and the report.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include "bench_convert.h"
#include "timing.h"

const char *const convert_path_keys[CONVERT_PATHS] = {
	[CONVERT_LLMEM] = "llmem",
	[CONVERT_LIBYUV_1] = "libyuv_1_thread",
	[CONVERT_LIBYUV_N] = "libyuv_bands",
	[CONVERT_COPY_UP] = "copy_host_to_device",
	[CONVERT_COPY_DOWN] = "copy_device_to_host",
};

static int fail(struct convert_bench *b, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct convert_bench *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->error, sizeof(b->error), fmt, ap);
	va_end(ap);
	return ret;
}

uint64_t convert_src_bytes(const struct convert_case *c)
{
	uint64_t pixels = (uint64_t)c->width * c->height;

	return c->fourcc == V4L2_PIX_FMT_NV12 ? pixels * 3 / 2 : pixels * 2;
}

uint64_t convert_dst_bytes(const struct convert_case *c)
{
	return (uint64_t)c->width * c->height * 4;
}

/* Host memory as a camera's frames are: host-cached where a type is, so
 * that libyuv reads them at the CPU's speed, as it would a V4L2 buffer. */
static int host_memory(struct convert_bench *b, const char *name, struct llmem_memory **out)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE | LLMEM_MEMORY_HOST_CACHED,
		.name = name,
	};
	int ret = llmem_memory_create(b->s, &ci, out);

	if (ret != -ENOTSUP)
		return ret;
	ci.flags = LLMEM_MEMORY_HOST_VISIBLE;
	return llmem_memory_create(b->s, &ci, out);
}

static int memory_flags(struct llmem_memory *m, uint32_t *flags, bool *coherent)
{
	struct llmem_memory_info mi;
	int ret = llmem_memory_get_info(m, &mi);

	*flags = mi.flags;
	if (coherent)
		*coherent = mi.coherent;
	return ret;
}

static int copy(struct convert_bench *b, bool up)
{
	return up ? llmem_enqueue_copy_buffer(b->q, b->copy_host, 0, b->copy_dev, 0,
					      b->set->copy_size, NULL, NULL)
		  : llmem_enqueue_copy_buffer(b->q, b->copy_dev, 0, b->copy_host, 0,
					      b->set->copy_size, NULL, NULL);
}

int convert_bench_init(struct convert_bench *b, const struct convert_settings *set)
{
	struct llmem_memory_create_info local = { .flags = LLMEM_MEMORY_DEVICE_LOCAL,
						  .name = "device-local" };
	struct llmem_buffer_create_info bci = { .size = set->copy_size };
	int ret;

	b->set = set;
	ret = llmem_session_create(NULL, &b->s);
	if (!ret)
		ret = llmem_session_get_info(b->s, &b->info);
	if (!ret)
		ret = host_memory(b, "sources", &b->src_mem);
	if (!ret)
		ret = llmem_memory_create(b->s, &local, &b->local_mem);
	if (!ret && set->dst_device)
		ret = llmem_memory_create(b->s, &local, &b->dst_mem);
	else if (!ret)
		ret = host_memory(b, "destinations", &b->dst_mem);
	if (!ret)
		ret = memory_flags(b->src_mem, &b->src_flags, NULL);
	if (!ret)
		ret = memory_flags(b->dst_mem, &b->dst_flags, &b->dst_coherent);
	/* The bus's peers: host memory as the sources', the device's own. */
	if (!ret)
		ret = llmem_buffer_create(b->src_mem, &bci, &b->copy_host);
	if (!ret)
		ret = llmem_buffer_create(b->local_mem, &bci, &b->copy_dev);
	if (!ret)
		ret = llmem_queue_create(b->s, NULL, &b->q);
	/* Once each way, so that no first touch of a page is timed. */
	if (!ret)
		ret = copy(b, true);
	if (!ret)
		ret = copy(b, false);
	if (!ret && (ret = cpu_bands_create(set->threads, &b->bands)))
		return fail(b, ret, "cannot start %u threads for libyuv's bands", set->threads);
	return ret;
}

void convert_bench_fini(struct convert_bench *b)
{
	cpu_bands_destroy(b->bands);
	llmem_queue_destroy(b->q);
	llmem_buffer_destroy(b->copy_host);
	llmem_buffer_destroy(b->copy_dev);
	llmem_memory_destroy(b->src_mem);
	llmem_memory_destroy(b->dst_mem);
	llmem_memory_destroy(b->local_mem);
	llmem_session_destroy(b->s);
}

/* Noise (xorshift64*), each source its own, in the limited range cameras
 * send (16 to 235, as Y' and Cb, Cr have in common), so that every colour
 * libyuv and llmem meet in a camera's frames is checked. */
static void draw(uint8_t *p, uint64_t size, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 12345;

	for (uint64_t i = 0; i < size; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		p[i] = (uint8_t)(16 + (x * 0x2545f4914f6cdd1dull >> 32) % 220);
	}
}

static struct cpu_frame cpu_frame(const struct convert_bench *b, const struct convert_case *c,
				  uint32_t source, uint8_t *dst)
{
	const struct llmem_frame_layout *in = &c->src_layout;

	return (struct cpu_frame){
		.fourcc = c->fourcc,
		.width = c->width,
		.height = c->height,
		.src = c->src_map[source] + in->offset[0],
		.src_pitch = in->pitch[0],
		.chroma = in->num_planes > 1 ? c->src_map[source] + in->offset[1] : NULL,
		.chroma_pitch = in->num_planes > 1 ? in->pitch[1] : 0,
		.dst = dst,
		.dst_pitch = c->dst_layout.pitch[0],
		.encoding = b->set->encoding,
	};
}

static uint32_t diff(uint8_t a, uint8_t b)
{
	return a > b ? (uint32_t)(a - b) : (uint32_t)(b - a);
}

/* The largest difference of a pixel's bytes; alpha must be 255 on both. */
static uint32_t pixel_difference(const uint8_t *got, const uint8_t *want)
{
	uint32_t d = got[3] == want[3] ? 0 : 256;

	for (int i = 0; i < 3; i++)
		if (diff(got[i], want[i]) > d)
			d = diff(got[i], want[i]);
	return d;
}

static int pixel_check(struct convert_bench *b, const struct convert_case *c, const uint8_t *got,
		       uint32_t source, uint32_t x, uint32_t y, uint64_t frame, uint32_t *max)
{
	uint64_t at = (uint64_t)y * c->dst_layout.pitch[0] + (uint64_t)x * 4;
	const uint8_t *g = got + at, *w = c->ref[source] + at;
	uint32_t d = pixel_difference(g, w);

	if (d > *max)
		*max = d;
	if (d <= b->set->tolerance)
		return 0;
	return fail(b, -EIO,
		    "%.4s %ux%u frame %llu (source %u): pixel (%u, %u) is B,G,R,A %u,%u,%u,%u, "
		    "libyuv's %u,%u,%u,%u: more than %u apart",
		    (const char *)&c->fourcc, c->width, c->height, (unsigned long long)frame,
		    source, x, y, g[0], g[1], g[2], g[3], w[0], w[1], w[2], w[3],
		    b->set->tolerance);
}

static int frame_check(struct convert_bench *b, struct convert_case *c, const uint8_t *got,
		       uint32_t source, uint64_t frame)
{
	for (uint32_t y = 0; y < c->height; y++)
		for (uint32_t x = 0; x < c->width; x++) {
			int ret = pixel_check(b, c, got, source, x, y, frame, &c->max_difference);

			if (ret)
				return ret;
		}
	c->checked_frames++;
	return 0;
}

/* Pixels spread by a hash of the frame's number: a frame converted from
 * another source, left unconverted or half done shows in any of them. */
static int sample_check(struct convert_bench *b, struct convert_case *c, uint32_t k,
			uint32_t source, uint64_t frame)
{
	if (!b->dst_coherent) {
		int ret = llmem_buffer_invalidate(c->dst[k], 0, c->dst_layout.size);

		if (ret)
			return ret;
	}
	for (uint64_t n = 0; n < CONVERT_SAMPLES; n++) {
		uint64_t h = (frame * CONVERT_SAMPLES + n + 1) * 0x9e3779b97f4a7c15ull;
		int ret = pixel_check(b, c, c->dst_map[k], source, (uint32_t)(h % c->width),
				      (uint32_t)((h >> 32) % c->height), frame,
				      &c->sampled_max_difference);

		if (ret)
			return ret;
	}
	c->sampled_pixels += CONVERT_SAMPLES;
	c->sampled_frames++;
	return 0;
}

/* The whole of destination @k, read back through the queue where it is
 * device-local. */
static int full_check(struct convert_bench *b, struct convert_case *c, uint32_t k, uint32_t source,
		      uint64_t frame)
{
	const uint8_t *got = c->dst_map[k];
	int ret = 0;

	if (!got) {
		ret = llmem_enqueue_read_buffer(b->q, c->dst[k], 0, c->cpu_dst[0],
						c->dst_layout.size, NULL, NULL);
		got = c->cpu_dst[0];
	} else if (!b->dst_coherent) {
		ret = llmem_buffer_invalidate(c->dst[k], 0, c->dst_layout.size);
	}
	return ret ? ret : frame_check(b, c, got, source, frame);
}

/*
 * @frames frames through llmem's converter, source after source, a
 * destination after another: before a destination takes its next frame,
 * its last one is waited for and checked, wholly (@full) or by samples
 * (device-local destinations only wholly).  At most frames_in_flight are
 * unfinished at once, as the converter allows.
 */
static int llmem_frames(struct convert_bench *b, struct convert_case *c, uint64_t frames, bool full)
{
	uint64_t ticket[CONVERT_MAX_DSTS] = { 0 }, frame_of[CONVERT_MAX_DSTS];
	uint32_t source_of[CONVERT_MAX_DSTS];
	int ret;

	for (uint64_t i = 0; i < frames + c->dsts; i++) {
		uint32_t k = (uint32_t)(i % c->dsts);
		uint32_t s = (uint32_t)(i % b->set->sources);
		struct llmem_convert_frame f = { .src = c->src[s], .dst = c->dst[k] };

		if (ticket[k]) {
			ret = llmem_converter_wait(c->converter, ticket[k], UINT64_MAX);
			if (!ret && full)
				ret = full_check(b, c, k, source_of[k], frame_of[k]);
			else if (!ret && c->dst_map[k])
				ret = sample_check(b, c, k, source_of[k], frame_of[k]);
			if (ret)
				return ret;
			ticket[k] = 0;
		}
		if (i >= frames)
			continue;
		ret = llmem_converter_submit(c->converter, &f, &ticket[k]);
		if (ret)
			return ret;
		source_of[k] = s;
		frame_of[k] = i;
	}
	return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Each source converted by libyuv, alone and in bands (which must agree to
 * the byte), and by llmem through each destination in turn. */
static int check(struct convert_bench *b, struct convert_case *c)
{
	uint32_t sources = b->set->sources;
	int ret;

	for (uint32_t s = 0; s < sources; s++) {
		struct cpu_frame one = cpu_frame(b, c, s, c->ref[s]);
		struct cpu_frame all = cpu_frame(b, c, s, c->cpu_dst[0]);

		ret = cpu_convert_rows(&one, 0, c->height);
		if (!ret)
			ret = cpu_bands_convert(b->bands, &all);
		if (ret)
			return fail(b, ret, "libyuv refuses %.4s %ux%u", (const char *)&c->fourcc,
				    c->width, c->height);
		if (memcmp(c->ref[s], c->cpu_dst[0], c->dst_layout.size))
			return fail(b, -EIO,
				    "libyuv in %u bands differs from libyuv in one (source %u)",
				    b->set->threads, s);
	}
	c->bands_equal = true;
	/* Every (source, destination) pair the rounds will use, recorded
	 * on its first use here rather than in a timed round. */
	return llmem_frames(b, c, sources / gcd(sources, c->dsts) * c->dsts, true);
}

static int make_frames(struct convert_bench *b, struct convert_case *c)
{
	struct llmem_buffer_create_info src = { .size = c->src_layout.size };
	struct llmem_buffer_create_info dst = { .size = c->dst_layout.size };
	int ret = 0;

	for (uint32_t s = 0; s < b->set->sources && !ret; s++) {
		ret = llmem_buffer_create(b->src_mem, &src, &c->src[s]);
		if (!ret)
			ret = llmem_buffer_map(c->src[s], (void **)&c->src_map[s]);
		if (ret)
			break;
		draw(c->src_map[s], c->src_layout.size, s + 1);
		ret = llmem_buffer_flush(c->src[s], 0, c->src_layout.size);
		c->ref[s] = aligned_alloc(64, (c->dst_layout.size + 63) & ~63ull);
		if (!c->ref[s])
			ret = -ENOMEM;
	}
	for (uint32_t k = 0; k < c->dsts && !ret; k++) {
		ret = llmem_buffer_create(b->dst_mem, &dst, &c->dst[k]);
		if (!ret && !b->set->dst_device)
			ret = llmem_buffer_map(c->dst[k], (void **)&c->dst_map[k]);
		c->cpu_dst[k] = aligned_alloc(64, (c->dst_layout.size + 63) & ~63ull);
		if (!ret && !c->cpu_dst[k])
			ret = -ENOMEM;
		/* Touched, so that first-touch faults stay out of the rounds. */
		if (!ret)
			memset(c->cpu_dst[k], 0, c->dst_layout.size);
	}
	return ret;
}

int convert_case_init(struct convert_bench *b, struct convert_case *c)
{
	uint32_t in_flight = b->set->in_flight;
	int ret;

	ret = llmem_frame_layout_init(c->fourcc, c->width, c->height, NULL, &c->src_layout);
	if (!ret)
		ret = llmem_frame_layout_init(DRM_FORMAT_XRGB8888, c->width, c->height, NULL,
					      &c->dst_layout);
	if (ret)
		return ret;
	c->dsts = in_flight + (in_flight % b->set->sources == 0);
	ret = make_frames(b, c);
	if (!ret)
		ret = llmem_converter_create(
			&(struct llmem_converter_create_info){
				.src_layout = &c->src_layout,
				.dst_layout = &c->dst_layout,
				.encoding = b->set->encoding,
				.frames_in_flight = in_flight,
				.session = b->s,
			},
			&c->converter);
	return ret ? ret : check(b, c);
}

void convert_case_fini(struct convert_case *c)
{
	llmem_converter_destroy(c->converter);
	for (uint32_t s = 0; s < CONVERT_MAX_SOURCES; s++) {
		llmem_buffer_destroy(c->src[s]);
		free(c->ref[s]);
	}
	for (uint32_t k = 0; k < CONVERT_MAX_DSTS; k++) {
		llmem_buffer_destroy(c->dst[k]);
		free(c->cpu_dst[k]);
	}
}

static int cpu_frames(struct convert_bench *b, struct convert_case *c, bool bands)
{
	for (uint64_t i = 0; i < b->set->frames; i++) {
		struct cpu_frame f =
			cpu_frame(b, c, (uint32_t)(i % b->set->sources), c->cpu_dst[i % c->dsts]);
		int ret =
			bands ? cpu_bands_convert(b->bands, &f) : cpu_convert_rows(&f, 0, f.height);

		if (ret)
			return ret;
	}
	return 0;
}

int convert_case_run(struct convert_bench *b, struct convert_case *c, enum convert_path p,
		     uint32_t round)
{
	double wall = timing_s(CLOCK_MONOTONIC), cpu = timing_s(CLOCK_PROCESS_CPUTIME_ID);
	double frames = b->set->frames, up = 0, down = 0;
	int ret;

	switch (p) {
	case CONVERT_LLMEM:
		ret = llmem_frames(b, c, b->set->frames, false);
		up = frames * (double)convert_src_bytes(c);
		down = b->set->dst_device ? 0 : frames * (double)convert_dst_bytes(c);
		break;
	case CONVERT_LIBYUV_1:
	case CONVERT_LIBYUV_N:
		ret = cpu_frames(b, c, p == CONVERT_LIBYUV_N);
		break;
	default:
		ret = copy(b, p == CONVERT_COPY_UP);
		*(p == CONVERT_COPY_UP ? &up : &down) = (double)b->set->copy_size;
		frames = 0;
		break;
	}
	if (ret)
		return ret;
	cpu = timing_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	wall = timing_s(CLOCK_MONOTONIC) - wall;
	c->sample[p][FRAMES_PER_S][round] = frames / wall;
	c->sample[p][CPU_MS_PER_FRAME][round] = frames ? 1e3 * cpu / frames : 0;
	c->sample[p][UP_GBS][round] = up / wall / 1e9;
	c->sample[p][DOWN_GBS][round] = down / wall / 1e9;
	return 0;
}
