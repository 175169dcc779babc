// SPDX-License-Identifier: MIT
/* The signals that end a command, as an fd (stop_signals.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stop_signals.h"

/* Open until the process ends, as the handler may run until then. */
static int stop_pipe[2] = { -1, -1 };

static void stop_signalled(int sig)
{
	int saved = errno;
	char c = (char)sig;
	/* A full pipe is readable already: the command ends either way. */
	ssize_t n = write(stop_pipe[1], &c, 1);

	(void)n;
	errno = saved;
}

int stop_signals_fd(const char *command)
{
	struct sigaction sa = { .sa_handler = stop_signalled, .sa_flags = SA_RESTART };
	int ret;

	if (stop_pipe[0] >= 0)
		return stop_pipe[0];
	sigemptyset(&sa.sa_mask);
	if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGTERM, &sa, NULL) || sigaction(SIGHUP, &sa, NULL)) {
		ret = -errno;
		fprintf(stderr, "%s: catching SIGINT, SIGTERM and SIGHUP: %s\n", command,
			strerror(-ret));
		return ret;
	}
	return stop_pipe[0];
}
