/* likely-check: counts, per __builtin_expect site, how often the hint was
   right, from a counting build (likely-check.h) or from gcov's branch counts. */
#define _GNU_SOURCE
#include "compare.h"
#include "profile.h"
#include "report.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: likely-check cflags | ldflags\n"
	"       likely-check run [--dir DIR] -- COMMAND [ARG]...\n"
	"       likely-check report [--threshold=P] [--fail-over=P] [--format=text|json]\n"
	"                           FILE...\n"
	"       likely-check compare LEFT RIGHT | LEFT... -- RIGHT...\n"
	"       likely-check profile [--cc CC] [--cflags FLAGS] [--objdir DIR]\n"
	"                            [--out FILE] SOURCE...\n"
	"       likely-check macros [--cc CC] [--cflags FLAGS] [--out FILE] SOURCE...\n"
	"\n"
	"Counting mode: build with the flags `likely-check cflags` prints (the header\n"
	"redefines __builtin_expect, no source change) and link with `likely-check\n"
	"ldflags`, or run the program under `likely-check run`, which preloads the\n"
	"runtime.  Each process writes likely-check.PID at exit.\n"
	"Profile mode: from a --coverage build of the unmodified program, `profile`\n"
	"finds the hint sites of each SOURCE through the preprocessor and takes\n"
	"their counts from gcov's branch counts; it writes a data file.\n"
	"`macros` notes which project macro each site comes from (as profile does),\n"
	"for a report of counting-mode data: hints are also summed per macro.\n"
	"`report` sums any number of data files of either mode; `compare` shows two\n"
	"data files side by side per site (exit 1 when counts differ).\n"
	"\n"
	"  --dir DIR          where the runtime writes likely-check.PID (default .)\n"
	"  --threshold=P      mark sites wrong more than P percent of the time\n"
	"  --fail-over=P      exit 1 when a site is wrong more than P percent\n"
	"  --format=F         text (default) or json\n"
	"  --cc CC            the compiler of the coverage build (default gcc)\n"
	"  --cflags FLAGS     its preprocessor flags (-I, -D), split at blanks\n"
	"  --objdir DIR       where the .gcno and .gcda files are (gcov -o)\n"
	"  --out FILE         write to FILE (replaced only when complete)\n"
	"  --help, --version\n"
	"\n"
	"Exit status: 0 success, 1 a finding (--fail-over) or a failure on input,\n"
	"2 wrong usage.\n";

static double parse_percent(const char *value)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(value, &end);
	if (end == value || *end != '\0' || errno || p < 0 || p > 100)
		usage_error("invalid percentage '%s'", value);
	return p;
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

static int command_run(int argc, char **argv)
{
	const char *dir = NULL, *v, *old;
	char *support, *preload, *absdir;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if ((v = option_value(argv, argc, &i, "--dir")))
			dir = v;
		else if (argv[i][0] == '-')
			usage_error("unknown option '%s'", argv[i]);
		else
			break;
	}
	if (i >= argc)
		usage_error("%s", "run: no command given");
	support = support_dir();
	old = getenv("LD_PRELOAD");
	preload = old && *old ? xasprintf("%s/liblikely-check.so:%s", support, old)
			      : xasprintf("%s/liblikely-check.so", support);
	if (setenv("LD_PRELOAD", preload, 1) < 0)
		fatal("cannot set LD_PRELOAD: %s", strerror(errno));
	if (dir) {
		absdir = realpath(dir, NULL);
		if (!absdir)
			fatal("%s: cannot use as output folder: %s", dir, strerror(errno));
		if (setenv("LIKELY_CHECK_DIR", absdir, 1) < 0)
			fatal("cannot set LIKELY_CHECK_DIR: %s", strerror(errno));
	}
	execvp(argv[i], argv + i);
	fatal("%s: cannot run: %s", argv[i], strerror(errno));
}

static int command_report(int argc, char **argv)
{
	struct report_options options = { REPORT_TEXT, -1, -1 };
	struct site_table table = { 0 };
	const char *v;
	int i, status = EXIT_OK, files = 0;
	size_t failing;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if ((v = option_value(argv, argc, &i, "--threshold")))
			options.threshold = parse_percent(v);
		else if ((v = option_value(argv, argc, &i, "--fail-over")))
			options.fail_over = parse_percent(v);
		else if ((v = option_value(argv, argc, &i, "--format"))) {
			if (strcmp(v, "text") == 0)
				options.format = REPORT_TEXT;
			else if (strcmp(v, "json") == 0)
				options.format = REPORT_JSON;
			else
				usage_error("unknown format '%s' (text or json)", v);
		} else if (argv[i][0] == '-' && argv[i][1] != '\0')
			usage_error("unknown option '%s'", argv[i]);
		else
			break;
	}
	for (; i < argc; i++, files++)
		if (site_table_read(&table, argv[i]) < 0)
			status = EXIT_INPUT;
	if (files == 0)
		usage_error("%s", "report: no data file given");
	if (options.fail_over >= 0 && options.threshold < 0)
		options.threshold = options.fail_over;
	if (table.files_read == 0)
		return EXIT_INPUT;
	site_table_attach_macros(&table);
	failing = report_print(&table, &options);
	stdout_close_or_die();
	if (failing) {
		error("%zu hint site%s wrong more than %g%% of the time", failing,
		      failing == 1 ? "" : "s", options.fail_over);
		status = EXIT_INPUT;
	}
	return status;
}

static int command_profile(int argc, char **argv, bool macros_only)
{
	struct profile_options options = { "gcc", "", NULL, macros_only };
	struct site_table table = { 0 };
	const char *v, *out = NULL;
	int i, status = EXIT_OK, sources = 0;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if ((v = option_value(argv, argc, &i, "--cc")))
			options.cc = v;
		else if ((v = option_value(argv, argc, &i, "--cflags")))
			options.cflags = v;
		else if ((v = option_value(argv, argc, &i, "--objdir")))
			options.objdir = v;
		else if ((v = option_value(argv, argc, &i, "--out")))
			out = v;
		else if (argv[i][0] == '-')
			usage_error("unknown option '%s'", argv[i]);
		else
			break;
	}
	table.profile = !macros_only;
	for (; i < argc; i++, sources++)
		if (profile_source(&table, argv[i], &options) < 0)
			status = EXIT_INPUT;
	if (sources == 0)
		usage_error("%s", macros_only ? "macros: no source file given"
					      : "profile: no source file given");
	if (out && status) {
		error("%s: not written: a source failed, and the table would be partial", out);
		return status;
	}
	if (out && !stdout_to_temporary(out))
		fatal("%s: cannot create a temporary file: %s", out, strerror(errno));
	site_table_write(&table, stdout);
	if (out && stdout_commit(out) < 0)
		fatal("%s: write failed: %s", out, strerror(errno));
	stdout_close_or_die();
	return status;
}

/* compare LEFT RIGHT, or compare LEFT... -- RIGHT... */
static int command_compare(int argc, char **argv)
{
	struct site_table left = { 0 }, right = { 0 };
	int i, split = 0, status = EXIT_OK;
	size_t differ;

	for (i = 1; i < argc && !split; i++)
		if (strcmp(argv[i], "--") == 0)
			split = i;
	if (!split && argc != 3)
		usage_error("%s", "compare: needs two data files, or LEFT... -- RIGHT...");
	if (split == 1 || split == argc - 1)
		usage_error("%s", "compare: a side has no data file");
	if (!split)
		split = 2;
	for (i = 1; i < argc; i++) {
		if (i == split && strcmp(argv[i], "--") == 0)
			continue;
		if (site_table_read(i < split ? &left : &right, argv[i]) < 0)
			status = EXIT_INPUT;
	}
	if (status != EXIT_OK)
		return status;
	differ = compare_print(&left, &right);
	stdout_close_or_die();
	return differ ? EXIT_INPUT : EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *command;
	char *dir;

	progname = "likely-check";
	if (argc < 2)
		usage_error("%s", "no command given");
	command = argv[1];
	if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
		fputs(usage_text, stdout);
		stdout_close_or_die();
		return EXIT_OK;
	}
	if (strcmp(command, "--version") == 0) {
		printf("likely-check (linkopt) %s\n", LINKOPT_VERSION);
		stdout_close_or_die();
		return EXIT_OK;
	}
	if (strcmp(command, "cflags") == 0 || strcmp(command, "ldflags") == 0) {
		if (argc > 2)
			usage_error("%s", "too many arguments");
		dir = support_dir();
		if (command[0] == 'c')
			printf("-include %s/likely-check.h\n", dir);
		else
			printf("-L%s -Wl,-rpath,%s -Wl,--push-state,--no-as-needed -llikely-check "
			       "-Wl,--pop-state\n", dir, dir);
		stdout_close_or_die();
		return EXIT_OK;
	}
	if (strcmp(command, "run") == 0)
		return command_run(argc - 1, argv + 1);
	if (strcmp(command, "report") == 0)
		return command_report(argc - 1, argv + 1);
	if (strcmp(command, "compare") == 0)
		return command_compare(argc - 1, argv + 1);
	if (strcmp(command, "profile") == 0)
		return command_profile(argc - 1, argv + 1, false);
	if (strcmp(command, "macros") == 0)
		return command_profile(argc - 1, argv + 1, true);
	usage_error("unknown command '%s'", command);
	return EXIT_USAGE;
}
