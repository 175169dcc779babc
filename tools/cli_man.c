// SPDX-License-Identifier: MIT
/*
 * The man page llmem(1), written in roff from every command's table
 * (cli.h) at build time, so that it cannot drift from what the parser takes.
 */
#include <string.h>

#include "cli.h"

/* roff text: backslashes and hyphens escaped, no line starting a request. */
static void roff(FILE *out, const char *s)
{
	bool line_start = true;

	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", out);
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
		line_start = *s == '\n';
	}
}

static void man_options(FILE *out, const struct cli_command *cmd)
{
	const struct cli_option *opts[CLI_MAX_OPTIONS];
	size_t n = cli_all_options(cmd, opts);

	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = opts[i];

		fputs(".TP\n", out);
		if (o->short_name)
			fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", out);
		roff(out, o->name);
		fputs("\\fR", out);
		if (cli_takes_value(o)) {
			fputs(" \\fI", out);
			roff(out, o->meta);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		roff(out, o->help);
		if (o->type == CLI_CHOICE) {
			fputs(": ", out);
			for (size_t c = 0; o->choices[c].name; c++) {
				fputs(c ? ", " : "", out);
				roff(out, o->choices[c].name);
			}
		}
		fputs(".\n", out);
	}
}

void cli_write_man(FILE *out, const char *version)
{
	fprintf(out, ".TH LLMEM 1 \"\" \"llmem %s\" \"User Commands\"\n", version);
	fputs(".SH NAME\nllmem \\- device memory shared with cameras, codecs and displays\n"
	      ".SH SYNOPSIS\n\\fBllmem\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIOPERANDS\\fR]\n"
	      ".br\n\\fBllmem help\\fR [\\fICOMMAND\\fR]\n"
	      ".br\n\\fBllmem \\-\\-version\\fR\n"
	      ".SH DESCRIPTION\n"
	      "llmem describes and exercises libllmem: device memory allocated through Vulkan "
	      "in pages, shared as DMA-BUFs with V4L2 cameras and other drivers without "
	      "copying.  Each command below has its own options; \\fBllmem\\fR "
	      "\\fICOMMAND\\fR \\fB\\-\\-help\\fR prints them.\n"
	      ".SH COMMANDS\n",
	      out);
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];

		fputs(".SS \"llmem ", out);
		roff(out, cmd->name);
		fputs("\"\n", out);
		fputs(".B llmem ", out);
		roff(out, cmd->name);
		fputs(cli_has_options(cmd) ? " [OPTIONS]" : "", out);
		if (cmd->operands) {
			fputc(' ', out);
			roff(out, cmd->operands);
		}
		fputs("\n.PP\n", out);
		roff(out, cmd->description ? cmd->description : cmd->summary);
		fputc('\n', out);
		man_options(out, cmd);
	}
	fputs(".SH OUTPUT\n"
	      "Results go to standard output: for people by default, as one JSON object with "
	      "\\fB\\-\\-json\\fR (each command's keys are listed in docs/cli.md in "
	      "llmem's source; keys are never renamed, new ones may be added).\n"
	      ".PP\n"
	      "Long work (frames captured, runs of a benchmark) shows its progress on standard "
	      "error: one line redrawn in place on a terminal, a plain line at every tenth "
	      "otherwise.  \\fB\\-\\-quiet\\fR turns it off; \\fBinfo\\fR and "
	      "\\fBdevices\\fR, which show none, accept it too.\n"
	      ".PP\n"
	      "Errors go to standard error, one line that starts with the command's name, "
	      "\\fBllmem\\fR \\fICOMMAND\\fR\\fB:\\fR.  Every command answers "
	      "\\fB\\-\\-help\\fR and \\fB\\-\\-version\\fR on standard output.\n",
	      out);
	fputs(".SH EXIT STATUS\n0 when the command did what it was asked, 1 when it failed "
	      "(the reason on standard error), 2 for a command line it does not accept.\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B LLMEM_DEVICE\nThe Vulkan device: an index (digits alone), or a piece "
	      "of the name.\n"
	      ".TP\n.B LLMEM_VALIDATION\n1 turns the Vulkan validation layer on, 0 off.\n"
	      ".TP\n.B LLMEM_COPY_THREADS\nThreads that share large host copies, from 1 "
	      "(none) to 16.\n"
	      ".PP\nA command that opens a device refuses any other value of these, "
	      "naming the variable, and exits 1.\n"
	      ".SH SEE ALSO\n\\fBv4l2\\-ctl\\fR(1), \\fBvulkaninfo\\fR(1)\n",
	      out);
}
