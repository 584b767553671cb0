/* jobs: how a cycle runs the commands it is given (clean and build
   commands, workloads, benchmark runs): stdin from /dev/null, so that no
   command reads what was meant for pgo-run or for the next one; stdout
   and stderr appended to a log; and nothing a command started outliving
   it.  pgo-run is the child subreaper of what it runs: a process a command
   leaves running (a background job, which ignores SIGINT; a daemon that
   forked and left its session) becomes pgo-run's child when its parent
   ends, and is ended when the command ends, however it ends.  Only pgo-run
   killed with SIGKILL lets it escape: the watchdog of proc.h then ends the
   commands' process groups, and a process that left its group outlives
   pgo-run. */
#ifndef PGO_JOBS_H
#define PGO_JOBS_H

#include "proc.h"

#include <stdbool.h>
#include <stddef.h>

/* What a command left running when it ended. */
struct jobs_left {
	size_t count;   /* processes it left, all ended since */
	char *names;    /* "PID (NAME), ..." of the first ones, a new string; NULL when none */
	double seconds; /* the time it took to end them */
};

/* Makes this process the reaper of the orphans of what it runs, and
   records the children it has now (the watchdog), which are no command's.
   Call once, after proc_watch_children; 0, or -1 with *why set to a new
   message (commands then run as before: what they leave runs on). */
int jobs_start(char **why);

/* Runs argv in dir (NULL: here) with env added, stdin from /dev/null and
   stdout and stderr appended to log; *seconds (may be NULL) gets its wall
   time.  Then ends what it left running and says so in *left
   (jobs_left_free it): a process still running 1 s after the command
   ended (at once after an interruption) gets SIGTERM, and SIGKILL 2 s
   later.  Returns the command's status, as proc_exec does. */
int jobs_run(char *const argv[], const char *dir, const struct proc_env *env, size_t nenv, const char *log,
	     double *seconds, struct jobs_left *left);

/* jobs_run of `sh -c command`. */
int jobs_shell(const char *command, const char *dir, const struct proc_env *env, size_t nenv,
	       const char *log, double *seconds, struct jobs_left *left);

/* Frees what jobs_run set in left. */
void jobs_left_free(struct jobs_left *left);

#endif
