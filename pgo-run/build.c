#include "build.h"
#include "llvm.h"
#include "jobs.h"
#include "proc.h"
#include "wrapper.h"
#include "files.h"
#include "steps.h"
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const build_names[] = {
	[BUILD_PLAIN] = "plain build",
	[BUILD_GENERATE] = "instrumented build",
	[BUILD_USE] = "optimized build",
};

static const char *const log_names[] = {
	[BUILD_PLAIN] = "plain-build",
	[BUILD_GENERATE] = "gen-build",
	[BUILD_USE] = "use-build",
};

/* The logs pgo-cc writes, one record per compiler command. */
static const char *const compile_log_names[] = {
	[BUILD_PLAIN] = "plain-build-compiles",
	[BUILD_GENERATE] = "gen-build-compiles",
	[BUILD_USE] = "use-build-compiles",
};

/* The flags pgo-cc appends to every compiler command of a build, and the
   environment the build's commands get.  Every build records its options
   (-frecord-gcc-switches) for the checks of switches.h. */
struct flags {
	char *flags, *compile_flags, *compiles;
	struct proc_env env[WRAPPER_ENV];
	size_t nenv;
};

/* clang's: IR instrumentation (-fprofile-generate, the kind clang
   recommends), whose profile names functions, not objects; the optimized
   build reads the merged .profdata.  A function whose profile is stale is
   reported as a "control flow change (hash mismatch)", one the profile
   lacks only with -pgo-warn-missing-function, an option of the compile
   alone (a link would call it unused, an error under -Werror). */
static void clang_flags(const struct session *s, enum build_kind kind, const char *profile, struct flags *f)
{
	switch (kind) {
	case BUILD_PLAIN:
		f->flags = xstrdup("-frecord-gcc-switches");
		f->compile_flags = xstrdup("");
		break;
	case BUILD_GENERATE:
		f->flags = xasprintf("-fprofile-generate=%s -fprofile-update=atomic -frecord-gcc-switches",
				     s->gen_data);
		f->compile_flags = xstrdup("");
		break;
	default:
		f->flags = xasprintf("-fprofile-use=%s/%s -Wno-error=backend-plugin -frecord-gcc-switches", profile,
				     CLANG_PROFDATA);
		f->compile_flags = xstrdup("-mllvm -pgo-warn-missing-function");
		break;
	}
}

static void flags_for(const struct session *s, enum build_kind kind, const char *dir, struct flags *f)
{
	char *profile = store_profile_path(&s->store);

	if (s->family == FAMILY_CLANG) {
		clang_flags(s, kind, profile, f);
		goto env;
	}
	f->compile_flags = xstrdup("");
	switch (kind) {
	case BUILD_PLAIN:
		f->flags = xstrdup("-frecord-gcc-switches");
		break;
	case BUILD_GENERATE:
		/* -ftest-coverage only writes the notes files (for the checks and
		   show); prefer-atomic keeps counters of threaded runs exact; the
		   prefix path makes profile names relative to the build folder */
		f->flags = xasprintf("-fprofile-generate=%s -fprofile-update=prefer-atomic -ftest-coverage "
				     "-fprofile-prefix-path=%s -frecord-gcc-switches", s->gen_data, dir);
		break;
	default:
		/* a mismatch or a missing profile is counted and reported, not a
		   build failure (also under the project's -Werror) */
		f->flags = xasprintf("-fprofile-use=%s -fprofile-prefix-path=%s -Wno-error=coverage-mismatch "
				     "-Wno-error=missing-profile -frecord-gcc-switches", profile, dir);
		break;
	}
env:
	f->compiles = session_log(s, compile_log_names[kind]);
	f->nenv = wrapper_env(&s->wrapper, f->flags, f->compile_flags, f->compiles, f->env);
	free(profile);
}

static void flags_free(struct flags *f)
{
	free(f->flags);
	free(f->compile_flags);
	free(f->compiles);
}

/* Prints that the command of a step failed, with the log's tail. */
static void command_failed(const char *what, int status, const char *log)
{
	char *text = proc_describe(status);

	error("%s: %s (log %s)", what, text, log);
	steps_log_tail(log, 15);
	free(text);
}

/* Warns that the command of the build name left processes running, which
   jobs_run ended, and frees left. */
static void warn_left(const char *name, const char *command, struct jobs_left *left)
{
	if (left->count)
		warn("%s: the %s left %zu process%s running when it ended: %s; pgo-run ended %s", name, command,
		     left->count, left->count == 1 ? "" : "es", left->names, left->count == 1 ? "it" : "them");
	jobs_left_free(left);
}

/* Runs the clean command: --clean, or make clean unless --build came
   alone; false when it fails.  It runs with the wrapper, so that a build
   folder it configures (CMake) names the wrapper as its compiler, but
   without the profile flags: what configure compiles to probe the
   compiler is not part of the build. */
static bool clean(struct session *s, const char *name, const char *dir, const char *log, double *seconds)
{
	const struct pgo_options *o = s->options;
	char *argv[] = { "make", "clean", NULL };
	char *what;
	struct proc_env env[WRAPPER_ENV];
	struct jobs_left left;
	size_t nenv = wrapper_env(&s->wrapper, "-frecord-gcc-switches", "", "", env);
	int status;

	if (!o->clean && o->build)
		return true;
	status = o->clean ? jobs_shell(o->clean, dir, env, nenv, log, seconds, &left)
			  : jobs_run(argv, dir, env, nenv, log, seconds, &left);
	s->external += *seconds + left.seconds;
	warn_left(name, "clean command", &left);
	if (status == 0)
		return true;
	what = xasprintf("%s: the clean command failed", name);
	command_failed(what, status, log);
	free(what);
	return false;
}

/* Runs --build, or make; returns its status. */
static int run_build(struct session *s, const char *name, const struct flags *f, const char *dir,
		     const char *log, double *seconds)
{
	char *argv[] = { "make", NULL };
	struct jobs_left left;
	int status = s->options->build ? jobs_shell(s->options->build, dir, f->env, f->nenv, log, seconds, &left)
				       : jobs_run(argv, dir, f->env, f->nenv, log, seconds, &left);

	s->external += left.seconds;
	warn_left(name, "build command", &left);
	return status;
}

/* Reads the compiler commands the build ran into *out; false (with a
   message) when there were none: the build did not run its compiler
   through the wrapper, or had nothing to do. */
static bool read_compiles(const struct session *s, const char *name, const char *path, long started,
			  struct compiles *out)
{
	char *why = NULL;

	if (compiles_read(path, started, out, &why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	if (out->commands > 0)
		return true;
	error("%s: no compiler command went through pgo-run's compiler wrapper (%s, first on PATH): the "
	      "build names its compiler by a path of its own (a CMake build folder configured outside "
	      "pgo-run keeps its compiler: let the clean command configure a new one, see pgo-run(1)), "
	      "or it had nothing to rebuild (give --clean)", name, s->wrapper.bin);
	return false;
}

bool build_run(struct session *s, enum build_kind kind, const char *dir, long *started, struct compiles *out)
{
	const struct pgo_options *o = s->options;
	const char *name = build_names[kind];
	char *log = session_log(s, log_names[kind]), *what;
	double seconds = 0, clean_seconds = 0;
	struct flags f;
	int status;
	bool ok = false;

	memset(out, 0, sizeof(*out));
	flags_for(s, kind, dir, &f);
	steps_step(name, "%s (in %s)", o->build ? o->build : "make", dir);
	steps_step(name, "added to every compiler command: %s", f.flags);
	if (*f.compile_flags)
		steps_step(name, "added to every compile (-c): %s", f.compile_flags);
	progress_start("[%s] %s", name, o->build ? o->build : "make");
	if (!clean(s, name, dir, log, &clean_seconds)) {
		progress_stop();
		goto out;
	}
	*started = time(NULL);
	status = run_build(s, name, &f, dir, log, &seconds);
	progress_stop();
	s->external += seconds;
	if (status != 0) {
		what = xasprintf("%s failed", name);
		command_failed(what, status, log);
		free(what);
		/* what it wrote before it failed: the cycle removes it, if
		   instrumented, even without the store */
		if (compiles_read(f.compiles, *started, out, &what) < 0)
			free(what);
		goto out;
	}
	if (!read_compiles(s, name, f.compiles, *started, out))
		goto out;
	steps_step(name, "done in %.1f s (clean %.1f s): %zu compiler command%s", seconds, clean_seconds,
		    out->commands, out->commands == 1 ? "" : "s");
	ok = true;
out:
	free(log);
	flags_free(&f);
	return ok;
}

/* Warnings of the optimized build, per kind and per source. */
struct build_warnings {
	size_t mismatch, missing, missing_unexpected;
	struct strmap per_source; /* source -> counts (struct source_count) */
	char **missing_names;     /* profile file names gcc looked for and did not find */
	size_t nmissing_names, cap_missing_names;
};

struct source_count {
	size_t mismatch, missing;
};

/* The text between the first pair of quotes (ASCII or UTF-8) after p. */
static char *quoted(const char *p)
{
	static const char *const open[] = { "'", "\xe2\x80\x98", "`" };
	static const char *const close[] = { "'", "\xe2\x80\x99", "'" };
	size_t k;

	for (k = 0; k < 3; k++) {
		const char *a = strstr(p, open[k]), *b;

		if (!a)
			continue;
		a += strlen(open[k]);
		b = strstr(a, close[k]);
		if (b)
			return xstrndup(a, b - a);
	}
	return NULL;
}

static bool name_in(char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Counts a missing-profile warning whose text starts at text: gcc names the
   profile file it looked for, or a function the training never saw. */
static void count_missing(struct build_warnings *w, const char *text, const struct store_meta *meta)
{
	char *path = quoted(text), *base, *name;
	size_t i;
	bool expected = false;

	/* "profile for function 'f' not found": the sources changed */
	if (!path || strlen(path) < 5 || strcmp(path + strlen(path) - 5, ".gcda") != 0) {
		w->missing_unexpected++;
		free(path);
		return;
	}
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	name = xstrdup(base);
	free(path);
	if (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, ".gcda"))
		name[strlen(name) - 5] = '\0';
	/* an object known to have run no code has no data by design */
	for (i = 0; i < meta->nobjects; i++)
		if (!meta->has_data[i] && !strcmp(meta->objects[i], name))
			expected = true;
	if (!expected)
		w->missing_unexpected++;
	if (!name_in(w->missing_names, w->nmissing_names, name))
		*ARRAY_PUSH(w->missing_names, w->nmissing_names, w->cap_missing_names) = name;
	else
		free(name);
}

/* The source a warning line names: gcc's "x.c: In function", "x.c:12:3:
   warning", clang's "warning: x.c: function control flow change"; a new
   string. */
static char *warning_source(const char *line)
{
	const char *p = !strncmp(line, "warning: ", 9) ? line + 9 : line, *colon = strchr(p, ':');

	return colon ? xstrndup(p, colon - p) : xstrdup("?");
}

static void parse_warnings(const struct session *s, const char *log, const struct store_meta *meta,
			   struct build_warnings *w)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0;
	bool clang = s->family == FAMILY_CLANG;

	memset(w, 0, sizeof(*w));
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		/* clang names a stale function "control flow change", one the
		   training build never made "no profile data available" */
		bool mismatch = clang ? strstr(line, "function control flow change detected") != NULL
				      : strstr(line, "coverage-mismatch]") != NULL;
		bool missing = clang ? strstr(line, "no profile data available for function") != NULL
				     : strstr(line, "[-Wmissing-profile]") != NULL;
		struct source_count **slot;
		char *source;

		if (!mismatch && !missing)
			continue;
		source = warning_source(line);
		slot = (struct source_count **)strmap_slot(&w->per_source, source);
		if (!*slot)
			*slot = xcalloc(1, sizeof(**slot));
		else
			free(source);
		if (mismatch) {
			w->mismatch++;
			(*slot)->mismatch++;
		} else {
			w->missing++;
			(*slot)->missing++;
			/* clang's profile holds every function the instrumented
			   build made, run or not: one missing is foreign */
			if (clang)
				w->missing_unexpected++;
			else
				count_missing(w, strchr(line, ':') ? strchr(line, ':') : line, meta);
		}
	}
	free(line);
	fclose(f);
}

static void free_warnings(struct build_warnings *w)
{
	size_t i;

	for (i = 0; i < w->per_source.capacity; i++) {
		if (w->per_source.slots[i].key) {
			free((char *)w->per_source.slots[i].key);
			free(w->per_source.slots[i].value);
		}
	}
	strmap_free(&w->per_source);
	for (i = 0; i < w->nmissing_names; i++)
		free(w->missing_names[i]);
	free(w->missing_names);
	memset(w, 0, sizeof(*w));
}

/* Length of the longest tail of a and b, each taken whole or after a '-'
   in its last path component, that the two share; 0 when none.  Compilers
   name the profile of a one-step compile and link "OUTPUT-SOURCE". */
static size_t name_match(const char *a, const char *b)
{
	const char *ha = strrchr(a, '#') ? strrchr(a, '#') + 1 : a;
	const char *hb = strrchr(b, '#') ? strrchr(b, '#') + 1 : b;
	const char *p, *q;

	if (ha - a != hb - b || strncmp(a, b, ha - a) != 0)
		return 0;
	for (p = ha; p; p = strchr(p, '-') ? strchr(p, '-') + 1 : NULL)
		for (q = hb; q; q = strchr(q, '-') ? strchr(q, '-') + 1 : NULL)
			if (!strcmp(p, q))
				return strlen(p);
	return 0;
}

/* The object of meta with data whose name matches want best; how many
   match that well goes to *count. */
static size_t best_match(const struct store_meta *meta, const char *want, size_t *count)
{
	size_t j, best = 0, pick = 0;

	*count = 0;
	for (j = 0; j < meta->nobjects; j++) {
		size_t m;

		if (!meta->has_data[j] || !strcmp(meta->objects[j], want))
			continue;
		m = name_match(meta->objects[j], want);
		if (m > best) {
			best = m;
			*count = 1;
			pick = j;
		} else if (m && m == best) {
			(*count)++;
		}
	}
	return pick;
}

/* For each profile file the optimized build looked for and did not find,
   copies the one profile file named after another output of the same
   source; returns how many it copied. */
static size_t link_output_names(struct session *s, const struct store_meta *meta,
				const struct build_warnings *w)
{
	char *profile = store_profile_path(&s->store);
	size_t i, linked = 0;

	for (i = 0; i < w->nmissing_names; i++) {
		const char *want = w->missing_names[i];
		size_t count, pick = best_match(meta, want, &count);

		if (count == 1) {
			char *from = xasprintf("%s/%s.gcda", profile, meta->objects[pick]);
			char *to = xasprintf("%s/%s.gcda", profile, want), *why;

			warn("output names differ between the builds: the instrumented build wrote '%s.gcda', "
			     "the optimized build reads '%s.gcda'; using the first for the second",
			     meta->objects[pick], want);
			if (files_copy(from, to, false, &why) < 0) {
				error("%s", why);
				free(why);
			} else {
				linked++;
			}
			free(from);
			free(to);
		} else if (count > 1) {
			warn("output names differ between the builds: '%s.gcda' matches several profile files",
			     want);
		}
	}
	free(profile);
	return linked;
}

static void print_warnings(const struct build_warnings *w)
{
	size_t i;

	steps_step("optimized build", "%zu coverage-mismatch warning%s, %zu missing-profile warning%s "
		    "(%zu for objects with no data by design)", w->mismatch, w->mismatch == 1 ? "" : "s",
		    w->missing, w->missing == 1 ? "" : "s", w->missing - w->missing_unexpected);
	for (i = 0; i < w->per_source.capacity; i++) {
		const struct strmap_slot *slot = &w->per_source.slots[i];
		const struct source_count *n = slot->value;

		if (slot->key)
			printf("    %s: %zu coverage-mismatch, %zu missing-profile\n", slot->key, n->mismatch,
			       n->missing);
	}
}

int build_optimized(struct session *s, struct compiles *out, long *started)
{
	char *profile = store_profile_path(&s->store), *log = xasprintf("%s/use-build.log", s->logs), *why;
	struct store_meta meta;
	struct build_warnings w;
	int status = 1;

	memset(out, 0, sizeof(*out));
	*started = time(NULL);
	if (store_meta_read(profile, &meta, &why) < 0) {
		error("%s: no profile to build with", profile);
		free(why);
		goto out;
	}
	if (!build_run(s, BUILD_USE, s->use_dir, started, out))
		goto out;
	parse_warnings(s, log, &meta, &w);
	if (w.nmissing_names && link_output_names(s, &meta, &w)) {
		free_warnings(&w);
		compiles_free(out);
		if (!build_run(s, BUILD_USE, s->use_dir, started, out))
			goto out;
		parse_warnings(s, log, &meta, &w);
	}
	print_warnings(&w);
	if (w.mismatch)
		error("the profile does not match the sources in %zu place%s: sources changed since "
		      "training (see 'pgo-run status'), or the builds differ; log %s", w.mismatch,
		      w.mismatch == 1 ? "" : "s", log);
	if (w.missing_unexpected && s->family == FAMILY_CLANG)
		error("%zu function%s found no profile data: the instrumented build did not make them (the "
		      "sources or the builds differ, or the profile is another program's); log %s",
		      w.missing_unexpected, w.missing_unexpected == 1 ? "" : "s", log);
	else if (w.missing_unexpected)
		error("%zu object%s found no profile data although the instrumented build made them "
		      "(log %s)", w.missing_unexpected, w.missing_unexpected == 1 ? "" : "s", log);
	status = w.mismatch || w.missing_unexpected;
	free_warnings(&w);
out:
	store_meta_free(&meta);
	free(profile);
	free(log);
	return status;
}
