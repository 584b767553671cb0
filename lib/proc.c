#define _GNU_SOURCE
#include "proc.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* proc_catch_interrupts: whether it was called, the first signal caught,
   and the process group of the child running (0: none). */
static bool catching;
static volatile sig_atomic_t caught;
static volatile pid_t running_group;

/* proc_watch_children: our end of the socket to the watchdog, -1 before. */
static int watch_fd = -1;

/* What the watchdog is told: '+' a child's group that runs, '-' one that
   ended.  One message a packet (SOCK_SEQPACKET), so none is ever split. */
struct watch_message {
	char op;
	pid_t group;
};

static int high_fd(int fd);

/* Whether every child starts in a process group of its own. */
static bool own_groups(void)
{
	return catching || watch_fd >= 0;
}

static void pass_on(int sig)
{
	pid_t group = running_group;

	if (!caught)
		caught = sig;
	if (group > 0)
		kill(-group, sig);
}

void proc_catch_interrupts(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = pass_on;
	sigemptyset(&sa.sa_mask);
	/* a signal ignored from the start (nohup, a background job) stays so */
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old;

		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(signals[i], &sa, NULL);
	}
	catching = true;
}

int proc_interrupted(void)
{
	return caught;
}

/* Tells the watchdog of a group; async-signal-safe (the child registers
   itself before exec).  A watchdog gone is no reason to fail a command. */
static void watch_tell(char op, pid_t group)
{
	struct watch_message m = { .op = op, .group = group };

	if (watch_fd < 0)
		return;
	while (send(watch_fd, &m, sizeof(m), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* True while any process of group is alive. */
static bool group_alive(pid_t group)
{
	return kill(-group, 0) == 0 || errno == EPERM;
}

/* The watchdog: records the groups it is told of until the socket closes,
   which it does when the process that forked it ends (every other copy of
   its end is closed on exec), then ends what is left of them. */
static void watchdog(int fd)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	pid_t groups[64];
	size_t n = 0, i, k;
	int round;

	/* a signal to the whole job is for the process we watch, which
	   passes it on; we go when it goes */
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	for (;;) {
		struct watch_message m;
		ssize_t got = recv(fd, &m, sizeof(m), 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got != (ssize_t)sizeof(m))
			break;
		if (m.op == '+' && n < sizeof(groups) / sizeof(groups[0])) {
			groups[n++] = m.group;
		} else if (m.op == '-') {
			for (i = k = 0; i < n; i++)
				if (groups[i] != m.group)
					groups[k++] = groups[i];
			n = k;
		}
	}
	/* SIGTERM first, so that make removes the target it was writing and
	   the compiler its output; SIGCONT, for a stopped group */
	for (i = 0; i < n; i++) {
		kill(-groups[i], SIGTERM);
		kill(-groups[i], SIGCONT);
	}
	for (round = 0; round < 20; round++) {
		bool any = false;

		for (i = 0; i < n; i++)
			any = any || group_alive(groups[i]);
		if (!any)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	for (i = 0; i < n; i++)
		kill(-groups[i], SIGKILL);
	_exit(0);
}

/* In the watchdog: closes every descriptor but fd, which it returns (moved
   to 3), and points stdin, stdout and stderr at /dev/null: a pipe reading
   our output, or a lock we hold, ends when we do, not when it does. */
static int keep_only(int fd)
{
	int null, i;

	if (fd != 3 && dup2(fd, 3) == 3)
		fd = 3;
	null = open("/dev/null", O_RDWR);
	for (i = 0; i <= STDERR_FILENO && null >= 0; i++)
		if (i != fd)
			dup2(null, i);
	if (close_range(fd + 1, ~0U, 0) < 0)
		for (i = fd + 1; i < 1024; i++)
			close(i);
	return fd;
}

int proc_watch_children(char **why)
{
	int fds[2];
	pid_t pid;

	if (watch_fd >= 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0) {
		*why = xasprintf("socketpair failed: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		*why = xasprintf("fork failed: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		struct watch_message ready = { .op = 'r' };
		int fd;

		close(fds[0]);
		fd = keep_only(fds[1]);
		while (send(fd, &ready, sizeof(ready), MSG_NOSIGNAL) < 0 && errno == EINTR)
			;
		watchdog(fd);
	}
	close(fds[1]);
	/* until the watchdog has closed its copies of our descriptors, a lock
	   we hold would outlive us: the next run would find it taken */
	for (;;) {
		struct watch_message ready;
		ssize_t got = recv(fds[0], &ready, sizeof(ready), 0);

		if (got == (ssize_t)sizeof(ready))
			break;
		if (got < 0 && errno == EINTR)
			continue;
		*why = got < 0 ? xasprintf("the watchdog's first message: %s", strerror(errno))
			       : xasprintf("the watchdog ended before it started");
		close(fds[0]);
		return -1;
	}
	watch_fd = high_fd(fds[0]);
	if (watch_fd < 0) {
		*why = xasprintf("fcntl failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

double proc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Our environment with the request's settings in place, built before fork
   because setenv in the child is not async-signal-safe; NULL when there
   is nothing to change. */
static char **child_environment(const struct proc_env *env, size_t nenv)
{
	size_t count = 0, n = 0, i, k;
	char **list;

	if (nenv == 0)
		return NULL;
	while (environ[count])
		count++;
	list = xcalloc(count + nenv + 1, sizeof(*list));
	for (i = 0; i < count; i++) {
		bool replaced = false;

		for (k = 0; k < nenv && !replaced; k++) {
			size_t len = strlen(env[k].name);

			replaced = !strncmp(environ[i], env[k].name, len) && environ[i][len] == '=';
		}
		if (!replaced)
			list[n++] = xstrdup(environ[i]);
	}
	for (k = 0; k < nenv; k++)
		list[n++] = xasprintf("%s=%s", env[k].name, env[k].value);
	return list;
}

static void free_list(char **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/* Moves fd above stdin, stdout and stderr (keeping close-on-exec), so that
   setting up the child's 0, 1 and 2 never overwrites one it still needs;
   -1 with errno set on failure. */
static int high_fd(int fd)
{
	int moved, e;

	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	e = errno;
	close(fd);
	errno = e;
	return moved;
}

struct capture {
	int fd;                      /* read end of the pipe; -1 once at its end */
	char *data;
	size_t len, capacity;
};

/* Milliseconds from now to deadline (a proc_now time; 0: none) for poll:
   -1 without a deadline, 0 once it passed. */
static int until(double deadline)
{
	double left;

	if (deadline <= 0)
		return -1;
	left = deadline - proc_now();
	return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

/* Reads the captured streams until both are at their end, or deadline (a
   proc_now time; 0: none) passed: false then, the streams left open; poll,
   so that a child filling one pipe while we wait on the other cannot
   stall. */
static bool read_captures(struct capture *c, int n, double deadline)
{
	struct pollfd fds[2];
	struct capture *of[2];
	int i, k, ready;

	for (;;) {
		for (i = k = 0; i < n; i++) {
			if (c[i].fd >= 0) {
				fds[k] = (struct pollfd){ .fd = c[i].fd, .events = POLLIN };
				of[k++] = &c[i];
			}
		}
		if (k == 0)
			return true;
		ready = poll(fds, k, until(deadline));
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (ready == 0)
			return false;
		for (i = 0; i < k; i++) {
			struct capture *x = of[i];
			ssize_t got;

			if (!fds[i].revents)
				continue;
			grow_array(&x->data, &x->capacity, x->len + 65536, 1);
			got = read(x->fd, x->data + x->len, x->capacity - x->len - 1);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				close(x->fd);
				x->fd = -1;
				continue;
			}
			x->len += got;
		}
	}
	for (i = 0; i < n; i++) {
		if (c[i].fd >= 0)
			close(c[i].fd);
		c[i].fd = -1;
	}
	return true;
}

static char *capture_string(struct capture *c)
{
	grow_array(&c->data, &c->capacity, c->len + 1, 1);
	c->data[c->len] = '\0';
	return c->data;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* What a child is given besides argv: /dev/null, the log, the write ends
   of the capture pipes (our read ends in capture), and the pipe on which
   it reports a failed start.  -1: not opened. */
struct plumbing {
	int null, log, err_log;      /* err_log: the request's err_log, stderr's */
	int pipe[2];                 /* write ends for stdout, stderr */
	int report[2];
	struct capture capture[2];   /* stdout, stderr */
};

/* The descriptor that becomes a child's stdout (which 0) or stderr (1);
   -1: it keeps ours. */
static int child_fd(enum proc_stream how, const struct plumbing *p, int which)
{
	switch (how) {
	case PROC_DISCARD:
		return p->null;
	case PROC_LOG:
		return which == 1 && p->err_log >= 0 ? p->err_log : p->log;
	case PROC_CAPTURE:
		return p->pipe[which];
	case PROC_INHERIT:
	case PROC_TO_STDOUT:
		break;
	}
	return -1;
}

/* In the child: only async-signal-safe calls until exec.  A failure writes
   its errno to the report pipe, which the parent reads as "could not
   start". */
static void child_start(const struct proc_request *rq, char **envp, const struct plumbing *p)
{
	int out = child_fd(rq->out, p, 0), err = child_fd(rq->err, p, 1), e;

	if ((own_groups() || rq->timeout > 0) && setpgid(0, 0) < 0)
		goto failed;
	/* before exec, so that no window leaves a group the watchdog does not
	   know of: until then this copy of the socket keeps it open */
	watch_tell('+', getpid());
	if (rq->dir && chdir(rq->dir) < 0)
		goto failed;
	if (rq->stdin_null && dup2(p->null, STDIN_FILENO) < 0)
		goto failed;
	if (out >= 0 && dup2(out, STDOUT_FILENO) < 0)
		goto failed;
	if (rq->err == PROC_TO_STDOUT) {
		if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
			goto failed;
	} else if (err >= 0 && dup2(err, STDERR_FILENO) < 0) {
		goto failed;
	}
	if (envp)
		environ = envp;
	execvp(rq->argv[0], rq->argv);
failed:
	e = errno;
	while (write(p->report[1], &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/* Opens what the request needs, every descriptor above 2 and closed on
   exec; -1 with errno set on failure. */
static int plumbing_open(struct plumbing *p, const struct proc_request *rq)
{
	enum proc_stream how[2] = { rq->out, rq->err };
	int i, fds[2];

	if (rq->stdin_null || rq->out == PROC_DISCARD || rq->err == PROC_DISCARD) {
		p->null = high_fd(open("/dev/null", O_RDWR | O_CLOEXEC));
		if (p->null < 0)
			return -1;
	}
	if (rq->out == PROC_LOG || (rq->err == PROC_LOG && !rq->err_log)) {
		if (!rq->log) {
			errno = EINVAL;
			return -1;
		}
		p->log = high_fd(open(rq->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
		if (p->log < 0)
			return -1;
	}
	if (rq->err == PROC_LOG && rq->err_log) {
		p->err_log = high_fd(open(rq->err_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
		if (p->err_log < 0)
			return -1;
	}
	for (i = 0; i < 2; i++) {
		if (how[i] != PROC_CAPTURE)
			continue;
		if (pipe2(fds, O_CLOEXEC) < 0)
			return -1;
		p->capture[i].fd = fds[0];
		p->pipe[i] = high_fd(fds[1]);
		if (p->pipe[i] < 0)
			return -1;
	}
	if (pipe2(p->report, O_CLOEXEC) < 0)
		return -1;
	p->report[1] = high_fd(p->report[1]);
	return p->report[1] < 0 ? -1 : 0;
}

/* Closes our copies of what the child was given. */
static void plumbing_close_child_side(struct plumbing *p)
{
	close_fd(&p->null);
	close_fd(&p->log);
	close_fd(&p->err_log);
	close_fd(&p->pipe[0]);
	close_fd(&p->pipe[1]);
	close_fd(&p->report[1]);
}

/* Waits for pid until deadline (0: none); true when it ended (*status,
   *usage filled), false when the deadline passed; -errno in *status when
   wait4 fails. */
static bool wait_until(pid_t pid, double deadline, int *status, struct rusage *usage)
{
	for (;;) {
		pid_t got = wait4(pid, status, deadline > 0 ? WNOHANG : 0, usage);

		if (got == pid)
			return true;
		if (got < 0 && errno != EINTR) {
			*status = -errno;
			return true;
		}
		if (got == 0) {
			if (until(deadline) == 0)
				return false;
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		}
	}
}

/* The timeout: SIGTERM to the child's group (SIGCONT, for a stopped one),
   then 2 s for it to end and close its pipes, then SIGKILL, then 2 s more
   for the pipes (a grandchild that left the group may hold them: they are
   given up). */
static void end_group(pid_t pid, struct plumbing *p, int *status, struct rusage *usage, bool *waited)
{
	kill(-pid, SIGTERM);
	kill(-pid, SIGCONT);
	if (!read_captures(p->capture, 2, proc_now() + 2) || !(*waited = wait_until(pid, proc_now() + 2, status, usage))) {
		kill(-pid, SIGKILL);
		read_captures(p->capture, 2, proc_now() + 2);
	}
}

/* After fork: the child's errno if it could not start, else 0; then its
   output, then its end; timeout (seconds, 0: none) bounds the whole. */
static int child_status(pid_t pid, struct plumbing *p, struct rusage *usage, double timeout, bool *timed_out)
{
	double deadline = timeout > 0 ? proc_now() + timeout : 0;
	int start_errno = 0, status = 0;
	bool waited = false;
	ssize_t got;

	while ((got = read(p->report[0], &start_errno, sizeof(start_errno))) < 0 && errno == EINTR)
		;
	if (got != sizeof(start_errno))
		start_errno = 0;
	if (!read_captures(p->capture, 2, deadline) || !(waited = wait_until(pid, deadline, &status, usage))) {
		*timed_out = true;
		end_group(pid, p, &status, usage, &waited);
	}
	if (!waited) {
		while (wait4(pid, &status, 0, usage) < 0) {
			if (errno != EINTR)
				return -errno;
		}
	} else if (status < 0) {
		return status;
	}
	if (start_errno)
		return -start_errno;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int proc_exec(const struct proc_request *rq, struct proc_result *result)
{
	struct plumbing p = {
		.null = -1, .log = -1, .err_log = -1, .pipe = { -1, -1 }, .report = { -1, -1 },
		.capture = { { .fd = -1 }, { .fd = -1 } },
	};
	char **envp = NULL;
	pid_t pid = -1;

	memset(result, 0, sizeof(*result));
	result->seconds = proc_now();
	errno = 0;
	if (caught) {
		result->status = 128 + caught;
		result->out = rq->out == PROC_CAPTURE ? xstrdup("") : NULL;
		result->err = rq->err == PROC_CAPTURE ? xstrdup("") : NULL;
		result->seconds = 0;
		return result->status;
	}
	if (plumbing_open(&p, rq) == 0) {
		envp = child_environment(rq->env, rq->nenv);
		/* What we buffered must come out before what the child writes there. */
		if (rq->out == PROC_INHERIT || rq->err == PROC_INHERIT || rq->err == PROC_TO_STDOUT) {
			fflush(stdout);
			fflush(stderr);
		}
		pid = fork();
		if (pid == 0)
			child_start(rq, envp, &p);
		/* the child does the same: whichever runs first, the group
		   exists before a signal is passed on to it */
		if (pid > 0 && (own_groups() || rq->timeout > 0)) {
			setpgid(pid, pid);
			running_group = pid;
			if (caught)
				kill(-pid, caught);
		}
	}
	if (pid < 0)
		result->status = -(errno ? errno : EINVAL);
	free_list(envp);
	plumbing_close_child_side(&p);
	if (pid > 0) {
		result->pid = pid;
		if (rq->running)
			*rq->running = pid;
		result->status = child_status(pid, &p, &result->usage, rq->timeout, &result->timed_out);
		if (rq->running)
			*rq->running = 0;
		watch_tell('-', pid);
	}
	running_group = 0;
	close_fd(&p.report[0]);
	close_fd(&p.capture[0].fd);
	close_fd(&p.capture[1].fd);
	if (rq->out == PROC_CAPTURE)
		result->out = capture_string(&p.capture[0]);
	if (rq->err == PROC_CAPTURE)
		result->err = capture_string(&p.capture[1]);
	result->seconds = proc_now() - result->seconds;
	return result->status;
}

void proc_result_free(struct proc_result *result)
{
	free(result->out);
	free(result->err);
	result->out = result->err = NULL;
}

int proc_run(char *const argv[], const char *dir, const struct proc_env *env,
	     size_t nenv, const char *log, double *seconds)
{
	struct proc_request rq = {
		.argv = argv, .dir = dir, .env = env, .nenv = nenv, .log = log,
		.out = log ? PROC_LOG : PROC_INHERIT, .err = log ? PROC_LOG : PROC_INHERIT,
	};
	struct proc_result result;

	proc_exec(&rq, &result);
	if (seconds)
		*seconds = result.seconds;
	return result.status;
}

int proc_shell(const char *command, const char *dir, const struct proc_env *env,
	       size_t nenv, const char *log, double *seconds)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };

	return proc_run(argv, dir, env, nenv, log, seconds);
}

char *proc_capture(char *const argv[], const char *dir)
{
	struct proc_request rq = {
		.argv = argv, .dir = dir, .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_DISCARD,
	};
	struct proc_result result;

	if (proc_exec(&rq, &result) != 0)
		proc_result_free(&result);
	return result.out;
}

char *proc_output(char *const argv[], int *status, char **err)
{
	struct proc_request rq = {
		.argv = argv, .stdin_null = true, .out = PROC_CAPTURE, .err = err ? PROC_CAPTURE : PROC_DISCARD,
	};
	struct proc_result result;

	*status = proc_exec(&rq, &result);
	if (err)
		*err = result.err;
	return result.out;
}

char *proc_describe(int status)
{
	if (status < 0)
		return xasprintf("could not start: %s", strerror(-status));
	if (status > 128 && status < 128 + 65)
		return xasprintf("killed by signal %d (%s)", status - 128, strsignal(status - 128));
	return xasprintf("exit status %d", status);
}

/* The line of text (NUL-terminated) that best says why a child failed:
   the first with "error:" in it (GNU tools write "PROG: error: ..." and
   "fatal error:"), else the first that is not blank; NULL if
   every line is blank.  Returns its start and sets *len. */
static const char *telling_line(const char *text, size_t *len)
{
	const char *line, *first = NULL;
	size_t first_len = 0;

	for (line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *p;
		size_t n = end ? (size_t)(end - line) : strlen(line);
		bool blank = true;

		for (p = line; p < line + n; p++)
			blank = blank && isspace((unsigned char)*p);
		if (!blank) {
			for (p = line; p + 6 <= line + n; p++) {
				if (!strncasecmp(p, "error:", 6)) {
					*len = n;
					return line;
				}
			}
			if (!first) {
				first = line;
				first_len = n;
			}
		}
		line = end ? end + 1 : NULL;
	}
	*len = first_len;
	return first;
}

char *proc_failure(int status, const char *err)
{
	char *text = proc_describe(status), *more;
	size_t len = 0;
	const char *line = err ? telling_line(err, &len) : NULL;

	if (!line)
		return text;
	while (len > 0 && isspace((unsigned char)line[len - 1]))
		len--;
	more = xasprintf("%s (%.*s)", text, (int)len, line);
	free(text);
	return more;
}

char *proc_command_line(char *const argv[])
{
	size_t len = 1, i;
	char *line, *p;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	p = line = xmalloc(len);
	for (i = 0; argv[i]; i++)
		p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
	*p = '\0';
	return line;
}

char *proc_which(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return access(name, F_OK) == 0 ? xstrdup(name) : NULL;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		found = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (access(found, X_OK) != 0) {
			free(found);
			found = NULL;
		}
	}
	free(copy);
	return found;
}
