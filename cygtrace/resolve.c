/* cygtrace-resolve: cygtrace files turned into first-entry records of
   (object, section, symbol), merged across processes and runs. */
#include "cli.h"
#include "trace.h"
#include "symbolize.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const formats[] = { "text", "json", NULL };
static int format;
static bool edges, quiet;

static const struct cli_option options[] = {
	{ "--format", 0, CLI_CHOICE, &format, 0, "text (default) or json", formats },
	{ "--edges", 0, CLI_FLAG, &edges, 0, "the sampled call graph: CALLER CALLEE COUNT" },
	{ "--quiet", 'q', CLI_FLAG, &quiet, 0, "no summary and no warnings on stderr" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "cygtrace-resolve",
	.operands = "TRACE...",
	.description =
		"Resolves the first entries recorded by the cygtrace runtime through the\n"
		"symbol tables of the objects that ran (their build-ids must match the\n"
		"trace) and prints, one per line, in first-entry order merged across all\n"
		"TRACEs: RANK TIME TID OBJECT SECTION SYMBOL (TIME in ns since the first\n"
		"record of its own trace; a name with a blank, a quote, a backslash or a\n"
		"control character in double quotes, escaped as in the trace).  Addresses with no out-of-line function body\n"
		"(gcc calls the hook for inlined copies too) are dropped and counted.\n"
		"With --edges: the sampled call graph instead, CALLER CALLEE COUNT, the\n"
		"form lld's --call-graph-ordering-file reads.\n",
	.options = options,
	.footer = "Exit status: 0 success, 1 a trace is unreadable or does not match the\n"
		  "files, 2 wrong usage.\n",
	.min_operands = 1,
	.missing = "no trace given",
};

struct entry {
	uint64_t time;
	uint32_t tid;
	size_t order;            /* position in its trace: ties keep it */
	const char *object, *section, *symbol;
};

static int by_time(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct counts {
	size_t records, resolved, inlined, outside;
};

/* The image of the object holding address; NULL (counted) if there is no
   file for it, and a fatal error if the file is not the one that ran. */
static struct image *image_for(struct symbolizer *sym, const struct trace *t, uint64_t address,
			       const struct trace_object **object)
{
	struct image *image;
	char *why;

	*object = trace_object_at(t, address, 1);
	if (!*object || !strchr((*object)->path, '/'))
		return NULL; /* the vDSO, or no object at all */
	image = symbolizer_image(sym, (*object)->path, (*object)->build_id, &why);
	if (!image)
		fatal("%s: %s: %s", t->path, (*object)->path, why);
	return image;
}

static void print_edges(struct symbolizer *sym, struct trace *traces, int count)
{
	struct strmap totals = { 0 };
	char **keys = NULL;
	size_t key_count = 0, key_capacity = 0, i;
	int k;

	for (k = 0; k < count; k++) {
		for (i = 0; i < traces[k].edge_count; i++) {
			const struct trace_edge *e = &traces[k].edges[i];
			const struct trace_object *caller_object, *callee_object;
			struct image *caller_image = image_for(sym, &traces[k], e->call_site, &caller_object);
			struct image *callee_image = image_for(sym, &traces[k], e->function, &callee_object);
			const struct elf_symbol *caller, *callee;
			char *key;
			void **slot;

			if (!caller_image || !callee_image)
				continue;
			caller = image_function_containing(caller_image, e->call_site - caller_object->base);
			callee = image_function_at(callee_image, e->function - callee_object->base);
			if (!caller || !callee)
				continue;
			key = xasprintf("%s %s", caller->name, callee->name);
			slot = strmap_slot(&totals, key);
			if (!*slot) {
				*slot = xcalloc(1, sizeof(uint64_t));
				*ARRAY_PUSH(keys, key_count, key_capacity) = key;
			} else {
				free(key);
			}
			*(uint64_t *)*slot += e->count;
		}
	}
	for (i = 0; i < key_count; i++)
		printf("%s %llu\n", keys[i], (unsigned long long)*(uint64_t *)strmap_get(&totals, keys[i]));
}

struct entries {
	struct entry *items;
	size_t count, capacity;
};

/* Resolves every first entry of one trace, counting what cannot be. */
static void resolve_trace(struct symbolizer *sym, const struct trace *t, struct entries *out, struct counts *c)
{
	size_t i;

	for (i = 0; i < t->event_count; i++) {
		const struct trace_event *r = &t->events[i];
		const struct trace_object *object;
		struct image *image = image_for(sym, t, r->address, &object);
		const struct elf_symbol *s;
		struct entry *e;

		c->records++;
		if (!image) {
			c->outside++;
			continue;
		}
		s = image_function_at(image, r->address - object->base);
		if (!s) {
			c->inlined++;
			continue;
		}
		c->resolved++;
		e = ARRAY_PUSH(out->items, out->count, out->capacity);
		e->time = r->time;
		e->tid = r->thread;
		e->order = i;
		e->object = object->path;
		e->section = image_section_of(image, s);
		e->symbol = s->name;
	}
}

/* Prints each function at its first place; returns how many there were. */
static size_t print_entries(const struct entries *list, const struct counts *c, bool json)
{
	struct strmap seen = { 0 };
	size_t i, rank = 0;

	if (json) {
		printf("{");
		json_print_format("linkopt-cygtrace-resolve", 1);
		printf("\"functions\": [");
	}
	for (i = 0; i < list->count; i++) {
		const struct entry *e = &list->items[i];
		char *key = xasprintf("%s\t%s", e->object, e->symbol);
		void **slot = strmap_slot(&seen, key);

		if (*slot) {
			free(key);
			continue;
		}
		*slot = key;
		rank++;
		if (json) {
			printf("%s\n  {\"rank\": %zu, \"time\": %llu, \"tid\": %u, \"object\": ", rank > 1 ? "," : "", rank,
			       (unsigned long long)e->time, e->tid);
			json_print_string(e->object);
			printf(", \"section\": ");
			json_print_string(e->section);
			printf(", \"symbol\": ");
			json_print_string(e->symbol);
			printf("}");
		} else {
			char *object = trace_quote(e->object), *section = trace_quote(e->section),
			     *symbol = trace_quote(e->symbol);

			printf("%zu %llu %u %s %s %s\n", rank, (unsigned long long)e->time, e->tid, object, section, symbol);
			free(object);
			free(section);
			free(symbol);
		}
	}
	if (json)
		printf("\n], \"records\": %zu, \"resolved\": %zu, \"dropped_inlined\": %zu, \"outside_objects\": %zu}\n",
		       c->records, c->resolved, c->inlined, c->outside);
	return rank;
}

int main(int argc, char **argv)
{
	struct trace *traces;
	struct symbolizer *sym = symbolizer_new(getenv("CYGTRACE_DEBUGINFO_PATH"));
	struct entries entries = { 0 };
	struct counts c = { 0 };
	size_t functions;
	int k, count;
	char **files;

	progname = "cygtrace-resolve";
	count = cli_parse(&command, argc, argv, &files);
	traces = xcalloc(count, sizeof(*traces));
	for (k = 0; k < count; k++) {
		char *why;

		if (trace_read_format(files[k], TRACE_CYGTRACE, &traces[k], &why) < 0)
			fatal("%s: %s", files[k], why);
		if (!traces[k].complete && !quiet)
			warn("%s: the trace has no '# end' line: it was cut short", files[k]);
		if (traces[k].full && !quiet)
			warn("%s: the runtime's record buffer filled up: functions first entered later are missing",
			     files[k]);
	}
	if (edges) {
		print_edges(sym, traces, count);
		stdout_close_or_die();
		return EXIT_OK;
	}
	for (k = 0; k < count; k++)
		resolve_trace(sym, &traces[k], &entries, &c);
	if (count > 1 && entries.count)
		qsort(entries.items, entries.count, sizeof(*entries.items), by_time);
	functions = print_entries(&entries, &c, format == 1);
	if (!quiet)
		fprintf(stderr, "%s: %d trace%s, %zu first entries: %zu resolved, %zu dropped (no out-of-line body: "
			"inlined copies), %zu outside any object file; %zu distinct functions\n", progname, count,
			count == 1 ? "" : "s", c.records, c.resolved, c.inlined, c.outside, functions);
	stdout_close_or_die();
	return EXIT_OK;
}
