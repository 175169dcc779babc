// SPDX-License-Identifier: MIT
/*
 * The argument parser of every command (cli.h): getopt_long over the
 * command's table, each value stored or refused with what it accepts.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

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
		if (cli_parse_wxh(arg, o->min, o->max, o->value))
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
	const struct cli_option *opts[CLI_MAX_OPTIONS];
	struct option longopts[CLI_MAX_OPTIONS + 1];
	char shortopts[2 * CLI_MAX_OPTIONS + 2] = ":";
	size_t n = cli_all_options(cmd, opts), len = 1;
	int c, index;

	for (size_t i = 0; i < n; i++) {
		longopts[i] = (struct option){
			.name = opts[i]->name,
			.has_arg = cli_takes_value(opts[i]) ? required_argument : no_argument,
			.val = 256 + (int)i,
		};
		if (opts[i]->short_name) {
			shortopts[len++] = opts[i]->short_name;
			if (cli_takes_value(opts[i]))
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
		if (o == &cli_help_option) {
			cli_help(cmd, stdout);
			return -CLI_OK;
		}
		if (o == &cli_version_option) {
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
