/* state: DIR/NAME.state, what an order was made from and what it gave: a
   record ("linkopt state 1") of KEY=VALUE strings. */
#define _GNU_SOURCE
#include "startup.h"

#include "record.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define STATE_TAG "linkopt state 1"

char *state_layout(const struct startup_job *job)
{
	char *read_ahead = job->placement == PLACEMENT_COLD_START
				   ? xasprintf(" at %s KiB", job->read_ahead_kb ? job->read_ahead_kb : "128")
				   : xstrdup("");
	char *bolt = job->bolt ? xasprintf("+bolt%s%s%s", job->bolt_program ? " (" : "",
					   job->bolt_program ? job->bolt_program : "", job->bolt_program ? ")" : "")
			       : xstrdup("");
	char *segments = job->untraced_segment_kb ? xasprintf(", untraced code in %s KiB segments", job->untraced_segment_kb)
						  : xstrdup("");
	char *layout = xasprintf("%s%s%s%s%s%s%s", startup_linker_names[job->linker],
				 job->placement == PLACEMENT_HEAD ? "" : "/",
				 job->placement == PLACEMENT_HEAD ? "" : startup_placement_names[job->placement], read_ahead,
				 job->relr ? "+relr" : "", bolt, segments);

	free(read_ahead);
	free(segments);
	free(bolt);
	return layout;
}

static char *value_of(const struct record *rec, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = 0; i < rec->count; i++)
		if (!strncmp(rec->strings[i], key, n) && rec->strings[i][n] == '=')
			return xstrdup(rec->strings[i] + n + 1);
	return xstrdup("");
}

bool state_read(const struct startup_output *o, struct startup_state *st, char **why)
{
	struct record rec;

	*why = NULL;
	memset(st, 0, sizeof(*st));
	if (record_read(o->state, STATE_TAG, &rec, why) < 0) {
		if (errno == ENOENT) {
			free(*why);
			*why = NULL;
		}
		return false;
	}
	st->layout = value_of(&rec, "layout");
	st->workload = value_of(&rec, "workload");
	st->plain_id = value_of(&rec, "plain-build-id");
	st->ordered_id = value_of(&rec, "ordered-build-id");
	st->code_before = value_of(&rec, "plain-code-pages");
	st->code_after = value_of(&rec, "ordered-code-pages");
	st->chosen = value_of(&rec, "chosen");
	st->order = value_of(&rec, "order");
	st->order_placement = value_of(&rec, "order-placement");
	st->traces = value_of(&rec, "traces");
	{
		char *relr = value_of(&rec, "order-relr");

		st->order_relr = !strcmp(relr, "yes");
		free(relr);
	}
	record_free(&rec);
	return true;
}

void state_write(const struct startup_output *o, const struct startup_state *st)
{
	char *strings[] = {
		xasprintf("layout=%s", st->layout),
		xasprintf("workload=%s", st->workload),
		xasprintf("plain-build-id=%s", st->plain_id),
		xasprintf("ordered-build-id=%s", st->ordered_id),
		xasprintf("plain-code-pages=%s", st->code_before ? st->code_before : ""),
		xasprintf("ordered-code-pages=%s", st->code_after ? st->code_after : ""),
		xasprintf("chosen=%s", st->chosen ? st->chosen : ""),
		xasprintf("order=%s", st->order ? st->order : ""),
		xasprintf("order-placement=%s", st->order_placement ? st->order_placement : ""),
		xasprintf("order-relr=%s", st->order_relr ? "yes" : "no"),
		xasprintf("traces=%s", st->traces ? st->traces : ""),
	};
	size_t i, n = sizeof(strings) / sizeof(strings[0]);
	char *why;

	if (record_write(o->state, STATE_TAG, strings, (int)n, &why) < 0)
		fatal("%s", why);
	for (i = 0; i < n; i++)
		free(strings[i]);
}

void state_free(struct startup_state *st)
{
	free(st->layout);
	free(st->workload);
	free(st->plain_id);
	free(st->ordered_id);
	free(st->code_before);
	free(st->code_after);
	free(st->chosen);
	free(st->order);
	free(st->order_placement);
	free(st->traces);
	memset(st, 0, sizeof(*st));
}
