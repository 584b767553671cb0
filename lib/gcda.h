/* gcda: whether a gcov data file (.gcda) is whole, as libgcov ends one.
   gcov and gcc read a file cut short (a run killed while libgcov wrote it,
   a full disk) as zero counts and say nothing; this walk of its records
   catches it. */
#ifndef LINKOPT_GCDA_H
#define LINKOPT_GCDA_H

/* Returns 0 when the file at path is a complete .gcda: the header, then
   records that each fit in the file, then the zero word libgcov ends it
   with.  Otherwise -1 with *why set to a newly allocated reason. */
int gcda_check(const char *path, char **why);

#endif
