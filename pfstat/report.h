/* report: what the runs of a measurement gave, kept run by run, and its
   text and JSON reports: medians, minimum and maximum of each figure, the
   ratio of a --compare command's medians to the first's, and every run's
   figures so that a median can be checked. */
#ifndef PFSTAT_REPORT_H
#define PFSTAT_REPORT_H

#include "cold.h"

#include <stdbool.h>
#include <stddef.h>

/* What one run measured, besides its cold files. */
enum { MINFLT, MAJFLT, MAXRSS, UTIME, STIME, WALL, METRICS };

/* The runs of one command. */
struct series {
	const char *label;         /* the command as sh would read it */
	char *const *argv;         /* what ran */
	size_t count;              /* runs measured */
	double *values[METRICS];   /* [run] */
	size_t *order;             /* [run]: its place among every run (1 first) */
	double *pages;             /* [run * nfiles + file]: pages read in */
	struct cold_reads *reads;  /* [run * ndevices + device] */
};

/* Room for runs runs of a command over set. */
void series_init(struct series *s, const char *label, char *const *argv, size_t runs, const struct cold_set *set);

/* The text report of ns series (1, or 2 with --compare); input says what
   standard input the runs read, or NULL. */
void report_text(const struct series *s, size_t ns, const struct cold_set *set, const char *input);

/* The JSON report, format linkopt-pfstat version 2. */
void report_json(const struct series *s, size_t ns, const struct cold_set *set, const char *input);

#endif
