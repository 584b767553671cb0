/* run: the workload under pagein (traced) and the check line natively. */
#define _GNU_SOURCE
#include "startup.h"

#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether standard input is a file every run reads from its start. */
static bool stdin_rewinds;

void run_prepare_stdin(const struct startup_job *job)
{
	struct stat st;
	char *path;
	int fd;

	if (fstat(STDIN_FILENO, &st) < 0)
		return;
	if (isatty(STDIN_FILENO)) {
		/* as pfstat does: a run under the search must not wait for
		   the terminal, and each run reads the same (nothing) */
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0)
			fatal("/dev/null: cannot open as standard input: %s", strerror(errno));
		close(null);
		return;
	}
	if (S_ISREG(st.st_mode)) {
		stdin_rewinds = lseek(STDIN_FILENO, 0, SEEK_CUR) == 0;
		if (!stdin_rewinds)
			warn("standard input is a file read from an offset other than 0: every run reads it from there");
		return;
	}
	if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		return;
	/* a pipe gives its bytes once: kept in a file, each run reads it all */
	path = xasprintf("%s/.stdin.XXXXXX", job->dir);
	if ((fd = mkstemp(path)) < 0)
		fatal("%s: cannot create: %s", path, strerror(errno));
	unlink(path);
	for (;;) {
		char buf[65536];
		ssize_t got = read(STDIN_FILENO, buf, sizeof(buf)), at = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			fatal("standard input: read failed: %s", strerror(errno));
		if (got == 0)
			break;
		while (at < got) {
			ssize_t put = write(fd, buf + at, got - at);

			if (put < 0)
				fatal("%s: write failed: %s", path, strerror(errno));
			at += put;
		}
	}
	if (dup2(fd, STDIN_FILENO) < 0)
		fatal("dup2 failed: %s", strerror(errno));
	close(fd);
	free(path);
	stdin_rewinds = true;
}

/* Every run of the workload reads all of standard input. */
static void rewind_stdin(void)
{
	if (stdin_rewinds && lseek(STDIN_FILENO, 0, SEEK_SET) < 0)
		fatal("standard input: cannot go back to its start: %s", strerror(errno));
}

void run_workload_streams(struct proc_request *request)
{
	rewind_stdin();
	request->stdin_null = false;
}

/* Removes the traces an earlier run left at base: the file, or with
   --trace-children the files of the folder; makes that folder. */
static void remove_traces(const struct startup_job *job, const char *base)
{
	char *pattern = xasprintf("%s/*", base), *why;
	glob_t found;
	size_t i;

	if (!job->trace_children) {
		if (unlink(base) < 0 && errno != ENOENT)
			fatal("%s: cannot remove: %s", base, strerror(errno));
		free(pattern);
		return;
	}
	if (glob(pattern, GLOB_NOSORT, NULL, &found) == 0)
		for (i = 0; i < found.gl_pathc; i++)
			if (unlink(found.gl_pathv[i]) < 0)
				fatal("%s: cannot remove: %s", found.gl_pathv[i], strerror(errno));
	globfree(&found);
	free(pattern);
	if (record_make_dir(base, &why) < 0)
		fatal("%s", why);
}

/* Runs the workload under pagein, its stdout into out; returns the traces
   it wrote: base, or with --trace-children base/trace.PID for each
   process. */
static glob_t trace_workload(const struct startup_job *job, const char *base, const char *out, const char *err,
			     bool branches)
{
	int n = linkcmd_count(job->workload), k = 0, i;
	char **argv = xcalloc(n + 8, sizeof(*argv)), *pattern;
	struct proc_request request = { .argv = argv, .out = PROC_LOG, .log = out, .err = PROC_LOG, .err_log = err };
	struct proc_result result;
	glob_t found;

	remove_traces(job, base);
	if (unlink(out) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", out, strerror(errno));
	if (unlink(err) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", err, strerror(errno));
	argv[k++] = job->tools.pagein;
	argv[k++] = "--granularity=function";
	if (branches)
		argv[k++] = "--branches=yes";
	if (job->trace_children) {
		argv[k++] = "--trace-children=yes";
		argv[k++] = xasprintf("--output=%s/trace.%%p", base);
	} else {
		argv[k++] = xasprintf("--output=%s", base);
	}
	argv[k++] = "--";
	for (i = 0; i < n; i++)
		argv[k++] = job->workload[i];
	startup_step(job, "tracing %s", proc_command_line(job->workload));
	run_workload_streams(&request);
	if (proc_exec(&request, &result) != 0)
		fatal("the workload failed under pagein (%s): %s (its standard error: %s)", proc_describe(result.status),
		      proc_command_line(job->workload), err);
	pattern = job->trace_children ? xasprintf("%s/trace.*", base) : xstrdup(base);
	if (glob(pattern, 0, NULL, &found) != 0)
		fatal("%s: pagein wrote no trace", pattern);
	free(pattern);
	free(argv);
	return found;
}

void run_traced(const struct startup_job *job, struct startup_run *run, const char *first, const char *kind,
		bool branches)
{
	char *suffix = xasprintf("%s%s", kind, job->trace_children ? "traces" : "trace"), *base, *why, *err;
	size_t i;

	base = record_path(job->dir, first, suffix);
	free(suffix);
	suffix = xasprintf("%sout", kind);
	run->out = record_path(job->dir, first, suffix);
	free(suffix);
	suffix = xasprintf("%serr", kind);
	err = record_path(job->dir, first, suffix);
	run->files = trace_workload(job, base, run->out, err, branches);
	free(err);
	run->traces = xcalloc(run->files.gl_pathc ? run->files.gl_pathc : 1, sizeof(*run->traces));
	for (i = 0; i < run->files.gl_pathc; i++)
		if (trace_read(run->files.gl_pathv[i], &run->traces[i], &why) < 0)
			fatal("%s: %s", run->files.gl_pathv[i], why);
	free(suffix);
	free(base);
}

void run_free(struct startup_run *run)
{
	size_t i;

	for (i = 0; i < run->files.gl_pathc; i++)
		trace_free(&run->traces[i]);
	free(run->traces);
	globfree(&run->files);
	free(run->out);
}

const struct trace_object *run_object(const struct startup_run *run, const char *hex)
{
	size_t t, i;

	for (t = 0; t < run->files.gl_pathc; t++)
		for (i = 0; i < run->traces[t].object_count; i++)
			if (!strcmp(run->traces[t].objects[i].build_id, hex))
				return &run->traces[t].objects[i];
	return NULL;
}

int run_check(const struct startup_job *job, const char *out)
{
	char *argv[] = { "sh", "-c", (char *)job->check, NULL };
	struct proc_request request = { .argv = argv, .out = PROC_LOG, .log = out, .stdin_null = true };
	struct proc_result result;

	if (unlink(out) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", out, strerror(errno));
	startup_step(job, "checking: %s", job->check);
	return proc_exec(&request, &result);
}

bool run_same_output(const char *a, const char *b)
{
	char *argv[] = { "cmp", "-s", (char *)a, (char *)b, NULL };
	struct proc_result result;
	struct proc_request request = { .argv = argv, .stdin_null = true };

	return proc_exec(&request, &result) == 0;
}
