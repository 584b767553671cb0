#include "commands.h"
#include "files.h"
#include "json.h"
#include "llvm.h"
#include "merge.h"
#include "proc.h"
#include "steps.h"
#include "tree.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Prints the lines of the description of the configuration, indented. */
static void print_description(const char *description)
{
	const char *p;

	for (p = description; *p;) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);

		printf("  %.*s\n", len, p);
		p += len + (nl != NULL);
	}
}

static void json_string_member(const char *name, const char *value, bool comma)
{
	printf("%s\"%s\": ", comma ? ", " : "", name);
	if (value)
		json_print_string(value);
	else
		fputs("null", stdout);
}

/* The other configurations of the store that have a profile: *keys (new
   strings) and *trained; returns how many.  A status run with another
   command line (--build) or environment (CC, CFLAGS) than the cycle's
   looks at another configuration, which has none. */
static size_t other_profiles(const struct session *s, char ***keys, long **trained)
{
	DIR *dir = opendir(s->store.root);
	struct dirent *e;
	size_t n = 0, cap_keys = 0, cap_trained = 0;

	*keys = NULL;
	*trained = NULL;
	while (dir && (e = readdir(dir))) {
		struct store_meta meta;
		char *profile, *why = NULL;

		if (!store_is_key(e->d_name) || !strcmp(e->d_name, s->store.key))
			continue;
		profile = xasprintf("%s/%s/profile", s->store.root, e->d_name);
		if (store_meta_read(profile, &meta, &why) == 0) {
			grow_array(trained, &cap_trained, n + 1, sizeof(**trained));
			(*trained)[n] = meta.trained;
			*ARRAY_PUSH(*keys, n, cap_keys) = xstrdup(e->d_name);
		}
		store_meta_free(&meta);
		free(why);
		free(profile);
	}
	if (dir)
		closedir(dir);
	return n;
}

/* The description of configuration key of the store on one line, the
   settings left empty left out; a new string. */
static char *one_line_description(const struct session *s, const char *key)
{
	char *path = xasprintf("%s/%s/config", s->store.root, key), *line = NULL, *text = xstrdup("");
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	ssize_t n;

	while (f && (n = getline(&line, &cap, f)) > 0) {
		char *more;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && line[n - 1] == ':')
			continue;
		if (n > 1 && line[n - 1] == ' ' && line[n - 2] == ':')
			continue;
		more = xasprintf("%s%s%s", text, *text ? "; " : "", line);
		free(text);
		text = more;
	}
	if (f)
		fclose(f);
	free(line);
	free(path);
	return text;
}

/* After "profile: none": the configurations of the store that have one. */
static void print_other_profiles(const struct session *s)
{
	char **keys;
	long *trained;
	size_t n = other_profiles(s, &keys, &trained), i;

	if (n)
		printf("other configurations of this store have a profile (pgo-run status looks at the one its "
		       "--build and its environment, CC, CFLAGS and the like, name):\n");
	for (i = 0; i < n; i++) {
		char *description = one_line_description(s, keys[i]);

		printf("  %s (trained %s ago): %s\n", keys[i], steps_age(time(NULL) - trained[i]), description);
		free(description);
		free(keys[i]);
	}
	free(keys);
	free(trained);
}

/* status as format linkopt-pgo-status, version 1 (pgo-run(1)). */
static int status_json(struct session *s)
{
	struct store_meta meta = { 0 };
	char *profile = store_profile_path(&s->store), *why = NULL, **left, **other;
	size_t i, changed = 0, nleft, nother;
	long *trained;
	bool readable = false, busy;

	printf("{");
	json_print_format("linkopt-pgo-status", 1);
	json_string_member("store", s->store.root, false);
	json_string_member("configuration", s->store.key, true);
	json_string_member("description", s->store.description, true);
	if (store_has_profile(&s->store) && !(readable = store_meta_read(profile, &meta, &why) == 0)) {
		error("%s", why);
		free(why);
	}
	json_string_member("profile", readable ? profile : NULL, true);
	printf(", \"profile_state\": \"%s\"", !store_has_profile(&s->store) ? "none" : readable ? "ok" : "unreadable");
	if (readable) {
		printf(", \"trained\": %lld, \"workloads\": [", (long long)meta.trained);
		for (i = 0; i < meta.nworkloads; i++) {
			printf("%s{\"weight\": %.17g", i ? ", " : "", meta.weights[i]);
			json_string_member("command", meta.workloads[i], true);
			printf("}");
		}
		printf("], \"objects\": [");
		for (i = 0; i < meta.nobjects; i++) {
			printf("%s{", i ? ", " : "");
			json_string_member("path", steps_object_path(meta.objects[i]), false);
			printf(", \"has_data\": %s}", meta.has_data[i] ? "true" : "false");
		}
		printf("], \"sources\": %zu, \"changed_sources\": [", meta.nsources);
		for (i = 0; i < meta.nsources; i++)
			if (steps_source_changed(&meta, i)) {
				printf("%s", changed++ ? ", " : "");
				json_print_string(meta.sources[i]);
			}
		printf("]");
	}
	printf(", \"stale\": %s", !readable || changed || steps_sources_unknown(&meta) ? "true" : "false");
	left = tree_instrumented(s, &nleft);
	busy = nleft && session_busy(s);
	printf(", \"instrumented_in_tree\": [");
	for (i = 0; i < nleft; i++) {
		printf("%s", i ? ", " : "");
		json_print_string(left[i]);
		free(left[i]);
	}
	free(left);
	printf("], \"cycle_running\": %s, \"other_profiles\": [", busy ? "true" : "false");
	nother = other_profiles(s, &other, &trained);
	for (i = 0; i < nother; i++) {
		printf("%s{", i ? ", " : "");
		json_string_member("configuration", other[i], false);
		printf(", \"trained\": %ld}", trained[i]);
		free(other[i]);
	}
	printf("]}\n");
	free(other);
	free(trained);
	store_meta_free(&meta);
	free(profile);
	return !readable || changed || steps_sources_unknown(&meta) || nleft ? 1 : 0;
}

int commands_status(const struct pgo_options *o)
{
	struct session s;
	struct store_meta meta = { 0 };
	char *profile, *why, when[64];
	size_t i, changed = 1, without = 0, left;
	time_t trained;

	if (!session_open(&s, o, false)) {
		session_close(&s);
		return 1;
	}
	if (o->json) {
		int status = status_json(&s);

		session_close(&s);
		stdout_close_or_die();
		return status;
	}
	profile = store_profile_path(&s.store);
	printf("store: %s\nconfiguration: %s\n", s.store.root, s.store.key);
	print_description(s.store.description);
	if (!store_has_profile(&s.store)) {
		printf("profile: none\n");
		print_other_profiles(&s);
		goto out;
	}
	if (store_meta_read(profile, &meta, &why) < 0) {
		error("%s", why);
		free(why);
		printf("profile: unreadable\n");
		goto out;
	}
	trained = meta.trained;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&trained));
	printf("profile: %s\ntrained: %s (%s ago)\n", profile, when, steps_age(time(NULL) - trained));
	for (i = 0; i < meta.nworkloads; i++)
		printf("workload: weight %g: %s\n", meta.weights[i], meta.workloads[i]);
	for (i = 0; i < meta.nobjects; i++)
		without += !meta.has_data[i];
	printf("objects: %zu with data, %zu without\n", meta.nobjects - without, without);
	steps_no_data(&meta);
	printf("sources: %zu recorded\n", meta.nsources);
	changed = steps_stale_sources(&meta);
	printf("stale: %s\n", changed ? "yes" : "no");
out:
	left = tree_report(&s);
	/* make takes them for up to date: building again keeps them */
	if (left && session_busy(&s))
		printf("instrumented build in the tree: %zu output%s of the cycle running now\n", left,
		       left == 1 ? "" : "s");
	else if (left)
		printf("instrumented build in the tree: %zu output%s of a cycle that was killed before it could "
		       "remove %s; the next pgo-run removes %s, or clean and build again\n", left,
		       left == 1 ? "" : "s", left == 1 ? "it" : "them", left == 1 ? "it" : "them");
	store_meta_free(&meta);
	free(profile);
	session_close(&s);
	stdout_close_or_die();
	return changed || left ? 1 : 0;
}

/* True when dir holds at least one profile file, and none is damaged
   (gcov-tool would merge it as zero counts); false with a message. */
static bool has_profile_files(const struct session *s, const char *dir)
{
	char *why;
	long n = merge_check_profiles(s, dir, &why);

	if (n == -2)
		error("%s", why);
	else if (n < 0)
		error("%s: %s", dir, why);
	if (n < 0) {
		free(why);
		return false;
	}
	if (n == 0)
		error("%s: no profile data to merge", dir);
	return n > 0;
}

/* Sets *dirs to the profile folders to merge, the profile in use first,
   and *weights to theirs: the folders given as workloads, or the gen
   folder; *n gets their number.  False (with a message) when one of them
   holds no profile data or a damaged file. */
static bool merge_folders(const struct session *s, const char *profile, char ***dirs, double **weights,
			  size_t *n)
{
	const struct pgo_options *o = s->options;
	size_t i;

	*n = 1 + (o->nworkloads ? o->nworkloads : 1);
	*dirs = xcalloc(*n, sizeof(**dirs));
	*weights = xcalloc(*n, sizeof(**weights));
	(*dirs)[0] = xstrdup(profile);
	(*weights)[0] = 1;
	for (i = 1; i < *n; i++) {
		(*dirs)[i] = xstrdup(o->nworkloads ? o->workloads[i - 1].command : s->gen_data);
		(*weights)[i] = o->nworkloads ? o->workloads[i - 1].weight : 1;
		if (!has_profile_files(s, (*dirs)[i]))
			return false;
	}
	return true;
}

/* Completes fresh (objects from merge_describe) from meta, the profile
   merged into: its training time and sources, since staleness is judged
   against the sources as they were at training, and its workloads followed
   by the folders merged (dirs[1] on). */
static void merged_meta(struct store_meta *meta, struct store_meta *fresh, char **dirs,
			const double *weights, size_t n)
{
	size_t i;

	for (i = 0; i < fresh->nsources; i++)
		free(fresh->sources[i]);
	free(fresh->sources);
	free(fresh->hashes);
	fresh->sources = meta->sources;
	fresh->hashes = meta->hashes;
	fresh->nsources = meta->nsources;
	meta->sources = NULL;
	meta->hashes = NULL;
	meta->nsources = 0;
	fresh->trained = meta->trained;
	fresh->nworkloads = meta->nworkloads + n - 1;
	fresh->workloads = xcalloc(fresh->nworkloads, sizeof(char *));
	fresh->weights = xcalloc(fresh->nworkloads, sizeof(double));
	for (i = 0; i < meta->nworkloads; i++) {
		fresh->workloads[i] = xstrdup(meta->workloads[i]);
		fresh->weights[i] = meta->weights[i];
	}
	for (i = 1; i < n; i++) {
		fresh->workloads[meta->nworkloads + i - 1] = xasprintf("merged from %s", dirs[i]);
		fresh->weights[meta->nworkloads + i - 1] = weights[i];
	}
}

/* clang's merge of the n folders dirs (raw profiles, or the profile in
   use first) into folder; fresh gets the objects of meta, the profile in
   use.  False (with a message) when it fails. */
static bool merge_clang(const struct session *s, const struct store_meta *meta, char **dirs,
			const double *weights, size_t n, const char *folder, const char *log,
			struct store_meta *fresh)
{
	long *whole = xcalloc(n, sizeof(*whole));
	char *why = NULL;
	size_t i;
	bool ok = false;

	if (merge_whole_weights(weights, n, whole, &why) < 0) {
		error("%s", why);
		free(why);
	} else if (llvm_merge(s, dirs, whole, n, folder, log)) {
		fresh->nobjects = meta->nobjects;
		fresh->objects = xcalloc(meta->nobjects + 1, sizeof(*fresh->objects));
		fresh->has_data = xcalloc(meta->nobjects + 1, sizeof(*fresh->has_data));
		for (i = 0; i < meta->nobjects; i++) {
			fresh->objects[i] = xstrdup(meta->objects[i]);
			fresh->has_data[i] = meta->has_data[i];
		}
		ok = true;
	}
	free(whole);
	return ok;
}

/* Merges the n folders dirs (the first the profile in use, with meta)
   into the new profile folder and installs it; false (with a message) when
   it cannot. */
static bool merge_into(struct session *s, struct store_meta *meta, char **dirs, const double *weights,
		       size_t n, const char *folder)
{
	char *scratch = xasprintf("%s/scratch", folder), *log = session_log(s, "merge"), *why = NULL;
	struct store_meta fresh = { 0 };
	bool ok = false;

	if (s->family == FAMILY_CLANG) {
		/* the objects are those of the training (clang's profile names
		   functions: which object ran stays as it was found then) */
		if (!merge_clang(s, meta, dirs, weights, n, folder, log, &fresh))
			goto out;
	} else {
		if (files_make_dir(scratch, &why) < 0) {
			error("%s", why);
			goto out;
		}
		if (!merge_weighted(s, dirs, weights, n, folder, scratch, log))
			goto out;
		if (files_remove(scratch, &why) < 0)
			warn("%s", why);
		merge_copy_notes(dirs[0], folder);
		if (!merge_describe(folder, &fresh))
			goto out;
	}
	merged_meta(meta, &fresh, dirs, weights, n);
	steps_objects("merge", &fresh);
	ok = merge_commit(s, folder, &fresh);
out:
	free(why);
	free(scratch);
	free(log);
	store_meta_free(&fresh);
	return ok;
}

int commands_merge(const struct pgo_options *o)
{
	struct session s;
	struct store_meta meta = { 0 };
	char *profile = NULL, *folder = NULL, **dirs = NULL, *why = NULL;
	double *weights = NULL;
	size_t n = 0, i;
	int status = 1;

	if (!session_open(&s, o, true))
		goto out;
	profile = store_profile_path(&s.store);
	if (store_meta_read(profile, &meta, &why) < 0) {
		error("%s: no profile to merge into: run pgo-run WORKLOAD first", profile);
		goto out;
	}
	if (!merge_folders(&s, profile, &dirs, &weights, &n))
		goto out;
	folder = store_new_profile(&s.store, &why);
	if (!folder)
		fatal("%s", why);
	if (!merge_into(&s, &meta, dirs, weights, n, folder))
		goto out;
	steps_step("merge", "merged %zu folder%s into the profile in use", n - 1, n == 2 ? "" : "s");
	status = 0;
	/* the data is in the profile now: merging it again would count it twice */
	if (!o->nworkloads && (files_remove(s.gen_data, &why) < 0 || files_make_dir(s.gen_data, &why) < 0))
		warn("%s: cannot empty: %s", s.gen_data, why);
out:
	free(why);
	why = NULL;
	if (status && folder && files_remove(folder, &why) < 0)
		warn("%s", why);
	free(why);
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	free(weights);
	free(folder);
	free(profile);
	store_meta_free(&meta);
	session_close(&s);
	stdout_close_or_die();
	return status;
}

/* A store holds nothing but configuration folders, its lock and the compiler
   wrapper's: true when root does; false (with a message) when it holds
   anything else or cannot be read. */
static bool is_store(const char *root)
{
	DIR *dir = opendir(root);
	struct dirent *e;
	bool ok = true;

	if (!dir) {
		error("%s: opendir failed: %s", root, strerror(errno));
		return false;
	}
	while (ok && (e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "bin") ||
		    !strcmp(e->d_name, "lock") || store_is_key(e->d_name))
			continue;
		error("%s: not a pgo-run store (it holds '%s'): not removing it", root, e->d_name);
		ok = false;
	}
	closedir(dir);
	return ok;
}

int commands_clean(const struct pgo_options *o)
{
	struct session s;
	const char *target;
	char *why;
	int status = 1;

	if (!session_open(&s, o, false))
		goto out;
	status = 0;
	if (access(s.store.root, F_OK) < 0)
		goto out;
	status = 1;
	/* refuse to delete a folder that is not a store (--store .), or what a
	   pgo-run running now uses: its cycle would fail, and leave its
	   instrumented build where make takes it for up to date */
	if (!is_store(s.store.root) || !session_lock_to_remove(&s, o->all))
		goto out;
	target = o->all ? s.store.root : s.store.config;
	if (files_remove(target, &why) < 0) {
		error("%s", why);
		free(why);
		goto out;
	}
	printf("removed %s\n", target);
	status = 0;
out:
	session_close(&s);
	stdout_close_or_die();
	return status;
}

struct hot_function {
	char *name, *file;
	long line;
	unsigned long long count;
};

struct hot_list {
	struct hot_function *items;
	size_t count, cap;
};

static int compare_hot(const void *a, const void *b)
{
	const struct hot_function *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Adds the functions gcov's JSON output lists to hot. */
static void read_functions(const char *out, struct hot_list *hot)
{
	const char *why;
	struct json *root = json_parse(out, &why);
	const struct json *files = json_get(root, "files");
	size_t i, k;

	if (!root) {
		warn("gcov --json-format: cannot read its output: %s", why);
		return;
	}
	for (i = 0; files && files->type == JSON_ARRAY && i < files->count; i++) {
		const struct json *file = files->items[i], *functions = json_get(file, "functions");
		const char *file_name = json_get_string(file, "file", "?");

		for (k = 0; functions && functions->type == JSON_ARRAY && k < functions->count; k++) {
			const struct json *f = functions->items[k];
			const char *name = json_get_string(f, "demangled_name", json_get_string(f, "name", NULL));
			const struct json *count = json_get(f, "execution_count");
			struct hot_function *h;

			if (!name || !count || count->type != JSON_NUMBER)
				continue;
			h = ARRAY_PUSH(hot->items, hot->count, hot->cap);
			h->name = xstrdup(name);
			h->file = xstrdup(file_name);
			h->count = (unsigned long long)count->number;
			h->line = (long)json_get_number(f, "start_line", 0);
		}
	}
	json_free(root);
}

/* Adds the functions of object i of the profile to hot, through gcov in
   the scratch folder tmp. */
static void object_functions(const char *profile, const struct store_meta *meta, size_t i, const char *tmp,
			     struct hot_list *hot)
{
	/* gcov wants the notes and the data side by side under one name */
	char *gcno = xasprintf("%s/notes/%s.gcno", profile, meta->objects[i]);
	char *gcda = xasprintf("%s/%s.gcda", profile, meta->objects[i]);
	char *a = xasprintf("%s/o%zu.gcno", tmp, i), *b = xasprintf("%s/o%zu.gcda", tmp, i), *why;
	char *argv[] = { "gcov", "--json-format", "--stdout", a, NULL };
	char *out;

	if (files_copy(gcno, a, false, &why) < 0 || files_copy(gcda, b, false, &why) < 0) {
		warn("%s", why);
		free(why);
	} else {
		out = proc_capture(argv, tmp);
		if (out)
			read_functions(out, hot);
		else
			warn("%s: gcov failed", gcno);
		free(out);
	}
	free(gcno);
	free(gcda);
	free(a);
	free(b);
}

/* clang's profile names no source line: its top functions by their
   hottest block's count (llvm-profdata show --topn) go to hot; false
   (with a message) when it cannot be read. */
static bool clang_functions(const struct session *s, const char *profile, int top, struct hot_list *hot)
{
	char **names, *why = NULL;
	unsigned long long *counts;
	long n = llvm_top_functions(s, profile, top > 0 ? (size_t)top : 1, &names, &counts, &why), i;

	if (n < 0) {
		error("%s", why);
		free(why);
		return false;
	}
	for (i = 0; i < n; i++) {
		struct hot_function *h = ARRAY_PUSH(hot->items, hot->count, hot->cap);

		h->name = names[i];
		h->file = xstrdup("");
		h->line = 0;
		h->count = counts[i];
	}
	free(names);
	free(counts);
	return true;
}

int commands_show(const struct pgo_options *o)
{
	struct session s;
	struct store_meta meta = { 0 };
	struct hot_list hot = { 0 };
	size_t i;
	char *profile = NULL, *tmp, *why = NULL;
	const char *tmpdir = getenv("TMPDIR"), *count_name;
	int status = 1;
	bool clang;

	tmp = xasprintf("%s/pgo-show.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!session_open(&s, o, false))
		goto out;
	profile = store_profile_path(&s.store);
	if (store_meta_read(profile, &meta, &why) < 0) {
		error("%s: no profile", profile);
		goto out;
	}
	if (s.family == FAMILY_CLANG) {
		if (!clang_functions(&s, profile, o->top, &hot))
			goto out;
	} else {
		if (!mkdtemp(tmp))
			fatal("%s: mkdtemp failed: %s", tmp, strerror(errno));
		for (i = 0; i < meta.nobjects; i++)
			if (meta.has_data[i])
				object_functions(profile, &meta, i, tmp, &hot);
		if (files_remove(tmp, &why) < 0)
			warn("%s", why);
	}
	if (hot.count)
		qsort(hot.items, hot.count, sizeof(*hot.items), compare_hot);
	clang = s.family == FAMILY_CLANG;
	count_name = clang ? "max_count" : "calls";
	if (o->json) {
		printf("{");
		json_print_format("linkopt-pgo-show", 1);
		json_string_member("profile", profile, false);
		printf(", \"functions\": [");
		for (i = 0; i < hot.count && (int)i < o->top; i++) {
			printf("%s\n  {\"%s\": %llu", i ? "," : "", count_name, hot.items[i].count);
			json_string_member("function", hot.items[i].name, true);
			if (!clang) {
				json_string_member("file", hot.items[i].file, true);
				printf(", \"line\": %ld", hot.items[i].line);
			}
			printf("}");
		}
		printf("\n]}\n");
	} else if (clang) {
		printf("%14s  %s\n", "max count", "function (its hottest block's count)");
		for (i = 0; i < hot.count && (int)i < o->top; i++)
			printf("%14llu  %s\n", hot.items[i].count, hot.items[i].name);
	} else {
		printf("%14s  %s\n", "calls", "function (source:line)");
		for (i = 0; i < hot.count && (int)i < o->top; i++)
			printf("%14llu  %s (%s:%ld)\n", hot.items[i].count, hot.items[i].name, hot.items[i].file,
			       hot.items[i].line);
	}
	status = hot.count ? 0 : 1;
out:
	for (i = 0; i < hot.count; i++) {
		free(hot.items[i].name);
		free(hot.items[i].file);
	}
	free(hot.items);
	free(why);
	free(tmp);
	free(profile);
	store_meta_free(&meta);
	session_close(&s);
	stdout_close_or_die();
	return status;
}
