/* bench: the plain and the PGO program of one cycle, run alternately by
   the --bench command. */
#ifndef PGO_BENCH_H
#define PGO_BENCH_H

#include "session.h"

/* Copies the program the last build wrote (--output, relative to the use
   folder) into the store's bench/which/ folder, where the next build
   cannot replace it; returns the copy's path.  Dies when it cannot. */
char *bench_keep_output(const struct session *s, const char *which);

/* Runs --bench with PGO_BIN set to plain and to pgo alternately, one
   warm-up run each and then --runs runs each, and prints the medians and
   the median of the pairwise ratios; returns 0, or 1 when a run fails. */
int bench_run(struct session *s, const char *plain, const char *pgo);

#endif
