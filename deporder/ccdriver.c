/* ccdriver: the linker command a compiler driver would run, from -###. */
#include "linkmodel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Splits one line of -### output: each argument in double quotes, with \"
   and \\ escaped; unquoted words are taken as they are. */
static char **split_quoted(const char *line, int *count)
{
	char **args = NULL;
	size_t n = 0, cap = 0;
	const char *p = line;

	for (;;) {
		char *buf, *q;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		buf = xmalloc(strlen(p) + 1);
		q = buf;
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				*q++ = *p;
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				*q++ = *p++;
		}
		*q = '\0';
		*ARRAY_PUSH(args, n, cap) = buf;
	}
	*ARRAY_PUSH(args, n, cap) = NULL;
	*count = (int)n - 1;
	return args;
}

static bool is_linker(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "collect2") || !strcmp(base, "ld") || !strncmp(base, "ld.", 3) ||
	       (strlen(base) > 3 && !strcmp(base + strlen(base) - 3, "-ld"));
}

static bool is_compiler_proper(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "cc1") || !strcmp(base, "cc1plus") || !strcmp(base, "as") ||
	       !strcmp(base, "f951") || !strcmp(base, "cc1obj");
}

char **ccdriver_link_args(char **cc_argv, int *argc_out)
{
	int pipefd[2], status, cc_argc = 0;
	pid_t pid;
	FILE *f;
	char *line = NULL, **result = NULL, **argv;
	size_t linecap = 0;
	bool compiles = false;

	while (cc_argv[cc_argc])
		cc_argc++;
	argv = xcalloc(cc_argc + 2, sizeof(*argv));
	memcpy(argv, cc_argv, cc_argc * sizeof(*argv));
	argv[cc_argc] = "-###";
	if (pipe(pipefd) < 0)
		fatal("--cc: pipe failed: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		fatal("--cc: fork failed: %s", strerror(errno));
	if (pid == 0) {
		dup2(pipefd[1], 2);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "exec failed: %s\n", strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (getline(&line, &linecap, f) > 0) {
		char **args;
		int n, i;

		if (line[0] != ' ')
			continue;
		args = split_quoted(line, &n);
		if (n > 0 && is_compiler_proper(args[0]))
			compiles = true;
		if (n > 0 && is_linker(args[0])) {
			if (result) {
				for (i = 0; result[i]; i++)
					free(result[i]);
				free(result);
			}
			free(args[0]);
			memmove(args, args + 1, n * sizeof(*args));
			result = args;
			*argc_out = n - 1;
			continue;
		}
		for (i = 0; i < n; i++)
			free(args[i]);
		free(args);
	}
	free(line);
	fclose(f);
	free(argv);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		error("--cc: '%s -###' failed (%s %d): is it a compiler driver, and is the command right?",
		      cc_argv[0], WIFEXITED(status) ? "exit status" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return NULL;
	}
	if (compiles) {
		error("--cc: the command compiles sources; compile them first (-c) and give the link of the objects");
		return NULL;
	}
	if (!result) {
		error("--cc: '%s -###' shows no linker command (was -c, -S or -E given?)", cc_argv[0]);
		return NULL;
	}
	return result;
}

char *ccdriver_linker(const char *cc)
{
	char *cmd = xasprintf("'%s' -print-prog-name=ld 2>/dev/null", cc), line[4096];
	FILE *p = strchr(cc, '\'') ? NULL : popen(cmd, "r");
	char *result = NULL;

	free(cmd);
	if (p) {
		if (fgets(line, sizeof(line), p)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0])
				result = xstrdup(line);
		}
		pclose(p);
	}
	return result ? result : xstrdup("ld");
}
