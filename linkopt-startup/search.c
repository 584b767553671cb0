/* search: --placement=best.  The layouts that can matter for the job's
   linker are each linked (and rewritten by BOLT) for real, traced with
   pagein on every workload, scored by the cold-start model on the
   training workloads (the held-out ones are scored too, and shown, never
   used to choose), checked natively, the best few confirmed by a real cold
   start when one can be measured and by the steady-state workload's time;
   the chosen one replaces the outputs as an ordinary order would. */
#define _GNU_SOURCE
#include "startup.h"

#include "coldstart.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
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
	bool failed;
	char *why;
};

/* The figures of one layout on every workload. */
struct scores {
	double code_train, code_held;      /* code pages, mean over the workloads */
	double cold_train, cold_held;      /* predicted file pages read, mean */
	double measured_train, measured_held; /* measured on a loop device, mean; -1: not measured */
	double steady;                     /* median seconds of the steady workload; -1: not run */
	bool scored;
};

struct candidate {
	enum startup_placement placement;
	bool relr, bolt, new_segment;
	const char *llvm_bolt;             /* NULL: linkopt-bolt's own choice */
	double steady_weight;              /* the steady workload's profile weight, 0: none */
	char *name;
	struct variant *variant;
	char **files;                      /* per output: the candidate's file */
	char (*build_id)[128];             /* per output */
	char ***flags;                     /* per output: the order's link flags (for the apply record) */
	char **ordered;                    /* per output: the ordered link BOLT rewrote, or NULL */
	bool failed;
	char *why;
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
	char *plain_check;                 /* the check's output with the plain links */
	size_t trace_number;
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
	return line;
}

/* The job as it would order candidate c (its placement, relr, BOLT). */
static struct startup_job job_of(const struct search *s, const struct candidate *c)
{
	struct startup_job job = *s->job;

	job.placement = c->placement;
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

/* Traces workload line on what is in place: a run kept in *run. */
static void trace_line(struct search *s, const char *line, struct startup_run *run, bool branches)
{
	struct startup_job job = job_running(s->job, line);
	char *kind = xasprintf("search.%zu.", s->trace_number++);

	run_traced(&job, run, s->outputs[0].name, kind, branches);
	free(kind);
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
	for (w = 0; w < s->so->train_count; w++)
		trace_line(s, s->so->train[w], &v->train[w], false);
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

static void add_candidate(struct search *s, struct variant *v, enum startup_placement placement, bool bolt,
			  const char *llvm_bolt, bool new_segment, double steady_weight)
{
	struct candidate *c = ARRAY_PUSH(s->candidates, s->count, s->capacity);
	const char *version = llvm_bolt ? strrchr(llvm_bolt, '-') : NULL;

	memset(c, 0, sizeof(*c));
	c->placement = placement;
	c->relr = v->relr;
	c->bolt = bolt;
	c->llvm_bolt = llvm_bolt;
	c->new_segment = new_segment;
	c->steady_weight = steady_weight;
	c->variant = v;
	c->name = xasprintf("%s%s%s%s%s%s", startup_placement_names[placement], v->relr ? "+relr" : "",
			    bolt ? "+bolt" : "", bolt && version ? version : "", bolt && new_segment ? "/new-segment" : "",
			    bolt && steady_weight > 0 ? "" : "");
	if (bolt && steady_weight > 0) {
		char *more = xasprintf("%s/steady:%g", c->name, steady_weight);

		free(c->name);
		c->name = more;
	}
	c->files = xcalloc(s->n, sizeof(*c->files));
	c->build_id = xcalloc(s->n, sizeof(*c->build_id));
	c->flags = xcalloc(s->n, sizeof(*c->flags));
	c->ordered = xcalloc(s->n, sizeof(*c->ordered));
	c->s.measured_train = c->s.measured_held = c->s.steady = -1;
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
				add_candidate(s, var, p, false, NULL, false, 0);
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
			add_candidate(s, var, PLACEMENT_DATA_FIRST, true, bolts[b], false, 0);
			if (s->so->steady)
				add_candidate(s, var, PLACEMENT_DATA_FIRST, true, bolts[b], false, 0.01);
		}
	}
}

/* Links candidate c (not BOLT's): ordered from its variant's traces. */
static void make_ordered(struct search *s, struct candidate *c, size_t index)
{
	struct startup_job job = job_of(s, c);
	struct startup_run all = all_runs(s, c->variant->train);
	size_t i;

	for (i = 0; i < s->n && !c->failed; i++) {
		struct startup_output o = c->variant->outputs[i];
		char *suffix = xasprintf("candidate.%zu", index), *why;

		o.order = order_path(&job, o.name);
		if (order_make_checked(&job, &o, &all) != 0) {
			candidate_fail(c, "%s: deporder made no order", o.name);
			free(suffix);
			break;
		}
		c->flags[i] = order_flags(&job, &o);
		c->files[i] = record_path(job.dir, o.name, suffix);
		if (!link_try(&job, &o, c->files[i], c->flags[i], "with the order", &why)) {
			candidate_fail(c, "%s", why);
			free(why);
		} else {
			link_build_id(c->files[i], c->build_id[i], sizeof(c->build_id[i]));
		}
		free(suffix);
	}
	free(all.files.gl_pathv);
	free(all.traces);
}

/* Rewrites BOLT candidate c from the data-first link of its variant
   (linked with --emit-relocs and traced with branches here). */
static void make_bolted(struct search *s, struct candidate *c, size_t index)
{
	struct startup_job job = job_of(s, c);
	struct startup_run all = all_runs(s, c->variant->train);
	struct startup_run *branches;
	size_t i, w;

	for (i = 0; i < s->n && !c->failed; i++) {
		struct startup_output o = c->variant->outputs[i];
		char *why;

		o.order = order_path(&job, o.name);
		if (order_make_checked(&job, &o, &all) != 0) {
			candidate_fail(c, "%s: deporder made no order", o.name);
			break;
		}
		c->flags[i] = order_flags(&job, &o);
		c->ordered[i] = record_path(job.dir, o.name, c->relr ? "relr.bolt-input" : "bolt-input");
		if (!link_try(&job, &o, c->ordered[i], c->flags[i], "with the order and --emit-relocs", &why)) {
			candidate_fail(c, "%s", why);
			free(why);
		}
	}
	free(all.files.gl_pathv);
	free(all.traces);
	if (c->failed)
		return;
	install(s, c->ordered);
	branches = xcalloc(s->so->train_count, sizeof(*branches));
	for (w = 0; w < s->so->train_count; w++)
		trace_line(s, s->so->train[w], &branches[w], true);
	for (i = 0; i < s->n && !c->failed; i++) {
		char *suffix = xasprintf("candidate.%zu", index), *log = record_path(job.dir, s->outputs[i].name, "bolt.log");
		char **argv = xcalloc(16 + 2 * s->so->train_count * 4, sizeof(*argv)), hex[128];
		struct proc_request request = { .argv = argv, .stdin_null = true, .out = PROC_LOG, .err = PROC_TO_STDOUT,
						.log = log };
		struct proc_result result;
		size_t k = 0, t, used = 0;

		link_build_id(c->ordered[i], hex, sizeof(hex));
		c->files[i] = record_path(job.dir, s->outputs[i].name, suffix);
		argv[k++] = job.tools.bolt;
		argv[k++] = "-q";
		argv[k++] = "--bolt";
		argv[k++] = (char *)c->llvm_bolt;
		for (w = 0; w < s->so->train_count; w++)
			for (t = 0; t < branches[w].files.gl_pathc; t++) {
				size_t j;
				bool holds = false;

				for (j = 0; j < branches[w].traces[t].object_count; j++)
					holds |= !strcmp(branches[w].traces[t].objects[j].build_id, hex);
				if (!holds)
					continue;
				argv[k++] = "--startup";
				argv[k++] = branches[w].files.gl_pathv[t];
				used++;
			}
		if (!used) {
			candidate_fail(c, "%s: the workloads did not run its ordered link", s->outputs[i].name);
			break;
		}
		if (c->new_segment)
			argv[k++] = "--new-segment";
		argv[k++] = "--no-check";
		argv[k++] = "-o";
		argv[k++] = c->files[i];
		argv[k++] = c->ordered[i];
		unlink(log);
		say(s, "%s: rewriting with %s", s->outputs[i].name, c->llvm_bolt);
		if (proc_exec(&request, &result) != 0)
			candidate_fail(c, "%s: linkopt-bolt failed (%s; see %s)", s->outputs[i].name,
				       proc_describe(result.status), log);
		else
			link_build_id(c->files[i], c->build_id[i], sizeof(c->build_id[i]));
		free(argv);
		free(suffix);
		free(log);
	}
	for (w = 0; w < s->so->train_count; w++)
		run_free(&branches[w]);
	free(branches);
}

/* The file pages a cold start of the object with build-id hex, the file at
   path, reads at the job's read-ahead, as the model replays the first
   trace of run that holds it; false when none does. */
static bool predict(const struct search *s, const struct startup_run *run, const char *hex, const char *path,
		    uint64_t *pages)
{
	unsigned long kb = s->so->read_ahead_kb;
	struct coldstart_file file;
	size_t t, k, n = 0, capacity = 0;
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
		for (k = 0; k < tr->event_count; k++) {
			const struct trace_event *e = &tr->events[k];

			if ((e->kind == TRACE_CODE || e->kind == TRACE_DATA) && trace_object_at(tr, e->address, e->size) == o)
				*ARRAY_PUSH(addresses, n, capacity) = e->address - o->base;
		}
		reads = coldstart_replay(&file, o == &tr->objects[0], addresses, n, kb);
		*pages = reads.pages;
		coldstart_file_free(&file);
		free(addresses);
		return true;
	}
	return false;
}

/* Traces candidate c (in place) on every workload and scores it; false
   (c failed) when a workload does not load it. */
static bool score(struct search *s, struct candidate *c)
{
	size_t w, i, lines = s->so->train_count + s->so->held_count;

	for (w = 0; w < lines; w++) {
		bool held = w >= s->so->train_count;
		const char *line = held ? s->so->held[w - s->so->train_count] : s->so->train[w];
		struct startup_run run;
		double code = 0, cold = 0;

		trace_line(s, line, &run, false);
		for (i = 0; i < s->n; i++) {
			uint64_t pages;

			if (!predict(s, &run, c->build_id[i], c->files[i], &pages)) {
				candidate_fail(c, "%s: the workload '%s' did not load it", s->outputs[i].name, line);
				run_free(&run);
				return false;
			}
			cold += pages;
			code += measure_pages(&run, c->build_id[i], TRACE_CODE);
		}
		if (held) {
			c->s.code_held += code / s->so->held_count;
			c->s.cold_held += cold / s->so->held_count;
		} else {
			c->s.code_train += code / s->so->train_count;
			c->s.cold_train += cold / s->so->train_count;
		}
		run_free(&run);
	}
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

/* Median seconds of runs of the steady workload with what is in place. */
static double steady_seconds(const struct search *s)
{
	double times[5];
	int r, k;

	for (r = 0; r < 5; r++) {
		char *argv[] = { "sh", "-c", (char *)s->so->steady, NULL };
		struct proc_request request = { .argv = argv, .stdin_null = true, .out = PROC_DISCARD };
		struct proc_result result;

		if (proc_exec(&request, &result) != 0)
			return -1;
		times[r] = result.seconds;
	}
	for (r = 1; r < 5; r++)
		for (k = r; k > 0 && times[k] < times[k - 1]; k--) {
			double t = times[k];

			times[k] = times[k - 1];
			times[k - 1] = t;
		}
	return times[2];
}

static int compare_candidates(const void *a, const void *b)
{
	const struct candidate *x = *(const struct candidate *const *)a, *y = *(const struct candidate *const *)b;

	if (x->failed != y->failed)
		return x->failed - y->failed;
	if (x->s.cold_train != y->s.cold_train)
		return x->s.cold_train < y->s.cold_train ? -1 : 1;
	if (x->s.code_train != y->s.code_train)
		return x->s.code_train < y->s.code_train ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void print_row(const struct search *s, const struct candidate *c, bool chosen)
{
	printf("%c %-36s %7.1f %7.1f %8.1f %8.1f", chosen ? '*' : ' ', c->name, c->s.code_train,
	       s->so->held_count ? c->s.code_held : NAN, c->s.cold_train, s->so->held_count ? c->s.cold_held : NAN);
	if (c->s.steady >= 0 && s->plain.s.steady > 0)
		printf(" %7.3fx", c->s.steady / s->plain.s.steady);
	else
		printf(" %8s", "-");
	printf(" %6.0fs", c->seconds);
	if (c->failed)
		printf("  (%s)", c->why);
	printf("\n");
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

/* Keeps the chosen candidate as an order (linkopt-cc's apply and rewrite,
   the inputs' stamps) and the state linkopt-startup reads next time. */
static void keep_best(const struct search *s, const struct candidate *best)
{
	struct startup_job job = job_of(s, best);
	char *layout = state_layout(s->job), *workload = search_workload_line(s);
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct startup_output o = best->variant->outputs[i];
		struct startup_state st = {
			.layout = layout,
			.workload = workload,
			.plain_id = s->plain.build_id[i],
			.ordered_id = (char *)best->build_id[i],
			.chosen = best->name,
			.order = order_path(&job, o.name),
			.order_placement = (char *)startup_placement_names[best->placement],
			.order_relr = best->relr,
		};

		keep_apply(&job, &s->outputs[i], best->flags[i]);
		keep_inputs(&job, &s->outputs[i]);
		if (best->bolt)
			keep_rewrite(&job, &s->outputs[i], best->ordered[i], best->files[i]);
		else
			keep_remove(&job, &s->outputs[i], "rewrite");
		st.traces = xstrdup("");
		for (size_t w = 0; w < s->so->train_count; w++)
			for (size_t t = 0; t < best->variant->train[w].files.gl_pathc; t++) {
				char *more = xasprintf("%s%s%s", st.traces, *st.traces ? "\n" : "",
						       best->variant->train[w].files.gl_pathv[t]);

				free(st.traces);
				st.traces = more;
			}
		st.code_before = xasprintf("%.0f", s->plain.s.code_train);
		st.code_after = xasprintf("%.0f", best->s.code_train);
		state_write(&s->outputs[i], &st);
		free(st.code_before);
		free(st.code_after);
		free(st.order);
		free(st.traces);
	}
	free(layout);
	free(workload);
}

int search_best(struct startup_job *job, struct startup_output *outputs, size_t n, const struct search_options *so)
{
	struct search s = { .job = job, .so = so, .outputs = outputs, .n = n };
	struct candidate **ranked, *best = NULL;
	double start = proc_now(), t;
	size_t i;

	/* the plain link, the baseline: GNU ld's default link of the project */
	say(&s, "linking the plain outputs and tracing the training workloads");
	link_variant(&s, &s.variants[s.variant_count++], false);
	if (s.variants[0].failed)
		fatal("%s", s.variants[0].why);
	if (unchanged(&s))
		return 0;
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
	s.plain.s.measured_train = s.plain.s.measured_held = s.plain.s.steady = -1;
	score(&s, &s.plain);
	if (so->steady)
		s.plain.s.steady = steady_seconds(&s);
	s.plain.seconds = proc_now() - start;
	if (!so->no_relr) {
		say(&s, "linking with -z pack-relative-relocs and tracing");
		t = proc_now();
		link_variant(&s, &s.variants[s.variant_count++], true);
		if (s.variants[1].failed)
			say(&s, "no relr variant: %s", s.variants[1].why);
		else
			trace_variant(&s, &s.variants[1]);
		(void)t;
	}
	list_candidates(&s);
	for (i = 0; i < s.count; i++) {
		struct candidate *c = &s.candidates[i];

		t = proc_now();
		say(&s, "candidate %zu of %zu: %s", i + 1, s.count, c->name);
		if (c->bolt)
			make_bolted(&s, c, i);
		else
			make_ordered(&s, c, i);
		if (!c->failed) {
			install(&s, c->files);
			if (check(&s, c, i) && score(&s, c) && so->steady)
				c->s.steady = steady_seconds(&s);
		}
		c->seconds = proc_now() - t;
	}
	ranked = xcalloc(s.count ? s.count : 1, sizeof(*ranked));
	for (i = 0; i < s.count; i++)
		ranked[i] = &s.candidates[i];
	qsort(ranked, s.count, sizeof(*ranked), compare_candidates);
	for (i = 0; i < s.count && !best; i++) {
		struct candidate *c = ranked[i];

		if (c->failed)
			continue;
		/* never slower than the plain build in the steady state (3%: the
		   noise of five runs on a shared machine) */
		if (so->steady && s.plain.s.steady > 0 && c->s.steady > s.plain.s.steady * 1.03) {
			char *why = xasprintf("slower than plain in the steady state");

			c->why = why;
			continue;
		}
		best = c;
	}
	printf("%-38s %7s %7s %8s %8s %8s %7s\n", "  layout", "code", "code", "cold", "cold", "steady", "cost");
	printf("%-38s %7s %7s %8s %8s %8s %7s\n", "", "train", "held", "train", "held", "", "");
	print_row(&s, &s.plain, false);
	for (i = 0; i < s.count; i++)
		print_row(&s, ranked[i], ranked[i] == best);
	printf("(code: code pages touched, cold: file pages a cold start reads at %lu KiB as the model predicts, "
	       "means over %zu training and %zu held-out workloads; steady: median time against plain; the search took "
	       "%.0f s)\n", so->read_ahead_kb, so->train_count, so->held_count, proc_now() - start);
	if (!best) {
		install(&s, s.plain.files);
		stdout_close_or_die();
		fatal("no candidate could be made and checked: the plain links are back in place");
	}
	if (best->s.cold_train >= s.plain.s.cold_train && best->s.code_train >= s.plain.s.code_train) {
		install(&s, s.plain.files);
		printf("chosen: the plain link (no layout reads or touches less on the training workloads)\n");
		stdout_close_or_die();
		return 0;
	}
	printf("chosen: %s: %.1f file pages read at a cold start of the training workloads against %.1f plain (%.2fx), "
	       "%.1f code pages against %.1f\n", best->name, best->s.cold_train, s.plain.s.cold_train,
	       best->s.cold_train / s.plain.s.cold_train, best->s.code_train, s.plain.s.code_train);
	install(&s, best->files);
	keep_best(&s, best);
	stdout_close_or_die();
	return 0;
}
