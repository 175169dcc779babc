// SPDX-License-Identifier: MIT
/*
 * Bash completion for llmem, written from every command's table (cli.h) at
 * build time: the commands, their options, a choice's names, file names
 * for paths.
 */
#include <string.h>

#include "cli.h"

/* The commands' names, or the benchmarks' without "bench ", by spaces. */
static void print_names(FILE *out, bool bench)
{
	const char *sep = "";

	for (size_t i = 0; cli_commands[i]; i++) {
		const char *name = cli_commands[i]->name;

		if (!strncmp(name, "bench ", 6) == bench) {
			fprintf(out, "%s%s", sep, name + (bench ? 6 : 0));
			sep = " ";
		}
	}
}

void cli_write_completion(FILE *out)
{
	fputs("# bash completion for llmem, written by `llmem help --bash-completion`\n"
	      "_llmem() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd=${COMP_WORDS[1]}\n"
	      "\t[ \"$cmd\" = bench ] && [ $COMP_CWORD -gt 2 ] && cmd=\"bench "
	      "${COMP_WORDS[2]}\"\n"
	      "\tif [ $COMP_CWORD -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"help --help --version ",
	      out);
	print_names(out, false);
	fputs(" bench\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tif [ \"$cmd\" = bench ] && [ $COMP_CWORD -eq 2 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"--help ",
	      out);
	print_names(out, true);
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tif [ \"$cmd\" = help ]; then\n"
	      "\t\tif [ $COMP_CWORD -eq 2 ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -W \"",
	      out);
	print_names(out, false);
	fputs(" bench\" -- \"$cur\"))\n"
	      "\t\telif [ $COMP_CWORD -eq 3 ] && [ \"${COMP_WORDS[2]}\" = bench ]; then\n"
	      "\t\t\tCOMPREPLY=($(compgen -W \"",
	      out);
	print_names(out, true);
	fputs("\" -- \"$cur\"))\n\t\tfi\n\t\treturn\n\tfi\n\tcase \"$cmd:$prev\" in\n", out);
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];
		const struct cli_option *opts[CLI_MAX_OPTIONS];
		size_t n = cli_all_options(cmd, opts);

		for (size_t j = 0; j < n; j++) {
			const struct cli_option *o = opts[j];

			if (o->type == CLI_CHOICE) {
				fprintf(out, "\t\"%s:--%s\")\n\t\tCOMPREPLY=($(compgen -W \"",
					cmd->name, o->name);
				for (size_t c = 0; o->choices[c].name; c++)
					fprintf(out, "%s%s", c ? " " : "", o->choices[c].name);
				fputs("\" -- \"$cur\"))\n\t\treturn ;;\n", out);
			} else if (o->type == CLI_PATH) {
				fprintf(out,
					"\t\"%s:--%s\")\n\t\tCOMPREPLY=($(compgen -f -- "
					"\"$cur\"))\n"
					"\t\treturn ;;\n",
					cmd->name, o->name);
			} else if (cli_takes_value(o)) {
				fprintf(out, "\t\"%s:--%s\")\n\t\treturn ;;\n", cmd->name, o->name);
			}
		}
	}
	fputs("\tesac\n\tcase \"$cmd\" in\n", out);
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];
		const struct cli_option *opts[CLI_MAX_OPTIONS];
		size_t n = cli_all_options(cmd, opts);

		fprintf(out, "\t\"%s\")\n\t\tCOMPREPLY=($(compgen -W \"", cmd->name);
		for (size_t j = 0; j < n; j++)
			fprintf(out, "%s--%s", j ? " " : "", opts[j]->name);
		fputs("\" -- \"$cur\")) ;;\n", out);
	}
	fputs("\tesac\n}\ncomplete -F _llmem llmem\n", out);
}
