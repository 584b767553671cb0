#include "trace.h"
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = { [TRACE_PAGEIN] = "pagein", [TRACE_CYGTRACE] = "cygtrace" };

/* The versions this reader reads: 1 wrote paths bare, so a path with a
   blank was cut at it; 2 quotes what needs quoting and ends pagein traces
   with "# end" too. */
#define OLDEST_VERSION 1
#define NEWEST_VERSION 2

/* A byte a bare field cannot hold. */
static bool needs_quoting(unsigned char c)
{
	return c <= ' ' || c == 0x7f || c == '"' || c == '\\';
}

char *trace_quote(const char *text)
{
	const unsigned char *p;
	char *quoted, *q;
	bool bare = *text != '\0';

	for (p = (const unsigned char *)text; *p && bare; p++)
		bare = !needs_quoting(*p);
	if (bare)
		return xstrdup(text);
	q = quoted = xmalloc(4 * strlen(text) + 3);
	*q++ = '"';
	for (p = (const unsigned char *)text; *p; p++) {
		if (*p == '"' || *p == '\\')
			q += sprintf(q, "\\%c", *p);
		else if (*p == '\n')
			q += sprintf(q, "\\n");
		else if (*p == '\t')
			q += sprintf(q, "\\t");
		else if (*p == '\r')
			q += sprintf(q, "\\r");
		else if (*p < ' ' || *p == 0x7f)
			q += sprintf(q, "\\x%02x", *p);
		else
			*q++ = (char)*p;
	}
	*q++ = '"';
	*q = '\0';
	return quoted;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A field of a version 2 line at *p (trace_quote's form): *value gets it
   (newly allocated) and *p moves past it.  NULL, or what is wrong. */
static const char *read_field(const char **p, char **value)
{
	const char *s = *p;
	char *out;
	size_t n = 0;

	*value = NULL;
	if (*s != '"') {
		size_t len = strcspn(s, " ");

		if (!len)
			return "an empty field";
		*value = xstrndup(s, len);
		*p = s + len;
		return NULL;
	}
	out = xmalloc(strlen(s));
	for (s++; *s != '"'; s++) {
		int high, low;

		if (!*s) {
			free(out);
			return "a quoted field without its closing quote";
		}
		if (*s != '\\') {
			out[n++] = *s;
			continue;
		}
		switch (*++s) {
		case '"': case '\\': out[n++] = *s; break;
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 'r': out[n++] = '\r'; break;
		case 'x':
			high = hex_digit(s[1]);
			low = high < 0 ? -1 : hex_digit(s[2]);
			if (low < 0 || (high == 0 && low == 0)) {
				free(out);
				return "a bad \\x escape in a quoted field";
			}
			out[n++] = (char)(high * 16 + low);
			s += 2;
			break;
		default:
			free(out);
			return "an unknown escape in a quoted field";
		}
	}
	out[n] = '\0';
	*value = out;
	*p = s + 1;
	return NULL;
}

/* A version 1 object-table line, whose path runs to the last " build-id "
   or " 0x" (paths with a blank, which that version wrote bare, still read):
   1 for an object line, 2 for a segment line (*path, numbers and build_id
   set), 0 for any other line. */
static int parse_object_line_v1(const char *line, char **path, uint64_t *numbers, char *build_id)
{
	const char *start, *end = NULL, *p;
	int used = 0;

	if (!strncmp(line, "# object ", 9)) {
		start = line + 9;
		for (p = strstr(start, " build-id "); p; p = strstr(p + 1, " build-id "))
			end = p;
		if (!end || sscanf(end, " build-id %255s base 0x%" SCNx64 "%n", build_id, &numbers[0], &used) != 2 ||
		    end[used])
			return 0;
		*path = xstrndup(start, end - start);
		return 1;
	}
	if (strncmp(line, "# segment ", 10))
		return 0;
	start = line + 10;
	for (p = strstr(start, " 0x"); p; p = strstr(p + 1, " 0x"))
		end = p;
	if (!end || sscanf(end, " 0x%" SCNx64 "-0x%" SCNx64 "%n", &numbers[0], &numbers[1], &used) != 2 || end[used])
		return 0;
	*path = xstrndup(start, end - start);
	return 2;
}

/* A version 2 object-table line: as parse_object_line_v1, and -2 with
   *bad set for an object or segment line that does not read. */
static int parse_object_line_v2(const char *line, char **path, uint64_t *numbers, char *build_id, const char **bad)
{
	const char *p;
	int kind, used = 0;

	if (!strncmp(line, "# object ", 9))
		kind = 1;
	else if (!strncmp(line, "# segment ", 10))
		kind = 2;
	else
		return 0;
	p = line + (kind == 1 ? 9 : 10);
	if ((*bad = read_field(&p, path)))
		return -2;
	if (kind == 1 ? sscanf(p, " build-id %255s base 0x%" SCNx64 "%n", build_id, &numbers[0], &used) != 2
		      : sscanf(p, " 0x%" SCNx64 "-0x%" SCNx64 "%n", &numbers[0], &numbers[1], &used) != 2) {
		*bad = kind == 1 ? "an object line that is not '# object PATH build-id ID base 0xB'"
				 : "a segment line that is not '# segment PATH 0xS-0xE'";
		free(*path);
		*path = NULL;
		return -2;
	}
	if (p[used]) {
		*bad = "more after an object-table line";
		free(*path);
		*path = NULL;
		return -2;
	}
	return kind;
}

/* An object-table line ("# object PATH build-id ID base 0xB" or "# segment
   PATH 0xS-0xE", the same in both formats): 1 if it was one, 0 if not, -1
   with *bad set for a line that does not read or a segment of an object
   not declared before it. */
static int parse_object_line(struct trace *t, const char *line, const char **bad)
{
	char *path = NULL, build_id[256];
	uint64_t numbers[2];
	size_t i;
	int kind = t->version == 1 ? parse_object_line_v1(line, &path, numbers, build_id)
				   : parse_object_line_v2(line, &path, numbers, build_id, bad);

	if (kind <= 0)
		return kind == 0 ? 0 : -1;
	if (kind == 1) {
		struct trace_object *o = ARRAY_PUSH(t->objects, t->object_count, t->object_capacity);

		memset(o, 0, sizeof(*o));
		o->path = path;
		o->build_id = xstrdup(build_id);
		o->base = numbers[0];
		return 1;
	}
	for (i = t->object_count; i-- > 0;) {
		struct trace_object *o = &t->objects[i];

		if (!strcmp(o->path, path)) {
			*ARRAY_PUSH(o->segments, o->segment_count, o->segment_capacity) =
				(struct trace_segment){ numbers[0], numbers[1] };
			free(path);
			return 1;
		}
	}
	free(path);
	*bad = "a segment of an object not declared before it";
	return -1;
}

/* A header line of either format; NULL, or what is wrong with it. */
static const char *parse_header(struct trace *t, char *line, bool *end_seen)
{
	const char *bad = NULL;

	if (!strncmp(line, "# command: ", 11)) {
		free(t->command);
		t->command = xstrdup(line + 11);
	} else if (!strncmp(line, "# reason: ", 10)) {
		free(t->reason);
		t->reason = xstrdup(line + 10);
	} else if (!strcmp(line, "# end")) {
		*end_seen = true;
	} else if (!strncmp(line, "# full: ", 8)) {
		t->full = true;
	} else if (!strcmp(line, "# granularity: page")) {
		t->granularity = TRACE_GRANULARITY_PAGE;
	} else if (!strcmp(line, "# granularity: function")) {
		t->granularity = TRACE_GRANULARITY_FUNCTION;
	} else if (!strncmp(line, "# granularity: ", 15)) {
		return "the granularity is neither page nor function";
	} else if (sscanf(line, "# pid: %ld", &t->pid) == 1) {
		;
	} else if (!strncmp(line, "# page-size: ", 13)) {
		char *end;
		unsigned long long n = line[13] >= '0' && line[13] <= '9' ? strtoull(line + 13, &end, 10) : 0;

		if (!n || *end || n < 256 || n > (1ull << 30) || (n & (n - 1)))
			return "the page size is not a power of two from 256 to 1073741824";
		t->page_size = n;
	} else if (parse_object_line(t, line, &bad) < 0) {
		return bad;
	}
	return NULL;
}

/* Version 2's "SYMBOL (in OBJECT)" at rest into e; NULL, or what is wrong. */
static const char *parse_symbol_and_object(const char *rest, struct trace_event *e)
{
	const char *bad = read_field(&rest, &e->symbol);
	size_t len;

	if (bad || !*rest)
		return bad;
	if (strncmp(rest, " (in ", 5))
		return "more after a record's symbol than its object";
	rest += 5;
	if (*rest == '"') {
		if ((bad = read_field(&rest, &e->object)))
			return bad;
		return strcmp(rest, ")") ? "more after a record's object" : NULL;
	}
	len = strlen(rest);
	if (len < 2 || rest[len - 1] != ')' || memchr(rest, ' ', len))
		return "a record's object that is not '(in OBJECT)'";
	e->object = xstrndup(rest, len - 1);
	return NULL;
}

/* B 0xFROM 0xTO COUNT or R 0xSTART 0xEND COUNT (pagein --branches) */
static const char *parse_transfer(struct trace *t, const char *line)
{
	struct trace_transfer x;
	int used = 0;

	if (sscanf(line + 1, " 0x%" SCNx64 " 0x%" SCNx64 " %" SCNu64 "%n", &x.from, &x.to, &x.count, &used) != 3 ||
	    line[1 + used] || line[1] != ' ' || x.count == 0)
		return line[0] == 'B' ? "a branch record that is not 'B 0xFROM 0xTO COUNT'"
				      : "a run record that is not 'R 0xSTART 0xEND COUNT'";
	if (line[0] == 'R' && x.to < x.from)
		return "a run record that ends before it starts";
	if (line[0] == 'B')
		*ARRAY_PUSH(t->branches, t->branch_count, t->branch_capacity) = x;
	else
		*ARRAY_PUSH(t->runs, t->run_count, t->run_capacity) = x;
	return NULL;
}

/* SEQ 0xADDRESS KIND TIME 0xIP: SYMBOL (in OBJECT) */
static const char *parse_pagein_event(struct trace *t, char *line)
{
	struct trace_event e = { 0 };
	int used = 0;
	char *rest, *in, kind = 0;

	if (t->version >= 2 && (line[0] == 'B' || line[0] == 'R'))
		return parse_transfer(t, line);
	if (sscanf(line, "%" SCNu64 " 0x%" SCNx64 " %c %" SCNu64 " 0x%" SCNx64 ":%n", &e.sequence, &e.address,
		   &kind, &e.time, &e.ip, &used) != 5 || !used || !kind || !strchr("CDHSAFO", kind))
		return "not a pagein record";
	e.kind = (enum trace_kind)kind;
	if (e.kind != TRACE_FUNCTION && e.kind != TRACE_OBJECT)
		e.size = t->page_size;
	rest = line + used;
	if (t->version >= 2) {
		const char *bad = *rest == ' ' ? parse_symbol_and_object(rest + 1, &e) : "not a pagein record";

		if (bad) {
			free(e.symbol);
			free(e.object);
			return bad;
		}
	} else {
		while (*rest == ' ')
			rest++;
		in = strstr(rest, " (in ");
		if (in && in[strlen(in) - 1] == ')') {
			e.object = xstrndup(in + 5, strlen(in + 5) - 1);
			e.symbol = xstrndup(rest, in - rest);
		} else {
			e.symbol = xstrdup(rest);
		}
	}
	*ARRAY_PUSH(t->events, t->event_count, t->event_capacity) = e;
	return NULL;
}

/* SEQ TIME TID 0xFUNCTION 0xCALL-SITE, or E 0xCALL-SITE 0xFUNCTION COUNT */
static const char *parse_cygtrace_event(struct trace *t, char *line)
{
	struct trace_event e = { .kind = TRACE_FUNCTION };
	struct trace_edge edge;

	if (sscanf(line, "E 0x%" SCNx64 " 0x%" SCNx64 " %" SCNu64, &edge.call_site, &edge.function, &edge.count) == 3)
		*ARRAY_PUSH(t->edges, t->edge_count, t->edge_capacity) = edge;
	else if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu32 " 0x%" SCNx64 " 0x%" SCNx64, &e.sequence, &e.time,
			&e.thread, &e.address, &e.ip) == 5)
		*ARRAY_PUSH(t->events, t->event_count, t->event_capacity) = e;
	else
		return "not a cygtrace record";
	return NULL;
}

/* The format a magic line ("# pagein 2 (linkopt 0.1)") names, with its
   version in *version; -1 if it names neither. */
static int format_of(const char *line, long *version)
{
	int f;

	for (f = TRACE_PAGEIN; f <= TRACE_CYGTRACE; f++) {
		size_t n = strlen(format_names[f]);
		char *end;

		if (strncmp(line, "# ", 2) || strncmp(line + 2, format_names[f], n) || line[2 + n] != ' ' ||
		    line[3 + n] < '0' || line[3 + n] > '9')
			continue;
		*version = strtol(line + 3 + n, &end, 10);
		return *end && *end != ' ' ? -1 : f;
	}
	return -1;
}

/* Why a file is not a trace of the expected format (-1: either). */
static char *not_a_trace(int expected, const char *detail)
{
	if (expected >= 0)
		return xasprintf("not a %s trace (%s)", format_names[expected], detail);
	return xasprintf("not a pagein or cygtrace trace (%s)", detail);
}

/* The first line: sets t's format and version; NULL, or why the file is
   not a trace to read (newly allocated).  expected as read_trace's. */
static char *read_first_line(struct trace *t, const char *line, int expected)
{
	long version = 0;
	int format = format_of(line, &version);

	if (format < 0 || (expected >= 0 && format != expected)) {
		char *detail = expected >= 0 ? xasprintf("no '# %s VERSION' header", format_names[expected])
					     : xstrdup("no '# pagein VERSION' or '# cygtrace VERSION' header");
		char *why = not_a_trace(expected, detail);

		free(detail);
		return why;
	}
	if (version < OLDEST_VERSION || version > NEWEST_VERSION)
		return xasprintf("a %s trace of format version %ld, which this reader does not know (it reads versions "
				 "%d to %d)", format_names[format], version, OLDEST_VERSION, NEWEST_VERSION);
	t->format = format;
	t->version = (int)version;
	if (format == TRACE_PAGEIN)
		t->page_size = 4096;
	return NULL;
}

/* expected: a format, or -1 for either. */
static int read_trace(const char *path, int expected, struct trace *t, char **why)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, number = 0;
	ssize_t len;
	bool end_seen = false, cut = false;

	memset(t, 0, sizeof(*t));
	*why = NULL;
	f = fopen(path, "r");
	if (!f) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	t->path = xstrdup(path);
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *bad;

		number++;
		if (line[len - 1] != '\n') {
			if (number == 1)
				*why = not_a_trace(expected, "no complete first line");
			cut = true; /* a killed run */
			break;
		}
		line[--len] = '\0';
		if (number == 1 && (*why = read_first_line(t, line, expected)))
			break;
		if (line[0] == '#')
			bad = parse_header(t, line, &end_seen);
		else if (!line[0])
			bad = NULL;
		else if (t->format == TRACE_PAGEIN)
			bad = parse_pagein_event(t, line);
		else
			bad = parse_cygtrace_event(t, line);
		if (bad) {
			*why = xasprintf("line %zu: %s", number, bad);
			break;
		}
	}
	if (!*why && number == 0)
		*why = not_a_trace(expected, "empty file");
	if (!*why && ferror(f))
		*why = xasprintf("read failed: %s", strerror(errno));
	free(line);
	fclose(f);
	if (*why) {
		trace_free(t);
		return -1;
	}
	if (t->format == TRACE_CYGTRACE || t->version >= 2)
		t->complete = end_seen && !cut;
	else
		t->complete = !cut;
	return 0;
}

int trace_read(const char *path, struct trace *trace, char **why)
{
	return read_trace(path, -1, trace, why);
}

int trace_read_format(const char *path, enum trace_format format, struct trace *trace, char **why)
{
	return read_trace(path, format, trace, why);
}

bool trace_object_holds(const struct trace_object *object, uint64_t address)
{
	size_t k;

	for (k = 0; k < object->segment_count; k++)
		if (address >= object->segments[k].start && address < object->segments[k].end)
			return true;
	return false;
}

const struct trace_object *trace_object_at(const struct trace *t, uint64_t address, uint64_t size)
{
	size_t i, k;

	for (i = 0; i < t->object_count; i++)
		for (k = 0; k < t->objects[i].segment_count; k++)
			if (address < t->objects[i].segments[k].end && address + size > t->objects[i].segments[k].start)
				return &t->objects[i];
	return NULL;
}

const struct trace_object *trace_object_matching(const struct trace *t, const char *glob)
{
	size_t i;

	if (!glob)
		return t->object_count ? &t->objects[0] : NULL;
	for (i = 0; i < t->object_count; i++)
		if (!fnmatch(glob, t->objects[i].path, 0))
			return &t->objects[i];
	return NULL;
}

void trace_free(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->object_count; i++) {
		free(t->objects[i].path);
		free(t->objects[i].build_id);
		free(t->objects[i].segments);
	}
	free(t->objects);
	for (i = 0; i < t->event_count; i++) {
		free(t->events[i].symbol);
		free(t->events[i].object);
	}
	free(t->events);
	free(t->edges);
	free(t->branches);
	free(t->runs);
	free(t->command);
	free(t->reason);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
