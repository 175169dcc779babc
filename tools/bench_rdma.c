// SPDX-License-Identifier: MIT
/*
 * llmem bench rdma: frames moved by RDMA WRITE from one verbs device's
 * queue pair to another's (two hosts' NICs, or one device's loopback),
 * from and into llmem buffers registered with llmem_rdma_register_buffer(),
 * against the usual way: malloc'ed buffers registered with ibv_reg_mr(),
 * the frame copied into the send buffer from where it was made (a camera's
 * llmem buffer) and out of the receive buffer into where it is used (the
 * GPU's llmem buffer).  Both paths move the same bytes between the same
 * llmem buffers, each frame's whole cycle timed, the paths taking turns in
 * rounds with the order swapped every round; medians with min and max, the
 * ratio taken per round.  The bytes the CPU copies are the benchmark's own
 * memcpy()s; a software NIC (rxe) copies every byte itself on both paths.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/buffer.h>
#include <llmem/error.h>
#include <llmem/memory.h>
#include <llmem/rdma.h>
#include <llmem/session.h>

#include "bench_rdma_verbs.h"
#include "commands.h"
#include "emit.h"
#include "progress.h"
#include "stat3.h"
#include "timing.h"

#define MAX_ROUNDS 100
#define TIMEOUT_MS 120000
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static struct {
	const char *device, *peer;
	uint64_t size, frames, rounds;
	bool json, quiet;
} args = {
	.size = 1u << 20,
	.frames = 10,
	.rounds = 5,
};

static const struct cli_option options[] = {
	{ .name = "device",
	  .short_name = 'd',
	  .type = CLI_STRING,
	  .value = &args.device,
	  .meta = "NAME",
	  .help = "the sending verbs device (default: the first)" },
	{ .name = "peer",
	  .short_name = 'p',
	  .type = CLI_STRING,
	  .value = &args.peer,
	  .meta = "NAME",
	  .help = "the receiving verbs device (default: the sending one, by its loopback)" },
	{ .name = "size",
	  .short_name = 's',
	  .type = CLI_SIZE,
	  .value = &args.size,
	  .meta = "SIZE",
	  .unit = 1,
	  .align = 1,
	  .min = 1,
	  .max = 1ull << 30,
	  .help = "bytes per frame, e.g. 614400 or 8M; a bare number counts in bytes (default "
		  "1M)" },
	CLI_OPTION_FRAMES(&args.frames, 100000, NULL, "frames per path in each round (default 10)"),
	CLI_OPTION_ROUNDS(&args.rounds, MAX_ROUNDS, "rounds the paths take turns in (default 5)"),
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

enum {
	LLMEM,
	MALLOC,
	PATHS
};
static const char *const path_names[PATHS] = { "llmem", "malloc" };

/* What one path sends from and receives into, on the two ends. */
struct path {
	uint64_t laddr, raddr;
	uint32_t lkey, rkey;
	/* The malloc path's buffers and regions. */
	uint8_t *send, *recv;
	struct ibv_mr *send_mr, *recv_mr;
	uint64_t copied;
	double wall_ms[MAX_ROUNDS], cpu_ms[MAX_ROUNDS];
};

struct bench {
	struct llmem_session *s;
	struct llmem_memory *m;
	/* The frame where it is made and where it is used. */
	struct llmem_buffer *src, *dst;
	uint8_t *src_map, *dst_map;
	struct llmem_rdma_mr *src_mr, *dst_mr;
	struct llmem_rdma_mr_info src_info;
	struct rdma_end a, b;
	struct path p[PATHS];
	char why[256];
};

static int fail(struct bench *b, int ret, const char *what, const char *detail)
{
	snprintf(b->why, sizeof(b->why), "%s: %s", what, detail);
	return ret ? ret : -EIO;
}

/* llmem memory whose mapping a card can pin: llmem.ko's pages first. */
static int make_memory(struct bench *b)
{
	struct llmem_memory_create_info ci = { .sharing = LLMEM_SHARING_DMABUF,
					       .backend = LLMEM_BACKEND_LLMEM_DMABUF,
					       .name = "bench rdma" };

	if (!llmem_memory_create(b->s, &ci, &b->m))
		return 0;
	ci.backend = 0;
	return llmem_memory_create(b->s, &ci, &b->m);
}

static int make_llmem_path(struct bench *b)
{
	struct llmem_rdma_mr_info di;
	int ret = make_memory(b);

	if (!ret)
		ret = llmem_buffer_create(
			b->m, &(struct llmem_buffer_create_info){ .size = args.size }, &b->src);
	if (!ret)
		ret = llmem_buffer_create(
			b->m, &(struct llmem_buffer_create_info){ .size = args.size }, &b->dst);
	if (!ret)
		ret = llmem_buffer_map(b->src, (void **)&b->src_map);
	if (!ret)
		ret = llmem_buffer_map(b->dst, (void **)&b->dst_map);
	if (!ret)
		ret = llmem_rdma_register_buffer(b->a.pd, b->src, ACCESS, 0, &b->src_mr);
	if (!ret)
		ret = llmem_rdma_register_buffer(b->b.pd, b->dst, ACCESS, 0, &b->dst_mr);
	if (!ret)
		ret = llmem_rdma_mr_get_info(b->src_mr, &b->src_info);
	if (!ret)
		ret = llmem_rdma_mr_get_info(b->dst_mr, &di);
	if (ret)
		return fail(b, ret, "llmem buffers", llmem_last_error());
	b->p[LLMEM] = (struct path){ .laddr = b->src_info.addr,
				     .lkey = b->src_info.lkey,
				     .raddr = di.addr,
				     .rkey = di.rkey };
	return 0;
}

static int make_malloc_path(struct bench *b)
{
	struct path *p = &b->p[MALLOC];
	size_t len = (args.size + 4095) / 4096 * 4096;

	if (posix_memalign((void **)&p->send, 4096, len) ||
	    posix_memalign((void **)&p->recv, 4096, len))
		return fail(b, -ENOMEM, "malloc", "out of memory");
	/* Touched first, as a program's own buffers would be. */
	memset(p->send, 0, len);
	memset(p->recv, 0, len);
	p->send_mr = b->a.v->reg_mr(b->a.pd, p->send, args.size, ACCESS);
	p->recv_mr = p->send_mr ? b->b.v->reg_mr(b->b.pd, p->recv, args.size, ACCESS) : NULL;
	if (!p->recv_mr)
		return fail(b, -errno, "ibv_reg_mr", strerror(errno));
	p->laddr = (uint64_t)(uintptr_t)p->send;
	p->lkey = p->send_mr->lkey;
	p->raddr = (uint64_t)(uintptr_t)p->recv;
	p->rkey = p->recv_mr->rkey;
	return 0;
}

static int setup(struct bench *b)
{
	struct llmem_session_create_info sci = { .app_name = "llmem bench rdma" };
	int ret = rdma_end_open(&b->a, args.device);

	if (ret)
		return fail(b, ret, args.device ? args.device : "the first verbs device", b->a.why);
	ret = rdma_end_open(&b->b, args.peer ? args.peer : args.device);
	if (ret)
		return fail(b, ret, args.peer ? args.peer : "the peer", b->b.why);
	ret = rdma_end_connect(&b->a, &b->b.addr);
	if (ret)
		return fail(b, ret, "the sender", b->a.why);
	ret = rdma_end_connect(&b->b, &b->a.addr);
	if (ret)
		return fail(b, ret, "the receiver", b->b.why);
	ret = llmem_session_create(&sci, &b->s);
	if (ret)
		return fail(b, ret, "Vulkan session", llmem_last_error());
	ret = make_llmem_path(b);
	if (!ret)
		ret = make_malloc_path(b);
	for (uint64_t i = 0; !ret && i < args.size; i++)
		b->src_map[i] = (uint8_t)(i * 13 + (i >> 11));
	return ret;
}

static void teardown(struct bench *b)
{
	for (int k = 0; k < PATHS; k++) {
		if (b->p[k].send_mr)
			b->a.v->dereg_mr(b->p[k].send_mr);
		if (b->p[k].recv_mr)
			b->b.v->dereg_mr(b->p[k].recv_mr);
		free(b->p[k].send);
		free(b->p[k].recv);
	}
	llmem_rdma_deregister(b->src_mr);
	llmem_rdma_deregister(b->dst_mr);
	if (b->src_map)
		llmem_buffer_unmap(b->src);
	if (b->dst_map)
		llmem_buffer_unmap(b->dst);
	llmem_buffer_destroy(b->src);
	llmem_buffer_destroy(b->dst);
	llmem_memory_destroy(b->m);
	llmem_session_destroy(b->s);
	rdma_end_close(&b->a);
	rdma_end_close(&b->b);
}

/* One frame from src to dst by @k's path. */
static int move_frame(struct bench *b, int k)
{
	struct path *p = &b->p[k];
	int ret;

	if (k == MALLOC) {
		memcpy(p->send, b->src_map, args.size);
		p->copied += args.size;
	}
	ret = rdma_end_op(&b->a, IBV_WR_RDMA_WRITE, p->laddr, p->lkey, (uint32_t)args.size,
			  p->raddr, p->rkey, 0, TIMEOUT_MS);
	if (ret)
		return fail(b, ret, "RDMA WRITE", b->a.why);
	if (k == MALLOC) {
		memcpy(b->dst_map, p->recv, args.size);
		p->copied += args.size;
	}
	return 0;
}

/* A round of @k's frames, timed whole; the frame checked after, untimed. */
static int round_of(struct bench *b, int k, uint32_t r)
{
	double w0, c0;
	int ret = 0;

	memset(b->dst_map, 0, args.size);
	w0 = timing_s(CLOCK_MONOTONIC);
	c0 = timing_s(CLOCK_PROCESS_CPUTIME_ID);
	for (uint64_t f = 0; f < args.frames && !ret; f++)
		ret = move_frame(b, k);
	b->p[k].cpu_ms[r] = (timing_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3 / (double)args.frames;
	b->p[k].wall_ms[r] = (timing_s(CLOCK_MONOTONIC) - w0) * 1e3 / (double)args.frames;
	if (!ret && memcmp(b->dst_map, b->src_map, args.size))
		ret = fail(b, -EIO, path_names[k], "the received frame differs from the sent one");
	return ret;
}

static int measure(struct bench *b)
{
	struct progress pr;
	int ret = 0;

	/* One untimed frame each: the regions' first use costs the same. */
	for (int k = 0; k < PATHS && !ret; k++)
		ret = move_frame(b, k);
	for (int k = 0; k < PATHS; k++)
		b->p[k].copied = 0;
	progress_start(&pr, "llmem bench rdma", "rounds", args.rounds, args.quiet);
	for (uint32_t r = 0; r < args.rounds && !ret; r++) {
		progress_step(&pr, r);
		for (int j = 0; j < PATHS && !ret; j++)
			ret = round_of(b, (j + (int)r) % PATHS, r);
	}
	progress_step(&pr, args.rounds);
	progress_end(&pr);
	return ret;
}

struct figures {
	struct stat3 wall[PATHS], cpu[PATHS], ratio, cpu_ratio;
};

static void figures_of(struct bench *b, struct figures *f)
{
	double v[MAX_ROUNDS], c[MAX_ROUNDS];
	uint32_t n = (uint32_t)args.rounds;

	for (uint32_t r = 0; r < n; r++) {
		v[r] = b->p[LLMEM].wall_ms[r] / b->p[MALLOC].wall_ms[r];
		c[r] = b->p[LLMEM].cpu_ms[r] / b->p[MALLOC].cpu_ms[r];
	}
	f->ratio = stat3_of(v, n);
	f->cpu_ratio = stat3_of(c, n);
	for (int k = 0; k < PATHS; k++) {
		memcpy(v, b->p[k].wall_ms, n * sizeof(double));
		memcpy(c, b->p[k].cpu_ms, n * sizeof(double));
		f->wall[k] = stat3_of(v, n);
		f->cpu[k] = stat3_of(c, n);
	}
}

static uint64_t copied_per_frame(const struct bench *b, int k)
{
	return b->p[k].copied / (args.frames * args.rounds);
}

static void print_json(const struct bench *b, const struct figures *f)
{
	struct emit e;

	emit_begin(&e, stdout, true);
	emit_string(&e, "device", args.device ? args.device : "");
	emit_string(&e, "peer", args.peer ? args.peer : (args.device ? args.device : ""));
	emit_uint(&e, "size", args.size);
	emit_uint(&e, "frames", args.frames);
	emit_uint(&e, "rounds", args.rounds);
	emit_string(&e, "llmem_registration",
		    b->src_info.path == LLMEM_RDMA_PATH_DMABUF ? "dmabuf" : "mapping");
	emit_string(&e, "dmabuf_refusal", b->src_info.dmabuf_refusal);
	emit_object(&e, "paths");
	for (int k = 0; k < PATHS; k++) {
		emit_object(&e, path_names[k]);
		emit_uint(&e, "bytes_copied_per_frame", copied_per_frame(b, k));
		emit_stat3(&e, "ms_per_frame", &f->wall[k], 3);
		emit_stat3(&e, "cpu_ms_per_frame", &f->cpu[k], 3);
		emit_end(&e);
	}
	emit_end(&e);
	emit_stat3(&e, "ratio_llmem_malloc", &f->ratio, 4);
	emit_stat3(&e, "cpu_ratio_llmem_malloc", &f->cpu_ratio, 4);
	emit_finish(&e);
}

static void print_human(const struct bench *b, const struct figures *f)
{
	printf("# RDMA WRITE of %llu-byte frames, %s -> %s, %llu frames a path in each of %llu "
	       "rounds, paths alternated\n",
	       (unsigned long long)args.size, args.device ? args.device : "(first device)",
	       args.peer ? args.peer : "itself (loopback)", (unsigned long long)args.frames,
	       (unsigned long long)args.rounds);
	if (b->src_info.path == LLMEM_RDMA_PATH_DMABUF)
		printf("# llmem buffers registered by their DMA-BUF\n");
	else
		printf("# llmem buffers registered by their mapping (%s)\n",
		       b->src_info.dmabuf_refusal);
	printf("%-8s %14s %26s %26s\n", "path", "copied B/frame", "ms/frame median (min..max)",
	       "CPU ms/frame (min..max)");
	for (int k = 0; k < PATHS; k++)
		printf("%-8s %14llu %10.3f (%.3f..%.3f) %10.3f (%.3f..%.3f)\n", path_names[k],
		       (unsigned long long)copied_per_frame(b, k), f->wall[k].median,
		       f->wall[k].min, f->wall[k].max, f->cpu[k].median, f->cpu[k].min,
		       f->cpu[k].max);
	printf("ratio llmem/malloc per round: time %.3f (%.3f..%.3f), CPU %.3f (%.3f..%.3f)\n",
	       f->ratio.median, f->ratio.min, f->ratio.max, f->cpu_ratio.median, f->cpu_ratio.min,
	       f->cpu_ratio.max);
	printf("# copied: this program's memcpy()s; a software NIC (rxe) copies every byte\n"
	       "# itself on both paths, which neither column counts\n");
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct bench b = { 0 };
	struct figures f;
	int ret = cli_parse(cmd, argc, argv);

	if (ret <= 0)
		return -ret;
	if (args.size > UINT32_MAX)
		return cli_fail(cmd, CLI_USAGE, "--size: at most %u bytes", UINT32_MAX);
	ret = setup(&b);
	if (!ret)
		ret = measure(&b);
	if (ret) {
		cli_fail(cmd, CLI_FAILED, "%s", b.why);
		teardown(&b);
		return CLI_FAILED;
	}
	figures_of(&b, &f);
	if (args.json)
		print_json(&b, &f);
	else
		print_human(&b, &f);
	teardown(&b);
	return CLI_OK;
}

const struct cli_command cmd_bench_rdma = {
	.name = "bench rdma",
	.summary = "frames by RDMA WRITE from llmem buffers vs malloc'ed regions",
	.description =
		"Moves --frames frames of --size bytes by RDMA WRITE from a queue pair on\n"
		"--device to one on --peer (or the device's own loopback), from and into\n"
		"llmem buffers registered as memory regions, against malloc'ed buffers\n"
		"registered with ibv_reg_mr(), the frame copied into the one and out of the\n"
		"other.  The paths take turns in --rounds rounds; prints the bytes the CPU\n"
		"copies per frame, the time and CPU time per frame (medians with min and\n"
		"max) and llmem's ratio to the malloc path, taken per round.  Needs\n"
		"libibverbs.so.1 and a verbs device (docs/rdma.md: software RoCE).",
	.options = options,
	.run = run,
};
