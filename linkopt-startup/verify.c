/* verify: linkopt-startup --verify (make startup-check): is each output
   still the link its order made, is the order still what its trace, map
   and the inputs give, and has the start-up's code grown back? */
#define _GNU_SOURCE
#include "startup.h"

#include "proc.h"
#include "record.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Says what is stale about o (after "linkopt-startup: NAME: "); 1. */
static int stale(const struct startup_job *job, const struct startup_output *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int stale(const struct startup_job *job, const struct startup_output *o, const char *fmt, ...)
{
	va_list ap;
	char *what;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		fatal("out of memory");
	va_end(ap);
	error("%s: %s: %s", o->name, what, job->again);
	free(what);
	return 1;
}

/* The bytes of the order file at path after its first line when that is
   deporder's provenance (the traces by path, the link command), else all
   of them: *start into *data, *size of them; -1 with errno set when it
   cannot be read. */
static int order_body(const char *path, char **data, const char **start, size_t *size)
{
	size_t n;
	char *nl;

	if (!(*data = record_read_whole(path, &n)))
		return -1;
	nl = memchr(*data, '\n', n);
	*start = nl && memmem(*data, nl - *data, "deporder (linkopt ", 18) ? nl + 1 : *data;
	*size = n - (*start - *data);
	return 0;
}

/* The order made now from the stored trace and map into o->order.check;
   0 when it equals o's order, else 1 after saying why. */
static int check_order(struct startup_job *job, struct startup_output *o, const char *traces)
{
	char *order = o->order, *check = xasprintf("%s.check", o->order), *trace, *why;
	struct startup_run stored = { 0 };
	char *kept = NULL, *now = NULL;
	const char *body, *body_now;
	size_t size, size_now;
	int status;

	trace = traces && *traces ? xstrdup(traces)
				  : record_path(job->dir, o->name, job->trace_children ? "traces/trace.*" : "trace");
	/* the state's traces, one path a line; else DIR/NAME.trace */
	for (char *save = NULL, *one = strtok_r(xstrdup(trace), "\n", &save); one; one = strtok_r(NULL, "\n", &save))
		if (glob(one, stored.files.gl_pathc ? GLOB_APPEND : 0, NULL, &stored.files) != 0)
			return stale(job, o, "no trace of the run the order was made from (%s)", one);
	if (!stored.files.gl_pathc)
		return stale(job, o, "no trace of the run the order was made from (%s)", trace);
	stored.traces = xcalloc(stored.files.gl_pathc, sizeof(*stored.traces));
	for (size_t i = 0; i < stored.files.gl_pathc; i++)
		if (trace_read(stored.files.gl_pathv[i], &stored.traces[i], &why) < 0)
			return stale(job, o, "%s: %s", stored.files.gl_pathv[i], why);
	/* a later run that failed may have left a trace of another link */
	if (!run_object(&stored, o->build_id[BUILD_PLAIN]))
		return stale(job, o, "%s: not a trace of the link the order was made from (build-id %s): a later run "
			     "failed", trace, o->build_id[BUILD_PLAIN]);
	unlink(check);
	o->order = check;
	status = order_make_checked(job, o, &stored);
	o->order = order;
	run_free(&stored);
	if (status != 0) {
		free(check);
		return stale(job, o, "stale: deporder refuses the trace and the map the order was made from (above)");
	}
	/* the lines after the provenance: it names the traces where they
	   were when the order was made, and the link the order was made
	   from (BOLT's input links with --emit-relocs, the map kept is of
	   the link without) */
	if (order_body(order, &kept, &body, &size) < 0 || order_body(check, &now, &body_now, &size_now) < 0) {
		status = stale(job, o, "%s: cannot read: %s", kept ? check : order, strerror(errno));
		free(kept);
		unlink(check);
		free(check);
		free(trace);
		return status;
	}
	status = size != size_now || memcmp(body, body_now, size);
	free(kept);
	free(now);
	unlink(check);
	free(check);
	free(trace);
	if (status != 0)
		return stale(job, o, "stale: the order made now from its trace, map and the inputs differs from %s (an input "
			     "changed since it was made)", order);
	return 0;
}

/* When a rewrite of o's ordered link is kept (DIR/NAME.rewrite: BOLT's
   or the cut), whether o->path is that rewrite: a link of the order made
   again without linkopt-cc lost it.  linkopt-bolt's output has a build-id
   of its own, but the cut keeps the ordered link's and its code pages:
   neither the build-id nor the pages touched tell the cut is lost.
   other: say too when o->path is some other file (when its build-id is
   the ordered link's; else the caller says it was relinked); 0, else 1
   after saying why. */
static int check_rewrite(const struct startup_job *job, const struct startup_output *o, bool other)
{
	char *path = record_path(job->dir, o->name, "rewrite"), *why;
	struct record rewrite;
	int bad = 0;

	if (record_read(path, RECORD_REWRITE_TAG, &rewrite, &why) < 0) {
		if (errno != ENOENT)
			bad = stale(job, o, "%s", why);
		free(why);
		free(path);
		return bad;
	}
	if (rewrite.count != 2)
		bad = stale(job, o, "%s: not a rewrite record", path);
	else if (access(rewrite.strings[1], R_OK) < 0)
		bad = stale(job, o, "%s: the rewrite kept cannot be read: %s", rewrite.strings[1], strerror(errno));
	else if (record_same_bytes(o->path, rewrite.strings[1]))
		bad = 0;
	else if (record_same_bytes(o->path, rewrite.strings[0]))
		bad = stale(job, o, "stale: %s is its ordered link without the rewrite kept (%s): linked again with its "
			    "order, but not through linkopt-cc", o->path, rewrite.strings[1]);
	else if (other)
		bad = stale(job, o, "stale: %s is not the rewrite kept of its ordered link (%s)", o->path,
			    rewrite.strings[1]);
	record_free(&rewrite);
	free(path);
	return bad;
}

/* check_order with the placement and the links the state says the order
   was made with (--placement=best chose them). */
static int check_order_as_kept(struct startup_job *job, struct startup_output *o, const struct startup_state *st)
{
	struct startup_job as = *job;
	struct startup_output kept = *o;
	int p, status;

	if (!*st->order_placement)
		return check_order(job, o, NULL);
	for (p = 0; startup_placement_names[p] && strcmp(startup_placement_names[p], st->order_placement); p++)
		;
	if (!startup_placement_names[p])
		return stale(job, o, "%s: an order of placement '%s', which this linkopt-startup does not know", o->state,
			     st->order_placement);
	as.placement = p;
	as.relr = st->order_relr;
	as.bolt = false;
	kept.order = st->order;
	kept.plain = record_path(job->dir, o->name, st->order_relr ? "relr.default" : "default");
	kept.map = record_path(job->dir, o->name, st->order_relr ? "relr.map" : "map");
	link_build_id(kept.plain, kept.build_id[BUILD_PLAIN], sizeof(kept.build_id[BUILD_PLAIN]));
	status = check_order(&as, &kept, st->traces);
	free(kept.plain);
	free(kept.map);
	return status;
}

int verify_outputs(struct startup_job *job, struct startup_output *outputs, size_t n, unsigned long tolerance)
{
	struct startup_state *states = xcalloc(n, sizeof(*states));
	struct startup_run now;
	char *layout = state_layout(job), *why;
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct startup_output *o = &outputs[i];

		if (!state_read(o, &states[i], &why)) {
			bad |= why ? stale(job, o, "%s", why)
				   : stale(job, o, "not ordered (no %s)", o->state);
			continue;
		}
		if (strcmp(states[i].layout, layout) != 0) {
			bad |= stale(job, o, "ordered for %s, not %s", states[i].layout, layout);
			continue;
		}
		if (access(o->path, F_OK) < 0) {
			bad |= stale(job, o, "%s: no such file: it was removed since it was ordered", o->path);
			continue;
		}
		snprintf(o->build_id[BUILD_PLAIN], sizeof(o->build_id[BUILD_PLAIN]), "%s", states[i].plain_id);
		snprintf(o->build_id[BUILD_ORDERED], sizeof(o->build_id[BUILD_ORDERED]), "%s", states[i].ordered_id);
		if (!link_has_build_id(o, states[i].ordered_id)) {
			if (!check_rewrite(job, o, false))
				stale(job, o, "stale: %s was relinked since it was ordered (ordered build-id %s)", o->path,
				      states[i].ordered_id);
			bad = 1;
			continue;
		}
		if (check_rewrite(job, o, true)) {
			bad = 1;
			continue;
		}
		bad |= check_order_as_kept(job, o, &states[i]);
	}
	if (bad) {
		for (i = 0; i < n; i++)
			state_free(&states[i]);
		free(states);
		return 1;
	}
	run_traced(job, &now, outputs[0].name, "check.", false);
	for (i = 0; i < n; i++) {
		struct startup_output *o = &outputs[i];
		unsigned long ordered = strtoul(states[i].code_after, NULL, 10), slack, pages;

		pages = measure_pages(&now, o->build_id[BUILD_ORDERED], TRACE_CODE);
		slack = (ordered * tolerance + 99) / 100;
		if (slack < 1)
			slack = 1;
		if (!run_object(&now, o->build_id[BUILD_ORDERED]))
			bad |= stale(job, o, "the workload did not load %s (build-id %s)", o->path,
				     o->build_id[BUILD_ORDERED]);
		else if (pages > ordered + slack)
			bad |= stale(job, o, "start-up code pages grew back: %lu now, %lu when ordered (at most %lu "
				     "pass, tolerance %lu%%): the run touches other code now", pages, ordered,
				     ordered + slack, tolerance);
		else
			printf("%s: start-up code pages %lu, %lu when ordered, %s before: ok\n", o->name, pages, ordered,
			       states[i].code_before);
		state_free(&states[i]);
	}
	run_free(&now);
	free(states);
	free(layout);
	stdout_close_or_die();
	return bad;
}
