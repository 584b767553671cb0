#include "merge.h"
#include "files.h"
#include "gcda.h"
#include "llvm.h"
#include "proc.h"
#include "steps.h"
#include "util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Copies the profile files of from into the existing folder to. */
static bool copy_profile(const char *from, const char *to)
{
	char **files, *why = NULL;
	size_t n, i;
	bool ok = files_list(from, ".gcda", 0, &files, &n, &why) == 0;

	for (i = 0; i < n && ok; i++) {
		char *src = xasprintf("%s/%s", from, files[i]);
		char *dst = xasprintf("%s/%s", to, files[i]);

		ok = files_copy(src, dst, false, &why) == 0;
		free(src);
		free(dst);
	}
	if (!ok)
		error("%s", why);
	free(why);
	files_free_list(files, n);
	return ok;
}

long merge_check_profiles(const struct session *s, const char *dir, char **why)
{
	bool clang = s->family == FAMILY_CLANG;
	char **files, *first = NULL;
	size_t n, i, damaged = 0;

	if ((clang ? llvm_list_profiles(dir, &files, &n, why) : files_list(dir, ".gcda", 0, &files, &n, why)) < 0)
		return -2;
	for (i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, files[i]), *reason = NULL;

		if (clang ? (reason = llvm_damage(s, path)) != NULL : gcda_check(path, &reason) < 0) {
			if (!damaged++)
				first = xasprintf("%s: %s", files[i], reason);
			free(reason);
		}
		free(path);
	}
	files_free_list(files, n);
	if (!damaged)
		return (long)n;
	if (damaged == 1) {
		*why = first;
	} else {
		*why = xasprintf("%s (and %zu more of the %zu files)", first, damaged - 1, n);
		free(first);
	}
	return -1;
}

static long gcd(long a, long b)
{
	while (b) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int merge_whole_weights(const double *weights, size_t n, long *whole, char **why)
{
	long common = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double scaled = weights[i] * 1e6, off;

		off = scaled - (double)(long)(scaled + 0.5);
		if (!(scaled >= 0.5 && scaled < 1e15) || off > scaled * 1e-9 || -off > scaled * 1e-9) {
			*why = xasprintf("weight %g: not a positive number with at most 6 decimals", weights[i]);
			return -1;
		}
		whole[i] = (long)(scaled + 0.5);
		common = gcd(common, whole[i]);
	}
	for (i = 0; i < n; i++) {
		whole[i] /= common;
		if (whole[i] > INT_MAX) {
			*why = xasprintf("weights %g and %g: too far apart for gcov-tool, whose weights are whole "
					 "numbers up to %d", weights[i], weights[0], INT_MAX);
			return -1;
		}
	}
	return 0;
}

/* The weights as whole numbers for tool (gcov-tool, llvm-profdata: both
   take whole numbers only), saying so when they differ from those given;
   a new array, NULL (with a message) when they cannot be. */
static long *whole_weights_for(const char *tool, const double *weights, size_t n)
{
	long *whole = xcalloc(n, sizeof(*whole));
	char *why = NULL;
	size_t i;

	if (merge_whole_weights(weights, n, whole, &why) < 0) {
		error("%s", why);
		free(why);
		free(whole);
		return NULL;
	}
	for (i = 0; i < n && whole[i] == weights[i]; i++)
		;
	if (i < n && n > 1) {
		char *given = xstrdup(""), *used = xstrdup(""), *more;

		for (i = 0; i < n; i++) {
			more = xasprintf("%s%s%g", given, i ? ", " : "", weights[i]);
			free(given);
			given = more;
			more = xasprintf("%s%s%ld", used, i ? ", " : "", whole[i]);
			free(used);
			used = more;
		}
		steps_step("merge", "weights %s go to %s, which takes whole numbers, as %s", given, tool, used);
		free(given);
		free(used);
	}
	return whole;
}

/* gcov-tool merges two folders at a time, so N folders take N-1 chained
   merges, each carrying the sum so far with weight 1 (its whole-number
   weights applied once). */
bool merge_weighted(const struct session *s, char **dirs, const double *weights, size_t n, const char *out, const char *scratch,
		    const char *log)
{
	char *previous = NULL, *why = NULL;
	long *whole = whole_weights_for("gcov-tool", weights, n), checked;
	size_t i;
	bool ok = true;

	if (!whole)
		return false;
	if (n == 1)
		ok = copy_profile(dirs[0], out);
	for (i = 1; i < n && ok; i++) {
		char *target = i + 1 == n ? xstrdup(out) : xasprintf("%s/merge-%zu", scratch, i);
		char *w = xasprintf("%ld,%ld", i == 1 ? whole[0] : 1L, whole[i]);
		char *argv[] = { "gcov-tool", "merge", "-w", w, "-o", target,
				 (char *)(previous ? previous : dirs[0]), dirs[i], NULL };
		int status = proc_run(argv, NULL, NULL, 0, log, NULL);

		if (status != 0) {
			char *text = proc_describe(status);

			error("gcov-tool merge -w %s %s %s failed: %s (log %s)", w, argv[6], dirs[i], text, log);
			steps_log_tail(log, 10);
			free(text);
			ok = false;
		}
		free(w);
		free(previous);
		previous = target;
	}
	free(previous);
	free(whole);
	/* on a full disk gcov-tool says "Error writing" and exits 0 */
	if (ok && (checked = merge_check_profiles(s, out, &why)) < 0) {
		if (checked == -2) {
			error("%s", why);
		} else if (n == 1) {
			error("the copied profile is damaged: %s", why);
		} else {
			error("the merged profile is damaged (log %s): %s", log, why);
			steps_log_tail(log, 10);
		}
		free(why);
		ok = false;
	}
	return ok;
}

/* The name gcc gives the profile file of the notes file at the relative
   path rel under the -fprofile-prefix-path folder, when the compile ran
   there: '/' becomes '#', the suffix goes; a new string. */
static char *profile_name(const char *rel)
{
	char *name = xstrdup(rel), *p, *dot = strrchr(name, '.');

	if (dot && !strchr(dot, '/'))
		*dot = '\0';
	for (p = name; *p; p++)
		if (*p == '/')
			*p = '#';
	return name;
}

/* A notes file of the instrumented build and the name of its profile file
   (no suffix). */
struct notes_file {
	char *path, *name;
};

struct notes_list {
	struct notes_file *items;
	size_t count, cap;
	struct strmap seen; /* real paths of the notes files listed */
	long since;
};

/* Adds the notes file at path under name (taken) unless it is missing,
   older than the build or listed already. */
static void add_notes(struct notes_list *l, const char *path, char *name)
{
	char *real = realpath(path, NULL);
	struct stat st;
	void **slot;

	if (!real || stat(real, &st) < 0 || st.st_mtime < l->since) {
		free(real);
		free(name);
		return;
	}
	slot = strmap_slot(&l->seen, real);
	if (*slot) {
		free(real);
		free(name);
		return;
	}
	*slot = real;
	*ARRAY_PUSH(l->items, l->count, l->cap) = (struct notes_file){ xstrdup(path), name };
}

/* The notes files of the instrumented build wherever its objects lie:
   those of the profile files the workloads wrote (their names say where
   the object was), those of the objects the build's compiler commands
   wrote, and those in the gen folder. */
static void find_notes(const struct session *s, const char *profile, const struct compiles *gen, long since,
		       struct notes_list *l)
{
	char **files, *why = NULL;
	size_t n, i;

	memset(l, 0, sizeof(*l));
	l->since = since;
	if (files_list(profile, ".gcda", 0, &files, &n, &why) == 0) {
		for (i = 0; i < n; i++) {
			char *notes = compiles_notes_of_profile(files[i], s->gen_dir);

			add_notes(l, notes, xstrndup(files[i], strlen(files[i]) - 5));
			free(notes);
		}
		files_free_list(files, n);
	}
	for (i = 0; i < gen->count; i++) {
		const struct compile_output *o = &gen->outputs[i];
		char *notes;

		if (o->kind != OUTPUT_OBJECT)
			continue;
		notes = compiles_notes_path(o);
		add_notes(l, notes, compiles_profile_name(o, s->gen_dir));
		free(notes);
	}
	free(why);
	why = NULL;
	if (files_list(s->gen_dir, ".gcno", since, &files, &n, &why) == 0) {
		for (i = 0; i < n; i++) {
			char *notes = xasprintf("%s/%s", s->gen_dir, files[i]);

			add_notes(l, notes, profile_name(files[i]));
			free(notes);
		}
		files_free_list(files, n);
	}
	free(why);
}

static void free_notes(struct notes_list *l)
{
	size_t i;

	for (i = 0; i < l->count; i++) {
		free(l->items[i].path);
		free(l->items[i].name);
	}
	free(l->items);
	for (i = 0; i < l->seen.capacity; i++)
		free(l->seen.slots[i].value);
	strmap_free(&l->seen);
}

/* Copies the notes files into the notes folder of the profile folder,
   named as their profile files are; dies when it cannot. */
static void copy_new_notes(const struct notes_list *l, const char *folder)
{
	char *notes_dir = xasprintf("%s/notes", folder), *why;
	size_t i;

	if (files_make_dir(notes_dir, &why) < 0)
		fatal("%s", why);
	for (i = 0; i < l->count; i++) {
		char *dst = xasprintf("%s/%s.gcno", notes_dir, l->items[i].name), *slash = strrchr(dst, '/');

		/* an absolute name keeps its folders (see compiles_profile_name) */
		*slash = '\0';
		if (files_make_dir(dst, &why) < 0)
			fatal("%s", why);
		*slash = '/';
		if (files_copy(l->items[i].path, dst, false, &why) < 0)
			fatal("%s", why);
		free(dst);
	}
	free(notes_dir);
}

void merge_copy_notes(const char *from_profile, const char *to_profile)
{
	char *from = xasprintf("%s/notes", from_profile), *to = xasprintf("%s/notes", to_profile);
	char **notes, *why;
	size_t n, i;

	if (files_list(from, ".gcno", 0, &notes, &n, &why) < 0 || files_make_dir(to, &why) < 0)
		fatal("%s", why);
	for (i = 0; i < n; i++) {
		char *a = xasprintf("%s/%s", from, notes[i]), *b = xasprintf("%s/%s", to, notes[i]);

		if (files_copy(a, b, false, &why) < 0)
			fatal("%s", why);
		free(a);
		free(b);
	}
	files_free_list(notes, n);
	free(from);
	free(to);
}

/* The sources behind a notes file, as gcov-dump lists them (FUNCTION
   records name the file each function comes from); absolute paths added
   to map and list. */
static void notes_sources(const char *notes, struct strmap *seen, char ***list, size_t *n, size_t *cap)
{
	char *argv[] = { "gcov-dump", (char *)notes, NULL };
	char *out = proc_capture(argv, NULL), *line, *save = NULL, *cwd = NULL;

	if (!out) {
		warn("%s: gcov-dump failed: cannot record the sources for the stale check", notes);
		return;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, ":cwd: "), *q, *file, *path, *real;
		void **slot;

		if (p) {
			free(cwd);
			cwd = xstrdup(p + 6);
			continue;
		}
		if (!strstr(line, "FUNCTION ") || !(p = strchr(line, '`')) || !(p = strstr(p, "' ")))
			continue;
		file = p + 2;
		for (q = file; *q && !(q[0] == ':' && q[1] >= '0' && q[1] <= '9'); q++)
			;
		*q = '\0';
		if (!*file)
			continue;
		path = file[0] == '/' || !cwd ? xstrdup(file) : xasprintf("%s/%s", cwd, file);
		/* ../lib/x.c from programs/ is shown, and found again, as lib/x.c */
		if ((real = realpath(path, NULL))) {
			free(path);
			path = real;
		}
		slot = strmap_slot(seen, path);
		if (*slot) {
			free(path);
			continue;
		}
		*slot = path;
		*ARRAY_PUSH(*list, *n, *cap) = path;
	}
	free(cwd);
	free(out);
}

bool merge_describe(const char *profile, struct store_meta *meta)
{
	char *notes_dir = xasprintf("%s/notes", profile), **notes, *why;
	size_t nnotes, i, cap_o = 0, cap_d = 0, cap_s = 0, cap_h = 0;
	struct strmap seen = { 0 };

	meta->objects = NULL;
	meta->nobjects = 0;
	meta->sources = NULL;
	meta->nsources = 0;
	if (files_list(notes_dir, ".gcno", 0, &notes, &nnotes, &why) < 0) {
		error("%s", why);
		free(why);
		free(notes_dir);
		return false;
	}
	for (i = 0; i < nnotes; i++) {
		char *name = xstrndup(notes[i], strlen(notes[i]) - 5);
		char *gcda = xasprintf("%s/%s.gcda", profile, name);
		char *gcno = xasprintf("%s/%s", notes_dir, notes[i]);

		grow_array(&meta->has_data, &cap_d, meta->nobjects + 1, sizeof(bool));
		meta->has_data[meta->nobjects] = access(gcda, R_OK) == 0;
		*ARRAY_PUSH(meta->objects, meta->nobjects, cap_o) = name;
		notes_sources(gcno, &seen, &meta->sources, &meta->nsources, &cap_s);
		free(gcda);
		free(gcno);
	}
	files_free_list(notes, nnotes);
	grow_array(&meta->hashes, &cap_h, meta->nsources + 1, sizeof(uint64_t));
	/* a source that cannot be read gets hash 0: stale from the start */
	for (i = 0; i < meta->nsources; i++)
		if (files_hash(meta->sources[i], &meta->hashes[i], NULL) < 0)
			meta->hashes[i] = 0;
	strmap_free(&seen);
	free(notes_dir);
	return true;
}

bool merge_commit(struct session *s, const char *folder, const struct store_meta *meta)
{
	char *replaced, *why;

	if (store_meta_write(folder, meta, &why) < 0 ||
	    store_commit_profile(&s->store, folder, &replaced, &why) < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	if (replaced && files_remove(replaced, &why) < 0) {
		warn("cannot remove the replaced profile: %s", why);
		free(why);
	}
	free(replaced);
	return true;
}

/* Records the workloads of the options, with their weights, in meta. */
static void record_workloads(const struct pgo_options *o, struct store_meta *meta)
{
	size_t i;

	meta->nworkloads = o->nworkloads;
	meta->workloads = xcalloc(o->nworkloads, sizeof(*meta->workloads));
	meta->weights = xcalloc(o->nworkloads, sizeof(*meta->weights));
	for (i = 0; i < o->nworkloads; i++) {
		meta->workloads[i] = xstrdup(o->workloads[i].command);
		meta->weights[i] = o->workloads[i].weight;
	}
}

static bool any_data(const struct store_meta *meta)
{
	size_t i;

	for (i = 0; i < meta->nobjects; i++)
		if (meta->has_data[i])
			return true;
	return false;
}

char *merge_prepare(struct session *s, const char *raw, long gen_started, const struct compiles *gen,
		    struct store_meta *meta)
{
	const struct pgo_options *o = s->options;
	double start = proc_now();
	char *why = NULL, *folder = store_new_profile(&s->store, &why);
	char *log = session_log(s, "merge"), **dirs = xcalloc(o->nworkloads, sizeof(*dirs));
	struct notes_list notes;
	size_t i;
	bool ok = false;

	memset(meta, 0, sizeof(*meta));
	memset(&notes, 0, sizeof(notes));
	if (!folder)
		fatal("%s", why);
	record_workloads(o, meta);
	for (i = 0; i < o->nworkloads; i++)
		dirs[i] = xasprintf("%s/%zu", raw, i);
	if (s->family == FAMILY_CLANG) {
		long *whole = whole_weights_for("llvm-profdata", meta->weights, o->nworkloads);
		bool merged = whole && llvm_merge(s, dirs, whole, o->nworkloads, folder, log);

		free(whole);
		if (!merged || !llvm_describe(s, folder, gen, meta))
			goto out;
		goto described;
	}
	if (!merge_weighted(s, dirs, meta->weights, o->nworkloads, folder, raw, log))
		goto out;
	find_notes(s, folder, gen, gen_started, &notes);
	if (notes.count == 0) {
		error("%s: the instrumented build wrote no notes files (.gcno): its compiler commands did not "
		      "get the flags (see pgo-run(1))", s->gen_dir);
		goto out;
	}
	copy_new_notes(&notes, folder);
	if (!merge_describe(folder, meta))
		goto out;
described:
	meta->trained = time(NULL);
	steps_objects("merge", meta);
	if (!any_data(meta)) {
		error("no instrumented object got profile data: the workloads ran another build "
		      "of the program, or the profile names do not match the notes");
		goto out;
	}
	steps_step("merge", "profile of %zu workload%s merged in %.2f s: %s", o->nworkloads,
		    o->nworkloads == 1 ? "" : "s", proc_now() - start, folder);
	ok = true;
out:
	free(why);
	why = NULL;
	if (!ok && files_remove(folder, &why) < 0) {
		warn("%s", why);
		free(why);
	}
	if (!ok) {
		free(folder);
		folder = NULL;
		store_meta_free(meta);
	}
	for (i = 0; i < o->nworkloads; i++)
		free(dirs[i]);
	free(dirs);
	free_notes(&notes);
	free(log);
	return folder;
}
