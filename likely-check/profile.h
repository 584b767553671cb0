/* profile: hint sites and their counts from a --coverage build, without the
   header: the sites through the preprocessor, the counts from gcov. */
#ifndef LIKELY_CHECK_PROFILE_H
#define LIKELY_CHECK_PROFILE_H

#include "sites.h"

struct profile_options {
	const char *cc;      /* compiler driver used for -E */
	const char *cflags;  /* preprocessor flags, split at blanks */
	const char *objdir;  /* gcov -o: where the .gcno/.gcda are; NULL: beside */
	bool macros_only;    /* only note which project macro each site comes from */
};

/* Adds the hint sites of one translation unit to table: counted from gcov's
   branch counts where a site's line holds exactly its one condition,
   otherwise with a reason; notes the project macro of each site that comes
   from one.  Returns 0, or -1 after printing why. */
int profile_source(struct site_table *table, const char *source,
		   const struct profile_options *options);

#endif
