/* cycle: one whole PGO cycle, stage after stage: with --bench a plain
   build kept aside, the instrumented build, the training runs, the merge
   and install of their profile, the optimized build and the benchmark. */
#ifndef PGO_CYCLE_H
#define PGO_CYCLE_H

#include "session.h"

/* The whole cycle (pgo-run WORKLOAD..., or with no_train pgo-run build);
   returns the exit status: 0, or 1 on a failed step or a finding such as
   coverage-mismatch warnings. */
int cycle_run(const struct pgo_options *options);

#endif
