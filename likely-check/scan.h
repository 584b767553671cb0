/* scan: the hint sites of one translation unit, found in its preprocessed
   text (cc -E -dD) with the source line each came from, and the project
   macros they were expanded from. */
#ifndef LIKELY_CHECK_SCAN_H
#define LIKELY_CHECK_SCAN_H

#include "util.h"

/* One __builtin_expect call found in the preprocessed text. */
struct scan_site {
	char *file;
	unsigned int line;
	char *expression;
	char *expect_text;
	char *function;          /* the function whose body holds it, or "?" */
};

/* The hint sites of one translation unit and the macros defined on the way. */
struct scan {
	struct scan_site *sites;
	size_t count, capacity;
	struct strmap macros;       /* name -> its last #define */
	struct strmap source_lines; /* file name -> its lines, read when first asked */
};

/* Fills scan (its old contents are not freed) with every __builtin_expect
   call of text, the output of cc -E -dD, and the macros it defines. */
void scan_text(struct scan *scan, const char *text);

/* Returns the project macro site was expanded from, as a new "NAME
   (file:line of its definition)", or NULL for a plain hint or when the
   site's source line cannot be read. */
char *scan_site_macro(struct scan *scan, const struct scan_site *site);

/* Frees the sites, the macros and the source lines that scan holds. */
void scan_free(struct scan *scan);

#endif
