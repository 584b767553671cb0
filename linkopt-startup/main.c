/* linkopt-startup: orders the outputs of a build (programs and shared
   libraries) for the start-up of a workload, from the links linkopt-cc
   recorded: each output is relinked with GNU ld and a map, the workload
   traced with pagein, the link ordered with deporder and relinked with the
   order, which later links of the output keep (DIR/NAME.apply). */
#define _GNU_SOURCE
#include "cli.h"
#include "elfobj.h"
#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "trace.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const linkers[] = { "gnu-ld", "gold", "lld", "mold", NULL };
enum { GNU_LD, GOLD, LLD, MOLD };
static const char *const placements[] = { "head", "cold-start", NULL };
enum { HEAD, COLD_START };

static struct {
	const char *dir;
	struct cli_list outputs;
	int linker, placement;
	const char *read_ahead_kb;
	bool trace_children, report;
} opt;

static const char *set_read_ahead(void *target, const char *value)
{
	unsigned long n;
	const char *wrong = cli_read_ahead_kb(value, &n);

	if (!wrong)
		*(const char **)target = value;
	return wrong;
}

static const struct cli_option options[] = {
	{ "--dir", 0, CLI_STRING, &opt.dir, "DIR",
	  "the folder linkopt-cc records the links in (default:\n$LINKOPT_DIR)" },
	{ "--output", 0, CLI_LIST, &opt.outputs, "NAME",
	  "an output to order (repeatable): its name in DIR, the file\n"
	  "name of the link's -o or linkopt-cc's --name" },
	{ "--linker", 0, CLI_CHOICE, &opt.linker, 0,
	  "gnu-ld (default: a linker script, and linkopt-prefetch.o),\n"
	  "gold (--section-ordering-file), lld or mold\n(--symbol-ordering-file)",
	  linkers },
	{ "--placement", 0, CLI_CHOICE, &opt.placement, 0,
	  "head (default): the traced sections first; cold-start:\n"
	  "deporder's placement for the fewest file pages read at a\n"
	  "cold start (deporder(1)); its own order file,\n"
	  "DIR/NAME.LINKER.cold-start.order", placements },
	{ "--read-ahead-kb", 0, CLI_CALL, &opt.read_ahead_kb, "N",
	  "the disk's read-ahead --placement=cold-start places for\n"
	  "(default 128)", .set = set_read_ahead },
	{ "--trace-children", 0, CLI_FLAG, &opt.trace_children, 0,
	  "trace the processes the workload starts too (a shell\n"
	  "script, libtool's wrapper of an uninstalled program)" },
	{ "--report", 0, CLI_FLAG, &opt.report, 0,
	  "also run the workload under pagein on the ordered outputs\n"
	  "(and, for gold, lld or mold, on their own plain links)\n"
	  "and print the code and data pages of each output, plain\n"
	  "and ordered; exit 1 when the workload printed anything else" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "linkopt-startup",
	.operands = "[--] COMMAND [ARG]...",
	.description =
		"Orders each output NAME (one --output at least), a program or shared\n"
		"library built through linkopt-cc, for the start-up of the workload\n"
		"COMMAND, which must run it (a shared library: through a program that loads\n"
		"it from the build).  Each NAME is relinked with GNU ld and DIR/NAME.map;\n"
		"COMMAND is traced with pagein into DIR/NAME.trace (of the first NAME;\n"
		"DIR/NAME.traces/ with --trace-children); each link is ordered with\n"
		"deporder into DIR/NAME.LINKER.order and relinked with it.  The build's\n"
		"later links of NAME keep the order (DIR/NAME.apply: remove it to link as\n"
		"before).  A relink writes a temporary file and renames it onto the output.\n",
	.options = options,
	.footer = "Exit status: 0 success, 1 a step failed (the message says which), 2 wrong\nusage.\n",
	.flags = CLI_STOP_AT_OPERAND,
	.min_operands = 1,
	.missing = "no workload command given",
};

/* One output to order, from its record. */
struct output {
	const char *name;
	struct record link;   /* the output's path, the folder of its link, the command */
	const char *path, *cwd;
	char **argv;
	char *map, *order;
	char build_id[2][128]; /* of the plain and of the ordered link */
};

/* The programs and the object linkopt-startup runs and links. */
static struct {
	char *pagein, *deporder, *prefetch;
} tools;

static bool progress;

static void step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void step(const char *fmt, ...)
{
	va_list ap;

	if (!progress)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The first of the candidates (relative to the folder of this program)
   that exists; a new absolute string, or NULL. */
static char *beside(const char *own, const char *const *candidates)
{
	int i;

	for (i = 0; candidates[i]; i++) {
		char *probe = xasprintf("%s/%s", own, candidates[i]), *real = realpath(probe, NULL);

		free(probe);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

/* pagein, deporder and linkopt-prefetch.o: beside this program once
   installed (bin/, lib/linkopt/), in their folders of the build tree. */
static void find_tools(void)
{
	static const char *const pagein[] = { "pagein", "../pagein/pagein", NULL };
	static const char *const deporder[] = { "deporder", "../deporder/deporder", NULL };
	static const char *const prefetch[] = { "../lib/linkopt/linkopt-prefetch.o",
						"../prefetch/linkopt-prefetch.o", NULL };
	char exe[PATH_MAX], *own;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		fatal("/proc/self/exe: cannot read link: %s", strerror(errno));
	exe[n] = '\0';
	own = dirname(exe);
	tools.pagein = beside(own, pagein);
	tools.deporder = beside(own, deporder);
	tools.prefetch = beside(own, prefetch);
	if (!tools.pagein || !tools.deporder)
		fatal("cannot find %s in %s nor in the linkopt tree it would be in", !tools.pagein ? "pagein" : "deporder",
		      own);
	if (!tools.prefetch && opt.linker == GNU_LD)
		fatal("cannot find linkopt-prefetch.o in %s/../lib/linkopt nor in the linkopt tree", own);
}

static void load_output(struct output *o, const char *dir, const char *name)
{
	char *path = record_path(dir, name, "link"), *why;

	o->name = name;
	if (record_read(path, RECORD_LINK_TAG, &o->link, &why) < 0) {
		if (errno == ENOENT)
			fatal("%s: no link of '%s' recorded: build it through linkopt-cc first "
			      "(CC=\"linkopt-cc --dir=%s gcc\", or CMake's linkopt_startup())", path, name, dir);
		fatal("%s", why);
	}
	if (o->link.count < 3)
		fatal("%s: holds no link command", path);
	o->path = o->link.strings[0];
	o->cwd = o->link.strings[1];
	o->argv = o->link.strings + 2;
	o->map = record_path(dir, name, "map");
	o->order = xasprintf("%s/%s.%s%s.order", dir, name, linkers[opt.linker],
			     opt.placement == COLD_START ? ".cold-start" : "");
	free(path);
}

/* Refuses, before anything runs, a linker that is not there or that has no
   option for the order (Debian 12's mold 1.10 has no --symbol-ordering-file). */
static void check_linker(void)
{
	static const char *const programs[] = { [GOLD] = "ld.gold", [LLD] = "ld.lld", [MOLD] = "ld.mold" };
	static const char *const options[] = { [GOLD] = "--section-ordering-file", [LLD] = "--symbol-ordering-file",
						[MOLD] = "--symbol-ordering-file" };
	char *help_argv[] = { (char *)programs[opt.linker], "--help", NULL };
	char *version_argv[] = { (char *)programs[opt.linker], "--version", NULL };
	char *help, *version;

	if (opt.linker == GNU_LD)
		return;
	if (!(help = proc_capture(help_argv, NULL)))
		fatal("--linker=%s: cannot run %s --help: is %s installed?", linkers[opt.linker], programs[opt.linker],
		      linkers[opt.linker]);
	if (!strstr(help, options[opt.linker])) {
		version = proc_capture(version_argv, NULL);
		if (version)
			version[strcspn(version, "\n")] = '\0';
		fatal("--linker=%s: %s (%s) has no %s option, so it cannot link with an order: use another linker, or "
		      "a %s that has it", linkers[opt.linker], programs[opt.linker], version ? version : "version unknown",
		      options[opt.linker], linkers[opt.linker]);
	}
	free(help);
}

/* The flags that link with the order, for the chosen linker (NULL-terminated). */
static char **order_flags(const struct output *o)
{
	char **flags = xcalloc(4, sizeof(*flags));

	switch (opt.linker) {
	case GNU_LD:
		flags[0] = xasprintf("-Wl,-T,%s", o->order);
		flags[1] = tools.prefetch;
		break;
	case GOLD:
		flags[0] = "-fuse-ld=gold";
		flags[1] = xasprintf("-Wl,--section-ordering-file,%s", o->order);
		break;
	case LLD:
		flags[0] = "-fuse-ld=lld";
		flags[1] = xasprintf("-Wl,--symbol-ordering-file,%s", o->order);
		flags[2] = "-Wl,--no-warn-symbol-ordering";
		break;
	case MOLD:
		flags[0] = "-fuse-ld=mold";
		flags[1] = xasprintf("-Wl,--symbol-ordering-file,%s", o->order);
		break;
	}
	return flags;
}

/* The GNU build-id of the linked file at path into hex; dies without one,
   since no trace could then be proven to be of it. */
static void read_build_id(const char *path, char *hex, size_t size)
{
	struct elf_object elf;
	void *data;
	size_t bytes;
	char *why;
	bool found;

	if (map_file(path, &data, &bytes, &why) < 0 || elfobj_open_linked(&elf, path, data, bytes, &why) < 0)
		fatal("%s: %s", path, why);
	found = elfobj_build_id(&elf, hex, size);
	elfobj_close(&elf);
	munmap(data, bytes);
	if (!found)
		fatal("%s: has no build-id, so no trace can be proven to be of it: link it with -Wl,--build-id", path);
}

/* Links o with extra added, into a temporary file renamed onto the output
   when the link succeeded; then reads its build-id into o->build_id[which]. */
static void relink(struct output *o, char **extra, int which, const char *what)
{
	char *temporary = xasprintf("%s.linkopt-tmp", o->path), **argv = linkcmd_rewrite(o->argv, temporary, extra);
	struct proc_request request = { .argv = argv, .dir = o->cwd, .stdin_null = true };
	struct proc_result result;

	step("%s: linking %s", o->name, what);
	unlink(temporary);
	if (proc_exec(&request, &result) != 0) {
		unlink(temporary);
		fatal("%s: the link %s failed (%s) in %s: %s", o->name, what, proc_describe(result.status), o->cwd,
		      proc_command_line(argv));
	}
	if (rename(temporary, o->path) < 0)
		fatal("%s: cannot rename onto %s: %s", temporary, o->path, strerror(errno));
	read_build_id(o->path, o->build_id[which], sizeof(o->build_id[which]));
	free(argv);
	free(temporary);
}

/* Removes the traces an earlier run left at base: the file, or with
   --trace-children the files of the folder; makes that folder. */
static void remove_traces(const char *base)
{
	char *pattern = xasprintf("%s/*", base), *why;
	glob_t found;
	size_t i;

	if (!opt.trace_children) {
		if (unlink(base) < 0 && errno != ENOENT)
			fatal("%s: cannot remove: %s", base, strerror(errno));
		free(pattern);
		return;
	}
	if (glob(pattern, GLOB_NOSORT, NULL, &found) == 0)
		for (i = 0; i < found.gl_pathc; i++)
			if (unlink(found.gl_pathv[i]) < 0)
				fatal("%s: cannot remove: %s", found.gl_pathv[i], strerror(errno));
	globfree(&found);
	free(pattern);
	if (record_make_dir(base, &why) < 0)
		fatal("%s", why);
}

/* Runs the workload under pagein, its stdout into out; returns the traces
   it wrote: base, or with --trace-children base/trace.PID for each
   process. */
static glob_t trace_workload(char **workload, const char *base, const char *out)
{
	int n = linkcmd_count(workload), k = 0, i;
	char **argv = xcalloc(n + 8, sizeof(*argv)), *pattern;
	struct proc_request request = { .argv = argv, .out = PROC_LOG, .log = out };
	struct proc_result result;
	glob_t found;

	remove_traces(base);
	if (unlink(out) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", out, strerror(errno));
	argv[k++] = tools.pagein;
	argv[k++] = "--granularity=function";
	if (opt.trace_children) {
		argv[k++] = "--trace-children=yes";
		argv[k++] = xasprintf("--out-file=%s/trace.%%p", base);
	} else {
		argv[k++] = xasprintf("--out-file=%s", base);
	}
	argv[k++] = "--";
	for (i = 0; i < n; i++)
		argv[k++] = workload[i];
	step("tracing %s", proc_command_line(workload));
	if (proc_exec(&request, &result) != 0)
		fatal("the workload failed under pagein (%s): %s", proc_describe(result.status), proc_command_line(workload));
	pattern = opt.trace_children ? xasprintf("%s/trace.*", base) : xstrdup(base);
	if (glob(pattern, 0, NULL, &found) != 0)
		fatal("%s: pagein wrote no trace", pattern);
	free(pattern);
	free(argv);
	return found;
}

/* Whether the trace holds an object with build-id hex. */
static const struct trace_object *object_with(const struct trace *t, const char *hex)
{
	size_t i;

	for (i = 0; i < t->object_count; i++)
		if (!strcmp(t->objects[i].build_id, hex))
			return &t->objects[i];
	return NULL;
}

static struct trace *read_traces(const glob_t *files)
{
	struct trace *traces = xcalloc(files->gl_pathc ? files->gl_pathc : 1, sizeof(*traces));
	char *why;
	size_t i;

	for (i = 0; i < files->gl_pathc; i++)
		if (trace_read(files->gl_pathv[i], &traces[i], &why) < 0)
			fatal("%s: %s", files->gl_pathv[i], why);
	return traces;
}

static void free_traces(struct trace *traces, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		trace_free(&traces[i]);
	free(traces);
}

/* Orders o with deporder from the traces that hold its plain link. */
static void order(struct output *o, const glob_t *files, const struct trace *traces)
{
	int n = linkcmd_count(o->argv), k = 0, i;
	char **argv = xcalloc(n + 2 * files->gl_pathc + 20, sizeof(*argv));
	struct proc_request request = { .stdin_null = true, .dir = o->cwd, .argv = argv };
	struct proc_result result;
	size_t t, used = 0;

	argv[k++] = tools.deporder;
	argv[k++] = "-q";
	argv[k++] = "--granularity=section";
	for (t = 0; t < files->gl_pathc; t++) {
		if (!object_with(&traces[t], o->build_id[0]))
			continue;
		argv[k++] = "--trace";
		argv[k++] = files->gl_pathv[t];
		used++;
	}
	if (!used)
		fatal("%s: the workload did not run %s (build-id %s)%s: it must run this build's %s, or a program "
		      "that loads it from the build", o->name, o->path, o->build_id[0],
		      opt.trace_children ? "" : "; a script or launcher needs --trace-children", o->name);
	argv[k++] = "--map";
	argv[k++] = o->map;
	argv[k++] = "--binary";
	argv[k++] = (char *)o->path;
	argv[k++] = xasprintf("--emit=%s", linkers[opt.linker]);
	argv[k++] = xasprintf("--placement=%s", placements[opt.placement]);
	if (opt.read_ahead_kb)
		argv[k++] = xasprintf("--read-ahead-kb=%s", opt.read_ahead_kb);
	argv[k++] = "--out";
	argv[k++] = o->order;
	argv[k++] = "--cc";
	argv[k++] = "--";
	for (i = 0; i < n; i++)
		argv[k++] = o->argv[i];
	step("%s: ordering", o->name);
	if (proc_exec(&request, &result) != 0)
		fatal("%s: deporder failed (%s): no order made", o->name, proc_describe(result.status));
	free(argv);
}

/* Keeps the order for the build's later links of o (linkopt-cc reads it). */
static void write_apply(const struct output *o, char **flags, const char *dir)
{
	int n = linkcmd_count(flags), i;
	char **strings = xcalloc(n + 1, sizeof(*strings)), *path = record_path(dir, o->name, "apply"), *why;

	strings[0] = (char *)o->path;
	for (i = 0; i < n; i++)
		strings[1 + i] = flags[i];
	if (record_write(path, RECORD_APPLY_TAG, strings, n + 1, &why) < 0)
		fatal("%s", why);
	free(strings);
	free(path);
}

static int compare_pages(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct pages of the object with build-id hex that events of kind
   touched, over all traces (addresses taken relative to each load base). */
static size_t pages_of(const struct trace *traces, size_t count, const char *hex, char kind)
{
	uint64_t *pages = NULL;
	size_t n = 0, capacity = 0, distinct = 0, t, i;

	for (t = 0; t < count; t++) {
		const struct trace *tr = &traces[t];

		for (i = 0; i < tr->event_count; i++) {
			const struct trace_event *e = &tr->events[i];
			const struct trace_object *o;

			if (e->kind != kind)
				continue;
			o = trace_object_at(tr, e->address, e->size);
			if (o && !strcmp(o->build_id, hex))
				*ARRAY_PUSH(pages, n, capacity) = e->address - o->base;
		}
	}
	qsort(pages, n, sizeof(*pages), compare_pages);
	for (i = 0; i < n; i++)
		if (i == 0 || pages[i] != pages[i - 1])
			distinct++;
	free(pages);
	return distinct;
}

/* Whether the files a and b hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
	char *argv[] = { "cmp", "-s", (char *)a, (char *)b, NULL };
	struct proc_result result;
	struct proc_request request = { .argv = argv, .stdin_null = true };

	return proc_exec(&request, &result) == 0;
}

/* One run of the workload under pagein: its traces and its stdout. */
struct traced_run {
	glob_t files;
	struct trace *traces;
	char *out;
};

/* Runs the workload under pagein into DIR/FIRST.KIND.trace (KIND empty:
   DIR/FIRST.trace), its stdout into DIR/FIRST.KIND.out, and reads the
   traces. */
static void trace_run(struct traced_run *run, char **workload, const char *dir, const char *first, const char *kind)
{
	char *suffix = xasprintf("%s%s", kind, opt.trace_children ? "traces" : "trace"), *base;

	base = record_path(dir, first, suffix);
	free(suffix);
	suffix = xasprintf("%sout", kind);
	run->out = record_path(dir, first, suffix);
	run->files = trace_workload(workload, base, run->out);
	run->traces = read_traces(&run->files);
	free(suffix);
	free(base);
}

static void free_run(struct traced_run *run)
{
	free_traces(run->traces, run->files.gl_pathc);
	globfree(&run->files);
	free(run->out);
}

/* The pages of each output before and after, from the runs on the plain
   links (build_id[0]) and on the ordered ones (build_id[1]); dies when the
   workload printed something else. */
static void report(const struct output *outputs, size_t n, struct traced_run *before, struct traced_run *after)
{
	size_t i;

	printf("%-24s %12s %8s %12s %8s\n", "output", "code pages", "ordered", "data pages", "ordered");
	for (i = 0; i < n; i++) {
		const struct output *o = &outputs[i];

		printf("%-24s %12zu %8zu %12zu %8zu\n", o->name,
		       pages_of(before->traces, before->files.gl_pathc, o->build_id[0], 'C'),
		       pages_of(after->traces, after->files.gl_pathc, o->build_id[1], 'C'),
		       pages_of(before->traces, before->files.gl_pathc, o->build_id[0], 'D'),
		       pages_of(after->traces, after->files.gl_pathc, o->build_id[1], 'D'));
	}
	stdout_close_or_die();
	if (!same_file(before->out, after->out))
		fatal("the workload printed other output with the ordered link: %s and %s differ", before->out,
		      after->out);
}

int main(int argc, char **argv)
{
	char **workload, *dir;
	struct output *outputs;
	struct traced_run traced, plain, after;
	size_t i, n;

	progname = "linkopt-startup";
	cli_parse(&command, argc, argv, &workload);
	if (opt.outputs.count == 0)
		cli_usage_error("no --output given: name the program or library to order");
	progress = isatty(STDERR_FILENO);
	dir = (char *)(opt.dir ? opt.dir : getenv("LINKOPT_DIR"));
	if (!dir || !*dir)
		cli_usage_error("no folder of records: give --dir=DIR or set LINKOPT_DIR");
	if (!(dir = realpath(dir, NULL)))
		fatal("%s: cannot use as the folder of records: %s", opt.dir ? opt.dir : getenv("LINKOPT_DIR"),
		      strerror(errno));
	find_tools();
	check_linker();
	n = opt.outputs.count;
	outputs = xcalloc(n, sizeof(*outputs));
	for (i = 0; i < n; i++)
		load_output(&outputs[i], dir, opt.outputs.items[i]);

	for (i = 0; i < n; i++) {
		char *map_flag = xasprintf("-Wl,-Map=%s", outputs[i].map);
		char *extra[] = { map_flag, NULL };

		relink(&outputs[i], extra, 0, "with GNU ld and a map");
		free(map_flag);
	}
	trace_run(&traced, workload, dir, outputs[0].name, "");
	for (i = 0; i < n; i++)
		order(&outputs[i], &traced.files, traced.traces);
	/* the report compares with the project's own link by the same linker:
	   lld and gold lay out even an unordered link otherwise than GNU ld */
	if (opt.report && opt.linker != GNU_LD) {
		for (i = 0; i < n; i++) {
			char *extra[] = { xasprintf("-fuse-ld=%s", linkers[opt.linker]), NULL };
			char *what = xasprintf("with %s, without the order", linkers[opt.linker]);

			relink(&outputs[i], extra, 0, what);
			free(extra[0]);
			free(what);
		}
		trace_run(&plain, workload, dir, outputs[0].name, "plain.");
	}
	for (i = 0; i < n; i++) {
		char **flags = order_flags(&outputs[i]);
		char *what = xasprintf("with the order (%s)", linkers[opt.linker]);

		relink(&outputs[i], flags, 1, what);
		write_apply(&outputs[i], flags, dir);
		free(what);
	}
	if (opt.report) {
		trace_run(&after, workload, dir, outputs[0].name, "after.");
		report(outputs, n, opt.linker != GNU_LD ? &plain : &traced, &after);
		free_run(&after);
		if (opt.linker != GNU_LD)
			free_run(&plain);
	}
	free_run(&traced);
	return 0;
}
