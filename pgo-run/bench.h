/* bench: the plain and the PGO program of one cycle, each kept aside with
   the shared libraries its build made, and run alternately by the --bench
   command, each loading its own build's libraries. */
#ifndef PGO_BENCH_H
#define PGO_BENCH_H

#include "compiles.h"
#include "session.h"

#include <stdbool.h>
#include <stddef.h>

/* One build's program and libraries, kept in the store. */
struct bench_copy {
	char *dir;       /* the store's bench/WHICH folder */
	char *program;   /* dir/NAME: the copy of --output */
	char **sonames;  /* the shared libraries the build made, copied as dir/SONAME */
	size_t nsonames;
};

/* Copies the program the last build wrote (--output, relative to the use
   folder) and every shared library with a soname the build linked (its
   compiler commands, built) into the store's bench/which/ folder, where
   the next build cannot replace them.  False (with a message) when the
   program is not an ELF file, when the build (which began at since) did
   not write it (no compiler command linked it and it is older), or a copy
   fails; bench_free is needed either way. */
bool bench_keep(const struct session *s, const char *which, const struct compiles *built, long since,
		struct bench_copy *copy);

/* Frees what bench_keep allocated. */
void bench_free(struct bench_copy *copy);

/* Checks with the loader that each program loads its own copy of every
   library either build made, then runs --bench with the plain and with
   the PGO program, one warm-up run each and then --runs runs each, in
   pairs whose first build takes turns, each as PGO_BIN=bench/run/NAME
   with LD_LIBRARY_PATH bench/run (a link to the folder of the build that
   runs); prints each run's time, the medians and the speedup that follows
   from them, and writes them into bench/times.json.  Returns 0, or 1 when
   the check fails, or a run fails, leaves a process running or does not
   read PGO_BIN. */
int bench_run(struct session *s, const struct bench_copy *plain, const struct bench_copy *pgo);

#endif
