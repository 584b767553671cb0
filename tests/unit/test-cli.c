/* Unit tests of lib/cli.c, the option parser: each row is a command line,
   the exit status, and the exact standard output and standard error.
   Each row runs in a child process (cli_parse exits on --help, --version
   and usage errors); the child prints what the parse stored, one word per
   option set, and the operands:
     quiet verbose output='X' seed=[A B] exclude=[A B] format=NAME jobs=N
     read-ahead=N count=N hidden ops=[A B]
   The commands (prog, prog run, prog keep, prog ld, prog w) and the two
   programs with subcommands are defined below. */
#define _GNU_SOURCE
#include "cli.h"
#include "unit.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static bool opt_quiet, opt_verbose, opt_hidden, jobs_set, read_ahead_set;
static const char *opt_output;
static struct cli_list opt_seed, opt_exclude;
static int opt_format = -1, count_calls;
static unsigned long opt_jobs, opt_read_ahead;
static const char *const formats[] = { "text", "json", "csv", NULL };

static const char *set_jobs(void *target, const char *value)
{
	jobs_set = true;
	return cli_unsigned(value, target) ? NULL : "is not a number";
}

static const char *set_read_ahead(void *target, const char *value)
{
	read_ahead_set = true;
	return cli_read_ahead_kb(value, target);
}

/* A flag's setter is called with no value each time the flag is given. */
static const char *count_flag(void *target, const char *value)
{
	if (target || value)
		return "was called with a target or a value";
	count_calls++;
	return NULL;
}

static const struct cli_option main_options[] = {
	{ "--quiet", 'q', CLI_FLAG, &opt_quiet, NULL, "say less" },
	{ "--verbose", 'v', CLI_FLAG, &opt_verbose, NULL, "say more" },
	{ "--output", 'o', CLI_STRING, &opt_output, "FILE", "write to FILE" },
	{ "--seed", 's', CLI_LIST, &opt_seed, "SYM", "start from SYM\n(again for more)" },
	{ "--format", 0, CLI_CHOICE, &opt_format, NULL, "output format", formats },
	{ "--jobs", 'j', CLI_CALL, &opt_jobs, "N", "run N jobs", NULL, set_jobs },
	{ "--read-ahead", 0, CLI_CALL, &opt_read_ahead, "KIB", "read-ahead in KiB", NULL, set_read_ahead },
	{ "--exclude", 0, CLI_LIST, &opt_exclude, "PATTERN", "leave out PATTERN" },
	{ "--hidden", 0, CLI_FLAG, &opt_hidden, NULL, NULL },
	{ "--count", 'c', CLI_FLAG, NULL, NULL, "count calls", NULL, count_flag },
	{ NULL },
};

static const struct cli_option quiet_options[] = {
	{ "--quiet", 'q', CLI_FLAG, &opt_quiet, NULL, "say less" },
	{ NULL },
};

static const struct cli_option flag_options[] = {
	{ "--flag", 'f', CLI_FLAG, &opt_quiet, NULL, "flag" },
	{ NULL },
};

static const struct cli_option ld_options[] = {
	{ "--quiet", 'q', CLI_FLAG, &opt_quiet, NULL, "say less" },
	{ "--output", 'o', CLI_STRING, &opt_output, "FILE", "write to FILE" },
	{ NULL },
};

/* deporder's way: ld's options are operands */
static bool ld_option(const char *arg)
{
	return !strncmp(arg, "-l", 2) || !strncmp(arg, "-Wl,", 4);
}

enum { MAIN, RUN, KEEP, LD, WRAP79, WRAP80, DISPATCH, DISPATCH_FALLBACK };

/* Synopses that end at column 79, and that would end at 80: "usage: prog w
   [-f|--flag]" is 25 columns, then a space and the operands. */
#define OPERANDS_53 "INPUT-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX..."
#define OPERANDS_54 "INPUT-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX..."

static const struct cli_command commands[] = {
	[MAIN] = { "prog", "[--] FILE...", NULL, "Reads each FILE.\n", main_options,
		   "Exit status: 0 on success, 2 on wrong usage.\n" },
	[RUN] = { "prog run", "[--] COMMAND [ARG...]", NULL, NULL, quiet_options, NULL, CLI_STOP_AT_OPERAND, NULL,
		  1, "no command given" },
	[KEEP] = { "prog keep", "FILE... [-- ARG...]", NULL, NULL, quiet_options, NULL, CLI_KEEP_SEPARATOR },
	[LD] = { "prog ld", "INPUT...", NULL, NULL, ld_options, NULL, 0, ld_option },
	[WRAP79] = { "prog w", OPERANDS_53, NULL, NULL, flag_options },
	[WRAP80] = { "prog w", OPERANDS_54, NULL, NULL, flag_options },
};

static const struct cli_command status_command = { "prog status", NULL, NULL, NULL, quiet_options };
static const struct cli_command show_command = { "prog show", "[ID]" };
static const struct cli_command fallback_command = { "prog", "WORKLOAD...", NULL, NULL, quiet_options, NULL, 0,
						     NULL, 1, "no workload given" };

static void print_state(const char *lead, char **operands, int count)
{
	size_t i;
	int k;

	printf("%s", lead);
	if (opt_quiet)
		printf("quiet ");
	if (opt_verbose)
		printf("verbose ");
	if (opt_output)
		printf("output='%s' ", opt_output);
	if (opt_seed.count) {
		printf("seed=[");
		for (i = 0; i < opt_seed.count; i++)
			printf("%s%s", i ? " " : "", opt_seed.items[i]);
		printf("] ");
	}
	if (opt_exclude.count) {
		printf("exclude=[");
		for (i = 0; i < opt_exclude.count; i++)
			printf("%s%s", i ? " " : "", opt_exclude.items[i]);
		printf("] ");
	}
	if (opt_format >= 0)
		printf("format=%s ", formats[opt_format]);
	if (jobs_set)
		printf("jobs=%lu ", opt_jobs);
	if (read_ahead_set)
		printf("read-ahead=%lu ", opt_read_ahead);
	if (count_calls)
		printf("count=%d ", count_calls);
	if (opt_hidden)
		printf("hidden ");
	printf("ops=[");
	for (k = 0; k < count; k++)
		printf("%s%s", k ? " " : "", operands[k]);
	printf("]\n");
	if (operands[count])
		printf("the operand list is not NULL-terminated\n");
}

static int parse_and_print(const struct cli_command *cmd, const char *lead, int argc, char **argv)
{
	char **operands;
	int count = cli_parse(cmd, argc, argv, &operands);

	print_state(lead, operands, count);
	free(operands);
	return 0;
}

static int run_status(int argc, char **argv)
{
	return parse_and_print(&status_command, "status: ", argc, argv);
}

static int run_show(int argc, char **argv)
{
	return parse_and_print(&show_command, "show: ", argc, argv);
}

static int run_fallback(int argc, char **argv)
{
	return parse_and_print(&fallback_command, "fallback: ", argc, argv);
}

static const struct cli_subcommand subcommands[] = {
	{ "status", "print the state", &status_command, run_status },
	{ "show", "print an item", &show_command, run_show },
	{ NULL },
};

static const struct cli_subcommand fallback = { "prog", "run workloads", &fallback_command, run_fallback };

static const struct cli_program programs[] = {
	{ "prog", NULL, subcommands, NULL, NULL },
	{ "prog", NULL, subcommands, &fallback, NULL },
};

#define TRY(name) "Try '" name " --help' for more information.\n"

#define MAIN_HELP                                                                        \
	"usage: prog [-q|--quiet] [-v|--verbose] [--output FILE] [--seed SYM]...\n"      \
	"            [--format=text|json|csv] [--jobs N] [--read-ahead KIB]\n"           \
	"            [--exclude PATTERN]... [-c|--count] [--] FILE...\n"                 \
	"\n"                                                                             \
	"Reads each FILE.\n"                                                             \
	"\n"                                                                             \
	"  -q, --quiet           say less\n"                                             \
	"  -v, --verbose         say more\n"                                             \
	"  -o, --output=FILE     write to FILE\n"                                        \
	"  -s, --seed=SYM        start from SYM\n"                                       \
	"                        (again for more)\n"                                     \
	"      --format=text|json|csv\n"                                                 \
	"                        output format\n"                                        \
	"  -j, --jobs=N          run N jobs\n"                                           \
	"      --read-ahead KIB  read-ahead in KiB\n"                                    \
	"      --exclude PATTERN\n"                                                      \
	"                        leave out PATTERN\n"                                    \
	"  -c, --count           count calls\n"                                          \
	"  -h, --help            this text\n"                                            \
	"      --version         the version\n"                                          \
	"\n"                                                                             \
	"Exit status: 0 on success, 2 on wrong usage.\n"

#define QUIET_HELP(name)                             \
	"\n"                                         \
	"  -q, --quiet           say less\n"         \
	"  -h, --help            this text\n"        \
	"      --version         the version\n"

/* a program's --help after its first synopsis line */
#define PROGRAM_HELP_REST                                      \
	"       prog show [ID]\n"                              \
	"\n"                                                   \
	"Commands:\n"                                          \
	"  status         print the state\n"                   \
	"  show           print an item\n"                     \
	"\n"                                                   \
	"'prog COMMAND --help' lists a command's options.\n"

static const struct cli_case {
	int command;
	const char *args[8];
	int status;
	const char *out, *err;
} cases[] = {
	/* flags, short and long, bundled */
	{ MAIN, { NULL }, 0, "ops=[]\n", "" },
	{ MAIN, { "-q" }, 0, "quiet ops=[]\n", "" },
	{ MAIN, { "--quiet", "--verbose" }, 0, "quiet verbose ops=[]\n", "" },
	{ MAIN, { "-qv" }, 0, "quiet verbose ops=[]\n", "" },
	{ MAIN, { "-vq", "a.o" }, 0, "quiet verbose ops=[a.o]\n", "" },
	{ MAIN, { "--hidden" }, 0, "hidden ops=[]\n", "" },
	{ MAIN, { "--count", "-c", "-cc" }, 0, "count=4 ops=[]\n", "" },
	{ MAIN, { "--quiet=yes" }, 2, "", "prog: option '--quiet' takes no value\n" TRY("prog") },
	/* strings: --opt value, --opt=value, -o value, -ovalue */
	{ MAIN, { "--output", "x" }, 0, "output='x' ops=[]\n", "" },
	{ MAIN, { "--output=x" }, 0, "output='x' ops=[]\n", "" },
	{ MAIN, { "-o", "x" }, 0, "output='x' ops=[]\n", "" },
	{ MAIN, { "-ox" }, 0, "output='x' ops=[]\n", "" },
	{ MAIN, { "-qox=y" }, 0, "quiet output='x=y' ops=[]\n", "" },
	{ MAIN, { "--output=" }, 0, "output='' ops=[]\n", "" },
	{ MAIN, { "--output", "a", "-o", "b" }, 0, "output='b' ops=[]\n", "" },
	{ MAIN, { "--output", "--help" }, 0, "output='--help' ops=[]\n", "" },
	{ MAIN, { "--output" }, 2, "", "prog: option '--output' needs a value (FILE)\n" TRY("prog") },
	{ MAIN, { "-o" }, 2, "", "prog: option '-o' needs a value (FILE)\n" TRY("prog") },
	{ MAIN, { "-qo" }, 2, "", "prog: option '-o' needs a value (FILE)\n" TRY("prog") },
	/* lists */
	{ MAIN, { "--seed", "a", "-s", "b", "--seed=c", "-sd" }, 0, "seed=[a b c d] ops=[]\n", "" },
	{ MAIN, { "--exclude", "*.o", "--seed=x", "--exclude=" }, 0, "seed=[x] exclude=[*.o ] ops=[]\n", "" },
	/* choices */
	{ MAIN, { "--format", "json" }, 0, "format=json ops=[]\n", "" },
	{ MAIN, { "--format=csv", "--format=text" }, 0, "format=text ops=[]\n", "" },
	{ MAIN, { "--format=xml" }, 2, "", "prog: --format: 'xml' is not text, json or csv\n" TRY("prog") },
	{ MAIN, { "--format=" }, 2, "", "prog: --format: '' is not text, json or csv\n" TRY("prog") },
	{ MAIN, { "--format" }, 2, "", "prog: option '--format' needs a value (VALUE)\n" TRY("prog") },
	/* numbers, through a setter */
	{ MAIN, { "--jobs", "4" }, 0, "jobs=4 ops=[]\n", "" },
	{ MAIN, { "-qj4" }, 0, "quiet jobs=4 ops=[]\n", "" },
	{ MAIN, { "-jq" }, 2, "", "prog: -j: 'q' is not a number\n" TRY("prog") },
	{ MAIN, { "--jobs=x" }, 2, "", "prog: --jobs: 'x' is not a number\n" TRY("prog") },
	{ MAIN, { "-j", "-1" }, 2, "", "prog: -j: '-1' is not a number\n" TRY("prog") },
	{ MAIN, { "--read-ahead", "0" }, 0, "read-ahead=0 ops=[]\n", "" },
	{ MAIN, { "--read-ahead=1048576" }, 0, "read-ahead=1048576 ops=[]\n", "" },
	{ MAIN, { "--read-ahead", "1048577" }, 2, "",
	  "prog: --read-ahead: '1048577' is not a number of KiB from 0 to 1048576\n" TRY("prog") },
	{ MAIN, { "--read-ahead", "99999999999999999999" }, 2, "",
	  "prog: --read-ahead: '99999999999999999999' is not a number of KiB from 0 to 1048576\n" TRY("prog") },
	/* unknown options: no abbreviations */
	{ MAIN, { "--nope" }, 2, "", "prog: unrecognized option '--nope'\n" TRY("prog") },
	{ MAIN, { "--nope=1" }, 2, "", "prog: unrecognized option '--nope=1'\n" TRY("prog") },
	{ MAIN, { "--qu" }, 2, "", "prog: unrecognized option '--qu'\n" TRY("prog") },
	{ MAIN, { "-x" }, 2, "", "prog: unrecognized option '-x'\n" TRY("prog") },
	{ MAIN, { "-qx" }, 2, "", "prog: unrecognized option '-x'\n" TRY("prog") },
	/* operands, "--", "-" */
	{ MAIN, { "a", "-q", "b" }, 0, "quiet ops=[a b]\n", "" },
	{ MAIN, { "--", "-q" }, 0, "ops=[-q]\n", "" },
	{ MAIN, { "a", "--", "b", "--" }, 0, "ops=[a b --]\n", "" },
	{ MAIN, { "-" }, 0, "ops=[-]\n", "" },
	/* --help, -h, --version */
	{ MAIN, { "--help" }, 0, MAIN_HELP, "" },
	{ MAIN, { "-h" }, 0, MAIN_HELP, "" },
	{ MAIN, { "-q", "--help", "--nope" }, 0, MAIN_HELP, "" },
	{ MAIN, { "--nope", "--help" }, 2, "", "prog: unrecognized option '--nope'\n" TRY("prog") },
	{ MAIN, { "--version" }, 0, "prog (linkopt) 0.1\n", "" },
	/* options end at the first operand; an operand is required */
	{ RUN, { NULL }, 2, "", "prog: run: no command given\n" TRY("prog run") },
	{ RUN, { "-q", "make", "-q", "--nope" }, 0, "quiet ops=[make -q --nope]\n", "" },
	{ RUN, { "--", "make" }, 0, "ops=[make]\n", "" },
	{ RUN, { "--version" }, 0, "prog (linkopt) 0.1\n", "" },
	{ RUN, { "--help" }, 0, "usage: prog run [-q|--quiet] [--] COMMAND [ARG...]\n" QUIET_HELP("prog run"), "" },
	/* "--" kept among the operands */
	{ KEEP, { "a", "--", "-q" }, 0, "ops=[a -- -q]\n", "" },
	{ KEEP, { "-q", "--" }, 0, "quiet ops=[--]\n", "" },
	/* options the table does not know but the command passes on */
	{ LD, { "-lfoo", "-q", "x.o", "-Wl,--gc-sections" }, 0, "quiet ops=[-lfoo x.o -Wl,--gc-sections]\n", "" },
	{ LD, { "-o", "out", "-lm" }, 0, "output='out' ops=[-lm]\n", "" },
	{ LD, { "-x" }, 2, "", "prog: unrecognized option '-x'\n" TRY("prog ld") },
	{ LD, { "-h" }, 0,
	  "usage: prog ld [-q|--quiet] [--output FILE] INPUT...\n\n  -q, --quiet           say less\n"
	  "  -o, --output=FILE     write to FILE\n  -h, --help            this text\n"
	  "      --version         the version\n",
	  "" },
	{ LD, { "-h", "x.o" }, 2, "", "prog: unrecognized option '-h'\n" TRY("prog ld") },
	/* the synopsis wraps at 79 columns */
	{ WRAP79, { "--help" }, 0,
	  "usage: prog w [-f|--flag] " OPERANDS_53 "\n\n  -f, --flag            flag\n"
	  "  -h, --help            this text\n      --version         the version\n",
	  "" },
	{ WRAP80, { "--help" }, 0,
	  "usage: prog w [-f|--flag]\n              " OPERANDS_54 "\n\n  -f, --flag            flag\n"
	  "  -h, --help            this text\n      --version         the version\n",
	  "" },
	/* subcommands */
	{ DISPATCH, { NULL }, 2, "", "prog: no command given\n" TRY("prog") },
	{ DISPATCH, { "bogus" }, 2, "", "prog: unknown command 'bogus'\n" TRY("prog") },
	{ DISPATCH, { "-x" }, 2, "", "prog: unrecognized option '-x'\n" TRY("prog") },
	{ DISPATCH, { "--help" }, 0, "usage: prog status [-q|--quiet]\n" PROGRAM_HELP_REST, "" },
	{ DISPATCH, { "-h" }, 0, "usage: prog status [-q|--quiet]\n" PROGRAM_HELP_REST, "" },
	{ DISPATCH, { "--version" }, 0, "prog (linkopt) 0.1\n", "" },
	{ DISPATCH, { "status", "-q" }, 0, "status: quiet ops=[]\n", "" },
	{ DISPATCH, { "status", "--nope" }, 2, "", "prog: unrecognized option '--nope'\n" TRY("prog status") },
	{ DISPATCH, { "status", "--help" }, 0, "usage: prog status [-q|--quiet]\n" QUIET_HELP("prog status"), "" },
	{ DISPATCH, { "show", "7" }, 0, "show: ops=[7]\n", "" },
	{ DISPATCH, { "show", "-q" }, 2, "", "prog: unrecognized option '-q'\n" TRY("prog show") },
	/* a fallback command, and a subcommand put after options */
	{ DISPATCH_FALLBACK, { "true" }, 0, "fallback: ops=[true]\n", "" },
	{ DISPATCH_FALLBACK, { NULL }, 2, "", "prog: no workload given\n" TRY("prog") },
	{ DISPATCH_FALLBACK, { "status" }, 0, "status: ops=[]\n", "" },
	{ DISPATCH_FALLBACK, { "-q", "status" }, 2, "",
	  "prog: 'status' is a command: put it first (prog status [options])\n" TRY("prog") },
	{ DISPATCH_FALLBACK, { "-q", "--", "status" }, 0, "fallback: quiet ops=[status]\n", "" },
	{ DISPATCH_FALLBACK, { "--help" }, 0,
	  "usage: prog [-q|--quiet] WORKLOAD...\n       prog status [-q|--quiet]\n" PROGRAM_HELP_REST, "" },
};

/* How a failure names a row's command, before its arguments. */
static const char *const command_names[] = {
	[MAIN] = "prog",
	[RUN] = "prog run",
	[KEEP] = "prog keep",
	[LD] = "prog ld",
	[WRAP79] = "prog w (a synopsis of 79 columns)",
	[WRAP80] = "prog w (a synopsis of 80 columns)",
	[DISPATCH] = "prog (with subcommands)",
	[DISPATCH_FALLBACK] = "prog (with subcommands and a fallback)",
};

/* The whole of f, from its start (newly allocated). */
static char *slurp(FILE *f)
{
	char *text = NULL;
	size_t size = 0, n;
	char buffer[4096];

	fflush(f);
	rewind(f);
	text = xstrdup("");
	while ((n = fread(buffer, 1, sizeof(buffer), f)) > 0) {
		text = xrealloc(text, size + n + 1);
		memcpy(text + size, buffer, n);
		size += n;
		text[size] = '\0';
	}
	return text;
}

/* In the child: parse argv as the row says and exit. */
static void child(int command, int argc, char **argv)
{
	progname = "prog";
	if (command == DISPATCH || command == DISPATCH_FALLBACK)
		exit(cli_dispatch(&programs[command - DISPATCH], argc, argv));
	exit(parse_and_print(&commands[command], "", argc, argv));
}

static void run_case(const struct cli_case *c)
{
	char *argv[10] = { "prog" }, *name, *stdout_text, *stderr_text;
	int argc = 1, status, exit_status;
	FILE *out_file = tmpfile(), *err_file = tmpfile();
	pid_t pid;

	name = xstrdup(command_names[c->command]);
	for (argc = 1; c->args[argc - 1]; argc++) {
		char *more = xasprintf("%s %s", name, c->args[argc - 1]);

		free(name);
		name = more;
		argv[argc] = (char *)c->args[argc - 1];
	}
	unit_case(name);
	if (!CHECK(out_file && err_file))
		goto done;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(out_file), 1);
		dup2(fileno(err_file), 2);
		child(c->command, argc, argv);
	}
	if (!CHECK(pid > 0 && waitpid(pid, &status, 0) == pid))
		goto done;
	stdout_text = slurp(out_file);
	stderr_text = slurp(err_file);
	if (CHECK(WIFEXITED(status))) {
		exit_status = WEXITSTATUS(status);
		EXPECT_INT(c->status, exit_status);
	}
	EXPECT_STR(c->out, stdout_text);
	EXPECT_STR(c->err, stderr_text);
	free(stdout_text);
	free(stderr_text);
done:
	if (out_file)
		fclose(out_file);
	if (err_file)
		fclose(err_file);
	free(name);
	unit_case(NULL);
}

/* What cli_parse stores points into argv; the operand list ends with NULL. */
static void test_in_process(void)
{
	char *argv[] = { "prog", "-o", "x", "a", "--seed=s", "b", NULL }, **operands, *text;
	size_t size;
	FILE *f;
	int count;

	unit_case("in process: prog -o x a --seed=s b");
	progname = "prog";
	count = cli_parse(&commands[MAIN], 6, argv, &operands);
	EXPECT_INT(2, count);
	CHECK(operands[0] == argv[3] && operands[1] == argv[5] && operands[2] == NULL);
	CHECK(opt_output == argv[2]);
	CHECK(opt_seed.count == 1 && opt_seed.items[0] == argv[4] + 7);
	free(operands);
	free(opt_seed.items);
	memset(&opt_seed, 0, sizeof(opt_seed));
	opt_output = NULL;

	unit_case("cli_usage writes what --help prints");
	f = open_memstream(&text, &size);
	cli_usage(&commands[MAIN], f);
	fclose(f);
	EXPECT_STR(MAIN_HELP, text);
	free(text);
	unit_case(NULL);
}

static const struct {
	const char *s;
	bool ok;
	unsigned long value;
} unsigned_cases[] = {
	{ "0", true, 0 },
	{ "42", true, 42 },
	{ "007", true, 7 },
	{ "18446744073709551615", true, 18446744073709551615UL },
	{ "18446744073709551616", false, 0 },
	{ "", false, 0 },
	{ "-1", false, 0 },
	{ "+1", false, 0 },
	{ " 1", false, 0 },
	{ "1 ", false, 0 },
	{ "1x", false, 0 },
	{ "0x10", false, 0 },
};

static const struct {
	const char *s;
	bool ok;
	double value;
} number_cases[] = {
	{ "0", true, 0 },
	{ "1.5", true, 1.5 },
	{ "-2", true, -2 },
	{ "1e3", true, 1000 },
	{ "0x10", true, 16 },
	{ " 1", true, 1 }, /* strtod skips leading blanks */
	{ "", false, 0 },
	{ "1.5x", false, 0 },
	{ "inf", false, 0 },
	{ "nan", false, 0 },
	{ "1e999", false, 0 },
};

static const struct {
	const char *s, *why;
	unsigned long kb;
} read_ahead_cases[] = {
	{ "0", NULL, 0 },
	{ "128", NULL, 128 },
	{ "1048576", NULL, 1048576 },
	{ "1048577", "is not a number of KiB from 0 to 1048576", 0 },
	{ "-4", "is not a number of KiB from 0 to 1048576", 0 },
	{ "4k", "is not a number of KiB from 0 to 1048576", 0 },
	{ "", "is not a number of KiB from 0 to 1048576", 0 },
};

static void test_values(void)
{
	size_t i;

	for (i = 0; i < sizeof(unsigned_cases) / sizeof(unsigned_cases[0]); i++) {
		unsigned long value = 12345;
		char *name = xasprintf("cli_unsigned(\"%s\")", unsigned_cases[i].s);

		unit_case(name);
		if (EXPECT_INT(unsigned_cases[i].ok, cli_unsigned(unsigned_cases[i].s, &value)) && unsigned_cases[i].ok)
			CHECK(value == unsigned_cases[i].value);
		free(name);
	}
	for (i = 0; i < sizeof(number_cases) / sizeof(number_cases[0]); i++) {
		double value = 12345;
		char *name = xasprintf("cli_number(\"%s\")", number_cases[i].s);

		unit_case(name);
		if (EXPECT_INT(number_cases[i].ok, cli_number(number_cases[i].s, &value)) && number_cases[i].ok)
			CHECK(value == number_cases[i].value);
		free(name);
	}
	for (i = 0; i < sizeof(read_ahead_cases) / sizeof(read_ahead_cases[0]); i++) {
		unsigned long kb = 12345;
		char *name = xasprintf("cli_read_ahead_kb(\"%s\")", read_ahead_cases[i].s);

		unit_case(name);
		EXPECT_STR(read_ahead_cases[i].why, cli_read_ahead_kb(read_ahead_cases[i].s, &kb));
		if (!read_ahead_cases[i].why)
			EXPECT_INT(read_ahead_cases[i].kb, kb);
		free(name);
	}
	unit_case(NULL);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
	test_in_process();
	test_values();
	return unit_end("test-cli");
}
