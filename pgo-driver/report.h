/* report: the lines pgo-run prints about its steps (on stdout, each step's
   lines starting "[step]") and about a profile. */
#ifndef PGO_REPORT_H
#define PGO_REPORT_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/* Prints "[name] " and the formatted message as one line and flushes, so
   the steps show in order with the output of the commands they run. */
void report_step(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the last lines of the file log on stderr, indented. */
void report_log_tail(const char *log, int lines);

/* A duration for people: "42 s", "5 min", "3 h", "2 days" (in a buffer
   the next call reuses). */
const char *report_age(long seconds);

/* Prints "    no data: OBJECT" for each object of meta without data. */
void report_no_data(const struct store_meta *meta);

/* The step line that counts the objects of meta with and without data,
   under label, then report_no_data (a check, not an error: no workload ran
   their code, or they belong to a program no workload runs). */
void report_objects(const char *label, const struct store_meta *meta);

/* Prints "    changed since training: SOURCE" for each source of meta
   whose content changed (or that vanished) since training; returns how
   many. */
size_t report_stale_sources(const struct store_meta *meta);

/* True when source i of meta changed (or vanished) since training. */
bool report_source_changed(const struct store_meta *meta, size_t i);

/* An object of meta as the build folder names it (a static buffer). */
const char *report_object_path(const char *name);

#endif
