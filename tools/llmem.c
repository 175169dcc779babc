// SPDX-License-Identifier: MIT
/*
 * llmem: the command-line front end.  Each command lives in its own file as
 * a table of options (cli.h); this file lists them, dispatches, and answers
 * `llmem --help`, `llmem help [COMMAND]` and `llmem --version`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

const struct cli_command *const cli_commands[] = {
	&cmd_info,	   &cmd_devices,     &cmd_camera,	  &cmd_encode,
	&cmd_decode,	   &cmd_display,     &cmd_bench_alloc,	  &cmd_bench_kernel,
	&cmd_bench_camera, &cmd_bench_codec, &cmd_bench_transfer, NULL,
};

static bool is_bench(const struct cli_command *cmd)
{
	return !strncmp(cmd->name, "bench ", 6);
}

static void print_list(FILE *out, bool bench)
{
	for (size_t i = 0; cli_commands[i]; i++)
		if (is_bench(cli_commands[i]) == bench)
			fprintf(out, "  %-16s %s\n", cli_commands[i]->name + (bench ? 6 : 0),
				cli_commands[i]->summary);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: llmem COMMAND [OPTIONS] [OPERANDS]\n"
		     "       llmem help [COMMAND]\n"
		     "       llmem --version\n\n"
		     "Device memory shared with cameras, codecs and displays, without copies.\n\n"
		     "commands:\n");
	print_list(out, false);
	fprintf(out, "  %-16s %s\n  %-16s %s\n", "bench NAME", "a benchmark against its peer",
		"help [COMMAND]", "this help, or a command's");
	fprintf(out, "\n`llmem COMMAND --help` lists a command's options; `llmem bench --help`\n"
		     "the benchmarks.\n");
}

static void bench_usage(FILE *out)
{
	fprintf(out, "usage: llmem bench NAME [OPTIONS]\n\n"
		     "Each benchmark measures a path of llmem next to its peer in the same run\n"
		     "and prints their ratio.\n\nbenchmarks:\n");
	print_list(out, true);
}

/* The command named by @words (one word, or "bench" and a name), or NULL. */
static const struct cli_command *find(char **words, int count)
{
	char name[64];

	if (count < 1)
		return NULL;
	snprintf(name, sizeof(name), "%s%s%s", words[0], count > 1 ? " " : "",
		 count > 1 ? words[1] : "");
	for (size_t i = 0; cli_commands[i]; i++)
		if (!strcmp(cli_commands[i]->name, name))
			return cli_commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc == 1) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--man") && argc == 2) {
		cli_write_man(stdout, LLMEM_VERSION);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--bash-completion") && argc == 2) {
		cli_write_completion(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "bench") && argc == 2) {
		bench_usage(stdout);
		return CLI_OK;
	}
	cmd = argc <= 3 ? find(argv + 1, argc - 1) : NULL;
	if (!cmd) {
		fprintf(stderr, "llmem help: no command '%s%s%s' (llmem help lists them)\n",
			argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
		return CLI_USAGE;
	}
	cli_help(cmd, stdout);
	return CLI_OK;
}

static int bench(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		bench_usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		bench_usage(stdout);
		return CLI_OK;
	}
	cmd = find(argv, 2);
	if (!cmd || !is_bench(cmd)) {
		fprintf(stderr, "llmem bench: no benchmark '%s' (llmem bench --help lists them)\n",
			argv[1]);
		return CLI_USAGE;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		cli_version(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bench"))
		return bench(argc - 1, argv + 1);
	cmd = find(argv + 1, 1);
	if (!cmd || is_bench(cmd)) {
		fprintf(stderr, "llmem: no command '%s' (llmem --help lists them)\n", argv[1]);
		return CLI_USAGE;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}
