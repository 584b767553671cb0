#include "layout.h"
#include "../linkscripts/emit.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* The input section of the link the map's section s is: as
   hot_map_section finds it, or for a string or constant section the
   linker merged (whose size in the map is what was left of it), the
   unit's merged section of that name. */
static bool section_of(const struct hot_map *map, const struct ldmap_section *s, struct unit_section *us)
{
	struct unit *u;
	uint32_t k;

	if (hot_map_section(map, s, us))
		return true;
	u = strmap_get(&map->units, s->file);
	if (!u)
		return false;
	for (k = elfobj_section_by_name(&u->elf, s->name); k; k = elfobj_section_next_named(&u->elf, k)) {
		if ((u->elf.sections[k].flags & SHF_MERGE) && sections_is_unit(u, k)) {
			*us = (struct unit_section){ u, k };
			return true;
		}
	}
	return false;
}

/* The alignment the linker gives the map's section s: its object's (a
   section the linker rewrote, .eh_frame say, is no longer its object's
   size: its object's section of that name), or, for a section no object
   of the link has, what its address shows. */
static uint64_t alignment_of(const struct hot_map *map, const struct ldmap_section *s)
{
	struct unit_section us;
	struct unit *u;
	uint32_t k;
	uint64_t a;

	if (section_of(map, s, &us)) {
		a = us.unit->elf.sections[us.section].addralign;
		return a ? a : 1;
	}
	if ((u = strmap_get(&map->units, s->file)) && (k = elfobj_section_by_name(&u->elf, s->name))) {
		a = u->elf.sections[k].addralign;
		return a ? a : 1;
	}
	for (a = 1; a < 64 && !(s->address & a); a <<= 1)
		;
	return a;
}

struct placing {
	struct layout *layout;
	bool *placed;
	uint64_t at;
};

static void place(struct placing *p, size_t i)
{
	const struct ldmap_section *s = &p->layout->map->map.sections[i];
	uint64_t a = alignment_of(p->layout->map, s);

	if (p->placed[i])
		return;
	p->at = (p->at + a - 1) / a * a;
	p->layout->address[i] = p->at;
	p->layout->moved[i] = true;
	p->placed[i] = true;
	p->at += s->size;
}

/* The script's hot end: what every start-up or exit runs and no order names. */
static void place_fini(struct placing *p)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, ".fini"))
			place(p, i);
}

size_t layout_map_index(const struct layout *layout, const struct unit_section *us)
{
	char *key = unit_section_key(us->unit, us->section);
	void *slot = strmap_get(&layout->index, key);

	free(key);
	return slot ? (size_t)(uintptr_t)slot - 1 : SIZE_MAX;
}

/* The order's entries [from, to) that go to output, placed in turn. */
static void place_entries(struct placing *p, const struct unit_section *order, size_t from, size_t to,
			  const char *output)
{
	size_t k, i;

	for (k = from; k < to; k++) {
		const char *out;

		if (!order[k].section)
			continue;
		out = emit_output_section(order[k].unit->elf.sections[order[k].section].name);
		if (out && !strcmp(out, output) && (i = layout_map_index(p->layout, &order[k])) != SIZE_MAX)
			place(p, i);
	}
}

/* The map's sections of output not placed yet, in the map's order. */
static void place_rest(struct placing *p, const char *output)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t i;

	for (i = 0; i < m->count; i++)
		if (!strcmp(m->sections[i].output, output))
			place(p, i);
}

/* An output section the script orders: the order's entries of it where
   the placement puts them, then the others in the map's order (the
   default patterns after the script's list). */
static void place_ordered(struct placing *p, const struct unit_section *order, size_t count, size_t hot_count,
			  const struct layout_placement *placement, const char *output)
{
	bool text = !strcmp(output, ".text");
	size_t head_end = placement && placement->head_end < hot_count ? placement->head_end : hot_count;

	if (text && head_end < hot_count) {
		place_entries(p, order, 0, head_end, output);
		place_entries(p, order, hot_count, count, output);
		place_entries(p, order, head_end, hot_count, output);
		place_fini(p);
	} else if (!text && placement && placement->rodata_last && !strcmp(output, ".rodata")) {
		place_entries(p, order, hot_count, count, output);
		place_entries(p, order, 0, hot_count, output);
	} else {
		place_entries(p, order, 0, hot_count, output);
		if (text)
			place_fini(p);
		place_entries(p, order, hot_count, count, output);
	}
	place_rest(p, output);
}

/* The output sections of the read-only data segment, in the default
   script's order and in the order of a placement with rodata_last, which
   moves the unwinding tables' statements before .rodata. */
static const char *const rodata_segment[] = { ".rodata", ".rodata1", ".eh_frame_hdr", ".eh_frame", ".sframe",
					      ".gcc_except_table", ".gnu_extab", ".exception_ranges", NULL };
static const char *const rodata_segment_last[] = { ".eh_frame_hdr", ".eh_frame", ".sframe", ".gcc_except_table",
						   ".gnu_extab", ".exception_ranges", ".rodata", ".rodata1", NULL };

static bool in_list(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* The read-only data segment under a placement with rodata_last: its
   output sections (those of rodata_segment the map has in one run of
   addresses from .rodata on) in the new order, each at the alignment of
   its most aligned input section, from where the run began. */
static void place_rodata_last(struct placing *p, const struct unit_section *order, size_t count, size_t hot_count,
			      const struct layout_placement *placement)
{
	const struct ldmap *m = &p->layout->map->map;
	size_t first = m->count, end, i;
	int o;

	for (i = 0; i < m->count && first == m->count; i++)
		if (!strcmp(m->sections[i].output, ".rodata"))
			first = i;
	for (end = first; end < m->count && in_list(rodata_segment, m->sections[end].output); end++)
		;
	if (first == m->count)
		return;
	p->at = m->sections[first].address;
	for (o = 0; rodata_segment_last[o]; o++) {
		uint64_t a = 1;
		bool any = false;

		for (i = first; i < end; i++) {
			if (strcmp(m->sections[i].output, rodata_segment_last[o]))
				continue;
			any = true;
			if (alignment_of(p->layout->map, &m->sections[i]) > a)
				a = alignment_of(p->layout->map, &m->sections[i]);
		}
		if (!any)
			continue;
		p->at = (p->at + a - 1) / a * a;
		if (!strcmp(rodata_segment_last[o], ".rodata"))
			place_ordered(p, order, count, hot_count, placement, ".rodata");
		else
			place_rest(p, rodata_segment_last[o]);
	}
}

void layout_compute(struct layout *layout, const struct hot_map *map, const struct unit_section *order, size_t count,
		    size_t hot_count, const struct layout_placement *placement)
{
	static const char *const outputs[] = { ".text", ".rodata", ".data.rel.ro", ".data", ".bss", NULL };
	const struct ldmap *m = &map->map;
	struct placing p = { layout, xcalloc(m->count ? m->count : 1, sizeof(bool)), 0 };
	size_t i;
	int o;

	memset(layout, 0, sizeof(*layout));
	layout->map = map;
	layout->address = xmalloc((m->count ? m->count : 1) * sizeof(*layout->address));
	layout->moved = xcalloc(m->count ? m->count : 1, sizeof(bool));
	for (i = 0; i < m->count; i++) {
		struct unit_section us;

		layout->address[i] = m->sections[i].address;
		if (section_of(map, &m->sections[i], &us)) {
			char *key = unit_section_key(us.unit, us.section);
			void **slot = strmap_slot(&layout->index, key);

			if (*slot)
				free(key);
			else
				*slot = (void *)(uintptr_t)(i + 1);
		}
	}
	if (placement && placement->rodata_last)
		place_rodata_last(&p, order, count, hot_count, placement);
	for (o = 0; outputs[o]; o++) {
		uint64_t start = UINT64_MAX;

		for (i = 0; i < m->count; i++)
			if (!strcmp(m->sections[i].output, outputs[o]) && m->sections[i].address < start)
				start = m->sections[i].address;
		if (start == UINT64_MAX || (placement && placement->rodata_last && !strcmp(outputs[o], ".rodata")))
			continue;
		p.at = start;
		place_ordered(&p, order, count, hot_count, placement, outputs[o]);
	}
	free(p.placed);
}

uint64_t layout_address(const struct layout *layout, uint64_t address)
{
	const struct ldmap_section *s = ldmap_find(&layout->map->map, address);

	if (!s)
		return address;
	return layout->address[s - layout->map->map.sections] + (address - s->address);
}

void layout_free(struct layout *layout)
{
	size_t i;

	for (i = 0; i < layout->index.capacity; i++)
		free((char *)layout->index.slots[i].key);
	strmap_free(&layout->index);
	free(layout->address);
	free(layout->moved);
	memset(layout, 0, sizeof(*layout));
}
