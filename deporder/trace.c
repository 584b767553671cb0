/* trace: records of pagein and cygtrace traces turned into input sections
   of the closure, through the traced binary's link map: an address of the
   binary falls in exactly one input section of one file, whatever its
   symbols are called (static functions, .isra/.part/.constprop clones,
   .cold parts each land in their own section). */
#include "linkmodel.h"
#include "ldmap.h"
#include "trace.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool bound_for_text(const struct unit_section *us);

struct touch {
	struct unit_section us;
	double traces;         /* the weights of the traces that touched it */
	size_t last_trace;     /* 1 + the last trace that counted it */
	uint64_t mask;         /* which traces touched it (the first 64) */
	double first;          /* earliest relative position in a trace, 0..1 */
	size_t order;          /* first seen, for ties */
};

static bool first_touch_only;

/* Sections the linker creates itself (no input file has them). */
static bool linker_made(const char *name)
{
	static const char *const prefixes[] = { ".dynbss", ".dynamic", ".dynsym", ".dynstr", ".got", ".plt",
						".iplt", ".igot", ".rela.", ".rel.", ".interp", ".hash", ".gnu.hash",
						".gnu.version", ".eh_frame_hdr", NULL };
	int i;

	for (i = 0; prefixes[i]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static int by_importance(const void *a, const void *b)
{
	const struct touch *x = a, *y = b;

	if (!first_touch_only && x->traces != y->traces)
		return x->traces > y->traces ? -1 : 1;
	/* Among sections used by as many traces, those used by the same ones
	   together, so that each trace's sections lie close. */
	if (!first_touch_only && x->mask != y->mask)
		return x->mask > y->mask ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The section of u named name with that size; 0 if none. */
static uint32_t section_named(const struct unit *u, const char *name, uint64_t size)
{
	uint32_t k;

	for (k = 1; k < u->elf.section_count; k++)
		if (sections_is_unit(u, k) && u->elf.sections[k].size == size && !strcmp(u->elf.sections[k].name, name))
			return k;
	return 0;
}

/* The C run-time's start-up files run at every start, partly through code
   no trace names (crtbegin's frame_dummy and register_tm_clones): their
   code is hot whether a trace saw it or not. */
/* crt1.o, Scrt1.o, crti.o, crtbeginS.o, crtendS.o, crtn.o and the like. */
static bool is_startup_file(const char *base)
{
	size_t n = strlen(base);

	if (n < 5 || strcmp(base + n - 2, ".o"))
		return false;
	return !strncmp(base, "crt", 3) || ((base[0] == 'S' || base[0] == 'g' || base[0] == 'r') && !strncmp(base + 1, "crt", 3));
}

static void add_startup_files(struct link *link, struct strmap *touched)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];
		const char *base = strrchr(u->name, '/');

		base = base ? base + 1 : u->name;
		if (u->is_member || !is_startup_file(base))
			continue;
		for (k = 1; k < u->elf.section_count; k++) {
			struct unit_section us = { u, k };
			char *key;

			if (!sections_is_unit(u, k) || !bound_for_text(&us))
				continue;
			key = unit_section_key(u, k);
			if (strmap_get(touched, key)) {
				free(key);
				continue;
			}
			*strmap_slot(touched, key) = (void *)1;
			*ARRAY_PUSH(link->hot, link->hot_count, link->hot_capacity) = us;
		}
	}
}

/* The code pages a pagein trace touched in the object, cut into the byte
   ranges of the sections on them that the trace entered (function records)
   or, without function records, of every section on them. */
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

/* The size of the function of u's section that starts at offset, or 0. */
static uint64_t function_size(const struct unit *u, uint32_t section, uint64_t offset)
{
	size_t k;

	for (k = 1; k < u->elf.symbol_count; k++) {
		const struct elf_symbol *sym = &u->elf.symbols[k];

		if (sym->shndx == section && sym->value == offset && sym->type == STT_FUNC && sym->size)
			return sym->size;
	}
	return 0;
}

/* The code pages a pagein trace touched in the object, cut into the byte
   ranges that ran on them: the bodies of the functions it entered (function
   records and the functions' sizes from their objects), and the first
   instruction of each code-page record; without function records, every
   section on a touched page. */
static void collect_touches(struct link *link, const char *name, const struct trace *pt,
			    const struct trace_object *object, const struct ldmap *map, struct strmap *units)
{
	struct trace_touches *tt;
	struct strmap runs = { 0 };
	bool any_function = false;
	size_t k, i, j;
	uint64_t page = pt->page_size ? pt->page_size : 4096;

	tt = ARRAY_PUSH(link->touches, link->touches_count, link->touches_capacity);
	memset(tt, 0, sizeof(*tt));
	tt->name = xstrdup(name);
	for (k = 0; k < pt->event_count; k++) {
		const struct trace_event *r = &pt->events[k];
		const struct ldmap_section *s;
		uint64_t at, offset, size;
		struct unit *u;
		uint32_t section;

		if ((r->kind != 'F' && r->kind != 'C') || !trace_object_holds(object, r->ip))
			continue;
		any_function |= r->kind == 'F';
		at = (r->kind == 'F' ? r->address : r->ip) - object->base;
		s = ldmap_find(map, at);
		if (!s)
			continue;
		offset = at - s->address;
		u = strmap_get(units, s->file);
		section = u ? section_named(u, s->name, s->size) : 0;
		size = r->kind == 'F' && section ? function_size(u, section, offset) : 0;
		if (r->kind == 'F' && !size)
			size = s->size - offset; /* no size known: to the end of the section */
		add_run_range(&runs, s, offset, offset + (size ? size : 1));
	}
	for (k = 0; k < pt->event_count; k++) {
		const struct trace_event *r = &pt->events[k];
		uint64_t p;
		bool any = false;

		if (r->kind != 'C' || !trace_object_holds(object, r->address))
			continue;
		p = r->address - object->base;
		*ARRAY_PUSH(tt->current, tt->current_count, tt->current_capacity) = p;
		for (i = ldmap_index_from(map, p); i < map->count && map->sections[i].address < p + page; i++) {
			const struct ldmap_section *s = &map->sections[i];
			struct unit *u = strmap_get(units, s->file);
			uint32_t section = u ? section_named(u, s->name, s->size) : 0;
			uint64_t lo = (s->address > p ? s->address : p) - s->address;
			uint64_t hi = (s->address + s->size < p + page ? s->address + s->size : p + page) - s->address;
			struct run_ranges *rr;
			char *key;

			if (!section || strcmp(s->output, ".text"))
				continue;
			key = xasprintf("%s\t%s", s->file, s->name);
			rr = strmap_get(&runs, key);
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
				tr->us = (struct unit_section){ u, section };
				tr->start = a;
				tr->end = b;
				any = true;
			}
		}
		if (!any)
			*ARRAY_PUSH(tt->fixed_pages, tt->fixed_count, tt->fixed_capacity) = p;
	}
	/* .init and .fini run at every start and exit and do not move; a
	   trace cannot tell them on a page that hot code shares. */
	for (i = 0; i < map->count; i++)
		if (!strcmp(map->sections[i].output, ".init") || !strcmp(map->sections[i].output, ".fini"))
			*ARRAY_PUSH(tt->fixed_pages, tt->fixed_count, tt->fixed_capacity) = map->sections[i].address;
	strmap_free(&runs);
}

int trace_hot(struct link *link, char **traces, size_t trace_count, const char *map_path, const char *object_glob,
	      double min_match)
{
	struct ldmap map;
	struct strmap units = { 0 }, touched = { 0 };
	struct touch *touches = NULL;
	size_t touch_count = 0, touch_capacity = 0, i, t;
	char *why;
	int status = 0;

	if (ldmap_read(map_path, &map, &why) < 0) {
		error("%s: %s", map_path, why);
		return EXIT_INPUT;
	}
	for (i = 0; i < link->unit_count; i++)
		*strmap_slot(&units, link->units[i]->name) = link->units[i];
	link->match_rate = 1;
	link->text_start = UINT64_MAX;
	for (i = 0; i < map.count; i++)
		if (!strcmp(map.sections[i].output, ".text") && map.sections[i].address < link->text_start)
			link->text_start = map.sections[i].address;
	if (link->text_start == UINT64_MAX)
		link->text_start = 0;
	for (t = 0; t < trace_count; t++) {
		struct trace pt;
		const struct trace_object *object;
		uint64_t *addresses = NULL;
		size_t address_count = 0, address_capacity = 0, matched = 0, outside = 0, stale = 0, k;
		struct strmap missing = { 0 };
		char **missing_list = NULL;
		size_t missing_count = 0, missing_capacity = 0;
		struct trace_sequence *sequence;

		if (trace_read(traces[t], &pt, &why) < 0) {
			error("%s: %s", traces[t], why);
			free(why);
			status = EXIT_INPUT;
			continue;
		}
		object = trace_object_matching(&pt, object_glob);
		if (!object) {
			error("%s: no traced object%s%s", traces[t], object_glob ? " matches " : "",
			      object_glob ? object_glob : "");
			status = EXIT_INPUT;
			trace_free(&pt);
			continue;
		}
		/* Function first executions, the instruction that first touched
		   each code page (code that runs without a known function entry,
		   crtbegin's frame_dummy say, is touched all the same), and data
		   objects first used. */
		for (k = 0; k < pt.event_count; k++)
			if (strchr("FCO", pt.events[k].kind))
				*ARRAY_PUSH(addresses, address_count, address_capacity) =
					pt.events[k].kind == 'C' ? pt.events[k].ip : pt.events[k].address;
		sequence = ARRAY_PUSH(link->sequences, link->sequence_count, link->sequence_capacity);
		memset(sequence, 0, sizeof(*sequence));
		for (k = 0; k < address_count; k++) {
			const struct ldmap_section *s;
			struct unit *u;
			uint32_t section = 0;

			if (!trace_object_holds(object, addresses[k]))
				continue;
			s = ldmap_find(&map, addresses[k] - object->base);
			if (!s) {
				outside++;
				continue;
			}
			u = strmap_get(&units, s->file);
			if (u)
				section = section_named(u, s->name, s->size);
			if (!section && linker_made(s->name)) {
				/* Copy relocations, GOT, PLT: the map files them under
				   the first input, but the linker made them. */
				outside++;
				continue;
			}
			if (!u || !section) {
				char *key = xasprintf("%s\t%s", s->file, s->name);
				void **slot = strmap_slot(&missing, key);

				stale++;
				if (*slot)
					free(key);
				else
					*slot = *ARRAY_PUSH(missing_list, missing_count, missing_capacity) = key;
				continue;
			}
			matched++;
			{
				char *key = unit_section_key(u, section);
				void **slot = strmap_slot(&touched, key);
				struct touch *tc;
				double position = (double)k / (address_count ? address_count : 1);

				if (!*slot) {
					tc = ARRAY_PUSH(touches, touch_count, touch_capacity);
					tc->us = (struct unit_section){ u, section };
					tc->traces = 0;
					tc->last_trace = 0;
					tc->mask = 0;
					tc->first = position;
					tc->order = touch_count;
					*slot = (void *)(uintptr_t)touch_count; /* index + 1 */
				} else {
					free(key);
					tc = &touches[(uintptr_t)*slot - 1];
				}
				if (tc->last_trace != t + 1) {
					tc->last_trace = t + 1;
					tc->traces += link->trace_weights ? link->trace_weights[t] : 1;
					if (t < 64)
						tc->mask |= 1ull << t;
					if (position < tc->first)
						tc->first = position;
					*ARRAY_PUSH(sequence->items, sequence->count, sequence->capacity) = tc->us;
				}
			}
		}
		/* A trace of function entries alone (cygtrace) says nothing of pages. */
		if (pt.page_size && link->evaluate)
			collect_touches(link, traces[t], &pt, object, &map, &units);
		{
			size_t total = matched + stale + outside;
			/* What lies outside every input section (linker-made, or code
			   without a file) says nothing about staleness. */
			double rate = matched + stale ? (double)matched / (matched + stale) : 0;

			if (rate < link->match_rate)
				link->match_rate = rate;
			fprintf(stderr, "deporder: %s: %zu records of %s: %zu matched an input section of the link (%.1f%%), "
				"%zu in sections the link no longer has or that changed size, %zu outside every input section\n",
				traces[t], total, object->path, matched, 100 * rate, stale, outside);
			if (!total || rate < min_match) {
				error("%s: only %.1f%% of the trace matches this link (at least %.0f%% needed: --min-match): "
				      "the trace or the map is stale%s", traces[t], 100 * rate, 100 * min_match,
				      missing_count ? "; missing:" : "");
				for (k = 0; k < missing_count && k < 10; k++)
					fprintf(stderr, "  %s\n", missing_list[k]);
				if (missing_count > 10)
					fprintf(stderr, "  ... and %zu more\n", missing_count - 10);
				status = EXIT_INPUT;
			}
		}
		free(addresses);
		trace_free(&pt);
	}
	/* Used by every trace first, then by fewer; among equals, first touched
	   first (or, with link->first_touch_only, first touched first alone). */
	first_touch_only = link->first_touch_only;
	qsort(touches, touch_count, sizeof(*touches), by_importance);
	for (i = 0; i < touch_count; i++)
		*ARRAY_PUSH(link->hot, link->hot_count, link->hot_capacity) = touches[i].us;
	add_startup_files(link, &touched);
	free(touches);
	ldmap_free(&map);
	return status;
}

static bool bound_for_text(const struct unit_section *us)
{
	const struct elf_section *s = &us->unit->elf.sections[us->section];

	return us->section && (s->flags & SHF_EXECINSTR) && !strncmp(s->name, ".text", 5);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

void trace_pack(struct link *link, uint64_t page_size)
{
	struct unit_section *out;
	bool *placed;
	uint64_t pos = link->text_start, bytes = 0, bound_page = page_size ? page_size : 4096;
	size_t i, k, n = 0, sections = 0;

	for (i = 0; i < link->hot_count; i++)
		if (bound_for_text(&link->hot[i])) {
			bytes += link->hot[i].unit->elf.sections[link->hot[i].section].size;
			sections++;
		}
	fprintf(stderr, "deporder: the traced code: %zu sections, %llu bytes: at least %llu pages of %llu "
		"(the whole-function bound)\n", sections, (unsigned long long)bytes,
		(unsigned long long)((bytes + bound_page - 1) / bound_page), (unsigned long long)bound_page);
	if (!page_size)
		return;
	out = xcalloc(link->hot_count ? link->hot_count : 1, sizeof(*out));
	placed = xcalloc(link->hot_count ? link->hot_count : 1, sizeof(bool));
	for (i = 0; i < link->hot_count; i++) {
		const struct unit_section *us = &link->hot[i];
		const struct elf_section *s;
		uint64_t start;

		if (placed[i])
			continue;
		if (!bound_for_text(us)) {
			out[n++] = *us;
			placed[i] = true;
			continue;
		}
		s = &us->unit->elf.sections[us->section];
		start = align_up(pos, s->addralign);
		if (s->size < page_size && start / page_size != (start + s->size - 1) / page_size) {
			/* Fill the rest of this page with later hot sections that fit. */
			for (k = i + 1; k < link->hot_count; k++) {
				const struct elf_section *f;
				uint64_t fstart;

				if (placed[k] || !bound_for_text(&link->hot[k]))
					continue;
				f = &link->hot[k].unit->elf.sections[link->hot[k].section];
				fstart = align_up(pos, f->addralign);
				if (fstart / page_size == (fstart + f->size - 1) / page_size &&
				    fstart / page_size == pos / page_size) {
					out[n++] = link->hot[k];
					placed[k] = true;
					pos = fstart + f->size;
				}
			}
			start = align_up(pos, s->addralign);
		}
		out[n++] = *us;
		placed[i] = true;
		pos = start + s->size;
	}
	memcpy(link->hot, out, n * sizeof(*out));
	free(out);
	free(placed);
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

void trace_evaluate(struct link *link, uint64_t page_size)
{
	struct strmap placed_at = { 0 };
	uint64_t pos = link->text_start, page = page_size ? page_size : 4096, window = 65536;
	size_t i, k;

	/* Where the new layout puts each hot .text section. */
	for (i = 0; i < link->hot_count; i++) {
		const struct unit_section *us = &link->hot[i];
		const struct elf_section *s;
		uint64_t *at;

		if (!bound_for_text(us))
			continue;
		s = &us->unit->elf.sections[us->section];
		pos = align_up(pos, s->addralign);
		at = xmalloc(sizeof(*at));
		*at = pos;
		*strmap_slot(&placed_at, unit_section_key(us->unit, us->section)) = at;
		pos += s->size;
	}
	printf("%-40s %14s %14s %16s %16s\n", "trace", "pages now", "pages ordered", "64K windows now",
	       "64K windows ord.");
	for (k = 0; k < link->touches_count; k++) {
		struct trace_touches *tt = &link->touches[k];
		uint64_t *pages = NULL;
		size_t n = 0, capacity = 0, distinct, windows, old_distinct, old_windows;

		for (i = 0; i < tt->fixed_count; i++)
			*ARRAY_PUSH(pages, n, capacity) = tt->fixed_pages[i] / page * page;
		for (i = 0; i < tt->range_count; i++) {
			const struct traced_range *r = &tt->ranges[i];
			char *key = unit_section_key(r->us.unit, r->us.section);
			uint64_t *at = strmap_get(&placed_at, key), a;

			free(key);
			if (!at)
				continue;
			for (a = (*at + r->start) / page * page; a < *at + r->end; a += page)
				*ARRAY_PUSH(pages, n, capacity) = a;
		}
		count_pages(pages, n, window, &distinct, &windows);
		count_pages(tt->current, tt->current_count, window, &old_distinct, &old_windows);
		printf("%-40s %14zu %14zu %16zu %16zu\n", tt->name, old_distinct, distinct, old_windows, windows);
		free(pages);
	}
}

static bool is_data_section(const struct unit *u, uint32_t k)
{
	const char *n = u->elf.sections[k].name;

	return sections_is_unit(u, k) && !(u->elf.sections[k].flags & SHF_EXECINSTR) &&
	       (!strncmp(n, ".rodata", 7) || !strncmp(n, ".data", 5) || !strncmp(n, ".bss", 4));
}

void trace_add_data(struct link *link)
{
	struct strmap seen = { 0 };
	size_t i, n = link->hot_count, r;

	for (i = 0; i < n; i++) {
		struct unit_section us = link->hot[i];
		const struct elf_section *s;

		if (!bound_for_text(&us))
			continue;
		s = &us.unit->elf.sections[us.section];
		for (r = 0; r < s->reloc_count; r++) {
			struct unit *tu;
			uint32_t ts;
			char *key;
			void **slot;

			if (!sections_reloc_target(link, us.unit, &s->relocs[r], &tu, &ts) || !is_data_section(tu, ts))
				continue;
			key = unit_section_key(tu, ts);
			slot = strmap_slot(&seen, key);
			if (*slot) {
				free(key);
				continue;
			}
			*slot = key;
			*ARRAY_PUSH(link->hot, link->hot_count, link->hot_capacity) = (struct unit_section){ tu, ts };
		}
	}
}
