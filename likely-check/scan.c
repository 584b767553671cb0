#define _GNU_SOURCE
#include "scan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The text from start to end with its blanks run together and its line
   markers (# 353 "file" 3 4: cpp writes them inside an expression that
   takes a macro from a system header, such as NULL) left out, with the line
   breaks and indentation they bring: the expression as written. */
static char *trimmed(const char *start, const char *end)
{
	char *s = xmalloc((size_t)(end - start) + 1), *d = s;
	const char *p = start;
	bool after_marker = false;

	while (p < end) {
		if (*p == '\n') {
			const char *q = p + 1;

			while (q < end && (*q == ' ' || *q == '\t'))
				q++;
			if (q < end && *q == '#') {
				/* the marker line, up to its own line break */
				for (p = q; p < end && *p != '\n'; p++)
					;
				after_marker = true;
				continue;
			}
			if (after_marker) {
				p = q;
				after_marker = false;
				continue;
			}
		}
		if (isspace((unsigned char)*p)) {
			if (d > s && d[-1] != ' ')
				*d++ = ' ';
		} else {
			*d++ = *p;
		}
		p++;
	}
	while (d > s && d[-1] == ' ')
		d--;
	*d = '\0';
	{
		char *t = s;

		while (*t == ' ')
			t++;
		memmove(s, t, strlen(t) + 1);
	}
	return s;
}

static bool identifier_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A macro definition seen in the -dD output. */
struct macro {
	char *name, *body, *where;
	int reaches; /* 0 unknown, 1 yes, 2 no, 3 being computed */
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
	slot = strmap_slot(macros, m->name);
	if (*slot) {
		/* the last definition wins, as in most code; the first one's
		   name stays the key */
		free(m->name);
		free(m);
		m = *slot;
		free(m->body);
		free(m->where);
	}
	*slot = m;
	if (*p == '(')
		while (p < end && *p != ')')
			p++;
	if (p < end)
		p++;
	m->body = xstrndup(p, (size_t)(end - p));
	m->where = xasprintf("%s:%u", file, line);
}

static const char hint_name[] = "__builtin_expect";

/* Where the walk of the preprocessed text stands. */
struct scanner {
	struct scan *scan;
	const char *text;       /* the whole preprocessed text */
	const char *line_start; /* the current line */
	char *file;             /* the source file and line the current line comes from */
	unsigned int line;
	char *function;         /* the function whose body the walk is in, or "?" */
	char *last_call;        /* the last "name (" seen at file scope */
	unsigned int braces, parens;
};

/* Follows a line marker (# 12 "file.c") or a line that stands for a source
   line; returns the start of the next line, or NULL at the end of text. */
static const char *read_directive(struct scanner *s, const char *p)
{
	unsigned int number;
	int used = 0;
	const char *q;

	if (sscanf(p, "# %u \"%n", &number, &used) == 1 && used > 0) {
		q = p + used;
		while (*q && *q != '"' && *q != '\n')
			q += *q == '\\' && q[1] ? 2 : 1;
		free(s->file);
		s->file = xstrndup(p + used, (size_t)(q - p - used));
		s->line = number;
	} else {
		/* #define (-dD) and #pragma lines stand for a source line */
		if (strncmp(p, "#define ", 8) == 0)
			add_macro(&s->scan->macros, p, s->file, s->line);
		s->line++;
	}
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

static bool at_hint(const char *text, const char *p)
{
	return strncmp(p, hint_name, sizeof(hint_name) - 1) == 0 &&
	       (p == text || !identifier_char(p[-1])) &&
	       !identifier_char(p[sizeof(hint_name) - 1]);
}

/* Records the __builtin_expect call at p when both its arguments parse. */
static void record_hint(struct scanner *s, const char *p)
{
	const char *q = p + sizeof(hint_name) - 1, *comma, *close;
	unsigned int extra = 0;
	struct scan_site *f;

	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '(' || !(comma = scan_argument(q + 1, &extra)) || *comma != ',' ||
	    !(close = scan_argument(comma + 1, &extra)) || *close != ')')
		return;
	f = ARRAY_PUSH(s->scan->sites, s->scan->count, s->scan->capacity);
	f->file = xstrdup(s->file);
	f->line = s->line;
	f->expression = trimmed(q + 1, comma);
	f->expect_text = trimmed(comma + 1, close);
	f->function = xstrdup(s->function);
}

/* Reads the identifier at p and remembers it as the last call when "("
   follows and it is no attribute or asm; returns the end of the identifier. */
static const char *note_call_name(struct scanner *s, const char *p)
{
	const char *start = p, *q;

	while (identifier_char(*p))
		p++;
	for (q = p; *q == ' ' || *q == '\t' || *q == '\n'; q++)
		;
	if (*q == '(' && strncmp(start, "__attribute", 11) != 0 &&
	    strncmp(start, "__asm", 5) != 0 && strncmp(start, "asm", 3) != 0 &&
	    strncmp(start, "__declspec", 10) != 0) {
		free(s->last_call);
		s->last_call = xstrndup(start, (size_t)(p - start));
	}
	return p;
}

/* Follows the function the walk is in: its name is the last "name (" at
   file scope before its "{".  Returns where the walk goes on. */
static const char *follow_function(struct scanner *s, const char *p)
{
	if (*p == '{') {
		if (s->braces == 0 && s->parens == 0) {
			free(s->function);
			s->function = xstrdup(s->last_call);
		}
		s->braces++;
	} else if (*p == '}') {
		s->braces -= s->braces > 0;
	} else if (s->braces == 0 && *p == '(') {
		s->parens++;
	} else if (s->braces == 0 && *p == ')') {
		s->parens -= s->parens > 0;
	} else if (s->braces == 0 && s->parens == 0 && identifier_char(*p) &&
		   !isdigit((unsigned char)*p) && (p == s->text || !identifier_char(p[-1]))) {
		return note_call_name(s, p);
	}
	return p + 1;
}

void scan_text(struct scan *scan, const char *text)
{
	struct scanner s = {
		.scan = scan, .text = text, .line_start = text, .file = xstrdup("?"), .line = 1,
		.function = xstrdup("?"), .last_call = xstrdup("?"),
	};
	const char *p = text;

	memset(scan, 0, sizeof(*scan));
	while (*p) {
		if (p == s.line_start && *p == '#') {
			p = read_directive(&s, p);
			if (!p)
				break;
			s.line_start = p;
		} else if (*p == '\n') {
			s.line++;
			s.line_start = ++p;
		} else if (*p == '"' || *p == '\'') {
			p = skip_literal(p);
		} else if (at_hint(text, p)) {
			record_hint(&s, p);
			p += sizeof(hint_name) - 1;
		} else {
			p = follow_function(&s, p);
		}
	}
	free(s.file);
	free(s.function);
	free(s.last_call);
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

char *scan_site_macro(struct scan *scan, const struct scan_site *site)
{
	struct line_walk walk = { &scan->macros, NULL };
	const char *text = source_line(&scan->source_lines, site->file, site->line);

	if (!text || !each_identifier(text, first_reaching, &walk))
		return NULL;
	if (macro_is_hint(&scan->macros, walk.found, 0))
		return NULL;
	return xasprintf("%s (%s)", walk.found->name, walk.found->where);
}

void scan_free(struct scan *scan)
{
	size_t i;
	char **lines;

	for (i = 0; i < scan->count; i++) {
		free(scan->sites[i].file);
		free(scan->sites[i].expression);
		free(scan->sites[i].expect_text);
		free(scan->sites[i].function);
	}
	free(scan->sites);
	for (i = 0; i < scan->macros.capacity; i++) {
		struct macro *m = scan->macros.slots[i].value;

		if (!scan->macros.slots[i].key)
			continue;
		free(m->name);
		free(m->body);
		free(m->where);
		free(m);
	}
	strmap_free(&scan->macros);
	for (i = 0; i < scan->source_lines.capacity; i++) {
		if (!scan->source_lines.slots[i].key)
			continue;
		for (lines = scan->source_lines.slots[i].value; *lines; lines++)
			free(*lines);
		free(scan->source_lines.slots[i].value);
		free((char *)scan->source_lines.slots[i].key);
	}
	strmap_free(&scan->source_lines);
	memset(scan, 0, sizeof(*scan));
}
