#include "cygtrace_trace.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct trace_object *find_object(struct cygtrace_trace *t, const char *path)
{
	size_t i;

	for (i = t->object_count; i-- > 0;)
		if (!strcmp(t->objects[i].path, path))
			return &t->objects[i];
	return NULL;
}

static const char *parse_line(struct cygtrace_trace *t, char *line)
{
	char path[4096], build_id[256];
	uint64_t base, start, end;
	struct cygtrace_record r;
	struct cygtrace_edge e;

	if (!strncmp(line, "# command: ", 11)) {
		free(t->command);
		t->command = xstrdup(line + 11);
	} else if (!strncmp(line, "# reason: ", 10)) {
		free(t->reason);
		t->reason = xstrdup(line + 10);
	} else if (!strcmp(line, "# end")) {
		t->complete = true;
	} else if (sscanf(line, "# pid: %ld", &t->pid) == 1) {
		;
	} else if (sscanf(line, "# object %4095s build-id %255s base 0x%" SCNx64, path, build_id, &base) == 3) {
		struct trace_object *o = ARRAY_PUSH(t->objects, t->object_count, t->object_capacity);

		memset(o, 0, sizeof(*o));
		o->path = xstrdup(path);
		o->build_id = xstrdup(build_id);
		o->base = base;
	} else if (sscanf(line, "# segment %4095s 0x%" SCNx64 "-0x%" SCNx64, path, &start, &end) == 3) {
		struct trace_object *o = find_object(t, path);

		if (!o)
			return "a segment of an object not declared before it";
		*ARRAY_PUSH(o->segments, o->segment_count, o->segment_capacity) = (struct trace_segment){ start, end };
	} else if (line[0] == '#' || !line[0]) {
		;
	} else if (sscanf(line, "E 0x%" SCNx64 " 0x%" SCNx64 " %" SCNu64, &e.call_site, &e.function, &e.count) == 3) {
		*ARRAY_PUSH(t->edges, t->edge_count, t->edge_capacity) = e;
	} else if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu32 " 0x%" SCNx64 " 0x%" SCNx64, &r.sequence, &r.time,
			  &r.tid, &r.function, &r.call_site) == 5) {
		*ARRAY_PUSH(t->records, t->record_count, t->record_capacity) = r;
	} else {
		return "not a cygtrace record";
	}
	return NULL;
}

int cygtrace_trace_read(const char *path, struct cygtrace_trace *t, char **why)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, number = 0;
	ssize_t len;

	memset(t, 0, sizeof(*t));
	*why = NULL;
	if (!f) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	t->path = xstrdup(path);
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *bad;

		number++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (number == 1 && strncmp(line, "# cygtrace 1", 12) != 0) {
			*why = xstrdup("not a cygtrace trace (no '# cygtrace 1' header)");
			break;
		}
		if ((bad = parse_line(t, line)) != NULL) {
			*why = xasprintf("line %zu: %s", number, bad);
			break;
		}
	}
	if (!*why && number == 0)
		*why = xstrdup("not a cygtrace trace (empty file)");
	free(line);
	fclose(f);
	if (*why) {
		cygtrace_trace_free(t);
		return -1;
	}
	return 0;
}

const struct trace_object *cygtrace_object_at(const struct cygtrace_trace *t, uint64_t a)
{
	size_t i, k;

	for (i = 0; i < t->object_count; i++)
		for (k = 0; k < t->objects[i].segment_count; k++)
			if (a >= t->objects[i].segments[k].start && a < t->objects[i].segments[k].end)
				return &t->objects[i];
	return NULL;
}

void cygtrace_trace_free(struct cygtrace_trace *t)
{
	size_t i;

	for (i = 0; i < t->object_count; i++) {
		free(t->objects[i].path);
		free(t->objects[i].build_id);
		free(t->objects[i].segments);
	}
	free(t->objects);
	free(t->records);
	free(t->edges);
	free(t->command);
	free(t->reason);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
