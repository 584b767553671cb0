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

/* The alignment the linker gives the map's section s: its object's, or,
   for a section no object of the link has, what its address shows. */
static uint64_t alignment_of(const struct hot_map *map, const struct ldmap_section *s)
{
	struct unit_section us;
	uint64_t a;

	if (section_of(map, s, &us)) {
		a = us.unit->elf.sections[us.section].addralign;
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

void layout_compute(struct layout *layout, const struct hot_map *map, const struct unit_section *order, size_t count,
		    size_t hot_count)
{
	static const char *const outputs[] = { ".text", ".rodata", ".data.rel.ro", ".data", ".bss", NULL };
	const struct ldmap *m = &map->map;
	struct placing p = { layout, xcalloc(m->count ? m->count : 1, sizeof(bool)), 0 };
	size_t i, k;
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
	for (o = 0; outputs[o]; o++) {
		bool text = !strcmp(outputs[o], ".text");
		uint64_t start = UINT64_MAX;

		for (i = 0; i < m->count; i++)
			if (!strcmp(m->sections[i].output, outputs[o]) && m->sections[i].address < start)
				start = m->sections[i].address;
		if (start == UINT64_MAX)
			continue;
		p.at = start;
		for (k = 0; k < count; k++) {
			const char *out;

			if (text && k == hot_count)
				place_fini(&p);
			if (!order[k].section)
				continue;
			out = emit_output_section(order[k].unit->elf.sections[order[k].section].name);
			if (out && !strcmp(out, outputs[o]) && (i = layout_map_index(layout, &order[k])) != SIZE_MAX)
				place(&p, i);
		}
		if (text && hot_count >= count)
			place_fini(&p);
		for (i = 0; i < m->count; i++)
			if (!strcmp(m->sections[i].output, outputs[o]))
				place(&p, i);
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
