#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double proc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* In the child: only async-signal-safe calls until exec; a failure exits 127
   (the shell's "cannot run") after saying why. */
static void child_setup(const char *dir, const struct proc_env *env, size_t nenv,
			int out_fd, int err_fd)
{
	size_t i;

	if (dir && chdir(dir) < 0) {
		fprintf(stderr, "%s: %s: cannot enter folder: %s\n", progname, dir, strerror(errno));
		_exit(127);
	}
	for (i = 0; i < nenv; i++)
		setenv(env[i].name, env[i].value, 1);
	if (out_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (err_fd >= 0)
		dup2(err_fd, STDERR_FILENO);
}

int proc_run(char *const argv[], const char *dir, const struct proc_env *env,
	     size_t nenv, const char *log, double *seconds)
{
	double start = proc_now();
	int fd = -1, status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (log) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0) {
			error("%s: cannot open log: %s", log, strerror(errno));
			return -1;
		}
	}
	pid = fork();
	if (pid < 0) {
		error("%s: cannot start: %s", argv[0], strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (pid == 0) {
		child_setup(dir, env, nenv, fd, fd);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: cannot run: %s\n", progname, argv[0], strerror(errno));
		_exit(127);
	}
	if (fd >= 0)
		close(fd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			error("%s: cannot wait: %s", argv[0], strerror(errno));
			return -1;
		}
	}
	if (seconds)
		*seconds = proc_now() - start;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int proc_shell(const char *command, const char *dir, const struct proc_env *env,
	       size_t nenv, const char *log, double *seconds)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };

	return proc_run(argv, dir, env, nenv, log, seconds);
}

char *proc_capture(char *const argv[], const char *dir)
{
	int pipefd[2], status, devnull;
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(pipefd) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return NULL;
	}
	if (pid == 0) {
		devnull = open("/dev/null", O_RDWR);
		close(pipefd[0]);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		child_setup(dir, NULL, 0, pipefd[1], devnull);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	buf = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(pipefd[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *proc_describe(int status)
{
	if (status < 0)
		return xstrdup("could not start");
	if (status > 128 && status < 128 + 65)
		return xasprintf("killed by signal %d (%s)", status - 128, strsignal(status - 128));
	return xasprintf("exit status %d", status);
}
