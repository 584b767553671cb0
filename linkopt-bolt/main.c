/* linkopt-bolt: drives BOLT (llvm-bolt) over a linked binary with
   linkopt's profile: the block profile pagein --branches counted (no LBR
   hardware, no instrumented build) merged with any BOLT profile, and the
   function order of the start-up trace.  BOLT writes into a private
   folder beside OUTPUT; the rewritten file replaces nothing until it is
   proved: its structure against the input's (lib/loadable.h), the loader
   loading it as it loads the input, and the check command (check.h). */
#include "check.h"
#include "cli.h"
#include "loadable.h"
#include "proc.h"
#include "progress.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const orders[] = { "startup", "hfsort", "cdsort", "none", NULL };
enum { ORDER_STARTUP, ORDER_HFSORT, ORDER_CDSORT, ORDER_NONE };

static struct cli_list startup_specs, profile_specs, fdata_specs, bolt_options;

/* Whether a --bolt-option starts with prefix (BOLT takes an option once:
   the user's then stands instead of linkopt-bolt's). */
static bool bolt_option_given(const char *prefix)
{
	size_t i;

	for (i = 0; i < bolt_options.count; i++)
		if (!strncmp(bolt_options.items[i], prefix, strlen(prefix)))
			return true;
	return false;
}
static const char *output, *bolt_program, *check_command, *keep_dir;
static int order = -1;
static bool no_check, dry_run, quiet, new_segment;
static double check_timeout = 300;
/* The seconds the loader may take to load a file (check_load). */
enum { LOAD_TIMEOUT = 60 };

static const char *set_timeout(void *target, const char *value)
{
	double v;

	if (!cli_number(value, &v) || v < 0)
		return "is not a number of seconds (0: no limit)";
	*(double *)target = v;
	return NULL;
}

static const struct cli_option options[] = {
	{ "--output", 'o', CLI_STRING, &output, "FILE", "the rewritten binary (required)" },
	{ "--startup", 0, CLI_LIST, &startup_specs, "TRACE[:W]",
	  "a start-up trace (pagein --granularity=function, or cygtrace):\n"
	  "its functions come first, in the order the run first entered\n"
	  "them; with pagein --branches its branches count in the profile" },
	{ "--profile", 0, CLI_LIST, &profile_specs, "TRACE[:W]",
	  "a pagein --branches=yes trace of a workload, its counts\n"
	  "times W (default 1)" },
	{ "--fdata", 0, CLI_LIST, &fdata_specs, "FILE[:W]",
	  "a BOLT branch profile (llvm-bolt -instrument, perf2bolt),\n"
	  "its counts times W" },
	{ "--order", 0, CLI_CHOICE, &order, 0,
	  "the function order: startup (default with --startup): the\n"
	  "start-up functions, then the rest the profile ran, most\n"
	  "executed first; hfsort or cdsort: BOLT's own (default\n"
	  "without --startup; cdsort needs BOLT 17 or later); none", orders },
	{ "--bolt", 0, CLI_STRING, &bolt_program, "PROGRAM",
	  "the llvm-bolt to run (default: the newest of llvm-bolt,\n"
	  "llvm-bolt-22 ... llvm-bolt-16 on PATH)" },
	{ "--new-segment", 0, CLI_FLAG, &new_segment, 0,
	  "let BOLT put the code in a new segment aligned on 2 MiB, as\n"
	  "it does by default (default: back in the original .text, so\n"
	  "that a cold start reads less)" },
	{ "--bolt-option", 0, CLI_LIST, &bolt_options, "OPTION", "one more option for llvm-bolt" },
	{ "--check", 0, CLI_STRING, &check_command, "COMMAND",
	  "a shell command that runs the workload with %b for the binary\n"
	  "(and %d for a folder holding it by its soname, for\n"
	  "LD_LIBRARY_PATH=%d): run with BINARY, then with the rewritten\n"
	  "file, %b the same path both times; OUTPUT is written only when\n"
	  "both exit 0 and print the same, and the loader's log shows the\n"
	  "runs started (or loaded) the file under test" },
	{ "--check-timeout", 0, CLI_CALL, &check_timeout, "SECONDS",
	  "how long one run of the check may take before it counts as\n"
	  "hung and is ended (default 300; 0: no limit)", .set = set_timeout },
	{ "--no-check", 0, CLI_FLAG, &no_check, 0,
	  "write OUTPUT without running a check (not advised: the file is\n"
	  "still checked as the loader sees it and loaded once)" },
	{ "--keep", 0, CLI_STRING, &keep_dir, "DIR",
	  "keep the profile, the order and BOLT's log in DIR" },
	{ "--dry-run", 'n', CLI_FLAG, &dry_run, 0,
	  "write the profile and the order (with --keep), print the\n"
	  "BOLT command, run nothing" },
	{ "--quiet", 'q', CLI_FLAG, &quiet, 0, "no summary" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "linkopt-bolt",
	.operands = "BINARY",
	.description =
		"Rewrites BINARY (an executable or shared library linked with\n"
		"-Wl,--emit-relocs) with BOLT: functions split into hot and cold parts, blocks\n"
		"and functions reordered, from linkopt's profile.  Every trace must be of\n"
		"BINARY itself (its build-id); the rewritten file is checked as the loader\n"
		"sees it, loaded once, and run with --check before it is written to\n"
		"OUTPUT.\n",
	.options = options,
	.footer = "Exit status: 0 written, 1 refused or failed (nothing written), 2 usage error.\n",
	.min_operands = 1,
	.missing = "no BINARY given",
};

/* llvm-bolt, llvm-bolt-22, ..., llvm-bolt-16: the first on PATH. */
static char *find_bolt(void)
{
	int v;

	if (bolt_program) {
		char *argv[] = { (char *)bolt_program, "--version", NULL };
		char *out = proc_capture(argv, NULL);

		if (!out)
			fatal("%s: cannot run it (--bolt): install bolt-16, or name an llvm-bolt that runs",
			      bolt_program);
		free(out);
		return xstrdup(bolt_program);
	}
	for (v = 0; v == 0 || v >= 16; v = v ? v - 1 : 22) {
		char *name = v ? xasprintf("llvm-bolt-%d", v) : xstrdup("llvm-bolt");
		char *argv[] = { name, "--version", NULL };
		char *out = proc_capture(argv, NULL);

		if (out) {
			free(out);
			return name;
		}
		free(name);
	}
	fatal("no llvm-bolt on PATH (apt-get install bolt-16, or bolt-22 from bookworm-security); or name "
	      "one with --bolt");
}

/* The major version llvm-bolt --version prints, or 0. */
static int bolt_version(const char *bolt)
{
	char *argv[] = { (char *)bolt, "--version", NULL };
	char *out = proc_capture(argv, NULL), *p;
	int v = 0;

	if (out && (p = strstr(out, "LLVM version ")))
		v = atoi(p + 13);
	free(out);
	return v;
}

/* The files of the work folder --keep keeps. */
static const char *const kept_files[] = { "profile.preagg", "profile-pagein.fdata", "profile.fdata", "order.txt",
					  "aggregate.log", "bolt.log", NULL };
static char *work;

/* --keep: copies what the work folder holds to DIR, whatever the end
   (fatal() included), before the folder goes. */
static void keep_work(void)
{
	size_t i;

	if (!keep_dir || !work)
		return;
	if (mkdir(keep_dir, 0777) < 0 && errno != EEXIST) {
		error("%s: cannot create: %s", keep_dir, strerror(errno));
		return;
	}
	for (i = 0; kept_files[i]; i++) {
		char *from = xasprintf("%s/%s", work, kept_files[i]), *to = xasprintf("%s/%s", keep_dir, kept_files[i]);
		void *data;
		size_t size;
		char *why;

		if (access(from, F_OK) == 0) {
			if (output_same_as_input(to))
				error("%s: not kept: it is an input of this run", to);
			else if (map_file(from, &data, &size, &why) < 0)
				free(why);
			else if (write_file_atomic(to, data, size) < 0)
				error("%s: cannot write: %s", to, strerror(errno));
		}
		free(from);
		free(to);
	}
}

/* On a signal, before the work folder goes: the command running (BOLT, a
   check) ends first, so that nothing writes into it any more. */
static void end_running(void)
{
	pid_t pid = check_running;

	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The work folder: private (mkdtemp) and beside OUTPUT, so that the
   rewritten file is renamed onto OUTPUT and a program it holds can run
   (/tmp may be noexec); removed at the end and on a signal. */
static char *work_folder(void)
{
	char *dir = output_work_folder(output);

	if (!dir)
		fatal("%s: cannot create a work folder beside it: %s", output, strerror(errno));
	output_on_signal(end_running);
	work = dir;
	atexit(keep_work);
	return dir;
}

static struct bolt_trace *open_traces(const struct cli_list *specs, const struct bolt_binary *b, bool branches)
{
	struct bolt_trace *t = xcalloc(specs->count + 1, sizeof(*t));
	size_t i;

	for (i = 0; i < specs->count; i++) {
		char *why;

		if (bolt_trace_open(&t[i], specs->items[i], b, branches, &why) < 0)
			fatal("%s", why);
	}
	return t;
}

/* Where a log of the work folder can be read after the run: " (log
   DIR/NAME)" with --keep, else how to keep it; a new string. */
static char *log_note(const char *name)
{
	return keep_dir ? xasprintf(" (log %s/%s)", keep_dir, name) : xasprintf(" (--keep DIR keeps %s)", name);
}

static char *log_text(const char *log, const char *text, bool whole);

/* The text of log from prefix to the end of its line (the last line that
   holds prefix), or NULL. */
static char *log_line(const char *log, const char *prefix)
{
	return log_text(log, prefix, false);
}

/* The last line of log that holds text: from text on, or whole; NULL
   without one. */
static char *log_text(const char *log, const char *text, bool whole)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *at = strstr(line, text);

		if (!at)
			continue;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		free(found);
		found = xstrdup(whole ? line : at);
	}
	free(line);
	fclose(f);
	return found;
}

/* Runs argv with its stdout and stderr appended to log; its status. */
static int run_logged(char **argv, const char *log)
{
	struct proc_request rq = { .argv = argv, .out = PROC_LOG, .err = PROC_LOG, .log = log,
				   .running = &check_running };
	struct proc_result r;

	proc_exec(&rq, &r);
	return r.status;
}

/* BOLT's aggregator turns the pre-aggregated profile into fdata; it
   counts the records that do not fit the binary's code. */
static void aggregate(const char *bolt, const struct bolt_binary *b, const char *preagg, const char *fdata,
		      const char *log)
{
	char *argv[] = { (char *)bolt, (char *)b->path, "-pa", "-p", (char *)preagg, "-aggregate-only", "-o",
			 (char *)fdata, NULL };
	int status;
	char *mismatch, *pct;

	progress_start("linkopt-bolt: turning the profile into BOLT's (%s)", bolt);
	status = run_logged(argv, log);
	progress_stop();

	if (status != 0) {
		char *text = proc_describe(status);

		fatal("%s: turning the profile into BOLT's failed: %s%s", b->path, text, log_note("aggregate.log"));
	}
	/* A profile of the binary mismatches a little where BOLT cannot follow
	   the code (BOLT 16 and the compiler's .cold parts); one of another
	   build mismatches wholesale. */
	mismatch = log_line(log, "traces mismatching disassembled function contents:");
	pct = mismatch ? strchr(mismatch, '(') : NULL;
	if (pct && strtod(pct + 1, NULL) > 5.0)
		fatal("%s: BOLT finds %s: the profile does not fit this binary's code", b->path, mismatch);
	if (pct && strtod(pct + 1, NULL) > 0 && !quiet)
		printf("profile: BOLT finds %s (at most 5%% is accepted)\n", mismatch);
	free(mismatch);
}

/* The rewritten file must do with --check what BINARY does, in runs
   that did start (or load) the file under test. */
static void check(const struct bolt_binary *b, const char *rewritten, const char *dir, bool library, bool dynamic)
{
	const char *name = strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path;
	struct check_setup setup = { .command = check_command, .timeout = check_timeout, .work = dir, .name = name,
				     .soname = b->elf.soname ? b->elf.soname : name, .library = library,
				     .dynamic = dynamic };
	struct check_run before, after;
	char *t1, *t2;

	check_run(&setup, b->path, &before);
	if (before.timed_out)
		fatal("--check '%s' did not end within %g s with %s itself (--check-timeout): it was ended; %s is "
		      "not written", check_command, check_timeout, b->path, output);
	if (before.status != 0) {
		t1 = proc_describe(before.status);
		fatal("--check '%s' fails with %s itself (%s): it cannot show that the rewritten binary works; "
		      "%s is not written", check_command, b->path, t1, output);
	}
	if (before.unproved)
		fatal("--check '%s' with %s itself: %s: it cannot show that the rewritten binary works; %s is not "
		      "written", check_command, b->path, before.unproved, output);
	check_run(&setup, rewritten, &after);
	if (after.timed_out)
		fatal("%s: the rewritten binary did not end --check within %g s (--check-timeout), where %s took "
		      "%.1f s: it was ended; %s is not written", b->path, check_timeout, b->path, before.seconds, output);
	if (before.status != after.status || strcmp(before.output, after.output)) {
		t1 = proc_describe(before.status);
		t2 = proc_describe(after.status);
		fatal("%s: the rewritten binary does not run --check as %s does (%s against %s%s): %s is not "
		      "written", b->path, b->path, t2, t1,
		      strcmp(before.output, after.output) ? ", and its output differs" : "", output);
	}
	if (after.unproved)
		fatal("--check '%s' with the rewritten binary: %s; %s is not written", check_command, after.unproved,
		      output);
	if (!quiet)
		printf("check: '%s' runs the same with the rewritten binary\n", check_command);
	check_run_free(&before);
	check_run_free(&after);
}

/* The defects of the rewritten file as the loader sees it, against the
   input's structure (lib/loadable.h): none, or refused with what is
   wrong and, for BOLT's known defect, its cause and its fix. */
static void check_structure(const struct bolt_binary *b, const char *rewritten, int version,
			    struct loadable_report *report)
{
	void *image;
	size_t size, i;
	char *why, *list = xstrdup(""), *next;

	if (map_file(rewritten, &image, &size, &why) < 0)
		fatal("%s: BOLT's output: %s", b->path, why);
	if (loadable_compare(b->image, b->image_size, image, size, report, &why) < 0)
		fatal("%s: BOLT's output: %s; %s is not written", b->path, why, output);
	munmap(image, size);
	if (!report->count)
		return;
	for (i = 0; i < report->count && i < 12; i++) {
		next = xasprintf("%s\n  %s", list, report->defects[i]);
		free(list);
		list = next;
	}
	if (report->count > 12) {
		next = xasprintf("%s\n  (%zu more)", list, report->count - 12);
		free(list);
		list = next;
	}
	if (report->input_relr && version >= 17)
		fatal("%s: BOLT %d's output would not load as the input does: it mishandles a link made with -z "
		      "pack-relative-relocs (DT_RELR): the pointers the loader relocates are not updated, or are "
		      "written at the wrong place (KNOWN GOOD in linkopt-bolt(1)); relink without -z "
		      "pack-relative-relocs, or use BOLT 16 (--bolt llvm-bolt-16); %s is not written:%s",
		      b->path, version, output, list);
	fatal("%s: BOLT%s%.0d's output would not load as the input does; %s is not written:%s", b->path,
	      version ? " " : "", version, output, list);
}

/* Gives the rewritten file a build-id of its own, made from its bytes
   (the build-id's own read as zeros), as GNU ld's --build-id makes one
   from the link's.  BOLT flips a bit of its input's: every rewrite of one
   input would carry the same build-id, and a trace, a profile or perf's
   cache of one rewrite would pass for another's. */
static void own_build_id(const struct bolt_binary *b, const char *rewritten)
{
	struct elf_object elf;
	uint64_t offset, hash[3] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull };
	size_t size, place_size, i, k;
	unsigned char id[64];
	void *data;
	char *why;
	int fd;

	if (map_file(rewritten, &data, &size, &why) < 0)
		fatal("%s: BOLT's output: %s", b->path, why);
	if (elfobj_open_linked(&elf, rewritten, data, size, &why) < 0)
		fatal("%s: BOLT's output: %s", b->path, why);
	if (!elfobj_build_id_place(&elf, &offset, &place_size) || place_size > sizeof(id))
		fatal("%s: BOLT's output has no build-id of at most %zu bytes (the input has one); %s is not written",
		      b->path, sizeof(id), output);
	for (i = 0; i < size; i++) {
		unsigned char byte = i >= offset && i < offset + place_size ? 0 : ((const unsigned char *)data)[i];

		for (k = 0; k < 3; k++)
			hash[k] = (hash[k] ^ byte) * 0x100000001b3ull;
	}
	elfobj_close(&elf);
	munmap(data, size);
	for (i = 0; i < place_size; i++)
		id[i] = (unsigned char)(hash[i / 8 % 3] >> (8 * (i % 8)));
	fd = open(rewritten, O_WRONLY);
	if (fd < 0)
		fatal("%s: cannot open BOLT's output: %s", rewritten, strerror(errno));
	if (pwrite(fd, id, place_size, (off_t)offset) != (ssize_t)place_size)
		fatal("%s: cannot write its build-id: %s", rewritten, strerror(errno));
	if (close(fd) < 0)
		fatal("%s: cannot write its build-id: %s", rewritten, strerror(errno));
}

/* The first line of after that before does not hold, or NULL; a new
   string. */
static char *first_new_line(const char *before, const char *after)
{
	const char *p = after;

	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		const char *found = strstr(before, line);

		if (n && (!found || (found != before && found[-1] != '\n') || (found[n] && found[n] != '\n')))
			return line;
		free(line);
		p += n + (p[n] == '\n');
	}
	return NULL;
}

/* The loader must load and relocate the rewritten file as it does the
   input (check.h, check_load). */
static void check_loads(const struct bolt_binary *b, const char *rewritten, const struct loadable_report *report)
{
	char *interp = report->interp ? xstrdup(report->interp) : check_own_interpreter();
	char *before, *after, *t1, *t2;
	int s1, s2;

	if (!interp)
		fatal("%s: no dynamic loader to load the rewritten binary with (PT_INTERP); %s is not written",
		      b->path, output);
	s1 = check_load(interp, b->path, LOAD_TIMEOUT, &before);
	if (s1 != 0) {
		t1 = proc_describe(s1);
		fatal("%s: the loader (%s, as ldd -r) cannot load it itself (%s): %s; %s is not written", b->path, interp,
		      t1, before, output);
	}
	s2 = check_load(interp, rewritten, LOAD_TIMEOUT, &after);
	if (s2 != 0 || strcmp(before, after)) {
		char *line = first_new_line(before, after);

		t1 = proc_describe(s1);
		t2 = proc_describe(s2);
		fatal("%s: the loader (%s, as ldd -r) does not load the rewritten binary as it loads the input (%s "
		      "against %s%s%s); %s is not written", b->path, interp, t2, t1, line ? ", and it says: " : "",
		      line ? line : "", output);
	}
	if (!quiet)
		printf("load: %s loads and relocates the rewritten binary as it does %s\n", interp, b->path);
	free(before);
	free(after);
	free(interp);
}

static char **bolt_command(const char *bolt, int version, const struct bolt_binary *b, const char *fdata,
			   const char *order_file, const char *out)
{
	char **argv = xcalloc(24 + bolt_options.count, sizeof(char *));
	size_t n = 0, i;

	argv[n++] = (char *)bolt;
	argv[n++] = (char *)b->path;
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	argv[n++] = xasprintf("-data=%s", fdata);
	argv[n++] = "-reorder-blocks=ext-tsp";
	/* the user's -split-functions=0 (or =1) stands for ours: code that a
	   run the profile did not see takes stays among the hot code */
	if (!bolt_option_given("-split-functions")) {
		argv[n++] = "-split-functions";
		argv[n++] = "-split-all-cold";
		argv[n++] = "-split-eh";
	}
	argv[n++] = "-dyno-stats";
	/* the code back where the link put it, on 4 KiB pages: in a new
	   segment on a 2 MiB boundary the hot code lies far from everything
	   else a cold start reads, and the old code, dead, stays between the
	   headers and the data, where the read-ahead windows the loader opens
	   read it; in place, those windows run on into the hot code.  BOLT
	   falls back to a new segment when the code does not fit */
	if (!new_segment) {
		argv[n++] = "-use-old-text";
		argv[n++] = "-no-huge-pages";
		/* the hot code right after the PLT, not on the next page: one
		   page less between the headers and the end of the hot code,
		   which decides where the read-ahead stops */
		if (!bolt_option_given("-align-text="))
			argv[n++] = "-align-text=64";
	}
	/* BOLT 16 leaves lite mode by itself when gcc split functions; BOLT 17
	   and later stay in it and leave every function that has a gcc .cold
	   part where it was (78 of the 191 code pages Python's start-up
	   touched with BOLT 22, 137 without lite mode, as with BOLT 16) */
	if (version >= 17 && bolt_binary_has_cold_parts(b))
		argv[n++] = "-lite=0";
	switch (order) {
	case ORDER_STARTUP:
		argv[n++] = "-reorder-functions=user";
		argv[n++] = xasprintf("-function-order=%s", order_file);
		break;
	case ORDER_HFSORT:
		argv[n++] = "-reorder-functions=hfsort";
		break;
	case ORDER_CDSORT:
		if (version && version < 17)
			fatal("%s: --order=cdsort needs BOLT 17 or later; this one is %d", bolt, version);
		argv[n++] = "-reorder-functions=cdsort";
		break;
	default:
		break;
	}
	for (i = 0; i < bolt_options.count; i++)
		argv[n++] = (char *)bolt_options.items[i];
	argv[n] = NULL;
	return argv;
}

/* BOLT's lines on what it did with the profile. */
static void summary(const char *log)
{
	static const char *const phrases[] = { "functions in the binary", "splitting separates", "have invalid",
					       "reordering modified layout", "original .text", NULL };
	FILE *f = quiet ? NULL : fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, i;

	while (f && getline(&line, &cap, f) > 0)
		for (i = 0; phrases[i]; i++)
			if (strstr(line, phrases[i])) {
				printf("bolt: %s", line);
				break;
			}
	if (f)
		fclose(f);
	free(line);
}

/* Refuses a profile that BOLT found stale (another build's): "N (P% of
   all profiled) functions have invalid (possibly stale) profile", and "1
   (P% ...) function have" for one. */
static void check_stale(const struct bolt_binary *b, const char *log)
{
	char *l = log_text(log, "have invalid (possibly stale) profile", true);
	char *all = l ? strstr(l, "% of all profiled") : NULL, *open = all;
	double pct;

	if (!all)
		return;
	while (open > l && *open != '(')
		open--;
	pct = *open == '(' ? strtod(open + 1, NULL) : 0;
	if (!strncmp(l, "BOLT-WARNING: ", 14))
		memmove(l, l + 14, strlen(l + 14) + 1);
	if (pct > 5.0)
		fatal("%s: BOLT says %s%s: the profile is not of this binary (at most 5%% is accepted); %s is "
		      "not written", b->path, l, log_note("bolt.log"), output);
	free(l);
}

/* The inputs of the run: OUTPUT may be none of them (lib/output.h). */
static void declare_inputs(const struct bolt_binary *b)
{
	size_t i;

	output_input(b->path);
	for (i = 0; i < startup_specs.count; i++)
		output_input(startup_specs.items[i]);
	for (i = 0; i < profile_specs.count; i++)
		output_input(profile_specs.items[i]);
	for (i = 0; i < fdata_specs.count; i++) {
		double w;
		char *why, *path = bolt_split_weight(fdata_specs.items[i], &w, &why);

		if (path)
			output_input(path);
		free(path);
	}
	output_refuse_input(output);
}

int main(int argc, char **argv)
{
	struct bolt_binary b;
	struct bolt_trace *startup, *profile;
	struct bolt_fdata *fdata;
	struct bolt_order_stats stats = { 0 };
	struct loadable_report report;
	char **operands, *why, *dir, *preagg, *pagein_fdata, *merged, *order_file, *agg_log, *bolt_log, *rewritten;
	char **bolt_argv, *bolt;
	size_t records = 0, lines = 0, i, nfdata = 0, nbranch_traces = 0;
	int status, version;
	bool library, dynamic;
	struct stat st;

	progname = "linkopt-bolt";
	if (cli_parse(&command, argc, argv, &operands) != 1)
		cli_usage_error("one BINARY, please");
	if (!output)
		cli_usage_error("no --output FILE given");
	if (!check_command && !no_check && !dry_run)
		cli_usage_error("no --check COMMAND given: the rewritten binary must be shown to run the workload "
				"(or say --no-check)");
	if (check_command && !strstr(check_command, "%b") && !strstr(check_command, "%d"))
		cli_usage_error("--check '%s' names neither %%b nor %%d: it would run the same program both times, "
				"never the rewritten one", check_command);
	if (!startup_specs.count && !profile_specs.count && !fdata_specs.count)
		cli_usage_error("no profile: give --startup, --profile or --fdata");
	if (order < 0)
		order = startup_specs.count ? ORDER_STARTUP : ORDER_HFSORT;
	if (order == ORDER_STARTUP && !startup_specs.count)
		cli_usage_error("--order=startup needs a --startup trace");
	if (bolt_binary_open(&b, operands[0], &why) < 0)
		fatal("%s", why);
	declare_inputs(&b);
	if (stat(output, &st) == 0 && S_ISDIR(st.st_mode))
		fatal("%s: cannot write: %s", output, strerror(EISDIR));

	startup = open_traces(&startup_specs, &b, false);
	profile = open_traces(&profile_specs, &b, true);
	bolt = find_bolt();
	version = bolt_version(bolt);
	/* what BOLT and the checks run cannot outlive linkopt-bolt, killed or not */
	if (proc_watch_children(&why) < 0) {
		warn("%s: the commands run unwatched", why);
		free(why);
	}
	dir = work_folder();
	preagg = xasprintf("%s/profile.preagg", dir);
	pagein_fdata = xasprintf("%s/profile-pagein.fdata", dir);
	merged = xasprintf("%s/profile.fdata", dir);
	order_file = xasprintf("%s/order.txt", dir);
	agg_log = xasprintf("%s/aggregate.log", dir);
	bolt_log = xasprintf("%s/bolt.log", dir);
	rewritten = xasprintf("%s/rewritten", dir);

	/* the start-up traces with branches are profile too */
	{
		struct bolt_trace *all = xcalloc(startup_specs.count + profile_specs.count + 1, sizeof(*all));

		for (i = 0; i < startup_specs.count; i++)
			if (startup[i].trace.branch_count)
				all[nbranch_traces++] = startup[i];
		for (i = 0; i < profile_specs.count; i++)
			all[nbranch_traces++] = profile[i];
		fdata = xcalloc(fdata_specs.count + 1, sizeof(*fdata));
		if (nbranch_traces) {
			if (bolt_write_preaggregated(preagg, &b, all, nbranch_traces, &records, &why) < 0)
				fatal("%s", why);
			if (!records)
				fatal("%s: the traces hold no branch inside it", b.path);
			if (!dry_run) {
				aggregate(bolt, &b, preagg, pagein_fdata, agg_log);
				fdata[nfdata++] = (struct bolt_fdata){ pagein_fdata, 1 };
			}
		}
		for (i = 0; i < fdata_specs.count; i++) {
			double w;
			char *path = bolt_split_weight(fdata_specs.items[i], &w, &why);

			if (!path)
				cli_usage_error("%s", why);
			fdata[nfdata++] = (struct bolt_fdata){ path, w };
		}
		if (!dry_run && bolt_merge_fdata(merged, fdata, nfdata, &lines, &why) < 0)
			fatal("%s", why);
		if (order == ORDER_STARTUP &&
		    bolt_write_order(order_file, &b, startup, startup_specs.count, all, nbranch_traces, &stats, &why) < 0)
			fatal("%s", why);
		free(all);
	}
	if (!quiet) {
		if (nbranch_traces)
			printf("profile: %zu branch and run records of %s from %zu trace%s\n", records, b.path,
			       nbranch_traces, nbranch_traces == 1 ? "" : "s");
		if (!dry_run)
			printf("profile: %zu branches in BOLT's form (%zu profile%s merged)\n", lines, nfdata,
			       nfdata == 1 ? "" : "s");
		if (order == ORDER_STARTUP)
			printf("order: %zu start-up functions, then %zu the profile ran%s\n", stats.startup, stats.steady,
			       stats.ambiguous ? "" : "");
		if (stats.ambiguous)
			printf("order: %zu functions left to BOLT: their local names are shared by other functions\n",
			       stats.ambiguous);
	}

	if (dry_run) {
		/* the command as it would run on what --keep keeps */
		char *kept_merged = keep_dir ? xasprintf("%s/profile.fdata", keep_dir) : merged;
		char *kept_order = keep_dir ? xasprintf("%s/order.txt", keep_dir) : order_file;
		char *line;

		bolt_argv = bolt_command(bolt, version, &b, kept_merged, kept_order, output);
		line = proc_command_line(bolt_argv);
		printf("%s\n", line);
		free(line);
		return 0;
	}
	bolt_argv = bolt_command(bolt, version, &b, merged, order_file, rewritten);
	progress_start("linkopt-bolt: %s rewriting %s", bolt, b.path);
	status = run_logged(bolt_argv, bolt_log);
	progress_stop();
	if (status != 0) {
		char *text = proc_describe(status), *error_line = log_line(bolt_log, "BOLT-ERROR");

		fatal("%s failed: %s%s%s%s", bolt, text, error_line ? ": " : "", error_line ? error_line : "",
		      log_note("bolt.log"));
	}
	check_stale(&b, bolt_log);
	summary(bolt_log);
	own_build_id(&b, rewritten);

	/* proved before it is kept, --no-check included */
	check_structure(&b, rewritten, version, &report);
	library = !report.input_has_interp && b.elf.type == ET_DYN;
	dynamic = report.input_has_interp || library;
	if (dynamic)
		check_loads(&b, rewritten, &report);
	if (check_command)
		check(&b, rewritten, dir, library, dynamic);
	if (output_place(rewritten, output, true) < 0)
		fatal("%s: cannot write: %s", output, strerror(errno));
	if (!quiet)
		printf("written: %s%s%s\n", output, keep_dir ? "; profile, order and logs in " : "", keep_dir ? keep_dir : "");
	loadable_report_free(&report);
	for (i = 0; i < startup_specs.count; i++)
		bolt_trace_close(&startup[i]);
	for (i = 0; i < profile_specs.count; i++)
		bolt_trace_close(&profile[i]);
	bolt_binary_close(&b);
	return 0;
}
