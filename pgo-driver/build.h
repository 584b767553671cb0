/* build: the project's builds, each run as the options say (--clean, then
   --build, or make clean and make) with the flags of its kind, and the
   checks of the optimized build's warnings. */
#ifndef PGO_BUILD_H
#define PGO_BUILD_H

#include "session.h"

#include <stdbool.h>

enum build_kind { BUILD_PLAIN, BUILD_GENERATE, BUILD_USE };

/* Runs the clean command, then the build of kind in dir; *started gets the
   time the build began, after the clean.  False (with a message and the
   log's tail) when either fails. */
bool build_run(struct session *s, enum build_kind kind, const char *dir, long *started);

/* The optimized build in the use folder with the profile in use, built
   again when profile files named after another output had to be matched;
   returns 0, or 1 on a failed build or a finding (coverage mismatches,
   profiles missing unexpectedly), with its messages printed. */
int build_optimized(struct session *s);

#endif
