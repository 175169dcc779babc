// SPDX-License-Identifier: MIT
/*
 * The paths of bench transfer (bench_transfer_paths.h): a mapping, the
 * staging ring, wrapped host memory, memcpy and vkCmdCopyBuffer; apart from
 * their timing and report, so that what each figure times reads alone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_transfer_paths.h"
#include "timing.h"

const char *const transfer_path_names[PATHS] = {
	[MEMCPY] = "memcpy host->host",		  [MEMCPY_PAIR] = "2 memcpys at once, sum",
	[MAPPED_WRITE] = "mapped write",	  [MAPPED_READ] = "mapped read",
	[STAGED_WRITE] = "staging upload",	  [STAGED_READ] = "staging download",
	[COPY_BUFFER] = "vkCmdCopyBuffer HV->DL", [CHUNKED_COPY] = "vkCmdCopyBuffer chunked",
	[HOSTPTR_UPLOAD] = "wrapped host upload",
};

static void *copy_second_pair(void *arg)
{
	struct transfer_bench *b = arg;

	memcpy(b->back2, b->host2, b->size);
	return NULL;
}

/*
 * Whether the machine's memory moves two copies at once faster than one:
 * the staging ring copies every byte twice (into the ring, then the
 * device's copy out of it), so where it does not, staging tops out near
 * half this sum.
 */
static int copy_pair(struct transfer_bench *b)
{
	pthread_t t;

	if (pthread_create(&t, NULL, copy_second_pair, b))
		return -EAGAIN;
	memcpy(b->back, b->host, b->size);
	pthread_join(t, NULL);
	return 0;
}

/*
 * The device's half of a staged upload alone: the same bytes copied from
 * host memory in one submission per chunk, as staging submits them.  Where
 * the device copies over PCIe, no staged upload with these chunks beats it,
 * however fast the host fills the ring; on a CPU device, where this copy is
 * a core's memcpy, a staged upload comes close to it.
 */
static int copy_in_chunks(struct transfer_bench *b)
{
	for (uint64_t off = 0; off < b->size; off += b->chunk) {
		uint64_t n = b->size - off < b->chunk ? b->size - off : b->chunk;
		struct llmem_event *e;
		int ret;

		ret = llmem_enqueue_copy_buffer(b->stage_q, b->src, off, b->dev, off, n, NULL, &e);
		if (ret)
			return ret;
		llmem_event_release(e);
	}
	return llmem_queue_finish(b->stage_q);
}

int transfer_bench_run(struct transfer_bench *b, enum path p)
{
	switch (p) {
	case MEMCPY:
		memcpy(b->back, b->host, b->size);
		return 0;
	case MEMCPY_PAIR:
		return copy_pair(b);
	case MAPPED_WRITE:
		return llmem_enqueue_write_buffer(b->map_q, b->mapped, 0, b->host, b->size, NULL,
						  NULL);
	case MAPPED_READ:
		return llmem_enqueue_read_buffer(b->map_q, b->mapped, 0, b->back, b->size, NULL,
						 NULL);
	case STAGED_WRITE:
		return llmem_enqueue_write_buffer(b->stage_q, b->dev, 0, b->host, b->size, NULL,
						  NULL);
	case STAGED_READ:
		return llmem_enqueue_read_buffer(b->stage_q, b->dev, 0, b->back, b->size, NULL,
						 NULL);
	case HOSTPTR_UPLOAD:
		if (!b->wrapped)
			return 0;
		return llmem_enqueue_copy_buffer(b->stage_q, b->wrapped, 0, b->dev, 0, b->size,
						 NULL, NULL);
	case CHUNKED_COPY:
		return copy_in_chunks(b);
	default:
		return llmem_enqueue_copy_buffer(b->stage_q, b->src, 0, b->dev, 0, b->size, NULL,
						 NULL);
	}
}

static int make_memory(struct llmem_session *s, uint32_t flags, const char *name,
		       struct llmem_memory **out)
{
	struct llmem_memory_create_info ci = { .flags = flags, .name = name };

	return llmem_memory_create(s, &ci, out);
}

/*
 * The upload this issue adds: the source allocation itself wrapped as a page,
 * copied by the device with no CPU copy.  The wrap is paid once, timed apart;
 * where the device cannot import host memory the path is left out.
 */
static void wrap_host(struct transfer_bench *b)
{
	struct llmem_memory_create_info ci = {
		.flags = LLMEM_MEMORY_HOST_VISIBLE,
		.name = "wrapped host",
		.sharing = LLMEM_SHARING_IMPORT,
		.backend = LLMEM_BACKEND_IMPORT_HOST_POINTER,
	};
	struct llmem_buffer_create_info bci = { .size = b->size };
	uint32_t page;
	double t0 = timing_s(CLOCK_MONOTONIC);

	if (llmem_memory_create(b->s, &ci, &b->wrap_mem))
		return;
	if (llmem_memory_import_host(b->wrap_mem, b->host, (b->size + 4095) & ~4095ull, &page) ||
	    llmem_buffer_create(b->wrap_mem, &bci, &b->wrapped)) {
		fprintf(stderr, "# wrapped host upload left out: %s\n", llmem_last_error());
		b->wrapped = NULL;
		return;
	}
	b->wrap_ms = (timing_s(CLOCK_MONOTONIC) - t0) * 1e3;
}

int transfer_bench_setup(struct transfer_bench *b)
{
	struct llmem_buffer_create_info bci = { .size = b->size };
	struct llmem_queue_create_info qi;
	struct llmem_memory_info mi;
	int ret;

	ret = llmem_session_create(NULL, &b->s);
	if (ret)
		return ret;
	/* The write-combined BAR where there is one (vkgdr's path), else host memory. */
	ret = make_memory(b->s, LLMEM_MEMORY_DEVICE_LOCAL | LLMEM_MEMORY_HOST_VISIBLE, "bar",
			  &b->visible);
	if (ret == -ENOTSUP)
		ret = make_memory(b->s, LLMEM_MEMORY_HOST_VISIBLE, "visible", &b->visible);
	if (!ret)
		ret = make_memory(b->s, LLMEM_MEMORY_DEVICE_LOCAL, "local", &b->local);
	/* The copy's source: host memory (fewest extra flags), as staging is. */
	if (!ret)
		ret = make_memory(b->s, LLMEM_MEMORY_HOST_VISIBLE, "host", &b->sysmem);
	if (!ret)
		ret = llmem_memory_get_info(b->visible, &mi);
	if (ret)
		return ret;
	b->mapped_flags = mi.flags;
	ret = llmem_buffer_create(b->visible, &bci, &b->mapped);
	if (!ret)
		ret = llmem_buffer_create(b->local, &bci, &b->dev);
	if (!ret)
		ret = llmem_buffer_create(b->sysmem, &bci, &b->src);
	if (!ret)
		ret = llmem_queue_create(b->s, NULL, &b->map_q);
	if (!ret)
		ret = llmem_queue_create(b->s, &b->staging, &b->stage_q);
	if (!ret)
		ret = llmem_queue_get_info(b->stage_q, &qi);
	if (ret)
		return ret;
	b->chunk = qi.chunk_size;
	/* Page-aligned, so that the host-pointer path can wrap it as it is. */
	b->host = aligned_alloc(4096, (b->size + 4095) & ~4095ull);
	b->back = malloc(b->size);
	b->host2 = malloc(b->size);
	b->back2 = malloc(b->size);
	if (!b->host || !b->back || !b->host2 || !b->back2)
		return -ENOMEM;
	/* Touch every page, so that first-touch faults stay out of the figures. */
	for (uint64_t i = 0; i < b->size; i++)
		b->host[i] = (uint8_t)(i * 7);
	memset(b->back, 0, b->size);
	memset(b->host2, 1, b->size);
	memset(b->back2, 0, b->size);
	wrap_host(b);
	return 0;
}

void transfer_bench_teardown(struct transfer_bench *b)
{
	llmem_queue_destroy(b->map_q);
	llmem_queue_destroy(b->stage_q);
	llmem_buffer_destroy(b->mapped);
	llmem_buffer_destroy(b->dev);
	llmem_buffer_destroy(b->src);
	llmem_buffer_destroy(b->wrapped);
	llmem_memory_destroy(b->wrap_mem);
	llmem_memory_destroy(b->sysmem);
	llmem_memory_destroy(b->visible);
	llmem_memory_destroy(b->local);
	llmem_session_destroy(b->s);
	free(b->host);
	free(b->back);
	free(b->host2);
	free(b->back2);
}

int transfer_bench_verify(struct transfer_bench *b)
{
	int ret = llmem_enqueue_write_buffer(b->stage_q, b->dev, 0, b->host, b->size, NULL, NULL);

	memset(b->back, 0, b->size);
	if (!ret)
		ret = llmem_enqueue_read_buffer(b->map_q, b->dev, 0, b->back, b->size, NULL, NULL);
	if (!ret && memcmp(b->host, b->back, b->size))
		ret = -EIO;
	return ret;
}
