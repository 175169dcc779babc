// SPDX-License-Identifier: MIT
/*
 * llmem: the command-line front end.  Each command lives in its own file as
 * a table of options (cli.h); this file lists them, dispatches, and answers
 * `llmem --help`, `llmem help [COMMAND]` and `llmem --version`, and makes
 * sure that what a command printed reached standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"

const struct cli_command *const cli_commands[] = {
	&cmd_info,
	&cmd_devices,
	&cmd_camera,
	&cmd_encode,
	&cmd_decode,
	&cmd_display,
	&cmd_pipewire,
	&cmd_negotiate,
	/* `llmem bench NAME`, listed apart by `llmem bench --help`. */
	&cmd_bench_alloc,
	&cmd_bench_kernel,
	&cmd_bench_camera,
	&cmd_bench_codec,
#ifdef LLMEM_TOOL_CONVERT
	&cmd_bench_convert,
#endif
	&cmd_bench_gst,
	&cmd_bench_transfer,
#ifdef LLMEM_TOOL_RDMA
	&cmd_bench_rdma,
#endif
	NULL,
};

static bool is_bench(const struct cli_command *cmd)
{
	return !strncmp(cmd->name, "bench ", 6);
}

#define LIST_COLUMN 19
#define LIST_LINE 80

/* "  NAME  summary", the summary wrapped at LIST_LINE under itself. */
static void print_entry(FILE *out, const char *name, const char *summary)
{
	int col = fprintf(out, "  %-*s", LIST_COLUMN - 3, name);

	while (*summary) {
		int len = (int)strcspn(summary, " ");

		if (col > LIST_COLUMN && col + 1 + len > LIST_LINE)
			col = fprintf(out, "\n%*s", LIST_COLUMN - 1, "") - 1;
		col += fprintf(out, " %.*s", len, summary);
		summary += len;
		summary += strspn(summary, " ");
	}
	fputc('\n', out);
}

static void print_list(FILE *out, bool bench)
{
	for (size_t i = 0; cli_commands[i]; i++)
		if (is_bench(cli_commands[i]) == bench)
			print_entry(out, cli_commands[i]->name + (bench ? 6 : 0),
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
	print_entry(out, "bench NAME", "a benchmark against its peer");
	print_entry(out, "help [COMMAND]", "this help, or a command's");
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

	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "help"))) {
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

static int bench(int argc, char **argv, const char **name)
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
	*name = cmd->name;
	return cmd->run(cmd, argc - 1, argv + 1);
}

/* The command line's work; @name is set to the command that ran, if one did. */
static int dispatch(int argc, char **argv, const char **name)
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
	if (!strcmp(argv[1], "help")) {
		*name = "help";
		return help(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "bench")) {
		*name = "bench";
		return bench(argc - 1, argv + 1, name);
	}
	cmd = find(argv + 1, 1);
	if (!cmd || is_bench(cmd)) {
		fprintf(stderr, "llmem: no command '%s' (llmem --help lists them)\n", argv[1]);
		return CLI_USAGE;
	}
	*name = cmd->name;
	return cmd->run(cmd, argc - 1, argv + 1);
}

/*
 * A closed standard stream gets a descriptor that refuses writes with
 * EBADF, as the closed one did: otherwise the first file a command opens
 * (a device, a frame) would take its number and receive the output.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0 && null != fd) {
				dup2(null, fd);
				close(null);
			}
		}
}

/*
 * Output that never arrived (a full disk, a closed pipe or descriptor) is
 * a failure: the buffer is flushed and closed here, and any error on the
 * way fails the command, whatever it returned.
 */
static int close_stdout(const char *name, int status)
{
	bool failed = ferror(stdout);
	int err = 0;

	errno = 0;
	if (fflush(stdout))
		failed = true;
	err = errno;
	if (fclose(stdout)) {
		failed = true;
		err = err ? err : errno;
	}
	if (!failed)
		return status;
	fprintf(stderr, "llmem%s%s: writing standard output: %s\n", name ? " " : "",
		name ? name : "", err ? strerror(err) : "an earlier write failed");
	return status ? status : CLI_FAILED;
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int status;

	hold_std_fds();
	status = dispatch(argc, argv, &name);
	return close_stdout(name, status);
}
