/* Unit tests of lib/proc.c's plumbing of a child's streams: stdout and
   stderr into one log, or stderr into a log of its own (err_log), to
   /dev/null, captured; stdin from /dev/null or ours; the status of a
   child that exits, is killed, or cannot start. */
#include "proc.h"
#include "unit.h"
#include "util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The whole file at path (a new string; "" when it cannot be read). */
static char *contents(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = xcalloc(4096, 1);

	if (f) {
		size_t got = fread(text, 1, 4095, f);

		text[got] = '\0';
		fclose(f);
	}
	return text;
}

int main(void)
{
	char *folder = unit_folder("test-proc"), *log, *err_log, *text;
	char *both[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *streams[] = { "sh", "-c", "test -p /dev/stdin && echo stdin=pipe; read line; echo \"read=$line\"", NULL };
	struct proc_result result;
	struct proc_request request = { .argv = both, .out = PROC_LOG, .err = PROC_LOG };
	int fds[2];

	if (!folder)
		return UNIT_SKIP;
	log = xasprintf("%s/log", folder);
	err_log = xasprintf("%s/err", folder);

	unit_case("stdout and stderr into one log");
	request.log = log;
	EXPECT_INT(3, proc_exec(&request, &result));
	text = contents(log);
	EXPECT_STR("out\nerr\n", text);
	free(text);
	unlink(log);

	unit_case("stderr into a log of its own");
	request.err_log = err_log;
	EXPECT_INT(3, proc_exec(&request, &result));
	text = contents(log);
	EXPECT_STR("out\n", text);
	free(text);
	text = contents(err_log);
	EXPECT_STR("err\n", text);
	free(text);
	unlink(log);
	unlink(err_log);

	unit_case("only stderr into a log, stdout captured");
	request = (struct proc_request){ .argv = both, .out = PROC_CAPTURE, .err = PROC_LOG, .err_log = err_log };
	EXPECT_INT(3, proc_exec(&request, &result));
	EXPECT_STR("out\n", result.out);
	proc_result_free(&result);
	text = contents(err_log);
	EXPECT_STR("err\n", text);
	free(text);
	CHECK(access(log, F_OK) != 0);

	unit_case("stdin ours (a pipe), and /dev/null");
	CHECK(pipe(fds) == 0);
	CHECK(write(fds[1], "hello\n", 6) == 6);
	close(fds[1]);
	{
		int saved = dup(STDIN_FILENO);

		CHECK(dup2(fds[0], STDIN_FILENO) == STDIN_FILENO);
		close(fds[0]);
		request = (struct proc_request){ .argv = streams, .out = PROC_CAPTURE, .err = PROC_DISCARD };
		EXPECT_INT(0, proc_exec(&request, &result));
		EXPECT_STR("stdin=pipe\nread=hello\n", result.out);
		proc_result_free(&result);
		request.stdin_null = true;
		EXPECT_INT(0, proc_exec(&request, &result));
		EXPECT_STR("read=\n", result.out);
		proc_result_free(&result);
		dup2(saved, STDIN_FILENO);
		close(saved);
	}

	unit_case("a child that cannot start, one killed");
	{
		char *missing[] = { "/nonexistent/linkopt-no-such-program", NULL };
		char *killed[] = { "sh", "-c", "kill -9 $$", NULL };

		request = (struct proc_request){ .argv = missing, .stdin_null = true, .out = PROC_DISCARD,
						 .err = PROC_DISCARD };
		CHECK(proc_exec(&request, &result) < 0);
		request.argv = killed;
		EXPECT_INT(128 + 9, proc_exec(&request, &result));
	}

	unit_case("a log that cannot be opened");
	request = (struct proc_request){ .argv = both, .out = PROC_DISCARD, .err = PROC_LOG,
					 .err_log = "/nonexistent/linkopt/err" };
	CHECK(proc_exec(&request, &result) < 0);

	unlink(err_log);
	rmdir(folder);
	free(log);
	free(err_log);
	free(folder);
	return unit_end("test-proc");
}
