/* measure: the pages of an output a run touched, and the report table. */
#include "startup.h"

#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t measure_pages(const struct startup_run *run, const char *hex, enum trace_kind kind)
{
	uint64_t *pages = NULL;
	size_t n = 0, capacity = 0, distinct, t, i;

	for (t = 0; t < run->files.gl_pathc; t++) {
		const struct trace *tr = &run->traces[t];

		for (i = 0; i < tr->event_count; i++) {
			const struct trace_event *e = &tr->events[i];
			const struct trace_object *o;

			if (e->kind != kind)
				continue;
			o = trace_object_at(tr, e->address, e->size);
			if (o && !strcmp(o->build_id, hex))
				*ARRAY_PUSH(pages, n, capacity) = e->address - o->base;
		}
	}
	distinct = u64_sort_unique(pages, n);
	free(pages);
	return distinct;
}

void measure_report(const struct startup_output *outputs, size_t n, const struct startup_run *before,
		    const struct startup_run *after)
{
	size_t i;

	printf("%-24s %12s %8s %12s %8s\n", "output", "code pages", "ordered", "data pages", "ordered");
	for (i = 0; i < n; i++) {
		const struct startup_output *o = &outputs[i];

		printf("%-24s %12zu %8zu %12zu %8zu\n", o->name,
		       measure_pages(before, o->build_id[BUILD_PLAIN], TRACE_CODE),
		       measure_pages(after, o->build_id[BUILD_ORDERED], TRACE_CODE),
		       measure_pages(before, o->build_id[BUILD_PLAIN], TRACE_DATA),
		       measure_pages(after, o->build_id[BUILD_ORDERED], TRACE_DATA));
	}
	stdout_close_or_die();
}
