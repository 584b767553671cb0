/* train: the training runs, every workload against the instrumented build,
   each writing its profile into a folder of its own. */
#ifndef PGO_TRAIN_H
#define PGO_TRAIN_H

#include "session.h"

#include <stdbool.h>

/* Runs the workloads of the options in order, workload N (from 0) writing
   into raw/N; false (with a message) at the first that fails or writes no
   profile data. */
bool train_run(struct session *s, const char *raw);

#endif
