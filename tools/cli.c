// SPDX-License-Identifier: MIT
/*
 * The argument parser of every command (cli.h), and the help, man page and
 * completion written from the commands' tables.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_OPTIONS 48
#define HELP_COLUMN 26
#define HELP_LINE 80

static const struct cli_option help_option = {
	.name = "help",
	.short_name = 'h',
	.type = CLI_FLAG,
	.help = "print this help and exit",
};

static const struct cli_option version_option = {
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

static bool takes_value(const struct cli_option *o)
{
	return o->type != CLI_FLAG;
}

static size_t count_options(const struct cli_command *cmd)
{
	size_t n = 0;

	while (cmd->options && cmd->options[n].name)
		n++;
	return n;
}

/* The command's options, --help and --version, in the order help lists them. */
static size_t all_options(const struct cli_command *cmd, const struct cli_option **out)
{
	size_t n = count_options(cmd);

	n = n < MAX_OPTIONS - 2 ? n : MAX_OPTIONS - 2;
	for (size_t i = 0; i < n; i++)
		out[i] = &cmd->options[i];
	out[n++] = &help_option;
	out[n++] = &version_option;
	return n;
}

int cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* K, M, G and T, with or without "iB": powers of 1024; "B" or nothing: none. */
static int unit_of(const char *s, uint64_t bare, uint64_t *unit)
{
	static const char prefixes[] = "KMGT";
	const char *p;

	if (!*s) {
		*unit = bare;
		return 0;
	}
	if (!strcmp(s, "B")) {
		*unit = 1;
		return 0;
	}
	p = strchr(prefixes, s[0]);
	if (!p || (s[1] && strcmp(s + 1, "iB")))
		return -1;
	*unit = 1ull << (10 * (p - prefixes + 1));
	return 0;
}

int cli_parse_size(const char *s, uint64_t bare, uint64_t *out)
{
	size_t whole = strspn(s, "0123456789"), frac = 0;
	uint64_t number = 0, scale = 1, unit, bytes;
	const char *p = s;

	if (!whole)
		return -1;
	for (; p < s + whole; p++)
		if (__builtin_mul_overflow(number, 10, &number) ||
		    __builtin_add_overflow(number, (uint64_t)(*p - '0'), &number))
			return -1;
	if (*p == '.') {
		frac = strspn(++p, "0123456789");
		if (!frac || frac > 9)
			return -1;
		for (size_t i = 0; i < frac; i++, p++) {
			if (__builtin_mul_overflow(number, 10, &number) ||
			    __builtin_add_overflow(number, (uint64_t)(*p - '0'), &number))
				return -1;
			scale *= 10;
		}
	}
	if (unit_of(p, bare, &unit) || __builtin_mul_overflow(number, unit, &bytes) ||
	    bytes % scale)
		return -1;
	*out = bytes / scale;
	return 0;
}

static int parse_wxh(const char *s, uint64_t min, uint64_t max, uint32_t out[2])
{
	const char *x = strchr(s, 'x');
	char side[24];
	uint64_t w, h;

	if (!x || (size_t)(x - s) >= sizeof(side))
		return -1;
	memcpy(side, s, (size_t)(x - s));
	side[x - s] = '\0';
	if (cli_parse_uint(side, min, max, &w) || cli_parse_uint(x + 1, min, max, &h))
		return -1;
	out[0] = (uint32_t)w;
	out[1] = (uint32_t)h;
	return 0;
}

static void print_choices(FILE *out, const struct cli_choice *c)
{
	for (size_t i = 0; c[i].name; i++)
		fprintf(out, "%s%s", i ? (c[i + 1].name ? ", " : " or ") : "", c[i].name);
}

/* What the option accepts, for error messages. */
static void print_accepted(FILE *out, const struct cli_option *o)
{
	switch (o->type) {
	case CLI_UINT:
		fprintf(out, "a whole number from %llu to %llu", (unsigned long long)o->min,
			(unsigned long long)o->max);
		break;
	case CLI_SIZE:
		fprintf(out, "a size from %llu to %llu bytes", (unsigned long long)o->min,
			(unsigned long long)o->max);
		if (o->align > 1)
			fprintf(out, " in multiples of %llu", (unsigned long long)o->align);
		fprintf(out, ", with a unit K, M or G (a bare number counts in %s)",
			o->unit == 1	  ? "bytes"
			: o->unit == 1024 ? "KiB"
					  : "MiB");
		break;
	case CLI_CHOICE:
		print_choices(out, o->choices);
		break;
	case CLI_WXH:
		fprintf(out, "WIDTHxHEIGHT, each from %llu to %llu", (unsigned long long)o->min,
			(unsigned long long)o->max);
		break;
	default:
		fprintf(out, "a non-empty value");
		break;
	}
}

static int bad_value(const struct cli_command *cmd, const struct cli_option *o, const char *arg)
{
	fprintf(stderr, "llmem %s: --%s '%s': expected ", cmd->name, o->name, arg);
	print_accepted(stderr, o);
	fputc('\n', stderr);
	return -CLI_USAGE;
}

static int store(const struct cli_command *cmd, const struct cli_option *o, const char *arg)
{
	uint64_t v;

	switch (o->type) {
	case CLI_FLAG:
		*(bool *)o->value = true;
		break;
	case CLI_UINT:
		if (cli_parse_uint(arg, o->min, o->max, &v))
			return bad_value(cmd, o, arg);
		*(uint64_t *)o->value = v;
		break;
	case CLI_SIZE:
		if (cli_parse_size(arg, o->unit ? o->unit : 1, &v) || v < o->min || v > o->max ||
		    (o->align > 1 && v % o->align))
			return bad_value(cmd, o, arg);
		*(uint64_t *)o->value = v;
		break;
	case CLI_STRING:
	case CLI_PATH:
		if (!*arg)
			return bad_value(cmd, o, arg);
		*(const char **)o->value = arg;
		break;
	case CLI_CHOICE:
		for (size_t i = 0;; i++) {
			if (!o->choices[i].name)
				return bad_value(cmd, o, arg);
			if (!strcmp(arg, o->choices[i].name)) {
				*(uint32_t *)o->value = o->choices[i].value;
				break;
			}
		}
		break;
	case CLI_WXH:
		if (parse_wxh(arg, o->min, o->max, o->value))
			return bad_value(cmd, o, arg);
		break;
	}
	if (o->given)
		*o->given = true;
	return 0;
}

/*
 * getopt_long takes any unambiguous prefix of a long option, and calls
 * one that fits several unknown; this names them instead.  Return:
 * -CLI_USAGE after the message, or 0 when @arg is no such prefix.
 */
static int ambiguous(const struct cli_command *cmd, const struct cli_option **opts, size_t n,
		     const char *arg)
{
	size_t len, matches = 0;

	if (strncmp(arg, "--", 2))
		return 0;
	arg += 2;
	len = strcspn(arg, "=");
	for (size_t i = 0; i < n; i++)
		matches += !strncmp(opts[i]->name, arg, len);
	if (!len || matches < 2)
		return 0;
	fprintf(stderr, "llmem %s: ambiguous option '--%.*s':", cmd->name, (int)len, arg);
	for (size_t i = 0, k = 0; i < n; i++)
		if (!strncmp(opts[i]->name, arg, len))
			fprintf(stderr, "%s --%s", k++ ? "," : "", opts[i]->name);
	fputc('\n', stderr);
	return -CLI_USAGE;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv)
{
	const struct cli_option *opts[MAX_OPTIONS];
	struct option longopts[MAX_OPTIONS + 1];
	char shortopts[2 * MAX_OPTIONS + 2] = ":";
	size_t n = all_options(cmd, opts), len = 1;
	int c, index;

	for (size_t i = 0; i < n; i++) {
		longopts[i] = (struct option){
			.name = opts[i]->name,
			.has_arg = takes_value(opts[i]) ? required_argument : no_argument,
			.val = 256 + (int)i,
		};
		if (opts[i]->short_name) {
			shortopts[len++] = opts[i]->short_name;
			if (takes_value(opts[i]))
				shortopts[len++] = ':';
		}
	}
	longopts[n] = (struct option){ 0 };
	shortopts[len] = '\0';
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, &index)) != -1) {
		const struct cli_option *o = NULL;
		int ret;

		if (c == ':')
			return -cli_fail(cmd, CLI_USAGE, "%s needs a value (llmem %s --help)",
					 argv[optind - 1], cmd->name);
		if (c == '?' && optopt >= 256)
			return -cli_fail(cmd, CLI_USAGE, "--%s takes no value (llmem %s --help)",
					 opts[optopt - 256]->name, cmd->name);
		if (c == '?' && optopt)
			return -cli_fail(cmd, CLI_USAGE, "unknown option '-%c' (llmem %s --help)",
					 optopt, cmd->name);
		if (c == '?' && ambiguous(cmd, opts, n, argv[optind - 1]))
			return -CLI_USAGE;
		if (c == '?')
			return -cli_fail(cmd, CLI_USAGE, "unknown option '%s' (llmem %s --help)",
					 argv[optind - 1], cmd->name);
		if (c >= 256) {
			o = opts[c - 256];
		} else {
			for (size_t i = 0; i < n && !o; i++)
				if (opts[i]->short_name == c)
					o = opts[i];
		}
		if (o == &help_option) {
			cli_help(cmd, stdout);
			return -CLI_OK;
		}
		if (o == &version_option) {
			cli_version(stdout);
			return -CLI_OK;
		}
		ret = store(cmd, o, optarg);
		if (ret)
			return ret;
	}
	if (argc - optind > cmd->max_operands)
		return -cli_fail(cmd, CLI_USAGE, "unexpected operand '%s' (llmem %s --help)",
				 argv[optind + cmd->max_operands], cmd->name);
	return optind;
}

void cli_version(FILE *out)
{
	fprintf(out, "llmem %s\n", LLMEM_VERSION);
}

static void print_usage(const struct cli_command *cmd, FILE *out)
{
	fprintf(out, "usage: llmem %s%s%s%s\n", cmd->name, count_options(cmd) ? " [OPTIONS]" : "",
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
	const struct cli_option *opts[MAX_OPTIONS];
	size_t n = all_options(cmd, opts);

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
			 takes_value(o) ? " " : "", takes_value(o) ? o->meta : "");
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
	const struct cli_option *opts[MAX_OPTIONS];
	size_t n = all_options(cmd, opts);

	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = opts[i];

		fputs(".TP\n", out);
		if (o->short_name)
			fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", out);
		roff(out, o->name);
		fputs("\\fR", out);
		if (takes_value(o)) {
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
		fputs(count_options(cmd) ? " [OPTIONS]" : "", out);
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
		const struct cli_option *opts[MAX_OPTIONS];
		size_t n = all_options(cmd, opts);

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
			} else if (takes_value(o)) {
				fprintf(out, "\t\"%s:--%s\")\n\t\treturn ;;\n", cmd->name, o->name);
			}
		}
	}
	fputs("\tesac\n\tcase \"$cmd\" in\n", out);
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *cmd = cli_commands[i];
		const struct cli_option *opts[MAX_OPTIONS];
		size_t n = all_options(cmd, opts);

		fprintf(out, "\t\"%s\")\n\t\tCOMPREPLY=($(compgen -W \"", cmd->name);
		for (size_t j = 0; j < n; j++)
			fprintf(out, "%s--%s", j ? " " : "", opts[j]->name);
		fputs("\" -- \"$cur\")) ;;\n", out);
	}
	fputs("\tesac\n}\ncomplete -F _llmem llmem\n", out);
}
