/* ordering: an order of input sections as the emitters (lib/emit) read
   it, whoever computed it: per entry what each linker's form names it by,
   and for the whole order its traced head, its provenance and the call-graph
   edges of its traces.  Every string is owned by the record. */
#ifndef LINKOPT_ORDERING_H
#define LINKOPT_ORDERING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One ordered item: an input section of an object file or archive member,
   or a whole one (section NULL), which only code output sections take. */
struct ordering_entry {
	char *unit;             /* path, or archive(member) */
	char *file;             /* GNU ld's input-section file pattern: path, or archive:member */
	char *section;          /* input section name, or NULL: the whole unit */
	uint64_t size;          /* the input section's bytes (0: a whole unit, or not known) */
	char **symbols;         /* lld's and mold's names for it: the functions and data objects it
				   defines (a whole unit: in code sections), in symbol table order */
	size_t symbol_count, symbol_capacity;
};

/* Where a GNU ld script puts the traced entries of .rodata. */
enum ordering_rodata {
	ORDERING_RODATA_FIRST,  /* at the head of .rodata */
	ORDERING_RODATA_LAST,   /* the unwinding tables first in the read-only data segment, then
				   .rodata, its traced entries last, next to the data segment */
	ORDERING_RODATA_APART,  /* alone in the read-only data segment before the data segment;
				   the untraced .rodata (.rodata.untraced) and the unwinding tables
				   in a read-only segment after the data segment */
	ORDERING_RODATA_BEFORE_CODE, /* the data start-up reads before the code: the data segment
				   after the headers and relocations, then the traced .rodata
				   alone in a read-only segment, then the code; the untraced
				   .rodata and the unwinding tables in a read-only segment after
				   the code */
};

/* Consecutive first touches of a trace: caller then callee, by symbol. */
struct ordering_edge {
	char *caller, *callee;
	unsigned long weight;   /* how often the pair occurs over all traces */
};

struct ordering {
	struct ordering_entry *entries; /* first first */
	size_t count, capacity;
	size_t hot;             /* how many leading entries traces touched */
	size_t head_end;        /* the traced code entries before this one go to the head of the
				   code, those from it on to its end, after the untraced code
				   (at least hot: all at the head) */
	enum ordering_rodata rodata; /* GNU ld: where the traced .rodata goes */
	uint64_t untraced_segment; /* GNU ld: the untraced code in segments of at most this many
				   bytes each (0: in .text, one segment with the rest) */
	char *provenance;       /* one line: what made the order, from what */
	struct ordering_edge *edges; /* in order of first occurrence */
	size_t edge_count, edge_capacity;
	char **shared_names;    /* entries' symbols that a shared library of the link defines too,
				   each once, in order: lld warns about them but orders them */
	size_t shared_name_count, shared_name_capacity;
};

/* Appends an entry for unit (file: its pattern; section NULL: the whole
   unit), copying the strings; returns it, to add symbols to. */
struct ordering_entry *ordering_add(struct ordering *order, const char *unit, const char *file,
				    const char *section);

/* Appends a copy of name to the entry's symbols. */
void ordering_add_symbol(struct ordering_entry *entry, const char *name);

/* Appends a copy of name to the order's shared_names. */
void ordering_add_shared_name(struct ordering *order, const char *name);

/* Frees the record's contents and the record. */
void ordering_free(struct ordering *order);

#endif
