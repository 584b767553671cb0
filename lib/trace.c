#include "trace.h"
#include "util.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[] = { [TRACE_PAGEIN] = "pagein", [TRACE_CYGTRACE] = "cygtrace" };
static const char *const magic_lines[] = { [TRACE_PAGEIN] = "# pagein 1", [TRACE_CYGTRACE] = "# cygtrace 1" };

/* An object-table line ("# object PATH build-id ID base 0xB" or "# segment
   PATH 0xS-0xE", the same in both formats): 1 if it was one, 0 if not, -1
   for a segment of an object not declared before it. */
static int parse_object_line(struct trace *t, const char *line)
{
	char path[4096], build_id[256];
	uint64_t base, start, end;
	size_t i;

	if (sscanf(line, "# object %4095s build-id %255s base 0x%" SCNx64, path, build_id, &base) == 3) {
		struct trace_object *o = ARRAY_PUSH(t->objects, t->object_count, t->object_capacity);

		memset(o, 0, sizeof(*o));
		o->path = xstrdup(path);
		o->build_id = xstrdup(build_id);
		o->base = base;
		return 1;
	}
	if (sscanf(line, "# segment %4095s 0x%" SCNx64 "-0x%" SCNx64, path, &start, &end) != 3)
		return 0;
	for (i = t->object_count; i-- > 0;) {
		struct trace_object *o = &t->objects[i];

		if (!strcmp(o->path, path)) {
			*ARRAY_PUSH(o->segments, o->segment_count, o->segment_capacity) =
				(struct trace_segment){ start, end };
			return 1;
		}
	}
	return -1;
}

/* A header line of either format; NULL, or what is wrong with it. */
static const char *parse_header(struct trace *t, char *line, bool *end_seen)
{
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
	} else if (sscanf(line, "# pid: %ld", &t->pid) == 1) {
		;
	} else if (!strncmp(line, "# page-size: ", 13)) {
		char *end;
		unsigned long long n = line[13] >= '0' && line[13] <= '9' ? strtoull(line + 13, &end, 10) : 0;

		if (!n || *end || n < 256 || n > (1ull << 30) || (n & (n - 1)))
			return "the page size is not a power of two from 256 to 1073741824";
		t->page_size = n;
	} else if (parse_object_line(t, line) < 0) {
		return "a segment of an object not declared before it";
	}
	return NULL;
}

/* SEQ 0xADDRESS KIND TIME 0xIP: SYMBOL (in OBJECT) */
static const char *parse_pagein_event(struct trace *t, char *line)
{
	struct trace_event e = { 0 };
	int used = 0;
	char *rest, *in;

	if (sscanf(line, "%" SCNu64 " 0x%" SCNx64 " %c %" SCNu64 " 0x%" SCNx64 ":%n", &e.sequence, &e.address,
		   &e.kind, &e.time, &e.ip, &used) != 5 || !used || !strchr("CDHSAFO", e.kind))
		return "not a pagein record";
	if (!strchr("FO", e.kind))
		e.size = t->page_size;
	rest = line + used;
	while (*rest == ' ')
		rest++;
	in = strstr(rest, " (in ");
	if (in && in[strlen(in) - 1] == ')') {
		e.object = xstrndup(in + 5, strlen(in + 5) - 1);
		e.symbol = xstrndup(rest, in - rest);
	} else {
		e.symbol = xstrdup(rest);
	}
	*ARRAY_PUSH(t->events, t->event_count, t->event_capacity) = e;
	return NULL;
}

/* SEQ TIME TID 0xFUNCTION 0xCALL-SITE, or E 0xCALL-SITE 0xFUNCTION COUNT */
static const char *parse_cygtrace_event(struct trace *t, char *line)
{
	struct trace_event e = { .kind = 'F' };
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

/* The format whose magic line starts line, or -1. */
static int format_of(const char *line)
{
	int f;

	for (f = TRACE_PAGEIN; f <= TRACE_CYGTRACE; f++)
		if (!strncmp(line, magic_lines[f], strlen(magic_lines[f])))
			return f;
	return -1;
}

/* Why a file is not a trace of the expected format (-1: either). */
static char *not_a_trace(int expected, const char *detail)
{
	if (expected >= 0)
		return xasprintf("not a %s trace (%s)", format_names[expected], detail);
	return xasprintf("not a pagein or cygtrace trace (%s)", detail);
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
		if (number == 1) {
			int format = format_of(line);

			if (format < 0 || (expected >= 0 && format != expected)) {
				char *detail = expected >= 0 ? xasprintf("no '%s' header", magic_lines[expected])
							     : xasprintf("no '%s' or '%s' header", magic_lines[TRACE_PAGEIN],
									 magic_lines[TRACE_CYGTRACE]);

				*why = not_a_trace(expected, detail);
				free(detail);
				break;
			}
			t->format = format;
			if (format == TRACE_PAGEIN)
				t->page_size = 4096;
		}
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
	t->complete = t->format == TRACE_CYGTRACE ? end_seen : !cut;
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
	free(t->command);
	free(t->reason);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
