/* report: the per-site table of how often each hint was right. */
#ifndef LIKELY_CHECK_REPORT_H
#define LIKELY_CHECK_REPORT_H

#include "sites.h"

enum report_format { REPORT_TEXT, REPORT_JSON };

struct report_options {
	enum report_format format;
	double threshold;  /* mark sites wrong more than this percent; < 0: none */
	double fail_over;  /* percent; < 0: no gate */
};

/* Prints the report of table on stdout; returns the number of sites wrong
   more than options->fail_over percent (0 without the gate). */
size_t report_print(struct site_table *table, const struct report_options *options);

#endif
