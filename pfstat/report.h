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
	double *floor;             /* [run]: the maximum resident set (KiB) of a forked copy of
				      pfstat that failed to exec, which every run's counts as
				      its own: a run's own below it is not measured */
	double *pages;             /* [run * nfiles + file]: pages read in */
	struct cold_reads *reads;  /* [run * ndevices + device] */
};

/* Room for runs runs of a command over set, in memory that a forked child
   does not get (a run's maximum resident set starts from what its forked
   copy of pfstat holds: this must not grow with the runs). */
void series_init(struct series *s, const char *label, char *const *argv, size_t runs, const struct cold_set *set);

/* How far above the floor a run's maximum resident set must be to be its
   own (KiB): a forked child maps the code it runs before exec in windows of
   16 pages (fault-around), and a run's floor came out between 92 KiB below
   and 164 KiB above the probe's (a program with no resident set of its own,
   240 probes on 2 busy cores). */
#define RSS_FLOOR_MARGIN 256

/* The text report of ns series (1, or 2 with --compare); input says what
   standard input the runs read, or NULL. */
void report_text(const struct series *s, size_t ns, const struct cold_set *set, const char *input);

/* The JSON report, format linkopt-pfstat version 2. */
void report_json(const struct series *s, size_t ns, const struct cold_set *set, const char *input);

#endif
