// SPDX-License-Identifier: MIT
/*
 * Who may use /dev/llmem and how much one process may take.
 *
 * The node is root's alone as the kernel creates it; the udev rule shipped
 * with the module (module/70-llmem.rules, applied here by `udevadm test`)
 * gives it to the video group while pages are charged to memory cgroups: a
 * member allocates, anyone else gets EACCES.
 *
 * max_bytes_per_process bounds the buffers one process allocated: its
 * threads and its open files share the bound, another process has its own,
 * a buffer handed to another process stays charged to its allocator until
 * the last holder lets it go, ranges take nothing, lowering the bound takes
 * no buffer away, and 0 means max_bytes.
 */
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define RULE_COPY "/run/udev/rules.d/70-llmem.rules"
#define MiB (1024ull * 1024ull)
#define NOBODY 65534

static int read_param(const char *path, unsigned long long *v)
{
	char s[32] = "";
	long n = read_file(path, s, sizeof(s) - 1);

	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	s[n] = 0;
	return sscanf(s, "%llu", v) == 1 ? 0 : -EIO;
}

static int set_per_process(unsigned long long bytes)
{
	char s[32];

	snprintf(s, sizeof(s), "%llu", bytes);
	return write_value(LLMEM_PER_PROCESS, s);
}

/*
 * Runs @fn in a child that takes uid and gid nobody with @groups as its
 * supplementary groups: the child's exit status, or -1.
 */
static int as_nobody(const gid_t *groups, size_t ngroups, int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgroups(ngroups, groups) || setgid(NOBODY) || setuid(NOBODY))
			_exit(100);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* 0 when /dev/llmem opens and allocates a MiB; 2 for EACCES at open, else 3 or 4. */
static int open_and_alloc(void)
{
	int dev = llmem_open(), fd;

	if (dev < 0)
		return dev == -EACCES ? 2 : 3;
	fd = llmem_alloc(dev, MiB);
	close(dev);
	if (fd < 0)
		return 4;
	close(fd);
	return 0;
}

/* Applies the shipped rule to /dev/llmem as udev would at the module's load. */
static int apply_rule(void)
{
	char *const argv[] = { "udevadm", "test", "--action=add", "/sys/class/misc/llmem", NULL };
	static const char rule[] = LLMEM_UDEV_RULE;
	char text[4096], log[256];
	long n = read_file(rule, text, sizeof(text));

	if (n < 0)
		return (int)n;
	if (mkdir("/run/udev", 0755) && errno != EEXIST)
		return -errno;
	if (mkdir("/run/udev/rules.d", 0755) && errno != EEXIST)
		return -errno;
	if (write_file(RULE_COPY, text, (size_t)n))
		return -EIO;
	snprintf(log, sizeof(log), "%s/udevadm-test.log",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return run_logged(log, argv) ? -EIO : 0;
}

TEST(node_and_rule)
{
	static const char *const accounting = "/sys/module/llmem/parameters/mem_accounting";
	struct group *video = getgrnam("video");
	char on[4] = "";
	struct stat st;
	gid_t gid;

	ASSERT_NE(NULL, video);
	gid = video->gr_gid;
	ASSERT_EQ(1, read_file(accounting, on, 1));
	if (on[0] != 'Y')
		SKIP(return, "llmem loaded with mem_accounting=0: the rule leaves the node alone");

	/* What the kernel creates: root's alone. */
	ASSERT_EQ(0, stat(LLMEM_DEV, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
	EXPECT_EQ(2, as_nobody(&gid, 1, open_and_alloc));

	ASSERT_EQ(0, apply_rule());
	ASSERT_EQ(0, stat(LLMEM_DEV, &st));
	EXPECT_EQ(0660, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(gid, st.st_gid);
	/* A member of video allocates; a process outside it may not open. */
	EXPECT_EQ(0, as_nobody(&gid, 1, open_and_alloc));
	EXPECT_EQ(2, as_nobody(NULL, 0, open_and_alloc));

	/* Back to the kernel's node for the tests after this one. */
	EXPECT_EQ(0, unlink(RULE_COPY));
	EXPECT_EQ(0, chown(LLMEM_DEV, 0, 0));
	EXPECT_EQ(0, chmod(LLMEM_DEV, 0600));
}

FIXTURE(quota)
{
	int dev;
	unsigned long long saved;
	long before;
};

FIXTURE_SETUP(quota)
{
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0);
	ASSERT_EQ(0, read_param(LLMEM_PER_PROCESS, &self->saved));
	self->before = llmem_live_pages();
	ASSERT_GE(self->before, 0);
	ASSERT_EQ(0, set_per_process(8 * MiB));
}

FIXTURE_TEARDOWN(quota)
{
	EXPECT_EQ(0, set_per_process(self->saved));
	close(self->dev);
	EXPECT_EQ(self->before, llmem_live_pages());
}

/* Up to the bound and not a page more; closing the buffer makes room. */
TEST_F(quota, bound_per_process)
{
	struct llmem_alloc c = { .size = 4096, .flags = LLMEM_ALLOC_CONTIGUOUS };
	int a = llmem_alloc(self->dev, 6 * MiB), b;

	ASSERT_GE(a, 0);
	b = llmem_alloc(self->dev, 2 * MiB);
	ASSERT_GE(b, 0);
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 4096));
	EXPECT_EQ(-ENOMEM, xioctl(self->dev, LLMEM_IOC_ALLOC, &c));
	/* The refusals took nothing. */
	EXPECT_EQ(self->before + (long)(8 * MiB / 4096), llmem_live_pages());
	close(b);
	b = llmem_alloc(self->dev, 2 * MiB);
	EXPECT_GE(b, 0);
	close(b);
	close(a);
	/* A single buffer past the bound, with nothing else held. */
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 8 * MiB + 4096));
}

/* Another open of /dev/llmem by the same process shares the bound. */
TEST_F(quota, files_share)
{
	int dev2 = llmem_open(), a;

	ASSERT_GE(dev2, 0);
	a = llmem_alloc(self->dev, 8 * MiB);
	ASSERT_GE(a, 0);
	EXPECT_EQ(-ENOMEM, llmem_alloc(dev2, 4096));
	close(a);
	close(dev2);
}

static void *alloc_page_in_thread(void *dev)
{
	return (void *)(intptr_t)llmem_alloc(*(int *)dev, 4096);
}

/* A thread of the process counts with it. */
TEST_F(quota, threads_share)
{
	pthread_t t;
	void *ret;
	int a = llmem_alloc(self->dev, 8 * MiB);

	ASSERT_GE(a, 0);
	ASSERT_EQ(0, pthread_create(&t, NULL, alloc_page_in_thread, &self->dev));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(-ENOMEM, (int)(intptr_t)ret);
	close(a);
}

/*
 * The allocator hands its buffer to a child (by fork) and closes it: the
 * child allocates its own bound in full, and the allocator still cannot
 * allocate until the child exits with the buffer.
 */
TEST_F(quota, charge_stays_with_allocator)
{
	int go[2], done[2], status, a;
	char c = 0;
	pid_t pid;

	a = llmem_alloc(self->dev, 8 * MiB);
	ASSERT_GE(a, 0);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int own, ok;
		uint8_t *p;

		close(go[1]);
		close(done[0]);
		own = llmem_alloc(self->dev, 8 * MiB);
		ok = own >= 0;
		/* The inherited buffer is still whole and usable. */
		p = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
		ok = ok && p != MAP_FAILED;
		if (ok)
			p[8 * MiB - 1] = 7;
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			ok = 0;
		_exit(ok ? 0 : 1);
	}
	close(go[0]);
	close(done[1]);
	ASSERT_EQ(1, read(done[0], &c, 1));
	close(a);
	/* The child holds the buffer: it is still the parent's. */
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 4096));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	a = llmem_alloc(self->dev, 8 * MiB);
	EXPECT_GE(a, 0);
	close(a);
	close(go[1]);
	close(done[0]);
}

/* Ranges share their buffer's pages and count for nothing. */
TEST_F(quota, ranges_take_nothing)
{
	int a = llmem_alloc(self->dev, 8 * MiB), r;

	ASSERT_GE(a, 0);
	r = llmem_range_export(self->dev, a, 4096, 4 * MiB);
	EXPECT_GE(r, 0);
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 4096));
	close(a);
	/* The range holds the pages, and the charge, alone now. */
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 4096));
	close(r);
	a = llmem_alloc(self->dev, 4096);
	EXPECT_GE(a, 0);
	close(a);
}

/* A lower bound refuses new buffers and leaves those held alone. */
TEST_F(quota, lowered_takes_nothing_away)
{
	int a = llmem_alloc(self->dev, 6 * MiB);
	uint8_t *p;

	ASSERT_GE(a, 0);
	ASSERT_EQ(0, set_per_process(4 * MiB));
	p = mmap(NULL, 6 * MiB, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	ASSERT_NE(MAP_FAILED, p);
	p[6 * MiB - 1] = 1;
	EXPECT_EQ(0, munmap(p, 6 * MiB));
	EXPECT_EQ(-ENOMEM, llmem_alloc(self->dev, 4096));
	close(a);
	a = llmem_alloc(self->dev, 4 * MiB);
	EXPECT_GE(a, 0);
	close(a);
}

/* 0 is max_bytes: a buffer past the old bound allocates. */
TEST_F(quota, zero_is_max_bytes)
{
	int a;

	ASSERT_EQ(0, set_per_process(0));
	a = llmem_alloc(self->dev, 16 * MiB);
	EXPECT_GE(a, 0);
	close(a);
}

/* The kernel's parser refuses what is not a whole number; the bound stays. */
TEST_F(quota, bad_values_refused)
{
	static const char *const bad[] = { "abc", "-1", "8M" };
	unsigned long long now;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, write_value(LLMEM_PER_PROCESS, bad[i]))
		TH_LOG("value '%s'", bad[i]);
	}
	ASSERT_EQ(0, read_param(LLMEM_PER_PROCESS, &now));
	EXPECT_EQ(8 * MiB, now);
}

TEST_HARNESS_MAIN
