/* trace: one model of a trace of a process, whichever tool wrote it:
   pagein's first touches of code and data pages, functions and data
   objects (format in pagein/pg_main.c and pagein(1)), or cygtrace's first
   function entries and call edges (cygtrace(1)).  Both formats open with a
   magic line ("# pagein 2", "# cygtrace 2"; version 1 is read too) and
   share the object table.  From version 2 a path, a symbol or a word of a
   command is written bare when it can be (trace_quote), and a trace ends
   with "# end". */
#ifndef LINKOPT_TRACE_H
#define LINKOPT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trace_format { TRACE_PAGEIN, TRACE_CYGTRACE };

/* What a record of a trace stands for: its letter in both formats. */
enum trace_kind {
	TRACE_CODE = 'C',       /* pagein: a code page of a mapped file */
	TRACE_DATA = 'D',       /* pagein: a data page of a mapped file */
	TRACE_HEAP = 'H',       /* pagein: a heap page */
	TRACE_STACK = 'S',      /* pagein: a stack page */
	TRACE_ANONYMOUS = 'A',  /* pagein: a page of other anonymous memory */
	TRACE_FUNCTION = 'F',   /* a function's first entry (both tools) */
	TRACE_OBJECT = 'O',     /* pagein: a data object's first touch */
};

struct trace_segment {
	uint64_t start, end;     /* [start, end) in the traced process */
};

/* An object mapped in the traced process, declared before any event in it. */
struct trace_object {
	char *path;
	char *build_id;          /* hex, or "none" */
	uint64_t base;           /* load base: an address of the file is address - base */
	struct trace_segment *segments;
	size_t segment_count, segment_capacity;
};

/* One first touch, in the order the process made them. */
struct trace_event {
	uint64_t sequence;
	enum trace_kind kind;    /* pagein: any; cygtrace: TRACE_FUNCTION */
	uint64_t address;        /* the page (C D H S A), the function's entry (F), the data
				    object's start (O) */
	uint64_t size;           /* bytes from address it stands for where known (a page), else 0 */
	uint64_t time;           /* since the first record: pagein in guest instructions,
				    cygtrace in nanoseconds */
	uint64_t ip;             /* pagein: the instruction that touched it; cygtrace: the call site */
	uint32_t thread;         /* cygtrace: the thread's id; pagein: 0 (not recorded) */
	char *symbol;            /* pagein: as the tool named it (maybe "", maybe with blanks); cygtrace: NULL */
	char *object;            /* pagein: the object the tool named, or NULL; cygtrace: NULL */
};

/* Calls from a call site to a function, counted (cygtrace's CYGTRACE_EDGES). */
struct trace_edge {
	uint64_t call_site, function, count;
};

/* pagein --branches: a branch taken count times (from the branch to its
   target), or a run of code executed count times without a branch taken
   (from a branch's target to the next branch taken: from is its start, to
   the branch at its end). */
struct trace_transfer {
	uint64_t from, to, count;
};

/* Whether a pagein trace records functions (F) and data objects (O):
   with page granularity it records none, whatever ran. */
enum trace_granularity { TRACE_GRANULARITY_UNKNOWN, TRACE_GRANULARITY_PAGE, TRACE_GRANULARITY_FUNCTION };

struct trace {
	char *path;
	enum trace_format format;
	int version;             /* of the format: 1 or 2 */
	char *command;           /* as the trace spells it (version 2: each word as trace_quote
				    writes it), or NULL */
	long pid;
	uint64_t page_size;      /* pagein: its header's, 4096 without one; cygtrace: 0 */
	enum trace_granularity granularity;   /* pagein: its header's; unknown in a trace
						  written before the header said it */
	char *reason;            /* cygtrace: exit, stop or fork; otherwise NULL */
	bool complete;           /* it ends with "# end"; a pagein trace of version 1, which
				    has no end line: no line was cut short */
	struct trace_object *objects;
	size_t object_count, object_capacity;
	struct trace_event *events;
	size_t event_count, event_capacity;
	struct trace_edge *edges;
	size_t edge_count, edge_capacity;
	struct trace_transfer *branches, *runs;   /* pagein --branches (B and R lines) */
	size_t branch_count, branch_capacity, run_count, run_capacity;
	bool full;               /* the recorder ran out of room: later first touches are missing */
};

/* Reads a trace of either format, told apart by its first line ("# pagein
   N" or "# cygtrace N", N 1 or 2; another version is refused, naming it); a
   last line cut short by a killed run is ignored.  Returns 0, or -1 with
   *why set (newly allocated; "line N: ..." for a bad line). */
int trace_read(const char *path, struct trace *trace, char **why);

/* trace_read for a reader of one format: a file of the other, or of
   neither, is "not a FORMAT trace". */
int trace_read_format(const char *path, enum trace_format format, struct trace *trace, char **why);

/* The object whose segments share a byte with [address, address + size), or NULL. */
const struct trace_object *trace_object_at(const struct trace *trace, uint64_t address, uint64_t size);

/* True if one of object's segments holds address. */
bool trace_object_holds(const struct trace_object *object, uint64_t address);

/* The first object whose path matches glob (fnmatch), or without glob the
   first object (the main program); NULL if there is none. */
const struct trace_object *trace_object_matching(const struct trace *trace, const char *glob);

/* text as a trace of version 2 writes a path, a symbol or a word of a
   command (a new string): as it is when it is not empty and holds no byte
   from 0 to 32 (blank, tab, newline...), 127, '"' or '\'; otherwise in
   double quotes with \\, \", \n, \t, \r and \xHH for those.  Every other
   byte, UTF-8 or not, stands for itself.  For text output too: a field
   that cannot run into the next one. */
char *trace_quote(const char *text);

/* Frees what trace_read allocated. */
void trace_free(struct trace *trace);

#endif
