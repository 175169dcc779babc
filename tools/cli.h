/* SPDX-License-Identifier: MIT */
/*
 * The one argument parser of every `llmem` command: each command describes
 * its options in a table, getopt_long parses them, and every value is read
 * whole and checked against its range before the command does anything.
 * --help, the usage line, the man page and the bash completion are written
 * from the same tables.
 */
#ifndef LLMEM_TOOLS_CLI_H
#define LLMEM_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum cli_type {
	/* bool, set to true. */
	CLI_FLAG,
	/* uint64_t: a whole decimal number in [min, max]. */
	CLI_UINT,
	/* uint64_t bytes: a decimal number, fractions allowed, with a unit
	 * K, M, G (or KiB, MiB, GiB: powers of 1024) or none (then in
	 * @unit); the bytes a whole number, a multiple of @align, in
	 * [min, max]. */
	CLI_SIZE,
	/* const char *: any non-empty string. */
	CLI_STRING,
	/* const char *: a path; completed as a file name. */
	CLI_PATH,
	/* uint32_t: the value of one of @choices, by name. */
	CLI_CHOICE,
	/* uint32_t[2]: WIDTHxHEIGHT, each side in [min, max]. */
	CLI_WXH,
};

struct cli_choice {
	const char *name;
	uint32_t value;
};

struct cli_option {
	const char *name;
	/* 0 for none. */
	char short_name;
	enum cli_type type;
	void *value;
	/* The value's name in the usage line ("N", "WxH", "DIR"). */
	const char *meta;
	const char *help;
	uint64_t min, max;
	/* CLI_SIZE. */
	uint64_t unit, align;
	/* CLI_CHOICE: ended by an entry with a NULL name. */
	const struct cli_choice *choices;
	/* Set when the option is given; may be NULL. */
	bool *given;
};

/* Spelled once so that every command offers them the same way. */
#define CLI_OPTION_JSON(flag)                                                         \
	{                                                                             \
		.name = "json", .short_name = 'j', .type = CLI_FLAG, .value = (flag), \
		.help = "print one JSON object (schema in docs/cli.md)"               \
	}
#define CLI_OPTION_QUIET(flag, what)                                                   \
	{                                                                              \
		.name = "quiet", .short_name = 'q', .type = CLI_FLAG, .value = (flag), \
		.help = (what)                                                         \
	}
/* A camera of libcamera's in place of a V4L2 node, for the commands that
 * take a camera. */
#define CLI_OPTION_LIBCAMERA(flag, text)                                                   \
	{                                                                                  \
		.name = "libcamera", .short_name = 'L', .type = CLI_FLAG, .value = (flag), \
		.help = (text)                                                             \
	}
/* The camera's video input (VIDIOC_S_INPUT), for the commands that capture. */
#define CLI_OPTION_INPUT(n, n_given)                                                             \
	{                                                                                        \
		.name = "input", .short_name = 'i', .type = CLI_UINT, .value = (n), .meta = "N", \
		.max = 255, .given = (n_given),                                                  \
		.help = "select the camera's video input N (default: leave the device's)"        \
	}

/*
 * The capture and codec options, spelled once: each command gives what
 * differs between them (its help, its limits, its choices) and keeps its
 * own default in its args.  @given may be NULL.
 */
#define CLI_OPTION_DEVICE(path, text)                                                   \
	{                                                                               \
		.name = "device", .short_name = 'd', .type = CLI_PATH, .value = (path), \
		.meta = "PATH", .help = (text)                                          \
	}
#define CLI_HELP_CAPTURE_DEVICE "the capture node; default: the first that imports DMA-BUFs"
#define CLI_OPTION_ENCODER(path)                                                          \
	{                                                                                 \
		.name = "encoder", .short_name = 'e', .type = CLI_PATH, .value = (path),  \
		.meta = "PATH",                                                           \
		.help = "the encoder node; default: the first FWHT encoder that imports " \
			"DMA-BUFs"                                                        \
	}
#define CLI_OPTION_FORMAT(fourcc, list, fourcc_given, text)                                  \
	{                                                                                    \
		.name = "format", .short_name = 'f', .type = CLI_CHOICE, .value = (fourcc),  \
		.meta = "FOURCC", .choices = (list), .given = (fourcc_given), .help = (text) \
	}
#define CLI_OPTION_SIZE(wxh, lo, hi, wxh_given, text)                                              \
	{                                                                                          \
		.name = "size", .short_name = 's', .type = CLI_WXH, .value = (wxh), .meta = "WxH", \
		.min = (lo), .max = (hi), .given = (wxh_given), .help = (text)                     \
	}
#define CLI_OPTION_FRAMES(n, hi, n_given, text)                                                   \
	{                                                                                         \
		.name = "frames", .short_name = 'n', .type = CLI_UINT, .value = (n), .meta = "N", \
		.min = 1, .max = (hi), .given = (n_given), .help = (text)                         \
	}
/* Where a frame's pages come from: camera.h's camera_backends. */
#define CLI_OPTION_BACKEND(backend, text)                                                     \
	{                                                                                     \
		.name = "backend", .short_name = 'B', .type = CLI_CHOICE, .value = (backend), \
		.meta = "NAME", .choices = camera_backends, .help = (text)                    \
	}
#define CLI_OPTION_OUT(dir, text)                                                                  \
	{                                                                                          \
		.name = "out", .short_name = 'o', .type = CLI_PATH, .value = (dir), .meta = "DIR", \
		.help = (text)                                                                     \
	}
/* The benchmarks' rounds, in which the paths they compare take turns. */
#define CLI_OPTION_ROUNDS(n, hi, text)                                                            \
	{                                                                                         \
		.name = "rounds", .short_name = 'r', .type = CLI_UINT, .value = (n), .meta = "R", \
		.min = 1, .max = (hi), .help = (text)                                             \
	}
#define CLI_OPTION_KEEP_RAW(flag, text)                                                   \
	{                                                                                 \
		.name = "keep-raw", .short_name = 'k', .type = CLI_FLAG, .value = (flag), \
		.help = (text)                                                            \
	}

struct cli_command {
	/* As typed after `llmem`: "camera", "bench alloc". */
	const char *name;
	const char *summary;
	/* Paragraphs for --help and the man page, lines joined by spaces. */
	const char *description;
	/* Operands after the options, for the usage line; NULL for none. */
	const char *operands;
	/* The most operands; 0 for none. */
	int max_operands;
	/* Ended by an entry with a NULL name; --help and --version are added. */
	const struct cli_option *options;
	int (*run)(const struct cli_command *cmd, int argc, char **argv);
};

/* Exit statuses: done, failed, a bad command line. */
#define CLI_OK 0
#define CLI_FAILED 1
#define CLI_USAGE 2

/*
 * cli_parse() - parses @argv (argv[0] is the command's last word) against
 * @cmd's table.
 *
 * Return: the index of the first operand, at least 1; 0 (-CLI_OK) after
 * --help printed the help or --version the version on stdout; -CLI_USAGE after one line on stderr
 * named the option, the value and what is accepted.  A command returns
 * -ret for anything but a positive index.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv);

/* The usage line, then the options, each with its help. */
void cli_help(const struct cli_command *cmd, FILE *out);

/* "llmem VERSION", Meson's version of the project. */
void cli_version(FILE *out);

/* "llmem NAME: " and the message, on stderr; returns @status. */
int cli_fail(const struct cli_command *cmd, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The parts a value is made of, for commands that check operands or
 * relations between options themselves: 0, or -1 when @s is not one.
 */
int cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int cli_parse_size(const char *s, uint64_t unit, uint64_t *out);
/* WIDTHxHEIGHT, each side in [min, max]. */
int cli_parse_wxh(const char *s, uint64_t min, uint64_t max, uint32_t out[2]);

/* "s" after a count of anything but one: "1 run", "2 runs". */
static inline const char *cli_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/*
 * The options a command answers, for the parser and the writers of its help,
 * man page and completion: its own (CLI_MAX_OPTIONS - 2 at most), then
 * --help and --version, in the order help lists them.  Return: how many.
 */
#define CLI_MAX_OPTIONS 48
size_t cli_all_options(const struct cli_command *cmd, const struct cli_option **out);
/* The two every command answers, which the parser acts on itself. */
extern const struct cli_option cli_help_option, cli_version_option;

static inline bool cli_takes_value(const struct cli_option *o)
{
	return o->type != CLI_FLAG;
}

/* Whether the usage line says [OPTIONS]: --help and --version go unsaid. */
static inline bool cli_has_options(const struct cli_command *cmd)
{
	return cmd->options && cmd->options[0].name;
}

/* The commands, for `llmem help`, the man page and the completion. */
extern const struct cli_command *const cli_commands[];

/* The man page llmem(1) in roff, and bash completion, from the tables. */
void cli_write_man(FILE *out, const char *version);
void cli_write_completion(FILE *out);

#endif
