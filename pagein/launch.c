/* pagein: runs a command under valgrind with the pagein tool, after
   checking what can be checked before the run (the options, the command,
   the folder of the trace); `pagein report` is pagein-report. */
#define _GNU_SOURCE
#include "cli.h"
#include "proc.h"
#include "progress.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum yes_no { YES, NO };
static const char *const yes_no[] = { [YES] = "yes", [NO] = "no", NULL };
static const char *const granularities[] = { "page", "function", NULL };

static const char *out_file;
static const char *objects;
static const char *page_size;
/* each an enum yes_no (granularity: an index of granularities), or -1 when
   not given: the tool's own default */
static int code = -1, data = -1, granularity = -1, trace_children = -1, demangle = -1, branches = -1;
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
	{ "--output", 'o', CLI_STRING, &out_file, "FILE", "the trace file (default pagein.%p; %p: the pid)" },
	{ "--out-file", 0, CLI_STRING, &out_file, "FILE", NULL }, /* the tool's own spelling */
	{ "--code", 0, CLI_CHOICE, &code, 0, "record code pages (default yes)", yes_no },
	{ "--data", 0, CLI_CHOICE, &data, 0, "record data pages (default yes)", yes_no },
	{ "--page-size", 0, CLI_CALL, &page_size, "N", "the page size in bytes (default 4096)", .set = set_page_size },
	{ "--objects", 0, CLI_STRING, &objects, "GLOB", "record only objects whose path matches GLOB" },
	{ "--granularity", 0, CLI_CHOICE, &granularity, 0,
	  "page (default), or function: also the first execution of\n"
	  "every function (F) and first use of every data object (O)", granularities },
	{ "--branches", 0, CLI_CHOICE, &branches, 0,
	  "also count every taken branch and every run of code between\n"
	  "two (B and R lines): a block-level profile for linkopt-bolt\n"
	  "(default no)", yes_no },
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
		"(--output; %p is the pid), the first touch of every code and data page and,\n"
		"with --granularity=function, the first execution of every function, in order.\n"
		"Time is counted in guest instructions.  `pagein report` reads the traces\n"
		"(pagein-report).  See pagein(1).\n",
	.options = options,
	.footer = "Exit status: COMMAND's own when its complete trace was written; when none\n"
		  "was (pagein cannot run COMMAND, a write failed, COMMAND exec'd without\n"
		  "--trace-children=yes), COMMAND's status if that is not 0, else 1: 0 always\n"
		  "means a complete trace.  2 wrong usage.\n",
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
	char *path = proc_which(name);
	bool found = path != NULL;

	free(path);
	return found;
}

/* The run cannot be useful when the command or the trace's folder is
   missing: say so before valgrind starts. */
static void check_before_run(const char *program)
{
	if (strchr(program, '/') ? access(program, F_OK) != 0 : !on_path(program))
		fatal("%s: cannot run: %s", program, strchr(program, '/') ? strerror(errno) : "command not found");
	if (out_file) {
		char *copy = xstrdup(out_file), *dir = dirname(copy), *found = proc_which(program);
		struct stat st;

		/* the trace never replaces the program it runs (lib/output.h) */
		if (found)
			output_input(found);
		free(found);
		if (!strchr(out_file, '%'))
			output_refuse_input(out_file);

		if (stat(out_file, &st) == 0 && S_ISDIR(st.st_mode))
			fatal("%s: cannot create trace file: it is a folder (name a file in it)", out_file);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
			fatal("%s: cannot create trace file: folder %s does not exist", out_file, dir);
		if (access(dir, W_OK) != 0)
			fatal("%s: cannot create trace file: folder %s is not writable", out_file, dir);
		free(copy);
	} else if (access(".", W_OK) != 0) {
		fatal("pagein.PID: cannot create trace file: the current folder is not writable (use --output)");
	}
}

/* The interpreter of program when it is a script: its #! line without
   the #! (a new string); NULL otherwise. */
static char *script_interpreter(const char *program)
{
	char *path = proc_which(program), line[256], *interpreter = NULL;
	FILE *f = path ? fopen(path, "r") : NULL;

	if (f && fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2)) {
		line[strcspn(line, "\n")] = '\0';
		interpreter = xstrdup(line + 2 + strspn(line + 2, " \t"));
	}
	if (f)
		fclose(f);
	free(path);
	return interpreter;
}

/* The file valgrind makes of pattern (--out-file: %p the pid, %q{VAR} an
   environment variable, %% a %) for process pid, absolute as the tool
   makes it from where it starts; NULL for any other % sequence. */
static char *expand_trace_path(const char *pattern, long pid)
{
	char *here = *pattern == '/' ? NULL : getcwd(NULL, 0);
	char *path = here ? xasprintf("%s/", here) : xstrdup(""), *piece, *next, *name;
	const char *p, *close;

	free(here);
	for (p = pattern; *p; p++) {
		if (*p != '%') {
			piece = xstrndup(p, 1);
		} else if (p[1] == '%' || p[1] == 'p') {
			piece = *++p == 'p' ? xasprintf("%ld", pid) : xstrdup("%");
		} else if (p[1] == 'q' && p[2] == '{' && (close = strchr(p + 3, '}'))) {
			name = xstrndup(p + 3, close - p - 3);
			piece = xstrdup(getenv(name) ? getenv(name) : "");
			free(name);
			p = close;
		} else {
			free(path);
			return NULL;
		}
		next = xasprintf("%s%s", path, piece);
		free(piece);
		free(path);
		path = next;
	}
	return path;
}

/* Whether the file at path is a trace the tool began (its first line). */
static bool began_by_tool(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[16] = "";
	bool ours = f && fgets(line, sizeof(line), f) && !strncmp(line, "# pagein ", 9);

	if (f)
		fclose(f);
	return ours;
}

/* The file whose debug information valgrind gave up on, as the tool's
   last line of the trace names it ("# unreadable-debuginfo PATH"), or
   NULL: a new string. */
static char *unreadable_debuginfo(const char *path)
{
	static const char mark[] = "# unreadable-debuginfo ";
	FILE *f = fopen(path, "r");
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!strncmp(line, mark, sizeof(mark) - 1)) {
			free(found);
			found = xstrdup(line + sizeof(mark) - 1);
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* No trace at path after a run of program (process pid) that ended with
   status.  The tool writes path.tmp.PID from its start and renames it at
   the end: one left means the process went on without the tool, or was
   killed. */
static void report_no_trace(const char *path, long pid, const char *program, int status)
{
	char *partial = xasprintf("%s.tmp.%ld", path, pid), *interpreter = script_interpreter(program), *how;
	bool started = began_by_tool(partial), follows = trace_children == YES;
	char *unreadable = started ? unreadable_debuginfo(partial) : NULL;

	if (started)
		unlink(partial);
	if (unreadable) {
		error("%s: no trace written: valgrind cannot read the debug information of %s and gave up (valgrind "
		      "before 3.20 misreads the DWARF 5 of clang 14 and later): rebuild it with -gdwarf-4, or trace "
		      "a copy without debug information (objcopy --strip-debug)", path, unreadable);
	} else if (started && !follows && interpreter && status < 128) {
		error("%s: no trace written: %s is a script (#!%s) that ran its program with exec, which valgrind "
		      "follows only with --trace-children=yes: trace the program itself (a libtool wrapper: "
		      "./libtool --mode=execute pagein ... -- %s, or the binary under .libs/), or run pagein "
		      "--trace-children=yes --output=FILE.%%p -- %s", path, program, interpreter, program, program);
	} else if (started && !follows && status < 128) {
		error("%s: no trace written: %s replaced itself with another program (exec), which valgrind follows "
		      "only with --trace-children=yes", path, program);
	} else {
		how = proc_describe(status);
		error("%s: no trace written: %s: %s", path, program, how);
		free(how);
	}
	free(unreadable);
	free(interpreter);
	free(partial);
}

static volatile sig_atomic_t valgrind_pid;

/* A signal sent to pagein alone goes on to valgrind (it reached valgrind
   itself when pagein exec'd it); one from the terminal reached the whole
   process group already.  pagein waits for valgrind to end either way, to
   say what became of the trace. */
static void pass_signal_on(int signal_number, siginfo_t *info, void *context)
{
	(void)context;
	if (valgrind_pid > 0 && (info->si_code == SI_USER || info->si_code == SI_QUEUE))
		kill(valgrind_pid, signal_number);
}

/* Runs valgrind's command vg_argv for program; returns the program's exit
   status.  When no complete trace was written (the tool removes one whose
   writing failed, so that an earlier file stays as it was), it says so and
   returns that status if it is not 0, else 1: 0 always means a complete
   trace, and a failed program's own status is kept. */
static int run_traced(char **vg_argv, const char *program)
{
	const char *pattern = out_file ? out_file : "pagein.%p";
	static const int passed_on[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct proc_request request = { .argv = vg_argv, .running = &valgrind_pid };
	struct proc_result result;
	struct sigaction action = { .sa_sigaction = pass_signal_on, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct stat before, after;
	char *path = strstr(pattern, "%p") ? NULL : expand_trace_path(pattern, 0);
	bool existed = path && stat(path, &before) == 0, written;
	size_t i;

	free(path);
	sigemptyset(&action.sa_mask);
	for (i = 0; i < sizeof(passed_on) / sizeof(*passed_on); i++)
		sigaction(passed_on[i], &action, NULL);
	progress_start("pagein: tracing %s under valgrind", program);
	proc_exec(&request, &result);
	progress_stop();
	if (result.status < 0)
		fatal("valgrind: cannot run: %s", strerror(-result.status));
	path = expand_trace_path(pattern, result.pid);
	if (!path)
		return result.status;
	/* A file of that name from an earlier run is no trace of this one. */
	written = stat(path, &after) == 0 && (!existed || S_ISCHR(after.st_mode) || S_ISFIFO(after.st_mode) ||
					      after.st_ino != before.st_ino ||
					      after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
					      after.st_mtim.tv_nsec != before.st_mtim.tv_nsec);
	if (!written)
		report_no_trace(path, result.pid, program, result.status);
	free(path);
	return (written || result.status) ? result.status : 1;
}

/* valgrind finds the tool through VALGRIND_LIB: the build tree's vglib
   beside the launcher, or ../lib/linkopt/valgrind of an install; without
   either, valgrind's own folder (where an older install put the tool). */
static void set_valgrind_lib(const char *here)
{
	static const char *const folders[] = { "vglib", "../lib/linkopt/valgrind", NULL };
	size_t i;

	for (i = 0; folders[i]; i++) {
		char *lib = xasprintf("%s/%s", here, folders[i]);
		char *tool = xasprintf("%s/pagein-amd64-linux", lib);
		bool found = access(tool, X_OK) == 0;

		free(tool);
		if (found && setenv("VALGRIND_LIB", lib, 1) < 0)
			fatal("cannot set VALGRIND_LIB: %s", strerror(errno));
		free(lib);
		if (found)
			return;
	}
	if (access("/usr/libexec/valgrind/pagein-amd64-linux", X_OK) < 0)
		fatal("cannot find the valgrind tool pagein-amd64-linux: not in %s/vglib (the build tree), "
		      "%s/../lib/linkopt/valgrind (an install) or /usr/libexec/valgrind", here, here);
}

int main(int argc, char **argv)
{
	char **operands, *here, **vg_argv;
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
	/* every process of the tree starts the tool afresh and would write
	   (and rename over) the same file */
	if (trace_children == YES && out_file && !strstr(out_file, "%p"))
		cli_usage_error("--trace-children=yes needs %%p in --output: each process writes its own trace");
	set_valgrind_lib(here);
	if (!on_path("valgrind"))
		fatal("valgrind: cannot run: not installed (apt-get install valgrind)");
	check_before_run(operands[0]);

	vg_argv = xcalloc(count + 16, sizeof(char *));
	vg_argv[n++] = "valgrind";
	vg_argv[n++] = "--tool=pagein";
	if (!verbose)
		vg_argv[n++] = "-q";
	vg_argv[n++] = xasprintf("--demangle=%s", demangle == YES ? "yes" : "no");
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
	if (branches >= 0)
		vg_argv[n++] = xasprintf("--branches=%s", yes_no[branches]);
	if (verbose)
		vg_argv[n++] = "-v";
	for (k = 0; k < count; k++)
		vg_argv[n++] = operands[k];
	vg_argv[n] = NULL;
	return run_traced(vg_argv, operands[0]);
}
