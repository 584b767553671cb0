/* cygtrace_trace: reads the files the cygtrace runtime writes (format in
   cygtrace(1)); the object table is the same as pagein's. */
#ifndef LINKOPT_CYGTRACE_TRACE_H
#define LINKOPT_CYGTRACE_TRACE_H

#include "pagein_trace.h"

#include <stdbool.h>

struct cygtrace_record {
	uint64_t sequence, time;
	uint32_t tid;
	uint64_t function, call_site;
};

struct cygtrace_edge {
	uint64_t call_site, function, count;
};

struct cygtrace_trace {
	char *path;
	long pid;
	char *command;
	char *reason;            /* exit, stop or fork */
	bool complete;           /* ends with "# end" */
	struct trace_object *objects;
	size_t object_count, object_capacity;
	struct cygtrace_record *records;
	size_t record_count, record_capacity;
	struct cygtrace_edge *edges;
	size_t edge_count, edge_capacity;
};

/* Reads a cygtrace file; returns 0, or -1 with *why set (newly allocated). */
int cygtrace_trace_read(const char *path, struct cygtrace_trace *trace, char **why);

/* The object one of whose segments holds address, or NULL. */
const struct trace_object *cygtrace_object_at(const struct cygtrace_trace *trace, uint64_t address);

/* Frees what cygtrace_trace_read allocated. */
void cygtrace_trace_free(struct cygtrace_trace *trace);

#endif
