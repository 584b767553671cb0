/* search: --placement=best.  The layouts that can matter for the job's
   linker are each linked (and rewritten by BOLT) for real, traced with
   pagein on every workload, scored by the cold-start model on the
   training workloads (the held-out ones are scored too, and shown, never
   used to choose), checked natively, the best few confirmed by a real cold
   start when one can be measured and by the steady-state workload's time;
   the best of each kind is made again without each training workload in
   turn and scored on it (cross), and the kind that reads least of a
   start-up it was not made from chosen (pages, and read requests each
   counted as request_pages pages); it replaces the outputs as an
   ordinary order would. */
#define _GNU_SOURCE
#include "startup.h"

#include "coldstart.h"
#include "cut.h"
#include "output.h"
#include "proc.h"
#include "record.h"
#include "trace.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One link the candidates are ordered from: the plain link of every
   output with or without -z pack-relative-relocs, and its traces. */
struct variant {
	bool relr;
	struct startup_output *outputs;    /* copies of the job's, their files the variant's own */
	struct startup_run *train;         /* one run per training workload */
	char **train_folders;              /* their traces' folders */
	bool failed;
	char *why;
	/* the data-first link BOLT rewrites (made once for every BOLT
	   candidate of the variant), its order and flags per output, and its
	   runs with branches on the training and steady workloads */
	bool bolt_made, bolt_failed;
	char *bolt_why;
	char **bolt_inputs, **bolt_orders, ***bolt_flags;
	/* per output: the copy of bolt_inputs BOLT rewrites and the branch
	   traces run, its cut record filled (linkopt cut, 4 KiB) so that the
	   constructor's cut runs in them and BOLT keeps its code hot; the
	   input itself when it cannot be cut (cut_why says why) */
	char **bolt_cut_inputs;
	char *cut_why;
	struct startup_run *branches, steady_branches;
	bool has_steady_branches;
	/* per output: what its BOLT candidates ran natively that the branch
	   traces miss, found so far (fold_native), and the start-up trace
	   that has BOLT count every block of it, or NULL */
	struct native_set *native;
	char **native_traces;
	long *native_functions;            /* per output: how many of native the trace holds */
	const char *tag;                   /* NULL, or "crossW": the variant of the training
					      workloads but the W-th (cross), named in its records */
};

/* The figures of one layout on every workload. */
struct scores {
	double code_train, code_held;      /* code pages, mean over the workloads */
	double cold_train, cold_held;      /* predicted file pages read, mean */
	double measured_train, measured_held; /* measured on a loop device, mean; -1: not measured */
	/* and the same cold starts' read requests (the loop device's) and
	   wall milliseconds, mean of the medians; with measured_ only */
	double requests_train, requests_held, wall_train, wall_held;
	double model_requests_train, model_requests_held; /* the model's read requests, mean */
	double requests_cross;             /* the model's read requests of cold_cross, mean */
	/* what the candidates are ranked by (rank): pages + request_pages x
	   requests of the model's training figures, of the measured ones
	   (-1: not measured) and of the cross (-1: not crossed) */
	double rank_train, rank_measured, rank_cross;
	double steady;                     /* steady workload's time against plain's, the median
					      of the turns' ratios; -1: not run */
	int steady_turns;                  /* turns behind steady: STEADY_TURNS, or
					      STEADY_TURNS_AGAIN when the first put it above 1.03x */
	int steady_slower;                 /* the turns in which it was slower than plain */
	double cold_cross;                 /* predicted file pages read by each training workload
					      of the layout made without it, mean; -1: not crossed */
	bool scored;
};

struct candidate {
	enum startup_placement placement;
	bool relr, bolt, new_segment;
	bool segments;                     /* GNU ld: the untraced code in SEARCH_SEGMENT_KB segments */
	bool cut;                          /* the code after its traced code (BOLT's cold code, or
					      GNU ld's untraced code) cut into mappings of
					      SEARCH_CUT_KB at start-up (BOLT's else one mapping) */
	const char *llvm_bolt;             /* NULL: linkopt-bolt's own choice */
	double steady_weight;              /* the steady workload's profile weight, 0: none */
	unsigned align_text;               /* BOLT's -align-text, 0: linkopt-bolt's own (64) */
	char *name;
	struct variant *variant;
	char **files;                      /* per output: the candidate's file */
	char (*build_id)[128];             /* per output */
	char ***flags;                     /* per output: the order's link flags (for the apply record) */
	char **orders;                     /* per output: the candidate's own order file */
	char **ordered;                    /* per output: the ordered link BOLT rewrote, or the
					      GNU ld link before its cut, or NULL */
	bool failed;
	char *why;
	char *native, *native_example;     /* BOLT: what fold_native found and did */
	size_t *folded;                    /* per output: how many of the variant's native
					      functions its rewrite kept hot (the first ones) */
	bool cross;                        /* made for cross: files DIR/NAME.candidate.N.cross */
	double seconds;
	struct scores s;
};

struct search {
	struct startup_job *job;
	const struct search_options *so;
	struct startup_output *outputs;    /* the job's */
	size_t n;
	struct variant variants[2];
	size_t variant_count;
	struct candidate *candidates;
	size_t count, capacity;
	struct candidate plain;            /* the default link (the project's own, by GNU ld) */
	bool measure;                      /* a real cold start can be measured (root, pfstat) */
	char *cold_record;                 /* NAME.best.cold, what it holds */
	bool cold_record_failed;
	char *pfstat;
	char *plain_check;                 /* the check's output with the plain links */
	char *native_why;                  /* why the model has no native run, or NULL */
	size_t trace_number;
	unsigned steady_repeat;            /* runs of the steady workload per sample, 0: not yet known */
	bool crossed;                      /* cross_kinds crossed the best of each kind */
};

static void say(const struct search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct search *s, const char *fmt, ...)
{
	va_list ap;

	if (s->so->quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void candidate_fail(struct candidate *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void candidate_fail(struct candidate *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&c->why, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	c->failed = true;
}

/* The workloads (and check, steady) as one line, for the state. */
static char *search_workload_line(const struct search *s)
{
	char *line = xstrdup("best of:");
	size_t w;

	for (w = 0; w < s->so->train_count; w++) {
		char *more = xasprintf("%s %s;", line, s->so->train[w]);

		free(line);
		line = more;
	}
	if (s->job->check) {
		char *more = xasprintf("%s check: %s;", line, s->job->check);

		free(line);
		line = more;
	}
	if (s->so->steady) {
		char *more = xasprintf("%s steady: %s;", line, s->so->steady);

		free(line);
		line = more;
	}
	/* so is one that weighs read requests otherwise */
	if (s->so->request_pages) {
		char *more = xasprintf("%s request-pages: %lu;", line, s->so->request_pages);

		free(line);
		line = more;
	}
	/* a search left without some candidates is another search */
	if (s->so->no_relr || s->so->no_bolt || s->so->no_segments || s->so->no_cut || s->so->no_cross) {
		char *more = xasprintf("%s without:%s%s%s%s%s;", line, s->so->no_relr ? " relr" : "",
				       s->so->no_bolt ? " bolt" : "", s->so->no_segments ? " segments" : "",
				       s->so->no_cut ? " cut" : "", s->so->no_cross ? " cross" : "");

		free(line);
		line = more;
	}
	return line;
}

/* The job as it would order candidate c (its placement, relr, BOLT). */
/* The size of the segments a +seg candidate puts the untraced code in
   (deporder --untraced-segment-kb), one size to keep the search short: on
   SQLite's shell (bench/segments/run) 16 KiB segments cost a warm start
   1.02x to 1.05x, 4 KiB ones 1.13x, and 64 KiB ones cut less. */
#define SEARCH_SEGMENT_KB "16"
/* The pieces a +cut candidate cuts BOLT's cold code (or GNU ld's
   untraced code) into at start-up (lib/cut.h): on SQLite's shell
   (bench/split/run) 4 KiB pieces read least held out (BOLT's 156.0 pages
   against 189.0 at 16 KiB; GNU ld's 187.5 against 202.5). */
#define SEARCH_CUT_KB 4

static struct startup_job job_of(const struct search *s, const struct candidate *c)
{
	struct startup_job job = *s->job;

	job.placement = c->placement;
	job.untraced_segment_kb = c->segments ? SEARCH_SEGMENT_KB : NULL;
	job.relr = c->relr;
	job.bolt = c->bolt;
	job.bolt_program = c->llvm_bolt;
	job.check = NULL;
	job.report = false;
	return job;
}

/* The job with the workload line (run by sh, its processes traced). */
static struct startup_job job_running(const struct startup_job *base, const char *line)
{
	static char *argv[4];
	struct startup_job job = *base;

	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)line;
	argv[3] = NULL;
	job.workload = argv;
	job.trace_children = true;
	return job;
}

/* Puts files (one per output) in place of the outputs. */
static void install(const struct search *s, char **files)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		link_install(&s->outputs[i], files[i]);
}

/* Traces workload line on what is in place: a run kept in *run; returns
   the folder of its traces (DIR/NAME.search.N.traces). */
static char *trace_line(struct search *s, const char *line, struct startup_run *run, bool branches)
{
	struct startup_job job = job_running(s->job, line);
	char *kind = xasprintf("search.%zu.", s->trace_number++), *suffix = xasprintf("%straces", kind);
	char *base = record_path(job.dir, s->outputs[0].name, suffix);

	run_traced(&job, run, s->outputs[0].name, kind, branches);
	free(kind);
	free(suffix);
	return base;
}

/* The plain link of each output, with or without relr (link_variant),
   its traces on the training workloads (trace_variant). */
static void link_variant(struct search *s, struct variant *v, bool relr)
{
	struct startup_job job = *s->job;
	size_t i;

	job.relr = relr;
	job.bolt = false;
	v->relr = relr;
	v->outputs = xcalloc(s->n, sizeof(*v->outputs));
	for (i = 0; i < s->n; i++) {
		struct startup_output *o = &v->outputs[i];
		char *map_flag, *extra[2];

		*o = s->outputs[i];
		o->plain = record_path(job.dir, o->name, relr ? "relr.default" : "default");
		o->map = record_path(job.dir, o->name, relr ? "relr.map" : "map");
		map_flag = xasprintf("-Wl,-Map=%s", o->map);
		extra[0] = map_flag;
		extra[1] = NULL;
		if (!link_try(&job, o, o->plain, extra, relr ? "with -z pack-relative-relocs and a map" : "with a map",
			      &v->why)) {
			v->failed = true;
			free(map_flag);
			return;
		}
		link_build_id(o->plain, o->build_id[BUILD_PLAIN], sizeof(o->build_id[BUILD_PLAIN]));
		free(map_flag);
	}
}

static void trace_variant(struct search *s, struct variant *v)
{
	size_t i, w;

	for (i = 0; i < s->n; i++)
		link_install(&s->outputs[i], v->outputs[i].plain);
	v->train = xcalloc(s->so->train_count, sizeof(*v->train));
	v->train_folders = xcalloc(s->so->train_count, sizeof(char *));
	for (w = 0; w < s->so->train_count; w++)
		v->train_folders[w] = trace_line(s, s->so->train[w], &v->train[w], false);
}

/* All of a variant's training runs as one run (the traces of every
   workload), for deporder. */
static struct startup_run all_runs(const struct search *s, const struct startup_run *runs)
{
	struct startup_run all = { 0 };
	size_t w, t, k = 0, total = 0;

	for (w = 0; w < s->so->train_count; w++)
		total += runs[w].files.gl_pathc;
	all.files.gl_pathc = total;
	all.files.gl_pathv = xcalloc(total + 1, sizeof(char *));
	all.traces = xcalloc(total ? total : 1, sizeof(*all.traces));
	for (w = 0; w < s->so->train_count; w++)
		for (t = 0; t < runs[w].files.gl_pathc; t++, k++) {
			all.files.gl_pathv[k] = runs[w].files.gl_pathv[t];
			all.traces[k] = runs[w].traces[t];
		}
	return all;
}

static struct candidate *add_candidate(struct search *s, struct variant *v, enum startup_placement placement,
					bool bolt, const char *llvm_bolt, bool new_segment, double steady_weight,
					unsigned align_text, bool segments)
{
	struct candidate *c = ARRAY_PUSH(s->candidates, s->count, s->capacity);
	const char *version = llvm_bolt ? strrchr(llvm_bolt, '-') : NULL;
	char *name;

	memset(c, 0, sizeof(*c));
	c->placement = placement;
	c->relr = v->relr;
	c->bolt = bolt;
	c->llvm_bolt = llvm_bolt;
	c->new_segment = new_segment;
	c->steady_weight = steady_weight;
	c->align_text = align_text;
	c->segments = segments;
	c->variant = v;
	c->name = xasprintf("%s%s%s%s%s%s", startup_placement_names[placement], segments ? "+seg" SEARCH_SEGMENT_KB : "",
			    v->relr ? "+relr" : "",
			    bolt ? "+bolt" : "", bolt && version ? version : "", bolt && new_segment ? "/new-segment" : "");
	if (bolt && align_text) {
		name = xasprintf("%s/align:%u", c->name, align_text);
		free(c->name);
		c->name = name;
	}
	if (bolt && steady_weight > 0) {
		name = xasprintf("%s/steady:%g", c->name, steady_weight);
		free(c->name);
		c->name = name;
	}
	c->files = xcalloc(s->n, sizeof(*c->files));
	c->build_id = xcalloc(s->n, sizeof(*c->build_id));
	c->flags = xcalloc(s->n, sizeof(*c->flags));
	c->orders = xcalloc(s->n, sizeof(*c->orders));
	c->ordered = xcalloc(s->n, sizeof(*c->ordered));
	c->s.measured_train = c->s.measured_held = c->s.steady = c->s.cold_cross = -1;
	c->s.rank_measured = c->s.rank_cross = -1;
	return c;
}

/* c made a +cut candidate: BOLT's cold code (GNU ld's untraced code)
   cut into pieces of SEARCH_CUT_KB at start-up. */
static void cut_candidate(struct candidate *c)
{
	char *name = xasprintf("%s+cut%d", c->name, SEARCH_CUT_KB);

	c->cut = true;
	free(c->name);
	c->name = name;
}

/* The candidates that can matter for the job's linker. */
static void list_candidates(struct search *s)
{
	static const char *const bolts[] = { "llvm-bolt-16", "llvm-bolt-22", NULL };
	size_t v;
	int p, b;

	for (v = 0; v < s->variant_count; v++) {
		struct variant *var = &s->variants[v];

		if (var->failed)
			continue;
		for (p = PLACEMENT_HEAD; p <= PLACEMENT_DATA_FIRST; p++)
			if (p != PLACEMENT_DATA_FIRST || s->job->linker == LINKER_GNU_LD)
				add_candidate(s, var, p, false, NULL, false, 0, 0, false);
		/* GNU ld: the untraced code in segments of its own, where it
		   follows the traced code (head, data-first): a window read
		   from the traced code's last page stops at its segment's end
		   (cold-start puts the traced code's tail after the untraced,
		   and gained nothing from it) */
		if (s->job->linker == LINKER_GNU_LD && !s->so->no_segments) {
			add_candidate(s, var, PLACEMENT_HEAD, false, NULL, false, 0, 0, true);
			add_candidate(s, var, PLACEMENT_DATA_FIRST, false, NULL, false, 0, 0, true);
		}
	}
	if (s->job->linker != LINKER_GNU_LD || !s->job->tools.bolt || s->so->no_bolt)
		return;
	for (v = 0; v < s->variant_count; v++) {
		struct variant *var = &s->variants[v];

		if (var->failed)
			continue;
		for (b = 0; bolts[b]; b++) {
			char *found = proc_which(bolts[b]);

			if (!found)
				continue;
			free(found);
			add_candidate(s, var, PLACEMENT_DATA_FIRST, true, bolts[b], false, 0, 0, false);
		}
	}
}

/* cut_file on the search's own file path, written to copy. */
static int cut_copy(const char *path, const char *copy, uint64_t piece, bool to_trace, char **why)
{
	struct cut done;

	return cut_file(path, copy, piece, to_trace, &done, why);
}

/* Links candidate c (not BOLT's): ordered from its variant's traces,
   into DIR/NAME.candidate.N with its own order DIR/NAME.candidate.N.order. */
static void make_ordered(struct search *s, struct candidate *c, size_t index)
{
	struct startup_job job = job_of(s, c);
	struct startup_run all = all_runs(s, c->variant->train);
	size_t i;

	for (i = 0; i < s->n && !c->failed; i++) {
		struct startup_output o = c->variant->outputs[i];
		char *suffix = xasprintf("candidate.%zu%s", index, c->cross ? ".cross" : "");
		char *order_suffix = xasprintf("candidate.%zu%s.order", index, c->cross ? ".cross" : "");
		char *why;

		o.order = c->orders[i] = record_path(job.dir, o.name, order_suffix);
		if (order_make_checked(&job, &o, &all) != 0) {
			candidate_fail(c, "%s: deporder made no order (see %s.log)", o.name, o.order);
		} else {
			c->flags[i] = order_flags(&job, &o);
			c->files[i] = record_path(job.dir, o.name, suffix);
			if (c->cut) {
				/* linked beside, then its copy with the cut
				   record filled: the rewrite of the link */
				char *uncut = xasprintf("%s.uncut", suffix);

				c->ordered[i] = record_path(job.dir, o.name, uncut);
				free(uncut);
			}
			if (!link_try(&job, &o, c->cut ? c->ordered[i] : c->files[i], c->flags[i], "with the order",
				      &why)) {
				candidate_fail(c, "%s", why);
				free(why);
			} else if (c->cut && cut_copy(c->ordered[i], c->files[i], SEARCH_CUT_KB * 1024, false, &why) < 0) {
				candidate_fail(c, "%s", why);
				free(why);
			} else {
				link_build_id(c->files[i], c->build_id[i], sizeof(c->build_id[i]));
			}
		}
		free(suffix);
		free(order_suffix);
	}
	free(all.files.gl_pathv);
	free(all.traces);
}

/* DIR/NAME.search[.relr][.TAG].WHAT: a record of variant v's. */
static char *variant_record(const struct startup_job *job, const struct variant *v, const char *name, const char *what)
{
	char *suffix = xasprintf("search%s%s%s.%s", v->relr ? ".relr" : "", v->tag ? "." : "", v->tag ? v->tag : "", what);
	char *path = record_path(job->dir, name, suffix);

	free(suffix);
	return path;
}

/* The data-first link of variant v with --emit-relocs, which each BOLT
   candidate of v rewrites, made and traced with branches once: on the
   training workloads, and on the steady one when there is one. */
static void make_bolt_input(struct search *s, struct variant *v)
{
	struct candidate probe = { .placement = PLACEMENT_DATA_FIRST, .relr = v->relr, .bolt = true, .variant = v };
	struct startup_job job = job_of(s, &probe);
	struct startup_run all = all_runs(s, v->train);
	size_t i, w;

	v->bolt_made = true;
	v->bolt_inputs = xcalloc(s->n, sizeof(char *));
	v->bolt_orders = xcalloc(s->n, sizeof(char *));
	v->bolt_flags = xcalloc(s->n, sizeof(char **));
	for (i = 0; i < s->n && !v->bolt_failed; i++) {
		struct startup_output o = v->outputs[i];
		char *why;

		o.order = v->bolt_orders[i] = variant_record(&job, v, o.name, "bolt.order");
		if (order_make_checked(&job, &o, &all) != 0) {
			v->bolt_failed = true;
			v->bolt_why = xasprintf("%s: deporder made no order (see %s.log)", o.name, o.order);
			break;
		}
		v->bolt_flags[i] = order_flags(&job, &o);
		v->bolt_inputs[i] = variant_record(&job, v, o.name, "bolt-input");
		if (!link_try(&job, &o, v->bolt_inputs[i], v->bolt_flags[i], "with the order and --emit-relocs", &why)) {
			v->bolt_failed = true;
			v->bolt_why = why;
		}
	}
	free(all.files.gl_pathv);
	free(all.traces);
	if (v->bolt_failed)
		return;
	v->bolt_cut_inputs = xcalloc(s->n, sizeof(char *));
	for (i = 0; i < s->n; i++) {
		v->bolt_cut_inputs[i] = variant_record(&job, v, v->outputs[i].name, "bolt-input.cut");
		if (!v->cut_why)
			cut_copy(v->bolt_inputs[i], v->bolt_cut_inputs[i], 0, true, &v->cut_why);
	}
	if (v->cut_why)
		for (i = 0; i < s->n; i++) {
			free(v->bolt_cut_inputs[i]);
			v->bolt_cut_inputs[i] = xstrdup(v->bolt_inputs[i]);
		}
	install(s, v->bolt_cut_inputs);
	v->branches = xcalloc(s->so->train_count, sizeof(*v->branches));
	for (w = 0; w < s->so->train_count; w++)
		free(trace_line(s, s->so->train[w], &v->branches[w], true));
	if (s->so->steady) {
		free(trace_line(s, s->so->steady, &v->steady_branches, true));
		v->has_steady_branches = true;
	}
}

/* Whether the trace at run's t-th file holds the object with build-id hex. */
static bool run_holds(const struct startup_run *run, size_t t, const char *hex)
{
	size_t j;

	for (j = 0; j < run->traces[t].object_count; j++)
		if (!strcmp(run->traces[t].objects[j].build_id, hex))
			return true;
	return false;
}

/* Rewrites output i of BOLT candidate c from the data-first link of its
   variant, with its BOLT, alignment and steady-state weight, and native
   (NULL: none) as one more start-up trace; false (c failed) when it
   cannot. */
static bool rewrite(struct search *s, struct candidate *c, size_t index, size_t i, const char *native)
{
	struct variant *v = c->variant;
	char *suffix = xasprintf("candidate.%zu%s", index, c->cross ? ".cross" : "");
	char *log_suffix = xasprintf("candidate.%zu%s.bolt.log", index, c->cross ? ".cross" : "");
	char *log = record_path(s->job->dir, s->outputs[i].name, log_suffix);
	char **argv = xcalloc(26 + 2 * s->so->train_count * 8, sizeof(*argv)), **owned = xcalloc(4, sizeof(char *));
	struct proc_request request = { .argv = argv, .stdin_null = true, .out = PROC_LOG, .err = PROC_TO_STDOUT,
					.log = log };
	struct proc_result result;
	size_t k = 0, t, w, used = 0, n_owned = 0;
	char hex[128];

	c->orders[i] = v->bolt_orders[i];
	c->flags[i] = v->bolt_flags[i];
	c->ordered[i] = v->bolt_inputs[i];
	link_build_id(c->ordered[i], hex, sizeof(hex));
	free(c->files[i]);
	c->files[i] = record_path(s->job->dir, s->outputs[i].name, suffix);
	argv[k++] = s->job->tools.bolt;
	argv[k++] = "-q";
	argv[k++] = "--bolt";
	argv[k++] = (char *)c->llvm_bolt;
	for (w = 0; w < s->so->train_count; w++)
		for (t = 0; t < v->branches[w].files.gl_pathc; t++)
			if (run_holds(&v->branches[w], t, hex)) {
				argv[k++] = "--startup";
				argv[k++] = v->branches[w].files.gl_pathv[t];
				used++;
			}
	if (!used) {
		candidate_fail(c, "%s: the workloads did not run its ordered link", s->outputs[i].name);
		goto out;
	}
	if (native) {
		argv[k++] = "--startup";
		argv[k++] = (char *)native;
	}
	if (c->steady_weight > 0 && v->has_steady_branches)
		for (t = 0; t < v->steady_branches.files.gl_pathc; t++)
			if (run_holds(&v->steady_branches, t, hex)) {
				owned = xrealloc(owned, (n_owned + 2) * sizeof(char *));
				argv[k++] = "--profile";
				argv[k++] = owned[n_owned++] = xasprintf("%s:%g", v->steady_branches.files.gl_pathv[t],
									 c->steady_weight);
			}
	if (c->align_text) {
		owned = xrealloc(owned, (n_owned + 2) * sizeof(char *));
		argv[k++] = "--bolt-option";
		argv[k++] = owned[n_owned++] = xasprintf("-align-text=%u", c->align_text);
	}
	if (c->new_segment)
		argv[k++] = "--new-segment";
	argv[k++] = "--no-check";
	argv[k++] = "-o";
	argv[k++] = c->files[i];
	argv[k++] = v->bolt_cut_inputs[i];
	unlink(log);
	say(s, "%s: rewriting with %s%s", s->outputs[i].name, c->llvm_bolt,
	    native ? ", every block of what ran natively kept hot" : "");
	if (proc_exec(&request, &result) != 0) {
		candidate_fail(c, "%s: linkopt-bolt failed (%s; see %s)", s->outputs[i].name,
			       proc_describe(result.status), log);
	} else if (!v->cut_why) {
		/* the record BOLT copied describes the input: made again for
		   BOLT's own layout, its cold code a mapping of its own, cut
		   into pieces for +cut (the path the traces ran) */
		char *why;

		if (cut_copy(c->files[i], c->files[i], c->cut ? SEARCH_CUT_KB * 1024 : CUT_WHOLE, false, &why) < 0) {
			if (c->cut) {
				candidate_fail(c, "%s", why);
			} else if (cut_copy(c->files[i], c->files[i], 0, false, &why) < 0) {
				candidate_fail(c, "%s", why);
			}
			free(why);
		}
	} else if (c->cut) {
		candidate_fail(c, "%s", v->cut_why);
	}
	if (!c->failed)
		link_build_id(c->files[i], c->build_id[i], sizeof(c->build_id[i]));
out:
	for (t = 0; t < n_owned; t++)
		free(owned[t]);
	free(owned);
	free(argv);
	free(suffix);
	free(log_suffix);
	free(log);
	return !c->failed;
}

/* What the training workloads run natively of BOLT candidate c (in place)
   that the branch traces BOLT was given did not: valgrind's long double is
   64 bits, so code that runs natively can have no count, and BOLT moves
   it to the cold part, a read-ahead window away.  What is found joins what
   the variant's candidates found before, and each output with new ones
   is rewritten with every block of them counted once (a start-up trace of
   the variant's, DIR/NAME.search[.relr].native).  Says what it did in
   c->native. */
static void fold_native(struct search *s, struct candidate *c, size_t index)
{
	struct variant *v = c->variant;
	struct native_set *found = xcalloc(s->n, sizeof(*found));
	size_t i, j, w, added = 0;
	char *why;

	if (!v->native) {
		v->native = xcalloc(s->n, sizeof(*v->native));
		v->native_traces = xcalloc(s->n, sizeof(char *));
		v->native_functions = xcalloc(s->n, sizeof(long));
	}
	for (w = 0; w < s->so->train_count && !c->native; w++)
		if (native_find(s->job, s->outputs, s->n, s->so->train[w], &v->branches[w], found, &why) < 0) {
			c->native = xasprintf("native run: %s", why);
			free(why);
		}
	for (i = 0; i < s->n && !c->native && !c->failed; i++) {
		size_t before = v->native[i].count;
		char *path;
		long functions;

		for (j = 0; j < found[i].count; j++)
			native_add(&v->native[i], found[i].names[j]);
		if (v->native[i].count == before)
			continue;
		path = variant_record(s->job, v, s->outputs[i].name, "native");
		functions = native_profile_write(path, v->bolt_inputs[i], s->outputs[i].path, &v->native[i], &why);
		if (functions < 0) {
			c->native = xasprintf("native run: %s", why);
			free(why);
			free(path);
		} else if (v->native_traces[i] && functions == v->native_functions[i]) {
			/* nothing new that the data-first link defines */
			free(path);
		} else if (functions > 0) {
			added += (size_t)(functions - v->native_functions[i]);
			v->native_functions[i] = functions;
			if (!c->native_example)
				c->native_example = xstrdup(v->native[i].names[before]);
			free(v->native_traces[i]);
			v->native_traces[i] = path;
			rewrite(s, c, index, i, path);
		} else {
			free(path);
		}
	}
	if (!c->failed) {
		c->folded = xcalloc(s->n, sizeof(*c->folded));
		for (i = 0; i < s->n; i++)
			c->folded[i] = v->native_traces[i] ? v->native[i].count : 0;
	}
	if (!c->native && !c->failed) {
		size_t kept = 0;

		for (i = 0; i < s->n; i++)
			kept += v->native_traces[i] ? (size_t)v->native_functions[i] : 0;
		if (added)
			c->native = xasprintf("%zu function%s ran natively and in no trace (%s%s): kept hot",
					      added, added == 1 ? "" : "s", c->native_example, added > 1 ? ", ..." : "");
		else if (kept)
			c->native = xasprintf("%zu function%s run natively kept hot, as found before", kept,
					      kept == 1 ? "" : "s");
		else
			c->native = xstrdup("nothing ran natively that the traces missed");
	}
	for (i = 0; i < s->n; i++)
		native_free(&found[i]);
	free(found);
	if (!c->failed)
		install(s, c->files);
}

/* Rewrites BOLT candidate c from the data-first link of its variant, with
   its BOLT, alignment and steady-state weight; then again with what the
   workloads run natively and not under valgrind (fold_native). */
static void make_bolted(struct search *s, struct candidate *c, size_t index)
{
	struct variant *v = c->variant;
	size_t i;

	if (!v->bolt_made)
		make_bolt_input(s, v);
	if (v->bolt_failed) {
		candidate_fail(c, "%s", v->bolt_why);
		return;
	}
	for (i = 0; i < s->n && !c->failed; i++)
		rewrite(s, c, index, i, v->native_traces ? v->native_traces[i] : NULL);
	if (c->failed)
		return;
	install(s, c->files);
	fold_native(s, c, index);
}

/* The file pages a cold start of the object with build-id hex, the file at
   path, reads at the job's read-ahead, as the model replays the first
   trace of run that holds it, and in how many read requests; false when
   none does. */
static bool predict(const struct search *s, const struct startup_run *run, const char *hex, const char *path,
		    const struct native_pages *native, uint64_t *pages, uint64_t *requests)
{
	unsigned long kb = s->so->read_ahead_kb;
	struct coldstart_file file;
	size_t t, k, n = 0, capacity = 0, prefetch_at;
	uint64_t *addresses = NULL;
	char *why;

	for (t = 0; t < run->files.gl_pathc; t++) {
		const struct trace *tr = &run->traces[t];
		const struct trace_object *o = NULL;
		struct coldstart_reads reads;

		for (k = 0; k < tr->object_count && !o; k++)
			if (!strcmp(tr->objects[k].build_id, hex))
				o = &tr->objects[k];
		if (!o)
			continue;
		if (coldstart_file_read(&file, path, &why) < 0)
			fatal("%s", why);
		addresses = coldstart_trace_touches(tr, o, &file, &n, &prefetch_at);
		capacity = n;
		/* what the native run faulted in and the trace did not touch
		   (valgrind is not the CPU), after it */
		for (k = 0; native && k < native->count; k++)
			*ARRAY_PUSH(addresses, n, capacity) = native->addresses[k];
		reads = coldstart_replay_at(&file, o == &tr->objects[0], addresses, n, kb, prefetch_at);
		*pages = reads.pages;
		*requests = reads.requests;
		coldstart_file_free(&file);
		free(addresses);
		return true;
	}
	return false;
}

/* What a cold start of pages file pages in requests read requests costs,
   in pages: what the candidates are ranked by. */
static double cost_of(const struct search *s, double pages, double requests)
{
	return pages + (double)s->so->request_pages * requests;
}

/* The read requests of c's measured training cold starts that rank it:
   the loop device's, or the model's where the device's could not be told
   from its other reads (the model counted the device's exactly where
   both were known: bench/best). */
static double measured_requests(const struct scores *c)
{
	return c->requests_train >= 0 ? c->requests_train : c->model_requests_train;
}

/* Scores candidate c (in place) on workload line: *code, the code pages
   its run touched, and *cold, the file pages the model predicts a cold
   start reads, *requests in how many read requests, summed over the
   outputs (known: a run already made of c on line, else it is traced
   now); false (c failed) when the workload does not load it or fails
   natively with it. */
static bool score_line(struct search *s, struct candidate *c, const char *line, struct startup_run *known,
		       double *code, double *cold, double *requests)
{
	struct startup_run fresh, *run = known ? known : &fresh;
	struct native_pages *native = xcalloc(s->n, sizeof(*native));
	bool ok = true;
	size_t i;
	char *why;
	int got;

	*code = *cold = *requests = 0;
	if (!known)
		free(trace_line(s, line, &fresh, false));
	if (!s->native_why && (got = native_fault_pages(s->job, s->outputs, s->n, line, native, &why)) < 0) {
		if (c != &s->plain && got == -2) {
			/* not the layout's fault, but its model would lack
			   what the others have: it is not chosen */
			candidate_fail(c, "the native run of the workload '%s' with it could not be recorded: %s", line,
				       why);
			free(why);
			ok = false;
		} else if (c != &s->plain) {
			/* the plain link (scored first) ran it natively: this
			   layout breaks the program where valgrind cannot see it
			   (BOLT 16's rewrite of Python computed garbage) */
			candidate_fail(c, "the workload '%s' fails natively with it, not with the plain link: %s", line,
				       why);
			free(why);
			ok = false;
		} else {
			/* the plain link's own native run failed: no candidate
			   gets a native model (the kernel refused to record its faults) */
			s->native_why = xasprintf("%s, workload '%s': %s", c->name, line, why);
			free(why);
		}
	}
	for (i = 0; i < s->n && ok; i++) {
		uint64_t pages, reads;

		if (!predict(s, run, c->build_id[i], c->files[i], s->native_why ? NULL : &native[i], &pages, &reads)) {
			candidate_fail(c, "%s: the workload '%s' did not load it", s->outputs[i].name, line);
			ok = false;
			break;
		}
		*cold += pages;
		*requests += reads;
		*code += measure_pages(run, c->build_id[i], TRACE_CODE);
	}
	for (i = 0; i < s->n; i++)
		free(native[i].addresses);
	free(native);
	if (!known)
		run_free(&fresh);
	return ok;
}

/* Traces candidate c (in place) on every workload and scores it (on the
   training workloads from known, when given: runs already made of c);
   false (c failed) when a workload does not load it. */
static bool score(struct search *s, struct candidate *c, struct startup_run *known)
{
	size_t w, lines = s->so->train_count + s->so->held_count;

	for (w = 0; w < lines; w++) {
		bool held = w >= s->so->train_count;
		const char *line = held ? s->so->held[w - s->so->train_count] : s->so->train[w];
		double code, cold, requests;

		if (!score_line(s, c, line, known && !held ? &known[w] : NULL, &code, &cold, &requests))
			return false;
		if (held) {
			c->s.code_held += code / s->so->held_count;
			c->s.cold_held += cold / s->so->held_count;
			c->s.model_requests_held += requests / s->so->held_count;
		} else {
			c->s.code_train += code / s->so->train_count;
			c->s.cold_train += cold / s->so->train_count;
			c->s.model_requests_train += requests / s->so->train_count;
		}
	}
	c->s.rank_train = cost_of(s, c->s.cold_train, c->s.model_requests_train);
	c->s.scored = true;
	return true;
}

/* Runs the check natively with c in place: the same output as with the
   plain links, exit 0. */
static bool check(struct search *s, struct candidate *c, size_t index)
{
	char *suffix, *out;
	int status;

	if (!s->job->check)
		return true;
	suffix = xasprintf("check.%zu.out", index);
	out = record_path(s->job->dir, s->outputs[0].name, suffix);
	status = run_check(s->job, out);
	if (status != 0)
		candidate_fail(c, "the check failed (%s)", proc_describe(status));
	else if (!run_same_output(s->plain_check, out))
		candidate_fail(c, "the check printed something else (%s)", out);
	free(suffix);
	free(out);
	return !c->failed;
}

/* The line that says what the cold starts of best cost against plain's,
   when both were measured: the pages are read in requests, each of which
   costs a device its latency whatever its size (a cut reads a page where a
   window would read 32, in a request of its own).  Names a layout whose
   cold start made more requests and took longer than plain's on the
   training or held-out workloads (held: there are some), and, when the
   search ranked by pages alone (request_pages 0), the option that would
   have counted them. */
static void cost_line(FILE *out, const struct candidate *best, const struct candidate *plain, bool held,
		      unsigned long request_pages)
{
	const struct scores *b = &best->s, *p = &plain->s;
	bool dearer;

	if (b->measured_train < 0 || p->measured_train < 0)
		return;
	if (b->requests_train < 0 || p->requests_train < 0) {
		fprintf(out, "cost: the read requests of a cold start measured could not be told apart from other reads "
			"of the device (pfstat)\n");
		return;
	}
	dearer = (b->requests_train > p->requests_train && b->wall_train > p->wall_train) ||
		 (held && b->requests_held > p->requests_held && b->wall_held > p->wall_held);
	fprintf(out, "cost: the cold starts measured, training: %.1f read requests (the model: %.1f) and %.1f ms "
		"against %.1f (%.1f) and %.1f plain", b->requests_train, b->model_requests_train, b->wall_train,
		p->requests_train, p->model_requests_train, p->wall_train);
	if (held)
		fprintf(out, "; held out: %.1f (%.1f) and %.1f ms against %.1f (%.1f) and %.1f plain",
			b->requests_held, b->model_requests_held, b->wall_held, p->requests_held,
			p->model_requests_held, p->wall_held);
	if (dearer && !request_pages)
		fprintf(out, " (more read requests than plain, and slower: with --request-pages 0 the search counts "
			"pages read, not requests)");
	else if (dearer)
		fprintf(out, " (more read requests than plain, and slower)");
	fputc('\n', out);
}

/* The cold starts measured of each workload: their median is its figure
   (a program's runs may differ: one Python run in three or seven reads a
   read-ahead window more than the others). */
#define COLD_RUNS "3"

/* Adds to DIR/NAME.best.cold the line "LAYOUT<tab>WORKLOAD<tab>JSON",
   pfstat's report of a measurement (each run's pages read, read requests
   and sectors): what the table's medians were made of.  The file holds
   this search's measurements (written whole each time, by rename).  A
   record that cannot be written is said, once, and changes nothing else. */
static void keep_measurement(struct search *s, const char *layout, const char *line, const char *json)
{
	char *path, *more;
	size_t len = strlen(json);

	while (len && json[len - 1] == '\n')
		len--;
	more = xasprintf("%s%s\t%s\t%.*s\n", s->cold_record ? s->cold_record : "", layout, line, (int)len, json);
	free(s->cold_record);
	s->cold_record = more;
	if (s->cold_record_failed)
		return;
	path = record_path(s->job->dir, s->outputs[0].name, "best.cold");
	if (write_file_atomic(path, more, strlen(more)) < 0) {
		say(s, "%s: cannot keep the cold starts measured: %s", path, strerror(errno));
		s->cold_record_failed = true;
	}
	free(path);
}

/* The sum of the medians of key ("\"read_requests\": {\"median\": ") in
   pfstat's json, and how many there are in *count; -1 when one is not a
   number (pfstat's null: a device's reads that may not be the cold
   files' own). */
static double json_medians(const char *json, const char *key, size_t *count)
{
	const char *at;
	char *end;
	double sum = 0;
	bool null = false;

	*count = 0;
	for (at = json; (at = strstr(at, key)); ++*count) {
		at += strlen(key);
		sum += strtod(at, &end);
		null |= end == at;
	}
	return null ? -1 : sum;
}

/* The file pages of the outputs a real cold start of workload line reads,
   with what is in place: pfstat --cold on a loop device with the job's
   read-ahead, the median of COLD_RUNS runs; -1 when it cannot be measured
   (why in *why).  *requests: the loop devices' read requests (-1 when
   pfstat could not tell them from other reads), *wall: the wall
   milliseconds, medians too. */
static double measure_line(struct search *s, const char *layout, const char *line, double *requests, double *wall,
			   char **why)
{
	char **argv = xcalloc(16 + 2 * s->n, sizeof(*argv)), *log;
	const char *json;
	struct proc_request request = { .argv = argv, .out = PROC_CAPTURE, .err = PROC_LOG };
	struct proc_result result;
	size_t k = 0, i, files = 0, devices = 0, walls = 0;
	double pages = 0;

	log = record_path(s->job->dir, s->outputs[0].name, "search.pfstat.log");
	request.log = log;
	argv[k++] = s->pfstat;
	argv[k++] = "-n";
	argv[k++] = COLD_RUNS;
	for (i = 0; i < s->n; i++) {
		argv[k++] = "--cold";
		argv[k++] = (char *)s->outputs[i].path;
	}
	argv[k++] = "--read-ahead-kb";
	argv[k++] = xasprintf("%lu", s->so->read_ahead_kb);
	argv[k++] = "--format=json";
	argv[k++] = "--";
	argv[k++] = "sh";
	argv[k++] = "-c";
	argv[k++] = (char *)line;
	argv[k] = NULL;
	/* pfstat gives the command our standard input, read from its start
	   (a file) or /dev/null (a terminal), its output to /dev/null */
	run_workload_streams(&request);
	if (proc_exec(&request, &result) != 0) {
		*why = xasprintf("pfstat failed (%s; see %s)", proc_describe(result.status), log);
		pages = -1;
	} else {
		json = result.out ? result.out : "";
		keep_measurement(s, layout, line, json);
		pages = json_medians(json, "\"pages_read\": {\"median\": ", &files);
		*requests = json_medians(json, "\"read_requests\": {\"median\": ", &devices);
		*wall = json_medians(json, "\"wall_ms\": {\"median\": ", &walls);
		if (files != s->n) {
			*why = xasprintf("pfstat gave the pages read of %zu of %zu outputs (see %s)", files, s->n, log);
			pages = -1;
		} else if (!devices || walls != 1 || *wall < 0) {
			*why = xasprintf("pfstat gave no read requests or no wall time (see %s)", log);
			pages = -1;
		}
	}
	free(result.out);
	free(result.err);
	free(argv[2 * s->n + 4]);
	free(argv);
	free(log);
	return pages;
}

/* Measures c (in place) on every workload: its measured_ figures; false
   when a measurement could not be made (s->measure is then turned off). */
static bool measure(struct search *s, struct candidate *c)
{
	size_t w, lines = s->so->train_count + s->so->held_count;
	double train = 0, held = 0;
	char *why = NULL;

	bool requests_known = true;

	c->s.requests_train = c->s.requests_held = c->s.wall_train = c->s.wall_held = 0;
	for (w = 0; w < lines; w++) {
		bool is_held = w >= s->so->train_count;
		const char *line = is_held ? s->so->held[w - s->so->train_count] : s->so->train[w];
		double requests = 0, wall = 0, pages = measure_line(s, c->name, line, &requests, &wall, &why);

		requests_known &= requests >= 0;
		if (pages < 0) {
			say(s, "no real cold start measured: %s", why);
			free(why);
			s->measure = false;
			return false;
		}
		if (is_held) {
			held += pages / s->so->held_count;
			c->s.requests_held += requests / s->so->held_count;
			c->s.wall_held += wall / s->so->held_count;
		} else {
			train += pages / s->so->train_count;
			c->s.requests_train += requests / s->so->train_count;
			c->s.wall_train += wall / s->so->train_count;
		}
	}
	c->s.measured_train = train;
	c->s.measured_held = s->so->held_count ? held : -1;
	if (!requests_known)
		c->s.requests_train = c->s.requests_held = -1;
	c->s.rank_measured = cost_of(s, train, measured_requests(&c->s));
	return true;
}

/* The CPU seconds (user and system, the workload's processes together)
   of one run of the steady workload with what is in place; -1 when it
   fails.  CPU time, not wall time: the machine may be shared. */
static double steady_once(const struct search *s)
{
	char *argv[] = { "sh", "-c", (char *)s->so->steady, NULL };
	struct proc_request request = { .argv = argv, .out = PROC_DISCARD, .err = PROC_DISCARD };
	struct proc_result result;

	run_workload_streams(&request);
	if (proc_exec(&request, &result) != 0)
		return -1;
	return result.usage.ru_utime.tv_sec + result.usage.ru_utime.tv_usec / 1e6 + result.usage.ru_stime.tv_sec +
	       result.usage.ru_stime.tv_usec / 1e6;
}

/* One sample: s->steady_repeat runs of the steady workload, their CPU
   seconds together; -1 when one fails. */
static double steady_sample(const struct search *s)
{
	double total = 0;
	unsigned r;

	for (r = 0; r < s->steady_repeat; r++) {
		double t = steady_once(s);

		if (t < 0)
			return -1;
		total += t;
	}
	return total;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* c's steady-state time against the plain link's, in turns: a sample
   with the plain link in place and one with c's (in either order), and
   their ratio; returns the median of the turns' ratios, -1 when a run
   fails or a plain sample takes no CPU time.  A sample is as many runs as make STEADY_SECONDS of CPU time with the
   plain link (found once, on the first call): the kernel counts CPU time
   in ticks, and a run of a few milliseconds would make the ratio of two
   layouts that run the same code 0.8x or 1.25x.  *slower: the turns in
   which c took more time than plain.  turns: how many (at most
   STEADY_TURNS_AGAIN).  c is in place after. */
#define STEADY_TURNS 5
#define STEADY_TURNS_AGAIN 15
#define STEADY_SECONDS 0.25
static double steady_ratio(struct search *s, const struct candidate *c, int *slower, int turns)
{
	double ratio[STEADY_TURNS_AGAIN];
	int r;

	if (!s->steady_repeat) {
		double once;

		install(s, s->plain.files);
		s->steady_repeat = 1;
		once = steady_once(s);
		if (once < 0)
			return -1;
		if (once < STEADY_SECONDS)
			s->steady_repeat = once > STEADY_SECONDS / 50 ? (unsigned)(STEADY_SECONDS / once) + 1 : 50;
	}
	*slower = 0;
	for (r = 0; r < turns; r++) {
		double plain, mine = -1;

		/* plain first in even turns, c first in odd ones: what runs
		   second in a turn is not always the same layout */
		if (r % 2) {
			install(s, c->files);
			mine = steady_sample(s);
		}
		install(s, s->plain.files);
		plain = steady_sample(s);
		if (r % 2 == 0) {
			install(s, c->files);
			mine = steady_sample(s);
		}
		if (plain <= 0 || mine < 0)
			return -1;
		ratio[r] = mine / plain;
		*slower += mine > plain;
	}
	qsort(ratio, turns, sizeof(double), compare_doubles);
	return ratio[turns / 2];
}

/* The fewest turns of n that must find a layout slower for it to be
   slower in truth: a sign test, the least k with at most a 5% chance
   that k or more of n turns of two layouts that run as fast fall one
   way (5 of 5, 12 of 15).  A test of the noise itself, not of the
   plain samples' range, which grows with their number: one plain
   sample of fifteen far off once let a layout 1.58x slower through. */
static int steady_slower_needed(int n)
{
	double tail = 0, term = 1;       /* C(n, i) / 2^n, from i = n down */
	int i, k;

	for (i = 0; i < n; i++)
		term /= 2;
	for (k = n; k > 0; k--) {
		tail += term;
		if (tail > 0.05)
			return k + 1;
		term = term * k / (n - k + 1);
	}
	return 1;
}

/* Whether the steady figures of c refuse it: slower than the plain build
   by more than 3% (the median turn), and in more turns than chance
   would make it (steady_slower_needed). */
static bool steady_refuses(const struct scores *c)
{
	return c->steady > 1.03 && c->steady_slower >= steady_slower_needed(c->steady_turns);
}

/* c's steady ratio, from five turns; measured again with fifteen when
   the five put it more than 3% slower than plain, and judged on these:
   on a shared machine one sample in five can be far off (SQLite's chosen
   layout was once at 1.214x in five, and 1.052x in the next search), and
   five turns cannot tell 1.2x from chance unless all five agree. */
static void steady_measure(struct search *s, struct candidate *c)
{
	c->s.steady_turns = STEADY_TURNS;
	c->s.steady = steady_ratio(s, c, &c->s.steady_slower, STEADY_TURNS);
	if (c->s.steady > 1.03) {
		say(s, "%s: %.3fx plain in the steady state, slower in %d of %d turns: measured again", c->name,
		    c->s.steady, c->s.steady_slower, STEADY_TURNS);
		c->s.steady_turns = STEADY_TURNS_AGAIN;
		c->s.steady = steady_ratio(s, c, &c->s.steady_slower, STEADY_TURNS_AGAIN);
	}
	/* a layout that cannot be timed is not one proven as fast */
	if (c->s.steady < 0)
		candidate_fail(c, "the steady workload failed, or took no CPU time, in a turn with it");
}

static int compare_candidates(const void *a, const void *b)
{
	const struct candidate *x = *(const struct candidate *const *)a, *y = *(const struct candidate *const *)b;

	if (x->failed != y->failed)
		return x->failed - y->failed;
	if (x->s.rank_train != y->s.rank_train)
		return x->s.rank_train < y->s.rank_train ? -1 : 1;
	if (x->s.code_train != y->s.code_train)
		return x->s.code_train < y->s.code_train ? -1 : 1;
	/* a tie: relr first, whose smaller relocations every start-up reads,
	   whatever the workload runs; then no cut, then no segments (fewer
	   mappings for every start-up to make: a cut's pieces are more) */
	if (x->relr != y->relr)
		return x->relr ? -1 : 1;
	if (x->cut != y->cut)
		return x->cut ? 1 : -1;
	if (x->segments != y->segments)
		return x->segments ? 1 : -1;
	return x < y ? -1 : x > y;
}

static void print_figure(FILE *out, double value, int width, bool shown)
{
	if (shown && value >= 0)
		fprintf(out, " %*.1f", width, value);
	else
		fprintf(out, " %*s", width, "-");
}

static void print_header(const struct search *s, FILE *out)
{
	(void)s;
	fprintf(out, "  %-34s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %6s\n", "layout", "code", "code", "cold", "cold",
		"cold", "cold", "cold", "reqs", "reqs", "steady", "cost");
	fprintf(out, "  %-34s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %6s\n", "", "train", "held", "model", "meas",
		"model", "meas", "model", "model", "model", "", "");
	fprintf(out, "  %-34s %6s %6s %6s %6s %6s %6s %6s %6s %6s %7s %6s\n", "", "", "", "train", "train", "held",
		"held", "cross", "train", "held", "", "");
}

static void print_row(const struct search *s, FILE *out, const struct candidate *c, bool chosen)
{
	bool scored = c->s.scored, held = s->so->held_count > 0;

	fprintf(out, "%c %-34s", chosen ? '*' : ' ', c->name);
	print_figure(out, c->s.code_train, 6, scored);
	print_figure(out, c->s.code_held, 6, scored && held);
	print_figure(out, c->s.cold_train, 6, scored);
	print_figure(out, c->s.measured_train, 6, scored);
	print_figure(out, c->s.cold_held, 6, scored && held);
	print_figure(out, c->s.measured_held, 6, scored && held);
	print_figure(out, c->s.cold_cross, 6, scored);
	print_figure(out, c->s.model_requests_train, 6, scored);
	print_figure(out, c->s.model_requests_held, 6, scored && held);
	if (scored && c->s.steady >= 0)
		fprintf(out, " %6.3fx", c->s.steady);
	else
		fprintf(out, " %7s", "-");
	fprintf(out, " %5.0fs", c->seconds);
	if (c->why)
		fprintf(out, "  (%s)", c->why);
	else if (c->native)
		fprintf(out, "  (%s)", c->native);
	if (!c->why && c->s.steady_turns == STEADY_TURNS_AGAIN)
		fprintf(out, "  (steady: above 1.03x in five turns, measured again in %d: %s)", c->s.steady_turns,
			c->s.steady <= 1.03 ? "within 3% of plain" : "slower in too few of them to rule out chance");
	fprintf(out, "\n");
}

/* Whether the last search was of the same plain links, workloads and
   layout, and its choice is still in place: then it says so, and there
   is nothing to do. */
static bool unchanged(const struct search *s)
{
	char *layout = state_layout(s->job), *workload = search_workload_line(s), *why;
	struct startup_state *st = xcalloc(s->n, sizeof(*st));
	bool same = true;
	size_t i;

	for (i = 0; i < s->n && same; i++) {
		if (!state_read(&s->outputs[i], &st[i], &why)) {
			free(why);
			same = false;
			break;
		}
		same = !strcmp(st[i].layout, layout) && !strcmp(st[i].workload, workload) &&
		       !strcmp(st[i].plain_id, s->variants[0].outputs[i].build_id[BUILD_PLAIN]) &&
		       link_has_build_id(&s->outputs[i], st[i].ordered_id);
	}
	for (i = 0; i < s->n; i++) {
		if (same)
			printf("%s: ordered for %s (%s), start-up code pages %s -> %s (unchanged)\n", s->outputs[i].name,
			       layout, st[i].chosen, st[i].code_before, st[i].code_after);
		state_free(&st[i]);
	}
	if (same)
		stdout_close_or_die();
	free(st);
	free(layout);
	free(workload);
	return same;
}

/* Whether candidate c's rewrite kept function name hot: one of the
   variant's natively run functions its BOLT was given (fold_native). */
static bool kept_hot(const struct search *s, const struct candidate *c, const char *name)
{
	size_t i, k;

	for (i = 0; c->folded && i < s->n; i++)
		for (k = 0; k < c->folded[i]; k++)
			if (!strcmp(c->variant->native[i].names[k], name))
				return true;
	return false;
}

/* What the training workloads run natively of the chosen layout that its
   traces under valgrind missed (valgrind is not the CPU: x87 precision,
   CPUID dispatch), by native_find; functions the plain link does not
   define (the layout's own: linkopt_prefetch) are not counted.  A fault
   comes at most once per page, and fault-around maps 64 KiB at a time:
   this is a lower bound.  Those BOLT's native fold kept hot are marked.
   Returns how many were found and not kept hot, -1 when the native run fails
   or fails. */
static long native_missed(struct search *s, const struct candidate *best, FILE *out)
{
	struct native_set *sets = xcalloc(s->n, sizeof(*sets)), missed = { 0 };
	size_t w, i, k;
	char *why = NULL;
	long found = 0;

	for (w = 0; w < s->so->train_count && !why; w++)
		if (native_find(s->job, s->outputs, s->n, s->so->train[w], &best->variant->train[w], sets, &why) < 0)
			found = -1;
	for (i = 0; i < s->n; i++) {
		native_keep_defined(best->variant->outputs[i].plain, &sets[i]);
		for (k = 0; k < sets[i].count; k++)
			native_add(&missed, sets[i].names[k]);
		native_free(&sets[i]);
	}
	free(sets);
	if (found < 0) {
		fprintf(out, "native run: %s: what runs natively and not under valgrind is not known\n", why);
		free(why);
	} else {
		size_t folded = 0;

		fprintf(out, "native run (every page fault, perf_event_open): %zu function%s of %s ran natively on the training "
			"workloads and in none of their traces%s", missed.count, missed.count == 1 ? "" : "s",
			best->name, missed.count ? ":" : "");
		for (k = 0; k < missed.count; k++) {
			bool kept = kept_hot(s, best, missed.names[k]);

			folded += kept;
			if (k < 12)
				fprintf(out, " %s%s", missed.names[k], kept ? " (kept hot)" : "");
		}
		fprintf(out, "%s", missed.count > 12 ? " ..." : "");
		if (folded)
			fprintf(out, "; %zu of them kept hot by the native fold, %zu not", folded, missed.count - folded);
		found = (long)(missed.count - folded);
		fputc('\n', out);
	}
	native_free(&missed);
	return found;
}

/* Removes path, a file or a folder of files (nftw). */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Copies file from to to, through a temporary file and a rename. */
static void copy_file(const char *from, const char *to)
{
	struct startup_output place = { .path = (char *)to };

	link_install(&place, from);
}

/* A trace of the chosen candidate, from where the search wrote it to
   where keep_best keeps it. */
struct moved_trace {
	char *from, *to;
};

/* The order at path with the traces its first line names (deporder's
   provenance: each trace quoted, after a blank, before "," or "; link:")
   moved as moves says, so that it names the traces kept, not the files the
   search removes.  --verify does not compare that line. */
static void order_moved_traces(const char *path, const struct moved_trace *moves, size_t n)
{
	size_t size, k;
	char *text = record_read_whole(path, &size), *nl, *line, *whole;
	size_t first;

	if (!text)
		fatal("%s: cannot read: %s", path, strerror(errno));
	nl = memchr(text, '\n', size);
	first = nl ? (size_t)(nl - text) : size;
	line = xstrndup(text, first);
	for (k = 0; k < n; k++) {
		char *from = trace_quote(moves[k].from), *to = trace_quote(moves[k].to), *at = strstr(line, from);
		size_t len = strlen(from);

		if (at && at > line && at[-1] == ' ' && (at[len] == ',' || at[len] == ';')) {
			char *moved = xasprintf("%.*s%s%s", (int)(at - line), line, to, at + len);

			free(line);
			line = moved;
		}
		free(from);
		free(to);
	}
	whole = xmalloc(strlen(line) + size - first);
	memcpy(whole, line, strlen(line));
	memcpy(whole + strlen(line), text + first, size - first);
	if (write_file_atomic(path, whole, strlen(line) + size - first) < 0)
		fatal("%s: cannot write: %s", path, strerror(errno));
	free(whole);
	free(line);
	free(text);
}

/* Keeps the chosen candidate as an order under the names an ordinary
   order has (DIR/NAME.LINKER.PLACEMENT.order, NAME.ordered, NAME.bolt),
   with linkopt-cc's apply and rewrite records, the inputs' stamps, the
   training traces (DIR/NAME.train.W.traces) and the state linkopt-startup
   reads next time (--verify, an unchanged search). */
static void keep_best(const struct search *s, const struct candidate *best)
{
	struct startup_job job = job_of(s, best);
	char *layout = state_layout(s->job), *workload = search_workload_line(s);
	char *traces = xstrdup("");
	struct moved_trace *moves = NULL;
	size_t i, w, t, moved = 0, moved_cap = 0;

	for (w = 0; w < s->so->train_count; w++) {
		char *suffix = xasprintf("train.%zu.traces", w);
		char *folder = record_path(job.dir, s->outputs[0].name, suffix);
		const char *old = best->variant->train_folders[w];

		nftw(folder, remove_one, 16, FTW_DEPTH | FTW_PHYS);
		if (rename(old, folder) < 0)
			fatal("%s: cannot rename to %s: %s", old, folder, strerror(errno));
		for (t = 0; t < best->variant->train[w].files.gl_pathc; t++) {
			const char *path = best->variant->train[w].files.gl_pathv[t];
			char *more = xasprintf("%s%s%s%s", traces, *traces ? "\n" : "", folder, path + strlen(old));

			free(traces);
			traces = more;
			*ARRAY_PUSH(moves, moved, moved_cap) = (struct moved_trace){
				xstrdup(path), xasprintf("%s%s", folder, path + strlen(old))
			};
		}
		free(suffix);
		free(folder);
	}
	for (i = 0; i < s->n; i++) {
		struct startup_output o = best->variant->outputs[i];
		char *ordered = record_path(job.dir, o.name, "ordered");
		char *rewritten = record_path(job.dir, o.name, best->bolt ? "bolt" : "cut");
		char **flags;
		struct startup_state st = {
			.layout = layout,
			.workload = workload,
			.plain_id = s->plain.build_id[i],
			.ordered_id = (char *)best->build_id[i],
			.chosen = best->name,
			.order_placement = (char *)startup_placement_names[best->placement],
			.order_relr = best->relr,
			.traces = traces,
		};

		o.order = st.order = order_path(&job, o.name);
		copy_file(best->orders[i], o.order);
		order_moved_traces(o.order, moves, moved);
		flags = order_flags(&job, &o);
		keep_apply(&job, &s->outputs[i], flags);
		keep_inputs(&job, &s->outputs[i]);
		if (best->bolt || best->cut) {
			/* the rewrite of the ordered link: BOLT's, or its cut */
			copy_file(best->ordered[i], ordered);
			copy_file(best->files[i], rewritten);
			keep_rewrite(&job, &s->outputs[i], ordered, rewritten);
		} else {
			copy_file(best->files[i], ordered);
			keep_remove(&job, &s->outputs[i], "rewrite");
		}
		st.code_before = xasprintf("%.0f", s->plain.s.code_train);
		st.code_after = xasprintf("%.0f", best->s.code_train);
		state_write(&s->outputs[i], &st);
		free(st.code_before);
		free(st.code_after);
		free(st.order);
		free(ordered);
		free(rewritten);
	}
	for (t = 0; t < moved; t++) {
		free(moves[t].from);
		free(moves[t].to);
	}
	free(moves);
	free(traces);
	free(layout);
	free(workload);
}

/* Removes what the search made in DIR and no longer needs: every
   candidate's file, order and log, the traces of the runs it scored. */
/* Whether path is the log of a candidate that failed (the table names
   it: it stays). */
static bool failure_log(const struct search *s, size_t output, const char *path)
{
	size_t c;
	bool named = false;

	for (c = 0; c < s->count && !named; c++) {
		char *suffix, *log;

		if (!s->candidates[c].failed)
			continue;
		suffix = xasprintf("candidate.%zu.bolt.log", c);
		log = record_path(s->job->dir, s->outputs[output].name, suffix);
		named = !strcmp(path, log);
		free(log);
		free(suffix);
		suffix = xasprintf("candidate.%zu.order.log", c);
		log = record_path(s->job->dir, s->outputs[output].name, suffix);
		named |= !strcmp(path, log);
		free(log);
		free(suffix);
	}
	return named;
}

static void clean_up(const struct search *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		static const char *const patterns[] = { "candidate.*", "search.*", "check.*.out", NULL };

		for (k = 0; patterns[k]; k++) {
			char *pattern = record_path(s->job->dir, s->outputs[i].name, patterns[k]);
			glob_t found;
			size_t f;

			if (glob(pattern, 0, NULL, &found) == 0) {
				for (f = 0; f < found.gl_pathc; f++)
					if (!failure_log(s, i, found.gl_pathv[f]))
						nftw(found.gl_pathv[f], remove_one, 16, FTW_DEPTH | FTW_PHYS);
				globfree(&found);
			}
			free(pattern);
		}
	}
}

/* The candidates in the order they are judged: failed last, then by the
   measured cold start of the training workloads where measured, by the
   model's elsewhere, then by the code pages. */
static int compare_judged(const void *a, const void *b)
{
	const struct candidate *x = *(const struct candidate *const *)a, *y = *(const struct candidate *const *)b;
	bool mx = x->s.rank_measured >= 0, my = y->s.rank_measured >= 0;

	if (x->failed != y->failed)
		return x->failed - y->failed;
	if (mx != my)
		return my - mx;
	if (mx && x->s.rank_measured != y->s.rank_measured)
		return x->s.rank_measured < y->s.rank_measured ? -1 : 1;
	return compare_candidates(a, b);
}

/* Makes, checks and scores candidate c (index i). */
static void try_candidate(struct search *s, struct candidate *c, size_t i)
{
	double t = proc_now();

	say(s, "candidate %zu of %zu: %s", i + 1, s->count, c->name);
	if (c->bolt)
		make_bolted(s, c, i);
	else
		make_ordered(s, c, i);
	if (!c->failed) {
		install(s, c->files);
		if (check(s, c, i) && score(s, c, NULL) && s->so->steady)
			steady_measure(s, c);
	}
	c->seconds = proc_now() - t;
}

/* The ranked candidates, in a new array. */
static struct candidate **rank(struct search *s, int (*compare)(const void *, const void *))
{
	struct candidate **ranked = xcalloc(s->count ? s->count : 1, sizeof(*ranked));
	size_t i;

	for (i = 0; i < s->count; i++)
		ranked[i] = &s->candidates[i];
	qsort(ranked, s->count, sizeof(*ranked), compare);
	return ranked;
}

/* Whether c may be chosen: made, checked, scored, and not refused by
   its steady figures (steady_refuses). */
static bool eligible(const struct search *s, struct candidate *c)
{
	if (c->failed || !c->s.scored)
		return false;
	if (s->so->steady && steady_refuses(&c->s)) {
		if (!c->why)
			c->why = xasprintf("slower than plain in the steady state in %d of %d turns, %d enough to rule "
					   "out chance: not chosen", c->s.steady_slower, c->s.steady_turns,
					   steady_slower_needed(c->s.steady_turns));
		return false;
	}
	return true;
}

/* Candidate c made again for each training workload from the others
   alone (their traces of its variant; for BOLT its data-first link and
   branch traces made again from them, with no native fold, which came
   from every workload), and that workload's cold start of it predicted:
   c->s.cold_cross, their mean, what c's kind of layout reads of a
   start-up it was not made from.  Stays -1 when one cannot be made. */
static void cross_candidate(struct search *s, struct candidate *c, size_t index)
{
	const struct search_options *so = s->so;
	size_t k = so->train_count, w, j, i;
	double sum = 0, sum_requests = 0, t = proc_now();
	bool ok = true;

	for (w = 0; w < k && ok; w++) {
		struct search_options others = *so;
		const char **lines = xcalloc(k, sizeof(*lines));
		struct variant v = *c->variant;
		struct candidate x = *c;
		char *tag = xasprintf("cross%zu", w);
		double code, cold, requests;

		say(s, "cross: %s made without workload %zu of %zu, and scored on it", c->name, w + 1, k);
		v.train = xcalloc(k, sizeof(*v.train));
		for (j = 0, i = 0; j < k; j++)
			if (j != w) {
				lines[i] = so->train[j];
				v.train[i++] = c->variant->train[j];
			}
		others.train = lines;
		others.train_count = k - 1;
		others.held = NULL;
		others.held_count = 0;
		v.tag = tag;
		v.bolt_made = v.bolt_failed = v.has_steady_branches = false;
		v.bolt_why = NULL;
		v.bolt_inputs = v.bolt_orders = v.bolt_cut_inputs = NULL;
		v.cut_why = NULL;
		v.bolt_flags = NULL;
		v.branches = NULL;
		memset(&v.steady_branches, 0, sizeof(v.steady_branches));
		v.native = NULL;
		v.native_traces = NULL;
		v.native_functions = NULL;
		x.variant = &v;
		x.cross = true;
		x.failed = false;
		x.why = x.native = x.native_example = NULL;
		x.folded = NULL;
		x.files = xcalloc(s->n, sizeof(*x.files));
		x.build_id = xcalloc(s->n, sizeof(*x.build_id));
		x.flags = xcalloc(s->n, sizeof(*x.flags));
		x.orders = xcalloc(s->n, sizeof(*x.orders));
		x.ordered = xcalloc(s->n, sizeof(*x.ordered));
		s->so = &others;
		if (c->bolt) {
			make_bolt_input(s, &v);
			if (v.bolt_failed)
				candidate_fail(&x, "%s", v.bolt_why);
			for (i = 0; i < s->n && !x.failed; i++)
				rewrite(s, &x, index, i, NULL);
		} else {
			make_ordered(s, &x, index);
		}
		s->so = so;
		if (!x.failed) {
			install(s, x.files);
			ok = score_line(s, &x, so->train[w], NULL, &code, &cold, &requests);
			sum += cold;
			sum_requests += requests;
		} else {
			ok = false;
		}
		if (!ok)
			say(s, "cross: %s: none without workload %zu: %s", c->name, w + 1, x.why ? x.why : "failed");
		for (j = 0; v.branches && j < k - 1; j++)
			run_free(&v.branches[j]);
		if (v.has_steady_branches)
			run_free(&v.steady_branches);
		free(v.branches);
		free(v.train);
		free(lines);
		free(tag);
		free(x.files);
		free(x.build_id);
		free(x.why);
	}
	c->s.cold_cross = ok ? sum / k : -1;
	c->s.requests_cross = ok ? sum_requests / k : -1;
	c->s.rank_cross = ok ? cost_of(s, c->s.cold_cross, c->s.requests_cross) : -1;
	c->seconds += proc_now() - t;
}

/* The kind of layout c is, which a start-up it was not made from can
   find out: rewritten by BOLT with its cold code cut in pieces (3), by
   BOLT (2), GNU ld's with its untraced code cut in pieces (4), in
   segments (1), neither (0).  A cut reads about what its twin reads on
   the workloads it was made from: only a start-up it was not made from
   tells them apart. */
static int kind_of(const struct candidate *c)
{
	return c->bolt ? (c->cut ? 3 : 2) : c->cut ? 4 : c->segments ? 1 : 0;
}
#define KINDS 5

/* Cross (cross_candidate) the best eligible candidate of each kind, in
   the order ranked (judged), when the training workloads are two or more
   and two kinds or more were made. */
static void cross_kinds(struct search *s, struct candidate **ranked)
{
	struct candidate *best[KINDS] = { NULL };
	size_t i, kinds = 0;

	if (s->so->no_cross || s->so->train_count < 2)
		return;
	for (i = 0; i < s->count; i++)
		if (eligible(s, ranked[i]) && !best[kind_of(ranked[i])]) {
			best[kind_of(ranked[i])] = ranked[i];
			kinds++;
		}
	if (kinds < 2)
		return;
	for (i = 0; i < KINDS; i++)
		if (best[i])
			cross_candidate(s, best[i], (size_t)(best[i] - s->candidates));
	s->crossed = true;
}

/* The candidate chosen, from the ranked (judged) ones: the first eligible;
   or, when crossed, the crossed one that reads least of the training
   workloads each left out of its layout (rank_cross: pages and
   requests; *over: the first eligible, which it was chosen over, or
   NULL). */
static struct candidate *choose(struct search *s, struct candidate **ranked, struct candidate **over)
{
	struct candidate *best = NULL;
	size_t i;

	*over = NULL;
	for (i = 0; i < s->count && !best; i++)
		if (eligible(s, ranked[i]))
			best = ranked[i];
	if (!best || best->s.rank_cross < 0)
		return best;
	for (i = 0; i < s->count; i++)
		if (eligible(s, ranked[i]) && ranked[i]->s.rank_cross >= 0 && ranked[i]->s.rank_cross < best->s.rank_cross) {
			if (!*over)
				*over = best;
			best = ranked[i];
		}
	return best;
}

int search_best(struct startup_job *job, struct startup_output *outputs, size_t n, const struct search_options *so)
{
	struct search s = { .job = job, .so = so, .outputs = outputs, .n = n };
	struct candidate **ranked, *best = NULL, *best_bolt = NULL, *best_cut = NULL, *over = NULL, *refused = NULL;
	double start = proc_now();
	size_t i, first_refined, measured = 0;
	char *table_path, *table, *measured_note, *steady_note, runs[64] = "";
	size_t table_size;
	FILE *out;

	/* the plain link, the baseline: GNU ld's default link of the project */
	say(&s, "linking the plain outputs and tracing the training workloads");
	link_variant(&s, &s.variants[s.variant_count++], false);
	if (s.variants[0].failed)
		fatal("%s", s.variants[0].why);
	if (unchanged(&s))
		return 0;
	s.pfstat = job->tools.pfstat;
	s.measure = geteuid() == 0 && s.pfstat;
	if (!s.measure)
		say(&s, "no real cold start will be measured: %s", s.pfstat ? "not root (a loop device needs it)"
									: "pfstat not found");
	trace_variant(&s, &s.variants[0]);
	if (job->check) {
		s.plain_check = record_path(job->dir, outputs[0].name, "check.plain.out");
		if (run_check(job, s.plain_check) != 0)
			fatal("the check fails with the plain outputs: %s", job->check);
	}
	s.plain.name = xstrdup("plain (the default link)");
	s.plain.files = xcalloc(n, sizeof(char *));
	s.plain.build_id = xcalloc(n, sizeof(*s.plain.build_id));
	for (i = 0; i < n; i++) {
		s.plain.files[i] = s.variants[0].outputs[i].plain;
		snprintf(s.plain.build_id[i], sizeof(s.plain.build_id[i]), "%s", s.variants[0].outputs[i].build_id[BUILD_PLAIN]);
	}
	s.plain.s.measured_train = s.plain.s.measured_held = s.plain.s.steady = s.plain.s.cold_cross = -1;
	s.plain.s.rank_measured = s.plain.s.rank_cross = -1;
	score(&s, &s.plain, s.variants[0].train);
	if (so->steady) {
		if (steady_once(&s) < 0)
			fatal("the steady workload fails with the plain outputs: %s", so->steady);
		s.plain.s.steady = 1;
	}
	if (s.measure)
		measure(&s, &s.plain);
	s.plain.seconds = proc_now() - start;
	if (!so->no_relr) {
		say(&s, "linking with -z pack-relative-relocs and tracing");
		link_variant(&s, &s.variants[s.variant_count++], true);
		if (s.variants[1].failed)
			say(&s, "no relr variant: %s", s.variants[1].why);
		else
			trace_variant(&s, &s.variants[1]);
	}
	list_candidates(&s);
	for (i = 0; i < s.count; i++)
		try_candidate(&s, &s.candidates[i], i);
	/* the best BOLT candidate refined: page-aligned hot code, and the
	   steady workload's profile weighed in */
	ranked = rank(&s, compare_candidates);
	for (i = 0; i < s.count && !best_bolt; i++)
		if (ranked[i]->bolt && eligible(&s, ranked[i]))
			best_bolt = ranked[i];
	/* and GNU ld's best with its traced code first and its untraced code
	   not in segments, that code cut into pieces at start-up instead
	   (pieces smaller than segments: bench/split/run) */
	for (i = 0; i < s.count && !best_cut && job->linker == LINKER_GNU_LD; i++)
		if (!ranked[i]->bolt && !ranked[i]->segments && ranked[i]->placement != PLACEMENT_COLD_START &&
		    eligible(&s, ranked[i]))
			best_cut = ranked[i];
	free(ranked);
	first_refined = s.count;
	if (best_bolt) {
		struct candidate base = *best_bolt;

		add_candidate(&s, base.variant, base.placement, true, base.llvm_bolt, false, 0, 4096, false);
		if (so->steady)
			add_candidate(&s, base.variant, base.placement, true, base.llvm_bolt, false, 0.01, 0, false);
		if (!so->no_cut)
			cut_candidate(add_candidate(&s, base.variant, base.placement, true, base.llvm_bolt, false, 0, 0,
						    false));
	}
	if (best_cut && !so->no_cut) {
		struct candidate base = *best_cut;

		cut_candidate(add_candidate(&s, base.variant, base.placement, false, NULL, false, 0, 0, false));
	}
	for (i = first_refined; i < s.count; i++)
		try_candidate(&s, &s.candidates[i], i);
	/* the model's best three confirmed by a real cold start, and its best
	   without BOLT (what GNU ld alone gives) and with it: the judged
	   order puts what was measured first, and a kind never measured
	   could not be chosen (with requests counted, GNU ld's layouts can
	   fill the three) */
	ranked = rank(&s, compare_candidates);
	for (i = 0; i < s.count && s.measure; i++) {
		bool unbolted_measured = false, bolted_measured = false;
		size_t k;

		if (so->measure_all ? ranked[i]->failed || !ranked[i]->s.scored : !eligible(&s, ranked[i]))
			continue;
		for (k = 0; k < i; k++) {
			unbolted_measured |= !ranked[k]->bolt && ranked[k]->s.measured_train >= 0;
			bolted_measured |= ranked[k]->bolt && ranked[k]->s.measured_train >= 0;
		}
		if (!so->measure_all && measured >= 3 && (ranked[i]->bolt ? bolted_measured : unbolted_measured))
			continue;
		say(&s, "measuring a cold start of %s", ranked[i]->name);
		install(&s, ranked[i]->files);
		if (measure(&s, ranked[i]))
			measured++;
	}
	free(ranked);
	ranked = rank(&s, compare_judged);
	/* the best of each kind made again without each training workload
	   and scored on it: a layout is for start-ups it was not made from
	   too, and BOLT's packs the code no trace ran where the segments
	   keep it apart */
	cross_kinds(&s, ranked);
	best = choose(&s, ranked, &over);
	/* the one chosen is measured, never only predicted: the cross can
	   choose a kind none of whose layouts ranked among those measured
	   (lz4: head+seg16+relr, after head+relr and its cut) */
	if (best && s.measure && best->s.rank_measured < 0) {
		say(&s, "measuring a cold start of %s, chosen by the cross", best->name);
		install(&s, best->files);
		measure(&s, best);
		/* measured, it reads more than plain: the one it was chosen
		   over (the model's best, measured) is judged instead */
		if (over && best->s.rank_measured >= 0 && s.plain.s.rank_measured >= 0 &&
		    best->s.rank_measured > s.plain.s.rank_measured) {
			refused = best;
			best = over;
			over = NULL;
		}
	}
	/* a layout is kept when a cold start reads no more of it and it reads
	   or touches less (reads: what the candidates are ranked by) */
	if (best) {
		bool measured_both = best->s.rank_measured >= 0 && s.plain.s.rank_measured >= 0;
		double now = measured_both ? best->s.rank_measured : best->s.rank_train;
		double was = measured_both ? s.plain.s.rank_measured : s.plain.s.rank_train;

		if (now > was || (now == was && best->s.code_train >= s.plain.s.code_train))
			best = NULL;
	}

	/* every candidate judged, for the reasons in the table: the loops above
	   stop at the first they may choose */
	for (i = 0; i < s.count; i++)
		eligible(&s, ranked[i]);
	/* the table, on stdout and in DIR/NAME.search.txt */
	out = open_memstream(&table, &table_size);
	if (!out)
		fatal("out of memory");
	print_header(&s, out);
	print_row(&s, out, &s.plain, false);
	for (i = 0; i < s.count; i++)
		print_row(&s, out, ranked[i], ranked[i] == best);
	if (s.measure)
		measured_note = xasprintf("and as measured on a loop device (%s; the median of " COLD_RUNS " cold starts)",
					  so->measure_all ? "every candidate scored"
							  : "the model's best three, its best without and with BOLT, and the one the "
							    "cross chose");
	else
		measured_note = xasprintf("none measured (%s)", s.pfstat ? "a loop device needs root" : "pfstat not found");
	if (s.steady_repeat > 1)
		snprintf(runs, sizeof(runs), ", a sample %u runs of the workload", s.steady_repeat);
	steady_note = so->steady ? xasprintf("; steady: CPU time against plain, the median of five turns (a sample with "
					     "plain, one with the layout; fifteen again above 1.03x)%s", runs)
				 : xstrdup("");
	fprintf(out, "(code: code pages touched; cold: file pages a cold start reads at %lu KiB, as the model predicts "
		"from the trace, %s; reqs: the read requests the model counts for those cold starts; means over %zu "
		"training and %zu held-out workloads%s; cost: seconds "
		"to make and score; the search took %.0f s)\n", so->read_ahead_kb, measured_note, so->train_count,
		so->held_count, steady_note, proc_now() - start);
	free(measured_note);
	free(steady_note);
	if (s.crossed)
		fprintf(out, "(cross: the best of each kind (BOLT cut, BOLT, GNU ld cut, segments, neither) made again without each training "
			"workload in turn, from the others' traces, and scored on it by the model: the mean over them; "
			"the one that reads least (pages, and requests as --request-pages counts them) is chosen)\n");
	if (so->request_pages)
		fprintf(out, "(ranked by what a cold start reads, each read request counted as %lu pages more "
			"(--request-pages): pages + %lu x reqs, the model's, and the loop device's where measured)\n",
			so->request_pages, so->request_pages);
	if (s.native_why)
		fprintf(out, "(model: the pagein traces alone; no native run: %s)\n", s.native_why);
	else
		fprintf(out, "(model: the pagein traces, then the pages a native run of the same workload faulted in "
			"(those most of %d runs did): valgrind is not the CPU)\n", NATIVE_RUNS);
	if (!best) {
		fprintf(out, "chosen: the plain link (no layout that reads no more at a cold start");
		if (so->request_pages)
			fprintf(out, ", each read request counted as %lu pages,", so->request_pages);
		fprintf(out, " reads or touches less on the training workloads)\n");
	} else {
		bool measured_both = best->s.measured_train >= 0 && s.plain.s.measured_train >= 0;
		double now = measured_both ? best->s.measured_train : best->s.cold_train;
		double was = measured_both ? s.plain.s.measured_train : s.plain.s.cold_train;

		fprintf(out, "chosen: %s: %.1f file pages read at a cold start of the training workloads (%s) against "
			"%.1f plain (%.2fx), %.1f code pages against %.1f", best->name, now,
			measured_both ? "measured" : "predicted", was, was > 0 ? now / was : NAN,
			best->s.code_train, s.plain.s.code_train);
		/* what the layout keeps on runs it was not made from */
		if (so->held_count) {
			bool held_both = best->s.measured_held >= 0 && s.plain.s.measured_held >= 0;
			double held = held_both ? best->s.measured_held : best->s.cold_held;
			double plain_held = held_both ? s.plain.s.measured_held : s.plain.s.cold_held;

			fprintf(out, "; held out: %.1f against %.1f plain (%.2fx, %s)", held, plain_held,
				plain_held > 0 ? held / plain_held : NAN, held_both ? "measured" : "predicted");
		}
		fputc('\n', out);
		cost_line(out, best, &s.plain, so->held_count > 0, so->request_pages);
		if (refused) {
			fprintf(out, "cross: %s, which the cross chose, read more than plain at a measured cold start of the "
				"training workloads (%.1f pages in %.1f read requests against %.1f in %.1f): the model's "
				"best judged instead\n", refused->name, refused->s.measured_train,
				measured_requests(&refused->s), s.plain.s.measured_train, measured_requests(&s.plain.s));
		} else if (over) {
			fprintf(out, "cross: chosen over %s, first on the training workloads (%.1f against %.1f", over->name,
				over->s.cold_train, best->s.cold_train);
			if (so->request_pages)
				fprintf(out, " pages, in %.1f read requests against %.1f", over->s.model_requests_train,
					best->s.model_requests_train);
			fprintf(out, ", the model's): made without each of them in turn, %s read %.1f of it against %.1f",
				best->name, best->s.cold_cross, over->s.cold_cross);
			if (so->request_pages)
				fprintf(out, ", in %.1f read requests against %.1f", best->s.requests_cross,
					over->s.requests_cross);
			fputc('\n', out);
		} else if (best->s.cold_cross >= 0) {
			fprintf(out, "cross: made without each training workload in turn, %s read %.1f of it", best->name,
				best->s.cold_cross);
			if (so->request_pages)
				fprintf(out, " in %.1f read requests", best->s.requests_cross);
			fprintf(out, ", the least of the best of each kind (the model's)\n");
		}
	}
	if (best) {
		install(&s, best->files);
		native_missed(&s, best, out);
	}
	fclose(out);
	fputs(table, stdout);
	table_path = record_path(job->dir, outputs[0].name, "best.txt");
	if (write_file_atomic(table_path, table, table_size) < 0)
		fatal("%s: cannot write: %s", table_path, strerror(errno));
	free(table_path);
	free(table);

	if (!best) {
		install(&s, s.plain.files);
		clean_up(&s);
		stdout_close_or_die();
		if (!s.count || ranked[0]->failed)
			fatal("no candidate could be made and checked: the plain links are back in place");
		free(ranked);
		return 0;
	}
	install(&s, best->files);
	keep_best(&s, best);
	clean_up(&s);
	free(ranked);
	stdout_close_or_die();
	return 0;
}
