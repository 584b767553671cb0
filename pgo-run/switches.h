/* switches: the options gcc recorded in each output of a build (pgo-run
   compiles with -frecord-gcc-switches, which writes them to the section
   .GCC.command.line), and the proof drawn from them that the instrumented
   and the optimized builds compiled with the plain build's options, the
   profile flags aside. */
#ifndef PGO_SWITCHES_H
#define PGO_SWITCHES_H

#include "compiles.h"

#include <stdbool.h>
#include <stddef.h>

struct switches_entry {
	char *key;     /* the output, relative to its build folder */
	char **lines;  /* the option lines it records, sorted, each once */
	size_t nlines;
};

struct switches {
	struct switches_entry *items;
	size_t count;
};

/* Reads the options recorded in the objects and linked files of c that
   exist, keyed by their path relative to dir; a file that records none
   (assembled, or not built by gcc) is left out. */
void switches_read(const struct compiles *c, const char *dir, struct switches *s);

/* Frees what switches_read or switches_load allocated. */
void switches_free(struct switches *s);

/* Writes s to path (through a temporary and rename); 0, or -1 with *why
   set to a new message. */
int switches_save(const struct switches *s, const char *path, char **why);

/* Reads what switches_save wrote; 0, or -1 with *why set (s is empty). */
int switches_load(const char *path, struct switches *s, char **why);

/* Compares the outputs of build (the build called name, run in dir) with
   the same outputs of the plain build (run in plain_dir), the profile
   flags set aside; prints a message for each that differs (the first few)
   naming the options only one of them used.  Returns how many differ;
   *compared gets how many outputs both recorded. */
size_t switches_compare(const struct switches *build, const char *name, const char *dir,
			const struct switches *plain, const char *plain_dir, size_t *compared);

/* How many outputs of s compiled nothing with optimization: every compile
   that went into it at -O0 (the last -O option, or none); names gets the
   first max of them. */
size_t switches_unoptimized(const struct switches *s, const char **names, size_t max);

/* True when the file at path records instrumentation for profiles
   (-fprofile-generate): an object or a program of an instrumented build,
   or an archive with such an object in it. */
bool switches_instrumented(const char *path);

#endif
