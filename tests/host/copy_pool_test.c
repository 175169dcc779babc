// SPDX-License-Identifier: MIT
/*
 * The copy pool: bytes land where memcpy would put them for sizes around
 * the slice and threshold boundaries and odd offsets, copies from several
 * threads at once (one holds the pool, the others copy alone), workers
 * really take slices, and a forked child gets a pool of its own.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/copy_pool.h"
#include "kselftest_harness.h"
#include "deadline.h"
#include "pattern.h"

#define BIG (9u << 20)

FIXTURE(copy)
{
	uint8_t *src, *dst;
};

FIXTURE_SETUP(copy)
{
	/* The machine may have too few cores for a pool of its own. */
	setenv("LLMEM_COPY_THREADS", "4", 1);
	self->src = malloc(BIG + 64);
	self->dst = malloc(BIG + 64);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	test_pattern(self->src, BIG + 64, 42);
	ASSERT_EQ(3, llmem_copy_pool_workers());
}

FIXTURE_TEARDOWN(copy)
{
	free(self->src);
	free(self->dst);
}

TEST_F(copy, sizes_and_offsets)
{
	static const size_t sizes[] = { 0,
					1,
					(1u << 20) - 1,
					1u << 20,
					(1u << 20) + 1,
					(256u << 10) * 5,
					(256u << 10) * 5 + 7,
					BIG };
	static const size_t offsets[] = { 0, 1, 63 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t j = 0; j < 3; j++) {
			size_t off = offsets[j], n = sizes[i];

			memset(self->dst, 0xa5, BIG + 64);
			llmem_copy_pool_memcpy(self->dst + off, self->src + 64 - off, n);
			ASSERT_EQ(0, memcmp(self->dst + off, self->src + 64 - off, n));
			/* Nothing around the range was touched. */
			for (size_t k = 0; k < off; k++)
				ASSERT_EQ(0xa5, self->dst[k]);
			for (size_t k = off + n; k < BIG + 64; k++)
				if (self->dst[k] != 0xa5)
					ASSERT_EQ(0xa5, self->dst[k]);
		}
	}
}

TEST_F(copy, workers_take_slices)
{
	size_t before = llmem_copy_pool_helped();
	uint64_t end = test_deadline(30);

	/* A worker asleep or without a core misses copies: keep copying. */
	while (llmem_copy_pool_helped() == before && test_before(end))
		llmem_copy_pool_memcpy(self->dst, self->src, BIG);
	ASSERT_GT(llmem_copy_pool_helped(), before);
	ASSERT_EQ(0, memcmp(self->dst, self->src, BIG));
}

struct racer {
	uint8_t *src, *dst;
	size_t bytes;
	int rounds;
	int bad;
};

static void *race(void *arg)
{
	struct racer *r = arg;

	for (int i = 0; i < r->rounds; i++) {
		memset(r->dst, i, r->bytes);
		llmem_copy_pool_memcpy(r->dst, r->src, r->bytes);
		if (memcmp(r->dst, r->src, r->bytes))
			r->bad++;
	}
	return NULL;
}

TEST_F(copy, concurrent_callers)
{
	struct racer r[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		r[i].bytes = (2u << 20) + (size_t)i * 4099;
		r[i].src = malloc(r[i].bytes);
		r[i].dst = malloc(r[i].bytes);
		ASSERT_NE(NULL, r[i].src);
		ASSERT_NE(NULL, r[i].dst);
		test_pattern(r[i].src, r[i].bytes, (unsigned int)i + 7);
		r[i].rounds = 40;
		r[i].bad = 0;
	}
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race, &r[i]));
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, r[i].bad);
		free(r[i].src);
		free(r[i].dst);
	}
}

TEST_F(copy, forked_child)
{
	int status;
	pid_t pid;

	llmem_copy_pool_memcpy(self->dst, self->src, BIG);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		size_t before = llmem_copy_pool_helped();
		int ok = llmem_copy_pool_workers() == 3;
		uint64_t end = test_deadline(30);

		memset(self->dst, 0, BIG);
		while (llmem_copy_pool_helped() == before && test_before(end))
			llmem_copy_pool_memcpy(self->dst, self->src, BIG);
		ok = ok && llmem_copy_pool_helped() > before && !memcmp(self->dst, self->src, BIG);
		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
