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
 * reading the clock measured beforehand, to split allocations from frees;
 * a second pass without per-operation clocks gives the whole-run figure.
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
	start = now_ns();
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
	f->op_ns = (double)(now_ns() - start) / (double)ops;
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
	start = now_ns();
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
	f->op_ns = (double)(now_ns() - start) / (double)ops;
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
	start = now_ns();
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
	f->op_ns = (double)(now_ns() - start) / (double)ops;
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

/* Median, min and max over @runs of op/alloc/free figures. */
static int measure(struct bench *b, const char *what, run_fn run, size_t ops, int runs,
		   struct summary out[5])
{
	double op[MAX_RUNS], al[MAX_RUNS], fr[MAX_RUNS], bu[MAX_RUNS], im[MAX_RUNS];
	struct figures f, g;
	struct progress p;
	int ret;

	progress_start(&p, what, "runs", (uint64_t)runs, b->quiet);
	for (int r = 0; r < runs; r++) {
		ret = run(b, ops, 0, &g);
		if (!ret)
			ret = run(b, ops, 1, &f);
		if (ret) {
			progress_end(&p);
			return ret;
		}
		progress_step(&p, (uint64_t)r + 1);
		op[r] = g.op_ns;
		al[r] = f.alloc_ns;
		fr[r] = f.free_ns;
		bu[r] = f.buffer_ns;
		im[r] = f.image_ns;
	}
	out[0] = summarise(op, runs);
	out[1] = summarise(al, runs);
	out[2] = summarise(fr, runs);
	out[3] = summarise(bu, runs);
	out[4] = summarise(im, runs);
	progress_end(&p);
	return 0;
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

static void print_json_summary(const char *key, const struct summary *s)
{
	printf("\"%s\": {\"median\": %.1f, \"min\": %.1f, \"max\": %.1f}", key, s->med, s->min,
	       s->max);
}

/* "0.50000 (2.00x faster)": @a's time over @b's, and how much faster or slower @a is. */
static void print_quotient(const char *key, double a, double b)
{
	if (!(a > 0 && b > 0 && isfinite(a / b)))
		printf("%s n/a (no %ss)", key, key);
	else if (a <= b)
		printf("%s %.5f (%.2fx faster)", key, a / b, b / a);
	else
		printf("%s %.5f (%.2fx slower)", key, a / b, a / b);
}

static void print_ratio(const char *what, const struct summary a[3], const struct summary b[3])
{
	printf("ratio %s: ", what);
	print_quotient("op", a[0].med, b[0].med);
	printf(", ");
	print_quotient("alloc", a[1].med, b[1].med);
	printf(", ");
	print_quotient("free", a[2].med, b[2].med);
	printf("\n");
}

/* null where there is no ratio: a trace too short to free anything times no free. */
static void print_json_quotient(const char *key, double a, double b)
{
	if (a > 0 && b > 0 && isfinite(a / b))
		printf("\"%s\": %.5f", key, a / b);
	else
		printf("\"%s\": null", key);
}

static void print_json_ratio(const char *key, const struct summary a[3], const struct summary b[3])
{
	printf(", \"%s\": {", key);
	print_json_quotient("op", a[0].med, b[0].med);
	printf(", ");
	print_json_quotient("alloc", a[1].med, b[1].med);
	printf(", ");
	print_json_quotient("free", a[2].med, b[2].med);
	printf("}");
}

static void print_json_figures(const struct summary s[3])
{
	print_json_summary("op_ns", &s[0]);
	printf(", ");
	print_json_summary("alloc_ns", &s[1]);
	printf(", ");
	print_json_summary("free_ns", &s[2]);
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
	  .help = "runs of the virtual pool and the peer (default 5)" },
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
	struct summary virt[5], peer[5], obj[5];
	struct bench b = { 0 };
	struct llmem_session_info si = { 0 };
	struct alloc_trace trace;
	int runs, object_runs, json, objects, ret, have_peer, have_obj = 0;

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

	ret = measure(&b, "llmem bench alloc: virtual pool", run_virtual, ops, runs, virt);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "virtual pool: %s", llmem_last_error());
	if (objects && !objects_open(&b)) {
		llmem_session_get_info(b.session, &si);
		have_obj = !measure(&b, "llmem bench alloc: objects", run_objects, ops, object_runs,
				    obj);
		llmem_session_destroy(b.session);
	}
	have_peer = !vk_open(&b) &&
		    !measure(&b, "llmem bench alloc: peer", run_peer, peer_ops, runs, peer);
	vk_close(&b);

	if (json) {
		printf("{\"ops\": %zu, \"seed\": %d, \"checksum\": \"%016llx\", \"runs\": %d, "
		       "\"page_size\": %llu, \"granularity\": %llu, \"clock_ns\": %.1f, "
		       "\"virtual\": {",
		       ops, ALLOC_TRACE_SEED, (unsigned long long)trace.checksum, runs,
		       LLMEM_POOL_DEFAULT_PAGE_SIZE, (unsigned long long)b.granularity, b.clock_ns);
		print_json_figures(virt);
		printf(", \"pages_at_peak\": %u, \"peak_live_bytes\": %llu, "
		       "\"fragmentation_at_peak\": %.4f}",
		       b.peak_pages, (unsigned long long)b.peak_bytes, b.fragmentation);
		if (have_obj) {
			printf(", \"objects\": {\"device\": \"%s\", \"granularity\": %llu, "
			       "\"runs\": %d, \"image_width\": %d, ",
			       si.device_name, (unsigned long long)si.buffer_image_granularity,
			       object_runs, OBJECT_IMAGE_WIDTH);
			print_json_figures(obj);
			printf(", ");
			print_json_summary("buffer_alloc_ns", &obj[3]);
			printf(", ");
			print_json_summary("image_alloc_ns", &obj[4]);
			printf(", \"pages_at_peak\": %u, \"peak_used_bytes\": %llu, "
			       "\"fragmentation_at_peak\": %.4f}",
			       b.obj_peak_pages, (unsigned long long)b.obj_peak_bytes,
			       b.obj_fragmentation);
			print_json_ratio("ratio_virtual_objects", virt, obj);
		}
		if (have_peer) {
			printf(", \"peer\": {\"device\": \"%s\", \"memory_type\": %u, \"ops\": "
			       "%zu, ",
			       b.device_name, b.memory_type, peer_ops);
			print_json_figures(peer);
			printf("}");
			print_json_ratio("ratio", virt, peer);
			if (have_obj)
				print_json_ratio("ratio_objects_peer", obj, peer);
		}
		printf("}\n");
	} else {
		printf("trace: %zu op%s, seed %d, checksum %016llx\n", ops, cli_plural(ops),
		       ALLOC_TRACE_SEED, (unsigned long long)trace.checksum);
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
			print_ratio("virtual/peer", virt, peer);
			if (have_obj)
				print_ratio("objects/peer", obj, peer);
		} else {
			printf("peer: no Vulkan device, not measured\n");
		}
		if (have_obj)
			print_ratio("virtual/objects", virt, obj);
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
	.description = "Runs the standard allocation trace (docs/allocator.md: xorshift64*, seed\n"
		       "12345, 2000 live objects, sizes from 256 B to 4 MiB, 30 % images) through\n"
		       "the virtual pool alone, through the library's buffers and images, and\n"
		       "through the peer, one vkAllocateMemory per object, in one run, and prints\n"
		       "ns per operation, allocation and free, pages and fragmentation at the\n"
		       "peak, and the ratios.",
	.options = options,
	.run = run,
};
