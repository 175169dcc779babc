// SPDX-License-Identifier: MIT
/*
 * Limits: a process out of file descriptors gets -EMFILE from ALLOC and
 * EXPORT_RANGE and leaves no page behind; four processes that race to the
 * module's byte cap (max_bytes) each get -ENOMEM, never the OOM killer, hold
 * no more than the cap between them, and give every page back when they
 * exit, one of them by SIGKILL while it still holds its buffers.
 */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define PROCS 4
#define CHUNK (16 << 20)

static unsigned long long max_bytes(void)
{
	FILE *f = fopen("/sys/module/llmem/parameters/max_bytes", "re");
	unsigned long long v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

FIXTURE(limits)
{
	int dev;
	long before;
};

FIXTURE_SETUP(limits)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	self->before = llmem_live_pages();
	ASSERT_GE(self->before, 0);
}

FIXTURE_TEARDOWN(limits)
{
	close(self->dev);
	EXPECT_EQ(llmem_live_pages(), self->before);
}

/* With no fd left, ALLOC and EXPORT_RANGE fail with EMFILE and keep no page. */
TEST_F(limits, out_of_fds)
{
	struct rlimit old, low;
	struct llmem_alloc a = { .size = 65536 };
	struct llmem_export_range r = { .size = 4096 };
	int buf = llmem_alloc(self->dev, 65536), fd;

	ASSERT_GE(buf, 0);
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* Exactly the fds open now: the next one is refused. */
	fd = dup(0);
	ASSERT_GE(fd, 0);
	close(fd);
	low = old;
	low.rlim_cur = (rlim_t)fd;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
	EXPECT_EQ(xioctl(self->dev, LLMEM_IOC_ALLOC, &a), -EMFILE);
	r.fd = (uint32_t)buf;
	EXPECT_EQ(xioctl(self->dev, LLMEM_IOC_EXPORT_RANGE, &r), -EMFILE);
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	EXPECT_EQ(llmem_live_pages(), self->before + 16);
	close(buf);
}

/* Four processes race to max_bytes: each stops at -ENOMEM; all of it comes back. */
TEST_F(limits, byte_cap_shared_by_processes)
{
	unsigned long long cap = max_bytes();
	int ready[2], held[2];
	pid_t pids[PROCS];
	long peak;
	char c;

	ASSERT_GT(cap, 0) TH_LOG("max_bytes unreadable");
	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(pipe(held), 0);
	for (int i = 0; i < PROCS; i++) {
		pids[i] = fork();
		ASSERT_GE(pids[i], 0);
		if (pids[i] == 0) {
			int dev = llmem_open(), ret, n = 0;

			close(ready[1]);
			if (read(ready[0], &c, 1) != 0)
				_exit(10);
			while ((ret = llmem_alloc(dev, CHUNK)) >= 0)
				n++;
			/* Each got its share and was refused without being killed. */
			if (ret != -ENOMEM || (unsigned long long)n * CHUNK > cap)
				_exit(11);
			if (write(held[1], "h", 1) != 1)
				_exit(12);
			pause();
			_exit(0);
		}
	}
	close(ready[0]);
	close(held[1]);
	close(ready[1]);
	for (int i = 0; i < PROCS; i++)
		ASSERT_EQ(read(held[0], &c, 1), 1);
	peak = llmem_live_pages();
	EXPECT_LE((unsigned long long)(peak - self->before) * 4096, cap);
	EXPECT_GT((unsigned long long)(peak - self->before) * 4096, cap - CHUNK * PROCS);
	/* SIGKILL takes every process out while it holds its buffers. */
	for (int i = 0; i < PROCS; i++) {
		int status;

		ASSERT_EQ(kill(pids[i], SIGKILL), 0);
		ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("child %d: status 0x%x", i, status);
	}
	close(held[0]);
	EXPECT_EQ(llmem_live_pages(), self->before);
}

TEST_HARNESS_MAIN
