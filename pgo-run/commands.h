/* commands: pgo-run's commands on the store, besides the cycle: status,
   show, clean, and merge (runs made outside pgo-run).  Each returns the
   exit status. */
#ifndef PGO_COMMANDS_H
#define PGO_COMMANDS_H

#include "session.h"

/* pgo-run status: prints the profile of this configuration, its age, the
   sources changed since and the objects without data; 1 when stale or absent. */
int commands_status(const struct pgo_options *options);

/* pgo-run merge: merges the current profile with the profile folders given
   as workloads (weights apply), or with the store's gen/ folder. */
int commands_merge(const struct pgo_options *options);

/* pgo-run clean: removes this configuration's folder (all: the store). */
int commands_clean(const struct pgo_options *options);

/* pgo-run show: the hottest functions of the profile, by entry count. */
int commands_show(const struct pgo_options *options);

#endif
