/* keep: what linkopt-startup keeps in the records' folder for an order:
   the apply record linkopt-cc reads, the inputs' stamps, the state. */
#define _GNU_SOURCE
#include "startup.h"

#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void keep_remove(const struct startup_job *job, const struct startup_output *o, const char *suffix)
{
	char *path = record_path(job->dir, o->name, suffix);

	if (unlink(path) < 0 && errno != ENOENT)
		fatal("%s: cannot remove: %s", path, strerror(errno));
	free(path);
}

void keep_apply(const struct startup_job *job, const struct startup_output *o, char **flags)
{
	char **job_flags = link_job_flags(job);
	int n = 0, m = 0, i;
	char **strings, *path = record_path(job->dir, o->name, "apply"), *why;

	while (flags[n])
		n++;
	while (job_flags[m])
		m++;
	strings = xcalloc(n + m + 1, sizeof(*strings));
	strings[0] = (char *)o->path;
	for (i = 0; i < n; i++)
		strings[1 + i] = flags[i];
	for (i = 0; i < m; i++)
		strings[1 + n + i] = job_flags[i];
	if (record_write(path, RECORD_APPLY_TAG, strings, n + m + 1, &why) < 0)
		fatal("%s", why);
	free(strings);
	free(path);
}

void keep_inputs(const struct startup_job *job, const struct startup_output *o)
{
	char **strings = NULL, *path = record_path(job->dir, o->name, "inputs"), *why;
	char **operands = linkcmd_operands(o->argv, &why);
	size_t n = 0, capacity = 0, k;
	int i;

	if (!operands)
		fatal("%s: %s", o->name, why);
	for (i = 0; operands[i]; i++) {
		char *file;
		struct stat st;

		if (operands[i][0] == '@')
			continue;
		file = record_absolute(o->cwd, operands[i]);
		if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			*ARRAY_PUSH(strings, n, capacity) = operands[i];
			*ARRAY_PUSH(strings, n, capacity) = xasprintf("%lld", (long long)st.st_size);
			*ARRAY_PUSH(strings, n, capacity) =
				xasprintf("%lld.%09ld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		}
		free(file);
	}
	if (record_write(path, RECORD_INPUTS_TAG, strings, (int)n, &why) < 0)
		fatal("%s", why);
	for (k = 0; k < n; k += 3) {
		free(strings[k + 1]);
		free(strings[k + 2]);
	}
	free(strings);
	linkcmd_free(operands);
	free(path);
}

char *keep_workload_line(const struct startup_job *job)
{
	char *line = proc_command_line(job->workload);

	if (job->check) {
		char *with = xasprintf("%s; check: %s", line, job->check);

		free(line);
		line = with;
	}
	return line;
}

void keep_rewrite(const struct startup_job *job, const struct startup_output *o, const char *ordered,
		  const char *rewritten)
{
	char *path = record_path(job->dir, o->name, "rewrite"), *why;
	char *strings[] = { (char *)ordered, (char *)rewritten };

	if (record_write(path, RECORD_REWRITE_TAG, strings, 2, &why) < 0)
		fatal("%s", why);
	free(path);
}
