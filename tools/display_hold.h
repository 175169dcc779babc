/* SPDX-License-Identifier: MIT */
/*
 * `llmem display --hold`: the wait with the last frame on screen, until
 * stdin reaches its end (a closed pipe, ^D on a terminal) or SIGINT,
 * SIGTERM or SIGHUP arrives, so that other programs can look at the display
 * meanwhile.
 */
#ifndef LLMEM_TOOLS_DISPLAY_HOLD_H
#define LLMEM_TOOLS_DISPLAY_HOLD_H

/* Until stdin ends or @sigfd (stop_signals_fd()) is readable.  Return: 0 or a negative errno. */
int display_hold(int sigfd);

#endif
