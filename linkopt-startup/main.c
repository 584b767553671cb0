/* linkopt-startup: orders the outputs of a build (programs and shared
   libraries) for the start-up of a workload, from the links linkopt-cc
   recorded: each output is linked with GNU ld and a map, the workload
   traced with pagein, the link ordered with deporder and relinked with the
   order (and rewritten by linkopt-bolt with --bolt), which later links of
   the output keep (DIR/NAME.apply).  The one start-up pipeline: make's
   fragment, the CMake module, the benchmarks and the demo all run it. */
#define _GNU_SOURCE
#include "startup.h"

#include "cli.h"
#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	const char *dir, *read_ahead_kb, *untraced_segment_kb, *check, *bolt_program, *again, *steady;
	struct cli_list outputs, workloads, held;
	int linker, placement;
	bool relr, bolt, trace_children, report, verify, undo, pgo_built, no_relr, no_bolt, no_segments, no_cut, no_cross, measure_all;
	unsigned long tolerance, request_pages;
	bool tolerance_given, request_pages_given;
} opt;

static const char *set_read_ahead(void *target, const char *value)
{
	unsigned long n;
	const char *wrong = cli_read_ahead_kb(value, &n);

	if (!wrong)
		*(const char **)target = value;
	return wrong;
}

static const char *set_untraced_segment(void *target, const char *value)
{
	unsigned long n;
	const char *wrong = cli_untraced_segment_kb(value, &n);

	if (!wrong)
		*(const char **)target = value;
	return wrong;
}

static const char *set_request_pages(void *target, const char *value)
{
	if (!cli_unsigned(value, (unsigned long *)target) || *(unsigned long *)target > 4096)
		return "is not a whole number of pages from 0 to 4096";
	opt.request_pages_given = true;
	return NULL;
}

static const char *set_tolerance(void *target, const char *value)
{
	if (!cli_unsigned(value, (unsigned long *)target))
		return "is not a whole number of percent";
	opt.tolerance_given = true;
	return NULL;
}

static const struct cli_option options[] = {
	{ "--dir", 0, CLI_STRING, &opt.dir, "DIR",
	  "the folder linkopt-cc records the links in (default:\n$LINKOPT_DIR)" },
	{ "--target", 0, CLI_LIST, &opt.outputs, "NAME",
	  "an output to order (repeatable): its name in DIR, the file\n"
	  "name of the link's -o or linkopt-cc's --name" },
	{ "--output", 0, CLI_LIST, &opt.outputs, "NAME", NULL }, /* the old spelling */
	{ "--linker", 0, CLI_CHOICE, &opt.linker, 0,
	  "gnu-ld (default: a linker script, and linkopt-prefetch.o),\n"
	  "gold (--section-ordering-file), lld or mold\n(--symbol-ordering-file)",
	  startup_linker_names },
	{ "--placement", 0, CLI_CHOICE, &opt.placement, 0,
	  "head (default): the traced sections first; cold-start:\n"
	  "deporder's placement for the fewest file pages read at a\n"
	  "cold start; data-first (gnu-ld): what start-up reads\n"
	  "before its code first in the file, the link for --bolt\n"
	  "(deporder(1)); each its own order file; best: each of\n"
	  "them, with and without --relr and --bolt, made, traced,\n"
	  "scored and checked: the one that reads least wins", startup_placement_names },
	{ "--workload", 0, CLI_LIST, &opt.workloads, "LINE",
	  "--placement=best: a start-up workload, a shell line\n"
	  "(repeatable; COMMAND is one too): the orders are made from\n"
	  "them and the layout chosen by them" },
	{ "--held-out", 0, CLI_LIST, &opt.held, "LINE",
	  "--placement=best: a workload scored and shown for each\n"
	  "layout, never used to make or choose one (repeatable)" },
	{ "--steady", 0, CLI_STRING, &opt.steady, "LINE",
	  "--placement=best: a steady-state workload, timed in\n"
	  "turns with each layout and the plain link: a layout more\n"
	  "than 3% slower, in 12 or more of 15 turns, is not chosen" },
	{ "--no-relr", 0, CLI_FLAG, &opt.no_relr, 0, "--placement=best: no candidate with --relr" },
	{ "--no-segments", 0, CLI_FLAG, &opt.no_segments, 0,
	  "--placement=best: no candidate with the untraced code in\n"
	  "segments of its own (+seg16)" },
	{ "--no-cut", 0, CLI_FLAG, &opt.no_cut, 0,
	  "--placement=best: no candidate with the code after its\n"
	  "traced code (BOLT's cold code, GNU ld's untraced code) cut\n"
	  "into mappings of 4 KiB at start-up (+cut4)" },
	{ "--no-cross", 0, CLI_FLAG, &opt.no_cross, 0,
	  "--placement=best: choose by the training workloads\n"
	  "alone, without making the best of each kind again\n"
	  "without each of them in turn (cross)" },
	{ "--measure-all", 0, CLI_FLAG, &opt.measure_all, 0,
	  "--placement=best, as root: a real cold start of every candidate made, not only the model's best "
	  "three (slower): the model checked on each" },
	{ "--no-bolt", 0, CLI_FLAG, &opt.no_bolt, 0, "--placement=best: no candidate with --bolt" },
	{ "--request-pages", 0, CLI_CALL, &opt.request_pages, "N",
	  "each read request of a cold start counts as N pages more\n"
	  "where --placement=best ranks its candidates (pages + N x\n"
	  "requests, the model's and the measured; default: the pages\n"
	  "of a read-ahead window, 32 at 128 KiB, 4096 at most; 0:\n"
	  "pages alone)", .set = set_request_pages },
	{ "--read-ahead-kb", 0, CLI_CALL, &opt.read_ahead_kb, "N",
	  "the disk's read-ahead --placement=cold-start places for,\n"
	  "and --placement=best's model and cold starts read at\n"
	  "(default 128)", .set = set_read_ahead },
	{ "--untraced-segment-kb", 0, CLI_CALL, &opt.untraced_segment_kb, "N",
	  "gnu-ld, head, cold-start or data-first, no --bolt: the code no\n"
	  "trace ran in segments of at most N KiB each (deporder(1)):\n"
	  "a later run that touches it reads ahead to its segment's end\n"
	  "at most", .set = set_untraced_segment },
	{ "--relr", 0, CLI_FLAG, &opt.relr, 0,
	  "link with -z pack-relative-relocs (glibc 2.36 or later):\n"
	  "fewer relocation bytes for start-up to read" },
	{ "--bolt", 0, CLI_FLAG, &opt.bolt, 0,
	  "rewrite each ordered output with linkopt-bolt, from pagein's\n"
	  "branch profile of the start-up on it (links get\n"
	  "-Wl,--emit-relocs); checked natively like --check" },
	{ "--llvm-bolt", 0, CLI_STRING, &opt.bolt_program, "PROGRAM",
	  "the llvm-bolt linkopt-bolt runs (default: its own choice)" },
	{ "--check", 0, CLI_STRING, &opt.check, "LINE",
	  "a shell line run natively with the plain and with the\n"
	  "ordered outputs in place: both must exit 0 and print the\n"
	  "same, or the plain outputs are put back (exit 1); the\n"
	  "workload is the check of --bolt without one" },
	{ "--trace-children", 0, CLI_FLAG, &opt.trace_children, 0,
	  "trace the processes the workload starts too (a shell\n"
	  "script, libtool's wrapper of an uninstalled program)" },
	{ "--report", 0, CLI_FLAG, &opt.report, 0,
	  "print the code and data pages of each output, plain and\n"
	  "ordered (and, for gold, lld or mold, their own plain\n"
	  "links); exit 1 when the workload printed anything else" },
	{ "--verify", 0, CLI_FLAG, &opt.verify, 0,
	  "order nothing: exit 1 when an output is no longer the link\n"
	  "its order made, the order no longer what its trace, map\n"
	  "and inputs give, or its start-up code pages grew back" },
	{ "--undo", 0, CLI_FLAG, &opt.undo, 0,
	  "order nothing: put each output's plain link back (when it is\n"
	  "still the ordered one) and remove its records from DIR" },
	{ "--pgo-built", 0, CLI_FLAG, &opt.pgo_built, 0,
	  "refuse an output whose link reads an object that records its\n"
	  "options without -fprofile-use (make startup-pgo)" },
	{ "--tolerance", 0, CLI_CALL, &opt.tolerance, "PERCENT",
	  "how much --verify lets the code pages grow (default 5)", .set = set_tolerance },
	{ "--again", 0, CLI_STRING, &opt.again, "TEXT",
	  "what a message tells to run for a new order (default:\n"
	  "\"run linkopt-startup again\"; make's fragment says make\n"
	  "startup)" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "linkopt-startup",
	.operands = "[--] [COMMAND [ARG]...]",
	.description =
		"Orders each output NAME (one --target at least), a program or shared\n"
		"library built through linkopt-cc, for the start-up of the workload\n"
		"COMMAND, which must run it (a shared library: through a program that loads\n"
		"it from the build).  Each NAME is linked with GNU ld and DIR/NAME.map into\n"
		"DIR/NAME.default, which replaces the output; COMMAND is traced with pagein\n"
		"into DIR/NAME.trace (of the first NAME; DIR/NAME.traces/ with\n"
		"--trace-children); each link is ordered with deporder into\n"
		"DIR/NAME.LINKER[.PLACEMENT].order and relinked with it (DIR/NAME.ordered),\n"
		"which replaces the output, then traced again (DIR/NAME.after.trace) and\n"
		"what the order gave kept in DIR/NAME.state.  The build's later links of\n"
		"NAME keep the order (DIR/NAME.apply: remove it to link as before).  An\n"
		"output is replaced through a temporary file and a rename, and keeps its\n"
		"time when it was newer than its inputs.  When nothing changed since the\n"
		"last order (the plain link's build-id, the workload, the layout), nothing\n"
		"is done.\n",
	.options = options,
	.footer = "Exit status: 0 success, 1 a step failed or --verify found a stale order\n"
		  "(the message says which), 2 wrong usage.\n",
	.flags = CLI_STOP_AT_OPERAND,
};


/* argv as one shell line that runs it: each word quoted when it needs to be. */
static char *shell_line(char *const *argv)
{
	size_t size = 1, i;
	char *line, *q;
	const char *p;

	for (i = 0; argv[i]; i++)
		size += 4 * strlen(argv[i]) + 3;
	line = q = xmalloc(size);
	for (i = 0; argv[i]; i++) {
		bool plain = argv[i][0] != '\0' && strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						       "0123456789_-./:=+,@%") == strlen(argv[i]);

		if (i)
			*q++ = ' ';
		if (plain) {
			q = stpcpy(q, argv[i]);
			continue;
		}
		*q++ = '\'';
		for (p = argv[i]; *p; p++) {
			if (*p == '\'') {
				q = stpcpy(q, "'\\''");
				continue;
			}
			*q++ = *p;
		}
		*q++ = '\'';
	}
	*q = '\0';
	return line;
}




/* Whether every output is still what the last order made, from the same
   plain link, workload and layout: then there is nothing to do. */
static bool unchanged(const struct startup_job *job, struct startup_output *outputs, size_t n)
{
	char *layout = state_layout(job), *workload = keep_workload_line(job), *why;
	bool same = true;
	size_t i;

	for (i = 0; i < n && same; i++) {
		struct startup_state st;

		if (!state_read(&outputs[i], &st, &why)) {
			free(why);
			same = false;
			break;
		}
		same = !strcmp(st.layout, layout) && !strcmp(st.workload, workload) &&
		       !strcmp(st.plain_id, outputs[i].build_id[BUILD_PLAIN]) && link_has_build_id(&outputs[i], st.ordered_id);
		state_free(&st);
	}
	if (same && !job->report)
		for (i = 0; i < n; i++) {
			struct startup_state st;

			state_read(&outputs[i], &st, &why);
			printf("%s: ordered for %s, start-up code pages %s -> %s (unchanged)\n", outputs[i].name, layout,
			       st.code_before, st.code_after);
			state_free(&st);
		}
	free(layout);
	free(workload);
	return same;
}

/* Puts every output's plain link back (after a failed check). */
static void put_back_plain(struct startup_output *outputs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		link_install(&outputs[i], outputs[i].plain);
}

/* Runs the check natively into DIR/FIRST.check.KIND.out; dies unless it
   exits 0. */
static char *native_check(const struct startup_job *job, const char *first, const char *kind)
{
	char *suffix = xasprintf("check.%s.out", kind), *out = record_path(job->dir, first, suffix);
	int status = run_check(job, out);

	if (status != 0)
		fatal("the check failed with the %s outputs (%s): %s", kind, proc_describe(status), job->check);
	free(suffix);
	return out;
}

static int order_outputs(struct startup_job *job, struct startup_output *outputs, size_t n)
{
	struct startup_run traced, plain, bolted, after;
	char *layout = state_layout(job), *workload = keep_workload_line(job), *checked = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		char *map_flag = xasprintf("-Wl,-Map=%s", outputs[i].map);
		char *extra[] = { map_flag, NULL };

		link_to(job, &outputs[i], outputs[i].plain, extra, "with GNU ld and a map");
		link_build_id(outputs[i].plain, outputs[i].build_id[BUILD_PLAIN], sizeof(outputs[i].build_id[0]));
		free(map_flag);
	}
	if (unchanged(job, outputs, n) && !job->report) {
		stdout_close_or_die();
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *was = access(outputs[i].path, F_OK) == 0 ? link_kind(outputs[i].path) : NULL;
		const char *now = link_kind(outputs[i].plain);

		if (was && now && strcmp(was, now) != 0)
			fatal("%s: %s is a %s, but its recorded link makes a %s: the record is not the build's link (flags "
			      "missing from it?); the file is left as it is", outputs[i].name, outputs[i].path, was, now);
	}
	for (i = 0; i < n; i++)
		link_install(&outputs[i], outputs[i].plain);
	if (job->check)
		checked = native_check(job, outputs[0].name, "plain");
	run_traced(job, &traced, outputs[0].name, "", false);
	for (i = 0; i < n; i++)
		order_make(job, &outputs[i], &traced);
	/* the report compares with the project's own link by the same linker:
	   lld and gold lay out even an unordered link otherwise than GNU ld */
	if (job->report && job->linker != LINKER_GNU_LD) {
		for (i = 0; i < n; i++) {
			char *extra[] = { xasprintf("-fuse-ld=%s", startup_linker_names[job->linker]), NULL };
			char *what = xasprintf("with %s, without the order", startup_linker_names[job->linker]);
			char *own = record_path(job->dir, outputs[i].name, "own");

			link_to(job, &outputs[i], own, extra, what);
			link_build_id(own, outputs[i].build_id[BUILD_PLAIN], sizeof(outputs[i].build_id[0]));
			link_install(&outputs[i], own);
			free(extra[0]);
			free(what);
			free(own);
		}
		run_traced(job, &plain, outputs[0].name, "plain.", false);
	}
	for (i = 0; i < n; i++) {
		char **flags = order_flags(job, &outputs[i]);
		char *what = xasprintf("with the order (%s)", layout);
		char *ordered = record_path(job->dir, outputs[i].name, "ordered");

		link_to(job, &outputs[i], ordered, flags, what);
		link_build_id(ordered, outputs[i].build_id[BUILD_ORDERED], sizeof(outputs[i].build_id[0]));
		link_install(&outputs[i], ordered);
		keep_apply(job, &outputs[i], flags);
		keep_inputs(job, &outputs[i]);
		keep_remove(job, &outputs[i], "rewrite");
		free(what);
		free(ordered);
	}
	if (job->bolt) {
		run_traced(job, &bolted, outputs[0].name, "bolt.", true);
		for (i = 0; i < n; i++)
			bolt_rewrite(job, &outputs[i], &bolted);
		run_free(&bolted);
	}
	if (checked) {
		char *out = record_path(job->dir, outputs[0].name, "check.ordered.out");
		int status = run_check(job, out);

		if (status != 0 || !run_same_output(checked, out)) {
			put_back_plain(outputs, n);
			for (i = 0; i < n; i++) {
				keep_remove(job, &outputs[i], "apply");
				keep_remove(job, &outputs[i], "rewrite");
			}
			fatal("the check %s with the ordered outputs (%s and %s): the plain outputs are back in place: %s",
			      status != 0 ? "failed" : "printed something else", checked, out, job->check);
		}
		free(out);
	}
	run_traced(job, &after, outputs[0].name, "after.", false);
	for (i = 0; i < n; i++) {
		struct startup_state st = {
			.layout = layout,
			.workload = workload,
			.plain_id = outputs[i].build_id[BUILD_PLAIN],
			.ordered_id = outputs[i].build_id[BUILD_ORDERED],
			.order = outputs[i].order,
			.order_placement = (char *)startup_placement_names[job->placement],
			.order_relr = job->relr,
		};
		size_t before, now;

		/* the plain build-id of the state is GNU ld's link, which the
		   order is made from, also when the report traced another */
		if (job->report && job->linker != LINKER_GNU_LD)
			link_build_id(outputs[i].plain, outputs[i].build_id[BUILD_PLAIN], sizeof(outputs[i].build_id[0]));
		before = measure_pages(&traced, outputs[i].build_id[BUILD_PLAIN], TRACE_CODE);
		now = measure_pages(&after, outputs[i].build_id[BUILD_ORDERED], TRACE_CODE);
		st.code_before = xasprintf("%zu", before);
		st.code_after = xasprintf("%zu", now);
		if (!run_object(&after, outputs[i].build_id[BUILD_ORDERED]))
			fatal("%s: the workload did not load the ordered %s (build-id %s)", outputs[i].name,
			      outputs[i].path, outputs[i].build_id[BUILD_ORDERED]);
		state_write(&outputs[i], &st);
		if (!job->report)
			printf("%s: ordered for %s, start-up code pages %zu -> %zu\n", outputs[i].name, layout, before,
			       now);
		if (now > before)
			warn("%s: the ordered link touches more code pages (%zu) than the plain one (%zu)",
			     outputs[i].name, now, before);
		free(st.code_before);
		free(st.code_after);
	}
	if (job->report) {
		struct startup_run *base = job->linker != LINKER_GNU_LD ? &plain : &traced;

		if (job->linker != LINKER_GNU_LD)
			for (i = 0; i < n; i++) {
				char *own = record_path(job->dir, outputs[i].name, "own");

				link_build_id(own, outputs[i].build_id[BUILD_PLAIN], sizeof(outputs[i].build_id[0]));
				free(own);
			}
		measure_report(outputs, n, base, &after);
		if (!run_same_output(base->out, after.out))
			fatal("the workload printed other output with the ordered link: %s and %s differ", base->out,
			      after.out);
		if (job->linker != LINKER_GNU_LD)
			run_free(&plain);
	}
	stdout_close_or_die();
	run_free(&after);
	run_free(&traced);
	free(layout);
	free(workload);
	free(checked);
	return 0;
}

/* Removes path, a file or a folder of files (the traces of
   --trace-children). */
static void remove_path(const char *path)
{
	char *pattern = xasprintf("%s/*", path);
	glob_t found;
	size_t i;

	if (unlink(path) == 0 || errno == ENOENT) {
		free(pattern);
		return;
	}
	if (errno == EISDIR && glob(pattern, GLOB_NOSORT, NULL, &found) == 0) {
		for (i = 0; i < found.gl_pathc; i++)
			if (unlink(found.gl_pathv[i]) < 0)
				fatal("%s: cannot remove: %s", found.gl_pathv[i], strerror(errno));
		globfree(&found);
	}
	if (rmdir(path) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", path, strerror(errno));
	free(pattern);
}

/* Removes DIR/NAME.* of every output, but what belongs to another output
   whose name starts with "NAME." (libfoo.so and libfoo.so.1). */
static void remove_records(const struct startup_job *job, const struct startup_output *o)
{
	char *pattern = record_path(job->dir, o->name, "*"), *links = record_path(job->dir, "*", "link");
	glob_t found, names;
	size_t i, j, prefix = strlen(job->dir) + 1 + strlen(o->name) + 1;

	if (glob(links, 0, NULL, &names) != 0)
		names.gl_pathc = 0;
	if (glob(pattern, 0, NULL, &found) == 0) {
		for (i = 0; i < found.gl_pathc; i++) {
			bool other = false;

			/* DIR/N2.link of another output N2 = NAME.x: its files start "DIR/N2." */
			for (j = 0; j < names.gl_pathc && !other; j++) {
				size_t base = strlen(names.gl_pathv[j]) - strlen(".link");

				other = base > prefix && !strncmp(names.gl_pathv[j], found.gl_pathv[i], base) &&
					found.gl_pathv[i][base] == '.';
			}
			if (!other)
				remove_path(found.gl_pathv[i]);
		}
		globfree(&found);
	}
	if (names.gl_pathc)
		globfree(&names);
	free(pattern);
	free(links);
}

/* linkopt-startup --undo: each output's plain link back in place (when the
   output is still the ordered link), and its records removed. */
static int undo_outputs(struct startup_job *job, struct startup_output *outputs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct startup_output *o = &outputs[i];
		struct startup_state st;
		char *why;

		if (state_read(o, &st, &why)) {
			if (link_has_build_id(o, st.ordered_id) && access(o->plain, R_OK) == 0) {
				link_install(o, o->plain);
				printf("%s: the plain link is back\n", o->name);
			}
			state_free(&st);
		} else {
			free(why);
		}
	}
	for (i = 0; i < n; i++)
		remove_records(job, &outputs[i]);
	stdout_close_or_die();
	return 0;
}

/* --placement=best: the search, unless nothing changed since it chose. */
static int search_outputs(struct startup_job *job, struct startup_output *outputs, size_t n)
{
	const char **train = xcalloc(opt.workloads.count + 1, sizeof(char *));
	struct search_options so = {
		.train = train,
		.held = opt.held.items,
		.held_count = opt.held.count,
		.steady = opt.steady,
		.read_ahead_kb = 128,
		.no_relr = opt.no_relr,
		.no_segments = opt.no_segments,
		.no_cut = opt.no_cut,
		.no_cross = opt.no_cross,
		.measure_all = opt.measure_all,
		.no_bolt = opt.no_bolt,
		.request_pages = opt.request_pages,
	};
	size_t w = 0;

	if (opt.read_ahead_kb)
		cli_read_ahead_kb(opt.read_ahead_kb, &so.read_ahead_kb);
	/* by default a read request counts as the pages of the window it
	   would read: a device pays its latency whatever the size, and a
	   layout that reads fewer pages in more requests (a cut reads a page
	   in a request of its own) starts slower (bench/best: SQLite's shell,
	   held out, 143 pages in 66 requests took longer than the default
	   link's 296 in 22) */
	if (!opt.request_pages_given)
		so.request_pages = so.read_ahead_kb / 4 < 4096 ? so.read_ahead_kb / 4 : 4096;
	/* COMMAND, when given, is the first training workload */
	if (strcmp(job->workload[0], "sh") || !job->workload[1] || strcmp(job->workload[1], "-c") ||
	    !opt.workloads.count || job->workload[2] != opt.workloads.items[0])
		train[w++] = shell_line(job->workload);
	for (size_t i = 0; i < opt.workloads.count; i++)
		train[w++] = opt.workloads.items[i];
	so.train_count = w;
	return search_best(job, outputs, n, &so);
}

int main(int argc, char **argv)
{
	struct startup_job job = { 0 };
	struct startup_output *outputs;
	char *dir;
	size_t i, n;

	progname = "linkopt-startup";
	if (cli_parse(&command, argc, argv, &job.workload) == 0) {
		if (opt.placement != PLACEMENT_BEST || !opt.workloads.count)
			cli_usage_error("no workload command given");
		/* the first --workload stands for COMMAND where one is needed */
		job.workload = xcalloc(4, sizeof(char *));
		job.workload[0] = "sh";
		job.workload[1] = "-c";
		job.workload[2] = (char *)opt.workloads.items[0];
		opt.trace_children = true;
	}
	if (opt.placement != PLACEMENT_BEST &&
	    (opt.workloads.count || opt.held.count || opt.steady || opt.no_relr || opt.no_bolt || opt.no_segments ||
	     opt.no_cut || opt.no_cross || opt.measure_all || opt.request_pages_given))
		cli_usage_error("--workload, --held-out, --steady, --no-relr, --no-bolt, --no-segments, --no-cut, --no-cross, "
				"--measure-all and --request-pages are for --placement=best");
	if (opt.placement == PLACEMENT_BEST && (opt.relr || opt.bolt))
		cli_usage_error("--placement=best tries --relr and --bolt itself (--no-relr, --no-bolt leave them out)");
	if (opt.placement == PLACEMENT_BEST && opt.report)
		cli_usage_error("--placement=best prints its own table: no --report");
	if (opt.outputs.count == 0)
		cli_usage_error("no --target given: name the program or library to order");
	if (opt.placement == PLACEMENT_DATA_FIRST && opt.linker != LINKER_GNU_LD)
		cli_usage_error("--placement=data-first is a GNU ld script: it needs --linker=gnu-ld");
	if (opt.untraced_segment_kb && (opt.linker != LINKER_GNU_LD || opt.placement == PLACEMENT_BEST || opt.bolt))
		cli_usage_error("--untraced-segment-kb is for --linker=gnu-ld, without --bolt (which moves the code), "
				"and not for --placement=best (which tries 16 KiB segments itself: --no-segments leaves them out)");
	if (opt.tolerance_given && !opt.verify)
		cli_usage_error("--tolerance is for --verify");
	if (opt.bolt_program && !opt.bolt)
		cli_usage_error("--llvm-bolt is for --bolt");
	dir = (char *)(opt.dir ? opt.dir : getenv("LINKOPT_DIR"));
	if (!dir || !*dir)
		cli_usage_error("no folder of records: give --dir=DIR or set LINKOPT_DIR");
	if (opt.verify || opt.undo) {
		/* nothing recorded: nothing ordered (--verify), nothing to undo */
		char *absolute = realpath(dir, NULL);
		int missing = 0;

		for (i = 0; i < opt.outputs.count; i++) {
			char *link = absolute ? record_path(absolute, opt.outputs.items[i], "state") : NULL;

			if (!link || access(link, F_OK) < 0) {
				if (opt.verify)
					error("%s: not ordered (no %s/%s.state): %s", opt.outputs.items[i], absolute ? absolute : dir,
					      opt.outputs.items[i], opt.again ? opt.again : "run linkopt-startup");
				missing++;
			}
			free(link);
		}
		if (opt.verify && missing)
			return 1;
		if (opt.undo && missing == (int)opt.outputs.count) {
			free(absolute);
			return 0;
		}
		free(absolute);
	}
	if (!(dir = realpath(dir, NULL)))
		fatal("%s: cannot use as the folder of records: %s", opt.dir ? opt.dir : getenv("LINKOPT_DIR"),
		      strerror(errno));
	job.dir = dir;
	job.linker = opt.linker;
	job.placement = opt.placement;
	job.read_ahead_kb = opt.read_ahead_kb;
	job.untraced_segment_kb = opt.untraced_segment_kb;
	job.relr = opt.relr;
	job.bolt = opt.bolt;
	job.bolt_program = opt.bolt_program;
	job.trace_children = opt.trace_children;
	job.report = opt.report;
	job.check = opt.check;
	job.again = opt.again ? opt.again : "run linkopt-startup again";
	job.progress = isatty(STDERR_FILENO);
	if (job.bolt && !job.check)
		job.check = shell_line(job.workload);
	link_find_tools(&job);
	if (opt.verify + opt.undo > 1)
		cli_usage_error("--verify and --undo: one at most");
	if (!opt.verify && !opt.undo)
		link_check_linker(&job);
	n = opt.outputs.count;
	outputs = xcalloc(n, sizeof(*outputs));
	for (i = 0; i < n; i++)
		link_load(&job, &outputs[i], opt.outputs.items[i]);
	if (opt.undo)
		return undo_outputs(&job, outputs, n);
	if (opt.pgo_built)
		for (i = 0; i < n; i++)
			link_check_pgo_built(&outputs[i]);
	run_prepare_stdin(&job);
	if (opt.verify)
		return verify_outputs(&job, outputs, n, opt.tolerance_given ? opt.tolerance : 5);
	if (opt.placement == PLACEMENT_BEST)
		return search_outputs(&job, outputs, n);
	return order_outputs(&job, outputs, n);
}
