/* unit: the harness of the C unit tests under tests/unit/.  A check that
   fails prints file:line, the case being run (unit_case), what was
   expected and what came, on stderr, and counts as a failure; checking
   goes on.  A test program ends with return unit_end("test-NAME"): exit
   status 0 when every check passed, 1 otherwise; it returns UNIT_SKIP
   (77) itself when it cannot run here, after saying why. */
#ifndef LINKOPT_UNIT_H
#define LINKOPT_UNIT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_SKIP 77

static int unit_checks, unit_failures;
static const char *unit_case_name;

/* Names the case (a table row) the next failures belong to; NULL: none. */
static inline void unit_case(const char *name)
{
	unit_case_name = name;
}

/* Counts a failure and starts its report: "file:line: [case] what". */
static inline void unit_fail_head(const char *file, int line, const char *what)
{
	unit_failures++;
	fprintf(stderr, "%s:%d: ", file, line);
	if (unit_case_name)
		fprintf(stderr, "[%s] ", unit_case_name);
	fprintf(stderr, "%s", what);
}

/* Prints s as a block, each line behind "    |"; says so when the last
   line has no newline. */
static inline void unit_print_block(const char *s)
{
	const char *line = s, *next;

	if (!s) {
		fprintf(stderr, "    (null)\n");
		return;
	}
	if (!*s) {
		fprintf(stderr, "    (empty)\n");
		return;
	}
	while (*line) {
		next = strchr(line, '\n');
		fprintf(stderr, "    |%.*s\n", next ? (int)(next - line) : (int)strlen(line), line);
		if (!next) {
			fprintf(stderr, "    (no newline at the end)\n");
			return;
		}
		line = next + 1;
	}
}

/* The work of CHECK, EXPECT_INT and EXPECT_STR: true when the check passed. */
static inline bool unit_check(bool ok, const char *file, int line, const char *cond)
{
	unit_checks++;
	if (!ok) {
		unit_fail_head(file, line, "check failed: ");
		fprintf(stderr, "%s\n", cond);
	}
	return ok;
}

static inline bool unit_expect_int(const char *file, int line, const char *what, long long expected,
				   long long actual)
{
	unit_checks++;
	if (expected == actual)
		return true;
	unit_fail_head(file, line, what);
	fprintf(stderr, ": expected %lld, got %lld\n", expected, actual);
	return false;
}

static inline bool unit_expect_str(const char *file, int line, const char *what, const char *expected,
				   const char *actual)
{
	unit_checks++;
	if (expected == actual || (expected && actual && !strcmp(expected, actual)))
		return true;
	unit_fail_head(file, line, what);
	if (expected && actual && !strchr(expected, '\n') && !strchr(actual, '\n')) {
		fprintf(stderr, ":\n  expected \"%s\"\n  got      \"%s\"\n", expected, actual);
		return false;
	}
	fprintf(stderr, ":\n  expected:\n");
	unit_print_block(expected);
	fprintf(stderr, "  got:\n");
	unit_print_block(actual);
	return false;
}

/* Each check is an expression, true when it passed, so that a check can
   guard those that make sense only after it: if (CHECK(p)) EXPECT_INT(3, p->n).
   CHECK(condition): the condition must hold. */
#define CHECK(cond) unit_check((cond), __FILE__, __LINE__, #cond)
/* EXPECT_INT(expected, actual): integers (signed or unsigned, up to 63 bits). */
#define EXPECT_INT(expected, actual) \
	unit_expect_int(__FILE__, __LINE__, #actual, (long long)(expected), (long long)(actual))
/* EXPECT_STR(expected, actual): strings, either may be NULL. */
#define EXPECT_STR(expected, actual) unit_expect_str(__FILE__, __LINE__, #actual, (expected), (actual))

/* A new private folder for the test's files, under $TMPDIR (or /tmp):
   its path, newly allocated, or NULL after saying why. */
static inline char *unit_folder(const char *program)
{
	const char *tmp = getenv("TMPDIR");
	size_t size = strlen(tmp && *tmp ? tmp : "/tmp") + strlen(program) + 32;
	char *path = malloc(size);

	if (!path)
		return NULL;
	snprintf(path, size, "%s/linkopt-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", program);
	if (!mkdtemp(path)) {
		fprintf(stderr, "%s: cannot create a folder like '%s': %s\n", program, path, strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

/* The summary line on stdout and the exit status. */
static inline int unit_end(const char *program)
{
	printf("%s: %d checks, %d failed\n", program, unit_checks, unit_failures);
	fflush(stdout);
	return unit_failures ? 1 : 0;
}

#endif
