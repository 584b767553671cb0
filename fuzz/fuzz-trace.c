/* fuzz-trace: lib/trace.c on traces of both formats (pagein's and
   cygtrace's), read as either and as each, with the object lookups.
   Seeds: real traces of a small program by pagein and by cygtrace. */
#include "harness.h"
#include "trace.h"
#include "util.h"

#include <stdlib.h>

/* Events whose addresses are looked up, at most. */
enum { LOOKUPS = 256 };

static void look_up(const struct trace *t)
{
	size_t i;

	harness_check(t->format == TRACE_PAGEIN || t->format == TRACE_CYGTRACE, "a trace has a format");
	trace_object_matching(t, NULL);
	trace_object_matching(t, "*lib*");
	for (i = 0; i < t->event_count && i < LOOKUPS; i++) {
		const struct trace_event *e = &t->events[i];
		const struct trace_object *o = trace_object_at(t, e->address, e->size ? e->size : 1);

		if (o)
			trace_object_holds(o, e->address);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = harness_file("input.trace", data, size);
	struct trace t;
	char *why;
	int rc;

	progname = "fuzz-trace";
	rc = trace_read(path, &t, &why);
	harness_check((rc < 0) == (why != NULL), "a read says why exactly when it fails");
	if (rc == 0) {
		enum trace_format format = t.format;

		look_up(&t);
		trace_free(&t);
		rc = trace_read_format(path, format, &t, &why);
		harness_check(rc == 0, "a trace read as either format reads as its own");
		trace_free(&t);
		rc = trace_read_format(path, format == TRACE_PAGEIN ? TRACE_CYGTRACE : TRACE_PAGEIN, &t, &why);
		harness_check(rc < 0, "a trace of one format is not one of the other");
	}
	free(why);
	return 0;
}
