/* gcda: whether a gcov data file (.gcda) is whole, as libgcov ends one.
   gcov and gcc read a file cut short (a run killed while libgcov wrote it,
   a full disk) as zero counts and say nothing; this walk of its records
   catches it. */
#ifndef LINKOPT_GCDA_H
#define LINKOPT_GCDA_H

#include <stdbool.h>
#include <stdint.h>

/* Returns 0 when the file at path is a complete .gcda: the header, then
   records that each fit in the file, then the zero word libgcov ends it
   with.  Otherwise -1 with *why set to a newly allocated reason. */
int gcda_check(const char *path, char **why);

/* Whether a gcov file's version word (as read, "B22*" for 12.2) is gcc
   12's or later: a checksum word in the header, record lengths in bytes. */
bool gcda_version_12_or_later(uint32_t version);

#endif
