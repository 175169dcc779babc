// SPDX-License-Identifier: MIT
/*
 * What every part of the command line shares (cli.h): the options each
 * command answers beyond its own, and the one way a command says it
 * failed; apart from the parser (cli_parse.c), so that the writers of the
 * help, the man page and the completion need only this.
 */
#include <stdarg.h>

#include "cli.h"

const struct cli_option cli_help_option = {
	.name = "help",
	.short_name = 'h',
	.type = CLI_FLAG,
	.help = "print this help and exit",
};

const struct cli_option cli_version_option = {
	.name = "version",
	.short_name = 'V',
	.type = CLI_FLAG,
	.help = "print llmem's version and exit",
};

int cli_fail(const struct cli_command *cmd, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "llmem %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

size_t cli_all_options(const struct cli_command *cmd, const struct cli_option **out)
{
	size_t n = 0;

	while (cmd->options && cmd->options[n].name)
		n++;
	n = n < CLI_MAX_OPTIONS - 2 ? n : CLI_MAX_OPTIONS - 2;
	for (size_t i = 0; i < n; i++)
		out[i] = &cmd->options[i];
	out[n++] = &cli_help_option;
	out[n++] = &cli_version_option;
	return n;
}
