/* SPDX-License-Identifier: MIT */
/*
 * `llmem display --hold`: the wait with the last frame on screen, until
 * stdin reaches its end (a closed pipe, ^D on a terminal) or SIGINT,
 * SIGTERM or SIGHUP arrives, so that other programs can look at the display
 * meanwhile.
 */
#ifndef LLMEM_TOOLS_DISPLAY_HOLD_H
#define LLMEM_TOOLS_DISPLAY_HOLD_H

/*
 * Catches the signals that end the hold, from before the report is
 * printed: whoever reads it may signal at once.  Return: the descriptor
 * display_hold() waits on, or a negative errno after a message.
 */
int display_hold_signals(void);

/* Until stdin ends or a signal was caught.  Return: 0 or a negative errno. */
int display_hold(int sigfd);

#endif
