/* tree: the instrumented build's outputs in the user's tree.  While a
   cycle has them there the store says so (file "instrumented" in the
   configuration's folder, with the time the build began); a cycle that
   fails or is interrupted removes those that still hold instrumentation,
   so that nothing instrumented looks like a normal build; status reports
   those a killed cycle left. */
#ifndef PGO_TREE_H
#define PGO_TREE_H

#include "compiles.h"
#include "session.h"

#include <stddef.h>

/* Records that the instrumented build that began at started is in the
   tree; dies when it cannot. */
void tree_mark(const struct session *s, long started);

/* Removes the record: the tree holds no instrumented build of ours. */
void tree_unmark(const struct session *s);

/* Removes the objects, programs, libraries and archives the instrumented
   build of the record wrote (its compiler log), and those of known (NULL:
   none; the outputs of an instrumented build that began at known_started,
   as the cycle that ran it read them), that still hold instrumentation,
   printing each, then the record; returns how many it removed. */
size_t tree_remove_instrumented(const struct session *s, const struct compiles *known, long known_started);

/* With a record: prints the outputs of the instrumented build that still
   hold instrumentation ("    instrumented: PATH"); returns how many. */
size_t tree_report(const struct session *s);

/* The paths tree_report prints, as a new array of new strings (*count set);
   NULL when there are none. */
char **tree_instrumented(const struct session *s, size_t *count);

#endif
