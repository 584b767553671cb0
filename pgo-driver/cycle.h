/* cycle: the steps of pgo-run (plain, instrumented and optimized builds,
   training runs, merge, checks, benchmark) and the store commands. */
#ifndef PGO_CYCLE_H
#define PGO_CYCLE_H

#include "store.h"

#include <stdbool.h>
#include <stddef.h>

struct workload {
	const char *command; /* a shell command, run in pgo-run's folder */
	double weight;
};

struct pgo_options {
	const char *store_path; /* --store (default .pgo) */
	const char *gen_dir;    /* --gen-dir: where the instrumented build runs */
	const char *use_dir;    /* --use-dir: where the plain and optimized builds run */
	const char *build;      /* --build CMD; NULL: make PGO_CFLAGS=… PGO_LDFLAGS=… */
	const char *clean;      /* --clean CMD; NULL: make clean */
	const char *bench;      /* --bench CMD; NULL: no benchmark */
	const char *output;     /* --output FILE: the program --bench runs */
	int runs;               /* --runs N for --bench */
	int top;                /* --top N for show */
	bool retrain_if_stale;
	bool no_train;          /* pgo-run build: the optimized build only */
	bool all;               /* clean --all */
	struct workload *workloads;
	size_t nworkloads;
};

/* The whole cycle; returns the exit status (0, 1 on a failed step or a
   finding such as coverage-mismatch warnings). */
int cycle_run(const struct pgo_options *options);

/* pgo-run status: prints the profile of this configuration, its age, the
   sources changed since and the objects without data; 1 when stale or absent. */
int cycle_status(const struct pgo_options *options);

/* pgo-run merge: merges the current profile with the profile folders given
   as workloads (weights apply), or with the store's gen/ folder. */
int cycle_merge(const struct pgo_options *options);

/* pgo-run clean: removes this configuration's folder (all: the store). */
int cycle_clean(const struct pgo_options *options);

/* pgo-run show: the hottest functions of the profile, by entry count. */
int cycle_show(const struct pgo_options *options);

#endif
