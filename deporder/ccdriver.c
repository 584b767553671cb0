/* ccdriver: the linker command a compiler driver would run, from -###. */
#include "linkcmd.h"
#include "linkmodel.h"
#include "proc.h"

#include <stdlib.h>
#include <string.h>

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

/* The end of the -### line at line: its first newline outside double
   quotes (an argument with a newline in it is printed with it), or NULL. */
static char *end_of_line(char *line)
{
	bool quoted = false;
	char *p;

	for (p = line; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == '\\' && quoted && p[1])
			p++;
		else if (*p == '\n' && !quoted)
			return p;
	}
	return NULL;
}

/* The linker command in the -### output of a compiler driver: its last
   linker line, argv[0] dropped; *compiles notes a compiler proper. */
static char **linker_line(char *output, int *argc_out, bool *compiles)
{
	char *line, *next, **result = NULL;
	int i;

	for (line = output; line && *line; line = next) {
		char **args;
		int n;

		next = end_of_line(line);
		if (next)
			*next++ = '\0';
		if (line[0] != ' ')
			continue;
		args = split_quoted(line, &n);
		if (n > 0 && is_compiler_proper(args[0]))
			*compiles = true;
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
	return result;
}

/* libtool (and tools like it) run the link they are given, -### or not,
   and replace its outputs: refuse them before anything runs. */
static bool runs_the_link(char **cc_argv)
{
	const char *base = strrchr(cc_argv[0], '/');
	int i;

	base = base ? base + 1 : cc_argv[0];
	for (i = 1; cc_argv[i]; i++)
		if (!strncmp(cc_argv[i], "--mode=", 7) || !strncmp(cc_argv[i], "--tag=", 6))
			break;
	if (strncmp(base, "libtool", 7) && !cc_argv[i])
		return false;
	/* "/bin/bash ./libtool --mode=link ...", as make prints it */
	if (strncmp(base, "libtool", 7) && cc_argv[1] && strstr(cc_argv[1], "libtool"))
		base = cc_argv[1];
	else
		base = cc_argv[0];
	error("--cc: '%s' is libtool, which runs the link it is given instead of printing it: give the compiler "
	      "command of its 'libtool: link:' line (libtool prints it while it links)", base);
	return true;
}

char **ccdriver_link_args(char **cc_argv, int *argc_out)
{
	char **result, **argv, *why;
	bool compiles = false;
	struct proc_request rq = { .stdin_null = true, .out = PROC_CAPTURE, .err = PROC_TO_STDOUT };
	struct proc_result run;
	size_t n, capacity;

	if (runs_the_link(cc_argv))
		return NULL;
	/* With @FILE, gcc -### names a response file of its own for the
	   linker, removed when it exits: the driver is given the words. */
	argv = linkcmd_expand(cc_argv, &why);
	if (!argv) {
		error("--cc: %s", why);
		free(why);
		return NULL;
	}
	n = (size_t)linkcmd_count(argv);
	capacity = n + 1;
	argv[n++] = xstrdup("-###"); /* in the NULL's place */
	*ARRAY_PUSH(argv, n, capacity) = NULL;
	rq.argv = argv;
	/* The driver prints its commands on stderr; taken together with
	   stdout, in the order written, as a shell's 2>&1 would. */
	if (proc_exec(&rq, &run) != 0) {
		char *failure = proc_failure(run.status, run.out);

		error("--cc: '%s -###' failed: %s; is it a compiler driver, and is the command right?", cc_argv[0],
		      failure);
		free(failure);
		proc_result_free(&run);
		linkcmd_free(argv);
		return NULL;
	}
	linkcmd_free(argv);
	result = linker_line(run.out, argc_out, &compiles);
	proc_result_free(&run);
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
	char *argv[] = { (char *)cc, "-print-prog-name=ld", NULL };
	char *err, *out, *result;
	int status;

	out = proc_output(argv, &status, &err);
	out[strcspn(out, "\n")] = '\0';
	if (status != 0) {
		char *failure = proc_failure(status, err);

		warn("--cc: '%s -print-prog-name=ld' failed: %s; taking ld as the linker", cc, failure);
		free(failure);
	}
	result = xstrdup(status == 0 && out[0] ? out : "ld");
	free(out);
	free(err);
	return result;
}
