/* linkopt-bolt: drives BOLT (llvm-bolt) over a linked binary with
   linkopt's profile: the block profile pagein --branches counted (no LBR
   hardware, no instrumented build) merged with any BOLT profile, and the
   function order of the start-up trace; the rewritten file replaces
   nothing until it ran the check command with the same output. */
#include "cli.h"
#include "proc.h"
#include "progress.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const orders[] = { "startup", "hfsort", "cdsort", "none", NULL };
enum { ORDER_STARTUP, ORDER_HFSORT, ORDER_CDSORT, ORDER_NONE };

static struct cli_list startup_specs, profile_specs, fdata_specs, bolt_options;
static const char *output, *bolt_program, *check_command, *keep_dir;
static int order = -1;
static bool no_check, dry_run, quiet, new_segment;

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
	  "file; OUTPUT is written only when both exit 0 and print the same" },
	{ "--no-check", 0, CLI_FLAG, &no_check, 0, "write OUTPUT without running a check (not advised)" },
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
		"BINARY itself (its build-id); the rewritten file is checked with --check\n"
		"before it is written to OUTPUT.\n",
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

static void remove_work(const char *dir);
static char *temporary_work, *unfinished_output;

/* A temporary work folder and an unchecked OUTPUT.tmp go whatever the
   end, fatal() included. */
static void remove_temporary_work(void)
{
	if (unfinished_output)
		unlink(unfinished_output);
	if (temporary_work)
		remove_work(temporary_work);
}

/* The work folder: --keep's, or a temporary one removed at the end. */
static char *work_dir(bool *temporary)
{
	char *dir;

	*temporary = !keep_dir;
	if (keep_dir) {
		if (mkdir(keep_dir, 0777) < 0 && errno != EEXIST)
			fatal("%s: cannot create: %s", keep_dir, strerror(errno));
		return xstrdup(keep_dir);
	}
	dir = xasprintf("%s/linkopt-bolt.XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		fatal("%s: cannot create: %s", dir, strerror(errno));
	temporary_work = dir;
	atexit(remove_temporary_work);
	return dir;
}

static void remove_work(const char *dir)
{
	static const char *const files[] = { "profile.preagg", "profile-pagein.fdata", "profile.fdata",
					     "order.txt", "aggregate.log", "bolt.log", NULL };
	size_t i;

	for (i = 0; files[i]; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);

		unlink(p);
		free(p);
	}
	rmdir(dir);
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

/* The line of log that starts with prefix (the last one), or NULL. */
static char *log_line(const char *log, const char *prefix)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	ssize_t len;

	if (!f)
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *at = strstr(line, prefix);

		if (!at)
			continue;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		free(found);
		found = xstrdup(at);
	}
	free(line);
	fclose(f);
	return found;
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
	status = proc_run(argv, NULL, NULL, 0, log, NULL);
	progress_stop();

	if (status != 0) {
		char *text = proc_describe(status);

		fatal("%s: turning the profile into BOLT's failed: %s (log %s)", b->path, text, log);
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

/* command_text with %b replaced by binary and %d by folder, each quoted;
   binary with a '/' so that the shell runs the file rather than looking it
   up on PATH. */
static char *expand_check(const char *command_text, const char *binary, const char *folder)
{
	char *file = xasprintf("'%s%s'", strchr(binary, '/') ? "" : "./", binary);
	char *dir = xasprintf("'%s'", folder), *out = xstrdup(""), *next;
	const char *p = command_text, *at;

	for (;;) {
		const char *b = strstr(p, "%b"), *d = strstr(p, "%d");

		if (!b && !d)
			break;
		at = b && (!d || b < d) ? b : d;
		next = xasprintf("%s%.*s%s", out, (int)(at - p), p, at == b ? file : dir);
		free(out);
		out = next;
		p = at + 2;
	}
	next = xasprintf("%s%s", out, p);
	free(out);
	free(file);
	free(dir);
	return next;
}

/* Runs the check command on binary; its stdout and stderr in *out.  %d is
   a folder where binary goes by BINARY's soname (or file name), for a
   host program to load it through LD_LIBRARY_PATH. */
static int run_check(const struct bolt_binary *b, const char *binary, const char *work, char **out)
{
	const char *name = b->elf.soname ? b->elf.soname : strrchr(b->path, '/') ? strrchr(b->path, '/') + 1 : b->path;
	char *folder = xasprintf("%s/check-lib", work), *link = xasprintf("%s/%s", folder, name);
	char *target = realpath(binary, NULL), *cmd = expand_check(check_command, binary, folder);
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct proc_request rq = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_CAPTURE };
	struct proc_result r;

	if (mkdir(folder, 0777) < 0 && errno != EEXIST)
		fatal("%s: cannot create: %s", folder, strerror(errno));
	unlink(link);
	if (!target || symlink(target, link) < 0)
		fatal("%s: cannot link to %s: %s", link, binary, strerror(errno));
	progress_start("linkopt-bolt: check: %s", cmd);
	proc_exec(&rq, &r);
	progress_stop();
	*out = xasprintf("%s%s", r.out ? r.out : "", r.err ? r.err : "");
	proc_result_free(&r);
	unlink(link);
	rmdir(folder);
	free(target);
	free(link);
	free(folder);
	free(cmd);
	return r.status;
}

/* The rewritten file must do what BINARY does. */
static void check(const struct bolt_binary *b, const char *rewritten, const char *work)
{
	char *before, *after;
	int s1 = run_check(b, b->path, work, &before), s2;

	if (s1 != 0) {
		char *text = proc_describe(s1);

		unlink(rewritten);
		fatal("--check '%s' fails with %s itself (%s): it cannot show that the rewritten binary works; "
		      "%s is not written", check_command, b->path, text, output);
	}
	s2 = run_check(b, rewritten, work, &after);
	if (s1 != s2 || strcmp(before, after)) {
		char *t1 = proc_describe(s1), *t2 = proc_describe(s2);

		unlink(rewritten);
		fatal("%s: the rewritten binary does not run --check as %s does (%s against %s%s): %s is not "
		      "written", rewritten, b->path, t2, t1, strcmp(before, after) ? ", and its output differs" : "",
		      output);
	}
	if (!quiet)
		printf("check: '%s' runs the same with the rewritten binary\n", check_command);
	free(before);
	free(after);
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
	argv[n++] = "-split-functions";
	argv[n++] = "-split-all-cold";
	argv[n++] = "-split-eh";
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

/* Refuses a profile that BOLT found stale (another build's). */
static void check_stale(const struct bolt_binary *b, const char *log)
{
	char *l = log_line(log, "functions have invalid (possibly stale) profile");
	char *pct = l ? strchr(l, '(') : NULL;

	if (pct && strtod(pct + 1, NULL) > 5.0)
		fatal("%s: BOLT says %s (log %s): a --fdata profile is not of this binary", b->path, l, log);
	free(l);
}

int main(int argc, char **argv)
{
	struct bolt_binary b;
	struct bolt_trace *startup, *profile;
	struct bolt_fdata *fdata;
	struct bolt_order_stats stats = { 0 };
	char **operands, *why, *dir, *preagg, *pagein_fdata, *merged, *order_file, *agg_log, *bolt_log, *tmp, *bolt;
	char **bolt_argv;
	size_t records = 0, lines = 0, i, nfdata = 0, nbranch_traces = 0;
	bool temporary;
	int status, version;
	struct stat st;

	progname = "linkopt-bolt";
	if (cli_parse(&command, argc, argv, &operands) != 1)
		cli_usage_error("one BINARY, please");
	if (!output)
		cli_usage_error("no --output FILE given");
	if (!check_command && !no_check && !dry_run)
		cli_usage_error("no --check COMMAND given: the rewritten binary must be shown to run the workload "
				"(or say --no-check)");
	if (!startup_specs.count && !profile_specs.count && !fdata_specs.count)
		cli_usage_error("no profile: give --startup, --profile or --fdata");
	if (order < 0)
		order = startup_specs.count ? ORDER_STARTUP : ORDER_HFSORT;
	if (order == ORDER_STARTUP && !startup_specs.count)
		cli_usage_error("--order=startup needs a --startup trace");
	if (bolt_binary_open(&b, operands[0], &why) < 0)
		fatal("%s", why);
	if (!strcmp(output, b.path))
		fatal("%s: --output must not be BINARY itself: BOLT reads it while it writes", output);

	startup = open_traces(&startup_specs, &b, false);
	profile = open_traces(&profile_specs, &b, true);
	bolt = find_bolt();
	version = bolt_version(bolt);
	dir = work_dir(&temporary);
	preagg = xasprintf("%s/profile.preagg", dir);
	pagein_fdata = xasprintf("%s/profile-pagein.fdata", dir);
	merged = xasprintf("%s/profile.fdata", dir);
	order_file = xasprintf("%s/order.txt", dir);
	agg_log = xasprintf("%s/aggregate.log", dir);
	bolt_log = xasprintf("%s/bolt.log", dir);

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
			if (bolt_write_preaggregated(preagg, all, nbranch_traces, &records, &why) < 0)
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

	tmp = xasprintf("%s.tmp", output);
	unfinished_output = tmp;
	if (!temporary_work)
		atexit(remove_temporary_work);
	bolt_argv = bolt_command(bolt, version, &b, merged, order_file, tmp);
	if (dry_run) {
		char *line = proc_command_line(bolt_argv);

		printf("%s\n", line);
		free(line);
		return 0;
	}
	progress_start("linkopt-bolt: %s rewriting %s", bolt, b.path);
	status = proc_run(bolt_argv, NULL, NULL, 0, bolt_log, NULL);
	progress_stop();
	if (status != 0) {
		char *text = proc_describe(status);

		unlink(tmp);
		fatal("%s failed: %s (log %s)", bolt, text, bolt_log);
	}
	check_stale(&b, bolt_log);
	summary(bolt_log);
	if (check_command)
		check(&b, tmp, dir);
	if (stat(b.path, &st) == 0)
		chmod(tmp, st.st_mode & 07777);
	if (rename(tmp, output) < 0)
		fatal("%s: cannot rename to %s: %s", tmp, output, strerror(errno));
	unfinished_output = NULL;
	if (!quiet)
		printf("written: %s%s%s\n", output, temporary ? "" : "; profile, order and logs in ", temporary ? "" : dir);
	for (i = 0; i < startup_specs.count; i++)
		bolt_trace_close(&startup[i]);
	for (i = 0; i < profile_specs.count; i++)
		bolt_trace_close(&profile[i]);
	bolt_binary_close(&b);
	return 0;
}
