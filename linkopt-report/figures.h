/* figures: what the report reads from deporder's output files (the match
   rate an emitted order records, the match rate and the whole-function
   bound deporder prints) and the run's figures given as options. */
#ifndef LINKOPT_REPORT_FIGURES_H
#define LINKOPT_REPORT_FIGURES_H

#include <stdbool.h>

/* The match rate (percent) an order deporder emitted from traces records
   on its first line (", matched P%").  Returns 0, or -1 with *why set
   (new) when the file cannot be read or records none. */
int figures_read_order(const char *path, double *match_rate, char **why);

/* From deporder's messages of a run with --trace (its stderr, saved): the
   lowest match rate of the traces ("... matched an input section of the
   link (P%)") and the whole-function bound in pages ("... at least N pages
   of ... (the whole-function bound)"); *has_rate and *has_bound say which
   were there.  Returns 0, or -1 with *why set (new) when the file cannot
   be read or holds neither. */
int figures_read_log(const char *path, double *match_rate, bool *has_rate, double *bound, bool *has_bound,
		     char **why);

/* A duration: a number followed by s, ms or us ("5.2ms", "0.8 s"); true
   with *seconds set, false when text is not one. */
bool figures_parse_time(const char *text, double *seconds);

#endif
