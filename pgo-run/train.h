/* train: the training runs, every workload against the instrumented build,
   each writing its profile into a folder of its own. */
#ifndef PGO_TRAIN_H
#define PGO_TRAIN_H

#include "session.h"

#include <stdbool.h>

/* Checks, before anything runs, that the first word of every workload of
   the options names something sh can run: a script file here, a shell
   builtin or keyword, or a command on PATH.  A word with a '/' is taken on
   trust (the build may make it), and so is one that sh would expand.
   False (with a message) for the first that names nothing. */
bool train_check(const struct pgo_options *options);

/* Runs the workloads of the options in order, workload N (from 0) writing
   into raw/N; false (with a message) at the first that fails, writes no
   profile data, or writes a damaged profile file (empty or cut short), or
   whose log has libgcov saying it could not write one. */
bool train_run(struct session *s, const char *raw);

#endif
