/* pagein_trace: reads the files the pagein valgrind tool writes (format in
   pagein/pg_main.c and pagein(1)). */
#ifndef LINKOPT_PAGEIN_TRACE_H
#define LINKOPT_PAGEIN_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct trace_segment {
	uint64_t start, end; /* [start, end) in the traced process */
};

struct trace_object {
	char *path;
	char *build_id;      /* hex, or "none" */
	uint64_t base;
	struct trace_segment *segments;
	size_t segment_count, segment_capacity;
};

struct trace_record {
	uint64_t sequence, address, time, ip;
	char kind;           /* C D H S A F */
	char *symbol;
	char *object;        /* as the tool named it, or NULL */
};

struct pagein_trace {
	char *path;
	char *command;
	long pid;
	uint64_t page_size;
	struct trace_object *objects;
	size_t object_count, object_capacity;
	struct trace_record *records;
	size_t record_count, record_capacity;
};

/* Parses an object-table line ("# object PATH build-id ID base 0xB" or
   "# segment PATH 0xS-0xE", as pagein and cygtrace write them) into
   *objects: 1 if it was one, 0 if not, -1 for a segment of an object not
   declared before it. */
int trace_object_line(const char *line, struct trace_object **objects, size_t *count, size_t *capacity);

/* The object whose segments share a byte with [address, address + size), or NULL. */
const struct trace_object *trace_object_at(const struct trace_object *objects, size_t count, uint64_t address,
					   uint64_t size);

/* Frees an object table. */
void trace_objects_free(struct trace_object *objects, size_t count);

/* Reads a trace file line by line: the first line must start with magic
   ("# pagein 1"); each complete line (a last line cut short by a killed run
   is ignored) goes to parse, which returns NULL or what is wrong with it.
   Returns 0, or -1 with *why set ("line N: ..." for a bad line). */
int trace_read_lines(const char *path, const char *magic, const char *(*parse)(void *context, char *line),
		     void *context, char **why);

/* Reads a pagein file; returns 0, or -1 with *why set (newly allocated) when
   the file cannot be read or is not a pagein trace.  A last line without
   its newline (a run that was killed) is ignored. */
int pagein_trace_read(const char *path, struct pagein_trace *trace, char **why);

/* The object whose segments share a page with [address, address + size), or NULL. */
const struct trace_object *pagein_trace_object_at(const struct pagein_trace *trace, uint64_t address,
						  uint64_t size);

/* Frees what pagein_trace_read allocated. */
void pagein_trace_free(struct pagein_trace *trace);

#endif
