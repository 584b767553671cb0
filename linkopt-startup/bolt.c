/* bolt: the ordered link rewritten by linkopt-bolt, below the whole-function
   bound, from pagein's branch profile of the start-up on that very link. */
#define _GNU_SOURCE
#include "startup.h"

#include "proc.h"
#include "record.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bolt_rewrite(const struct startup_job *job, struct startup_output *o, const struct startup_run *run)
{
	char *ordered = record_path(job->dir, o->name, "ordered"), *rewritten = record_path(job->dir, o->name, "bolt");
	char *log = record_path(job->dir, o->name, "bolt.log"), *startup = NULL;
	char *argv[16];
	int k = 0;
	size_t t, i;
	struct proc_request request = { .argv = argv, .stdin_null = true, .out = PROC_LOG, .err = PROC_TO_STDOUT,
					.log = log };
	struct proc_result result;

	/* the trace of the process that ran this output */
	for (t = 0; t < run->files.gl_pathc && !startup; t++)
		for (i = 0; i < run->traces[t].object_count; i++)
			if (!strcmp(run->traces[t].objects[i].build_id, o->build_id[BUILD_ORDERED])) {
				startup = run->files.gl_pathv[t];
				break;
			}
	if (!startup)
		fatal("%s: the workload did not run the ordered link (build-id %s): nothing to rewrite it from",
		      o->name, o->build_id[BUILD_ORDERED]);
	unlink(log);
	argv[k++] = job->tools.bolt;
	argv[k++] = "-q";
	if (job->bolt_program) {
		argv[k++] = "--bolt";
		argv[k++] = (char *)job->bolt_program;
	}
	argv[k++] = "--startup";
	argv[k++] = startup;
	/* the pipeline checks the rewritten output itself, in place, as the
	   workload runs it (linkopt-bolt still checks its structure) */
	argv[k++] = "--no-check";
	argv[k++] = "-o";
	argv[k++] = rewritten;
	argv[k++] = ordered;
	argv[k] = NULL;
	startup_step(job, "%s: rewriting with linkopt-bolt", o->name);
	if (proc_exec(&request, &result) != 0)
		fatal("%s: linkopt-bolt failed (%s; its output in %s): the ordered link stays", o->name,
		      proc_describe(result.status), log);
	link_install(o, rewritten);
	keep_rewrite(job, o, ordered, rewritten);
	/* linkopt-bolt gives its output a build-id of its own */
	link_build_id(rewritten, o->build_id[BUILD_ORDERED], sizeof(o->build_id[BUILD_ORDERED]));
	free(ordered);
	free(rewritten);
	free(log);
}
