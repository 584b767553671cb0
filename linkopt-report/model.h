/* model: what the report shows of one object in one pagein trace: the
   object's load segments (its ELF program headers) cut into pages, each
   page with its first touches (code and data), the pages a cold start
   reads from the file under a simple read-around model, and the hot
   range.  Built from a trace (lib/trace) and the file the trace names
   (lib/elfobj), which must be the one traced (its build-id). */
#ifndef LINKOPT_REPORT_MODEL_H
#define LINKOPT_REPORT_MODEL_H

#include "elfobj.h"
#include "trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One page of a segment. */
struct model_page {
	uint64_t address;        /* in the file's addresses (the trace's minus the load base) */
	bool code, data;         /* first executed (C), first read or written (D) */
	uint64_t code_time, data_time; /* guest instructions, when code or data is set */
	uint64_t time;           /* the earlier of the two */
	size_t rank;             /* 1 for the first page of the object touched, 2 the next...; 0 untouched */
	const char *symbol;      /* the function that touched it first (the trace's), or NULL */
	bool in_file;            /* some of its bytes come from the file (not .bss alone) */
	uint64_t file_page;      /* when in_file: its page of the file */
	bool read;               /* when in_file: the cold-start model reads it */
	bool hot;                /* it shares a byte with the hot range */
	char *sections;          /* the sections on it, ", " between, or NULL */
};

/* One PT_LOAD segment. */
struct model_segment {
	struct elf_segment elf;
	bool code;               /* executable (PF_X) */
	struct model_page *pages;
	size_t page_count;
	size_t touched, code_pages, data_pages, read;
	char *sections;          /* the allocated sections in it, ", " between */
};

/* How the hot range was found. */
enum model_hot {
	MODEL_HOT_NONE,          /* none: no symbols, no function records */
	MODEL_HOT_SYMBOLS,       /* __linkopt_hot_start and __linkopt_hot_end of the binary */
	MODEL_HOT_FUNCTIONS,     /* the longest stretch of the code whose every function start-up ran */
};

/* One object of one trace. */
struct model_object {
	const struct trace *trace;
	const struct trace_object *object;
	char *path;              /* the object's path in the trace */
	char *file;              /* the file read: path, or a copy of the traced file found by its build-id */
	void *image;
	size_t image_size;
	struct elf_object elf;
	uint64_t page_size;
	struct model_segment *segments;
	size_t segment_count;
	size_t code_pages, data_pages;   /* C and D records of the object: pagein's counts */
	size_t touched;                  /* pages of the grids touched either way */
	size_t file_pages, read, read_unmapped; /* pages of the file; read by the model; of those, in no segment */
	size_t functions_run;            /* F records in the object */
	enum model_hot hot_how;
	uint64_t hot_start, hot_end;     /* the hot range, file addresses, when hot_how is not NONE */
	size_t hot_functions;            /* MODEL_HOT_FUNCTIONS: functions in it */
};

/* The file that holds object as it was traced (a new string): its path
   when the file there has the traced build-id (or the trace records none);
   otherwise the first of copies, then of the files of folder (a program
   relinked in place since: linkopt-startup keeps DIR/NAME.default beside
   DIR/NAME.trace), that has it; NULL when none has. */
char *model_traced_file(const struct trace_object *object, const char *const *copies, size_t copy_count,
			const char *folder);

/* Builds the model of object (one of trace's) with a cold-start
   read-around window of read_ahead bytes: reads file (NULL: the object's
   path) and refuses one whose build-id or load segments differ from the
   trace's (relinked since).  Returns 0, or -1 with *why set (new). */
int model_build(struct model_object *m, const struct trace *trace, const struct trace_object *object,
		const char *file, uint64_t read_ahead, char **why);

/* Frees what model_build allocated. */
void model_free(struct model_object *m);

#endif
