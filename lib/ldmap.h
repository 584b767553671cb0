/* ldmap: the input sections a linker's -Map file places, with their output
   address and size: how a traced address becomes (file, input section).
   Reads the maps of GNU ld, gold, lld and mold. */
#ifndef LINKOPT_LDMAP_H
#define LINKOPT_LDMAP_H

#include <stddef.h>
#include <stdint.h>

struct ldmap_section {
	char *file;            /* as ld names it: path, or archive(member); blanks, tabs and
				  newlines in it too (ld writes them as they are) */
	char *name;            /* input section name */
	char *output;          /* output section it went to */
	uint64_t address, size;
	size_t symbol_first, symbol_count; /* the symbols the map lists under it: map->symbols[first...] */
};

/* A symbol the map lists under its input section (ld lists the global
   ones with their final address). */
struct ldmap_symbol {
	char *name;
	uint64_t address;
};

/* Which linker wrote a map: each has its own layout. */
enum ldmap_format {
	LDMAP_GNU_LD, /* "Linker script and memory map", ends with OUTPUT(...) */
	LDMAP_GOLD,   /* GNU ld's layout under "Memory map", no OUTPUT */
	LDMAP_LLD,    /* a table: "VMA LMA Size Align Out In Symbol", hex */
	LDMAP_MOLD,   /* a table: "VMA Size Align Out In Symbol", sizes in decimal */
};

/* The file name a map gives what the linker made itself (lld's
   "<internal>", and the output sections mold lists with no input). */
#define LDMAP_INTERNAL "<internal>"

struct ldmap {
	enum ldmap_format format;
	struct ldmap_section *sections; /* by address */
	size_t count, capacity;
	struct ldmap_symbol *symbols;   /* in map order */
	size_t symbol_count, symbol_capacity;
	char **outputs;                 /* OUTPUT(NAME FORMAT) statements' NAMEs, in order: one
					   per link (GNU ld's maps only: the others name no
					   output, output_count is 0) */
	size_t output_count, output_capacity;
	size_t map_headers;             /* "Linker script and memory map" lines: one per link */
};

/* Reads a map file: GNU ld's "Linker script and memory map" part, gold's
   "Memory map", lld's or mold's table; input sections of size 0 are left
   out; a loaded output section of which the map lists no input section
   (mold's merged strings, PLT, GOT) becomes one of file LDMAP_INTERNAL.
   Returns 0, or -1 with *why set: also for a GNU ld map cut short (no
   OUTPUT line, which ld writes last) and for one file holding several
   links (a parallel build that gave every link the same -Map file), which
   would mix the links' addresses. */
int ldmap_read(const char *path, struct ldmap *map, char **why);

/* The name of the linker that writes maps of format: "GNU ld", "gold",
   "lld", "mold". */
const char *ldmap_format_name(enum ldmap_format format);

/* path with "." and "dir/.." taken out and "//" made "/", as mold writes
   the paths of its inputs: a new string. */
char *ldmap_normal_path(const char *path);

/* The input section holding address, or NULL. */
const struct ldmap_section *ldmap_find(const struct ldmap *map, uint64_t address);

/* Index of the first input section that ends after address (map->count
   if none): the start of a walk over the sections from address on. */
size_t ldmap_index_from(const struct ldmap *map, uint64_t address);

/* Frees what ldmap_read allocated. */
void ldmap_free(struct ldmap *map);

#endif
