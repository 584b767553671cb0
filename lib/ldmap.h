/* ldmap: the input sections a GNU ld -Map file places, with their output
   address and size: how a traced address becomes (file, input section). */
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

struct ldmap {
	struct ldmap_section *sections; /* by address */
	size_t count, capacity;
	struct ldmap_symbol *symbols;   /* in map order */
	size_t symbol_count, symbol_capacity;
	char **outputs;                 /* OUTPUT(NAME FORMAT) statements' NAMEs, in order: one
					   per link */
	size_t output_count, output_capacity;
	size_t map_headers;             /* "Linker script and memory map" lines: one per link */
};

/* Reads the "Linker script and memory map" part of a map file; input
   sections of size 0 are left out.  Returns 0, or -1 with *why set: also
   for a map cut short (no OUTPUT line, which ld writes last) and for one
   file holding several links (a parallel build that gave every link the
   same -Map file), which would mix the links' addresses. */
int ldmap_read(const char *path, struct ldmap *map, char **why);

/* The input section holding address, or NULL. */
const struct ldmap_section *ldmap_find(const struct ldmap *map, uint64_t address);

/* Index of the first input section that ends after address (map->count
   if none): the start of a walk over the sections from address on. */
size_t ldmap_index_from(const struct ldmap *map, uint64_t address);

/* Frees what ldmap_read allocated. */
void ldmap_free(struct ldmap *map);

#endif
