/* proc: the toolkit's one way of running another program.  An argument
   vector (a shell only through proc_shell), stdin, stdout and stderr where
   the caller asks, and how the child ended always handed back.

   A status, as every function here returns it: the exit status (0 to 255);
   128 + N when signal N killed the child (the shell's convention, so that a
   command run through sh reads the same); below 0 when the child could not
   be started: minus the errno of the call that failed (opening the log,
   fork, chdir, exec).  Only 0 is success. */
#ifndef LINKOPT_PROC_H
#define LINKOPT_PROC_H

#include <signal.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <stddef.h>

/* One environment setting added to (or replacing one of) ours. */
struct proc_env {
	const char *name;
	const char *value;
};

/* Where a child's stdout or stderr goes. */
enum proc_stream {
	PROC_INHERIT,   /* ours */
	PROC_CAPTURE,   /* into a string of the result */
	PROC_DISCARD,   /* /dev/null */
	PROC_LOG,       /* appended to the request's log file */
	PROC_TO_STDOUT, /* stderr only: where stdout goes, interleaved as written */
};

/* One command to run.  Fields left zero: here, our environment, and our
   own stdin, stdout and stderr. */
struct proc_request {
	char *const *argv;           /* argv[0] is looked up on PATH */
	const char *dir;             /* where it runs; NULL: here */
	const struct proc_env *env;  /* settings added to our environment */
	size_t nenv;
	bool stdin_null;             /* stdin from /dev/null rather than ours */
	enum proc_stream out, err;
	const char *log;             /* the file PROC_LOG appends to */
	const char *err_log;         /* the file stderr's PROC_LOG appends to instead (NULL: log) */
	volatile sig_atomic_t *running; /* the child's pid while it runs, 0 before and after:
					   for a signal handler that passes signals on */
	double timeout;              /* seconds the command may run (0: no limit): then its
					process group (it starts in one of its own) gets
					SIGTERM, and SIGKILL 2 s later if any of it is left */
};

/* What became of a command. */
struct proc_result {
	int status;                  /* as above */
	char *out;                   /* PROC_CAPTURE: all of stdout, NUL-terminated; else NULL */
	char *err;                   /* PROC_CAPTURE: all of stderr; else NULL */
	double seconds;              /* wall time from start to end */
	long pid;                    /* the child's process id; 0 when there was none */
	struct rusage usage;         /* the child's resource use, as wait4 gave it (its
					waited-for descendants included) */
	bool timed_out;              /* ended for the request's timeout */
};

/* Seconds on a monotonic clock, for step timings. */
double proc_now(void);

/* Runs request to its end and fills *result; captured output is kept
   whatever the status (an empty string when the child could not start).
   Returns result->status.  Prints nothing. */
int proc_exec(const struct proc_request *request, struct proc_result *result);

/* Frees the captured output of result. */
void proc_result_free(struct proc_result *result);

/* Runs argv in dir (NULL: here) with env added and our stdin, stdout and
   stderr appended to log (NULL: ours); returns its status.  *seconds (may
   be NULL) gets the wall time. */
int proc_run(char *const argv[], const char *dir, const struct proc_env *env,
	     size_t nenv, const char *log, double *seconds);

/* proc_run of `sh -c command`: the one way to run a shell. */
int proc_shell(const char *command, const char *dir, const struct proc_env *env,
	       size_t nenv, const char *log, double *seconds);

/* Runs argv in dir (NULL: here) with stdin from /dev/null and stderr
   discarded; returns its whole stdout (a new string), or NULL unless its
   status is 0. */
char *proc_capture(char *const argv[], const char *dir);

/* Runs argv with stdin from /dev/null; returns its whole stdout (a new
   string, whatever its status), *status gets its status and *err (NULL:
   stderr discarded) all of its stderr, a new string. */
char *proc_output(char *const argv[], int *status, char **err);

/* The executable name would run as a command: itself when it holds a
   slash, else the first on PATH (a new string); NULL when there is none. */
char *proc_which(const char *name);

/* Describes a status for a message: "exit status 3", "killed by signal 9
   (Killed)", "could not start: No such file or directory"; a new string. */
char *proc_describe(int status);

/* proc_describe of a status, followed in parentheses by the line of the
   child's stderr err (may be NULL) that best says why: the first with
   "error:" in it, else the first that is not blank; a new string. */
char *proc_failure(int status, const char *err);

/* The command argv as one line for messages, words joined by blanks; a new
   string. */
char *proc_command_line(char *const argv[]);

/* Makes SIGINT, SIGTERM and SIGHUP stop the commands rather than this
   process, for a program that must clean up after an interrupted command:
   from the call on, every child starts in a process group of its own (a
   child reading the terminal is then stopped); each such signal is passed
   on to the group of the child running, the first is recorded, and once
   one came proc_exec starts nothing and returns 128 + that signal.  A
   signal ignored when it is called stays ignored. */
void proc_catch_interrupts(void);

/* The first signal proc_catch_interrupts caught, or 0. */
int proc_interrupted(void);

/* Makes the commands unable to outlive this process, for a program that
   may be killed (SIGKILL included) while a command runs: from the call on,
   every child starts in a process group of its own, and a watchdog process
   forked here (it ignores SIGINT, SIGTERM, SIGHUP and SIGQUIT) knows each
   such group while its child runs.  When this process ends while one does,
   however it ends, the watchdog sends the group SIGTERM (make then removes
   the target it was writing), SIGKILL 2 s later if any of it is left, and
   exits; a grandchild that leaves the group (setsid) escapes.  The watchdog
   keeps none of our descriptors (a pipe reading our output, a lock we hold,
   ends with us): the call returns once it has closed them.  Call it before
   the first command that must not outlive us; a second call does nothing.
   0, or -1 with *why set to a new message naming the failing call, or
   saying the watchdog ended before it started (the commands then run
   unwatched). */
int proc_watch_children(char **why);

#endif
