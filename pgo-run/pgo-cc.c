/* pgo-cc: pgo-run's compiler wrapper.  Run as pgo-cc COMPILER [ARG]...,
   it runs COMPILER ARG... with the words of PGO_RUN_CFLAGS appended, after
   adding the command to the file PGO_RUN_LOG; without those variables it
   runs COMPILER ARG... unchanged, so that a build folder configured with
   it (CMake keeps the compiler's path) still builds outside pgo-run.
   PGO_RUN_BIN, the folder of pgo-run's wrapper scripts, is taken off PATH
   for the compiler, so that nothing it runs finds the wrapper again.

   The log holds one record per command: its length in decimal and a
   newline, then the folder the command ran in, the compiler and each
   argument as the build gave them, each followed by a NUL byte.  A record
   goes out in one write() to a file opened with O_APPEND, so the records
   of parallel compiles never mix. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Appends one record for the command argv (count words) run in the
   current folder to the log; dies when it cannot, since pgo-run's checks
   would miss the command. */
static void log_command(const char *log, char **argv, int count)
{
	char cwd[PATH_MAX], *record, *p;
	size_t payload, head, i;
	int fd;
	ssize_t written;

	if (!getcwd(cwd, sizeof(cwd)))
		fatal("getcwd failed: %s", strerror(errno));
	payload = strlen(cwd) + 1;
	for (i = 0; i < (size_t)count; i++)
		payload += strlen(argv[i]) + 1;
	record = xmalloc(payload + 32);
	head = (size_t)snprintf(record, 32, "%zu\n", payload);
	p = record + head;
	memcpy(p, cwd, strlen(cwd) + 1);
	p += strlen(cwd) + 1;
	for (i = 0; i < (size_t)count; i++) {
		memcpy(p, argv[i], strlen(argv[i]) + 1);
		p += strlen(argv[i]) + 1;
	}
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		fatal("%s: open failed: %s", log, strerror(errno));
	written = write(fd, record, head + payload);
	if (written != (ssize_t)(head + payload))
		fatal("%s: write failed: %s", log, written < 0 ? strerror(errno) : "short write");
	if (close(fd) < 0)
		fatal("%s: close failed: %s", log, strerror(errno));
	free(record);
}

/* PATH without the folder bin; a new string. */
static char *path_without(const char *path, const char *bin)
{
	char *out = xmalloc(strlen(path) + 1), *q = out;
	const char *p = path;

	for (;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n != strlen(bin) || strncmp(p, bin, n) != 0) {
			if (q != out)
				*q++ = ':';
			memcpy(q, p, n);
			q += n;
		}
		if (!end)
			break;
		p = end + 1;
	}
	*q = '\0';
	return out;
}

int main(int argc, char **argv)
{
	const char *flags = getenv("PGO_RUN_CFLAGS"), *log = getenv("PGO_RUN_LOG");
	const char *compile_flags = getenv("PGO_RUN_COMPILE_CFLAGS");
	const char *bin = getenv("PGO_RUN_BIN"), *path = getenv("PATH");
	char **args, *words = NULL, *more = NULL, *word, *save = NULL;
	int n = 0, i;
	bool compiles = false;

	progname = "pgo-cc";
	if (argc < 2)
		fatal("usage: pgo-cc COMPILER [ARG]... (pgo-run's compiler wrapper, see pgo-run(1))");
	if (log && *log)
		log_command(log, argv + 1, argc - 1);
	args = xcalloc(argc + (flags ? strlen(flags) / 2 + 1 : 0) +
			       (compile_flags ? strlen(compile_flags) / 2 + 1 : 0) + 1, sizeof(*args));
	for (i = 1; i < argc; i++) {
		args[n++] = argv[i];
		compiles |= !strcmp(argv[i], "-c");
	}
	if (flags) {
		words = xstrdup(flags);
		for (word = strtok_r(words, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
			args[n++] = word;
	}
	if (compile_flags && compiles) {
		more = xstrdup(compile_flags);
		for (word = strtok_r(more, " \t\n", &save); word; word = strtok_r(NULL, " \t\n", &save))
			args[n++] = word;
	}
	args[n] = NULL;
	if (bin && *bin && path && setenv("PATH", path_without(path, bin), 1) < 0)
		fatal("setenv failed: %s", strerror(errno));
	execvp(args[0], args);
	fatal("%s: cannot run the compiler: %s", args[0], strerror(errno));
}
