#include "evaluate.h"
#include "trace.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A byte range (offsets in its section) of a hot section on a code page
   the trace touched. */
struct traced_range {
	struct unit_section us;
	uint64_t start, end;
};

/* What one trace touched: the ranges of hot sections that ran on its code
   pages, and touched code pages that hold no hot section (.init, .plt:
   they do not move). */
struct touched {
	struct traced_range *ranges;
	size_t range_count, range_capacity;
	uint64_t *fixed_pages;      /* addresses of the traced link */
	size_t fixed_count, fixed_capacity;
	uint64_t *current;          /* code pages it touched in the traced link */
	size_t current_count, current_capacity;
};

/* Byte ranges (offsets in their section) known to have run. */
struct run_ranges {
	uint64_t *start, *end;
	size_t count, capacity, end_capacity;
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static void add_run_range(struct strmap *runs, const struct ldmap_section *s, uint64_t start, uint64_t end)
{
	char *key = xasprintf("%s\t%s", s->file, s->name);
	void **slot = strmap_slot(runs, key);
	struct run_ranges *r = *slot;

	if (!r)
		*slot = r = xcalloc(1, sizeof(*r));
	else
		free(key);
	grow_array(&r->end, &r->end_capacity, r->count + 1, sizeof(*r->end));
	r->end[r->count] = end;
	*ARRAY_PUSH(r->start, r->count, r->capacity) = start;
}

static void free_run_ranges(struct strmap *runs)
{
	size_t i;

	for (i = 0; i < runs->capacity; i++) {
		struct run_ranges *r = runs->slots[i].value;

		if (!runs->slots[i].key)
			continue;
		free((char *)runs->slots[i].key);
		free(r->start);
		free(r->end);
		free(r);
	}
	strmap_free(runs);
}

/* The size of the function of the unit's section that starts at offset, or 0. */
static uint64_t function_size(const struct unit_section *us, uint64_t offset)
{
	size_t count, i;
	const struct elf_symbol *const *at = elfobj_functions_at(&us->unit->elf, us->section, offset, &count);

	for (i = 0; i < count; i++)
		if (at[i]->type == STT_FUNC && at[i]->size)
			return at[i]->size;
	return 0;
}

/* What ran, per section: the bodies of the functions the trace entered
   (function records and the functions' sizes from their objects) and the
   first instruction of each code-page record.  True if the trace has
   function records. */
static bool collect_runs(const struct trace *trace, const struct trace_object *object, const struct hot_map *map,
			 struct strmap *runs)
{
	bool any_function = false;
	size_t k;

	for (k = 0; k < trace->event_count; k++) {
		const struct trace_event *r = &trace->events[k];
		const struct ldmap_section *s;
		struct unit_section us;
		uint64_t at, offset, size;
		bool mapped;

		if ((r->kind != 'F' && r->kind != 'C') || !trace_object_holds(object, r->ip))
			continue;
		any_function |= r->kind == 'F';
		at = (r->kind == 'F' ? r->address : r->ip) - object->base;
		s = ldmap_find(&map->map, at);
		if (!s)
			continue;
		offset = at - s->address;
		mapped = hot_map_section(map, s, &us);
		size = r->kind == 'F' && mapped ? function_size(&us, offset) : 0;
		if (r->kind == 'F' && !size)
			size = s->size - offset; /* no size known: to the end of the section */
		add_run_range(runs, s, offset, offset + (size ? size : 1));
	}
	return any_function;
}

/* The code page at p of the traced link, cut into the byte ranges that
   ran on it; without function records, every hot section on it. */
static void cut_page(struct touched *tt, const struct hot_map *map, struct strmap *runs, bool any_function,
		     uint64_t p, uint64_t page)
{
	const struct ldmap *m = &map->map;
	bool any = false;
	size_t i, j;

	for (i = ldmap_index_from(m, p); i < m->count && m->sections[i].address < p + page; i++) {
		const struct ldmap_section *s = &m->sections[i];
		uint64_t lo = (s->address > p ? s->address : p) - s->address;
		uint64_t hi = (s->address + s->size < p + page ? s->address + s->size : p + page) - s->address;
		struct unit_section us;
		struct run_ranges *rr;
		char *key;

		if (strcmp(s->output, ".text") || !hot_map_section(map, s, &us))
			continue;
		key = xasprintf("%s\t%s", s->file, s->name);
		rr = strmap_get(runs, key);
		free(key);
		if (!any_function)
			rr = NULL;
		else if (!rr)
			continue;
		for (j = 0; rr ? j < rr->count : j < 1; j++) {
			uint64_t a = rr ? (rr->start[j] > lo ? rr->start[j] : lo) : lo;
			uint64_t b = rr ? (rr->end[j] < hi ? rr->end[j] : hi) : hi;
			struct traced_range *tr;

			if (a >= b)
				continue;
			tr = ARRAY_PUSH(tt->ranges, tt->range_count, tt->range_capacity);
			tr->us = us;
			tr->start = a;
			tr->end = b;
			any = true;
		}
	}
	if (!any)
		*ARRAY_PUSH(tt->fixed_pages, tt->fixed_count, tt->fixed_capacity) = p;
}

/* The code pages the trace touched in the object, cut into what ran. */
static void collect_touched(struct touched *tt, const struct trace *trace, const struct trace_object *object,
			    const struct hot_map *map)
{
	struct strmap runs = { 0 };
	bool any_function = collect_runs(trace, object, map, &runs);
	size_t k, i;

	for (k = 0; k < trace->event_count; k++) {
		const struct trace_event *r = &trace->events[k];
		uint64_t p;

		if (r->kind != 'C' || !trace_object_holds(object, r->address))
			continue;
		p = r->address - object->base;
		*ARRAY_PUSH(tt->current, tt->current_count, tt->current_capacity) = p;
		cut_page(tt, map, &runs, any_function, p, trace->page_size);
	}
	/* .init and .fini run at every start and exit and do not move; a
	   trace cannot tell them on a page that hot code shares. */
	for (i = 0; i < map->map.count; i++)
		if (!strcmp(map->map.sections[i].output, ".init") || !strcmp(map->map.sections[i].output, ".fini"))
			*ARRAY_PUSH(tt->fixed_pages, tt->fixed_count, tt->fixed_capacity) = map->map.sections[i].address;
	free_run_ranges(&runs);
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct pages, and distinct windows of window bytes, in a list. */
static void count_pages(uint64_t *pages, size_t n, uint64_t window, size_t *distinct, size_t *windows)
{
	size_t i;

	if (n)
		qsort(pages, n, sizeof(*pages), compare_u64);
	*distinct = *windows = 0;
	for (i = 0; i < n; i++) {
		if (i && pages[i] == pages[i - 1])
			continue;
		(*distinct)++;
		if (!i || pages[i] / window != pages[i - 1] / window)
			(*windows)++;
	}
}

/* Where the order puts each hot .text section: unit_section_key -> address. */
static void lay_out(const struct hot_order *hot, struct strmap *placed_at)
{
	uint64_t pos = hot->text_start;
	size_t i;

	for (i = 0; i < hot->count; i++) {
		const struct unit_section *us = &hot->sections[i];
		const struct elf_section *s;
		uint64_t *at;

		if (!hot_bound_for_text(us))
			continue;
		s = &us->unit->elf.sections[us->section];
		pos = align_up(pos, s->addralign);
		at = xmalloc(sizeof(*at));
		*at = pos;
		*strmap_slot(placed_at, unit_section_key(us->unit, us->section)) = at;
		pos += s->size;
	}
}

static void print_row(const char *name, struct touched *tt, const struct strmap *placed_at, uint64_t page)
{
	uint64_t *pages = NULL, window = 65536;
	size_t n = 0, capacity = 0, distinct, windows, old_distinct, old_windows, i;

	for (i = 0; i < tt->fixed_count; i++)
		*ARRAY_PUSH(pages, n, capacity) = tt->fixed_pages[i] / page * page;
	for (i = 0; i < tt->range_count; i++) {
		const struct traced_range *r = &tt->ranges[i];
		char *key = unit_section_key(r->us.unit, r->us.section);
		uint64_t *at = strmap_get(placed_at, key), a;

		free(key);
		if (!at)
			continue;
		for (a = (*at + r->start) / page * page; a < *at + r->end; a += page)
			*ARRAY_PUSH(pages, n, capacity) = a;
	}
	count_pages(pages, n, window, &distinct, &windows);
	count_pages(tt->current, tt->current_count, window, &old_distinct, &old_windows);
	printf("%-40s %14zu %14zu %16zu %16zu\n", name, old_distinct, distinct, old_windows, windows);
	free(pages);
}

void evaluate_traces(const struct hot_order *hot, const struct hot_inputs *in, uint64_t page_size)
{
	struct strmap placed_at = { 0 };
	uint64_t page = page_size ? page_size : 4096;
	size_t t, i;

	lay_out(hot, &placed_at);
	printf("%-40s %14s %14s %16s %16s\n", "trace", "pages now", "pages ordered", "64K windows now",
	       "64K windows ord.");
	for (t = 0; t < in->count; t++) {
		const struct traced_run *run = &in->runs[t];
		struct touched tt = { 0 };

		/* A trace of function entries alone (cygtrace) says nothing of pages. */
		if (!run->object || !run->trace.page_size)
			continue;
		collect_touched(&tt, &run->trace, run->object, &in->map);
		print_row(run->path, &tt, &placed_at, page);
		free(tt.ranges);
		free(tt.fixed_pages);
		free(tt.current);
	}
	for (i = 0; i < placed_at.capacity; i++) {
		free((char *)placed_at.slots[i].key);
		free(placed_at.slots[i].value);
	}
	strmap_free(&placed_at);
}
