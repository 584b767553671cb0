/* proc: the commands pgo-run starts (builds, workloads, gcc's profile tools),
   timed, with their output sent where pgo-run wants it. */
#ifndef PGO_PROC_H
#define PGO_PROC_H

#include <stddef.h>

/* One environment setting added to (or replacing one of) pgo-run's own. */
struct proc_env {
	const char *name;
	const char *value;
};

/* Seconds on a monotonic clock, for step timings. */
double proc_now(void);

/* Runs argv (argv[0] found on PATH) in dir (NULL: here) with env added,
   stdout and stderr appended to log (NULL: inherited); returns the exit
   status, 128 + N when killed by signal N, -1 when it could not start.
   *seconds (may be NULL) gets the wall time. */
int proc_run(char *const argv[], const char *dir, const struct proc_env *env,
	     size_t nenv, const char *log, double *seconds);

/* proc_run of `sh -c command`. */
int proc_shell(const char *command, const char *dir, const struct proc_env *env,
	       size_t nenv, const char *log, double *seconds);

/* Runs argv with stdin from /dev/null, stderr discarded, and returns its
   whole stdout (a new string); NULL when it cannot start or exits non-zero. */
char *proc_capture(char *const argv[], const char *dir);

/* Describes a status from proc_run for a message: "exit status 3",
   "killed by signal 9 (Killed)", "could not start"; a new string. */
char *proc_describe(int status);

#endif
