/* likely-check: counts, per __builtin_expect site, how often the hint was
   right, from a counting build (likely-check.h) or from a coverage build's
   arc counts. */
#define _GNU_SOURCE
#include "cli.h"
#include "compare.h"
#include "proc.h"
#include "profile.h"
#include "report.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char description[] =
	"Counting mode: build with the flags `likely-check cflags` prints (the header\n"
	"redefines __builtin_expect, no source change) and link with `likely-check\n"
	"ldflags`, or run the program under `likely-check run`, which preloads the\n"
	"runtime.  Each process writes likely-check.PID.SUFFIX at exit.\n"
	"Profile mode: from a --coverage build of the unmodified program, `profile`\n"
	"finds the hint sites of each SOURCE through the preprocessor, the branch\n"
	"on each in gcc's own view (a compile with the build's --cc and --cflags)\n"
	"and its counts in the build's .gcda; it writes a data file.\n"
	"`macros` notes which project macro each site comes from (as profile does),\n"
	"for a report of counting-mode data: hints are also summed per macro.\n"
	"`report` sums any number of data files of either mode; `compare` shows two\n"
	"data files side by side per site (exit 1 when counts differ).\n";

static const char exit_status[] =
	"Exit status: 0 success, 1 a finding (--fail-over) or a failure on input,\n"
	"2 wrong usage.\n";

static const char *set_percent(void *target, const char *value)
{
	double p;

	if (!cli_number(value, &p) || p < 0 || p > 100)
		return "is not a percentage (0 to 100)";
	*(double *)target = p;
	return NULL;
}

/* The folder holding the header and the runtime: beside the program in the
   build tree, ../lib/linkopt once installed. */
static char *support_dir(void)
{
	char exe[PATH_MAX], *dir, *probe;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		fatal("/proc/self/exe: cannot read link: %s", strerror(errno));
	exe[n] = '\0';
	dir = xstrdup(dirname(exe));
	probe = xasprintf("%s/likely-check.h", dir);
	if (access(probe, R_OK) == 0) {
		free(probe);
		return dir;
	}
	free(probe);
	probe = xasprintf("%s/../lib/linkopt", dir);
	free(dir);
	dir = realpath(probe, NULL);
	if (!dir)
		fatal("%s: cannot find the header and runtime: %s", probe, strerror(errno));
	free(probe);
	return dir;
}

static const char *run_dir;

static const struct cli_option run_options[] = {
	{ "--dir", 0, CLI_STRING, &run_dir, "DIR", "where the runtime writes likely-check.PID.SUFFIX (default .);\n"
	  "created when missing" },
	{ 0 }
};

static const struct cli_command run_command = {
	.name = "likely-check run", .operands = "[--] COMMAND [ARG]...", .options = run_options,
	.description = "Runs COMMAND with the counting runtime preloaded; each process of it\n"
		       "writes likely-check.PID.SUFFIX at exit.\n",
	.footer = exit_status, .flags = CLI_STOP_AT_OPERAND, .min_operands = 1, .missing = "no command given",
};

/* mkdir -p: each missing folder of path; false with errno set when one
   cannot be made or a part is no folder. */
static bool make_folders(const char *path)
{
	char *copy = xstrdup(path), *p;
	struct stat st;
	bool ok = true;

	for (p = copy + 1; ok; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		ok = (mkdir(copy, 0777) == 0 || errno == EEXIST) && stat(copy, &st) == 0;
		if (ok && !S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			ok = false;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(copy);
	return ok;
}

static int command_run(int argc, char **argv)
{
	const char *old;
	char *support, *preload, *absdir, **command;

	cli_parse(&run_command, argc, argv, &command);
	support = support_dir();
	old = getenv("LD_PRELOAD");
	preload = old && *old ? xasprintf("%s/liblikely-check.so:%s", support, old)
			      : xasprintf("%s/liblikely-check.so", support);
	if (setenv("LD_PRELOAD", preload, 1) < 0)
		fatal("cannot set LD_PRELOAD: %s", strerror(errno));
	if (run_dir) {
		if (!make_folders(run_dir))
			fatal("%s: cannot use as output folder: %s", run_dir, strerror(errno));
		absdir = realpath(run_dir, NULL);
		if (!absdir)
			fatal("%s: cannot use as output folder: %s", run_dir, strerror(errno));
		if (setenv("LIKELY_CHECK_DIR", absdir, 1) < 0)
			fatal("cannot set LIKELY_CHECK_DIR: %s", strerror(errno));
	}
	execvp(command[0], command);
	fatal("%s: cannot run: %s", command[0], strerror(errno));
}

static struct report_options report_options = { REPORT_TEXT, -1, -1 };
static const char *const report_formats[] = { "text", "json", NULL };

static const struct cli_option report_table[] = {
	{ "--threshold", 0, CLI_CALL, &report_options.threshold, "P", "mark sites wrong more than P percent of the time",
	  .set = set_percent },
	{ "--fail-over", 0, CLI_CALL, &report_options.fail_over, "P", "exit 1 when a site is wrong more than P percent",
	  .set = set_percent },
	{ "--format", 0, CLI_CHOICE, &report_options.format, "F", "text (default) or json", report_formats },
	{ 0 }
};

static const struct cli_command report_command = {
	.name = "likely-check report", .operands = "FILE...", .options = report_table,
	.description = "Sums the data files (of either mode) per hint site and prints how often\n"
		       "each hint was right.\n",
	.footer = exit_status, .min_operands = 1, .missing = "no data file given",
};

static int command_report(int argc, char **argv)
{
	struct site_table table = { 0 };
	char **files;
	int i, count, status = EXIT_OK;
	size_t failing;

	count = cli_parse(&report_command, argc, argv, &files);
	for (i = 0; i < count; i++)
		if (site_table_read(&table, files[i]) < 0)
			status = EXIT_INPUT;
	if (report_options.fail_over >= 0 && report_options.threshold < 0)
		report_options.threshold = report_options.fail_over;
	if (table.files_read == 0)
		return EXIT_INPUT;
	site_table_attach_macros(&table);
	failing = report_print(&table, &report_options);
	stdout_close_or_die();
	if (failing) {
		error("%zu hint site%s wrong more than %g%% of the time", failing,
		      failing == 1 ? "" : "s", report_options.fail_over);
		status = EXIT_INPUT;
	}
	return status;
}

static struct profile_options profile_options = { "gcc", "", NULL, false };
static const char *profile_out;

static const struct cli_option profile_table[] = {
	{ "--cc", 0, CLI_STRING, &profile_options.cc, "CC", "the compiler of the coverage build (default gcc)" },
	{ "--cflags", 0, CLI_STRING, &profile_options.cflags, "FLAGS", "its flags (-I, -D, -O, -f...), split at blanks" },
	{ "--objdir", 0, CLI_STRING, &profile_options.objdir, "DIR", "where the .gcda files are (as gcov -o)" },
	{ "--output", 'o', CLI_STRING, &profile_out, "FILE", "write to FILE (replaced only when complete)" },
	{ "--out", 0, CLI_STRING, &profile_out, "FILE", NULL }, /* the old spelling */
	{ 0 }
};

/* macros takes profile's options but --objdir. */
static const struct cli_option macros_table[] = {
	{ "--cc", 0, CLI_STRING, &profile_options.cc, "CC", "the compiler (default gcc)" },
	{ "--cflags", 0, CLI_STRING, &profile_options.cflags, "FLAGS", "its preprocessor flags (-I, -D), split at blanks" },
	{ "--output", 'o', CLI_STRING, &profile_out, "FILE", "write to FILE (replaced only when complete)" },
	{ "--out", 0, CLI_STRING, &profile_out, "FILE", NULL }, /* the old spelling */
	{ 0 }
};

static const struct cli_command profile_command = {
	.name = "likely-check profile", .operands = "SOURCE...", .options = profile_table,
	.description = "From a --coverage build of the unmodified program, finds the hint sites\n"
		       "of each SOURCE through the preprocessor, the branch on each in gcc's own\n"
		       "view (a compile with --cc and --cflags) and its counts in the build's\n"
		       ".gcda; writes a data file.\n",
	.footer = exit_status, .min_operands = 1, .missing = "no source file given",
};

static const struct cli_command macros_command = {
	.name = "likely-check macros", .operands = "SOURCE...", .options = macros_table,
	.description = "Notes which project macro each hint site of SOURCE comes from, for a\n"
		       "report of counting-mode data (hints are also summed per macro).\n",
	.footer = exit_status, .min_operands = 1, .missing = "no source file given",
};

/* True after saying so when sources[i] is a file named before it: its
   sites would be counted twice. */
static bool given_before(char **sources, int i)
{
	struct stat st, earlier;
	int j;

	if (stat(sources[i], &st) < 0)
		return false;
	for (j = 0; j < i; j++)
		if (stat(sources[j], &earlier) == 0 && earlier.st_dev == st.st_dev &&
		    earlier.st_ino == st.st_ino) {
			error("%s: given twice (it is %s): its sites would be counted twice", sources[i],
			      sources[j]);
			return true;
		}
	return false;
}

/* Whether cc is clang: it says so first thing in its --version. */
static bool is_clang(const char *cc)
{
	char *argv[] = { (char *)cc, "--version", NULL };
	char *out = proc_capture(argv, NULL);
	bool clang = out && strstr(out, "clang");

	free(out);
	return clang;
}

static int command_profile_or_macros(int argc, char **argv, bool macros_only)
{
	struct site_table table = { 0 };
	char **sources;
	int i, count, status = EXIT_OK;

	count = cli_parse(macros_only ? &macros_command : &profile_command, argc, argv, &sources);
	profile_options.macros_only = macros_only;
	table.profile = !macros_only;
	/* The branch of each hint comes from gcc's dumps of the code its
	   coverage pass instruments (-fdump-tree-gimple-lineno,
	   -fdump-ipa-profile-details-blocks-lineno): clang writes none. */
	if (!macros_only && is_clang(profile_options.cc)) {
		error("profile: %s is clang, and profile mode reads gcc's dumps of the branches its coverage pass "
		      "instruments (-fdump-tree-gimple-lineno, -fdump-ipa-profile), which clang has no counterpart "
		      "of: count a clang build in counting mode (likely-check cflags and ldflags, or likely-check "
		      "run), which gives the same numbers", profile_options.cc);
		return EXIT_INPUT;
	}
	for (i = 0; i < count; i++)
		if (given_before(sources, i) || profile_source(&table, sources[i], &profile_options) < 0)
			status = EXIT_INPUT;
	if (status) {
		/* a partial table would read as sites that never ran */
		error("%s: not written: a source failed, and the table would be partial",
		      profile_out ? profile_out : "standard output");
		return status;
	}
	for (i = 0; profile_out && i < count; i++)
		output_input(sources[i]);
	if (profile_out && !stdout_to_temporary(profile_out))
		fatal("%s: cannot create a temporary file: %s", profile_out, strerror(errno));
	site_table_write(&table, stdout);
	if (profile_out && stdout_commit() < 0)
		fatal("%s: write failed: %s", profile_out, strerror(errno));
	stdout_close_or_die();
	return status;
}

static int command_profile(int argc, char **argv)
{
	return command_profile_or_macros(argc, argv, false);
}

static int command_macros(int argc, char **argv)
{
	return command_profile_or_macros(argc, argv, true);
}

static const struct cli_command compare_command = {
	.name = "likely-check compare", .operands = "LEFT RIGHT | LEFT... -- RIGHT...",
	.description = "Shows two data files (or two sets of them) side by side per site.\n",
	.footer = "Exit status: 0 the counts agree, 1 they differ or an input failed,\n2 wrong usage.\n",
	.flags = CLI_KEEP_SEPARATOR,
};

/* compare LEFT RIGHT, or compare LEFT... -- RIGHT... */
static int command_compare(int argc, char **argv)
{
	struct site_table left = { 0 }, right = { 0 };
	char **files;
	int i, count, split = -1, status = EXIT_OK;
	size_t differ;

	count = cli_parse(&compare_command, argc, argv, &files);
	for (i = 0; i < count && split < 0; i++)
		if (strcmp(files[i], "--") == 0)
			split = i;
	if (split < 0 && count != 2)
		cli_usage_error("compare: needs two data files, or LEFT... -- RIGHT...");
	if (split == 0 || split == count - 1)
		cli_usage_error("compare: a side has no data file");
	if (split < 0)
		split = 1;
	for (i = 0; i < count; i++) {
		if (i == split && strcmp(files[i], "--") == 0)
			continue;
		if (site_table_read(i < split ? &left : &right, files[i]) < 0)
			status = EXIT_INPUT;
	}
	if (status != EXIT_OK)
		return status;
	differ = compare_print(&left, &right);
	stdout_close_or_die();
	return differ ? EXIT_INPUT : EXIT_OK;
}

static const struct cli_command cflags_command = {
	.name = "likely-check cflags",
	.description = "Prints the compiler flags of a counting build.\n",
	.footer = exit_status,
};

static const struct cli_command ldflags_command = {
	.name = "likely-check ldflags",
	.description = "Prints the linker flags of a counting build.\n",
	.footer = exit_status,
};

static int print_flags(int argc, char **argv, bool compile)
{
	char **extra, *dir;

	if (cli_parse(compile ? &cflags_command : &ldflags_command, argc, argv, &extra) > 0)
		cli_usage_error("too many arguments");
	dir = support_dir();
	if (compile)
		printf("-include %s/likely-check.h\n", dir);
	else
		printf("-L%s -Wl,-rpath,%s -Wl,--push-state,--no-as-needed -llikely-check "
		       "-Wl,--pop-state\n", dir, dir);
	stdout_close_or_die();
	return EXIT_OK;
}

static int command_cflags(int argc, char **argv)
{
	return print_flags(argc, argv, true);
}

static int command_ldflags(int argc, char **argv)
{
	return print_flags(argc, argv, false);
}

static const struct cli_subcommand commands[] = {
	{ "cflags", "compiler flags of a counting build", &cflags_command, command_cflags },
	{ "ldflags", "linker flags of a counting build", &ldflags_command, command_ldflags },
	{ "run", "run a program with the counting runtime preloaded", &run_command, command_run },
	{ "report", "how often each hint was right, from data files", &report_command, command_report },
	{ "compare", "two data files side by side per site", &compare_command, command_compare },
	{ "profile", "a data file from a coverage build's counts", &profile_command, command_profile },
	{ "macros", "which project macro each hint site comes from", &macros_command, command_macros },
	{ 0 }
};

static const struct cli_program program = {
	.name = "likely-check", .description = description, .commands = commands, .footer = exit_status,
};

int main(int argc, char **argv)
{
	progname = "likely-check";
	return cli_dispatch(&program, argc, argv);
}
