/* order: units in dependency order (depth first from the seeds, callers
   before callees, first reference first), the output formats, and --why. */
#include "linkmodel.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	struct link *link;
	bool by_section;
	struct unit **out_unit;     /* visit order */
	uint32_t *out_section;
	size_t count, capacity, section_capacity;
	bool **visited;             /* by_section: per unit load index, per section */
};

static void emit(struct walk *w, struct unit *u, uint32_t section)
{
	grow_array(&w->out_section, &w->section_capacity, w->count + 1, sizeof(*w->out_section));
	w->out_section[w->count] = section;
	*ARRAY_PUSH(w->out_unit, w->count, w->capacity) = u;
}

/* The unit a unit's i-th symbol leads to, or NULL. */
static struct unit *object_edge(struct link *link, struct unit *u, size_t i)
{
	const struct elf_symbol *sym = &u->elf.symbols[i];
	struct unit *d;

	if (sym->bind == STB_LOCAL || (sym->shndx != SHN_UNDEF && sym->shndx != SHN_COMMON))
		return NULL;
	d = closure_definer(link, sym->name);
	return d && d != u && d->loaded ? d : NULL;
}

static void walk_objects(struct walk *w, struct unit *root)
{
	struct frame { struct unit *u; size_t next; } *stack = NULL;
	size_t depth = 0, capacity = 0;

	if (!root || root->visited)
		return;
	root->visited = true;
	emit(w, root, 0);
	*ARRAY_PUSH(stack, depth, capacity) = (struct frame){ root, root->elf.first_global };
	while (depth > 0) {
		struct frame *f = &stack[depth - 1];
		struct unit *next = NULL;

		while (f->next < f->u->elf.symbol_count && !next) {
			struct unit *d = object_edge(w->link, f->u, f->next++);

			if (d && !d->visited)
				next = d;
		}
		if (!next) {
			depth--;
			continue;
		}
		next->visited = true;
		emit(w, next, 0);
		*ARRAY_PUSH(stack, depth, capacity) = (struct frame){ next, next->elf.first_global };
	}
	free(stack);
}

static bool section_wanted(struct walk *w, struct unit *u, uint32_t s)
{
	return u->loaded && sections_is_unit(u, s) && u->section_kept[s] && !w->visited[u->load_index][s];
}

static void walk_sections(struct walk *w, struct unit *root, uint32_t section)
{
	struct frame { struct unit *u; uint32_t s; size_t next; } *stack = NULL;
	size_t depth = 0, capacity = 0;

	if (!root || !section_wanted(w, root, section))
		return;
	w->visited[root->load_index][section] = true;
	emit(w, root, section);
	*ARRAY_PUSH(stack, depth, capacity) = (struct frame){ root, section, 0 };
	while (depth > 0) {
		struct frame *f = &stack[depth - 1];
		const struct elf_section *s = &f->u->elf.sections[f->s];
		struct unit *nu = NULL;
		uint32_t ns = 0;

		while (f->next < s->reloc_count && !nu) {
			struct unit *tu;
			uint32_t ts;

			if (sections_reloc_target(w->link, f->u, &s->relocs[f->next++], &tu, &ts) &&
			    section_wanted(w, tu, ts)) {
				nu = tu;
				ns = ts;
			}
		}
		if (!nu) {
			depth--;
			continue;
		}
		w->visited[nu->load_index][ns] = true;
		emit(w, nu, ns);
		*ARRAY_PUSH(stack, depth, capacity) = (struct frame){ nu, ns, 0 };
	}
	free(stack);
}

static void walk_root_symbol(struct walk *w, const char *name)
{
	struct unit *u = closure_definer(w->link, name);
	struct symbol_entry *e;

	if (!u)
		return;
	if (!w->by_section) {
		walk_objects(w, u);
		return;
	}
	e = closure_symbol(w->link, name);
	if (u->elf.symbols[e->definition_index].shndx < SHN_LORESERVE)
		walk_sections(w, u, u->elf.symbols[e->definition_index].shndx);
}

/* Fills w with the units in order; returns the count reached from roots. */
static size_t compute_order(struct walk *w)
{
	struct link *link = w->link;
	struct link_options *opt = link->options;
	size_t i, reached;
	uint32_t k;

	if (w->by_section) {
		w->visited = xcalloc(link->unit_count ? link->unit_count : 1, sizeof(*w->visited));
		for (i = 0; i < link->unit_count; i++)
			w->visited[i] = xcalloc(link->units[i]->elf.section_count + 1, sizeof(bool));
	}
	for (i = 0; i < link->seed_count; i++)
		walk_root_symbol(w, link->seeds[i]);
	if (!link->seed_count) {
		if (opt->entry || !opt->shared)
			walk_root_symbol(w, opt->entry ? opt->entry : "_start");
		for (i = 0; i < opt->undefined_count; i++)
			walk_root_symbol(w, opt->undefined[i]);
		for (i = 0; i < link->unit_count; i++) {
			struct unit *u = link->units[i];

			if (u->is_member)
				continue;
			if (!w->by_section)
				walk_objects(w, u);
		}
	}
	reached = w->count;
	/* Needed but not reached from the roots: in the order ld loads them. */
	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];

		if (!w->by_section) {
			walk_objects(w, u);
			continue;
		}
		for (k = 1; k < u->elf.section_count; k++)
			walk_sections(w, u, k);
	}
	return reached;
}

static void print_json(struct walk *w, size_t reached)
{
	struct link *link = w->link;
	size_t i;
	bool first = true;

	printf("{\n  ");
	json_print_format("linkopt-deporder", 1);
	printf("\n  \"granularity\": \"%s\",\n  \"units\": [", w->by_section ? "section" : "object");
	for (i = 0; i < w->count; i++) {
		struct unit *u = w->out_unit[i];

		printf("%s\n    {\"unit\": ", i ? "," : "");
		json_print_string(u->name);
		if (u->is_member) {
			printf(", \"archive\": ");
			json_print_string(u->input->path);
			printf(", \"member\": ");
			json_print_string(u->input->archive->members[u->member].name);
		}
		if (w->by_section) {
			const struct elf_section *s = &u->elf.sections[w->out_section[i]];

			printf(", \"section\": ");
			json_print_string(s->name);
			printf(", \"size\": %llu, \"align\": %llu", (unsigned long long)s->size,
			       (unsigned long long)s->addralign);
		}
		printf(", \"reached\": %s", i < reached ? "true" : "false");
		if (u->pulled_for) {
			printf(", \"pulled_for\": ");
			json_print_string(u->pulled_for);
		}
		if (u->pulled_by) {
			printf(", \"pulled_by\": ");
			json_print_string(u->pulled_by->name);
		}
		printf("}");
	}
	printf("\n  ],\n  \"undefined\": [");
	for (i = 0; i < link->symbol_count; i++) {
		struct symbol_entry *s = link->symbol_list[i];

		if (s->state != SYM_UNDEFINED || s->discarded ||
		    (s->first_reference && s->first_reference->is_shared))
			continue;
		printf("%s\n    {\"symbol\": ", first ? "" : ",");
		json_print_string(s->name);
		if (s->first_reference) {
			printf(", \"referenced_by\": ");
			json_print_string(s->first_reference->name);
		}
		printf("}");
		first = false;
	}
	printf("\n  ]\n}\n");
}

char *unit_section_key(const struct unit *u, uint32_t section)
{
	return xasprintf("%p\t%u", (const void *)u, section);
}

struct unit_section *order_compute(struct link *link, const struct unit_section *hot, size_t hot_count,
				   bool by_section, bool every_section, size_t *count)
{
	struct walk w = { .link = link, .by_section = by_section };
	struct unit_section *out = NULL;
	struct strmap placed = { 0 };
	size_t n = 0, capacity = 0, i;

	compute_order(&w);
	for (i = 0; i < hot_count + w.count; i++) {
		struct unit_section us = i < hot_count ? hot[i]
				       : (struct unit_section){ w.out_unit[i - hot_count], w.out_section[i - hot_count] };
		char *key;
		void **slot;

		if (!by_section)
			us.section = 0;
		key = unit_section_key(us.unit, us.section);
		slot = strmap_slot(&placed, key);
		if (*slot) {
			free(key);
			continue;
		}
		*slot = key;
		*ARRAY_PUSH(out, n, capacity) = us;
	}
	for (i = 0; by_section && every_section && i < link->unit_count; i++) {
		struct unit *u = link->units[i];
		uint32_t k;

		for (k = 1; u->loaded && k < u->elf.section_count; k++) {
			char *key;
			void **slot;

			if (!sections_is_unit(u, k))
				continue;
			key = unit_section_key(u, k);
			slot = strmap_slot(&placed, key);
			if (*slot) {
				free(key);
				continue;
			}
			*slot = key;
			*ARRAY_PUSH(out, n, capacity) = (struct unit_section){ u, k };
		}
	}
	for (i = 0; i < placed.capacity; i++)
		free((char *)placed.slots[i].key);
	strmap_free(&placed);
	free(w.out_unit);
	free(w.out_section);
	*count = n;
	return out;
}

/* name as a part of a GNU ld script's file pattern: each byte ld's lexer
   cannot take in a name (a blank, a quote, a byte of UTF-8...) or would
   read as a wildcard or the archive separator ':' becomes the wildcard
   '?', which matches it. */
static char *ld_pattern_part(const char *name)
{
	char *part = xstrdup(name), *p;

	for (p = part; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("_/.-+$~", *p)))
			*p = '?';
	return part;
}

/* GNU ld's file pattern for a unit: the path, or archive:member. */
static char *file_pattern(const struct unit *u)
{
	char *path, *member, *pattern;

	if (!u->is_member || u->input->archive->thin)
		return ld_pattern_part(u->name);
	path = ld_pattern_part(u->input->path);
	member = ld_pattern_part(u->input->archive->members[u->member].name);
	pattern = xasprintf("%s:%s", path, member);
	free(path);
	free(member);
	return pattern;
}

/* The names lld and mold order us by: the functions and data objects it
   defines that the link keeps (a whole unit: those in code sections). */
static void add_symbols(struct ordering_entry *e, const struct unit_section *us)
{
	const struct unit *u = us->unit;
	size_t k;

	for (k = 1; k < u->elf.symbol_count; k++) {
		const struct elf_symbol *s = &u->elf.symbols[k];

		if ((s->type != STT_FUNC && s->type != STT_OBJECT) || !s->name[0] || s->shndx == SHN_UNDEF ||
		    s->shndx >= SHN_LORESERVE || u->section_discarded[s->shndx])
			continue;
		if (us->section ? s->shndx != us->section : !(u->elf.sections[s->shndx].flags & SHF_EXECINSTR))
			continue;
		ordering_add_symbol(e, s->name);
	}
}

/* The names that the shared libraries of the command line define, needed
   or not: lld keeps them all in its symbol table (those of a library that
   --as-needed drops as undefined). */
static void collect_shared_names(struct strmap *names, const struct input *group)
{
	size_t i, k;

	for (i = 0; i < group->child_count; i++) {
		const struct input *in = group->children[i];

		if (in->kind == INPUT_GROUP || in->kind == INPUT_SCRIPT) {
			collect_shared_names(names, in);
			continue;
		}
		if (in->kind != INPUT_SHARED || !in->unit)
			continue;
		for (k = in->unit->elf.first_global; k < in->unit->elf.symbol_count; k++) {
			const struct elf_symbol *s = &in->unit->elf.symbols[k];

			if (s->shndx != SHN_UNDEF && s->bind != STB_LOCAL && s->name[0])
				*strmap_slot(names, s->name) = (void *)1;
		}
	}
}

/* lld warns "unable to order shared symbol" (or "undefined symbol", the
   library dropped) for a name of the order that a shared library defines
   too, whether this link's definition is global or local, and orders this
   link's definition all the same; the record lists those names. */
static void note_shared_names(struct ordering *record, const struct link *link)
{
	struct strmap shared = { 0 }, seen = { 0 };
	size_t i, k;

	collect_shared_names(&shared, link->options->root);
	for (i = 0; i < record->count; i++) {
		const struct ordering_entry *e = &record->entries[i];

		for (k = 0; k < e->symbol_count; k++) {
			void **slot;

			if (!strmap_get(&shared, e->symbols[k]))
				continue;
			slot = strmap_slot(&seen, e->symbols[k]);
			if (*slot)
				continue;
			*slot = (void *)1;
			ordering_add_shared_name(record, e->symbols[k]);
		}
	}
	strmap_free(&shared);
	strmap_free(&seen);
}

struct ordering *order_record(struct link *link, const struct unit_section *order, size_t count, size_t hot,
			      const char *provenance)
{
	struct ordering *record = xcalloc(1, sizeof(*record));
	size_t i;

	for (i = 0; i < count; i++) {
		const struct unit *u = order[i].unit;
		char *file = file_pattern(u);
		struct ordering_entry *e =
			ordering_add(record, u->name, file, order[i].section ? u->elf.sections[order[i].section].name : NULL);

		if (order[i].section)
			e->size = u->elf.sections[order[i].section].size;

		add_symbols(e, &order[i]);
		free(file);
	}
	record->hot = hot;
	record->head_end = hot;
	record->provenance = xstrdup(provenance);
	note_shared_names(record, link);
	return record;
}

void order_print(struct link *link, const struct unit_section *hot, size_t hot_count, enum output_format format,
		 bool by_section)
{
	struct walk w = { .link = link, .by_section = by_section };
	size_t i, reached;

	if (format == FORMAT_MEMBERS) {
		for (i = 0; i < link->unit_count; i++)
			if (link->units[i]->is_member)
				printf("%s\n", link->units[i]->name);
		return;
	}
	if (hot_count && format == FORMAT_LIST) {
		size_t n;
		struct unit_section *order = order_compute(link, hot, hot_count, by_section, false, &n);

		for (i = 0; i < n; i++) {
			if (by_section)
				printf("%s\t%s\n", order[i].unit->name, order[i].unit->elf.sections[order[i].section].name);
			else
				printf("%s\n", order[i].unit->name);
		}
		free(order);
		return;
	}
	reached = compute_order(&w);
	if (format == FORMAT_JSON) {
		print_json(&w, reached);
	} else {
		for (i = 0; i < w.count; i++) {
			if (by_section)
				printf("%s\t%s\n", w.out_unit[i]->name,
				       w.out_unit[i]->elf.sections[w.out_section[i]].name);
			else
				printf("%s\n", w.out_unit[i]->name);
		}
	}
	free(w.out_unit);
	free(w.out_section);
	if (w.visited) {
		for (i = 0; i < link->unit_count; i++)
			free(w.visited[i]);
		free(w.visited);
	}
}

static bool is_in(char **list, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

static struct unit *find_unit(struct link *link, const char *what)
{
	size_t i;
	const char *slash;

	for (i = 0; i < link->unit_count; i++)
		if (!strcmp(link->units[i]->name, what))
			return link->units[i];
	/* Also accept a bare member name, or lib.a(member) without the folder. */
	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];

		if (u->is_member && !strcmp(u->input->archive->members[u->member].name, what))
			return u;
		slash = strrchr(u->name, '/');
		if (slash && !strcmp(slash + 1, what))
			return u;
	}
	return NULL;
}

int order_why(struct link *link, const char *what, bool by_section)
{
	struct link_options *opt = link->options;
	struct unit *u = find_unit(link, what);
	size_t guard;

	(void)by_section;
	if (!u) {
		u = closure_definer(link, what);
		if (!u) {
			error("%s: neither a unit of the link nor a symbol defined by one", what);
			return EXIT_INPUT;
		}
		printf("'%s' is defined in %s\n", what, u->name);
	}
	for (guard = 0; u && guard <= link->unit_count; guard++) {
		if (u->pulled_by) {
			printf("%s: pulled in for '%s', referenced by %s\n", u->name, u->pulled_for, u->pulled_by->name);
			u = u->pulled_by;
			if (u->is_shared) {
				printf("%s: shared library given on the command line\n", u->name);
				break;
			}
			continue;
		}
		if (!u->pulled_for)
			printf("%s: given on the command line\n", u->name);
		else if (!strcmp(u->pulled_for, "--whole-archive"))
			printf("%s: included by --whole-archive\n", u->name);
		else if (is_in(link->seeds, link->seed_count, u->pulled_for))
			printf("%s: pulled in for '%s', a seed (--seed)\n", u->name, u->pulled_for);
		else if (is_in(opt->undefined, opt->undefined_count, u->pulled_for))
			printf("%s: pulled in for '%s', given with -u\n", u->name, u->pulled_for);
		else
			printf("%s: pulled in for '%s', the entry symbol\n", u->name, u->pulled_for);
		break;
	}
	return 0;
}
