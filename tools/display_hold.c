// SPDX-License-Identifier: MIT
/*
 * The hold of `llmem display --hold` (display_hold.h).  A signal handler
 * writing into a pipe, not a blocked mask: the Vulkan driver's threads,
 * which the signal may be delivered to, were started with the mask as it
 * was.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "display_hold.h"

/* Written by the signals that end --hold, read by display_hold(); open
 * until the process ends, as the handler may run until then. */
static int hold_pipe[2] = { -1, -1 };

static void hold_signalled(int sig)
{
	int saved = errno;
	char c = (char)sig;
	/* A full pipe is readable already: the hold ends either way. */
	ssize_t n = write(hold_pipe[1], &c, 1);

	(void)n;
	errno = saved;
}

/* The handler stays: a second ^C cannot cut short the commit that puts the
 * display back. */
int display_hold_signals(void)
{
	struct sigaction sa = { .sa_handler = hold_signalled, .sa_flags = SA_RESTART };
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	if (pipe2(hold_pipe, O_CLOEXEC | O_NONBLOCK) || sigaction(SIGINT, &sa, NULL) ||
	    sigaction(SIGTERM, &sa, NULL) || sigaction(SIGHUP, &sa, NULL)) {
		ret = -errno;
		fprintf(stderr, "llmem display: --hold: %s\n", strerror(-ret));
		return ret;
	}
	return hold_pipe[0];
}

int display_hold(int sigfd)
{
	struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
			       { .fd = sigfd, .events = POLLIN } };
	char buf[4096];
	int ret = 0;

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (p[1].revents)
			break;
		/* No stdin at all: only a signal ends the hold. */
		if (p[0].revents & POLLNVAL) {
			p[0].fd = -1;
			continue;
		}
		if (p[0].revents) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

			if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
				break;
		}
	}
	return ret;
}
