/* wrapper: the compiler wrapper pgo-run puts around every build it runs,
   so that its flags are added to the project's, never put in their place.
   STORE/bin, first on PATH, holds a script for each compiler a build may
   name (cc, gcc, c++, g++; those CC and CXX name, under bin/CC and
   bin/CXX), which runs pgo-cc with the real compiler; the environment of
   a build tells pgo-cc which flags to append and where to log each
   compiler command. */
#ifndef PGO_WRAPPER_H
#define PGO_WRAPPER_H

#include "proc.h"

#include <stdbool.h>
#include <stddef.h>

struct wrapper {
	char *bin;  /* the folder of the scripts */
	char *path; /* PATH for the builds: bin first */
	char *cc;   /* CC for the builds (the user's, wrapped), NULL when unset */
	char *cxx;  /* likewise CXX */
};

/* The most settings wrapper_env fills. */
enum { WRAPPER_ENV = 7 };

/* Writes the scripts into store_root/bin (a script already right is left
   alone) and fills w.  False (with a message) when pgo-cc or a compiler
   cannot be found or a script cannot be written; wrapper_close is needed
   either way. */
bool wrapper_open(struct wrapper *w, const char *store_root);

/* Frees what wrapper_open allocated. */
void wrapper_close(struct wrapper *w);

/* Fills env (room for WRAPPER_ENV) with the settings of a build whose
   compiler commands get flags appended, those that compile (-c) also
   compile_flags (options a link would call unused: clang's -mllvm), and
   are logged to log; returns how many.  The strings stay w's and the
   caller's. */
size_t wrapper_env(const struct wrapper *w, const char *flags, const char *compile_flags, const char *log,
		   struct proc_env *env);

#endif
