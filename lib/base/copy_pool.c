// SPDX-License-Identifier: MIT
/*
 * One core's memcpy bounds the staging ring and mapped device memory on a
 * machine whose PCIe link outruns it (about 10 GB/s against 50 GB/s on an
 * H100 host), so large copies are cut into slices that a pool of threads
 * and the caller take in turn.  Threads created per copy cost more than a
 * chunk of the ring takes to copy, so the pool lives until the library is
 * unloaded, and a worker that has just finished spins a little before it
 * sleeps: the ring hands out chunk after chunk.
 *
 * A copy publishes its slices, opens the job, bumps the generation and
 * wakes the workers; every taker claims slices with one atomic add.  A
 * worker counts itself in before it looks at the job and out after, and
 * works only on an open job; the copy closes the job and waits for the
 * count to drop to zero before it returns, so a worker that wakes late
 * never sees a job half set up for the next copy.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/copy_pool.h"
#include "base/error.h"
#include "base/stream_copy.h"

/* Below this, waking other cores costs more than it gains. */
#define PARALLEL_MIN (1u << 20)
#define SLICE (256u << 10)
#define MAX_WORKERS 15
#define SPIN_NS 200000

struct copy_job {
	uint8_t *dst;
	const uint8_t *src;
	size_t bytes;
	size_t slices;
	bool stream;
	atomic_size_t next;
	atomic_size_t done;
	atomic_bool open;
	atomic_uint active; /* workers looking at the job */
};

enum pool_state {
	POOL_UNSTARTED,
	POOL_RUNNING,
	POOL_NONE
};

static struct {
	pthread_mutex_t init_lock;
	enum pool_state state;
	unsigned int workers;
	pthread_t threads[MAX_WORKERS];

	pthread_mutex_t job_lock; /* held by the copy the workers serve */
	struct copy_job job;
	atomic_uint_fast64_t generation;
	atomic_bool stop;
	atomic_size_t helped; /* slices copied by workers, for the tests */

	pthread_mutex_t wake_lock;
	pthread_cond_t wake;
} pool = {
	.init_lock = PTHREAD_MUTEX_INITIALIZER,
	.job_lock = PTHREAD_MUTEX_INITIALIZER,
	.wake_lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* A worker that holds a slice may have been preempted: let it run. */
static void relax_or_yield(uint64_t *spins)
{
	if (++*spins % 1024 == 0)
		sched_yield();
	else
		cpu_relax();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void run_slices(struct copy_job *job, bool worker)
{
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_acq_rel);
		size_t at, len;

		if (i >= job->slices)
			return;
		at = i * SLICE;
		len = job->bytes - at < SLICE ? job->bytes - at : SLICE;
		llmem_stream_copy_if(job->stream, job->dst + at, job->src + at, len);
		if (worker)
			atomic_fetch_add_explicit(&pool.helped, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
	}
}

/* Waits for a generation other than @seen: briefly spinning, then asleep. */
static uint64_t wait_generation(uint64_t seen)
{
	uint64_t deadline = now_ns() + SPIN_NS, gen;

	for (unsigned int spin = 0;; spin++) {
		gen = atomic_load_explicit(&pool.generation, memory_order_acquire);
		if (gen != seen || atomic_load(&pool.stop))
			return gen;
		if (spin % 128 == 127 && now_ns() > deadline)
			break;
		cpu_relax();
	}
	pthread_mutex_lock(&pool.wake_lock);
	while ((gen = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen &&
	       !atomic_load(&pool.stop))
		pthread_cond_wait(&pool.wake, &pool.wake_lock);
	pthread_mutex_unlock(&pool.wake_lock);
	return gen;
}

static void *worker(void *arg)
{
	uint64_t seen = atomic_load(&pool.generation);

	(void)arg;
	for (;;) {
		seen = wait_generation(seen);
		if (atomic_load(&pool.stop))
			return NULL;
		atomic_fetch_add(&pool.job.active, 1);
		if (atomic_load(&pool.job.open))
			run_slices(&pool.job, true);
		atomic_fetch_sub(&pool.job.active, 1);
	}
}

/*
 * LLMEM_COPY_THREADS: the count of threads copying, the caller included,
 * from 1 (no pool) to MAX_WORKERS + 1.  Return: the count, 0 where it is
 * unset or empty, -EINVAL where it is anything else.
 */
static long env_threads(void)
{
	const char *env = getenv(LLMEM_ENV_COPY_THREADS);
	unsigned long v;
	char *end;

	if (!env || !*env)
		return 0;
	if (strspn(env, "0123456789") != strlen(env))
		return -EINVAL;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (errno || *end || v < 1 || v > MAX_WORKERS + 1)
		return -EINVAL;
	return (long)v;
}

int llmem_copy_pool_check_environment(void)
{
	if (env_threads() < 0)
		return llmem_error(-EINVAL, "%s '%s': expected a whole number from 1 to %d",
				   LLMEM_ENV_COPY_THREADS, getenv(LLMEM_ENV_COPY_THREADS),
				   MAX_WORKERS + 1);
	return 0;
}

/*
 * Half the online cores, the caller included: the device's own work (the
 * driver's threads, lavapipe's rasterizer) needs the rest.  With fewer
 * than four cores there is nothing to spare.  LLMEM_COPY_THREADS overrides
 * it; a value a session refused (llmem_copy_pool_check_environment()) is
 * not used here either.
 */
static unsigned int worker_count(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	long n = cores >= 4 ? cores / 2 : 1;

	if (env_threads() > 0)
		n = env_threads();
	if (n - 1 > MAX_WORKERS)
		return MAX_WORKERS;
	return (unsigned int)(n - 1);
}

static void start_pool(void)
{
	unsigned int want = worker_count();

	pool.state = POOL_NONE;
	atomic_store(&pool.stop, false);
	pool.workers = 0;
	for (unsigned int i = 0; i < want; i++) {
		if (pthread_create(&pool.threads[i], NULL, worker, NULL))
			break;
		pool.workers++;
	}
	if (pool.workers)
		pool.state = POOL_RUNNING;
}

static bool pool_ready(void)
{
	enum pool_state state;

	pthread_mutex_lock(&pool.init_lock);
	if (pool.state == POOL_UNSTARTED)
		start_pool();
	state = pool.state;
	pthread_mutex_unlock(&pool.init_lock);
	return state == POOL_RUNNING;
}

/* The child of a fork has none of the parent's threads: start afresh. */
static void forget_pool_in_child(void)
{
	pthread_mutex_init(&pool.init_lock, NULL);
	pthread_mutex_init(&pool.job_lock, NULL);
	pthread_mutex_init(&pool.wake_lock, NULL);
	pthread_cond_init(&pool.wake, NULL);
	atomic_store(&pool.job.open, false);
	atomic_store(&pool.job.active, 0);
	pool.state = POOL_UNSTARTED;
	pool.workers = 0;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forget_pool_in_child);
}

/* Workers run the library's code: they must be gone before it is unmapped. */
__attribute__((destructor)) static void stop_pool(void)
{
	pthread_mutex_lock(&pool.init_lock);
	if (pool.state == POOL_RUNNING) {
		pthread_mutex_lock(&pool.wake_lock);
		atomic_store(&pool.stop, true);
		pthread_cond_broadcast(&pool.wake);
		pthread_mutex_unlock(&pool.wake_lock);
		for (unsigned int i = 0; i < pool.workers; i++)
			pthread_join(pool.threads[i], NULL);
	}
	pool.workers = 0;
	pool.state = POOL_UNSTARTED;
	pthread_mutex_unlock(&pool.init_lock);
}

static void pool_copy(void *dst, const void *src, size_t bytes, bool stream)
{
	struct copy_job *job = &pool.job;
	uint64_t waited = 0;

	if (bytes < PARALLEL_MIN || !pool_ready() || pthread_mutex_trylock(&pool.job_lock)) {
		llmem_stream_copy_if(stream, dst, src, bytes);
		return;
	}
	job->dst = dst;
	job->src = src;
	job->bytes = bytes;
	job->slices = (bytes + SLICE - 1) / SLICE;
	job->stream = stream;
	atomic_store(&job->done, 0);
	atomic_store(&job->next, 0);
	atomic_store(&job->open, true);

	pthread_mutex_lock(&pool.wake_lock);
	atomic_fetch_add_explicit(&pool.generation, 1, memory_order_release);
	pthread_cond_broadcast(&pool.wake);
	pthread_mutex_unlock(&pool.wake_lock);

	run_slices(job, false);
	/* Slices other threads took may still be in flight. */
	while (atomic_load_explicit(&job->done, memory_order_acquire) < job->slices)
		relax_or_yield(&waited);
	atomic_store(&job->open, false);
	while (atomic_load(&job->active))
		relax_or_yield(&waited);
	pthread_mutex_unlock(&pool.job_lock);
}

void llmem_copy_pool_memcpy(void *dst, const void *src, size_t bytes)
{
	pool_copy(dst, src, bytes, false);
}

void llmem_copy_pool_stream(void *dst, const void *src, size_t bytes)
{
	pool_copy(dst, src, bytes, true);
}

unsigned int llmem_copy_pool_workers(void)
{
	pool_ready();
	return pool.workers;
}

size_t llmem_copy_pool_helped(void)
{
	return atomic_load(&pool.helped);
}
