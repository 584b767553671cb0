#include "cygtrace_trace.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *parse_line(struct cygtrace_trace *t, char *line)
{
	struct cygtrace_record r;
	struct cygtrace_edge e;
	int object;

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
	} else if ((object = trace_object_line(line, &t->objects, &t->object_count, &t->object_capacity)) != 0) {
		if (object < 0)
			return "a segment of an object not declared before it";
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

static const char *parse_cygtrace_line(void *context, char *line)
{
	return parse_line(context, line);
}

int cygtrace_trace_read(const char *path, struct cygtrace_trace *t, char **why)
{
	memset(t, 0, sizeof(*t));
	t->path = xstrdup(path);
	if (trace_read_lines(path, "# cygtrace 1", parse_cygtrace_line, t, why) < 0) {
		cygtrace_trace_free(t);
		return -1;
	}
	return 0;
}

const struct trace_object *cygtrace_object_at(const struct cygtrace_trace *t, uint64_t a)
{
	return trace_object_at(t->objects, t->object_count, a, 1);
}

void cygtrace_trace_free(struct cygtrace_trace *t)
{
	trace_objects_free(t->objects, t->object_count);
	free(t->records);
	free(t->edges);
	free(t->command);
	free(t->reason);
	free(t->path);
	memset(t, 0, sizeof(*t));
}
