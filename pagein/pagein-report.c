/* pagein-report: pages touched per object (code and data), the first-touch
   timeline, and two traces side by side (before and after a relink). */
#include "cli.h"
#include "coldstart.h"
#include "elfobj.h"
#include "relation.h"
#include "trace.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum format { FORMAT_TEXT, FORMAT_JSON };
static const char *const formats[] = { [FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", NULL };
static int format;
static bool timeline;
static bool read_requests;
static unsigned long read_ahead_kb;
static bool cold;
static bool same_program;

static const char *set_read_ahead(void *target, const char *value)
{
	const char *wrong = cli_read_ahead_kb(value, &read_ahead_kb);

	(void)target;
	cold = !wrong;
	return wrong;
}

static const struct cli_option options[] = {
	{ "--format", 0, CLI_CHOICE, &format, 0, "text (default) or json", formats },
	{ "--timeline", 0, CLI_FLAG, &timeline, 0, "also every record, its address relative to its object" },
	{ "--read-ahead-kb", 0, CLI_CALL, 0, "N",
	  "also the file pages and read requests of a cold start of\n"
	  "each object, with N KiB of read-ahead: deporder --evaluate's\n"
	  "model of the kernel replayed over the trace's first touches\n"
	  "(the object's file must be the traced one, by build-id; one\n"
	  "trace only)", .set = set_read_ahead },
	{ "--read-requests", 0, CLI_FLAG, &read_requests, 0,
	  "with --read-ahead-kb, also each read request of the model:\n"
	  "the pages it reads and what made it (a read(2), a fault and\n"
	  "its window, a marked page reached and the next window)" },
	{ "--same-program", 0, CLI_FLAG, &same_program, 0,
	  "with two traces: the main programs are one program relinked\n"
	  "under another name (two programs of different paths and\n"
	  "names are refused without it)" },
	{ 0 }
};

static const struct cli_command command = {
	.name = "pagein-report",
	.operands = "FILE [FILE]",
	.description =
		"Summarizes a pagein trace: code and data pages first touched per object,\n"
		"heap, stack and other anonymous pages, functions first executed, and the\n"
		"pages touched by each tenth of the run.  With two files, the objects side\n"
		"by side (the main program of one matched with the main program of the\n"
		"other, libraries by file name), and how the main programs stand: the same\n"
		"build, or the same program relinked (the same path or file name, another\n"
		"build-id); two programs are refused.\n",
	.options = options,
	.footer = "Exit status: 0 success, 1 a file is unreadable or not a pagein trace (or,\n"
		  "with --read-ahead-kb, the main program's file is not the traced one; with two,\n"
		  "they are of two programs), 2 wrong usage.  An incomplete trace (no '# end'\n"
		  "line) is read with a warning.\n",
	.min_operands = 1,
	.missing = "give one trace, or two to compare",
};

#define TIMELINE_STEPS 10

struct object_summary {
	const struct trace_object *object;
	size_t code, data;
	bool cold;                   /* reads holds the cold start's model */
	struct coldstart_reads reads;
};

struct summary {
	const struct trace *trace;
	struct object_summary *objects;
	size_t other_files, heap, stack, anonymous, functions, data_objects;
	size_t timeline[TIMELINE_STEPS]; /* object pages touched by each tenth */
};

/* A count of functions or data objects: "n/a" for a trace by page, which
   records none, whatever ran; buf holds at least 24 bytes. */
static const char *recorded(const struct summary *s, size_t count, char *buf)
{
	if (s->trace->granularity == TRACE_GRANULARITY_PAGE)
		return "n/a";
	sprintf(buf, "%zu", count);
	return buf;
}

static void summarize(const struct trace *t, struct summary *s)
{
	uint64_t last = t->event_count ? t->events[t->event_count - 1].time : 0;
	size_t i, k;

	memset(s, 0, sizeof(*s));
	s->trace = t;
	s->objects = xcalloc(t->object_count ? t->object_count : 1, sizeof(*s->objects));
	for (i = 0; i < t->object_count; i++)
		s->objects[i].object = &t->objects[i];
	for (i = 0; i < t->event_count; i++) {
		const struct trace_event *r = &t->events[i];
		const struct trace_object *o = NULL;
		bool object_page = false;

		switch (r->kind) {
		case TRACE_CODE:
		case TRACE_DATA:
			o = trace_object_at(t, r->address, r->size);
			if (o) {
				struct object_summary *os = &s->objects[o - t->objects];

				if (r->kind == TRACE_CODE)
					os->code++;
				else
					os->data++;
				object_page = true;
			} else if (r->kind == TRACE_DATA) {
				s->other_files++;
			}
			break;
		case TRACE_HEAP: s->heap++; break;
		case TRACE_STACK: s->stack++; break;
		case TRACE_ANONYMOUS: s->anonymous++; break;
		case TRACE_FUNCTION: s->functions++; break;
		case TRACE_OBJECT: s->data_objects++; break;
		}
		if (!object_page)
			continue;
		for (k = 0; k < TIMELINE_STEPS; k++)
			if (!last || r->time * TIMELINE_STEPS <= last * (k + 1))
				s->timeline[k]++;
	}
}

/* The reads of a cold start of the trace's i-th object, as the kernel
   model replays the run's first touches of its pages; false, with *why,
   when its file cannot be read or is not the traced one (build-id). */
static bool cold_start(const struct trace *t, size_t i, struct coldstart_reads *reads, char **why)
{
	const struct trace_object *o = &t->objects[i];
	struct coldstart_file file;
	size_t n, prefetch_at;
	uint64_t *addresses;

	if (coldstart_file_read(&file, o->path, why) < 0)
		return false;
	if (!file.build_id[0] || strcmp(file.build_id, o->build_id)) {
		*why = xasprintf("%s: not the traced file (the trace has build-id %s, the file %s): relinked since?",
				 o->path, o->build_id, file.build_id[0] ? file.build_id : "none");
		coldstart_file_free(&file);
		return false;
	}
	addresses = coldstart_trace_touches(t, o, &file, &n, &prefetch_at);
	*reads = (read_requests ? coldstart_replay_requests_at : coldstart_replay_at)(&file, i == 0, addresses, n,
										      read_ahead_kb, prefetch_at);
	free(addresses);
	coldstart_file_free(&file);
	return true;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* What made a request, in words. */
static void print_cause(const struct readahead_request *q)
{
	unsigned long long p = q->page;

	switch (q->cause) {
	case READAHEAD_READ: printf("read(2) at page %llu", p); break;
	case READAHEAD_FAULT: printf("fault on page %llu: the window around it", p); break;
	case READAHEAD_FAULT_CODE: printf("fault on page %llu, code: the window from it on", p); break;
	case READAHEAD_MARKED: printf("page %llu reached, marked: the next window", p); break;
	case READAHEAD_ALONE: printf("fault on page %llu: the page alone", p); break;
	case READAHEAD_WILLNEED: printf("madvise(MADV_WILLNEED) from page %llu", p); break;
	}
}

/* Each object's read requests, as the model made them. */
static void print_requests(const struct summary *s)
{
	size_t i, k;

	for (i = 0; i < s->trace->object_count; i++) {
		const struct object_summary *os = &s->objects[i];
		char *path;

		if (!os->cold)
			continue;
		path = trace_quote(os->object->path);
		printf("  read requests of a cold start of %s at %lu KiB: %llu file pages in %llu:\n", path, read_ahead_kb,
		       (unsigned long long)os->reads.pages, (unsigned long long)os->reads.requests);
		for (k = 0; k < os->reads.requests; k++) {
			const struct readahead_request *q = &os->reads.list[k];
			char *range = xasprintf("%llu-%llu", (unsigned long long)q->first,
						(unsigned long long)(q->first + q->pages - 1));

			printf("    pages %-13s %5llu  ", range, (unsigned long long)q->pages);
			print_cause(q);
			printf("\n");
			free(range);
		}
		free(path);
	}
}

static void print_text(const struct summary *s, bool timeline)
{
	const struct trace *t = s->trace;
	size_t i, total_code = 0, total_data = 0;
	char n1[24], n2[24];

	printf("%s: %s (pid %ld, page size %llu)\n", t->path, t->command ? t->command : "?", t->pid,
	       (unsigned long long)t->page_size);
	printf("  %-56s %10s %10s", "object", "code pages", "data pages");
	if (cold)
		printf("  cold start at %lu KiB: file pages read (requests)", read_ahead_kb);
	printf("\n");
	for (i = 0; i < t->object_count; i++) {
		const struct object_summary *os = &s->objects[i];
		char *path = trace_quote(os->object->path);

		printf("  %-56s %10zu %10zu", path, os->code, os->data);
		if (cold && os->cold)
			printf("  %llu (%llu)", (unsigned long long)os->reads.pages, (unsigned long long)os->reads.requests);
		else if (cold)
			printf("  -");
		printf("\n");
		free(path);
		total_code += s->objects[i].code;
		total_data += s->objects[i].data;
	}
	printf("  %-56s %10zu %10zu\n", "all objects", total_code, total_data);
	printf("  other mapped files %zu, heap %zu, stack %zu, other anonymous %zu; functions first executed %s, "
	       "data objects first used %s%s\n", s->other_files, s->heap, s->stack, s->anonymous,
	       recorded(s, s->functions, n1), recorded(s, s->data_objects, n2),
	       s->trace->granularity == TRACE_GRANULARITY_PAGE
		       ? " (a trace by page: pagein --granularity=function records them)" : "");
	printf("  object pages touched by each tenth of the run (guest instructions):\n   ");
	for (i = 0; i < TIMELINE_STEPS; i++)
		printf(" %zu%%:%zu", (i + 1) * 10, s->timeline[i]);
	printf("\n");
	if (cold && read_requests)
		print_requests(s);
	if (!timeline)
		return;
	printf("  %8s %12s %s %-32s %s\n", "seq", "time", "k", "object+offset", "symbol");
	for (i = 0; i < t->event_count; i++) {
		const struct trace_event *r = &t->events[i];
		const struct trace_object *o = trace_object_at(t, r->address, 1);
		char *where, *name = o ? trace_quote(base_name(o->path)) : NULL, *symbol = trace_quote(r->symbol);

		if (o)
			where = xasprintf("%s+0x%llx", name, (unsigned long long)(r->address - o->base));
		else
			where = xasprintf("0x%llx", (unsigned long long)r->address);
		printf("  %8llu %12llu %c %-32s %s\n", (unsigned long long)r->sequence, (unsigned long long)r->time,
		       r->kind, where, symbol);
		free(where);
		free(name);
		free(symbol);
	}
}

static void print_json(const struct summary *s)
{
	const struct trace *t = s->trace;
	size_t i;

	printf("{\"file\": ");
	json_print_string(t->path);
	printf(", \"command\": ");
	json_print_string(t->command ? t->command : "");
	printf(", \"pid\": %ld, \"page_size\": %llu, \"objects\": [", t->pid, (unsigned long long)t->page_size);
	for (i = 0; i < t->object_count; i++) {
		printf("%s{\"path\": ", i ? ", " : "");
		json_print_string(s->objects[i].object->path);
		printf(", \"build_id\": ");
		json_print_string(s->objects[i].object->build_id);
		printf(", \"base\": %llu, \"code_pages\": %zu, \"data_pages\": %zu",
		       (unsigned long long)s->objects[i].object->base, s->objects[i].code, s->objects[i].data);
		if (s->objects[i].cold) {
			const struct coldstart_reads *reads = &s->objects[i].reads;
			size_t k;

			printf(", \"cold_start\": {\"read_ahead_kb\": %lu, \"pages_read\": %llu, \"read_requests\": %llu",
			       read_ahead_kb, (unsigned long long)reads->pages, (unsigned long long)reads->requests);
			if (read_requests) {
				printf(", \"requests\": [");
				for (k = 0; k < reads->requests; k++)
					printf("%s{\"first_page\": %llu, \"pages\": %llu, \"cause\": \"%s\", \"page\": %llu}",
					       k ? ", " : "", (unsigned long long)reads->list[k].first,
					       (unsigned long long)reads->list[k].pages,
					       readahead_cause_name(reads->list[k].cause),
					       (unsigned long long)reads->list[k].page);
				printf("]");
			}
			printf("}");
		}
		else if (cold)
			printf(", \"cold_start\": null");
		printf("}");
	}
	printf("], \"granularity\": %s", t->granularity == TRACE_GRANULARITY_PAGE       ? "\"page\""
					: t->granularity == TRACE_GRANULARITY_FUNCTION ? "\"function\""
										       : "null");
	printf(", \"other_files\": %zu, \"heap\": %zu, \"stack\": %zu, \"anonymous\": %zu, \"functions\": %zu, "
	       "\"data_objects\": %zu, \"timeline\": [", s->other_files, s->heap, s->stack, s->anonymous, s->functions,
	       s->data_objects);
	for (i = 0; i < TIMELINE_STEPS; i++)
		printf("%s%zu", i ? ", " : "", s->timeline[i]);
	printf("]}");
}

/* The object of b that stands for a's i-th object: the main program (the
   first object) for the main program, otherwise the same file name. */
static const struct object_summary *counterpart(const struct summary *a, size_t i, const struct summary *b)
{
	size_t k;

	if (i == 0)
		return b->trace->object_count ? &b->objects[0] : NULL;
	for (k = 1; k < b->trace->object_count; k++)
		if (!strcmp(base_name(b->objects[k].object->path), base_name(a->objects[i].object->path)))
			return &b->objects[k];
	return NULL;
}

static void ratio(char *buf, size_t n, size_t after, size_t before)
{
	if (before)
		snprintf(buf, n, "%.2fx", (double)after / before);
	else
		snprintf(buf, n, "-");
}

/* The label of a's i-th object's row: its file name, or for a main
   program named otherwise in b, both ("prog-default -> prog"); a new
   string. */
static char *row_label(const struct summary *a, size_t i, const struct object_summary *y)
{
	char *was = trace_quote(base_name(a->objects[i].object->path)), *now, *label;

	if (!y || !strcmp(base_name(y->object->path), base_name(a->objects[i].object->path)))
		return was;
	now = trace_quote(base_name(y->object->path));
	label = xasprintf("%s -> %s", was, now);
	free(was);
	free(now);
	return label;
}

static void print_side_by_side(const struct summary *a, const struct summary *b, const char *relation)
{
	size_t i;
	char r1[32], r2[32], n1[24], n2[24];

	printf("before: %s: %s\nafter:  %s: %s\n", a->trace->path, a->trace->command ? a->trace->command : "?",
	       b->trace->path, b->trace->command ? b->trace->command : "?");
	printf("main program: %s\n", relation);
	printf("  %-40s %8s %8s %7s %8s %8s %7s\n", "object", "code", "code", "", "data", "data", "");
	printf("  %-40s %8s %8s %7s %8s %8s %7s\n", "", "before", "after", "ratio", "before", "after", "ratio");
	for (i = 0; i < a->trace->object_count; i++) {
		const struct object_summary *x = &a->objects[i], *y = counterpart(a, i, b);
		size_t yc = y ? y->code : 0, yd = y ? y->data : 0;
		char *name = row_label(a, i, y);

		ratio(r1, sizeof(r1), yc, x->code);
		ratio(r2, sizeof(r2), yd, x->data);
		printf("  %-40s %8zu %8zu %7s %8zu %8zu %7s\n", name, x->code, yc, r1, x->data, yd, r2);
		free(name);
	}
	for (i = 1; i < b->trace->object_count; i++) {
		size_t k;
		bool matched = false;

		for (k = 1; k < a->trace->object_count; k++)
			if (!strcmp(base_name(a->objects[k].object->path), base_name(b->objects[i].object->path)))
				matched = true;
		if (!matched) {
			char *name = trace_quote(base_name(b->objects[i].object->path));

			printf("  %-40s %8s %8zu %7s %8s %8zu %7s\n", name, "-", b->objects[i].code, "-", "-",
			       b->objects[i].data, "-");
			free(name);
		}
	}
	printf("  heap %zu -> %zu, stack %zu -> %zu, other anonymous %zu -> %zu, functions %s -> %s%s\n", a->heap,
	       b->heap, a->stack, b->stack, a->anonymous, b->anonymous, recorded(a, a->functions, n1),
	       recorded(b, b->functions, n2),
	       a->trace->granularity == TRACE_GRANULARITY_PAGE || b->trace->granularity == TRACE_GRANULARITY_PAGE
		       ? " (n/a: a trace by page, which records no function)" : "");
}

int main(int argc, char **argv)
{
	static const char *const relation_names[] = {
		[RELATION_SAME_BUILD] = "same-build", [RELATION_SAME_PROGRAM] = "same-program",
		[RELATION_RELINKED_IN_PLACE] = "relinked-in-place", [RELATION_RELINKED_ELSEWHERE] = "relinked-elsewhere",
		[RELATION_RELINKED_RENAMED] = "relinked-renamed", [RELATION_UNRELATED] = "unrelated",
	};
	struct trace traces[2];
	struct summary summaries[2];
	char **files, *relation_text = NULL;
	enum relation relation = RELATION_SAME_BUILD;
	int i, count, status = 0;
	bool json;

	progname = "pagein-report";
	count = cli_parse(&command, argc, argv, &files);
	if (count > 2)
		cli_usage_error("give one trace, or two to compare");
	if (count == 2 && cold)
		cli_usage_error("--read-ahead-kb takes one trace");
	if (read_requests && !cold)
		cli_usage_error("--read-requests is for --read-ahead-kb");
	if (same_program && count != 2)
		cli_usage_error("--same-program is for two traces");
	for (i = 0; i < count; i++) {
		char *why;

		if (trace_read_format(files[i], TRACE_PAGEIN, &traces[i], &why) < 0) {
			error("%s: %s", files[i], why);
			return EXIT_INPUT;
		}
		if (!traces[i].complete)
			warn("%s: the trace is incomplete (%s): its figures cover only part of the run", files[i],
			     traces[i].version >= 2 ? "no '# end' line" : "its last line is cut short");
		summarize(&traces[i], &summaries[i]);
	}
	if (count == 2) {
		const struct trace_object *before, *after;
		char *why;

		for (i = 0; i < 2; i++) {
			if (!traces[i].object_count) {
				error("%s: the trace holds no object: nothing to compare", files[i]);
				return EXIT_INPUT;
			}
		}
		before = &traces[0].objects[0];
		after = &traces[1].objects[0];
		relation = relation_of(before, after, same_program);
		if (relation == RELATION_UNRELATED) {
			why = relation_refusal(before, after, "--same-program");
			error("%s, %s: %s", files[0], files[1], why);
			free(why);
			return EXIT_INPUT;
		}
		relation_text = relation_describe(relation, before, after);
	}
	if (cold) {
		size_t k;

		for (k = 0; k < traces[0].object_count; k++) {
			char *why;

			summaries[0].objects[k].cold = cold_start(&traces[0], k, &summaries[0].objects[k].reads, &why);
			if (!summaries[0].objects[k].cold) {
				/* the main program's figure is the one asked for */
				if (k == 0) {
					error("%s: no cold-start figure: %s", files[0], why);
					status = EXIT_INPUT;
				} else {
					warn("%s: no cold-start figure: %s", files[0], why);
				}
				free(why);
			}
		}
	}
	json = format == FORMAT_JSON;
	if (json) {
		printf("{");
		json_print_format("linkopt-pagein-report", 1);
		printf("\"traces\": [");
		for (i = 0; i < count; i++) {
			if (i)
				printf(", ");
			print_json(&summaries[i]);
		}
		printf("]");
		if (count == 2)
			printf(", \"relation\": \"%s\"", relation_names[relation]);
		printf("}\n");
	} else if (count == 1) {
		print_text(&summaries[0], timeline);
	} else {
		print_side_by_side(&summaries[0], &summaries[1], relation_text);
		if (timeline) {
			print_text(&summaries[0], true);
			print_text(&summaries[1], true);
		}
	}
	stdout_close_or_die();
	free(relation_text);
	if (cold)
		for (i = 0; i < traces[0].object_count; i++)
			free(summaries[0].objects[i].reads.list);
	return status ? status : EXIT_OK;
}
