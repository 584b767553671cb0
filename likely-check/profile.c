#define _GNU_SOURCE
#include "profile.h"
#include "json.h"
#include "proc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One __builtin_expect call found in the preprocessed text. */
struct found {
	char *file;
	unsigned int line;
	char *expression;
	char *expect_text;
	char *function;          /* the function whose body holds it */
	unsigned int conditions; /* branching constructs on its preprocessed line */
	unsigned int inner;      /* branching constructs inside its expression */
};

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

/* Skips a string or character literal starting at p; returns the end. */
static const char *skip_literal(const char *p)
{
	char quote = *p++;

	while (*p && *p != quote) {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	return *p ? p + 1 : p;
}

/* Reads one argument from p up to a top-level ',' or ')'; returns the
   position of that delimiter, or NULL. */
static const char *scan_argument(const char *p, unsigned int *newlines)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p) - 1;
			continue;
		}
		if (*p == '\n')
			(*newlines)++;
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}') {
			if (depth == 0)
				return *p == ')' ? p : NULL;
			depth--;
		} else if (*p == ',' && depth == 0)
			return p;
	}
	return NULL;
}

static char *trimmed(const char *start, const char *end)
{
	char *s, *d, *p;

	while (start < end && isspace((unsigned char)*start))
		start++;
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	s = xstrndup(start, (size_t)(end - start));
	for (p = d = s; *p; p++) {
		if (isspace((unsigned char)*p)) {
			if (d > s && d[-1] != ' ')
				*d++ = ' ';
			continue;
		}
		*d++ = *p;
	}
	*d = '\0';
	return s;
}

static bool identifier_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Counts the constructs that branch on the preprocessed line starting at
   p: if, while, for, &&, || and ?:; switch counts as two (its arcs are not
   a true/false pair); a do-while (0) does not count. */
static unsigned int count_conditions(const char *p, const char *end)
{
	unsigned int n = 0;

	for (; *p && *p != '\n' && (!end || p < end); p++) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p) - 1;
			continue;
		}
		if ((p[0] == '&' && p[1] == '&') || (p[0] == '|' && p[1] == '|')) {
			n++;
			p++;
			continue;
		}
		if (*p == '?') {
			n++;
			continue;
		}
		if (identifier_char(*p)) {
			const char *start = p;
			size_t len;

			while (identifier_char(p[1]))
				p++;
			len = (size_t)(p - start + 1);
			if (len == 5 && strncmp(start, "while", 5) == 0) {
				/* the do { } while (0) of a statement macro never branches */
				const char *q = p + 1;

				while (*q == ' ' || *q == '(')
					q++;
				if (*q == '0' && !identifier_char(q[1]))
					continue;
				n++;
			} else if ((len == 2 && strncmp(start, "if", 2) == 0) ||
			    (len == 3 && strncmp(start, "for", 3) == 0))
				n++;
			else if (len == 6 && strncmp(start, "switch", 6) == 0)
				n += 2;
		}
	}
	return n;
}

/* A macro definition seen in the -dD output. */
struct macro {
	char *name, *body, *where;
	int reaches; /* 0 unknown, 1 yes, 2 no, 3 being computed */
	bool wrapper; /* a hint macro: its body starts with a hint */
};

/* Records "#define NAME[(params)] body" from line p. */
static void add_macro(struct strmap *macros, const char *p, const char *file, unsigned int line)
{
	const char *end = strchr(p, '\n'), *name;
	struct macro *m;
	void **slot;

	if (!end)
		end = p + strlen(p);
	p += strlen("#define ");
	name = p;
	while (p < end && identifier_char(*p))
		p++;
	if (p == name)
		return;
	m = xcalloc(1, sizeof(*m));
	m->name = xstrndup(name, (size_t)(p - name));
	if (*p == '(')
		while (p < end && *p != ')')
			p++;
	if (p < end)
		p++;
	m->body = xstrndup(p, (size_t)(end - p));
	m->where = xasprintf("%s:%u", file, line);
	slot = strmap_slot(macros, m->name);
	*slot = m; /* the last definition wins, as in most code */
}

/* Finds every __builtin_expect call in preprocessed text (-dD), with the
   line of the source it came from (a macro's expansion point); collects the
   macro definitions in macros. */
static size_t find_sites(const char *text, struct found **sites, struct strmap *macros)
{
	static const char name[] = "__builtin_expect";
	const char *p = text, *line_start = text;
	char *file = xstrdup("?"), *function = xstrdup("?"), *last_call = xstrdup("?");
	unsigned int line = 1, braces = 0, parens = 0;
	size_t count = 0, capacity = 0;

	*sites = NULL;
	while (*p) {
		if (p == line_start && *p == '#') {
			unsigned int number;
			int used = 0;
			const char *q;

			if (sscanf(p, "# %u \"%n", &number, &used) == 1 && used > 0) {
				q = p + used;
				while (*q && *q != '"' && *q != '\n')
					q += *q == '\\' && q[1] ? 2 : 1;
				free(file);
				file = xstrndup(p + used, (size_t)(q - p - used));
				line = number;
			} else {
				/* #define (-dD) and #pragma lines stand for a source line */
				if (strncmp(p, "#define ", 8) == 0)
					add_macro(macros, p, file, line);
				line++;
			}
			p = strchr(p, '\n');
			if (!p)
				break;
			line_start = ++p;
			continue;
		}
		if (*p == '\n') {
			line++;
			line_start = ++p;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p);
			continue;
		}
		if (strncmp(p, name, sizeof(name) - 1) == 0 && (p == text || !identifier_char(p[-1])) &&
		    !identifier_char(p[sizeof(name) - 1])) {
			const char *q = p + sizeof(name) - 1, *comma, *close;
			unsigned int extra = 0;
			struct found *f;

			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '(' && (comma = scan_argument(q + 1, &extra)) && *comma == ',' &&
			    (close = scan_argument(comma + 1, &extra)) && *close == ')') {
				f = ARRAY_PUSH(*sites, count, capacity);
				f->file = xstrdup(file);
				f->line = line;
				f->expression = trimmed(q + 1, comma);
				f->expect_text = trimmed(comma + 1, close);
				f->conditions = count_conditions(line_start, NULL);
				f->inner = count_conditions(q + 1, comma);
				f->function = xstrdup(function);
			}
			p += sizeof(name) - 1;
			continue;
		}
		/* a function's name: the last "name (" at file scope before its "{" */
		if (*p == '{') {
			if (braces == 0 && parens == 0) {
				free(function);
				function = xstrdup(last_call);
			}
			braces++;
		} else if (*p == '}') {
			braces -= braces > 0;
		} else if (braces == 0 && *p == '(') {
			parens++;
		} else if (braces == 0 && *p == ')') {
			parens -= parens > 0;
		} else if (braces == 0 && parens == 0 && identifier_char(*p) &&
			   !isdigit((unsigned char)*p) && (p == text || !identifier_char(p[-1]))) {
			const char *start = p, *q;

			while (identifier_char(*p))
				p++;
			for (q = p; *q == ' ' || *q == '\t' || *q == '\n'; q++)
				;
			if (*q == '(' && strncmp(start, "__attribute", 11) != 0 &&
			    strncmp(start, "__asm", 5) != 0 && strncmp(start, "asm", 3) != 0 &&
			    strncmp(start, "__declspec", 10) != 0) {
				free(last_call);
				last_call = xstrndup(start, (size_t)(p - start));
			}
			continue;
		}
		p++;
	}
	free(file);
	free(function);
	free(last_call);
	return count;
}

/* Calls fn on each identifier of text; stops when fn returns true. */
static bool each_identifier(const char *text, bool (*fn)(const char *, size_t, void *), void *data)
{
	const char *p = text;

	while (*p) {
		if (*p == '"' || *p == '\'') {
			p = skip_literal(p);
			continue;
		}
		if (identifier_char(*p) && !isdigit((unsigned char)*p)) {
			const char *start = p;

			while (identifier_char(*p))
				p++;
			if (fn(start, (size_t)(p - start), data))
				return true;
			continue;
		}
		p++;
	}
	return false;
}

struct reach_walk {
	struct strmap *macros;
	int depth;
};

static bool macro_reaches(struct strmap *macros, struct macro *m, int depth);

static bool identifier_reaches(const char *name, size_t len, void *data)
{
	struct reach_walk *walk = data;
	char *copy;
	struct macro *m;

	if (len == 16 && strncmp(name, "__builtin_expect", 16) == 0)
		return true;
	copy = xstrndup(name, len);
	m = strmap_get(walk->macros, copy);
	free(copy);
	return m && macro_reaches(walk->macros, m, walk->depth + 1);
}

/* Whether m's expansion holds a __builtin_expect call, through any macro. */
static bool macro_reaches(struct strmap *macros, struct macro *m, int depth)
{
	struct reach_walk walk = { macros, depth };
	bool yes;

	if (m->reaches == 1 || m->reaches == 2)
		return m->reaches == 1;
	if (m->reaches == 3 || depth > 64)
		return false;
	m->reaches = 3;
	yes = each_identifier(m->body, identifier_reaches, &walk);
	m->reaches = yes ? 1 : 2;
	return yes;
}

/* A hint macro (likely, LIKELY, expect...): its body begins with a call of
   __builtin_expect or of another hint macro. */
static bool macro_is_hint(struct strmap *macros, const struct macro *m, int depth)
{
	const char *p = m->body, *start;
	struct macro *inner;
	char *name;

	while (*p == ' ' || *p == '(')
		p++;
	start = p;
	while (identifier_char(*p))
		p++;
	if (p == start || depth > 64)
		return false;
	name = xstrndup(start, (size_t)(p - start));
	inner = strmap_get(macros, name);
	if (strcmp(name, "__builtin_expect") == 0) {
		free(name);
		return true;
	}
	free(name);
	return inner && macro_is_hint(macros, inner, depth + 1);
}

struct line_walk {
	struct strmap *macros;
	struct macro *found;
};

static bool first_reaching(const char *name, size_t len, void *data)
{
	struct line_walk *walk = data;
	char *copy = xstrndup(name, len);
	struct macro *m = strmap_get(walk->macros, copy);

	free(copy);
	if (!m || !macro_reaches(walk->macros, m, 0))
		return false;
	walk->found = m;
	return true;
}

/* Line number line of file, from a cache of whole files; NULL if unreadable. */
static const char *source_line(struct strmap *cache, const char *file, unsigned int line)
{
	char **lines = strmap_get(cache, file);
	unsigned int i;

	if (!lines) {
		FILE *f = fopen(file, "r");
		char *text = NULL;
		size_t cap = 0, n = 0, count = 0;

		lines = NULL;
		if (f) {
			while (getline(&text, &cap, f) >= 0)
				*ARRAY_PUSH(lines, count, n) = xstrdup(text);
			free(text);
			fclose(f);
		}
		*ARRAY_PUSH(lines, count, n) = NULL;
		*strmap_slot(cache, xstrdup(file)) = lines;
	}
	for (i = 1; lines[i - 1] && i < line; i++)
		;
	return lines[i - 1] && i == line ? lines[i - 1] : NULL;
}

/* The project macro a site at file:line was expanded from, as "NAME
   (file:line of its definition)", or NULL for a plain hint. */
static char *site_macro(struct strmap *macros, struct strmap *cache, const char *file,
			unsigned int line)
{
	struct line_walk walk = { macros, NULL };
	const char *text = source_line(cache, file, line);

	if (!text || !each_identifier(text, first_reaching, &walk))
		return NULL;
	if (macro_is_hint(macros, walk.found, 0))
		return NULL;
	return xasprintf("%s (%s)", walk.found->name, walk.found->where);
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
};

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
		d->count += json_get_number(l, "count", 0);
		if (!d->function)
			d->function = json_get_string(l, "function_name", NULL);
		branches = json_get(l, "branches");
		if (!branches || branches->type != JSON_ARRAY)
			continue;
		for (j = 0; j < branches->count; j++) {
			if (json_get_number(branches->items[j], "throw", 0))
				continue;
			d->taken[d->arcs % 2] += json_get_number(branches->items[j], "count", 0);
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

int profile_source(struct site_table *table, const char *source, const struct profile_options *o)
{
	char **argv = NULL, *text;
	size_t argc = 0, cap = 0, count, i, j;
	struct found *found;
	struct json *gcov;
	struct strmap macros = { 0 }, lines_cache = { 0 };
	char *source_normal = path_normalize(source);

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
	if (!text) {
		error("%s: the preprocessor failed", source);
		return -1;
	}
	count = find_sites(text, &found, &macros);
	free(text);
	for (i = 0; i < count; i++) {
		char *macro = site_macro(&macros, &lines_cache, found[i].file, found[i].line);

		if (macro) {
			site_table_note_macro(table, found[i].file, found[i].line, macro);
			free(macro);
		}
	}
	if (o->macros_only)
		count = 0;
	gcov = count ? run_gcov(source, o) : NULL;
	if (count && !gcov)
		return -1;
	for (i = 0; i < count; i++) {
		struct found *f = &found[i];
		const struct json *file = gcov_file(gcov, f->file);
		const char *function = NULL;
		struct line_data d;
		struct site *site;
		unsigned int on_line = 0;
		char *reason = NULL;
		long expect = 0;

		for (j = 0; j < count; j++)
			if (found[j].line == f->line && strcmp(found[j].file, f->file) == 0)
				on_line++;
		if (file) {
			gather_line(file, f->line, &d);
			function = d.function ? d.function : function_at(file, f->line);
		}
		if (strcmp(f->function, "?") != 0)
			function = f->function;
		if (!file)
			memset(&d, 0, sizeof(d));
		char *normal = path_normalize(f->file);
		bool elsewhere = strcmp(normal, source_normal) != 0;

		free(normal);
		if ((!file || !d.present) && elsewhere) {
			/* a header's function this file does not use: nothing to count here */
			free(f->file);
			free(f->expression);
			free(f->expect_text);
			free(f->function);
			continue;
		}
		if (!parse_expect(f->expect_text, &expect))
			reason = xasprintf("the expected value '%s' is not an integer literal",
					   f->expect_text);
		else if (!file)
			reason = xstrdup("gcov has no data for this file");
		else if (!d.present)
			reason = xstrdup("no code at this line in gcov's data (the condition was "
					 "folded at compile time, or its function was not emitted)");
		else if (on_line > 1)
			reason = xasprintf("%u hint sites on one line share its branch counts", on_line);
		else if (f->inner > 0 && d.arcs > 0)
			reason = xasprintf("the hinted expression branches itself (%u &&, || or ?:)",
					   f->inner);
		else if (f->conditions > 1)
			/* tried: pairing arcs by evaluation order; gcc orders the arcs
			   of && and || operands its own way and folds constant ones
			   away in inlined copies, and the counts came out wrong */
			reason = xasprintf("%u conditions on this line (if, while, for, &&, ||, ?:) "
					   "share its %zu branch arcs", f->conditions, d.arcs);
		else if (d.arcs == 0 && d.count > 0)
			reason = xstrdup("no branch on this line (the condition was folded, or the "
					 "value is not branched on)");
		else if (d.arcs % 2 != 0)
			reason = xasprintf("%zu branch arcs on this line, not true/false pairs", d.arcs);
		site = site_table_get(table, f->file, f->line, function ? function : "?",
				      f->expression, expect);
		if (reason) {
			if (!site->reason)
				site->reason = reason;
			else
				free(reason);
		} else if (d.arcs >= 2) {
			/* gcov lists a condition's true edge first; an inlined or
			   cloned function repeats the pair once per copy */
			unsigned long long taken_true = (unsigned long long)d.taken[0];
			unsigned long long taken_false = (unsigned long long)d.taken[1];

			site->correct += expect ? taken_true : taken_false;
			site->incorrect += expect ? taken_false : taken_true;
		}
		site->counted = true;
		free(f->function);
		free(f->file);
		free(f->expression);
		free(f->expect_text);
	}
	free(found);
	free(source_normal);
	json_free(gcov);
	return 0;
}
