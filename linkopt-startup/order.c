/* order: deporder's command line (made here and nowhere else) and the
   flags each linker links an order with. */
#define _GNU_SOURCE
#include "startup.h"

#include "linkcmd.h"
#include "proc.h"
#include "record.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int order_make_checked(const struct startup_job *job, struct startup_output *o, const struct startup_run *run)
{
	int n = linkcmd_count(o->argv), k = 0, i;
	char **job_flags = link_job_flags(job);
	int m = linkcmd_count(job_flags);
	char **argv = xcalloc(n + m + 2 * run->files.gl_pathc + 24, sizeof(*argv));
	char *log = xasprintf("%s.log", o->order);
	struct proc_request request = { .stdin_null = true, .dir = o->cwd, .argv = argv, .err = PROC_LOG, .log = log };
	struct proc_result result;
	size_t t, used = 0;

	argv[k++] = job->tools.deporder;
	argv[k++] = "-q";
	argv[k++] = "--granularity=section";
	for (t = 0; t < run->files.gl_pathc; t++) {
		const struct trace *tr = &run->traces[t];
		bool holds = false;

		for (i = 0; i < (int)tr->object_count && !holds; i++)
			holds = !strcmp(tr->objects[i].build_id, o->build_id[BUILD_PLAIN]);
		if (!holds)
			continue;
		argv[k++] = "--trace";
		argv[k++] = run->files.gl_pathv[t];
		used++;
	}
	if (!used)
		fatal("%s: the workload did not run %s (build-id %s)%s: it must run this build's %s, or a program "
		      "that loads it from the build", o->name, o->path, o->build_id[BUILD_PLAIN],
		      job->trace_children ? "" : "; a script or launcher needs --trace-children", o->name);
	argv[k++] = "--map";
	argv[k++] = o->map;
	argv[k++] = "--binary";
	argv[k++] = o->plain;
	argv[k++] = xasprintf("--emit=%s", startup_linker_names[job->linker]);
	argv[k++] = xasprintf("--placement=%s", startup_placement_names[job->placement]);
	if (job->read_ahead_kb)
		argv[k++] = xasprintf("--read-ahead-kb=%s", job->read_ahead_kb);
	if (job->untraced_segment_kb)
		argv[k++] = xasprintf("--untraced-segment-kb=%s", job->untraced_segment_kb);
	argv[k++] = "--out";
	argv[k++] = o->order;
	argv[k++] = "--cc";
	argv[k++] = "--";
	for (i = 0; i < n; i++)
		argv[k++] = o->argv[i];
	/* the link the order is for is the one relinked: with the job's flags */
	for (i = 0; i < m; i++)
		argv[k++] = job_flags[i];
	startup_step(job, "%s: ordering (%s)", o->name, startup_placement_names[job->placement]);
	unlink(log);
	proc_exec(&request, &result);
	/* deporder's word on how much of the traces matched the link, and why
	   it failed */
	if (result.status != 0 || job->progress) {
		FILE *f = fopen(log, "r");
		char line[4096];

		while (f && fgets(line, sizeof(line), f))
			fputs(line, stderr);
		if (f)
			fclose(f);
	}
	free(argv);
	free(log);
	return result.status;
}

void order_make(const struct startup_job *job, struct startup_output *o, const struct startup_run *run)
{
	int status = order_make_checked(job, o, run);

	if (status != 0)
		fatal("%s: deporder failed (%s): no order made", o->name, proc_describe(status));
}

char **order_flags(const struct startup_job *job, const struct startup_output *o)
{
	char **flags = xcalloc(4, sizeof(*flags));

	switch (job->linker) {
	case LINKER_GNU_LD:
		flags[0] = xasprintf("-Wl,-T,%s", o->order);
		/* linkopt-prefetch.o reads the traced range at start-up; BOLT
		   moves the code it would name: linkopt-cut.o, the cut alone */
		if (!job->bolt)
			flags[1] = xstrdup(job->tools.prefetch);
		else if (job->tools.cut)
			flags[1] = xstrdup(job->tools.cut);
		break;
	case LINKER_GOLD:
		flags[0] = xstrdup("-fuse-ld=gold");
		flags[1] = xasprintf("-Wl,--section-ordering-file,%s", o->order);
		break;
	case LINKER_LLD:
		flags[0] = xstrdup("-fuse-ld=lld");
		flags[1] = xasprintf("-Wl,--symbol-ordering-file,%s", o->order);
		flags[2] = xstrdup("-Wl,--no-warn-symbol-ordering");
		break;
	case LINKER_MOLD:
		flags[0] = xstrdup("-fuse-ld=mold");
		flags[1] = xasprintf("-Wl,--symbol-ordering-file,%s", o->order);
		break;
	}
	return flags;
}
