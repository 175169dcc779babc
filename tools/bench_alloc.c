// SPDX-License-Identifier: MIT
/*
 * llmem bench alloc: the standard allocation trace (design.md) through the
 * virtual pool, and in the same run through its peer, one vkAllocateMemory
 * per object.
 *
 * Each operation is timed on its own with CLOCK_MONOTONIC, less the cost of
 * reading the clock measured beforehand, to split allocations from frees;
 * a second pass without per-operation clocks gives the whole-run figure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vulkan/vulkan.h>

#include "alloc_trace.h"
#include "commands.h"
#include "pool.h"

#define MAX_RUNS 101

struct figures {
	double op_ns, alloc_ns, free_ns;
};

struct bench {
	const struct alloc_trace *trace;
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
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cost of one now_ns(), taken off every timed operation. */
static double clock_cost(void)
{
	uint64_t t0 = now_ns(), t = t0;

	for (int i = 0; i < 100000; i++)
		t = now_ns();
	return (double)(t - t0) / 100000;
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

/* Median, min and max over @runs of op/alloc/free figures. */
static int measure(struct bench *b, int peer, size_t ops, int runs, struct summary out[3])
{
	double op[MAX_RUNS], al[MAX_RUNS], fr[MAX_RUNS];
	struct figures f, g;
	int ret;

	for (int r = 0; r < runs; r++) {
		ret = peer ? run_peer(b, ops, 0, &g) : run_virtual(b, ops, 0, &g);
		if (!ret)
			ret = peer ? run_peer(b, ops, 1, &f) : run_virtual(b, ops, 1, &f);
		if (ret)
			return ret;
		op[r] = g.op_ns;
		al[r] = f.alloc_ns;
		fr[r] = f.free_ns;
	}
	out[0] = summarise(op, runs);
	out[1] = summarise(al, runs);
	out[2] = summarise(fr, runs);
	return 0;
}

static void print_human(const char *what, const struct summary s[3])
{
	static const char *const names[] = { "ns per op (whole run)", "ns per allocation",
					     "ns per free" };

	for (int i = 0; i < 3; i++)
		printf("  %-22s median %10.1f   min %10.1f   max %10.1f   (%s)\n", names[i],
		       s[i].med, s[i].min, s[i].max, what);
}

static void print_json_summary(const char *key, const struct summary *s)
{
	printf("\"%s\": {\"median\": %.1f, \"min\": %.1f, \"max\": %.1f}", key, s->med, s->min,
	       s->max);
}

static void usage(void)
{
	fprintf(stderr, "usage: llmem bench alloc [--ops N] [--runs R] [--peer-ops K] "
			"[--granularity G] [--json]\n");
}

int llmem_bench_alloc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ops", required_argument, NULL, 'o' },
		{ "runs", required_argument, NULL, 'r' },
		{ "peer-ops", required_argument, NULL, 'p' },
		{ "granularity", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	size_t ops = 100000, peer_ops = 0;
	struct summary virt[3], peer[3];
	struct bench b = { .granularity = 1024 };
	struct alloc_trace trace;
	int runs = 5, json = 0, c, ret, have_peer;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			ops = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'p':
			peer_ops = strtoull(optarg, NULL, 0);
			break;
		case 'g':
			b.granularity = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (ops == 0 || runs < 1 || runs > MAX_RUNS) {
		usage();
		return 2;
	}
	if (peer_ops == 0 || peer_ops > ops)
		peer_ops = ops;

	ret = alloc_trace_generate(ALLOC_TRACE_SEED, ops, &trace);
	if (ret)
		return 1;
	b.trace = &trace;
	b.handles = calloc(trace.objects + 1, sizeof(*b.handles));
	b.memories = calloc(trace.objects + 1, sizeof(*b.memories));
	if (!b.handles || !b.memories)
		return 1;
	find_peak(&b);
	b.clock_ns = clock_cost();

	ret = measure(&b, 0, ops, runs, virt);
	if (ret)
		return 1;
	have_peer = !vk_open(&b) && !measure(&b, 1, peer_ops, runs, peer);
	vk_close(&b);

	if (json) {
		printf("{\"ops\": %zu, \"seed\": %d, \"checksum\": \"%016llx\", \"runs\": %d, "
		       "\"page_size\": %llu, \"granularity\": %llu, \"clock_ns\": %.1f, "
		       "\"virtual\": {",
		       ops, ALLOC_TRACE_SEED, (unsigned long long)trace.checksum, runs,
		       LLMEM_POOL_DEFAULT_PAGE_SIZE, (unsigned long long)b.granularity, b.clock_ns);
		print_json_summary("op_ns", &virt[0]);
		printf(", ");
		print_json_summary("alloc_ns", &virt[1]);
		printf(", ");
		print_json_summary("free_ns", &virt[2]);
		printf(", \"pages_at_peak\": %u, \"peak_live_bytes\": %llu, "
		       "\"fragmentation_at_peak\": %.4f}",
		       b.peak_pages, (unsigned long long)b.peak_bytes, b.fragmentation);
		if (have_peer) {
			printf(", \"peer\": {\"device\": \"%s\", \"memory_type\": %u, \"ops\": "
			       "%zu, ",
			       b.device_name, b.memory_type, peer_ops);
			print_json_summary("op_ns", &peer[0]);
			printf(", ");
			print_json_summary("alloc_ns", &peer[1]);
			printf(", ");
			print_json_summary("free_ns", &peer[2]);
			printf("}, \"ratio\": {\"op\": %.5f, \"alloc\": %.5f, \"free\": %.5f}",
			       virt[0].med / peer[0].med, virt[1].med / peer[1].med,
			       virt[2].med / peer[2].med);
		}
		printf("}\n");
	} else {
		printf("trace: %zu ops, seed %d, checksum %016llx\n", ops, ALLOC_TRACE_SEED,
		       (unsigned long long)trace.checksum);
		printf("virtual pool: 32 MiB pages, granularity %llu, %d runs "
		       "(clock read %.1f ns, subtracted per op):\n",
		       (unsigned long long)b.granularity, runs, b.clock_ns);
		print_human("virtual", virt);
		printf("  pages at peak          %u\n", b.peak_pages);
		printf("  fragmentation at peak  %.4f  (1 - largest free / total free, after op "
		       "%zu, "
		       "%.1f MiB live)\n",
		       b.fragmentation, b.peak_op, (double)b.peak_bytes / (1 << 20));
		if (have_peer) {
			printf("peer: one vkAllocateMemory per object on %s, memory type %u, %d "
			       "runs",
			       b.device_name, b.memory_type, runs);
			if (peer_ops < ops)
				printf(", first %zu ops of the trace only", peer_ops);
			printf(":\n");
			print_human("peer", peer);
			printf("ratio virtual/peer: op %.5f (%.0fx faster), alloc %.5f (%.0fx), "
			       "free %.5f (%.0fx)\n",
			       virt[0].med / peer[0].med, peer[0].med / virt[0].med,
			       virt[1].med / peer[1].med, peer[1].med / virt[1].med,
			       virt[2].med / peer[2].med, peer[2].med / virt[2].med);
		} else {
			printf("peer: no Vulkan device, not measured\n");
		}
	}
	alloc_trace_release(&trace);
	free(b.handles);
	free(b.memories);
	return 0;
}
