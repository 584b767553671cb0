/* steps: the lines pgo-run prints about its steps (on stdout, each step's
   lines starting "[step]") and about a profile. */
#ifndef PGO_STEPS_H
#define PGO_STEPS_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>

/* Prints "[name] " and the formatted message as one line and flushes, so
   the steps show in order with the output of the commands they run. */
void steps_step(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints the last lines of the file log on stderr, indented. */
void steps_log_tail(const char *log, int lines);

/* A duration for people: "42 s", "5 min", "3 h", "2 days" (in a buffer
   the next call reuses). */
const char *steps_age(long seconds);

/* Prints "    no data: OBJECT" for each object of meta without data. */
void steps_no_data(const struct store_meta *meta);

/* The step line that counts the objects of meta with and without data,
   under label, then steps_no_data (a check, not an error: no workload ran
   their code, or they belong to a program no workload runs). */
void steps_objects(const char *label, const struct store_meta *meta);

/* True when meta records no source for its objects (gcov-dump failed at
   training): whether a source changed cannot be told, and the profile
   counts as stale. */
bool steps_sources_unknown(const struct store_meta *meta);

/* Prints "    changed since training: SOURCE" for each source of meta
   whose content changed (or that vanished) since training; returns how
   many, or 1 (with a line saying so) when the sources are unknown. */
size_t steps_stale_sources(const struct store_meta *meta);

/* True when source i of meta changed (or vanished) since training. */
bool steps_source_changed(const struct store_meta *meta, size_t i);

/* An object of meta as the build folder names it (a static buffer). */
const char *steps_object_path(const char *name);

#endif
