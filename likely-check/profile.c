#define _GNU_SOURCE
#include "profile.h"
#include "gcda.h"
#include "json.h"
#include "proc.h"
#include "scan.h"

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

static char *real_or_copy(const char *path)
{
	char *r = realpath(path, NULL);

	return r ? r : xstrdup(path);
}

/* gcov's data for one line of one file. */
struct line_data {
	bool present;
	double count;
	size_t arcs;
	double taken[2]; /* even arcs (true edges), odd arcs (false edges) */
	const char *function;
	unsigned int entries;
	bool impossible;       /* a count is negative, not a number or past 2^64 */
	double impossible_count;
};

/* 2^64: no count reaches it. */
#define COUNT_LIMIT 18446744073709551616.0

/* Notes in d a count of gcov's that no run can give; returns the count. */
static double checked_count(struct line_data *d, double count)
{
	if (!(count >= 0 && count < COUNT_LIMIT) && !d->impossible) {
		d->impossible = true;
		d->impossible_count = count;
	}
	return count;
}

/* Sums gcov's data for line: one true/false pair per copy of its code. */
static void gather_line(const struct json *file, unsigned int line, struct line_data *d)
{
	const struct json *lines = json_get(file, "lines");
	size_t i, j;

	memset(d, 0, sizeof(*d));
	if (!lines || lines->type != JSON_ARRAY)
		return;
	for (i = 0; i < lines->count; i++) {
		const struct json *l = lines->items[i], *branches;

		if ((unsigned int)json_get_number(l, "line_number", 0) != line)
			continue;
		d->present = true;
		d->entries++;
		d->count += checked_count(d, json_get_number(l, "count", 0));
		if (!d->function)
			d->function = json_get_string(l, "function_name", NULL);
		branches = json_get(l, "branches");
		if (!branches || branches->type != JSON_ARRAY)
			continue;
		for (j = 0; j < branches->count; j++) {
			if (json_get_number(branches->items[j], "throw", 0))
				continue;
			d->taken[d->arcs % 2] +=
				checked_count(d, json_get_number(branches->items[j], "count", 0));
			d->arcs++;
		}
	}
}

/* The function whose lines hold line, from gcov's function table. */
static const char *function_at(const struct json *file, unsigned int line)
{
	const struct json *functions = json_get(file, "functions");
	const char *best = NULL;
	unsigned int best_span = UINT_MAX;
	size_t i;

	if (!functions || functions->type != JSON_ARRAY)
		return NULL;
	for (i = 0; i < functions->count; i++) {
		const struct json *f = functions->items[i];
		unsigned int start = (unsigned int)json_get_number(f, "start_line", 0);
		unsigned int end = (unsigned int)json_get_number(f, "end_line", 0);

		if (start <= line && line <= end && end - start < best_span) {
			best_span = end - start;
			best = json_get_string(f, "demangled_name", json_get_string(f, "name", NULL));
		}
	}
	return best;
}

static const struct json *gcov_file(const struct json *gcov, const char *path)
{
	const struct json *files = json_get(gcov, "files");
	char *want = real_or_copy(path);
	const struct json *hit = NULL;
	size_t i;

	for (i = 0; files && files->type == JSON_ARRAY && i < files->count && !hit; i++) {
		const char *name = json_get_string(files->items[i], "file", "");
		char *real = real_or_copy(name);

		if (strcmp(real, want) == 0 || strcmp(name, path) == 0)
			hit = files->items[i];
		free(real);
	}
	free(want);
	return hit;
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

/* gcov's JSON for source: one object per --stdout document; NULL after
   saying why. */
static struct json *run_gcov(const char *source, const struct profile_options *o)
{
	char *argv[8], *out;
	const char *why;
	struct json *json;
	int n = 0;

	argv[n++] = "gcov";
	argv[n++] = "--json-format";
	argv[n++] = "--stdout";
	argv[n++] = "--branch-probabilities";
	if (o->objdir) {
		argv[n++] = "-o";
		argv[n++] = (char *)o->objdir;
	}
	argv[n++] = (char *)source;
	argv[n] = NULL;
	out = run_capture(argv);
	if (!out) {
		error("%s: no gcov data (was it built with --coverage and run?)", source);
		return NULL;
	}
	json = json_parse(out, &why);
	if (!json)
		error("%s: cannot parse gcov's JSON output: %s", source, why);
	free(out);
	return json;
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

/* How many of the scanned sites are on f's line, f included. */
static unsigned int sites_on_line(const struct scan *scan, const struct scan_site *f)
{
	unsigned int on_line = 0;
	size_t j;

	for (j = 0; j < scan->count; j++)
		if (scan->sites[j].line == f->line && strcmp(scan->sites[j].file, f->file) == 0)
			on_line++;
	return on_line;
}

/* Why gcov's data d for f's line (file: gcov's entry for f's file, or
   NULL) gives no counts for f; NULL when it does. */
static char *unmatched_reason(const struct scan_site *f, bool expect_parsed,
			      const struct json *file, const struct line_data *d,
			      unsigned int on_line)
{
	if (!expect_parsed)
		return xasprintf("the expected value '%s' is not an integer literal",
				 f->expect_text);
	if (!file)
		return xstrdup("gcov has no data for this file");
	if (!d->present)
		return xstrdup("no code at this line in gcov's data (the condition was "
			       "folded at compile time, or its function was not emitted)");
	if (on_line > 1)
		return xasprintf("%u hint sites on one line share its branch counts", on_line);
	if (f->inner > 0 && d->arcs > 0)
		return xasprintf("the hinted expression branches itself (%u &&, || or ?:)",
				 f->inner);
	if (f->conditions > 1)
		/* tried: pairing arcs by evaluation order; gcc orders the arcs
		   of && and || operands its own way and folds constant ones
		   away in inlined copies, and the counts came out wrong */
		return xasprintf("%u conditions on this line (if, while, for, &&, ||, ?:) "
				 "share its %zu branch arcs", f->conditions, d->arcs);
	if (d->arcs == 0 && d->count > 0)
		return xstrdup("no branch on this line (the condition was folded, or the "
			       "value is not branched on)");
	if (d->arcs % 2 != 0)
		return xasprintf("%zu branch arcs on this line, not true/false pairs", d->arcs);
	return NULL;
}

/* Adds gcov's counts of line data d, or the reason it has none, to site;
   false when the counts overflow. */
static bool credit_site(struct site_table *table, struct site *site, const struct line_data *d,
			long expect, char *reason)
{
	if (reason) {
		if (!site->reason)
			site->reason = reason;
		else
			free(reason);
	} else if (d->arcs >= 2) {
		/* gcov lists a condition's true edge first; an inlined or
		   cloned function repeats the pair once per copy */
		unsigned long long taken_true, taken_false;

		if (d->taken[0] >= COUNT_LIMIT || d->taken[1] >= COUNT_LIMIT)
			return false;
		taken_true = (unsigned long long)d->taken[0];
		taken_false = (unsigned long long)d->taken[1];
		if (site_add_counts(table, site, expect ? taken_true : taken_false,
				    expect ? taken_false : taken_true, 0) < 0)
			return false;
	}
	site->counted = true;
	return true;
}

/* Adds site f of source to table with gcov's counts, or with the reason
   it has none; skips a header's site that gcov has no code for.  Returns
   0, or -1 after saying why gcov's counts cannot be taken. */
static int profile_site(struct site_table *table, const struct scan *scan,
			const struct scan_site *f, const struct json *gcov,
			const char *source_normal)
{
	const struct json *file = gcov_file(gcov, f->file);
	const char *function = NULL;
	struct line_data d;
	char *normal, *reason;
	bool elsewhere, expect_parsed;
	long expect = 0;

	if (file) {
		gather_line(file, f->line, &d);
		function = d.function ? d.function : function_at(file, f->line);
	} else {
		memset(&d, 0, sizeof(d));
	}
	if (strcmp(f->function, "?") != 0)
		function = f->function;
	normal = path_normalize(f->file);
	elsewhere = strcmp(normal, source_normal) != 0;
	free(normal);
	if ((!file || !d.present) && elsewhere)
		/* a header's function this file does not use: nothing to count here */
		return 0;
	if (d.impossible) {
		error("%s:%u: gcov gives this line the count %g, which no run gives", f->file,
		      f->line, d.impossible_count);
		return -1;
	}
	/* a value that does not parse still keys the site, by what strtol read */
	expect_parsed = parse_expect(f->expect_text, &expect);
	reason = unmatched_reason(f, expect_parsed, file, &d, sites_on_line(scan, f));
	if (!credit_site(table,
			 site_table_get(table, f->file, f->line, function ? function : "?",
					f->expression, expect),
			 &d, expect, reason)) {
		error("%s:%u: counts overflow 64 bits when summed (no run counts that often: "
		      "the data is corrupt)", f->file, f->line);
		return -1;
	}
	return 0;
}

int profile_source(struct site_table *table, const char *source, const struct profile_options *o)
{
	struct scan scan;
	struct json *gcov;
	char *text = preprocess(source, o), *source_normal;
	size_t i;
	int status = 0;

	if (!text)
		return -1;
	scan_text(&scan, text);
	free(text);
	note_site_macros(table, &scan);
	if (o->macros_only || scan.count == 0) {
		scan_free(&scan);
		return 0;
	}
	gcov = gcda_whole(source, o) ? run_gcov(source, o) : NULL;
	if (!gcov) {
		scan_free(&scan);
		return -1;
	}
	source_normal = path_normalize(source);
	for (i = 0; i < scan.count && status == 0; i++)
		status = profile_site(table, &scan, &scan.sites[i], gcov, source_normal);
	free(source_normal);
	json_free(gcov);
	scan_free(&scan);
	return status;
}
