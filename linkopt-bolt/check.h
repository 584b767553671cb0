/* check: what linkopt-bolt proves of a rewritten binary by running it,
   besides its structure (lib/loadable.h): that the dynamic loader loads
   and relocates it as it does the input, and that the user's --check
   command does with it what it does with the input, and ran it. */
#ifndef LINKOPT_BOLT_CHECK_H
#define LINKOPT_BOLT_CHECK_H

#include <signal.h>
#include <stdbool.h>

/* How the --check command runs. */
struct check_setup {
	const char *command;       /* --check: %b the binary, %d a folder holding it by soname */
	double timeout;            /* seconds each run may take (--check-timeout); 0: no limit */
	const char *work;          /* the private work folder the runs use */
	const char *name;          /* the binary's file name: the last part of %b */
	const char *soname;        /* its name in %d: the soname, or the file name */
	bool library;              /* a shared library: the proof is that the runs loaded it */
	bool dynamic;              /* started by the dynamic loader (its log is the proof) */
};

/* What one run of the --check command did. */
struct check_run {
	int status;                /* as proc.h gives it */
	bool timed_out;
	double seconds;
	char *output;              /* stdout then stderr */
	char *unproved;            /* why the run does not prove anything of file, or NULL */
};

/* The child running now (its process group), for a signal handler. */
extern volatile sig_atomic_t check_running;

/* Runs the command with file as the binary: %b is the same path both
   times (WORK/check/NAME, a link to file: a program that prints its
   argv[0] prints the same), %d a folder holding it by its soname.  The
   loader's log (LD_DEBUG=files,libs) proves that the run started file (a
   program) or loaded it (a library) and, for a library, no other copy of
   it; run->unproved says what it did instead. */
void check_run(const struct check_setup *setup, const char *file, struct check_run *run);

void check_run_free(struct check_run *run);

/* Loads file (a program or a library) with the dynamic loader interp as
   `ldd -r` does (LD_TRACE_LOADED_OBJECTS, LD_BIND_NOW, LD_WARN): every
   library it needs mapped, every relocation applied and every symbol
   bound, none of its code run (nor its IFUNC resolvers).  Returns the status;
   *output gets what the loader printed, load addresses and file's own
   name taken out, so that two files that load alike print the same. */
int check_load(const char *interp, const char *file, double timeout, char **output);

/* The dynamic loader this program was started by (PT_INTERP), a new
   string, or NULL. */
char *check_own_interpreter(void);

#endif
