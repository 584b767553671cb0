/* session: what every pgo-run command works with: its options, the store
   opened for the configuration they describe (compiler version, flags,
   build command), the build folders, the log folder and the clock. */
#ifndef PGO_SESSION_H
#define PGO_SESSION_H

#include "store.h"
#include "wrapper.h"

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
	const char *build;      /* --build CMD; NULL: make */
	const char *clean;      /* --clean CMD; NULL: make clean */
	const char *bench;      /* --bench CMD; NULL: no benchmark */
	const char *output;     /* --output FILE: the program --bench runs */
	int runs;               /* --runs N for --bench */
	int top;                /* --top N for show */
	bool json;              /* --format=json for status and show */
	bool retrain_if_stale;
	bool no_train;          /* pgo-run build: the optimized build only */
	bool all;               /* clean --all */
	struct workload *workloads;
	size_t nworkloads;
};

/* The compiler family of a configuration: which instrumentation, profile
   files and tools its cycle uses. */
enum pgo_family {
	FAMILY_GCC,   /* gcc: .gcno/.gcda, gcov-tool, gcov-dump */
	FAMILY_CLANG, /* clang: IR instrumentation, .profraw, llvm-profdata */
};

struct session {
	const struct pgo_options *options;
	enum pgo_family family; /* from CC's --version (CXX must agree) */
	char *profdata;   /* clang: the llvm-profdata of CC's own release; NULL for gcc */
	struct store store;
	char *gen_dir;    /* absolute folder of the instrumented build */
	char *use_dir;    /* absolute folder of the plain and optimized builds */
	char *gen_data;   /* the folder compiled into -fprofile-generate= */
	char *logs;
	struct wrapper wrapper; /* with create: the compiler wrapper the builds run with */
	double start;
	double external;  /* seconds spent in builds, workloads and benchmark runs */
};

/* Opens the store for the configuration the options and the environment
   (CC, CFLAGS, LDFLAGS) describe, and tells the compiler family: clang
   when CC's --version says so (then CXX, when set, must be clang too, and
   llvm-profdata of CC's release must be there: false with a message).  With create: creates its folders, takes
   the configuration's lock for the life of the process, removes (saying
   so) what a run killed before it could clean up left in the store, and
   what a fatal() would leave on the way out; resolves the build folders
   (gen_dir and use_dir are NULL without) and writes the compiler wrapper.
   False (with a message) when it cannot; session_close is needed either
   way. */
bool session_open(struct session *s, const struct pgo_options *options, bool create);

/* Takes the project's lock (the store's, beside each configuration's) for
   the life of the process: cycles of two configurations would build in the
   same tree at once.  False (with a message naming the lock and the
   configuration whose cycle holds it) when another pgo-run holds it. */
bool session_lock_project(const struct session *s);

/* For clean: takes the configuration's lock (all: the project's and every
   configuration's) for the life of the process, so that no cycle, build or
   merge runs on what it removes.  False (with a message naming the lock)
   when a pgo-run holds one. */
bool session_lock_to_remove(const struct session *s, bool all);

/* True when a pgo-run holds the configuration's lock: one runs now. */
bool session_busy(const struct session *s);

/* Frees what session_open allocated. */
void session_close(struct session *s);

/* The path of the log called name (logs/name.log), a new string: a new
   empty file with the mode the umask gives, in place of what was there (a
   log of an earlier run, a link); dies when it cannot be created. */
char *session_log(const struct session *s, const char *name);

#endif
