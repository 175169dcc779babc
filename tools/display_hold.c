// SPDX-License-Identifier: MIT
/* The hold of `llmem display --hold` (display_hold.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "display_hold.h"

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
