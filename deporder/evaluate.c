#include "evaluate.h"
#include "coldstart.h"
#include "layout.h"
#include "trace.h"
#include "util.h"

#include <elf.h>
#include <inttypes.h>
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
   pages, touched code pages that hold no hot section (.plt: they do not
   move), and .init and .fini, which run at every start and exit (the
   order moves .fini to the end of the traced code). */
struct touched {
	struct traced_range *ranges;
	size_t range_count, range_capacity;
	uint64_t *fixed_pages;      /* addresses of the traced link */
	size_t fixed_count, fixed_capacity;
	size_t *always;             /* map sections of .init and .fini */
	size_t always_count, always_capacity;
	uint64_t *current;          /* code pages it touched in the traced link */
	size_t current_count, current_capacity;
};

/* Byte ranges (offsets in their section) known to have run. */
struct run_ranges {
	uint64_t *start, *end;
	size_t count, capacity, end_capacity;
};

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

		if ((r->kind != TRACE_FUNCTION && r->kind != TRACE_CODE) || !trace_object_holds(object, r->ip))
			continue;
		any_function |= r->kind == TRACE_FUNCTION;
		at = (r->kind == TRACE_FUNCTION ? r->address : r->ip) - object->base;
		s = ldmap_find(&map->map, at);
		if (!s)
			continue;
		offset = at - s->address;
		mapped = hot_map_section(map, s, &us);
		size = r->kind == TRACE_FUNCTION && mapped ? function_size(&us, offset) : 0;
		if (r->kind == TRACE_FUNCTION && !size)
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

		/* what runs there is counted where the order puts it */
		if (!strcmp(s->output, ".init") || !strcmp(s->output, ".fini")) {
			any = true;
			continue;
		}
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

		if (r->kind != TRACE_CODE || !trace_object_holds(object, r->address))
			continue;
		p = r->address - object->base;
		*ARRAY_PUSH(tt->current, tt->current_count, tt->current_capacity) = p;
		cut_page(tt, map, &runs, any_function, p, trace->page_size);
	}
	/* .init and .fini run at every start and exit; a trace cannot tell
	   them on a page that hot code shares. */
	for (i = 0; i < map->map.count; i++)
		if (!strcmp(map->map.sections[i].output, ".init") || !strcmp(map->map.sections[i].output, ".fini"))
			*ARRAY_PUSH(tt->always, tt->always_count, tt->always_capacity) = i;
	free_run_ranges(&runs);
}

/* Distinct pages, and distinct windows of window bytes, in a list. */
static void count_pages(uint64_t *pages, size_t n, uint64_t window, size_t *distinct, size_t *windows)
{
	size_t i;

	if (n)
		qsort(pages, n, sizeof(*pages), u64_compare);
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
static void lay_out(const struct hot_order *hot, const struct layout *layout, struct strmap *placed_at)
{
	size_t i, k;

	for (i = 0; i < hot->count; i++) {
		const struct unit_section *us = &hot->sections[i];
		uint64_t *at;
		void **slot;
		char *key;

		if (!hot_bound_for_text(us) || (k = layout_map_index(layout, us)) == SIZE_MAX)
			continue;
		key = unit_section_key(us->unit, us->section);
		slot = strmap_slot(placed_at, key);
		if (*slot) {
			free(key);
			continue;
		}
		at = xmalloc(sizeof(*at));
		*at = layout->address[k];
		*slot = at;
	}
}

/* A first touch of a page in the ordered link: when the run made it, and
   where the byte it touched lands. */
struct touch_at {
	uint64_t time, sequence;
	uint64_t first_use;         /* among touches of one record: which first */
	uint64_t rank;
	uint64_t address;
};

struct touch_list {
	struct touch_at *list;
	size_t count, capacity;
};

static void add_touch(struct touch_list *l, uint64_t time, uint64_t sequence, uint64_t address)
{
	struct touch_at *t = ARRAY_PUSH(l->list, l->count, l->capacity);

	t->time = time;
	t->sequence = sequence;
	t->first_use = 0;
	t->rank = l->count;
	t->address = address;
}

/* The bytes [lo, hi) of the traced link, wherever the order puts them:
   a touch of each page they land on. */
static void add_range(struct touch_list *l, uint64_t time, uint64_t sequence, const struct layout *layout,
		      uint64_t lo, uint64_t hi, uint64_t page)
{
	const struct ldmap *m = &layout->map->map;
	size_t i;

	for (i = ldmap_index_from(m, lo); i < m->count && m->sections[i].address < hi; i++) {
		const struct ldmap_section *s = &m->sections[i];
		uint64_t a = s->address > lo ? s->address : lo, b = s->address + s->size < hi ? s->address + s->size : hi;
		uint64_t from, to, p;

		if (a >= b)
			continue;
		from = layout->address[i] + (a - s->address);
		to = from + (b - a);
		for (p = from / page * page; p < to; p += page)
			add_touch(l, time, sequence, p > from ? p : from);
	}
}

static int compare_touch(const void *a, const void *b)
{
	const struct touch_at *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->sequence != y->sequence)
		return x->sequence < y->sequence ? -1 : 1;
	if (x->first_use != y->first_use)
		return x->first_use < y->first_use ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static bool in_sorted(const uint64_t *list, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (list[mid] == v)
			return true;
		if (list[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* What the trace says of the input sections, for moving its touches. */
struct trace_facts {
	uint64_t *code_pages;    /* pages of C records, sorted */
	size_t code_page_count;
	uint64_t *used_at;       /* per map section of data: when the run first used it, as far
				    as the trace tells (its first data object record, else the
				    first run of traced code that refers to it); UINT64_MAX */
	bool *relocated;         /* per map section: ld.so writes to it at start-up */
	uint64_t relocating_at;  /* when ld.so first wrote to such a section */
	struct strmap functions; /* units with a function record */
	struct strmap runs;      /* "file\tsection" -> struct run_ranges: what ran (collect_runs) */
};

static void collect_facts(struct trace_facts *f, const struct trace *trace, const struct trace_object *object,
			  const struct trace_object *loader, const struct hot_order *hot, struct link *link,
			  const struct layout *layout, bool position_independent, uint64_t page)
{
	const struct hot_map *map = layout->map;
	size_t k, capacity = 0, count = map->map.count ? map->map.count : 1;
	uint64_t *ran_at = xmalloc(count * sizeof(*ran_at)), *referred_at = xmalloc(count * sizeof(*referred_at));

	memset(f, 0, sizeof(*f));
	f->used_at = xmalloc(count * sizeof(*f->used_at));
	for (k = 0; k < count; k++)
		f->used_at[k] = ran_at[k] = referred_at[k] = UINT64_MAX;
	for (k = 0; k < trace->event_count; k++) {
		const struct trace_event *r = &trace->events[k];
		uint64_t at = r->kind == TRACE_CODE ? r->ip : r->address;
		const struct ldmap_section *s;
		struct unit_section us;
		size_t i;

		if (r->kind == TRACE_CODE && trace_object_holds(object, r->ip))
			*ARRAY_PUSH(f->code_pages, f->code_page_count, capacity) = (r->address - object->base) / page * page;
		if ((r->kind != TRACE_OBJECT && r->kind != TRACE_FUNCTION && r->kind != TRACE_CODE) || !trace_object_holds(object, at))
			continue;
		s = ldmap_find(&map->map, at - object->base);
		if (!s)
			continue;
		i = s - map->map.sections;
		if (r->kind == TRACE_OBJECT && r->time < f->used_at[i])
			f->used_at[i] = r->time;
		if (r->kind != TRACE_OBJECT && r->time < ran_at[i])
			ran_at[i] = r->time;
		if (r->kind == TRACE_FUNCTION && hot_map_section(map, s, &us))
			*strmap_slot(&f->functions, us.unit->name) = us.unit;
	}
	if (f->code_page_count)
		qsort(f->code_pages, f->code_page_count, sizeof(*f->code_pages), u64_compare);
	collect_runs(trace, object, map, &f->runs);
	/* the data the traced code refers to, from when that code first ran */
	for (k = 0; k < hot->count; k++) {
		const struct unit_section *us = &hot->sections[k];
		const struct elf_section *text;
		size_t from = layout_map_index(layout, us), r;

		if (!hot_bound_for_text(us) || from == SIZE_MAX || ran_at[from] == UINT64_MAX)
			continue;
		text = &us->unit->elf.sections[us->section];
		for (r = 0; r < text->reloc_count; r++) {
			struct unit_section to;
			size_t i;

			if (!sections_reloc_target(link, us->unit, &text->relocs[r], &to.unit, &to.section))
				continue;
			i = layout_map_index(layout, &to);
			if (i != SIZE_MAX && ran_at[from] < referred_at[i])
				referred_at[i] = ran_at[from];
		}
	}
	for (k = 0; k < count; k++)
		if (f->used_at[k] == UINT64_MAX)
			f->used_at[k] = referred_at[k];
	/* the pointers of a position-independent file are relocated by ld.so
	   as it starts, wherever they are */
	f->relocated = xcalloc(count, sizeof(bool));
	for (k = 0; position_independent && k < map->map.count; k++) {
		struct unit_section us;

		if (hot_map_section(map, &map->map.sections[k], &us)) {
			const struct elf_section *s = &us.unit->elf.sections[us.section];

			f->relocated[k] = (s->flags & SHF_WRITE) && s->reloc_count;
		}
	}
	f->relocating_at = UINT64_MAX;
	for (k = 0; loader && k < trace->event_count; k++) {
		const struct trace_event *r = &trace->events[k];
		uint64_t p = r->address - object->base;
		size_t i;

		if (r->kind != TRACE_DATA || !trace_object_holds(loader, r->ip) || trace_object_at(trace, r->address, page) != object)
			continue;
		for (i = ldmap_index_from(&map->map, p); i < map->map.count && map->map.sections[i].address < p + page; i++)
			if (f->relocated[i] && r->time < f->relocating_at)
				f->relocating_at = r->time;
	}
	free(ran_at);
	free(referred_at);
}

static void free_facts(struct trace_facts *f)
{
	free(f->code_pages);
	free(f->used_at);
	free(f->relocated);
	strmap_free(&f->functions);
	free_run_ranges(&f->runs);
}

/* The parts on the page at p of the functions of s that the run entered
   (their whole bodies, unless a body spans a page the run never touched),
   at the end of the run: the trace tells that they ran, after the page's
   first touch, not when, and where the order puts them on other pages
   those pages are read when the run first touches them, or, if nothing
   did, by then. */
static void move_runs(struct touch_list *l, const struct trace_event *r, uint64_t p, const struct ldmap_section *s,
		      const struct layout *layout, const struct trace_facts *f, uint64_t page)
{
	char *key = xasprintf("%s\t%s", s->file, s->name);
	const struct run_ranges *rr = strmap_get(&f->runs, key);
	size_t j;

	free(key);
	for (j = 0; rr && j < rr->count; j++) {
		uint64_t a = s->address + rr->start[j], b = s->address + rr->end[j], q;

		/* a body over a page the run never touched skipped code: of
		   it, only its entry is known to have run */
		for (q = a / page * page; q < b; q += page)
			if (!in_sorted(f->code_pages, f->code_page_count, q))
				b = a + 1;
		if (a < p)
			a = p;
		if (b > p + page)
			b = p + page;
		if (b > s->address + s->size)
			b = s->address + s->size;
		if (a < b)
			add_range(l, UINT64_MAX - 1, r->sequence, layout, a, b, page);
	}
}

/* A code page the trace touched first at r: the instruction that touched
   it; the parts on the page of the functions the run entered (move_runs);
   the whole part on the page of sections whose objects told the tracer of
   no function (crt files, objects without debug information), so that
   what runs there leaves no other record; and .init and the PLT, which
   stay where they are.  .fini runs at exit. */
static void move_code_page(struct touch_list *l, const struct trace_event *r, uint64_t p, uint64_t ip,
			   const struct layout *layout, const struct trace_facts *f, uint64_t page)
{
	const struct hot_map *map = layout->map;
	size_t i;

	add_touch(l, r->time, r->sequence, layout_address(layout, ip));
	for (i = ldmap_index_from(&map->map, p); i < map->map.count && map->map.sections[i].address < p + page; i++) {
		const struct ldmap_section *s = &map->map.sections[i];
		struct unit_section us;

		if (!layout->moved[i]) {
			/* the code before .text runs at every start (the PLT on a
			   call into a shared library): where the order moves the
			   page's other code away, it is touched all the same */
			if (!strcmp(s->output, ".init") || !strncmp(s->output, ".plt", 4) || !strcmp(s->output, ".iplt"))
				add_range(l, r->time, r->sequence, layout, s->address > p ? s->address : p,
					  s->address + s->size < p + page ? s->address + s->size : p + page, page);
			continue;
		}
		if (!strcmp(s->output, ".fini"))
			continue;
		if (hot_map_section(map, s, &us) && strmap_get(&f->functions, us.unit->name)) {
			move_runs(l, r, p, s, layout, f, page);
			continue;
		}
		add_range(l, r->time, r->sequence, layout, s->address > p ? s->address : p,
			  s->address + s->size < p + page ? s->address + s->size : p + page, page);
	}
}

/* Whether section i, moved by the order, was likely touched on a data
   page: by ld.so (loader) if ld.so relocates it, by the program if the run
   is known to use it. */
static bool likely_touched(const struct trace_facts *f, const struct layout *layout, size_t i, bool loader)
{
	return layout->moved[i] && (loader ? f->relocated[i] : f->used_at[i] != UINT64_MAX);
}

/* True if the map's section s is a section of merged strings. */
static bool is_strings(const struct hot_map *map, const struct ldmap_section *s)
{
	const struct unit *u = strmap_get(&map->units, s->file);
	uint32_t k = u ? elfobj_section_by_name(&u->elf, s->name) : 0;

	return k && (u->elf.sections[k].flags & SHF_STRINGS);
}

/* A data page the trace touched first at r.  Where its sections move, the
   touch goes with those likely touched (likely_touched), the one used
   first first; when ld.so made it, also with the sections that stay there
   (the linker's: the dynamic section, the GOT), which are what ld.so reads
   and writes besides relocations.  With none of them, with every section
   on the page. */
static void move_data_page(struct touch_list *l, const struct trace_event *r, uint64_t p, bool loader, bool library,
			   const struct layout *layout, const struct trace_facts *f, uint64_t page)
{
	const struct ldmap *m = &layout->map->map;
	size_t first = ldmap_index_from(m, p), i;
	bool moves = false, stays = false, known = false;

	for (i = first; i < m->count && m->sections[i].address < p + page; i++) {
		moves |= layout->moved[i];
		stays |= !layout->moved[i];
		known |= likely_touched(f, layout, i, loader);
	}
	if (!moves || (loader && stays))
		add_touch(l, r->time, r->sequence, layout_in_segment(layout, p));
	if (!moves || (loader && stays && !known))
		return;
	for (i = first; i < m->count && m->sections[i].address < p + page; i++) {
		const struct ldmap_section *s = &m->sections[i];
		uint64_t lo = s->address > p ? s->address : p;
		uint64_t hi = s->address + s->size < p + page ? s->address + s->size : p + page;
		size_t k = l->count;

		if (known && !likely_touched(f, layout, i, loader) && !(library && is_strings(layout->map, s)))
			continue;
		if (loader && f->relocated[i]) {
			/* ld.so relocates in the order of its relocations: of addresses */
			add_range(l, f->relocating_at, 0, layout, lo, hi, page);
			for (; k < l->count; k++)
				l->list[k].first_use = l->list[k].address;
			continue;
		}
		add_range(l, r->time, r->sequence, layout, lo, hi, page);
		for (; k < l->count; k++)
			l->list[k].first_use = f->used_at[i] != UINT64_MAX ? f->used_at[i] : r->time;
	}
}

/* .fini, where the order puts it, when its page ran: at exit. */
static void move_fini(struct touch_list *l, const struct layout *layout, const struct trace_facts *f, uint64_t page)
{
	const struct ldmap *m = &layout->map->map;
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, ".fini") &&
		    in_sorted(f->code_pages, f->code_page_count, m->sections[i].address / page * page))
			add_touch(l, UINT64_MAX, UINT64_MAX, layout->address[i]);
}

void evaluate_cold_start(const struct evaluate_context *ctx, const struct traced_run *run, const struct layout *layout,
			 const struct coldstart_file *file, struct coldstart_reads *now, struct coldstart_reads *ordered)
{
	const struct hot_order *hot = ctx->hot;
	struct link *link = ctx->link;
	unsigned long read_ahead_kb = ctx->read_ahead_kb;
	uint64_t page = run->trace.page_size;
	struct coldstart_file placed;
	const struct trace *trace = &run->trace;
	const struct trace_object *object = run->object;
	bool program = object == &trace->objects[0];
	const struct trace_object *loader = NULL;
	struct touch_list moved = { 0 };
	struct trace_facts facts;
	uint64_t *addresses;
	size_t count, k, prefetch_at;

	/* the dynamic loader runs the first instruction of the process */
	if (trace->event_count)
		loader = trace_object_at(trace, trace->events[0].ip, 1);
	if (loader == object)
		loader = NULL;

	collect_facts(&facts, trace, object, loader, hot, link, layout, file->position_independent, page);
	for (k = 0; k < trace->event_count; k++) {
		const struct trace_event *r = &trace->events[k];
		uint64_t at;

		if (r->kind != TRACE_CODE && r->kind != TRACE_DATA && r->kind != TRACE_FUNCTION && r->kind != TRACE_OBJECT)
			continue;
		if (trace_object_at(trace, r->address, r->kind == TRACE_CODE || r->kind == TRACE_DATA ? page : 1) != object)
			continue;
		at = r->address - object->base;
		if (r->kind == TRACE_CODE)
			move_code_page(&moved, r, at, trace_object_holds(object, r->ip) ? r->ip - object->base : at,
				       layout, &facts, page);
		else if (r->kind == TRACE_FUNCTION || r->kind == TRACE_OBJECT)
			add_touch(&moved, r->time, r->sequence, layout_address(layout, at));
		else
			move_data_page(&moved, r, at, loader && trace_object_holds(loader, r->ip),
				       !trace_object_holds(object, r->ip) && !(loader && trace_object_holds(loader, r->ip)),
				       layout, &facts, page);
	}
	move_fini(&moved, layout, &facts, page);
	/* the run as it was, linkopt-prefetch.o's madvise included when the
	   traced file has it (an ordered link evaluated again), as
	   pagein-report replays it */
	addresses = coldstart_trace_touches(trace, object, file, &count, &prefetch_at);
	*now = coldstart_replay_at(file, program, addresses, count, read_ahead_kb, prefetch_at);
	if (moved.count)
		qsort(moved.list, moved.count, sizeof(*moved.list), compare_touch);
	free(addresses);
	addresses = xmalloc((moved.count ? moved.count : 1) * sizeof(*addresses));
	for (k = 0; k < moved.count; k++)
		addresses[k] = moved.list[k].address;
	layout_file(layout, file, &placed);
	*ordered = coldstart_replay(&placed, program, addresses, moved.count, read_ahead_kb);
	coldstart_file_free(&placed);
	free(addresses);
	free(moved.list);
	free_facts(&facts);
}

static struct evaluate_rows *recorded_rows;

void evaluate_record_rows(struct evaluate_rows *rows)
{
	recorded_rows = rows;
}

static void print_row(const char *name, struct touched *tt, const struct strmap *placed_at,
		      const struct layout *layout, uint64_t page, const struct coldstart_reads *now,
		      const struct coldstart_reads *ordered)
{
	uint64_t *pages = NULL, window = 65536, a;
	size_t n = 0, capacity = 0, distinct, windows, old_distinct, old_windows, i;

	for (i = 0; i < tt->fixed_count; i++)
		*ARRAY_PUSH(pages, n, capacity) = tt->fixed_pages[i] / page * page;
	for (i = 0; i < tt->always_count; i++) {
		const struct ldmap_section *s = &layout->map->map.sections[tt->always[i]];
		uint64_t at = layout->address[tt->always[i]];

		for (a = at / page * page; a < at + (s->size ? s->size : 1); a += page)
			*ARRAY_PUSH(pages, n, capacity) = a;
	}
	for (i = 0; i < tt->range_count; i++) {
		const struct traced_range *r = &tt->ranges[i];
		char *key = unit_section_key(r->us.unit, r->us.section);
		uint64_t *at = strmap_get(placed_at, key);

		free(key);
		if (!at)
			continue;
		for (a = (*at + r->start) / page * page; a < *at + r->end; a += page)
			*ARRAY_PUSH(pages, n, capacity) = a;
	}
	count_pages(pages, n, window, &distinct, &windows);
	count_pages(tt->current, tt->current_count, window, &old_distinct, &old_windows);
	printf("%-40s %14zu %14zu %16zu %16zu", name, old_distinct, distinct, old_windows, windows);
	if (recorded_rows)
		*ARRAY_PUSH(recorded_rows->rows, recorded_rows->count, recorded_rows->capacity) = (struct evaluate_row){
			xstrdup(name), old_distinct, distinct, old_windows, windows, now != NULL,
			now ? now->pages : 0, now ? ordered->pages : 0, now ? now->requests : 0,
			now ? ordered->requests : 0 };
	if (now)
		printf(" %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64 "\n", now->pages, ordered->pages,
		       now->requests, ordered->requests);
	else
		printf(" %10s %12s %10s %12s\n", "-", "-", "-", "-");
	free(pages);
}

void evaluate_traces(const struct evaluate_context *ctx, const struct laid_order *order)
{
	const struct hot_inputs *in = ctx->in;
	struct strmap placed_at = { 0 };
	struct coldstart_file file;
	struct layout layout;
	bool have_file;
	char *why;
	size_t t, i;

	have_file = coldstart_file_read(&file, in->binary_path, &why) == 0;
	if (!have_file) {
		warn("%s: no cold-start figures: %s", in->binary_path, why);
		free(why);
	}
	layout_compute(&layout, &in->map, order->entries, order->count, order->hot_count, order->placement,
		       have_file ? &file : NULL);
	lay_out(ctx->hot, &layout, &placed_at);
	printf("%-40s %14s %14s %16s %16s %10s %12s %10s %12s\n", "trace", "pages now", "pages ordered",
	       "64K windows now", "64K windows ord.", "read now", "read ordered", "reqs now", "reqs ordered");
	for (t = 0; t < in->count; t++) {
		const struct traced_run *run = &in->runs[t];
		struct coldstart_reads now, ordered;
		struct touched tt = { 0 };
		bool cold = have_file && run->trace.page_size == 4096;

		/* A trace of function entries alone (cygtrace) says nothing of pages. */
		if (!run->object || !run->trace.page_size)
			continue;
		collect_touched(&tt, &run->trace, run->object, &in->map);
		if (cold)
			evaluate_cold_start(ctx, run, &layout, &file, &now, &ordered);
		/* pages of the trace's size, now and ordered alike, whatever
		   --page-size packed for */
		print_row(run->path, &tt, &placed_at, &layout, run->trace.page_size, cold ? &now : NULL,
			  cold ? &ordered : NULL);
		free(tt.ranges);
		free(tt.fixed_pages);
		free(tt.always);
		free(tt.current);
	}
	for (i = 0; i < placed_at.capacity; i++) {
		free((char *)placed_at.slots[i].key);
		free(placed_at.slots[i].value);
	}
	strmap_free(&placed_at);
	layout_free(&layout);
	if (have_file)
		coldstart_file_free(&file);
}
