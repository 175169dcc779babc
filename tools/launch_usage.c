// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch_usage.h"
#include "timing.h"

extern char **environ;

/* Between samples: short beside a pipeline's run of seconds, long enough
 * that reading /proc takes little of the CPU the run is measured on. */
#define SAMPLE_PERIOD_NS 20000000L

/* @tid's name and CPU time now; -1 once it has ended. */
static int read_thread(int pid, int tid, struct launch_thread *t)
{
	char path[64], stat[512];
	unsigned long long utime, stime;
	const char *open_paren, *close_paren;
	size_t name_len;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	stat[n] = '\0';
	/* The name may hold spaces and parentheses: it is what lies between
	 * the first '(' and the last ')'. */
	open_paren = strchr(stat, '(');
	close_paren = strrchr(stat, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	/* After ") ": state, ppid, pgrp, session, tty_nr, tpgid, flags,
	 * minflt, cminflt, majflt, cmajflt, utime, stime (proc(5)). */
	if (sscanf(close_paren + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
		   &stime) != 2)
		return -1;
	name_len = (size_t)(close_paren - open_paren - 1);
	if (name_len >= sizeof(t->name))
		name_len = sizeof(t->name) - 1;
	memcpy(t->name, open_paren + 1, name_len);
	t->name[name_len] = '\0';
	t->tid = tid;
	t->user_s = (double)utime / (double)sysconf(_SC_CLK_TCK);
	t->system_s = (double)stime / (double)sysconf(_SC_CLK_TCK);
	t->cpu_s = t->user_s + t->system_s;
	return 0;
}

/* Every thread of @u->pid now, each kept at its latest sample. */
static void sample_threads(struct launch_usage *u)
{
	char path[32];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", u->pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		struct launch_thread t;
		unsigned int i;

		if (d->d_name[0] == '.' || read_thread(u->pid, atoi(d->d_name), &t))
			continue;
		for (i = 0; i < u->threads && u->thread[i].tid != t.tid; i++)
			;
		if (i == u->threads) {
			if (u->threads == LAUNCH_MAX_THREADS)
				continue;
			u->threads++;
		}
		u->thread[i] = t;
	}
	closedir(dir);
}

int launch_measure(char *const argv[], const char *err_path, struct launch_usage *u)
{
	const struct timespec period = { .tv_nsec = SAMPLE_PERIOD_NS };
	posix_spawn_file_actions_t actions;
	struct rusage ru;
	double start;
	pid_t pid;
	int ret, status;

	memset(u, 0, sizeof(*u));
	ret = posix_spawn_file_actions_init(&actions);
	if (ret)
		return -ret;
	ret = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path,
						       O_WRONLY | O_CREAT | O_TRUNC, 0600);
	start = timing_s(CLOCK_MONOTONIC);
	if (!ret)
		ret = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (ret)
		return -ret;
	u->pid = pid;
	for (;;) {
		sample_threads(u);
		ret = (int)wait4(pid, &status, WNOHANG, &ru);
		if (ret == pid)
			break;
		if (ret < 0 && errno != EINTR)
			return -errno;
		nanosleep(&period, NULL);
	}
	u->wall_s = timing_s(CLOCK_MONOTONIC) - start;
	u->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ECHILD;
}

double launch_threads_cpu(const struct launch_usage *u,
			  int (*match)(const struct launch_thread *t, const struct launch_usage *u),
			  bool user_only)
{
	double sum = 0;

	for (unsigned int i = 0; i < u->threads; i++)
		if (match(&u->thread[i], u))
			sum += user_only ? u->thread[i].user_s : u->thread[i].cpu_s;
	return sum;
}
