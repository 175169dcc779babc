// SPDX-License-Identifier: MIT
/*
 * llmem bench alloc: the standard allocation trace (design.md) through the
 * virtual pool, through the library's full Vulkan objects (buffers and
 * images in a memory of 32 MiB pages), and in the same run through the
 * peer, one vkAllocateMemory per object.
 *
 * Objects: a buffer operation is llmem_buffer_create() of its size (default
 * usage), an image operation llmem_image_create() of a 2-D RGBA8 (u8, four
 * channels) image 1024 texels wide and size / 4096 rows high, whose tightly
 * packed bytes are exactly the operation's size (image sizes are multiples
 * of 4096); a free is llmem_buffer_destroy() or llmem_image_destroy().
 *
 * Each operation is timed on its own with CLOCK_MONOTONIC, less the cost of
 * reading the clock measured beforehand, to split allocations from frees
 * (the thread's CPU clock is a system call, dearer than a pool operation);
 * a second pass without per-operation clocks gives the whole-run figure, in
 * the thread's CPU time.
 *
 * The three take turns in rounds, the first of a round rotating, so that
 * each ratio compares passes made at the same moment on a loaded machine;
 * a ratio is taken per round, and its median, min and max printed.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vulkan/vulkan.h>

#include <llmem/llmem.h>

#include "alloc_trace.h"
#include "commands.h"
#include "emit.h"
#include "progress.h"

#define MAX_RUNS 101

struct figures {
	double op_ns, alloc_ns, free_ns;
	/* Objects only: allocations of buffers and of images apart. */
	double buffer_ns, image_ns;
};

struct bench {
	const struct alloc_trace *trace;
	bool quiet;
	size_t peak_op; /* after this operation, live bytes are at their peak */
	uint64_t peak_bytes;
	uint64_t granularity;
	double clock_ns;
	uint64_t *handles;
	uint32_t pages, peak_pages;
	double fragmentation;

	VkInstance instance;
	VkDevice device;
	uint32_t memory_type;
	char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	VkDeviceMemory *memories;

	/* Full objects through the library. */
	struct llmem_session *session;
	void **objects;
	uint8_t *object_is_image; /* free operations do not say */
	uint32_t obj_peak_pages;
	double obj_fragmentation;
	uint64_t obj_peak_bytes; /* bytes the pool held at the peak op, padding included */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The thread's CPU time: a whole pass, where a preemption on a busy machine
 * would add the other programs' time to a wall clock's. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The cost of one now_ns(), taken off every timed operation: the least of
 * 20 batches, so that a batch preempted on a busy machine does not count.
 */
static double clock_cost(void)
{
	double best = 1e9;

	for (int batch = 0; batch < 20; batch++) {
		uint64_t t0 = now_ns(), t = t0;

		for (int i = 0; i < 5000; i++)
			t = now_ns();
		if ((double)(t - t0) / 5000 < best)
			best = (double)(t - t0) / 5000;
	}
	return best;
}

static void find_peak(struct bench *b)
{
	const struct alloc_trace *t = b->trace;
	uint64_t *sizes = calloc(t->objects ? t->objects : 1, sizeof(*sizes));
	uint64_t live = 0;

	for (size_t i = 0; i < t->count; i++) {
		const struct alloc_trace_op *op = &t->ops[i];

		if (op->free) {
			live -= sizes[op->id];
			continue;
		}
		sizes[op->id] = op->size;
		live += op->size;
		if (live > b->peak_bytes) {
			b->peak_bytes = live;
			b->peak_op = i;
		}
	}
	free(sizes);
}

static int count_page_create(void *user, uint32_t index, uint64_t size)
{
	struct bench *b = user;

	(void)index;
	(void)size;
	if (++b->pages > b->peak_pages)
		b->peak_pages = b->pages;
	return 0;
}

static void count_page_destroy(void *user, uint32_t index)
{
	struct bench *b = user;

	(void)index;
	b->pages--;
}

/* One pass over the trace through the pool; @timed splits allocs from frees. */
static int run_virtual(struct bench *b, size_t ops, int timed, struct figures *f)
{
	struct llmem_pool_create_info ci = {
		.granularity = b->granularity,
		.page_create = count_page_create,
		.page_destroy = count_page_destroy,
		.user = b,
	};
	uint64_t alloc_ns = 0, free_ns = 0, allocs = 0, frees = 0, t0, t1, start;
	struct llmem_pool_alloc_info info;
	struct llmem_pool *pool;
	int ret;

	b->pages = b->peak_pages = 0;
	ret = llmem_pool_create(&ci, &pool);
	if (ret)
		return ret;
	start = cpu_ns();
	for (size_t i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &b->trace->ops[i];

		t0 = timed ? now_ns() : 0;
		if (op->free) {
			ret = llmem_pool_free(pool, b->handles[op->id]);
		} else {
			ret = llmem_pool_alloc(pool, op->size, op->align,
					       op->image ? LLMEM_BLOCK_OPTIMAL : LLMEM_BLOCK_LINEAR,
					       &info, &b->handles[op->id]);
		}
		if (!timed) {
			if (ret)
				break;
			continue;
		}
		t1 = now_ns();
		if (ret)
			break;
		if (op->free) {
			free_ns += t1 - t0;
			frees++;
		} else {
			alloc_ns += t1 - t0;
			allocs++;
		}
		if (i == b->peak_op) {
			struct llmem_pool_stats s;

			llmem_pool_stats(pool, &s);
			b->fragmentation =
				s.free_bytes ? 1.0 - (double)s.largest_free / (double)s.free_bytes
					     : 0;
		}
	}
	f->op_ns = (double)(cpu_ns() - start) / (double)ops;
	f->alloc_ns = allocs ? (double)alloc_ns / (double)allocs - b->clock_ns : 0;
	f->free_ns = frees ? (double)free_ns / (double)frees - b->clock_ns : 0;
	llmem_pool_destroy(pool);
	if (ret)
		fprintf(stderr, "llmem bench alloc: virtual pool: %s\n", strerror(-ret));
	return ret;
}

static int vk_open(struct bench *b)
{
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "llmem bench alloc",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ici = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pApplicationInfo = &app,
	};
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = 0,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
	};
	VkPhysicalDeviceMemoryProperties mp;
	VkPhysicalDeviceProperties props;
	VkPhysicalDevice phys;
	uint32_t n = 1;
	VkResult r;

	r = vkCreateInstance(&ici, NULL, &b->instance);
	if (r != VK_SUCCESS)
		return -ENODEV;
	r = vkEnumeratePhysicalDevices(b->instance, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
		return -ENODEV;
	vkGetPhysicalDeviceProperties(phys, &props);
	snprintf(b->device_name, sizeof(b->device_name), "%s", props.deviceName);
	vkGetPhysicalDeviceMemoryProperties(phys, &mp);
	b->memory_type = 0;
	for (uint32_t i = 0; i < mp.memoryTypeCount; i++) {
		if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
			b->memory_type = i;
			break;
		}
	}
	r = vkCreateDevice(phys, &dci, NULL, &b->device);
	return r == VK_SUCCESS ? 0 : -ENODEV;
}

static void vk_close(struct bench *b)
{
	if (b->device)
		vkDestroyDevice(b->device, NULL);
	if (b->instance)
		vkDestroyInstance(b->instance, NULL);
}

/* The same trace, one VkDeviceMemory per object. */
static int run_peer(struct bench *b, size_t ops, int timed, struct figures *f)
{
	uint64_t alloc_ns = 0, free_ns = 0, allocs = 0, frees = 0, t0, t1, start;
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.memoryTypeIndex = b->memory_type,
	};
	VkResult r = VK_SUCCESS;
	size_t i;

	memset(b->memories, 0, b->trace->objects * sizeof(*b->memories));
	start = cpu_ns();
	for (i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &b->trace->ops[i];

		t0 = timed ? now_ns() : 0;
		if (op->free) {
			vkFreeMemory(b->device, b->memories[op->id], NULL);
			b->memories[op->id] = VK_NULL_HANDLE;
		} else {
			mai.allocationSize = op->size;
			r = vkAllocateMemory(b->device, &mai, NULL, &b->memories[op->id]);
		}
		if (!timed) {
			if (r != VK_SUCCESS)
				break;
			continue;
		}
		t1 = now_ns();
		if (r != VK_SUCCESS)
			break;
		if (op->free) {
			free_ns += t1 - t0;
			frees++;
		} else {
			alloc_ns += t1 - t0;
			allocs++;
		}
	}
	f->op_ns = (double)(cpu_ns() - start) / (double)ops;
	f->alloc_ns = allocs ? (double)alloc_ns / (double)allocs - b->clock_ns : 0;
	f->free_ns = frees ? (double)free_ns / (double)frees - b->clock_ns : 0;
	for (uint32_t id = 0; id < b->trace->objects; id++)
		if (b->memories[id] != VK_NULL_HANDLE)
			vkFreeMemory(b->device, b->memories[id], NULL);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "llmem bench alloc: vkAllocateMemory failed (%d) at op %zu\n", r,
			i);
		return -ENOMEM;
	}
	return 0;
}

#define OBJECT_IMAGE_WIDTH 1024

static int object_alloc(struct llmem_memory *m, const struct alloc_trace_op *op, void **out)
{
	if (op->image) {
		struct llmem_image_create_info ci = {
			.ndim = 3,
			.shape = { (uint32_t)(op->size / (OBJECT_IMAGE_WIDTH * 4)),
				   OBJECT_IMAGE_WIDTH, 4 },
			.channel_type = LLMEM_CHANNEL_U8,
		};

		return llmem_image_create(m, &ci, (struct llmem_image **)out);
	}
	return llmem_buffer_create(m, &(struct llmem_buffer_create_info){ .size = op->size },
				   (struct llmem_buffer **)out);
}

static void object_free(struct bench *b, uint32_t id)
{
	if (b->object_is_image[id])
		llmem_image_destroy(b->objects[id]);
	else
		llmem_buffer_destroy(b->objects[id]);
	b->objects[id] = NULL;
}

/* The same trace, one library buffer or image per object. */
static int run_objects(struct bench *b, size_t ops, int timed, struct figures *f)
{
	struct llmem_memory_create_info mci = {
		.page_size = LLMEM_MEMORY_DEFAULT_PAGE_SIZE,
		.name = "bench alloc",
	};
	uint64_t alloc_ns = 0, free_ns = 0, allocs = 0, frees = 0, t0, t1, start;
	uint64_t image_ns = 0, images = 0;
	const struct alloc_trace *t = b->trace;
	struct llmem_memory_info mi;
	struct llmem_memory *m;
	int ret = 0;
	size_t i;

	ret = llmem_memory_create(b->session, &mci, &m);
	if (ret)
		goto out_message;
	memset(b->objects, 0, t->objects * sizeof(*b->objects));
	b->obj_peak_pages = 0;
	start = cpu_ns();
	for (i = 0; i < ops; i++) {
		const struct alloc_trace_op *op = &t->ops[i];

		t0 = timed ? now_ns() : 0;
		if (op->free) {
			object_free(b, op->id);
		} else {
			b->object_is_image[op->id] = op->image;
			ret = object_alloc(m, op, &b->objects[op->id]);
		}
		if (!timed) {
			if (ret)
				break;
			continue;
		}
		t1 = now_ns();
		if (ret)
			break;
		if (op->free) {
			free_ns += t1 - t0;
			frees++;
			continue;
		}
		alloc_ns += t1 - t0;
		allocs++;
		if (op->image) {
			image_ns += t1 - t0;
			images++;
		}
		llmem_memory_get_info(m, &mi);
		if (mi.page_count > b->obj_peak_pages)
			b->obj_peak_pages = mi.page_count;
		if (i == b->peak_op) {
			struct llmem_page_stats ps;

			llmem_memory_get_page_stats(m, LLMEM_ALL_PAGES, &ps);
			b->obj_fragmentation = ps.free_bytes ? 1.0 - (double)ps.largest_free /
									       (double)ps.free_bytes
							     : 0;
			b->obj_peak_bytes = ps.used_bytes;
		}
	}
	f->op_ns = (double)(cpu_ns() - start) / (double)ops;
	f->alloc_ns = allocs ? (double)alloc_ns / (double)allocs - b->clock_ns : 0;
	f->free_ns = frees ? (double)free_ns / (double)frees - b->clock_ns : 0;
	f->image_ns = images ? (double)image_ns / (double)images - b->clock_ns : 0;
	f->buffer_ns = allocs > images ? (double)(alloc_ns - image_ns) / (double)(allocs - images) -
						 b->clock_ns
				       : 0;
	for (uint32_t id = 0; id < t->objects; id++)
		if (b->objects[id])
			object_free(b, id);
	llmem_memory_destroy(m);
	if (!ret)
		return 0;
	fprintf(stderr, "llmem bench alloc: objects, at op %zu: ", i);
out_message:
	fprintf(stderr, "%s\n", llmem_last_error());
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct summary {
	double med, min, max;
};

static struct summary summarise(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct summary){ v[n / 2], v[0], v[n - 1] };
}

typedef int (*run_fn)(struct bench *b, size_t ops, int timed, struct figures *f);

/* One of the three, with its figures per round. */
struct phase {
	run_fn run;
	size_t ops;
	int runs; /* it takes part in the first @runs rounds; 0: not at all */
	double v[5][MAX_RUNS]; /* op, alloc, free, buffer alloc, image alloc */
	struct summary s[5];
};

/* A whole pass for the op figure, then a timed one for the split. */
static int measure_once(struct bench *b, struct phase *ph, int r)
{
	struct figures f, g;
	int ret;

	ret = ph->run(b, ph->ops, 0, &g);
	if (!ret)
		ret = ph->run(b, ph->ops, 1, &f);
	if (ret)
		return ret;
	ph->v[0][r] = g.op_ns;
	ph->v[1][r] = f.alloc_ns;
	ph->v[2][r] = f.free_ns;
	ph->v[3][r] = f.buffer_ns;
	ph->v[4][r] = f.image_ns;
	return 0;
}

/*
 * @rounds rounds of @n phases, the phase that goes first rotating from one
 * round to the next.  A phase that fails drops out (its runs 0) and the
 * others go on; Return: 0, or the virtual pool's error, which ends the run.
 */
static int measure(struct bench *b, struct phase *ph, int n, int rounds)
{
	struct progress p;
	int ret = 0;

	progress_start(&p, "llmem bench alloc", "runs", (uint64_t)rounds, b->quiet);
	for (int r = 0; r < rounds; r++) {
		for (int j = 0; j < n; j++) {
			struct phase *q = &ph[(r + j) % n];

			if (r >= q->runs)
				continue;
			ret = measure_once(b, q, r);
			if (ret && q == &ph[0]) {
				progress_end(&p);
				return ret;
			}
			if (ret)
				q->runs = 0;
		}
		progress_step(&p, (uint64_t)r + 1);
	}
	progress_end(&p);
	/* On copies: the rounds' order is kept for the ratios. */
	for (int k = 0; k < n; k++) {
		for (int i = 0; ph[k].runs && i < 5; i++) {
			double v[MAX_RUNS];

			memcpy(v, ph[k].v[i], (size_t)ph[k].runs * sizeof(*v));
			ph[k].s[i] = summarise(v, ph[k].runs);
		}
	}
	return 0;
}

/* @a's figures over @b's, round by round, in the rounds both took part in. */
struct ratio {
	struct summary q[3]; /* op, alloc, free */
	bool valid[3];
};

static struct ratio ratio_of(const struct phase *a, const struct phase *b)
{
	int rounds = a->runs < b->runs ? a->runs : b->runs;
	struct ratio out = { 0 };
	double v[MAX_RUNS];

	for (int i = 0; i < 3; i++) {
		int n = 0;

		for (int r = 0; r < rounds; r++) {
			double q = a->v[i][r] / b->v[i][r];

			if (a->v[i][r] > 0 && b->v[i][r] > 0 && isfinite(q))
				v[n++] = q;
		}
		/* A short trace frees nothing: no ratio. */
		out.valid[i] = n > 0;
		if (out.valid[i])
			out.q[i] = summarise(v, n);
	}
	return out;
}

/* Operations of the first @ops of the trace that free (@image 0) or allocate an image (1). */
static size_t count_ops(const struct alloc_trace *t, size_t ops, bool image)
{
	size_t n = 0;

	for (size_t i = 0; i < ops && i < t->count; i++)
		n += image ? !t->ops[i].free && t->ops[i].image : t->ops[i].free;
	return n;
}

/* One figure's line; a figure of no operations (a short trace frees nothing) says so. */
static void print_figure(const char *name, const struct summary *s, size_t count, const char *what)
{
	if (!count)
		printf("  %-22s none in this trace      (%s)\n", name, what);
	else
		printf("  %-22s median %10.1f   min %10.1f   max %10.1f   (%s)\n", name, s->med,
		       s->min, s->max, what);
}

static void print_human(const char *what, const struct summary s[3], size_t frees)
{
	print_figure("ns per op (whole run)", &s[0], 1, what);
	print_figure("ns per allocation", &s[1], 1, what);
	print_figure("ns per free", &s[2], frees, what);
}

static void emit_summary(struct emit *e, const char *key, const struct summary *s)
{
	emit_object(e, key);
	emit_double(e, "median", s->med, 1);
	emit_double(e, "min", s->min, 1);
	emit_double(e, "max", s->max, 1);
	emit_end(e);
}

/* "0.50000 (2.00x faster) [0.48000-0.52000]": the median of the
 * rounds' quotients, how much faster or slower that makes the first, and
 * the quotients' spread. */
static void print_quotient(const char *key, const struct ratio *q, int i)
{
	const struct summary *s = &q->q[i];

	if (!q->valid[i])
		printf("%s n/a (no %ss)", key, key);
	else
		printf("%s %.5f (%.2fx %s) [%.5f-%.5f]", key, s->med,
		       s->med <= 1 ? 1 / s->med : s->med, s->med <= 1 ? "faster" : "slower", s->min,
		       s->max);
}

static void print_ratio(const char *what, const struct ratio *q)
{
	printf("ratio %s: ", what);
	print_quotient("op", q, 0);
	printf(",\n  ");
	print_quotient("alloc", q, 1);
	printf(", ");
	print_quotient("free", q, 2);
	printf("\n");
}

/* null where there is no ratio: a trace too short to free anything times no free. */
static void emit_ratio(struct emit *e, const char *key, const struct ratio *q)
{
	static const char *const names[3] = { "op", "alloc", "free" };

	emit_object(e, key);
	for (int i = 0; i < 3; i++) {
		if (q->valid[i])
			emit_double(e, names[i], q->q[i].med, 5);
		else
			emit_null(e, names[i]);
	}
	emit_object(e, "spread");
	for (int i = 0; i < 3; i++) {
		if (!q->valid[i]) {
			emit_null(e, names[i]);
			continue;
		}
		emit_array(e, names[i]);
		emit_double(e, NULL, q->q[i].min, 5);
		emit_double(e, NULL, q->q[i].max, 5);
		emit_end(e);
	}
	emit_end(e);
	emit_end(e);
}

static void emit_figures(struct emit *e, const struct summary s[3])
{
	emit_summary(e, "op_ns", &s[0]);
	emit_summary(e, "alloc_ns", &s[1]);
	emit_summary(e, "free_ns", &s[2]);
}

/* A session without validation: the figures are the library's, not the layer's. */
static int objects_open(struct bench *b)
{
	struct llmem_session_create_info ci = { .app_name = "llmem bench alloc" };
	int ret;

	ret = llmem_session_create(&ci, &b->session);
	if (ret)
		fprintf(stderr, "llmem bench alloc: objects: %s\n", llmem_last_error());
	return ret;
}

static struct {
	uint64_t ops, runs, object_runs, peer_ops, granularity;
	bool no_objects, json, quiet;
	bool object_runs_given, peer_ops_given;
} args = {
	.ops = 100000,
	.runs = 5,
	.granularity = 1024,
};

static const struct cli_option options[] = {
	{ .name = "ops",
	  .type = CLI_UINT,
	  .value = &args.ops,
	  .meta = "N",
	  .min = 1,
	  .max = 100000000,
	  .help = "operations of the standard trace (default 100000)" },
	{ .name = "runs",
	  .type = CLI_UINT,
	  .value = &args.runs,
	  .meta = "R",
	  .min = 1,
	  .max = MAX_RUNS,
	  .help = "rounds: runs of the virtual pool and the peer, in turn (default 5)" },
	{ .name = "object-runs",
	  .type = CLI_UINT,
	  .value = &args.object_runs,
	  .meta = "R",
	  .min = 1,
	  .max = MAX_RUNS,
	  .given = &args.object_runs_given,
	  .help = "runs of the full objects (default: --runs or 5, the fewer)" },
	{ .name = "peer-ops",
	  .type = CLI_UINT,
	  .value = &args.peer_ops,
	  .meta = "K",
	  .min = 1,
	  .max = 100000000,
	  .given = &args.peer_ops_given,
	  .help = "the peer's share of the trace, at most --ops (default: all)" },
	{ .name = "granularity",
	  .type = CLI_UINT,
	  .value = &args.granularity,
	  .meta = "G",
	  .min = 1,
	  .max = 1u << 20,
	  .help = "the virtual pool's bufferImageGranularity, a power of two (default 1024)" },
	{ .name = "no-objects",
	  .type = CLI_FLAG,
	  .value = &args.no_objects,
	  .help = "leave the full objects out" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "no progress on stderr"),
	{ 0 },
};

static int check(const struct cli_command *cmd)
{
	if (args.granularity & (args.granularity - 1))
		return cli_fail(cmd, CLI_USAGE, "--granularity '%llu': expected a power of two",
				(unsigned long long)args.granularity);
	if (args.peer_ops_given && args.peer_ops > args.ops)
		return cli_fail(cmd, CLI_USAGE, "--peer-ops '%llu': expected at most --ops, %llu",
				(unsigned long long)args.peer_ops, (unsigned long long)args.ops);
	return CLI_OK;
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	size_t ops, peer_ops;
	const struct summary *virt, *peer, *obj;
	struct phase ph[3];
	struct ratio virt_peer, virt_obj, obj_peer;
	struct bench b = { 0 };
	struct llmem_session_info si = { 0 };
	struct alloc_trace trace;
	int runs, object_runs, json, objects, ret, have_peer, have_obj;
	bool lavapipe;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	ret = check(cmd);
	if (ret)
		return ret;
	ops = args.ops;
	runs = (int)args.runs;
	/* Full objects cost about 1 s a pass on lavapipe: 5 runs at most by default. */
	object_runs = args.object_runs_given ? (int)args.object_runs : runs < 5 ? runs : 5;
	peer_ops = args.peer_ops_given ? args.peer_ops : ops;
	b.granularity = args.granularity;
	b.quiet = args.quiet;
	json = args.json;
	objects = !args.no_objects;

	ret = alloc_trace_generate(ALLOC_TRACE_SEED, ops, &trace);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "the trace of %zu ops: out of memory", ops);
	b.trace = &trace;
	b.handles = calloc(trace.objects + 1, sizeof(*b.handles));
	b.memories = calloc(trace.objects + 1, sizeof(*b.memories));
	b.objects = calloc(trace.objects + 1, sizeof(*b.objects));
	b.object_is_image = calloc(trace.objects + 1, 1);
	if (!b.handles || !b.memories || !b.objects || !b.object_is_image)
		return cli_fail(cmd, CLI_FAILED, "out of memory for %u objects", trace.objects);
	find_peak(&b);
	b.clock_ns = clock_cost();

	ph[0] = (struct phase){ .run = run_virtual, .ops = ops, .runs = runs };
	ph[1] = (struct phase){ .run = run_objects, .ops = ops };
	ph[2] = (struct phase){ .run = run_peer, .ops = peer_ops };
	if (objects && !objects_open(&b)) {
		llmem_session_get_info(b.session, &si);
		ph[1].runs = object_runs;
	}
	if (!vk_open(&b))
		ph[2].runs = runs;
	ret = measure(&b, ph, 3, runs > object_runs ? runs : object_runs);
	llmem_session_destroy(b.session);
	vk_close(&b);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "virtual pool: %s", llmem_last_error());
	have_obj = ph[1].runs > 0;
	have_peer = ph[2].runs > 0;
	virt = ph[0].s;
	obj = ph[1].s;
	peer = ph[2].s;
	lavapipe = have_peer && strstr(b.device_name, "llvmpipe");
	virt_peer = ratio_of(&ph[0], &ph[2]);
	virt_obj = ratio_of(&ph[0], &ph[1]);
	obj_peer = ratio_of(&ph[1], &ph[2]);

	if (json) {
		struct emit e;
		char checksum[17];

		snprintf(checksum, sizeof(checksum), "%016llx", (unsigned long long)trace.checksum);
		emit_begin(&e, stdout, true);
		emit_uint(&e, "ops", ops);
		emit_int(&e, "seed", ALLOC_TRACE_SEED);
		emit_string(&e, "checksum", checksum);
		emit_int(&e, "runs", runs);
		emit_uint(&e, "page_size", LLMEM_POOL_DEFAULT_PAGE_SIZE);
		emit_uint(&e, "granularity", b.granularity);
		emit_double(&e, "clock_ns", b.clock_ns, 1);
		emit_object(&e, "virtual");
		emit_figures(&e, virt);
		emit_uint(&e, "pages_at_peak", b.peak_pages);
		emit_uint(&e, "peak_live_bytes", b.peak_bytes);
		emit_double(&e, "fragmentation_at_peak", b.fragmentation, 4);
		emit_end(&e);
		if (have_obj) {
			emit_object(&e, "objects");
			emit_string(&e, "device", si.device_name);
			emit_uint(&e, "granularity", si.buffer_image_granularity);
			emit_int(&e, "runs", object_runs);
			emit_int(&e, "image_width", OBJECT_IMAGE_WIDTH);
			emit_figures(&e, obj);
			emit_summary(&e, "buffer_alloc_ns", &obj[3]);
			emit_summary(&e, "image_alloc_ns", &obj[4]);
			emit_uint(&e, "pages_at_peak", b.obj_peak_pages);
			emit_uint(&e, "peak_used_bytes", b.obj_peak_bytes);
			emit_double(&e, "fragmentation_at_peak", b.obj_fragmentation, 4);
			emit_end(&e);
			emit_ratio(&e, "ratio_virtual_objects", &virt_obj);
		}
		if (have_peer) {
			emit_object(&e, "peer");
			emit_string(&e, "device", b.device_name);
			emit_uint(&e, "memory_type", b.memory_type);
			emit_uint(&e, "ops", peer_ops);
			emit_figures(&e, peer);
			emit_end(&e);
			emit_ratio(&e, "ratio", &virt_peer);
			if (have_obj)
				emit_ratio(&e, "ratio_objects_peer", &obj_peer);
		}
		emit_finish(&e);
	} else {
		printf("trace: %zu op%s, seed %d, checksum %016llx\n", ops, cli_plural(ops),
		       ALLOC_TRACE_SEED, (unsigned long long)trace.checksum);
		printf("the three take turns in %d round%s, a different one first each round; "
		       "ns per op: a whole\npass in the thread's CPU time; per allocation and "
		       "per free: each on CLOCK_MONOTONIC\nin a second pass; ratios: per round, "
		       "their median [min-max]\n",
		       runs > object_runs ? runs : object_runs,
		       cli_plural(runs > object_runs ? runs : object_runs));
		printf("virtual pool: 32 MiB pages, granularity %llu, %d run%s "
		       "(clock read %.1f ns, subtracted per op):\n",
		       (unsigned long long)b.granularity, runs, cli_plural(runs), b.clock_ns);
		print_human("virtual", virt, count_ops(&trace, ops, false));
		printf("  pages at peak          %u\n", b.peak_pages);
		printf("  fragmentation at peak  %.4f  (1 - largest free / total free, after op "
		       "%zu, %.1f MiB live)\n",
		       b.fragmentation, b.peak_op, (double)b.peak_bytes / (1 << 20));
		if (have_obj) {
			printf("objects: llmem buffers and %dx(size/%d) RGBA8 images in one memory "
			       "of 32 MiB pages on %s,\n  granularity %llu, device alignments, "
			       "%d run%s%s:\n",
			       OBJECT_IMAGE_WIDTH, OBJECT_IMAGE_WIDTH * 4, si.device_name,
			       (unsigned long long)si.buffer_image_granularity, object_runs,
			       cli_plural(object_runs),
			       object_runs < runs ? " (fewer: each pass is slow)" : "");
			print_human("objects", obj, count_ops(&trace, ops, false));
			print_figure("ns per buffer alloc", &obj[3],
				     ops - count_ops(&trace, ops, false) -
					     count_ops(&trace, ops, true),
				     "objects");
			print_figure("ns per image alloc", &obj[4], count_ops(&trace, ops, true),
				     "objects");
			printf("  pages at peak          %u\n", b.obj_peak_pages);
			printf("  fragmentation at peak  %.4f  (after op %zu, %.1f MiB held by "
			       "objects)\n",
			       b.obj_fragmentation, b.peak_op,
			       (double)b.obj_peak_bytes / (1 << 20));
		} else if (objects) {
			printf("objects: no session, not measured\n");
		}
		if (have_peer) {
			printf("peer: one vkAllocateMemory per object on %s, memory type %u, %d "
			       "run%s",
			       b.device_name, b.memory_type, runs, cli_plural(runs));
			if (peer_ops < ops)
				printf(", first %zu op%s of the trace only", peer_ops,
				       cli_plural(peer_ops));
			printf(":\n");
			print_human("peer", peer, count_ops(&trace, peer_ops, false));
			print_ratio("virtual/peer", &virt_peer);
			if (have_obj)
				print_ratio("objects/peer", &obj_peer);
		} else {
			printf("peer: no Vulkan device, not measured\n");
		}
		if (have_obj)
			print_ratio("virtual/objects", &virt_obj);
		printf("left out: the trace's generation, opening the session and the device, "
		       "the objects still\nlive after the last operation (freed untimed)%s\n",
		       lavapipe ? "; on lavapipe the peer's vkAllocateMemory is\nthe driver's "
				  "own allocation of host memory, the bulk of the peer's time"
				: "");
	}
	alloc_trace_release(&trace);
	free(b.handles);
	free(b.memories);
	free(b.objects);
	free(b.object_is_image);
	return 0;
}

const struct cli_command cmd_bench_alloc = {
	.name = "bench alloc",
	.summary = "sub-allocator vs one vkAllocateMemory per object",
	.description =
		"Runs the standard allocation trace (docs/allocator.md: xorshift64*, seed\n"
		"12345, 2000 live objects, sizes from 256 B to 4 MiB, 30 % images) through\n"
		"the virtual pool alone, through the library's buffers and images, and\n"
		"through the peer, one vkAllocateMemory per object, taking turns in rounds,\n"
		"and prints ns per operation, allocation and free, pages and fragmentation\n"
		"at the peak, and the ratios, taken per round: their median, min and max.",
	.options = options,
	.run = run,
};
