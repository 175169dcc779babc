/* SPDX-License-Identifier: MIT */
/*
 * The signals that end a command that runs until told (SIGINT, SIGTERM,
 * SIGHUP), as an fd to poll beside the command's own: a handler writing
 * into a pipe, not a blocked mask, because the Vulkan driver's threads,
 * which a signal may be delivered to, were started with the mask as it was.
 */
#ifndef LLMEM_TOOLS_STOP_SIGNALS_H
#define LLMEM_TOOLS_STOP_SIGNALS_H

/*
 * Catches the signals from now until the process ends: a second ^C cannot
 * cut short the clean-up the first one started.  @command names the
 * command in the message on failure.
 *
 * Return: an fd that polls readable once one of them arrived, or a
 * negative errno after a message.
 */
int stop_signals_fd(const char *command);

#endif
