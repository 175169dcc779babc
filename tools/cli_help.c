// SPDX-License-Identifier: MIT
/*
 * A command's --help and the version, written from its table (cli.h): the
 * one text a person reads at the terminal, wrapped to fit it.
 */
#include <string.h>

#include "cli.h"

#define HELP_COLUMN 26
#define HELP_LINE 80

void cli_version(FILE *out)
{
	fprintf(out, "llmem %s\n", LLMEM_VERSION);
}

static void print_usage(const struct cli_command *cmd, FILE *out)
{
	fprintf(out, "usage: llmem %s%s%s%s\n", cmd->name, cli_has_options(cmd) ? " [OPTIONS]" : "",
		cmd->operands ? " " : "", cmd->operands ? cmd->operands : "");
}

/*
 * Prints @text word by word from column @col, in the help column, starting
 * a new line where a word would pass HELP_LINE.  Return: the column reached.
 */
static int print_wrapped(FILE *out, const char *text, int col)
{
	while (*text) {
		size_t len = strcspn(text, " ");

		if (col > HELP_COLUMN && col + 1 + (int)len > HELP_LINE) {
			fprintf(out, "\n%*s", HELP_COLUMN, "");
			col = HELP_COLUMN;
		} else {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", (int)len, text);
		text += len;
		text += strspn(text, " ");
	}
	return col;
}

void cli_help(const struct cli_command *cmd, FILE *out)
{
	const struct cli_option *opts[CLI_MAX_OPTIONS];
	size_t n = cli_all_options(cmd, opts);

	print_usage(cmd, out);
	fprintf(out, "\n%s\n", cmd->description ? cmd->description : cmd->summary);
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = opts[i];
		char left[64], shorter[8] = "    ";
		int width;

		if (o->short_name)
			snprintf(shorter, sizeof(shorter), "-%c, ", o->short_name);
		snprintf(left, sizeof(left), "%s--%s%s%s", shorter, o->name,
			 cli_takes_value(o) ? " " : "", cli_takes_value(o) ? o->meta : "");
		width = fprintf(out, "  %-*s", HELP_COLUMN - 3, left);
		width = print_wrapped(out, o->help, width);
		if (o->type == CLI_CHOICE) {
			fputc(':', out);
			for (size_t c = 0; o->choices[c].name; c++) {
				char word[64];

				snprintf(word, sizeof(word), "%s%s", o->choices[c].name,
					 o->choices[c + 1].name ? "," : "");
				width = print_wrapped(out, word, width + 1);
			}
		}
		fputc('\n', out);
	}
}
