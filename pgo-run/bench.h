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
   program is not an ELF file or a copy fails; bench_free is needed either
   way. */
bool bench_keep(const struct session *s, const char *which, const struct compiles *built,
		struct bench_copy *copy);

/* Frees what bench_keep allocated. */
void bench_free(struct bench_copy *copy);

/* Checks with the loader that each program loads its own copy of every
   library either build made, then runs --bench with PGO_BIN set to the
   plain and to the PGO program alternately (and LD_LIBRARY_PATH to their
   folders), one warm-up run each and then --runs runs each, and prints
   the medians and the median of the pairwise ratios; returns 0, or 1 when
   the check or a run fails. */
int bench_run(struct session *s, const struct bench_copy *plain, const struct bench_copy *pgo);

#endif
