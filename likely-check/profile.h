/* profile: hint sites and their counts from a --coverage build, without the
   header: the sites through the preprocessor, the branch on each from gcc's
   own view (a compile of ours), its counts from the build's .gcda. */
#ifndef LIKELY_CHECK_PROFILE_H
#define LIKELY_CHECK_PROFILE_H

#include "sites.h"

struct profile_options {
	const char *cc;      /* the coverage build's compiler driver */
	const char *cflags;  /* its flags, split at blanks */
	const char *objdir;  /* as gcov -o: where the .gcda are; NULL: beside */
	bool macros_only;    /* only note which project macro each site comes from */
};

/* Adds the hint sites of one translation unit to table: counted from the
   arcs of the branch on each (the expected value's, the other), or with
   the reason there is none; notes the project macro of each site that
   comes from one.  Returns 0, or -1 after printing why the source's counts
   cannot be taken (the table is partial then). */
int profile_source(struct site_table *table, const char *source,
		   const struct profile_options *options);

#endif
