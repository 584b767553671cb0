#include "pagein_trace.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int trace_object_line(const char *line, struct trace_object **objects, size_t *count, size_t *capacity)
{
	char path[4096], build_id[256];
	uint64_t base, start, end;
	size_t i;

	if (sscanf(line, "# object %4095s build-id %255s base 0x%" SCNx64, path, build_id, &base) == 3) {
		struct trace_object *o = ARRAY_PUSH(*objects, *count, *capacity);

		memset(o, 0, sizeof(*o));
		o->path = xstrdup(path);
		o->build_id = xstrdup(build_id);
		o->base = base;
		return 1;
	}
	if (sscanf(line, "# segment %4095s 0x%" SCNx64 "-0x%" SCNx64, path, &start, &end) != 3)
		return 0;
	for (i = *count; i-- > 0;) {
		struct trace_object *o = &(*objects)[i];

		if (!strcmp(o->path, path)) {
			*ARRAY_PUSH(o->segments, o->segment_count, o->segment_capacity) =
				(struct trace_segment){ start, end };
			return 1;
		}
	}
	return -1;
}

const struct trace_object *trace_object_at(const struct trace_object *objects, size_t count, uint64_t address,
					   uint64_t size)
{
	size_t i, k;

	for (i = 0; i < count; i++)
		for (k = 0; k < objects[i].segment_count; k++)
			if (address < objects[i].segments[k].end && address + size > objects[i].segments[k].start)
				return &objects[i];
	return NULL;
}

void trace_objects_free(struct trace_object *objects, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(objects[i].path);
		free(objects[i].build_id);
		free(objects[i].segments);
	}
	free(objects);
}

static int parse_header(struct pagein_trace *t, char *line)
{
	if (!strncmp(line, "# command: ", 11)) {
		free(t->command);
		t->command = xstrdup(line + 11);
	} else if (sscanf(line, "# pid: %ld", &t->pid) == 1) {
		;
	} else if (sscanf(line, "# page-size: %" SCNu64, &t->page_size) == 1) {
		;
	} else if (trace_object_line(line, &t->objects, &t->object_count, &t->object_capacity) < 0) {
		return -1;
	}
	return 0;
}

static int parse_record(struct pagein_trace *t, char *line)
{
	struct trace_record r = { 0 };
	int used = 0;
	char *rest, *in;

	if (sscanf(line, "%" SCNu64 " 0x%" SCNx64 " %c %" SCNu64 " 0x%" SCNx64 ":%n", &r.sequence, &r.address,
		   &r.kind, &r.time, &r.ip, &used) != 5 || !used || !strchr("CDHSAFO", r.kind))
		return -1;
	rest = line + used;
	while (*rest == ' ')
		rest++;
	in = strstr(rest, " (in ");
	if (in && in[strlen(in) - 1] == ')') {
		r.object = xstrndup(in + 5, strlen(in + 5) - 1);
		r.symbol = xstrndup(rest, in - rest);
	} else {
		r.symbol = xstrdup(rest);
	}
	*ARRAY_PUSH(t->records, t->record_count, t->record_capacity) = r;
	return 0;
}

int trace_read_lines(const char *path, const char *magic, const char *(*parse)(void *context, char *line),
		     void *context, char **why)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, number = 0;
	ssize_t len;
	/* The kind of trace, for messages: "pagein" of "# pagein 1". */
	int kind = (int)strcspn(magic + 2, " ");

	*why = NULL;
	if (!f) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *bad;

		number++;
		if (line[len - 1] != '\n')
			break; /* cut short: a killed run */
		line[--len] = '\0';
		if (number == 1 && strncmp(line, magic, strlen(magic)) != 0) {
			*why = xasprintf("not a %.*s trace (no '%s' header)", kind, magic + 2, magic);
			break;
		}
		if ((bad = parse(context, line)) != NULL) {
			*why = xasprintf("line %zu: %s", number, bad);
			break;
		}
	}
	if (!*why && number == 0)
		*why = xasprintf("not a %.*s trace (empty file)", kind, magic + 2);
	if (!*why && ferror(f))
		*why = xasprintf("read failed: %s", strerror(errno));
	free(line);
	fclose(f);
	return *why ? -1 : 0;
}

static const char *parse_pagein_line(void *context, char *line)
{
	struct pagein_trace *t = context;

	if (line[0] == '#')
		return parse_header(t, line) < 0 ? "a segment of an object not declared before it" : NULL;
	if (line[0] && parse_record(t, line) < 0)
		return "not a pagein record";
	return NULL;
}

int pagein_trace_read(const char *path, struct pagein_trace *t, char **why)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	t->page_size = 4096;
	if (trace_read_lines(path, "# pagein 1", parse_pagein_line, t, why) < 0) {
		pagein_trace_free(t);
		return -1;
	}
	return 0;
}

const struct trace_object *pagein_trace_object_at(const struct pagein_trace *t, uint64_t address, uint64_t size)
{
	return trace_object_at(t->objects, t->object_count, address, size);
}

void pagein_trace_free(struct pagein_trace *t)
{
	size_t i;

	trace_objects_free(t->objects, t->object_count);
	for (i = 0; i < t->record_count; i++) {
		free(t->records[i].symbol);
		free(t->records[i].object);
	}
	free(t->records);
	free(t->command);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
