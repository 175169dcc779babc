// SPDX-License-Identifier: MIT
/*
 * llmem's pages charged to the memory cgroup of the process that allocated
 * them (mem_accounting=1, the default), with cgroup v2: memory.current grows
 * by a buffer's size and falls back when the last holder lets it go, a
 * buffer held by a process of another cgroup stays charged to its allocator's,
 * and an allocation past memory.max is -ENOMEM without the OOM killer and
 * without leaking a page.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define MiB (1024L * 1024L)
#define CGROOT "/sys/fs/cgroup"
/* What the test processes themselves may add to a cgroup meanwhile. */
#define SLACK (2 * MiB)

static int write_str(const char *dir, const char *file, const char *s)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_value(path, s);
}

/* A cgroup file's first number, or the value of @key in a keyed file; -1. */
static long read_num(const char *dir, const char *file, const char *key)
{
	char path[256], name[64];
	long v = -1, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!key) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
	} else {
		while (fscanf(f, "%63s %ld", name, &n) == 2)
			if (!strcmp(name, key))
				v = n;
	}
	fclose(f);
	return v;
}

static int join(const char *dir)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_str(dir, "cgroup.procs", pid);
}

static void *touch(int fd, size_t size)
{
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p != MAP_FAILED)
		for (size_t off = 0; off < size; off += 4096)
			p[off] = 1;
	return p;
}

FIXTURE(memcg)
{
	int dev;
	char a[64], b[64];
};

/*
 * Two fresh cgroups with the memory controller under the root, mounted if
 * the guest has not; the test process joins a.
 */
FIXTURE_SETUP(memcg)
{
	FILE *f = fopen("/sys/module/llmem/parameters/mem_accounting", "re");
	char ctl[256] = "", accounting = 'N';

	if (f) {
		if (fscanf(f, " %c", &accounting) != 1)
			accounting = 'N';
		fclose(f);
	}
	if (accounting != 'Y')
		SKIP(return, "llmem loaded with mem_accounting=0");
	if (access(CGROOT "/cgroup.controllers", R_OK)) {
		ASSERT_EQ(mount("cgroup2", CGROOT, "cgroup2", 0, NULL), 0)
		TH_LOG("mount cgroup2: %s", strerror(errno));
	}
	f = fopen(CGROOT "/cgroup.controllers", "re");
	ASSERT_NE(f, NULL);
	if (!fgets(ctl, sizeof(ctl), f))
		ctl[0] = 0;
	fclose(f);
	if (!strstr(ctl, "memory"))
		SKIP(return, "no memory controller: %s", ctl);
	ASSERT_EQ(write_str(CGROOT, "cgroup.subtree_control", "+memory"), 0);

	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	snprintf(self->a, sizeof(self->a), CGROOT "/llmem-a-%d", getpid());
	snprintf(self->b, sizeof(self->b), CGROOT "/llmem-b-%d", getpid());
	ASSERT_EQ(mkdir(self->a, 0755), 0);
	ASSERT_EQ(mkdir(self->b, 0755), 0);
	ASSERT_EQ(join(self->a), 0);
}

FIXTURE_TEARDOWN(memcg)
{
	if (!self->a[0])
		return;
	join(CGROOT);
	rmdir(self->a);
	rmdir(self->b);
	close(self->dev);
}

/* memory.current grows by the buffer's size and falls back at close. */
TEST_F(memcg, charged_to_allocator)
{
	long before, during;
	int fd;

	/* The harness runs the test after a SKIP in its set-up. */
	if (!self->a[0])
		SKIP(return, "no memory cgroup (see the set-up)");
	before = read_num(self->a, "memory.current", NULL);
	fd = llmem_alloc(self->dev, 32 * MiB);
	ASSERT_GE(before, 0);
	ASSERT_GE(fd, 0);
	during = read_num(self->a, "memory.current", NULL);
	EXPECT_GE(during - before, 32 * MiB);
	EXPECT_LE(during - before, 32 * MiB + SLACK);
	close(fd);
	EXPECT_LE(read_num(self->a, "memory.current", NULL) - before, SLACK);
}

/*
 * A child in cgroup b holding the buffer, mapped, after the allocator closed
 * its fd: still a's charge, not b's, until the child lets go.
 */
TEST_F(memcg, stays_with_allocator)
{
	long a0, b_held;
	int ready[2], done[2], fd, status;
	char c = 0;
	pid_t pid;

	/* The harness runs the test after a SKIP in its set-up. */
	if (!self->a[0])
		SKIP(return, "no memory cgroup (see the set-up)");
	a0 = read_num(self->a, "memory.current", NULL);
	ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
	ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
	fd = llmem_alloc(self->dev, 32 * MiB);
	ASSERT_GE(fd, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (join(self->b) || touch(fd, 32 * MiB) == MAP_FAILED)
			_exit(1);
		close(fd);
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(fd);
	ASSERT_EQ(read(ready[0], &c, 1), 1);

	/* Less the slack: a's other memory may shrink meanwhile (the previous
	 * test's pages freed late, the fork's page cache reclaimed). */
	EXPECT_GE(read_num(self->a, "memory.current", NULL) - a0, 32 * MiB - SLACK);
	b_held = read_num(self->b, "memory.current", NULL);
	EXPECT_GE(b_held, 0);
	EXPECT_LT(b_held, 8 * MiB) TH_LOG("b holds a mapping and %ld bytes", b_held);

	ASSERT_EQ(write(done[1], &c, 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_LE(read_num(self->a, "memory.current", NULL) - a0, SLACK);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
}

/*
 * Past memory.max ALLOC is -ENOMEM: no OOM kill in the cgroup, no page left
 * behind, and what fits under the limit still succeeds.
 */
TEST_F(memcg, past_memory_max)
{
	long live, before;
	int fd;

	/* The harness runs the test after a SKIP in its set-up. */
	if (!self->a[0])
		SKIP(return, "no memory cgroup (see the set-up)");
	live = llmem_live_pages();
	ASSERT_GE(live, 0);
	ASSERT_EQ(write_str(self->a, "memory.max", "50331648"), 0); /* 48 MiB */
	before = read_num(self->a, "memory.current", NULL);

	EXPECT_EQ(llmem_alloc(self->dev, 64 * MiB), -ENOMEM);
	EXPECT_EQ(read_num(self->a, "memory.events", "oom_kill"), 0);
	EXPECT_EQ(llmem_live_pages(), live);
	EXPECT_LE(read_num(self->a, "memory.current", NULL) - before, SLACK);

	fd = llmem_alloc(self->dev, 16 * MiB);
	EXPECT_GE(fd, 0) TH_LOG("16 MiB under a 48 MiB limit: %s", strerror(-fd));
	close(fd);
	EXPECT_EQ(llmem_live_pages(), live);
}

TEST_HARNESS_MAIN
