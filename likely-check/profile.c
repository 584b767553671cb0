#define _GNU_SOURCE
#include "profile.h"
#include "arcs.h"
#include "gcda.h"
#include "gimple.h"
#include "proc.h"
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs argv, returns its stdout (NUL-terminated) or NULL after an error
   message; the child's stderr goes to ours. */
static char *run_capture(char **argv)
{
	struct proc_request rq = { .argv = argv, .stdin_null = true, .out = PROC_CAPTURE };
	struct proc_result run;
	char *why;

	if (proc_exec(&rq, &run) != 0) {
		why = proc_describe(run.status);
		error("%s: failed: %s", argv[0], why);
		free(why);
		proc_result_free(&run);
		return NULL;
	}
	return run.out;
}

/* Appends the blank-separated words of s to the argument vector. */
static void push_words(char ***argv, size_t *count, size_t *capacity, const char *s)
{
	while (*s) {
		const char *start;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		start = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		*ARRAY_PUSH(*argv, *count, *capacity) = xstrndup(start, (size_t)(s - start));
	}
}

/* The expected value when it is a plain integer, parentheses allowed. */
static bool parse_expect(const char *text, long *value)
{
	char *copy = xstrdup(text), *s = copy, *end;
	size_t len;
	bool ok = false;

	squeeze_blanks(s);
	len = strlen(s);
	while (len >= 2 && s[0] == '(' && s[len - 1] == ')') {
		s[--len] = '\0';
		s++;
		len--;
	}
	errno = 0;
	*value = strtol(s, &end, 0);
	while (*end == 'l' || *end == 'L' || *end == 'u' || *end == 'U')
		end++;
	ok = end != s && *end == '\0' && errno == 0;
	free(copy);
	return ok;
}

/* The .gcda gcov reads for source, named as gcov names it: beside the
   source, or in the folder -o names, or after the object file -o names. */
static char *gcda_path(const char *source, const struct profile_options *o)
{
	const char *base = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	struct stat st;
	char *stem, *dot, *path;

	if (!o->objdir || !*o->objdir)
		stem = xstrdup(source);
	else if (stat(o->objdir, &st) == 0 && S_ISDIR(st.st_mode))
		stem = xasprintf("%s%s%s", o->objdir,
				 o->objdir[strlen(o->objdir) - 1] == '/' ? "" : "/", base);
	else
		stem = xstrdup(o->objdir);
	base = strrchr(stem, '/') ? strrchr(stem, '/') + 1 : stem;
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	path = xasprintf("%s.gcda", stem);
	free(stem);
	return path;
}

/* False after saying why when source's .gcda is there but cut short or
   corrupt: gcov would read it as zero counts without a word.  A missing
   one is a source that never ran, as gcov says. */
static bool gcda_whole(const char *source, const struct profile_options *o)
{
	char *path = gcda_path(source, o), *why;
	bool whole = true;

	if (access(path, F_OK) == 0 && gcda_check(path, &why) < 0) {
		error("%s: %s; its counts cannot be used for %s", path, why, source);
		free(why);
		whole = false;
	}
	free(path);
	return whole;
}

/* Runs cc -E -dD on source with the options' flags; returns the
   preprocessed text, or NULL after saying why. */
static char *preprocess(const char *source, const struct profile_options *o)
{
	char **argv = NULL, *text;
	size_t argc = 0, cap = 0, i;

	push_words(&argv, &argc, &cap, o->cc);
	push_words(&argv, &argc, &cap, o->cflags);
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("-E");
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("-dD");
	*ARRAY_PUSH(argv, argc, cap) = xstrdup(source);
	*ARRAY_PUSH(argv, argc, cap) = NULL;
	text = run_capture(argv);
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	if (!text)
		error("%s: the preprocessor failed", source);
	return text;
}

/* Notes in table the project macro of each site that comes from one. */
static void note_site_macros(struct site_table *table, struct scan *scan)
{
	size_t i;

	for (i = 0; i < scan->count; i++) {
		const struct scan_site *f = &scan->sites[i];
		char *macro = scan_site_macro(scan, f);

		if (macro) {
			site_table_note_macro(table, f->file, f->line, macro);
			free(macro);
		}
	}
}


/* A new folder for the compile of one source; NULL after saying why. */
static char *make_work_folder(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/likely-check.XXXXXX", tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(dir)) {
		error("%s: cannot create a temporary folder: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

/* Removes dir and the files the compile left in it. */
static void remove_work_folder(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *path;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	if (rmdir(dir) < 0)
		warn("%s: cannot remove the temporary folder: %s", dir, strerror(errno));
	free(dir);
}

/* Compiles source with the options' compiler and flags and --coverage into
   dir: dir/unit.gcno, in dir/unit.dump the coverage pass's own dump of the
   function bodies it instruments, blocks numbered as in the .gcno, and in
   dir/unit.gimple the functions as gimplified, before inlining.  Returns 0, or -1
   after saying why. */
static int compile_for_graph(const char *source, const struct profile_options *o, const char *dir)
{
	char **argv = NULL, *why;
	size_t argc = 0, cap = 0, i;
	struct proc_request rq = { .stdin_null = true, .out = PROC_DISCARD, .err = PROC_CAPTURE };
	struct proc_result run;
	int status;

	push_words(&argv, &argc, &cap, o->cc);
	push_words(&argv, &argc, &cap, o->cflags);
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("--coverage");
	*ARRAY_PUSH(argv, argc, cap) = xasprintf("-fdump-tree-gimple-lineno=%s/unit.gimple", dir);
	*ARRAY_PUSH(argv, argc, cap) = xasprintf("-fdump-ipa-profile-details-blocks-lineno=%s/unit.dump",
						 dir);
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("-c");
	*ARRAY_PUSH(argv, argc, cap) = xstrdup(source);
	*ARRAY_PUSH(argv, argc, cap) = xstrdup("-o");
	*ARRAY_PUSH(argv, argc, cap) = xasprintf("%s/unit.o", dir);
	*ARRAY_PUSH(argv, argc, cap) = NULL;
	rq.argv = argv;
	status = proc_exec(&rq, &run);
	if (status != 0) {
		why = proc_failure(status, run.err);
		error("%s: %s, to read the branches gcc instruments: %s", source, argv[0], why);
		free(why);
	}
	proc_result_free(&run);
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
	return status == 0 ? 0 : -1;
}

/* The counts of hint h of the dump's function g: how often the branch on
   its value went the expected way (*right) and the other (*wrong).
   Returns NULL, or a new string saying why there are none. */
static char *hint_counts(struct arcs_object *object, const struct gimple_function *g,
			 const struct gimple_hint *h, unsigned long long *right,
			 unsigned long long *wrong)
{
	const struct arcs_function *f = arcs_function(object, g->name);
	const struct arcs_arc *r, *w;

	if (h->reason)
		return xstrdup(h->reason);
	if (!f)
		return xasprintf("gcc's notes have no function %s", g->name);
	r = arcs_find(f, h->block, h->right_block);
	w = arcs_find(f, h->block, h->wrong_block);
	if (!r || !w || (r->flags & ARCS_FAKE) || (w->flags & ARCS_FAKE))
		return xasprintf("gcc's notes do not have the branch of block %u of %s", h->block,
				 g->name);
	*right = r->count;
	*wrong = w->count;
	return NULL;
}

/* The hints the compiler has at one column of a line (the copies of one
   site: inlined, cloned), their counts summed. */
struct place {
	unsigned int column;
	long expect;
	const char *function; /* the dump's function of the first copy */
	unsigned long long right, wrong;
	char *reason;         /* of the first copy that has one */
	bool overflow;
};

/* The places of one line, in column order once sorted. */
struct line_places {
	struct place *places;
	size_t count, capacity;
};

static char *line_key(const char *file, unsigned int line)
{
	char *normal = path_normalize(file), *key = xasprintf("%s\t%u", normal, line);

	free(normal);
	return key;
}

/* Adds hint h of function g to the places of its line in lines. */
static void add_place(struct strmap *lines, struct arcs_object *object,
		      const struct gimple_function *g, const struct gimple_hint *h)
{
	char *key = line_key(h->file, h->line), *reason;
	void **slot = strmap_slot(lines, key);
	struct line_places *l = *slot;
	struct place *p = NULL;
	unsigned long long right = 0, wrong = 0;
	size_t i;

	if (!l) {
		*slot = l = xcalloc(1, sizeof(*l));
	} else {
		free(key);
	}
	for (i = 0; i < l->count && !p; i++)
		if (l->places[i].column == h->column)
			p = &l->places[i];
	if (!p) {
		p = ARRAY_PUSH(l->places, l->count, l->capacity);
		memset(p, 0, sizeof(*p));
		p->column = h->column;
		p->expect = h->expect;
		p->function = g->name;
	}
	reason = hint_counts(object, g, h, &right, &wrong);
	if (!reason && h->expect != p->expect)
		reason = xasprintf("its copies expect different values (%ld, %ld)", p->expect, h->expect);
	if (reason) {
		if (!p->reason)
			p->reason = reason;
		else
			free(reason);
		return;
	}
	if (__builtin_add_overflow(p->right, right, &p->right) ||
	    __builtin_add_overflow(p->wrong, wrong, &p->wrong))
		p->overflow = true;
}

static int by_column(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	return x->column < y->column ? -1 : x->column > y->column;
}

static void free_lines(struct strmap *lines)
{
	size_t i, j;

	for (i = 0; i < lines->capacity; i++) {
		struct line_places *l = lines->slots[i].value;

		if (!lines->slots[i].key)
			continue;
		for (j = 0; j < l->count; j++)
			free(l->places[j].reason);
		free(l->places);
		free(l);
		free((char *)lines->slots[i].key);
	}
	strmap_free(lines);
}

/* Adds to table the scanned sites sites[0..n), all on one line, from the
   compiler's places on that line (l, or NULL for none).  Returns 0, or -1
   after saying why the counts cannot be taken. */
static int credit_line(struct site_table *table, const struct scan_site **sites, size_t n,
		       const struct line_places *l, const char *source_normal)
{
	size_t i, places = l ? l->count : 0;
	char *normal = path_normalize(sites[0]->file);
	bool elsewhere = strcmp(normal, source_normal) != 0;

	free(normal);
	if (places == 0 && elsewhere)
		/* a header's function this file does not use: nothing to count here */
		return 0;
	for (i = 0; i < n; i++) {
		const struct scan_site *f = sites[i];
		const struct place *p = places == n ? &l->places[i] : NULL;
		const char *function = f->function;
		long expect = 0;
		bool parsed = parse_expect(f->expect_text, &expect);
		char *reason = NULL;
		struct site *site;

		if (p && !p->reason && parsed && p->expect != expect)
			reason = xasprintf("the compiler expects %ld, the source '%s'", p->expect,
					   f->expect_text);
		if (p) {
			/* the compiler's value: an enum or a macro folded */
			expect = p->expect;
			if (strcmp(function, "?") == 0)
				function = p->function;
		}
		if (!reason && places == 0)
			reason = xstrdup("no code at this line in gcc's view (the value was folded at "
					 "compile time, or its function was not emitted)");
		else if (!reason && !p)
			reason = xasprintf("%zu hint sites on this line, %zu places for them in gcc's "
					   "view: which is which cannot be told (hints of one macro "
					   "invocation, or one folded at compile time)", n, places);
		else if (!reason && p->reason)
			reason = xstrdup(p->reason);
		if (p && p->overflow) {
			error("%s:%u: counts overflow 64 bits when summed (no run counts that often: "
			      "the data is corrupt)", f->file, f->line);
			free(reason);
			return -1;
		}
		site = site_table_get(table, f->file, f->line, function, f->expression, expect);
		if (reason) {
			if (!site->reason)
				site->reason = reason;
			else
				free(reason);
			site->counted = true;
			continue;
		}
		if (site_add_counts(table, site, p->right, p->wrong, 0) < 0) {
			error("%s:%u: counts overflow 64 bits when summed (no run counts that often: "
			      "the data is corrupt)", f->file, f->line);
			return -1;
		}
	}
	return 0;
}

/* The counts of source's functions: gcc's graph from a compile of ours
   (dir), the counters from the coverage build's .gcda.  Returns 0, or -1
   after saying why. */
static int read_graph(const char *source, const struct profile_options *o, const char *dir,
		      struct gimple_function **functions, size_t *count, struct arcs_object *object)
{
	char *dump = xasprintf("%s/unit.dump", dir), *notes = xasprintf("%s/unit.gcno", dir);
	char *gimplified = xasprintf("%s/unit.gimple", dir);
	char *data = gcda_path(source, o), *why = NULL;
	struct strmap split = { 0 };
	struct stat st;
	int status = -1;

	if (stat(dump, &st) == 0 && st.st_size == 0) {
		/* no function at all */
		status = 0;
	} else if (gimple_split_places(gimplified, &split, &why) < 0) {
		error("%s: gcc's dump of %s: %s", gimplified, source, why);
	} else if (gimple_read(dump, &split, functions, count, &why) < 0) {
		error("%s: gcc's dump of %s: %s", dump, source, why);
	} else if (arcs_read_notes(object, notes, &why) < 0) {
		error("%s: gcc's notes of %s: %s", notes, source, why);
	} else if (arcs_read_counts(object, data, &why) < 0) {
		error("%s: %s; its counts cannot be used for %s", data, why, source);
	} else {
		status = 0;
	}
	free(why);
	free(dump);
	free(notes);
	free(gimplified);
	free(data);
	gimple_free_split(&split);
	return status;
}

/* Adds the sites of scan, counted from the graph and counts read, to table. */
static int credit_sites(struct site_table *table, const struct scan *scan,
			struct gimple_function *functions, size_t count, struct arcs_object *object,
			const char *source)
{
	struct strmap lines = { 0 }, done = { 0 };
	const struct scan_site **group = xcalloc(scan->count + 1, sizeof(*group));
	char *source_normal = path_normalize(source);
	size_t i, j, k;
	int status = 0;

	for (i = 0; i < count; i++)
		for (j = 0; j < functions[i].hint_count; j++)
			add_place(&lines, object, &functions[i], &functions[i].hints[j]);
	for (i = 0; i < lines.capacity; i++)
		if (lines.slots[i].key) {
			struct line_places *l = lines.slots[i].value;

			qsort(l->places, l->count, sizeof(*l->places), by_column);
		}
	for (i = 0; i < scan->count && status == 0; i++) {
		char *key = line_key(scan->sites[i].file, scan->sites[i].line);
		void **slot = strmap_slot(&done, key);
		size_t n = 0;

		if (*slot) {
			free(key);
			continue;
		}
		*slot = key;
		for (k = i; k < scan->count; k++) {
			char *other = line_key(scan->sites[k].file, scan->sites[k].line);

			if (strcmp(other, key) == 0)
				group[n++] = &scan->sites[k];
			free(other);
		}
		status = credit_line(table, group, n, strmap_get(&lines, key), source_normal);
	}
	for (i = 0; i < done.capacity; i++)
		free((char *)done.slots[i].key);
	strmap_free(&done);
	free_lines(&lines);
	free(group);
	free(source_normal);
	return status;
}

int profile_source(struct site_table *table, const char *source, const struct profile_options *o)
{
	struct gimple_function *functions = NULL;
	struct arcs_object object = { 0 };
	struct scan scan;
	char *text = preprocess(source, o), *dir, *data;
	size_t count = 0;
	int status = -1;

	if (!text)
		return -1;
	scan_text(&scan, text);
	free(text);
	note_site_macros(table, &scan);
	if (o->macros_only || scan.count == 0) {
		scan_free(&scan);
		return 0;
	}
	data = gcda_path(source, o);
	if (access(data, F_OK) != 0) {
		error("%s: no counts for %s (%s): the coverage build did not run it, or wrote its "
		      "counts elsewhere (GCOV_PREFIX, another --objdir)", data, source, strerror(errno));
		free(data);
		scan_free(&scan);
		return -1;
	}
	free(data);
	if (!gcda_whole(source, o) || !(dir = make_work_folder())) {
		scan_free(&scan);
		return -1;
	}
	if (compile_for_graph(source, o, dir) == 0 &&
	    read_graph(source, o, dir, &functions, &count, &object) == 0)
		status = credit_sites(table, &scan, functions, count, &object, source);
	remove_work_folder(dir);
	gimple_free(functions, count);
	arcs_free(&object);
	scan_free(&scan);
	return status;
}
