/* linkopt: the toolkit's front-end.  `linkopt report` writes the report of
   the pages start-up touches, before and after an order, as one HTML file
   (linkopt-report/model reads the traces and the binaries, linkopt-report/html writes the
   page). */
#include "cli.h"
#include "cut.h"
#include "figures.h"
#include "html.h"
#include "model.h"
#include "output.h"
#include "relation.h"
#include "trace.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum scale { SCALE_TIME, SCALE_ORDER };
static const char *const scales[] = { [SCALE_TIME] = "time", [SCALE_ORDER] = "order", NULL };

static struct {
	const char *out, *order, *log, *title;
	struct cli_list objects, binaries;
	unsigned long read_ahead_kb;
	int scale;
	bool same_program;
	struct html_figure faults[2], seconds[2], match_rate, bound;
} o = { .out = "linkopt-report.html", .read_ahead_kb = 128 };

static const char *set_read_ahead(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || n > 1048576)
		return "is not a number of KiB from 0 to 1048576";
	*(unsigned long *)target = n;
	return NULL;
}

static const char *set_count(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n))
		return "is not a count";
	*(struct html_figure *)target = (struct html_figure){ true, (double)n };
	return NULL;
}

static const char *set_percent(void *target, const char *value)
{
	double p;

	if (!cli_number(value, &p) || p < 0 || p > 100)
		return "is not a percentage from 0 to 100";
	*(struct html_figure *)target = (struct html_figure){ true, p };
	return NULL;
}

static const char *set_time(void *target, const char *value)
{
	double seconds;

	if (!figures_parse_time(value, &seconds))
		return "is not a duration (a number and s, ms or us: 5.2ms)";
	*(struct html_figure *)target = (struct html_figure){ true, seconds };
	return NULL;
}

static const struct cli_option report_options[] = {
	{ "--output", 'o', CLI_STRING, &o.out, "FILE", "the HTML file to write (default linkopt-report.html)" },
	{ "--out", 0, CLI_STRING, &o.out, "FILE", NULL }, /* the old spelling */
	{ "--object", 0, CLI_LIST, &o.objects, "GLOB",
	  "show the object whose path matches GLOB (repeatable;\n"
	  "default: the main program)" },
	{ "--read-ahead-kb", 0, CLI_CALL, &o.read_ahead_kb, "N",
	  "the cold-start model's read-around window (default 128)", .set = set_read_ahead },
	{ "--scale", 0, CLI_CHOICE, &o.scale, 0, "colour by first-touch time (default) or order", scales },
	{ "--order", 0, CLI_STRING, &o.order, "FILE", "an order deporder emitted: the match rate it records" },
	{ "--deporder-log", 0, CLI_STRING, &o.log, "FILE",
	  "deporder's messages (its stderr) of that run: the match\n"
	  "rate and the whole-function bound" },
	{ "--match-rate", 0, CLI_CALL, &o.match_rate, "P", "the traces' match rate, in percent", .set = set_percent },
	{ "--bound", 0, CLI_CALL, &o.bound, "N", "the whole-function bound, in pages", .set = set_count },
	{ "--faults-before", 0, CLI_CALL, &o.faults[0], "N", "page faults of the run before", .set = set_count },
	{ "--faults-after", 0, CLI_CALL, &o.faults[1], "N", "page faults of the run after", .set = set_count },
	{ "--time-before", 0, CLI_CALL, &o.seconds[0], "TIME", "wall time of the run before (5.2ms, 0.8s, 900us)",
	  .set = set_time },
	{ "--time-after", 0, CLI_CALL, &o.seconds[1], "TIME", "wall time of the run after", .set = set_time },
	{ "--title", 0, CLI_STRING, &o.title, "TEXT", "the page's title (default: Start-up pages of PROGRAM)" },
	{ "--binary", 0, CLI_LIST, &o.binaries, "FILE",
	  "a copy of a traced file, read when the file at the trace's\n"
	  "path is another build (relinked in place); its build-id must\n"
	  "be the trace's (repeatable)" },
	{ "--same-program", 0, CLI_FLAG, &o.same_program, 0,
	  "BEFORE's and AFTER's main programs are one program relinked\n"
	  "under another name (two programs of different paths and\n"
	  "names are refused without it)" },
	{ 0 }
};

static const struct cli_command report_command = {
	.name = "linkopt report",
	.operands = "BEFORE [AFTER]",
	.description =
		"Writes one self-contained HTML file (inline SVG, no script) that shows, for\n"
		"each object's code and data segments, a grid of its pages coloured by when\n"
		"start-up first touched them: BEFORE and AFTER (pagein traces of the same\n"
		"program, default link and ordered) side by side, the hot range marked, the\n"
		"file pages a cold start reads under a simple read-around model, and the\n"
		"figures.  The binaries are read where the traces say they were, or, relinked\n"
		"in place since, from a copy with the traced build-id (--binary, or a file\n"
		"beside the trace); BEFORE and AFTER must be of one program (the same path or\n"
		"name, or --same-program).  See linkopt-report(1).\n",
	.options = report_options,
	.footer = "Exit status: 0 success, 1 a trace or binary is unreadable or does not fit,\n"
		  "or the file cannot be written, 2 wrong usage.\n",
	.min_operands = 1,
	.missing = "give the pagein trace of the default link, and of the ordered one to compare",
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* The object of the after trace that stands for before's: the main
   program for the main program, otherwise the same file name. */
static const struct trace_object *counterpart(const struct trace *before, const struct trace_object *object,
					      const struct trace *after)
{
	size_t k;

	if (object == &before->objects[0])
		return after->object_count ? &after->objects[0] : NULL;
	for (k = 1; k < after->object_count; k++)
		if (!strcmp(base_name(after->objects[k].path), base_name(object->path)))
			return &after->objects[k];
	return NULL;
}

static void read_trace(const char *path, struct trace *t)
{
	char *why;

	if (trace_read_format(path, TRACE_PAGEIN, t, &why) < 0)
		fatal("%s: %s", path, why);
	if (!t->object_count)
		fatal("%s: the trace holds no object", path);
	if (!t->complete)
		warn("%s: the trace is incomplete (%s): its figures cover only part of the run", path,
		     t->version >= 2 ? "no '# end' line" : "its last line is cut short");
}

/* The HTML must not land on one of its inputs (lib/output.h, rule 2). */
static void declare_inputs(char **files, int count)
{
	int i;

	for (i = 0; i < count; i++)
		output_input(files[i]);
	if (o.order)
		output_input(o.order);
	if (o.log)
		output_input(o.log);
	for (i = 0; i < (int)o.binaries.count; i++)
		output_input(o.binaries.items[i]);
}

static void read_figures(struct html_report *r)
{
	char *why;

	if (o.log) {
		double rate = 0, bound = 0;
		bool has_rate, has_bound;

		if (figures_read_log(o.log, &rate, &has_rate, &bound, &has_bound, &why) < 0)
			fatal("%s", why);
		if (has_rate) {
			r->match_rate = (struct html_figure){ true, rate };
			r->match_from = o.log;
		}
		if (has_bound) {
			r->bound = (struct html_figure){ true, bound };
			r->bound_from = o.log;
		}
	}
	if (o.order) {
		double rate;

		if (figures_read_order(o.order, &rate, &why) < 0)
			fatal("%s", why);
		r->match_rate = (struct html_figure){ true, rate };
		r->match_from = o.order;
	}
	if (o.match_rate.known) {
		r->match_rate = o.match_rate;
		r->match_from = NULL;
	}
	if (o.bound.known) {
		r->bound = o.bound;
		r->bound_from = NULL;
	}
}

/* The file that holds object as trace traced it (a new string); dies
   saying where it was looked for when none does. */
static char *traced_file(const struct trace *trace, const struct trace_object *object)
{
	char *copy = xstrdup(trace->path), *folder = dirname(copy), *file, *path;

	file = model_traced_file(object, o.binaries.items, o.binaries.count, folder);
	if (!file) {
		char *where = trace_quote(folder);

		path = trace_quote(object->path);
		fatal("%s: no file has the build-id %s of the traced %s: not at its path (relinked since?), not "
		      "among the --binary files, not in %s beside the trace: give a copy of the traced file with "
		      "--binary", trace->path, object->build_id, path, where);
	}
	free(copy);
	return file;
}

static int run_report(int argc, char **argv)
{
	struct html_report r = { 0 };
	struct trace traces[2];
	char **files, *why, *html = NULL;
	size_t html_size = 0, i, n, globs;
	int count, k;
	FILE *f;

	count = cli_parse(&report_command, argc, argv, &files);
	if (count > 2)
		cli_usage_error("give one trace, or two to compare (BEFORE and AFTER)");
	if (o.faults[1].known && count < 2)
		cli_usage_error("--faults-after needs an AFTER trace");
	if (o.seconds[1].known && count < 2)
		cli_usage_error("--time-after needs an AFTER trace");
	declare_inputs(files, count);
	for (k = 0; k < count; k++) {
		read_trace(files[k], &traces[k]);
		r.traces[k] = &traces[k];
	}
	r.trace_count = (size_t)count;
	if (count == 2) {
		const struct trace_object *before = &traces[0].objects[0], *after = &traces[1].objects[0];

		r.relation = relation_of(before, after, o.same_program);
		if (r.relation == RELATION_UNRELATED) {
			why = relation_refusal(before, after, "--same-program");
			fatal("%s, %s: %s", files[0], files[1], why);
		}
		r.relation_text = relation_describe(r.relation, before, after);
	}
	globs = o.objects.count ? o.objects.count : 1;
	r.objects = xcalloc(globs, sizeof(*r.objects));
	for (i = 0; i < globs; i++) {
		const char *glob = o.objects.count ? o.objects.items[i] : NULL;
		const struct trace_object *chosen[2];

		chosen[0] = trace_object_matching(&traces[0], glob);
		if (!chosen[0])
			fatal("%s: no object's path matches '%s'", files[0], glob);
		for (n = 0; n < r.object_count; n++)
			if (r.objects[n][0].object == chosen[0])
				break;
		if (n < r.object_count)
			continue;
		if (count == 2) {
			chosen[1] = counterpart(&traces[0], chosen[0], &traces[1]);
			if (!chosen[1])
				fatal("%s: no object named %s, as in %s", files[1], base_name(chosen[0]->path), files[0]);
		}
		for (k = 0; k < count; k++) {
			char *file = traced_file(&traces[k], chosen[k]);

			/* the page must not land on a program it drew */
			output_input(file);

			if (model_build(&r.objects[r.object_count][k], &traces[k], chosen[k], file,
					o.read_ahead_kb * 1024, &why) < 0)
				fatal("%s", why);
			free(file);
		}
		r.object_count++;
	}
	read_figures(&r);
	r.title = o.title;
	r.read_ahead = o.read_ahead_kb * 1024;
	r.by_order = o.scale == SCALE_ORDER;
	memcpy(r.faults, o.faults, sizeof(r.faults));
	memcpy(r.seconds, o.seconds, sizeof(r.seconds));

	f = open_memstream(&html, &html_size);
	if (!f)
		fatal("cannot make the page: %s", strerror(errno));
	html_write(f, &r);
	if (fclose(f) != 0)
		fatal("cannot make the page: %s", strerror(errno));
	if (write_file_atomic(o.out, html, html_size) < 0)
		fatal("%s: cannot write: %s", o.out, strerror(errno));
	free(html);
	for (i = 0; i < r.object_count; i++)
		for (k = 0; k < count; k++)
			model_free(&r.objects[i][k]);
	free(r.objects);
	free(r.relation_text);
	for (k = 0; k < count; k++)
		trace_free(&traces[k]);
	free(o.objects.items);
	free(o.binaries.items);
	return EXIT_OK;
}

static struct {
	const char *out;
	unsigned long kb;
	bool clear;
} c = { .kb = 4 };

static const char *set_piece_kb(void *target, const char *value)
{
	unsigned long n;

	if (!cli_unsigned(value, &n) || !n || n % 4 || n > 1048576)
		return "is not a multiple of 4 from 4 to 1048576";
	*(unsigned long *)target = n;
	return NULL;
}

static const struct cli_option cut_options[] = {
	{ "--output", 'o', CLI_STRING, &c.out, "FILE", "write the cut file there (default: FILE itself, replaced)" },
	{ "--kb", 0, CLI_CALL, &c.kb, "N", "the pieces' size in KiB, a multiple of 4 (default 4)", .set = set_piece_kb },
	{ "--clear", 0, CLI_FLAG, &c.clear, 0, "empty the record: no cut" },
	{ 0 }
};

static const struct cli_command cut_command = {
	.name = "linkopt cut",
	.operands = "FILE",
	.description =
		"Records in FILE, a program or shared library linked with linkopt-prefetch.o\n"
		"after an order of deporder's GNU ld script (or that order rewritten by\n"
		"linkopt-bolt), that the code after its traced code is to be cut into\n"
		"mappings of N KiB at start-up: linkopt-prefetch.o's constructor does it, so\n"
		"that a start-up that runs code no trace ran reads ahead to its piece's end\n"
		"at most, where it read a whole read-ahead window.  The range runs from the\n"
		"end of the traced code (__hot_end of BOLT, __linkopt_hot_end of the script)\n"
		"to the end of its segment.  Each piece costs a mapping at start-up, but\n"
		"for a user who owns FILE or may write it, pieces already in the page cache,\n"
		"which read nothing, stay one mapping (mincore tells no one else).\n"
		"The read-only segment that holds the untraced .rodata (.rodata.untraced,\n"
		"of deporder's data-first placement, and of cold-start's when it sets the\n"
		"traced .rodata apart) is advised MADV_RANDOM at start-up, whole: a fault\n"
		"there reads its page, not a window centred on it (not in a file linked\n"
		"with a linkopt-prefetch.o older than 2026-12-07: cut without it).\n"
		"The file is written whole through a temporary file (the rule of\n"
		"linkopt(1)).  See linkopt(1).\n",
	.options = cut_options,
	.footer = "Exit status: 0 success, 1 FILE cannot be read, cut (no record, no traced\n"
		  "code) or written, 2 wrong usage.\n",
	.min_operands = 1,
	.missing = "give the linked file to cut",
};

static int run_cut(int argc, char **argv)
{
	char **files, *why;
	const char *out;
	struct cut done;

	if (cli_parse(&cut_command, argc, argv, &files) != 1)
		cli_usage_error("one FILE");
	out = c.out ? c.out : files[0];
	if (c.out)
		output_input(files[0]);
	if (cut_file(files[0], out, c.clear ? 0 : (uint64_t)c.kb * 1024, false, &done, &why) < 0)
		fatal("%s", why);
	if (done.piece)
		printf("%s: 0x%llx-0x%llx cut into %llu mappings of %lu KiB at start-up\n", out,
		       (unsigned long long)done.start, (unsigned long long)done.end,
		       (unsigned long long)((done.end - done.start + done.piece - 1) / done.piece), c.kb);
	else
		printf("%s: no cut\n", out);
	if (done.random_end > done.random_start)
		printf("%s: 0x%llx-0x%llx, the untraced read-only data, advised MADV_RANDOM at start-up: a fault there "
		       "reads its page alone\n", out, (unsigned long long)done.random_start,
		       (unsigned long long)done.random_end);
	if (done.version_1 && done.piece)
		warn("%s: a cut record of version 1 (linked with a linkopt-prefetch.o older than 2026-12-07): its "
		     "untraced read-only data is not advised to be read page by page; relink it with this linkopt's "
		     "linkopt-prefetch.o to have that too", out);
	if (done.self_at)
		warn("%s: the cut's own code (%s at 0x%llx) is in the range it cuts: a start-up faults a read-ahead "
		     "window in there before it can cut (for BOLT's output: cut the link linkopt-bolt rewrites before "
		     "it is traced, so that BOLT keeps that code hot)",
		     out, done.self_name, (unsigned long long)done.self_at);
	stdout_close_or_die();
	return EXIT_OK;
}

static const struct cli_subcommand commands[] = {
	{ "report", "an HTML page of the pages start-up touches, before and after", &report_command, run_report },
	{ "cut", "the code after the traced code in mappings of its own at start-up", &cut_command, run_cut },
	{ 0 }
};

static const struct cli_program program = {
	.name = "linkopt",
	.description = "The front-end of the linkopt toolkit.  See linkopt(1).\n",
	.commands = commands,
	.footer = "Exit status: 0 success, 1 a failure on input, 2 wrong usage.\n",
};

int main(int argc, char **argv)
{
	progname = "linkopt";
	return cli_dispatch(&program, argc, argv);
}
