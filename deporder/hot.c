/* Records of traces turned into input sections of the closure through the
   traced binary's link map: an address of the binary falls in exactly one
   input section of one file, whatever its symbols are called (static
   functions, .isra/.part/.constprop clones, .cold parts each land in their
   own section). */
#define _GNU_SOURCE /* qsort_r */
#include "hot.h"
#include "binding.h"
#include "trace.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct touch {
	struct unit_section us;
	double traces;         /* the weights of the traces that touched it */
	size_t last_trace;     /* 1 + the last trace that counted it */
	uint64_t mask;         /* which traces touched it (the first 64) */
	double first;          /* earliest relative position in a trace, 0..1 */
	size_t order;          /* first seen, for ties */
};

/* What the traces touched so far, each section once. */
struct touches {
	struct touch *list;
	size_t count, capacity;
	struct strmap index;   /* unit_section_key -> 1 + its position in list */
};

/* How one trace's records fared against the link. */
struct match {
	size_t matched, common, stale, outside, linker, renamed;
	struct strmap missing; /* "file\tsection" of the stale ones, each once */
	char **missing_list;
	size_t missing_count, missing_capacity;
};

int hot_map_read(struct hot_map *m, const struct link *link, const char *path, char **why)
{
	size_t i;
	struct strmap normal = { 0 };
	char **keys;

	memset(m, 0, sizeof(*m));
	if (ldmap_read(path, &m->map, why) < 0)
		return -1;
	keys = xcalloc(link->unit_count + 1, sizeof(*keys));
	for (i = 0; i < link->unit_count; i++) {
		*strmap_slot(&m->units, link->units[i]->name) = link->units[i];
		keys[i] = ldmap_normal_path(link->units[i]->name);
		*strmap_slot(&normal, keys[i]) = link->units[i];
	}
	for (i = 0; i < m->map.count; i++) {
		struct ldmap_section *s = &m->map.sections[i];
		const struct unit *u;
		char *key;

		if (strmap_get(&m->units, s->file))
			continue;
		key = ldmap_normal_path(s->file);
		if ((u = strmap_get(&normal, key))) {
			free(s->file);
			s->file = xstrdup(u->name);
		}
		free(key);
	}
	for (i = 0; i < link->unit_count; i++)
		free(keys[i]);
	free(keys);
	strmap_free(&normal);
	return 0;
}

bool hot_map_section(const struct hot_map *m, const struct ldmap_section *s, struct unit_section *us)
{
	struct unit *u = strmap_get(&m->units, s->file);
	uint32_t k;

	if (!u)
		return false;
	for (k = elfobj_section_by_name(&u->elf, s->name); k; k = elfobj_section_next_named(&u->elf, k)) {
		if (sections_is_unit(u, k) && u->elf.sections[k].size == s->size) {
			*us = (struct unit_section){ u, k };
			return true;
		}
	}
	return false;
}

void hot_map_free(struct hot_map *m)
{
	ldmap_free(&m->map);
	strmap_free(&m->units);
}

bool hot_bound_for_text(const struct unit_section *us)
{
	const struct elf_section *s = &us->unit->elf.sections[us->section];

	return us->section && (s->flags & SHF_EXECINSTR) && !strncmp(s->name, ".text", 5);
}

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

/* Mergeable constants (.rodata.str1.1, .rodata.cst8, and gcc's
   .rodata.NAME.str1.1 with -fdata-sections): the linker merges them into
   one section of its own (lld lists each input at its merged size), so no
   input section of the object is there to order or to match. */
static bool merged_constants(const char *name)
{
	const char *p;

	for (p = name; (p = strchr(p, '.')); p++)
		if ((!strncmp(p, ".str", 4) || !strncmp(p, ".cst", 4)) && p[4] >= '0' && p[4] <= '9')
			return true;
	return false;
}

static int by_importance(const void *a, const void *b, void *context)
{
	const struct touch *x = a, *y = b;
	bool first_touch_only = *(const bool *)context;

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

static void add_startup_files(struct hot_order *hot, struct link *link, struct strmap *touched)
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

			if (!sections_is_unit(u, k) || !hot_bound_for_text(&us))
				continue;
			key = unit_section_key(u, k);
			if (strmap_get(touched, key)) {
				free(key);
				continue;
			}
			*strmap_slot(touched, key) = (void *)1;
			*ARRAY_PUSH(hot->sections, hot->count, hot->capacity) = us;
		}
	}
}

/* Counts a section the t-th trace touched at relative position (0..1). */
static void touch(struct hot_order *hot, struct touches *all, struct hot_sequence *sequence, size_t t,
		  struct unit_section us, double position)
{
	char *key = unit_section_key(us.unit, us.section);
	void **slot = strmap_slot(&all->index, key);
	struct touch *tc;

	if (!*slot) {
		tc = ARRAY_PUSH(all->list, all->count, all->capacity);
		tc->us = us;
		tc->traces = 0;
		tc->last_trace = 0;
		tc->mask = 0;
		tc->first = position;
		tc->order = all->count;
		*slot = (void *)(uintptr_t)all->count;
	} else {
		free(key);
		tc = &all->list[(uintptr_t)*slot - 1];
	}
	if (tc->last_trace == t + 1)
		return;
	tc->last_trace = t + 1;
	tc->traces += hot->trace_weights ? hot->trace_weights[t] : 1;
	if (t < 64)
		tc->mask |= 1ull << t;
	if (position < tc->first)
		tc->first = position;
	*ARRAY_PUSH(sequence->items, sequence->count, sequence->capacity) = tc->us;
}

/* The address a record stands for in the code or data it touched: a
   function's entry, the instruction that first ran on a code page (code
   without a known function entry, crtbegin's frame_dummy say, is touched
   all the same), a data object's start; false for the other records. */
static bool touched_address(const struct trace_event *e, uint64_t *address)
{
	if (e->kind == TRACE_FUNCTION || e->kind == TRACE_OBJECT)
		*address = e->address;
	else if (e->kind == TRACE_CODE)
		*address = e->ip;
	else
		return false;
	return true;
}

/* A function record names its function: the section's own object must
   define that name in that section (an address and a size that agree by
   luck are no match).  Records without a name agree. */
static bool names_agree(const struct trace_event *e, const struct unit_section *us)
{
	const struct elf_object *obj = &us->unit->elf;
	char *name;
	uint32_t k;
	bool found = false;

	if (e->kind != TRACE_FUNCTION || !e->symbol || !*e->symbol)
		return true;
	name = xstrndup(e->symbol, strcspn(e->symbol, "@"));
	for (k = elfobj_symbol_by_name(obj, name); k && !found; k = elfobj_symbol_next_named(obj, k))
		found = obj->symbols[k].shndx == us->section;
	free(name);
	return found;
}

/* The common symbol (-fcommon) name of u, or NULL. */
static const struct elf_symbol *common_symbol(const struct unit *u, const char *name)
{
	uint32_t k;

	for (k = elfobj_symbol_by_name(&u->elf, name); k; k = elfobj_symbol_next_named(&u->elf, k))
		if (u->elf.symbols[k].shndx == SHN_COMMON)
			return &u->elf.symbols[k];
	return NULL;
}

/* A data object record of a common symbol: no input section holds one,
   and the map lists it, at its address, under its file's COMMON.  True
   when the map does so for the record's symbol at the record's address,
   and the file, as the link reads it now, has a common symbol of that
   name that fills that place (its size, short of the next symbol by less
   than that one's alignment): a common that grew, shrank or went is
   stale. */
static bool common_agrees(const struct hot_map *map, const struct ldmap_section *s, const struct trace_event *e,
			  uint64_t address)
{
	const struct unit *u = strmap_get(&map->units, s->file);
	const struct ldmap_symbol *listed;
	const struct elf_symbol *common, *next;
	size_t i;

	if (e->kind != TRACE_OBJECT || !e->symbol || !u || strcmp(s->name, "COMMON") || !s->symbol_count)
		return false;
	listed = &map->map.symbols[s->symbol_first];
	for (i = 0; i < s->symbol_count; i++) {
		uint64_t end, alignment = 1;

		if (listed[i].address != address || strcmp(listed[i].name, e->symbol))
			continue;
		if (!(common = common_symbol(u, e->symbol)))
			return false;
		end = i + 1 < s->symbol_count ? listed[i + 1].address : s->address + s->size;
		if (i + 1 < s->symbol_count && (next = common_symbol(u, listed[i + 1].name)) && next->value)
			alignment = next->value;
		return common->size <= end - address && end - address - common->size < alignment;
	}
	return false;
}

/* Maps the records of trace t in object to sections, into all and hot's
   sequence of the trace; counts how they fared in *m. */
static void map_records(struct hot_order *hot, const struct hot_map *map, const struct trace *trace,
			const struct trace_object *object, size_t t, struct touches *all, struct match *m)
{
	struct hot_sequence *sequence = ARRAY_PUSH(hot->sequences, hot->sequence_count, hot->sequence_capacity);
	size_t k, n = 0, records = 0;
	uint64_t address;

	memset(sequence, 0, sizeof(*sequence));
	for (k = 0; k < trace->event_count; k++)
		records += touched_address(&trace->events[k], &address);
	for (k = 0; k < trace->event_count; k++) {
		const struct ldmap_section *s;
		struct unit_section us;
		double position;
		char *key;
		void **slot;

		if (!touched_address(&trace->events[k], &address))
			continue;
		position = (double)n++ / records;
		if (!trace_object_holds(object, address))
			continue;
		s = ldmap_find(&map->map, address - object->base);
		if (!s) {
			m->outside++;
			continue;
		}
		if (hot_map_section(map, s, &us) && names_agree(&trace->events[k], &us)) {
			m->matched++;
			touch(hot, all, sequence, t, us, position);
			continue;
		}
		if (common_agrees(map, s, &trace->events[k], address - object->base)) {
			/* Matched, though there is no input section to order. */
			m->common++;
			continue;
		}
		if (linker_made(s->name) || !strcmp(s->file, LDMAP_INTERNAL) || merged_constants(s->name)) {
			/* Copy relocations, GOT, PLT: the map files them under the
			   first input, but the linker made them; merged strings
			   and constants: the linker made them from the inputs'. */
			m->linker++;
			continue;
		}
		if (hot_map_section(map, s, &us)) {
			m->renamed++;
			key = xasprintf("%s\t%s\t(the trace names it %s)", s->file, s->name, trace->events[k].symbol);
		} else {
			m->stale++;
			key = xasprintf("%s\t%s", s->file, s->name);
		}
		slot = strmap_slot(&m->missing, key);
		if (*slot)
			free(key);
		else
			*slot = *ARRAY_PUSH(m->missing_list, m->missing_count, m->missing_capacity) = key;
	}
}

/* Reports how one trace matched; EXIT_INPUT if it matched too little.
   Every record of the traced object counts: those in sections the linker
   made (PLT, GOT) and the common symbols that agree with the link as
   matched, those outside every input section of the map, and those whose
   section changed, against. */
static int report_match(struct hot_order *hot, const char *name, const struct trace_object *object,
			const struct match *m, double min_match)
{
	size_t total = m->matched + m->common + m->stale + m->renamed + m->outside + m->linker, k;
	double rate = m->matched + m->common ? (double)(m->matched + m->common + m->linker) / total : 0;
	char *path = trace_quote(object->path);

	if (rate < hot->match_rate)
		hot->match_rate = rate;
	*ARRAY_PUSH(hot->stats, hot->stats_count, hot->stats_capacity) = (struct hot_match_stats){
		xstrdup(name), xstrdup(object->path), total, m->matched, m->common, m->linker, m->stale, m->renamed,
		m->outside, rate };
	fprintf(stderr, "deporder: %s: %zu records of %s: %zu matched an input section of the link (%.1f%%), "
		"%zu matched a common symbol (-fcommon: under COMMON, no input section to order), "
		"%zu in sections the linker made (counted as matched), %zu in sections the link no longer has or that changed size, "
		"%zu in a section that does not define the function the trace names, %zu outside every input "
		"section\n", name, total, path, m->matched, 100 * rate, m->common, m->linker, m->stale, m->renamed,
		m->outside);
	free(path);
	if (total && rate >= min_match)
		return 0;
	error("%s: only %.1f%% of the trace matches this link (at least %.0f%% needed: --min-match): %s%s", name,
	      100 * rate, 100 * min_match,
	      !total ? "the trace has no record of the binary"
	      : m->outside > m->stale + m->renamed ? "records fall outside every input section: the map is cut short or "
						     "is not the traced link's"
	      : "the objects given differ from those of the traced link: recompiled since it was linked, or "
		"another link command",
	      m->missing_count ? "; missing:" : "");
	for (k = 0; k < m->missing_count && k < 10; k++)
		fprintf(stderr, "  %s\n", m->missing_list[k]);
	if (m->missing_count > 10)
		fprintf(stderr, "  ... and %zu more\n", m->missing_count - 10);
	return EXIT_INPUT;
}

static uint64_t text_start_of(const struct ldmap *map)
{
	uint64_t start = UINT64_MAX;
	size_t i;

	for (i = 0; i < map->count; i++)
		if (!strcmp(map->sections[i].output, ".text") && map->sections[i].address < start)
			start = map->sections[i].address;
	return start == UINT64_MAX ? 0 : start;
}

int hot_inputs_read(struct hot_inputs *in, const struct link *link, char **traces, size_t trace_count,
		    const char *map_path, const char *binary_path, const char *object_glob)
{
	size_t t;
	char *why;
	int status = 0;

	memset(in, 0, sizeof(*in));
	if (hot_map_read(&in->map, link, map_path, &why) < 0) {
		error("%s: %s", map_path, why);
		free(why);
		return EXIT_INPUT;
	}
	in->runs = xcalloc(trace_count, sizeof(*in->runs));
	for (t = 0; t < trace_count; t++) {
		struct traced_run *run = &in->runs[in->count];

		run->path = traces[t];
		if (trace_read(traces[t], &run->trace, &why) < 0) {
			error("%s: %s", traces[t], why);
			free(why);
			status = EXIT_INPUT;
			continue;
		}
		/* a killed run: the order and --evaluate's pages see part of it */
		if (!run->trace.complete)
			warn("%s: the trace is incomplete (%s): its figures cover only part of the run", traces[t],
			     run->trace.version >= 2 ? "no '# end' line" : "its last line is cut short");
		in->count++;
	}
	if (!status)
		status = binding_check(in, link, map_path, binary_path, object_glob);
	return status;
}

void hot_inputs_free(struct hot_inputs *in)
{
	size_t t;

	for (t = 0; t < in->count; t++)
		trace_free(&in->runs[t].trace);
	free(in->runs);
	free(in->binary_path);
	hot_map_free(&in->map);
	memset(in, 0, sizeof(*in));
}

int hot_from_traces(struct hot_order *hot, struct link *link, const struct hot_inputs *in, double min_match)
{
	struct touches all = { 0 };
	size_t i, t;
	int status = 0;

	hot->match_rate = 1;
	hot->text_start = text_start_of(&in->map.map);
	for (t = 0; t < in->count; t++) {
		const struct traced_run *run = &in->runs[t];
		struct match m = { 0 };

		map_records(hot, &in->map, &run->trace, run->object, t, &all, &m);
		if (report_match(hot, run->path, run->object, &m, min_match))
			status = EXIT_INPUT;
		for (i = 0; i < m.missing_count; i++)
			free(m.missing_list[i]);
		free(m.missing_list);
		strmap_free(&m.missing);
	}
	/* Used by every trace first, then by fewer; among equals, first touched
	   first (or, with first_touch_only, first touched first alone). */
	if (all.count)
		qsort_r(all.list, all.count, sizeof(*all.list), by_importance, &hot->first_touch_only);
	for (i = 0; i < all.count; i++)
		*ARRAY_PUSH(hot->sections, hot->count, hot->capacity) = all.list[i].us;
	add_startup_files(hot, link, &all.index);
	for (i = 0; i < all.index.capacity; i++)
		free((char *)all.index.slots[i].key);
	strmap_free(&all.index);
	free(all.list);
	return status;
}

/* The function symbols of u defined in section k. */
static size_t functions_in(const struct unit *u, uint32_t k)
{
	size_t i, n = 0;

	for (i = 1; i < u->elf.symbol_count; i++)
		n += u->elf.symbols[i].shndx == k && u->elf.symbols[i].type == STT_FUNC;
	return n;
}

void hot_warn_whole_objects(const struct hot_order *hot)
{
	size_t i, code = 0, shared = 0, most = 0;
	const struct unit_section *example = NULL;

	for (i = 0; i < hot->count; i++) {
		const struct unit_section *us = &hot->sections[i];
		const char *base = strrchr(us->unit->name, '/');
		size_t n;

		/* the C run-time's files are the toolchain's, whatever the project does */
		if (!hot_bound_for_text(us) || is_startup_file(base ? base + 1 : us->unit->name))
			continue;
		code++;
		if (strcmp(us->unit->elf.sections[us->section].name, ".text") || (n = functions_in(us->unit, us->section)) < 2)
			continue;
		shared++;
		if (n > most) {
			most = n;
			example = us;
		}
	}
	if (!shared || 2 * shared < code)
		return;
	warn("%zu of the %zu traced code sections hold several functions each (%s(.text): %zu functions): the "
	     "objects were compiled without -ffunction-sections, so the order moves whole objects and the functions "
	     "that ran stay among those that did not; compile with -ffunction-sections (and -fdata-sections), or "
	     "reorder the linked binary with BOLT where the objects cannot be rebuilt", shared, code, example->unit->name,
	     most);
}

static bool is_data_section(const struct unit *u, uint32_t k)
{
	const char *n = u->elf.sections[k].name;

	return sections_is_unit(u, k) && !(u->elf.sections[k].flags & SHF_EXECINSTR) &&
	       (!strncmp(n, ".rodata", 7) || !strncmp(n, ".data", 5) || !strncmp(n, ".bss", 4));
}

/* A section of merged strings (.rodata.str1.1, .rodata.FUNCTION.str1.8):
   what a table of string pointers points into. */
static bool is_string_section(const struct unit *u, uint32_t k)
{
	uint64_t flags = u->elf.sections[k].flags;

	return is_data_section(u, k) && (flags & SHF_MERGE) && (flags & SHF_STRINGS);
}

/* Adds to hot->sections, once each, the sections that the relocations of
   hot->sections[i] refer to and that want accepts. */
static void add_targets(struct hot_order *hot, struct link *link, struct strmap *seen, size_t i,
			bool (*want)(const struct unit *, uint32_t))
{
	struct unit_section us = hot->sections[i];
	const struct elf_section *s = &us.unit->elf.sections[us.section];
	size_t r;

	for (r = 0; r < s->reloc_count; r++) {
		struct unit *tu;
		uint32_t ts;
		char *key;
		void **slot;

		if (!sections_reloc_target(link, us.unit, &s->relocs[r], &tu, &ts) || !want(tu, ts))
			continue;
		key = unit_section_key(tu, ts);
		slot = strmap_slot(seen, key);
		if (*slot) {
			free(key);
			continue;
		}
		*slot = key;
		*ARRAY_PUSH(hot->sections, hot->count, hot->capacity) = (struct unit_section){ tu, ts };
	}
}

void hot_add_data(struct hot_order *hot, struct link *link, bool strings)
{
	struct strmap seen = { 0 };
	size_t i, n = hot->count;

	/* each section once: a data object a trace named is in already */
	for (i = 0; i < n; i++) {
		char *key = unit_section_key(hot->sections[i].unit, hot->sections[i].section);
		void **slot = strmap_slot(&seen, key);

		if (*slot)
			free(key);
		else
			*slot = key;
	}
	for (i = 0; i < n; i++)
		if (hot_bound_for_text(&hot->sections[i]))
			add_targets(hot, link, &seen, i, is_data_section);
	/* The strings the hot data points to: a table of names (SQLite's
	   built-in functions, its pragmas) is walked at start-up by strlen or
	   strcmp, in the C library, whose reads no trace of the program ties
	   to a section of it. */
	for (i = 0; strings && i < hot->count; i++)
		if (is_data_section(hot->sections[i].unit, hot->sections[i].section))
			add_targets(hot, link, &seen, i, is_string_section);
	for (i = 0; i < seen.capacity; i++)
		free((char *)seen.slots[i].key);
	strmap_free(&seen);
}

/* The name lld knows a section by: the first function it defines. */
static const char *section_symbol(const struct unit_section *us)
{
	const struct unit *u = us->unit;
	size_t k;

	for (k = 1; k < u->elf.symbol_count; k++) {
		const struct elf_symbol *s = &u->elf.symbols[k];

		if (s->shndx == us->section && s->type == STT_FUNC && s->name[0])
			return s->name;
	}
	return NULL;
}

void hot_add_edges(const struct hot_order *hot, struct ordering *record)
{
	struct strmap edges = { 0 };
	char **keys = NULL;
	size_t key_count = 0, key_capacity = 0, t, i;

	for (t = 0; t < hot->sequence_count; t++) {
		const struct hot_sequence *sq = &hot->sequences[t];
		const char *previous = NULL;

		/* Functions only: data sections in the sequence are skipped over. */
		for (i = 0; i < sq->count; i++) {
			const char *a = previous, *b = section_symbol(&sq->items[i]);
			char *key;
			void **slot;

			if (!b)
				continue;
			previous = b;
			if (!a)
				continue;
			key = xasprintf("%s %s", a, b);
			slot = strmap_slot(&edges, key);
			if (!*slot) {
				*ARRAY_PUSH(keys, key_count, key_capacity) = key;
				*ARRAY_PUSH(record->edges, record->edge_count, record->edge_capacity) =
					(struct ordering_edge){ xstrdup(a), xstrdup(b), 0 };
				*slot = (void *)(uintptr_t)record->edge_count; /* index + 1 */
			} else {
				free(key);
			}
			record->edges[(uintptr_t)*slot - 1].weight++;
		}
	}
	strmap_free(&edges);
	for (i = 0; i < key_count; i++)
		free(keys[i]);
	free(keys);
}
