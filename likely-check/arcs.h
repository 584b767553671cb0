/* arcs: how often each arc of a coverage build's functions was taken.  The
   graph comes from a notes file (.gcno: blocks, arcs, which arcs carry a
   counter), the counters from the data file (.gcda) of the same code, and
   the arcs without a counter are solved by flow, as gcov does.  gcc 12's
   formats (byte lengths, the header's checksum word). */
#ifndef LIKELY_CHECK_ARCS_H
#define LIKELY_CHECK_ARCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Arc flags of the notes file. */
#define ARCS_ON_TREE 1u  /* no counter: solved from the others */
#define ARCS_FAKE 2u     /* a call that may not return, to the exit block */

struct arcs_arc {
	unsigned int source, destination, flags;
	unsigned long long count;
	bool known;
};

struct arcs_function {
	char *name;
	uint32_t ident, lineno_checksum, cfg_checksum;
	unsigned int block_count;
	struct arcs_arc *arcs;
	size_t arc_count, arc_capacity;
};

struct arcs_object {
	struct arcs_function *functions;
	size_t count, capacity;
};

/* Reads the functions and arcs of the notes file at path into object.
   Returns 0, or -1 with *why set to a newly allocated reason. */
int arcs_read_notes(struct arcs_object *object, const char *path, char **why);

/* Gives every arc of object its count: the counters of the data file at
   path for the arcs that have one, flow for the others.  Returns 0, or -1
   with *why set when the file was written for other code (a function
   missing, other checksums, another number of counters) or its counts do
   not add up (negative, past 2^63, a block that takes more than it
   gives). */
int arcs_read_counts(struct arcs_object *object, const char *path, char **why);

/* The function of object with this (assembler) name, or NULL. */
struct arcs_function *arcs_function(struct arcs_object *object, const char *name);

/* The arc of f from block source to block destination, or NULL. */
const struct arcs_arc *arcs_find(const struct arcs_function *f, unsigned int source,
				 unsigned int destination);

/* Frees what object holds and zeroes it. */
void arcs_free(struct arcs_object *object);

#endif
