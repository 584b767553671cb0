#include "train.h"
#include "files.h"
#include "proc.h"
#include "report.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* s quoted for sh: inside single quotes, each ' written as '\''. */
static char *shell_quote(const char *s)
{
	size_t n = 3;
	const char *p;
	char *out, *q;

	for (p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	out = q = xmalloc(n);
	*q++ = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *p;
		}
	}
	*q++ = '\'';
	*q = '\0';
	return out;
}

/* The shell command for a workload: a script file named as it is (pgo-run
   workload.sh) runs from here, with sh when it is not executable; anything
   else is a shell command already. */
static char *workload_command(const char *workload)
{
	struct stat st;
	char *path, *command;

	if (stat(workload, &st) < 0 || !S_ISREG(st.st_mode))
		return xstrdup(workload);
	path = strchr(workload, '/') ? xstrdup(workload) : xasprintf("./%s", workload);
	command = shell_quote(path);
	if (access(path, X_OK) < 0) {
		char *with_sh = xasprintf("sh %s", command);

		free(command);
		command = with_sh;
	}
	free(path);
	return command;
}

static int path_components(const char *path)
{
	int n = 0;

	for (; *path; path++)
		if (*path == '/' && path[1] && path[1] != '/')
			n++;
	return n;
}

/* Runs workload i into dir; false (with a message) when it fails or writes
   no profile data. */
static bool run_workload(struct session *s, size_t i, const char *dir, const char *strip)
{
	const struct pgo_options *o = s->options;
	const struct workload *w = &o->workloads[i];
	char *name = xasprintf("train-%zu", i + 1), *label = xasprintf("train %zu/%zu", i + 1, o->nworkloads);
	char *log = session_log(s, name), *command = workload_command(w->command), *why = NULL, **files = NULL;
	/* GCOV_PREFIX goes in front of the compiled-in path once its
	   components are stripped */
	struct proc_env env[] = {
		{ "GCOV_PREFIX", dir },
		{ "GCOV_PREFIX_STRIP", strip },
	};
	double seconds = 0;
	size_t nfiles = 0;
	int status;
	bool ok = false;

	report_step(label, "%s (weight %g)", command, w->weight);
	status = proc_shell(command, NULL, env, 2, log, &seconds);
	s->external += seconds;
	if (status != 0) {
		char *text = proc_describe(status);

		error("workload '%s' failed: %s (log %s); the profile in use is unchanged", w->command, text, log);
		report_log_tail(log, 10);
		free(text);
	} else if (files_list(dir, ".gcda", 0, &files, &nfiles, &why) < 0) {
		error("%s", why);
	} else if (nfiles == 0) {
		error("workload '%s' wrote no profile data: it does not run the instrumented "
		      "program, or the program did not exit normally; the profile in use is unchanged",
		      w->command);
	} else {
		report_step(label, "%zu profile file%s in %.2f s", nfiles, nfiles == 1 ? "" : "s", seconds);
		ok = true;
	}
	files_free_list(files, nfiles);
	free(why);
	free(command);
	free(name);
	free(label);
	free(log);
	return ok;
}

bool train_run(struct session *s, const char *raw)
{
	char strip[16];
	size_t i;
	bool ok = true;

	snprintf(strip, sizeof(strip), "%d", path_components(s->gen_data));
	for (i = 0; i < s->options->nworkloads && ok; i++) {
		char *dir = xasprintf("%s/%zu", raw, i), *why;

		if (files_make_dir(dir, &why) < 0)
			fatal("%s", why);
		ok = run_workload(s, i, dir, strip);
		free(dir);
	}
	return ok;
}
