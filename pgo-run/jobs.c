#define _GNU_SOURCE
#include "jobs.h"
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The children this process had before it ran a command: not ours to end. */
static pid_t *own_children;
static size_t nown_children;
static bool started;

/* The parent of process pid as /proc says; 0 when it cannot be read (it
   has ended). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	int fd;
	ssize_t n;
	long ppid;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "PID (NAME) STATE PPID ...": NAME may hold blanks and parentheses */
	close_paren = strrchr(buf, ')');
	if (!close_paren || sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

static bool is_own(pid_t pid)
{
	size_t i;

	for (i = 0; i < nown_children; i++)
		if (own_children[i] == pid)
			return true;
	return false;
}

/* Our children but those we had before any command, running or ended and
   not yet waited for; *pids a new array.  A child stays ours, its id
   unused by any other process, until we wait for it: the ids are safe to
   signal. */
static size_t children(pid_t **pids)
{
	DIR *dir = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid();
	size_t n = 0, cap = 0;

	*pids = NULL;
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		char *end;
		long pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid == self || is_own((pid_t)pid) || parent_of((pid_t)pid) != self)
			continue;
		*ARRAY_PUSH(*pids, n, cap) = (pid_t)pid;
	}
	closedir(dir);
	return n;
}

int jobs_start(char **why)
{
	if (started)
		return 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		*why = xasprintf("prctl(PR_SET_CHILD_SUBREAPER) failed: %s", strerror(errno));
		return -1;
	}
	nown_children = children(&own_children);
	started = true;
	return 0;
}

/* "PID (NAME)" of the process pid, a new string. */
static char *describe(pid_t pid)
{
	char path[64], name[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
	}
	name[strcspn(name, "\n")] = '\0';
	return xasprintf("%ld (%s)", (long)pid, *name ? name : "?");
}

static void pause_briefly(void)
{
	nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
}

/* Waits for those of pids that have ended; returns how many run on, moved
   to the front of pids. */
static size_t reap(pid_t *pids, size_t n)
{
	size_t i, k = 0;
	int status;

	for (i = 0; i < n; i++) {
		pid_t got = waitpid(pids[i], &status, WNOHANG);

		if (got == 0)
			pids[k++] = pids[i];
	}
	return k;
}

enum { NAMES_SHOWN = 5 };

/* Ends what the last command left running: after grace seconds for it to
   end by itself, SIGTERM (and SIGCONT, for a stopped one) to each, and
   SIGKILL to what is left 2 s later; a process of theirs that their end
   orphans comes to us and goes the same way. */
static void end_leftovers(double grace, struct jobs_left *left)
{
	double start = proc_now(), terminated = 0;
	pid_t *pids, *signalled = NULL;
	size_t n, nsignalled = 0, cap = 0, i, k;
	char *names = NULL;

	memset(left, 0, sizeof(*left));
	if (!started)
		return;
	for (;;) {
		n = children(&pids);
		n = reap(pids, n);
		if (n == 0 || (proc_now() - start > 10 && terminated)) {
			if (n)
				warn("cannot end %zu process%s a command left running", n, n == 1 ? "" : "es");
			free(pids);
			break;
		}
		if (!terminated && proc_now() - start < grace) {
			free(pids);
			pause_briefly();
			continue;
		}
		if (!terminated)
			terminated = proc_now();
		for (i = 0; i < n; i++) {
			bool known = false;

			for (k = 0; k < nsignalled && !known; k++)
				known = signalled[k] == pids[i];
			if (!known) {
				if (left->count < NAMES_SHOWN) {
					char *one = describe(pids[i]);
					char *more = xasprintf("%s%s%s", names ? names : "", names ? ", " : "", one);

					free(one);
					free(names);
					names = more;
				}
				left->count++;
				kill(pids[i], SIGTERM);
				kill(pids[i], SIGCONT);
				*ARRAY_PUSH(signalled, nsignalled, cap) = pids[i];
			}
			if (proc_now() - terminated > 2)
				kill(pids[i], SIGKILL);
		}
		free(pids);
		pause_briefly();
	}
	free(signalled);
	if (names && left->count > NAMES_SHOWN) {
		char *more = xasprintf("%s, ...", names);

		free(names);
		names = more;
	}
	left->names = names;
	left->seconds = proc_now() - start;
}

int jobs_run(char *const argv[], const char *dir, const struct proc_env *env, size_t nenv, const char *log,
	     double *seconds, struct jobs_left *left)
{
	struct proc_request rq = {
		.argv = argv, .dir = dir, .env = env, .nenv = nenv, .stdin_null = true, .log = log,
		.out = log ? PROC_LOG : PROC_INHERIT, .err = log ? PROC_LOG : PROC_INHERIT,
	};
	struct proc_result result;

	proc_exec(&rq, &result);
	if (seconds)
		*seconds = result.seconds;
	end_leftovers(proc_interrupted() ? 0 : 1, left);
	return result.status;
}

int jobs_shell(const char *command, const char *dir, const struct proc_env *env, size_t nenv,
	       const char *log, double *seconds, struct jobs_left *left)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };

	return jobs_run(argv, dir, env, nenv, log, seconds, left);
}

void jobs_left_free(struct jobs_left *left)
{
	free(left->names);
	memset(left, 0, sizeof(*left));
}
