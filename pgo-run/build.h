/* build: the project's builds, each run as the options say (--clean, then
   --build, or make clean and make) through the compiler wrapper, which
   adds the flags of its kind to every compiler command, and the checks of
   the optimized build's warnings. */
#ifndef PGO_BUILD_H
#define PGO_BUILD_H

#include "compiles.h"
#include "session.h"

#include <stdbool.h>

enum build_kind { BUILD_PLAIN, BUILD_GENERATE, BUILD_USE };

/* Runs the clean command, then the build of kind in dir; *started gets the
   time the build began, after the clean, and *out what its compiler
   commands wrote, also when the build failed (compiles_free it whatever
   the result).  False (with a
   message and the log's tail) when either fails, or when no compiler
   command went through the wrapper. */
bool build_run(struct session *s, enum build_kind kind, const char *dir, long *started, struct compiles *out);

/* The optimized build in the use folder with the profile in use, built
   again when profile files named after another output had to be matched;
   *out gets what its compiler commands wrote (compiles_free it whatever
   the result), *started the time its last build began.  Returns 0, or 1 on a failed build or a finding (coverage
   mismatches, profiles missing unexpectedly), with its messages printed. */
int build_optimized(struct session *s, struct compiles *out, long *started);

#endif
