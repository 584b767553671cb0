/* profile: what linkopt-bolt hands BOLT, made from linkopt's traces and
   checked against the binary: the block profile (pagein --branches
   records as BOLT's pre-aggregated format, and fdata files merged with
   weights) and the function order (first touches at start-up, then the
   code the profile ran most). */
#ifndef LINKOPT_BOLT_PROFILE_H
#define LINKOPT_BOLT_PROFILE_H

#include "elfobj.h"
#include "trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The binary BOLT rewrites, with what the checks need. */
struct bolt_binary {
	const char *path;
	struct elf_object elf;
	void *image;
	size_t image_size;
	char build_id[129];
};

/* Opens path as a linked executable or shared library that has a build-id
   and relocations kept by the link (--emit-relocs); 0, or -1 with *why. */
int bolt_binary_open(struct bolt_binary *b, const char *path, char **why);

void bolt_binary_close(struct bolt_binary *b);

/* True when gcc split functions of the binary into a hot part and a
   FUNCTION.cold part (-freorder-blocks-and-partition, the default with
   profile feedback and __builtin_expect). */
bool bolt_binary_has_cold_parts(const struct bolt_binary *b);

/* One input trace and its weight; object is its object with the binary's
   build-id (set by bolt_trace_bind). */
struct bolt_trace {
	const char *path;
	double weight;
	struct trace trace;
	const struct trace_object *object;
};

/* Reads the trace at spec ("FILE" or "FILE:WEIGHT") and finds the binary's
   object in it; with branches, it must hold pagein --branches records for
   it, and without, first function entries.  0, or -1 with *why. */
int bolt_trace_open(struct bolt_trace *t, const char *spec, const struct bolt_binary *b, bool branches,
		    char **why);

void bolt_trace_close(struct bolt_trace *t);

/* Splits "FILE:WEIGHT" (the weight a positive number; 1 without one) into
   a new string for FILE and *weight; NULL with *why when the weight is bad. */
char *bolt_split_weight(const char *spec, double *weight, char **why);

/* Writes BOLT's pre-aggregated profile ("B FROM TO COUNT 0" and "F START
   END COUNT", addresses of the file) of the traces' records that fall in
   binary b, counts times their weights, duplicates summed; *records gets
   the number of lines.  A run (F) through code the linker made (a PLT
   stub, .init) is left out: BOLT 16 counts each as a trace mismatching
   the code (6% of SQLite's, over the 5% that says another build's), and
   lays out no code there.  0, or -1 with *why. */
int bolt_write_preaggregated(const char *path, const struct bolt_binary *b, const struct bolt_trace *traces,
			     size_t count, size_t *records, char **why);

/* One fdata file and its weight, for bolt_merge_fdata. */
struct bolt_fdata {
	const char *path;
	double weight;
};

/* Merges fdata files (BOLT's branch profile: "KIND NAME OFFSET KIND NAME
   OFFSET MISPREDICTS COUNT" lines) into path, the counts of each scaled
   by its weight and the counts of the same branch summed; a line of
   another form, or a sample profile ("no_lbr"), is refused by name and
   line.  *lines gets the number written.  0, or -1 with *why. */
int bolt_merge_fdata(const char *path, const struct bolt_fdata *files, size_t count, size_t *lines, char **why);

/* What bolt_write_order wrote. */
struct bolt_order_stats {
	size_t startup;      /* functions first entered by the start-up traces */
	size_t steady;       /* then the functions the profile ran, most executed bytes first */
	size_t ambiguous;    /* local names several functions share: left to BOLT */
};

/* Writes BOLT's function order (one name per line) to path: the functions
   the start-up traces ran that they do not time, then those they do, in
   the order of their first entry (F records) or, without one, of the first
   code page they touched (C records), the first trace first; then the
   others the profile traces ran, the most executed bytes first.  0, or -1
   with *why. */
int bolt_write_order(const char *path, const struct bolt_binary *b, const struct bolt_trace *startup,
		     size_t nstartup, const struct bolt_trace *profile, size_t nprofile, struct bolt_order_stats *stats,
		     char **why);

#endif
