/* pagein: runs a command under valgrind with the pagein tool, after
   checking what can be checked before the run (the options, the command,
   the folder of the trace); `pagein report` is pagein-report. */
#define _GNU_SOURCE
#include "cli.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const yes_no[] = { "yes", "no", NULL };
static const char *const granularities[] = { "page", "function", NULL };

static const char *out_file;
static const char *objects;
static const char *page_size;
static int code = -1, data = -1, granularity = -1, trace_children = -1, demangle = -1;
static bool verbose;

static const char *set_page_size(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n < 256 || n > (1ul << 30) || (n & (n - 1)))
		return "is not a power of two from 256 to 1073741824";
	*(const char **)target = value;
	return NULL;
}

static const struct cli_option options[] = {
	{ "--out-file", 0, CLI_STRING, &out_file, "FILE", "the trace file (default pagein.%p; %p: the pid)" },
	{ "--code", 0, CLI_CHOICE, &code, 0, "record code pages (default yes)", yes_no },
	{ "--data", 0, CLI_CHOICE, &data, 0, "record data pages (default yes)", yes_no },
	{ "--page-size", 0, CLI_CALL, &page_size, "N", "the page size in bytes (default 4096)", .set = set_page_size },
	{ "--objects", 0, CLI_STRING, &objects, "GLOB", "record only objects whose path matches GLOB" },
	{ "--granularity", 0, CLI_CHOICE, &granularity, 0,
	  "page (default), or function: also the first execution of\n"
	  "every function (F) and first use of every data object (O)", granularities },
	{ "--trace-children", 0, CLI_CHOICE, &trace_children, 0, "follow exec (default no)", yes_no },
	{ "--demangle", 0, CLI_CHOICE, &demangle, 0, "demangle C++ symbols (default no)", yes_no },
	{ "--verbose", 'v', CLI_FLAG, &verbose, 0, "valgrind's own messages too" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "pagein",
	.operands = "[--] COMMAND [ARG]...",
	.also = "report [--format=text|json] [--timeline] FILE [FILE]",
	.description =
		"Runs COMMAND under valgrind with the pagein tool and writes, to pagein.PID\n"
		"(--out-file; %p is the pid), the first touch of every code and data page and,\n"
		"with --granularity=function, the first execution of every function, in order.\n"
		"Time is counted in guest instructions.  `pagein report` reads the traces\n"
		"(pagein-report).  See pagein(1).\n",
	.options = options,
	.footer = "Exit status: COMMAND's own; 1 when pagein cannot run it; 2 wrong usage.\n",
	.flags = CLI_STOP_AT_OPERAND,
	.min_operands = 1,
	.missing = "no command to run",
};

/* The folder of this program: the build tree, or BINDIR once installed. */
static char *own_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		fatal("/proc/self/exe: cannot read link: %s", strerror(errno));
	exe[n] = '\0';
	return xstrdup(dirname(exe));
}

static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *candidate = xasprintf("%s/%s", *dir ? dir : ".", name);

		found = access(candidate, X_OK) == 0;
		free(candidate);
	}
	free(copy);
	return found;
}

/* The run cannot be useful when the command or the trace's folder is
   missing: say so before valgrind starts. */
static void check_before_run(const char *program)
{
	if (strchr(program, '/') ? access(program, F_OK) != 0 : !on_path(program))
		fatal("%s: cannot run: %s", program, strchr(program, '/') ? strerror(errno) : "command not found");
	if (out_file) {
		char *copy = xstrdup(out_file), *dir = dirname(copy);
		struct stat st;

		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			fatal("%s: cannot create trace file: folder %s does not exist", out_file, dir);
		if (access(dir, W_OK) != 0)
			fatal("%s: cannot create trace file: folder %s is not writable", out_file, dir);
		free(copy);
	} else if (access(".", W_OK) != 0) {
		fatal("pagein.PID: cannot create trace file: the current folder is not writable (use --out-file)");
	}
}

int main(int argc, char **argv)
{
	char **operands, *here, *tool, **vg_argv;
	size_t n = 0;
	int count, k;

	progname = "pagein";
	here = own_dir();
	if (argc > 1 && !strcmp(argv[1], "report")) {
		char *report = xasprintf("%s/pagein-report", here);

		argv[1] = report;
		execv(report, argv + 1);
		fatal("%s: cannot run: %s", report, strerror(errno));
	}
	count = cli_parse(&command, argc, argv, &operands);
	tool = xasprintf("%s/vglib/pagein-amd64-linux", here);
	if (access(tool, X_OK) == 0) {
		char *lib = xasprintf("%s/vglib", here);

		if (setenv("VALGRIND_LIB", lib, 1) < 0)
			fatal("cannot set VALGRIND_LIB: %s", strerror(errno));
	}
	if (!on_path("valgrind"))
		fatal("valgrind: cannot run: not installed (apt-get install valgrind)");
	check_before_run(operands[0]);

	vg_argv = xcalloc(count + 16, sizeof(char *));
	vg_argv[n++] = "valgrind";
	vg_argv[n++] = "--tool=pagein";
	if (!verbose)
		vg_argv[n++] = "-q";
	vg_argv[n++] = xasprintf("--demangle=%s", demangle == 0 ? "yes" : "no");
	if (out_file)
		vg_argv[n++] = xasprintf("--out-file=%s", out_file);
	if (code >= 0)
		vg_argv[n++] = xasprintf("--code=%s", yes_no[code]);
	if (data >= 0)
		vg_argv[n++] = xasprintf("--data=%s", yes_no[data]);
	if (page_size)
		vg_argv[n++] = xasprintf("--page-size=%s", page_size);
	if (objects)
		vg_argv[n++] = xasprintf("--objects=%s", objects);
	if (granularity >= 0)
		vg_argv[n++] = xasprintf("--granularity=%s", granularities[granularity]);
	if (trace_children >= 0)
		vg_argv[n++] = xasprintf("--trace-children=%s", yes_no[trace_children]);
	if (verbose)
		vg_argv[n++] = "-v";
	for (k = 0; k < count; k++)
		vg_argv[n++] = operands[k];
	vg_argv[n] = NULL;
	fflush(stderr);
	execvp(vg_argv[0], vg_argv);
	fatal("valgrind: cannot run: %s", strerror(errno));
}
