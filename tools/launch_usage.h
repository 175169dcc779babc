/* SPDX-License-Identifier: MIT */
/*
 * A program run whole and measured from outside: its wall time, wait4's
 * user + system time, and its threads' CPU time by name, sampled from
 * /proc while it runs.  For benchmarks of pipelines that run in another
 * program (gst-launch-1.0), where the time that matters is split between
 * threads the program names after what they do.
 */
#ifndef LLMEM_TOOLS_LAUNCH_USAGE_H
#define LLMEM_TOOLS_LAUNCH_USAGE_H

#include <stdbool.h>
#include <stddef.h>

#define LAUNCH_MAX_THREADS 256

struct launch_thread {
	int tid;
	/* /proc's comm: 15 characters at most. */
	char name[16];
	/* User and system time; cpu_s their sum. */
	double user_s, system_s, cpu_s;
};

struct launch_usage {
	double wall_s;
	/* User + system time of the whole process, from wait4. */
	double cpu_s;
	/* Each thread's CPU time at its last sample: a thread that ends
	 * loses up to one sampling period, which cpu_s does not. */
	struct launch_thread thread[LAUNCH_MAX_THREADS];
	unsigned int threads;
	/* The process's own id: its main thread's tid. */
	int pid;
};

/*
 * launch_measure() - runs @argv (argv[0] looked up in PATH) with stdout on
 * /dev/null and stderr into @err_path, waits for it and fills @u.
 *
 * Return: 0 when it exited with 0; -ECHILD when it exited otherwise or was
 * killed (its stderr is in @err_path); -errno when it could not start.
 */
int launch_measure(char *const argv[], const char *err_path, struct launch_usage *u);

/* The CPU time of @u's threads that @match accepts (the main thread has the
 * tid of @u->pid); with @user_only, their user time alone. */
double launch_threads_cpu(const struct launch_usage *u,
			  int (*match)(const struct launch_thread *t, const struct launch_usage *u),
			  bool user_only);

#endif
