/* compare: two data sets of the same program side by side, per site. */
#ifndef LIKELY_CHECK_COMPARE_H
#define LIKELY_CHECK_COMPARE_H

#include "sites.h"

/* Prints left and right per site (matched by file name, line and
   expression) and returns how many sites both counted with different
   counts. */
size_t compare_print(struct site_table *left, struct site_table *right);

#endif
