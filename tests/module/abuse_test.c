// SPDX-License-Identifier: MIT
/*
 * Abuse: a process killed with buffers mapped and attached, and eight threads
 * allocating, mapping, importing and freeing at once.  Afterwards every page
 * is back: the module's live-page counter returns to where it was.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define THREADS 8
#define SECONDS 10

FIXTURE(abuse)
{
	int dev;
	long before;
};

FIXTURE_SETUP(abuse)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	self->before = llmem_live_pages();
	ASSERT_GE(self->before, 0) TH_LOG("debugfs counter unreadable");
}

FIXTURE_TEARDOWN(abuse)
{
	close(self->dev);
}

/* SIGKILL with buffers mmapped, attached to vgem and tracked frees them all. */
TEST_F(abuse, killed_while_mapped_and_attached)
{
	int ready[2];
	pid_t pid;
	char c;
	int status;

	ASSERT_EQ(pipe(ready), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int vgem = vgem_open();

		for (int i = 0; i < 4; i++) {
			int fd = llmem_alloc(self->dev, (i + 1) * 64 * 1024);
			uint32_t handle;
			uint8_t *p;

			if (fd < 0)
				_exit(1);
			p = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (p == MAP_FAILED)
				_exit(2);
			p[0] = 1;
			if (vgem >= 0 && vgem_import(vgem, fd, &handle))
				_exit(3);
		}
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1);
	EXPECT_EQ(llmem_live_pages(), self->before + 16 * 10);
	ASSERT_EQ(kill(pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSIGNALED(status));
	close(ready[0]);
	EXPECT_EQ(llmem_live_pages(), self->before);
}

struct worker {
	int dev;
	int vgem;
	unsigned int seed;
	long rounds;
	int error;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct timespec end, now;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += SECONDS;
	do {
		size_t size = 4096 * (1 + rand_r(&w->seed) % 64);
		struct dma_buf_sync s = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
		struct llmem_info info;
		uint32_t handle = 0;
		uint64_t *p;
		int fd = llmem_alloc(w->dev, size);

		if (fd < 0) {
			w->error = fd;
			break;
		}
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			w->error = -errno;
			close(fd);
			break;
		}
		if (p[size / 8 - 1] != 0)
			w->error = -EIO;
		if (rand_r(&w->seed) % 2 && vgem_import(w->vgem, fd, &handle))
			w->error = -ENXIO;
		xioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
		memset(p, 0xee, size);
		s.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
		xioctl(fd, DMA_BUF_IOCTL_SYNC, &s);
		if (llmem_info(w->dev, fd, &info, NULL, 0) || info.cpu_mmaps != 1 ||
		    info.attachments != (handle ? 1 : 0))
			w->error = -EPROTO;
		if (rand_r(&w->seed) % 2) {
			close(fd);
			munmap(p, size);
		} else {
			munmap(p, size);
			close(fd);
		}
		if (handle)
			vgem_close(w->vgem, handle);
		w->rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!w->error && now.tv_sec < end.tv_sec);
	return NULL;
}

static volatile int readers_stop;

/* Reads the debugfs table, which locks every buffer, while buffers die. */
static void *reader_run(void *arg)
{
	long *reads = arg;

	while (!readers_stop) {
		if (llmem_table_has("no-such-line") < 0)
			break;
		(*reads)++;
	}
	return NULL;
}

/* Eight threads allocate, map, import and free for ten seconds while the debugfs table is read. */
TEST_F(abuse, threads)
{
	struct worker w[THREADS];
	pthread_t t[THREADS], reader;
	int vgem = vgem_open();
	long reads = 0;
	long rounds = 0;

	ASSERT_GE(vgem, 0);
	ASSERT_EQ(pthread_create(&reader, NULL, reader_run, &reads), 0);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .dev = self->dev, .vgem = vgem, .seed = i + 1 };
		ASSERT_EQ(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
		EXPECT_EQ(w[i].error, 0)
		TH_LOG("thread %d failed after %ld rounds", i, w[i].rounds);
		rounds += w[i].rounds;
	}
	readers_stop = 1;
	ASSERT_EQ(pthread_join(reader, NULL), 0);
	TH_LOG("%ld rounds, %ld table reads", rounds, reads);
	EXPECT_GT(reads, 0);
	EXPECT_GT(rounds, THREADS);
	close(vgem);
	EXPECT_EQ(llmem_live_pages(), self->before);
}

TEST_HARNESS_MAIN
