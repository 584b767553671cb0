#include "train.h"
#include "files.h"
#include "jobs.h"
#include "llvm.h"
#include "merge.h"
#include "proc.h"
#include "steps.h"
#include "progress.h"
#include "util.h"

#include <ctype.h>
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

/* True when the n characters at p hold one that quotes, expands or
   starts a comment or a compound command in sh. */
static bool has_special(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr("'\"\\$`*?[{}~!#", p[i]))
			return true;
	return false;
}

/* True when the word of n characters at p is an assignment NAME=VALUE. */
static bool is_assignment(const char *p, size_t n)
{
	size_t i;

	if (!n || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
		return false;
	for (i = 1; i < n && (isalnum((unsigned char)p[i]) || p[i] == '_'); i++)
		;
	return i < n && p[i] == '=';
}

/* The command word of a shell command: the first word after any
   NAME=VALUE assignments, a new string; NULL when it cannot be known
   without running sh. */
static char *command_word(const char *command)
{
	const char *p = command;
	size_t n;

	for (;;) {
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n;&|<>()");
		if (n == 0 || has_special(p, n))
			return NULL;
		if (!is_assignment(p, n))
			return xstrndup(p, n);
		p += n;
	}
}

/* True when sh can run word as the workload's command: the workload is a
   script file named as it is (see workload_command), or sh finds word as
   a builtin, a keyword or a command on PATH. */
static bool runnable(const char *workload, const char *word)
{
	struct stat st;
	char *quoted, *command;
	bool found;

	if (!strcmp(word, workload) && stat(word, &st) == 0 && S_ISREG(st.st_mode))
		return true;
	quoted = shell_quote(word);
	command = xasprintf("command -v -- %s", quoted);
	found = proc_shell(command, NULL, NULL, 0, "/dev/null", NULL) == 0;
	free(quoted);
	free(command);
	return found;
}

bool train_check(const struct pgo_options *o)
{
	size_t i;

	for (i = 0; i < o->nworkloads; i++) {
		const char *workload = o->workloads[i].command;
		char *word = command_word(workload);
		bool ok = !word || strchr(word, '/') || runnable(workload, word);

		if (!ok && access(word, F_OK) == 0)
			error("workload '%s': cannot run '%s': sh looks for it on PATH only; write ./%s",
			      workload, word, word);
		else if (!ok)
			error("workload '%s': cannot run '%s': no script here, shell builtin or command on "
			      "PATH has that name", workload, word);
		free(word);
		if (!ok)
			return false;
	}
	return true;
}

static int path_components(const char *path)
{
	int n = 0;

	for (; *path; path++)
		if (*path == '/' && path[1] && path[1] != '/')
			n++;
	return n;
}

/* The lines of the log in which libgcov says what it could not do with a
   profile file under dir ("profiling:DIR/x.gcda:Cannot open", "libgcov
   profiling error:DIR/x.gcda:Error writing"): that file's counts are lost
   or damaged.  Sets *lines (new strings) and returns their number. */
static size_t libgcov_errors(const char *log, const char *dir, char ***lines)
{
	static const char *const prefixes[] = { "libgcov profiling error:", "profiling:" };
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0, count = 0, capacity = 0, k;
	ssize_t n;

	*lines = NULL;
	if (!f)
		return 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
			size_t len = strlen(prefixes[k]);

			if (!strncmp(line, prefixes[k], len) && !strncmp(line + len, dir, strlen(dir)) &&
			    line[len + strlen(dir)] == '/') {
				*ARRAY_PUSH(*lines, count, capacity) = xstrdup(line);
				break;
			}
		}
	}
	free(line);
	fclose(f);
	return count;
}

/* Checks what workload i wrote into dir: every profile file whole, none
   libgcov failed to write; false (with a message) when not. */
static bool check_profiles(struct session *s, size_t i, const char *dir, const char *log, const char *label,
			   double seconds)
{
	const struct workload *w = &s->options->workloads[i];
	bool clang = s->family == FAMILY_CLANG;
	const char *runtime = clang ? "clang's profile runtime" : "libgcov";
	char *why = NULL, **complaints;
	size_t ncomplaints = clang ? llvm_runtime_errors(log, dir, &complaints)
				   : libgcov_errors(log, dir, &complaints), k;
	long nfiles = merge_check_profiles(s, dir, &why);
	bool ok = false;

	if (nfiles == -2)
		error("workload '%s': %s; the profile in use is unchanged", w->command, why);
	else if (nfiles < 0)
		error("workload '%s' wrote a damaged profile file: %s; the profile in use is unchanged",
		      w->command, why);
	else if (ncomplaints)
		error("workload '%s': %s could not write all of its profile data (log %s); the profile in "
		      "use is unchanged", w->command, runtime, log);
	else if (nfiles == 0)
		error("workload '%s' wrote no profile data: it does not run the instrumented "
		      "program, or the program did not exit normally; the profile in use is unchanged",
		      w->command);
	else
		ok = true;
	for (k = 0; k < ncomplaints; k++) {
		error("workload '%s': %s", w->command, complaints[k]);
		free(complaints[k]);
	}
	free(complaints);
	free(why);
	if (ok)
		steps_step(label, "%ld profile file%s in %.2f s", nfiles, nfiles == 1 ? "" : "s", seconds);
	return ok;
}

/* Runs workload i into dir; false (with a message) when it fails or writes
   no profile data, or damaged data. */
static bool run_workload(struct session *s, size_t i, const char *dir, const char *strip)
{
	const struct pgo_options *o = s->options;
	const struct workload *w = &o->workloads[i];
	char *name = xasprintf("train-%zu", i + 1), *label = xasprintf("train %zu/%zu", i + 1, o->nworkloads);
	char *log = session_log(s, name), *command = workload_command(w->command);
	/* GCOV_PREFIX goes in front of the compiled-in path once its
	   components are stripped */
	struct proc_env env[] = {
		{ "GCOV_PREFIX", dir },
		{ "GCOV_PREFIX_STRIP", strip },
	};
	/* clang: every run writes under dir, named by its program's signature */
	char *pattern = llvm_raw_pattern(dir);
	struct proc_env clang_env[] = {
		{ "LLVM_PROFILE_FILE", pattern },
	};
	struct jobs_left left;
	double seconds = 0;
	int status;
	bool ok = false;

	steps_step(label, "%s (weight %g)", command, w->weight);
	progress_start("[%s] %s", label, command);
	if (s->family == FAMILY_CLANG)
		status = jobs_shell(command, NULL, clang_env, 1, log, &seconds, &left);
	else
		status = jobs_shell(command, NULL, env, 2, log, &seconds, &left);
	progress_stop();
	s->external += seconds + left.seconds;
	if (left.count && !proc_interrupted()) {
		/* killed, they wrote no profile data; a daemon would write it
		   later, into a folder merged and removed by then */
		error("workload '%s' left %zu process%s running when it ended: %s; pgo-run ended %s, so %s "
		      "profile data is missing: end %s in the workload (wait for a background job); the profile "
		      "in use is unchanged", w->command, left.count, left.count == 1 ? "" : "es", left.names,
		      left.count == 1 ? "it" : "them", left.count == 1 ? "its" : "their",
		      left.count == 1 ? "it" : "them");
	} else if (status != 0) {
		char *text = proc_describe(status);

		error("workload '%s' failed: %s (log %s); the profile in use is unchanged", w->command, text, log);
		steps_log_tail(log, 10);
		free(text);
	} else {
		ok = check_profiles(s, i, dir, log, label, seconds);
	}
	jobs_left_free(&left);
	free(pattern);
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
